// Tool selection on a small window, end to end: the calculator pack against
// the scripted server reporting a 4,096-token window at /props. The first
// request offers part of the pack; the model asks find_tools for Wells' PE
// score, calls it on the next step, then answers. Each recorded request is
// checked: which tools it offered, and that its size fits the window.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "medreact/agent.h"
#include "medreact/model_factory.h"
#include "testing/scripted_server.h"
#include "tools/calc/calc_pack.h"

namespace medreact {
namespace {

using ::testing::HasSubstr;

Json Call(const std::string& id, const std::string& name, const Json& args) {
  return Json{{"message", {{"tool_calls", Json::array({{{"id", id}, {"name", name}, {"arguments", DumpJson(args)}}})}}}};
}

std::vector<std::string> OfferedNames(const Json& request) {
  std::vector<std::string> names;
  for (const Json& t : request["body"]["tools"]) names.push_back(t["function"]["name"].get<std::string>());
  return names;
}

bool Has(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

TEST(ToolSelectionRunTest, TheCalculatorPackOnA4kWindowWithFindTools) {
  constexpr int64_t kWindow = 4096;
  testing::ScriptedServer server(Json{
      {"responses",
       Json::array({Call("c1", "find_tools", {{"query", "Wells score pulmonary embolism"}}),
                    Call("c2", "wells_pe", {{"heart_rate", 110}, {"pe_most_likely", true}}),
                    Call("c3", "final_answer", {{"answer", "CrCl about 61 mL/min; Wells PE 4.5."}})})},
      {"props", {{"default_generation_settings", {{"n_ctx", kWindow}}}}}});
  Result<std::shared_ptr<ChatModel>> model =
      BuildModel({.provider = "native", .base_url = server.url(), .model = "tiny", .max_retries = 0});
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  auto registry = std::make_shared<ToolRegistry>();
  ASSERT_TRUE(RegisterFinishTools(*registry).ok());
  ASSERT_TRUE(RegisterCalcPack(*registry).ok());
  Agent agent(*model, registry, {.max_steps = 5});
  RunResult result = agent.Run({.message = "Man, 70 years, 72 kg, serum creatinine 1.3 mg/dL: creatinine clearance?"});
  ASSERT_EQ(result.status, RunStatus::kFinished) << result.error;
  EXPECT_THAT(result.answer, HasSubstr("CrCl about 61"));

  const std::vector<Json> sent = server.server->requests();
  ASSERT_EQ(sent.size(), 3u);
  for (size_t i = 0; i < sent.size(); ++i) {
    const std::vector<std::string> names = OfferedNames(sent[i]);
    SCOPED_TRACE("request " + std::to_string(i + 1));
    EXPECT_LT(names.size(), registry->size());  // part of the pack
    EXPECT_TRUE(Has(names, "final_answer"));
    EXPECT_TRUE(Has(names, "find_tools"));
    // The size as sent, by the same estimate, leaves the reply's quarter free.
    EXPECT_LE(static_cast<int64_t>(DumpJson(sent[i]["body"]).size()) / 3, kWindow - kWindow / 4);
  }
  const std::vector<std::string> first = OfferedNames(sent[0]), second = OfferedNames(sent[1]),
                                 third = OfferedNames(sent[2]);
  EXPECT_TRUE(Has(first, "creatinine_clearance_cockcroft_gault"));  // ranked for the task
  EXPECT_FALSE(Has(first, "wells_pe"));
  EXPECT_TRUE(Has(second, "wells_pe"));  // asked for by find_tools
  EXPECT_TRUE(Has(third, "wells_pe"));   // already used
  // find_tools' result, as the model read it, named the tool.
  EXPECT_THAT(DumpJson(sent[1]["body"]["messages"].back()), HasSubstr("wells_pe"));

  // The trace says what was offered and why.
  ASSERT_GE(result.trace.steps.size(), 2u);
  const std::string note1 = ::testing::PrintToString(result.trace.steps[0].notes);
  EXPECT_THAT(note1, HasSubstr("final_answer (finishing tool)"));
  EXPECT_THAT(note1, HasSubstr("creatinine_clearance_cockcroft_gault (rank "));
  EXPECT_THAT(note1, HasSubstr("budget "));
  EXPECT_THAT(::testing::PrintToString(result.trace.steps[1].notes),
              HasSubstr("wells_pe (asked for by find_tools)"));
}

}  // namespace
}  // namespace medreact
