// The model factory (medreact/model_factory.h): the provider table, how a
// command's --planner / --protocol choice resolves, what each provider builds
// (checked by its typed capabilities and by talking to the scripted server
// over loopback), and the errors for everything that cannot be built.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "medreact/model_factory.h"
#include "mockllm/mock_server.h"
#include "tests/testing/fake_model.h"

namespace medreact {
namespace {

using ::testing::HasSubstr;

TEST(ModelFactoryTest, TheTableListsEveryProviderAllBuilt) {
  std::vector<std::string> names;
  for (const ModelProvider& p : ModelProviders()) names.push_back(p.name);
  EXPECT_THAT(names, ::testing::ElementsAre("native", "text", "rules", "anthropic"));
  for (const ModelProvider& p : ModelProviders()) EXPECT_TRUE(p.built) << p.name;
  EXPECT_TRUE(ModelProviders()[3].needs_server);
  EXPECT_FALSE(ModelProviders()[2].needs_server);
}

TEST(ModelFactoryTest, PlannerAndProtocolResolveTheSameWayForEveryFrontEnd) {
  EXPECT_EQ(*ResolveProvider("auto", "native", true, true), "native");
  EXPECT_EQ(*ResolveProvider("auto", "text", true, true), "text");
  EXPECT_EQ(*ResolveProvider("auto", "native", false, true), "rules");
  EXPECT_EQ(*ResolveProvider("rules", "native", true, true), "rules");
  EXPECT_EQ(*ResolveProvider("model", "text", true, false), "text");

  Result<std::string> no_server = ResolveProvider("model", "native", false, true);
  ASSERT_FALSE(no_server.ok());
  EXPECT_THAT(no_server.status().message(), HasSubstr("the planner (planner) 'model' needs a model server"));
  Result<std::string> chat = ResolveProvider("auto", "native", false, false);  // chat: no planner
  ASSERT_FALSE(chat.ok());
  // The library names the setting; the CLI writes its flag (setting_flags.h).
  EXPECT_THAT(chat.status().message(), HasSubstr("set the model URL (llm_url)"));
  EXPECT_THAT(chat.status().message(), ::testing::Not(HasSubstr("--")));
  EXPECT_FALSE(ResolveProvider("rules", "native", true, false).ok());
  EXPECT_FALSE(ResolveProvider("sometimes", "native", true, true).ok());
}

TEST(ModelFactoryTest, EachProviderBuildsAModelWithItsCapabilities) {
  Result<std::shared_ptr<ChatModel>> native =
      BuildModel({.provider = "native", .base_url = "http://127.0.0.1:9/v1", .model = "m"});
  ASSERT_TRUE(native.ok()) << native.status().ToString();
  EXPECT_EQ((*native)->capabilities().tool_calling, ToolCalling::kNative);
  EXPECT_TRUE((*native)->capabilities().streaming);
  EXPECT_EQ((*native)->name(), "m");

  Result<std::shared_ptr<ChatModel>> text = BuildModel({.provider = "text", .base_url = "https://h.example/v1"});
  ASSERT_TRUE(text.ok());
  EXPECT_EQ((*text)->capabilities().tool_calling, ToolCalling::kTextProtocol);
  EXPECT_EQ((*text)->protocol(), "text");

  auto planner = std::make_shared<testing::FakeModel>();
  Result<std::shared_ptr<ChatModel>> rules =
      BuildModel({.provider = "rules"}, {.rules_planner = [planner] { return planner; }});
  ASSERT_TRUE(rules.ok());
  EXPECT_EQ(rules->get(), planner.get());
}

TEST(ModelFactoryTest, WhatCannotBeBuiltIsRefusedWithTheReason) {
  auto message = [](const ModelConfig& config) {
    Result<std::shared_ptr<ChatModel>> m = BuildModel(config);
    EXPECT_FALSE(m.ok());
    return m.ok() ? std::string() : m.status().message();
  };
  EXPECT_THAT(message({.provider = "native", .base_url = "127.0.0.1:8000"}), HasSubstr("must start with http://"));
  EXPECT_THAT(message({.provider = "native", .base_url = "ftp://user:secret@h/v1"}),
              ::testing::Not(HasSubstr("secret")));
  EXPECT_THAT(message({.provider = "anthropic", .base_url = "api.anthropic.com"}), HasSubstr("must start with http://"));
  EXPECT_THAT(message({.provider = "gpt"}), HasSubstr("unknown model provider 'gpt'"));
  EXPECT_THAT(message({.provider = "rules"}), HasSubstr("no rules planner"));
}

TEST(ModelFactoryTest, TheTextProviderSpeaksTheTextProtocolToARealServer) {
  Result<mockllm::MockScript> script = mockllm::MockLlmServer::ParseScript(
      Json{{"responses", {{{"message", {{"content", "THOUGHT: easy\nFINAL_ANSWER: 391"}}}}}}});
  ASSERT_TRUE(script.ok());
  mockllm::MockLlmServer server(*script);
  ASSERT_TRUE(server.Start().ok());
  Result<std::shared_ptr<ChatModel>> model =
      BuildModel({.provider = "text", .base_url = server.base_url(), .model = "mock", .max_retries = 0});
  ASSERT_TRUE(model.ok());
  ModelRequest request;
  request.messages = {Message::System("be brief"), Message::User("17*23?")};
  request.tools = {ToolSpec{"calculator", "arithmetic", Json::object()}};
  Result<ModelResponse> reply = (*model)->Complete(request, {});
  ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  EXPECT_EQ(reply->message.content, "391");
  const std::vector<Json> sent = server.requests();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_FALSE(sent[0]["body"].contains("tools"));  // the catalogue went into the prompt instead
  EXPECT_THAT(sent[0]["body"]["messages"][0]["content"].get<std::string>(), HasSubstr("### calculator"));
  server.Stop();
}

}  // namespace
}  // namespace medreact
