// End to end through real sockets: Agent + the OpenAI-compatible client
// (libcurl) + the scripted model server on 127.0.0.1, with the util tool pack.
// Each case replays a quirk or fault real servers show and asserts both the
// run's trace and the exact follow-up request the client sent back.
#include <gtest/gtest.h>

#include <mutex>

#include "medreact/agent.h"
#include "medreact/openai.h"
#include "medreact/text_protocol.h"
#include "mockllm/mock_server.h"
#include "testing/fake_model.h"
#include "tools/util/util_pack.h"

namespace medreact {
namespace {

using mockllm::MockLlmServer;

struct E2E {
  RunResult result;
  std::vector<Json> requests;      // what the server received, in order
  std::vector<int64_t> sleeps_ms;  // retry waits the client asked for
};

struct E2EOptions {
  bool stream = false;
  bool text_protocol = false;
  AgentOptions agent;
  Millis request_timeout{10'000};
  int max_retries = 4;
};

E2E RunAgainstScript(const Json& script, E2EOptions opts = {}) {
  auto parsed = MockLlmServer::ParseScript(script);
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
  MockLlmServer server(*parsed);
  EXPECT_TRUE(server.Start().ok());

  E2E out;
  auto sleeps = std::make_shared<std::vector<int64_t>>();
  auto sleeps_mu = std::make_shared<std::mutex>();
  OpenAIOptions client;
  client.base_url = server.base_url();
  client.model = "mock";
  client.request_timeout = opts.request_timeout;
  client.max_retries = opts.max_retries;
  client.initial_backoff = Millis(1);
  client.sleep = [sleeps, sleeps_mu](Millis d) {
    std::lock_guard<std::mutex> lock(*sleeps_mu);
    sleeps->push_back(d.count());
  };
  std::shared_ptr<ChatModel> model = MakeOpenAIModel(client);
  if (opts.text_protocol) {
    model = MakeTextProtocolModel(MakeOpenAIModel(client));
  }
  auto registry = std::make_shared<ToolRegistry>();
  EXPECT_TRUE(RegisterUtilPack(*registry).ok());
  opts.agent.stream = opts.stream;
  Agent agent(model, registry, opts.agent);
  out.result = agent.Run({.message = "What is 17*23?"});
  out.requests = server.requests();
  out.sleeps_ms = *sleeps;
  server.Stop();
  return out;
}

Json Call(const std::string& name, Json arguments, std::optional<std::string> id = std::nullopt) {
  Json c{{"name", name}, {"arguments", std::move(arguments)}};
  if (id) c["id"] = *id;
  return c;
}

Json CalcCall(std::optional<std::string> id = "call_1") {
  return Call("calculator", R"({"expression": "17*23"})", id);
}

// `calls` is a vector, not a Json: `Json{one_call}` is an array under gcc but a
// copy of the call under clang (single-element brace initialisation).
Json Reply(const std::vector<Json>& calls, Json content = nullptr) {
  Json message = Json::object();
  message["content"] = std::move(content);
  message["tool_calls"] = Json::array();
  for (const Json& call : calls) message["tool_calls"].push_back(call);
  return Json{{"message", std::move(message)}};
}

Json TextReply(const std::string& text) { return Json{{"message", {{"content", text}}}}; }

// The messages of the i-th request the server received.
const Json& Sent(const E2E& e, size_t i) { return e.requests.at(i).at("body").at("messages"); }

// Checks that the second request carries the assistant turn with the calls
// (arguments as JSON strings) and one tool message per call, in order.
void ExpectValidFollowUp(const E2E& e, size_t request_index, size_t n_calls) {
  const Json& msgs = Sent(e, request_index);
  ASSERT_GE(msgs.size(), 3 + n_calls);
  const Json& assistant = msgs[msgs.size() - 1 - n_calls];
  ASSERT_EQ(assistant["role"], "assistant");
  ASSERT_EQ(assistant["tool_calls"].size(), n_calls);
  for (size_t i = 0; i < n_calls; ++i) {
    const Json& call = assistant["tool_calls"][i];
    EXPECT_EQ(call["type"], "function");
    EXPECT_TRUE(call["function"]["arguments"].is_string()) << call.dump();
    EXPECT_TRUE(ParseJson(call["function"]["arguments"].get<std::string>()).ok());
    const Json& tool = msgs[msgs.size() - n_calls + i];
    EXPECT_EQ(tool["role"], "tool");
    EXPECT_EQ(tool["tool_call_id"], call["id"]);
    EXPECT_FALSE(call["id"].get<std::string>().empty());
  }
}

TEST(OpenAIEndToEnd, NonStreamingToolCallThenAnswer) {
  E2E e = RunAgainstScript({{"responses", {Reply({CalcCall()}), TextReply("17*23 = 391")}}});
  ASSERT_EQ(e.result.status, RunStatus::kFinished) << e.result.error;
  EXPECT_EQ(e.result.answer, "17*23 = 391");
  ASSERT_EQ(e.requests.size(), 2u);
  const Json& first = e.requests[0]["body"];
  EXPECT_EQ(first["model"], "mock");
  EXPECT_EQ(first["tools"].size(), 2u);
  EXPECT_EQ(first["tools"][0]["type"], "function");
  EXPECT_EQ(first["tool_choice"], "auto");
  ExpectValidFollowUp(e, 1, 1);
  const Json& tool = Sent(e, 1).back();
  EXPECT_EQ(tool["tool_call_id"], "call_1");
  EXPECT_EQ(ParseJson(tool["content"].get<std::string>()).value()["result"], 391);
  EXPECT_EQ(e.result.trace.steps[0].tool_results[0].content, tool["content"]);
}

TEST(OpenAIEndToEnd, StreamedFragmentedArguments) {
  Json entry = Reply({CalcCall()});
  entry["fragment_chars"] = 2;
  E2E e = RunAgainstScript({{"responses", {entry, TextReply("391")}}}, {.stream = true});
  ASSERT_EQ(e.result.status, RunStatus::kFinished) << e.result.error;
  EXPECT_EQ(e.requests[0]["body"]["stream"], true);
  const ToolCall& call = e.result.trace.steps[0].assistant.tool_calls.at(0);
  EXPECT_EQ(call.id, "call_1");
  EXPECT_EQ(call.name, "calculator");
  EXPECT_EQ(ParseJson(call.arguments).value(), Json::parse(R"({"expression":"17*23"})"));
  EXPECT_TRUE(e.result.trace.steps[0].tool_results[0].ok);
  ExpectValidFollowUp(e, 1, 1);
  EXPECT_EQ(Sent(e, 1)[2]["tool_calls"][0]["function"]["arguments"], R"({"expression":"17*23"})");
}

TEST(OpenAIEndToEnd, TwoParallelCallsWithInterleavedFragments) {
  Json entry = Reply({CalcCall("call_a"), Call("current_time", R"({"utc_offset_minutes": 60})", "call_b")});
  entry["interleave"] = true;
  entry["fragment_chars"] = 3;
  E2E e = RunAgainstScript({{"responses", {entry, TextReply("both done")}}}, {.stream = true});
  ASSERT_EQ(e.result.status, RunStatus::kFinished) << e.result.error;
  const auto& calls = e.result.trace.steps[0].assistant.tool_calls;
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].name, "calculator");
  EXPECT_EQ(calls[1].name, "current_time");
  EXPECT_EQ(ParseJson(calls[1].arguments).value()["utc_offset_minutes"], 60);
  ExpectValidFollowUp(e, 1, 2);
  EXPECT_EQ(Sent(e, 1)[3]["tool_call_id"], "call_a");
  EXPECT_EQ(Sent(e, 1)[4]["tool_call_id"], "call_b");
}

TEST(OpenAIEndToEnd, ToolCallWithFinishReasonStop) {
  for (bool stream : {false, true}) {
    Json entry = Reply({CalcCall()});
    entry["finish_reason"] = "stop";
    E2E e = RunAgainstScript({{"responses", {entry, TextReply("391")}}}, {.stream = stream});
    ASSERT_EQ(e.result.status, RunStatus::kFinished) << e.result.error;
    EXPECT_EQ(e.result.trace.steps[0].finish_reason, "stop");
    EXPECT_EQ(e.result.trace.steps[0].tool_results.size(), 1u) << "stream=" << stream;
    ExpectValidFollowUp(e, 1, 1);
  }
}

TEST(OpenAIEndToEnd, WholeCallInOneChunk) {
  Json chunks = Json::array({
      Json::parse(R"({"choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_w",
        "type":"function","function":{"name":"calculator","arguments":"{\"expression\":\"2+2\"}"}}]}}]})"),
      Json::parse(R"({"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]})"),
  });
  E2E e = RunAgainstScript({{"responses", {{{"chunks", chunks}}, TextReply("4")}}}, {.stream = true});
  ASSERT_EQ(e.result.status, RunStatus::kFinished) << e.result.error;
  EXPECT_EQ(e.result.trace.steps[0].assistant.tool_calls[0].id, "call_w");
  EXPECT_NE(e.result.trace.steps[0].tool_results[0].content.find("4"), std::string::npos);
  ExpectValidFollowUp(e, 1, 1);
}

