// The scripted model server (src/mockllm) in this process, on a loopback
// port, for a test's lifetime: started from a script (JSON, as
// `medreact-mock-llm --script` reads it), stopped at the end of the scope.
//
//   testing::ScriptedServer model(Json{{"responses", Json::array({...})}});
//   ModelConfig c{.base_url = model.url()};   model.requests(): what it received
#ifndef MEDREACT_TESTS_TESTING_SCRIPTED_SERVER_H_
#define MEDREACT_TESTS_TESTING_SCRIPTED_SERVER_H_

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "medreact/json.h"
#include "mockllm/mock_server.h"

namespace medreact::testing {

struct ScriptedServer {
  explicit ScriptedServer(const Json& script) {
    Result<mockllm::MockScript> parsed = mockllm::MockLlmServer::ParseScript(script);
    EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
    server = std::make_unique<mockllm::MockLlmServer>(parsed.ok() ? *parsed : mockllm::MockScript{});
    EXPECT_TRUE(server->Start().ok());
  }
  ~ScriptedServer() { server->Stop(); }
  ScriptedServer(const ScriptedServer&) = delete;
  ScriptedServer& operator=(const ScriptedServer&) = delete;

  std::string url() const { return server->base_url(); }
  size_t chat_requests() const { return server->requests().size(); }
  std::unique_ptr<mockllm::MockLlmServer> server;
};

}  // namespace medreact::testing

#endif  // MEDREACT_TESTS_TESTING_SCRIPTED_SERVER_H_
