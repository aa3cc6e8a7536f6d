// The official openai npm client (pinned in tests/node/package.json) against
// the facade: tests/node/openai_facade.mjs lists the models, asks a plain
// and a streamed completion (reasoning, content, usage), sends an image to
// medreact-cxr and follows a run that pauses for approval, against a server
// whose model is the scripted mock. Skipped, saying why, when the npm
// packages are not installed (`make node-deps`).
#include <gtest/gtest.h>

#include <filesystem>

#include "testing/build_paths.h"
#include "testing/scripted_server.h"
#include "testing/serve_fixture.h"
#include "testing/subprocess.h"

namespace medreact::server {
namespace {

Json Call(const std::string& id, const std::string& expression, Json usage = nullptr) {
  Json j{{"message", {{"content", nullptr},
                      {"tool_calls", Json::array({{{"id", id}, {"name", "calculator"},
                                                   {"arguments", Json{{"expression", expression}}}}})}}}};
  if (!usage.is_null()) j["usage"] = std::move(usage);
  return j;
}
Json Answer(const std::string& text, Json usage = nullptr) {
  Json j{{"message", {{"content", text}}}};
  if (!usage.is_null()) j["usage"] = std::move(usage);
  return j;
}
Json Tokens(int prompt, int completion) {
  return {{"prompt_tokens", prompt}, {"completion_tokens", completion}, {"total_tokens", prompt + completion}};
}

TEST(ServerOpenAiNpmTest, TheOfficialOpenAiClientTalksToTheFacade) {
  const std::string node_dir = MEDREACT_SOURCE_DIR + "/tests/node";
  if (!std::filesystem::is_directory(node_dir + "/node_modules/openai")) {
    GTEST_SKIP() << "tests/node/node_modules is missing: run `make node-deps` (npm ci) to test the openai npm client";
  }
  if (!std::filesystem::exists("/usr/bin/node")) GTEST_SKIP() << "no /usr/bin/node on this machine";
  // In the script's order: plain, streamed, cxr, paused.
  testing::ScriptedServer model(Json{{"responses", Json::array({Call("c1", "2+2", Tokens(10, 5)),
                                                                Answer("It is 4.", Tokens(20, 7)),
                                                                Call("c1", "2+2", Tokens(10, 5)),
                                                                Answer("It is 4.", Tokens(20, 7)),
                                                                Answer("No effusion is seen."),
                                                                Call("c1", "2+2")})}});
  ServeOptions o{.token = "npm-facade-token-0123456789"};
  o.model = {.url = model.url(), .name = "mock", .max_retries = 0};
  testing::ServeFixture srv(o);
  testing::ProcessResult r =
      testing::RunCommand({"/usr/bin/node", node_dir + "/openai_facade.mjs",
                           "http://127.0.0.1:" + std::to_string(srv.port()), o.token},
                          {}, std::chrono::seconds(120));
  EXPECT_EQ(r.exit_code, 0) << "stdout:\n" << r.out << "\nstderr:\n" << r.err;
  EXPECT_NE(r.out.find("all checks passed"), std::string::npos) << r.out << r.err;
}

}  // namespace
}  // namespace medreact::server