TEST(OpenAIEndToEnd, LaterChunksWithEmptyNameAndId) {
  Json entry = Reply({CalcCall("call_keep")});
  entry["repeat_name_empty"] = true;
  entry["fragment_chars"] = 4;
  E2E e = RunAgainstScript({{"responses", {entry, TextReply("391")}}}, {.stream = true});
  ASSERT_EQ(e.result.status, RunStatus::kFinished) << e.result.error;
  const ToolCall& call = e.result.trace.steps[0].assistant.tool_calls.at(0);
  EXPECT_EQ(call.name, "calculator");
  EXPECT_EQ(call.id, "call_keep");
  EXPECT_TRUE(e.result.trace.steps[0].tool_results[0].ok);
  EXPECT_EQ(Sent(e, 1)[2]["tool_calls"][0]["function"]["name"], "calculator");
}

TEST(OpenAIEndToEnd, IdsWithoutCallPrefixAreEchoedAsIs) {
  E2E e = RunAgainstScript({{"responses", {Reply({CalcCall("toolu_01A"), Call("current_time", "{}", "7")}),
                                           TextReply("ok")}}});
  ASSERT_EQ(e.result.status, RunStatus::kFinished) << e.result.error;
  ExpectValidFollowUp(e, 1, 2);
  EXPECT_EQ(Sent(e, 1)[3]["tool_call_id"], "toolu_01A");
  EXPECT_EQ(Sent(e, 1)[4]["tool_call_id"], "7");
}

TEST(OpenAIEndToEnd, CallWithoutIdGetsAMintedOne) {
  for (bool stream : {false, true}) {
    E2E e = RunAgainstScript({{"responses", {Reply({CalcCall(std::nullopt)}), TextReply("ok")}}},
                             {.stream = stream});
    ASSERT_EQ(e.result.status, RunStatus::kFinished) << e.result.error;
    const std::string id = e.result.trace.steps[0].assistant.tool_calls[0].id;
    EXPECT_FALSE(id.empty());
    ExpectValidFollowUp(e, 1, 1);
    EXPECT_EQ(Sent(e, 1)[3]["tool_call_id"], id);
  }
}

TEST(OpenAIEndToEnd, ArgumentsAsAnObject) {
  for (bool stream : {false, true}) {
    E2E e = RunAgainstScript(
        {{"responses", {Reply({Call("calculator", Json{{"expression", "6*7"}}, "call_o")}), TextReply("42")}}},
        {.stream = stream});
    ASSERT_EQ(e.result.status, RunStatus::kFinished) << e.result.error;
    EXPECT_NE(e.result.trace.steps[0].tool_results[0].content.find("42"), std::string::npos);
    ExpectValidFollowUp(e, 1, 1);
    EXPECT_EQ(Sent(e, 1)[2]["tool_calls"][0]["function"]["arguments"], R"({"expression":"6*7"})");
  }
}

TEST(OpenAIEndToEnd, TextPlusCallsInOneMessage) {
  for (bool stream : {false, true}) {
    E2E e = RunAgainstScript({{"responses", {Reply({CalcCall()}, "Let me compute that."), TextReply("391")}}},
                             {.stream = stream});
    ASSERT_EQ(e.result.status, RunStatus::kFinished) << e.result.error;
    EXPECT_EQ(e.result.trace.steps[0].assistant.content, "Let me compute that.");
    EXPECT_EQ(Sent(e, 1)[2]["content"], "Let me compute that.");
    ExpectValidFollowUp(e, 1, 1);
  }
}

TEST(OpenAIEndToEnd, RateLimitedWithRetryAfterThenSuccess) {
  Json fault{{"status", 429}, {"headers", {{"Retry-After", "1"}}}};
  E2E e = RunAgainstScript({{"responses", {fault, Reply({CalcCall()}), TextReply("391")}}});
  ASSERT_EQ(e.result.status, RunStatus::kFinished) << e.result.error;
  ASSERT_EQ(e.requests.size(), 3u);
  EXPECT_EQ(e.requests[0]["body"], e.requests[1]["body"]);  // the same request, retried
  ASSERT_EQ(e.sleeps_ms.size(), 1u);
  EXPECT_EQ(e.sleeps_ms[0], 1000);
  EXPECT_EQ(e.result.trace.steps[0].attempts, 2);
  ExpectValidFollowUp(e, 2, 1);
}

TEST(OpenAIEndToEnd, ServerErrorsThenSuccess) {
  E2E e = RunAgainstScript({{"responses", {{{"status", 500}}, {{"status", 503}}, TextReply("fine")}}});
  ASSERT_EQ(e.result.status, RunStatus::kFinished) << e.result.error;
  EXPECT_EQ(e.requests.size(), 3u);
  EXPECT_EQ(e.sleeps_ms.size(), 2u);
  EXPECT_EQ(e.result.trace.steps[0].attempts, 3);
  EXPECT_EQ(e.requests[2]["body"], e.requests[0]["body"]);
}

TEST(OpenAIEndToEnd, UnparseableArgumentsBecomeAToolError) {
  E2E e = RunAgainstScript(
      {{"responses", {Reply({Call("calculator", R"({"expression": "17*)", "call_bad")}), TextReply("sorry")}}});
  ASSERT_EQ(e.result.status, RunStatus::kFinished) << e.result.error;
  const auto& r = e.result.trace.steps[0].tool_results[0];
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("not valid JSON"), std::string::npos) << r.error;
  // The raw arguments are kept in the trace; the history re-sends "{}" so a
  // strict server accepts it, and the tool message explains the error.
  EXPECT_EQ(e.result.trace.steps[0].assistant.tool_calls[0].arguments, R"({"expression": "17*)");
  ExpectValidFollowUp(e, 1, 1);
  EXPECT_EQ(Sent(e, 1)[2]["tool_calls"][0]["function"]["arguments"], "{}");
  EXPECT_EQ(Sent(e, 1)[3]["content"].get<std::string>().rfind("Error: ", 0), 0u);
}

TEST(OpenAIEndToEnd, BadRequestIsNotRetried) {
  Json fault{{"status", 400}, {"body", {{"error", {{"message", "messages[2]: invalid role"}, {"type", "invalid_request_error"}}}}}};
  E2E e = RunAgainstScript({{"responses", {fault, TextReply("never")}}});
  EXPECT_EQ(e.result.status, RunStatus::kError);
  EXPECT_EQ(e.requests.size(), 1u);
  EXPECT_TRUE(e.sleeps_ms.empty());
  EXPECT_NE(e.result.trace.steps[0].model_error.find("invalid role"), std::string::npos)
      << e.result.trace.steps[0].model_error;
  EXPECT_FALSE(e.result.answer.empty());
}

TEST(OpenAIEndToEnd, TruncatedStreamIsRetried) {
  Json truncated = Reply({CalcCall()});
  truncated["truncate_after"] = 3;
  truncated["fragment_chars"] = 2;
  Json entry = Reply({CalcCall()});
  E2E e = RunAgainstScript({{"responses", {truncated, entry, TextReply("391")}}}, {.stream = true});
  ASSERT_EQ(e.result.status, RunStatus::kFinished) << e.result.error;
  ASSERT_EQ(e.requests.size(), 3u);
  EXPECT_EQ(e.requests[0]["body"], e.requests[1]["body"]);
  EXPECT_EQ(e.result.trace.steps[0].attempts, 2);
  // The half-received call of the cut stream never reaches the history.
  EXPECT_EQ(e.result.trace.steps[0].assistant.tool_calls.size(), 1u);
  ExpectValidFollowUp(e, 2, 1);
}

TEST(OpenAIEndToEnd, TruncatedStreamWithoutRetriesEndsInError) {
  Json truncated = Reply({CalcCall()});
  truncated["truncate_after"] = 2;
  E2E e = RunAgainstScript({{"responses", {truncated}}}, {.stream = true, .max_retries = 0});
  EXPECT_EQ(e.result.status, RunStatus::kError);
  // Cut mid-body: curl reports the partial transfer; cut between events: the
  // accumulator reports a truncated stream. Either way, a precise error.
  const std::string& err = e.result.trace.steps[0].model_error;
  EXPECT_TRUE(err.find("truncated") != std::string::npos || err.find("partial") != std::string::npos) << err;
}

TEST(OpenAIEndToEnd, HangPastTheRequestTimeout) {
  E2E e = RunAgainstScript({{"responses", {{{"hang_ms", 20000}}}}},
                           {.request_timeout = Millis(300), .max_retries = 0});
  EXPECT_EQ(e.result.status, RunStatus::kError);
  EXPECT_NE(e.result.trace.steps[0].model_error.find("Timeout"), std::string::npos)
      << e.result.trace.steps[0].model_error;
}

TEST(OpenAIEndToEnd, HangPastTheRunTimeout) {
  AgentOptions agent;
  agent.timeout = Millis(400);
  E2E e = RunAgainstScript({{"responses", {Reply({CalcCall()}), {{"hang_ms", 20000}}}}},
                           {.agent = agent, .max_retries = 3});
  EXPECT_EQ(e.result.status, RunStatus::kTimeout);
  EXPECT_NE(e.result.answer.find("calculator (ok)"), std::string::npos) << e.result.answer;
}

TEST(OpenAIEndToEnd, GarbageBodyEndsInErrorNotCrash) {
  E2E e = RunAgainstScript({{"responses", {{{"raw_body", "<html>proxy error</html>"}}}}});
  EXPECT_EQ(e.result.status, RunStatus::kError);
  EXPECT_FALSE(e.result.trace.steps[0].model_error.empty());
}

TEST(OpenAIEndToEnd, TextProtocolThreeStepRun) {
  Json script{{"responses",
               {TextReply("THOUGHT: compute first.\nTOOL_CALL: {\"tool\": \"calculator\", \"arguments\": "
                          "{\"expression\": \"17*23\"}}"),
                TextReply("THOUGHT: now the time.\nTOOL_CALL:\n```json\n{'tool': 'current_time', "
                          "'arguments': {},}\n```"),
                TextReply("THOUGHT: done.\nFINAL_ANSWER: 391")}}};
  E2E e = RunAgainstScript(script, {.text_protocol = true});
  ASSERT_EQ(e.result.status, RunStatus::kFinished) << e.result.error;
  EXPECT_EQ(e.result.answer, "391");
  ASSERT_EQ(e.requests.size(), 3u);
  for (const Json& r : e.requests) EXPECT_FALSE(r["body"].contains("tools"));
  EXPECT_NE(Sent(e, 0)[0]["content"].get<std::string>().find("calculator"), std::string::npos);
  // Observations come back as user turns; no tool-role messages are sent.
  for (const Json& m : Sent(e, 2)) EXPECT_NE(m["role"], "tool");
  EXPECT_EQ(e.result.trace.steps[1].assistant.tool_calls[0].name, "current_time");
  EXPECT_EQ(e.result.trace.protocol, "text");
}

}  // namespace
}  // namespace medreact
