// OpenTelemetry traces end to end (core/otel.h): runs of the chat app with
// the scripted model server on loopback, their spans exported as OTLP/HTTP
// JSON to a loopback receiver (testing/otlp_receiver.h): the span tree, the
// GenAI attributes, the traceparent the model server received, no PHI, a
// collector down or slow; and `medreact chat` flushing its spans at exit.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "apps/chat/chat_app.h"
#include "core/log.h"
#include "core/otel.h"
#include "llm/anthropic_client.h"
#include "medreact/json.h"
#include "medreact/openai.h"
#include "testing/build_paths.h"
#include "testing/fhir_builders.h"
#include "testing/otlp_receiver.h"
#include "testing/scripted_server.h"
#include "testing/serve_fixture.h"
#include "testing/subprocess.h"

namespace medreact {
namespace {

using testing::OtlpReceiver;
using testing::SpanAttribute;

Json Usage(int prompt, int completion) {
  return {{"prompt_tokens", prompt}, {"completion_tokens", completion}, {"total_tokens", prompt + completion}};
}

Json CallTurn(const std::string& id, const std::string& name, const Json& args, const Json& usage) {
  return {{"message",
           {{"content", nullptr},
            {"tool_calls", Json::array({{{"id", id}, {"name", name}, {"arguments", DumpJson(args)}}})}}},
          {"usage", usage}};
}

Json AnswerTurn(const std::string& text, const Json& usage) {
  return {{"message", {{"content", text}}}, {"usage", usage}};
}

// A tracer sending to `url` for the test's scope (quick batches), uninstalled after.
struct TracerScope {
  explicit TracerScope(const std::string& url, Millis export_timeout = Millis(5'000)) {
    tracer = otel::InstallTracer(otel::TracerOptions{.traces_url = url,
                                                     .service_name = "medreact-test",
                                                     .schedule_delay = Millis(20),
                                                     .export_timeout = export_timeout,
                                                     .shutdown_timeout = Millis(2'000)});
  }
  ~TracerScope() { otel::InstallTracer(std::nullopt); }
  otel::Tracer* tracer = nullptr;
};

std::shared_ptr<ChatModel> ModelAt(const std::string& url) {
  return MakeOpenAIModel({.base_url = url, .model = "mock", .max_retries = 0});
}

// The spans by name (the first of each name).
const Json* Named(const Json& spans, const std::string& name) {
  for (const Json& s : spans) {
    if (s.value("name", "") == name) return &s;
  }
  return nullptr;
}

std::string Str(const Json& span, const std::string& key) {
  const Json v = SpanAttribute(span, key);
  return v.is_object() ? v.value("stringValue", "") : "";
}
std::string Int(const Json& span, const std::string& key) {
  const Json v = SpanAttribute(span, key);
  return v.is_object() ? v.value("intValue", "") : "";
}

TEST(OtelTest, AChatRunWithAToolExportsOneTraceOfRunStepModelAndToolSpans) {
  OtlpReceiver receiver;
  ASSERT_TRUE(receiver.Start());
  TracerScope tracing(receiver.traces_url());
  testing::ScriptedServer model(Json{
      {"responses", Json::array({CallTurn("call_1", "calculator", {{"expression", "17*23"}}, Usage(100, 10)),
                                 AnswerTurn("17 * 23 = 391", Usage(120, 7))})}});
  auto tools = ChatTools({"util"}, {});
  ASSERT_TRUE(tools.ok()) << tools.status().ToString();
  RunResult r = RunChat(ModelAt(model.url()), *tools, "What is 17*23?", {});
  ASSERT_EQ(r.status, RunStatus::kFinished) << r.error;
  ASSERT_TRUE(tracing.tracer->Flush(Millis(10'000)));

  const Json spans = receiver.Spans();
  ASSERT_EQ(spans.size(), 6u) << spans.dump(1);  // run, 2 steps, 2 model calls, 1 tool call
  std::set<std::string> traces;
  for (const Json& s : spans) {
    traces.insert(s.value("traceId", ""));
    EXPECT_EQ(s.value("service", ""), "medreact-test");
    EXPECT_EQ(s.value("traceId", "").size(), 32u);
    EXPECT_EQ(s.value("spanId", "").size(), 16u);
    EXPECT_FALSE(s.value("startTimeUnixNano", "").empty());
  }
  EXPECT_EQ(traces.size(), 1u) << "one trace";

  const Json* run = Named(spans, "invoke_agent chat");
  ASSERT_NE(run, nullptr) << spans.dump(1);
  EXPECT_FALSE(run->contains("parentSpanId"));
  EXPECT_EQ(run->value("kind", 0), 1);  // INTERNAL
  EXPECT_EQ(Str(*run, "gen_ai.operation.name"), "invoke_agent");
  EXPECT_EQ(Str(*run, "gen_ai.agent.name"), "chat");
  EXPECT_EQ(Str(*run, "medreact.run.status"), "finished");
  EXPECT_EQ(Int(*run, "gen_ai.usage.input_tokens"), "220");

  // Steps are the run's children; model calls and the tool call the steps'.
  std::vector<const Json*> steps;
  for (const Json& s : spans) {
    if (s.value("name", "") == "step") steps.push_back(&s);
  }
  ASSERT_EQ(steps.size(), 2u);
  std::set<std::string> step_ids;
  for (const Json* s : steps) {
    EXPECT_EQ(s->value("parentSpanId", ""), run->value("spanId", ""));
    step_ids.insert(s->value("spanId", ""));
  }
  std::vector<const Json*> chats;
  for (const Json& s : spans) {
    if (s.value("name", "") == "chat mock") chats.push_back(&s);
  }
  ASSERT_EQ(chats.size(), 2u);
  for (const Json* c : chats) {
    EXPECT_TRUE(step_ids.count(c->value("parentSpanId", ""))) << c->dump();
    EXPECT_EQ(c->value("kind", 0), 3);  // CLIENT
    EXPECT_EQ(Str(*c, "gen_ai.operation.name"), "chat");
    EXPECT_EQ(Str(*c, "gen_ai.request.model"), "mock");
    EXPECT_EQ(Str(*c, "gen_ai.provider.name"), "openai");
    EXPECT_EQ(Str(*c, "server.address"), "127.0.0.1");
    EXPECT_FALSE(Int(*c, "server.port").empty());
  }
  // Token usage as the script reported it, in the order of the calls.
  std::set<std::string> inputs{Int(*chats[0], "gen_ai.usage.input_tokens"),
                               Int(*chats[1], "gen_ai.usage.input_tokens")};
  EXPECT_EQ(inputs, (std::set<std::string>{"100", "120"}));
  std::set<std::string> outputs{Int(*chats[0], "gen_ai.usage.output_tokens"),
                                Int(*chats[1], "gen_ai.usage.output_tokens")};
  EXPECT_EQ(outputs, (std::set<std::string>{"10", "7"}));

  const Json* tool = Named(spans, "execute_tool calculator");
  ASSERT_NE(tool, nullptr);
  EXPECT_TRUE(step_ids.count(tool->value("parentSpanId", "")));
  EXPECT_EQ(tool->value("kind", 0), 1);
  EXPECT_EQ(Str(*tool, "gen_ai.operation.name"), "execute_tool");
  EXPECT_EQ(Str(*tool, "gen_ai.tool.name"), "calculator");
  EXPECT_EQ(Str(*tool, "gen_ai.tool.call.id"), "call_1");
  // The tool ran in the first step, the same one as the call that asked for it.
  const Json* first_chat = Int(*chats[0], "gen_ai.usage.input_tokens") == "100" ? chats[0] : chats[1];
  EXPECT_EQ(tool->value("parentSpanId", ""), first_chat->value("parentSpanId", ""));

  // The model server received each model call's own span as traceparent.
  std::set<std::string> sent;
  for (const Json& req : model.server->requests()) sent.insert(req["headers"].value("traceparent", ""));
  std::set<std::string> expected;
  for (const Json* c : chats) {
    expected.insert("00-" + c->value("traceId", "") + "-" + c->value("spanId", "") + "-01");
  }
  EXPECT_EQ(sent, expected);
}

TEST(OtelTest, AnAnthropicModelCallIsAChatSpanOfProviderAnthropicAndCarriesItsTraceparent) {
  OtlpReceiver receiver;
  ASSERT_TRUE(receiver.Start());
  TracerScope tracing(receiver.traces_url());
  testing::ScriptedServer model(Json{{"responses", Json::array({Json{{"message", {{"content", "391"}}}}})}});
  AnthropicOptions client;
  client.base_url = model.url();
  client.model = "claude-test";
  client.max_retries = 0;
  RunResult r = RunChat(MakeAnthropicModel(client), std::make_shared<ToolRegistry>(), "17*23?", {});
  ASSERT_EQ(r.status, RunStatus::kFinished) << r.error;
  ASSERT_TRUE(tracing.tracer->Flush(Millis(10'000)));
  const Json spans = receiver.Spans();
  const Json* chat = Named(spans, "chat claude-test");
  ASSERT_NE(chat, nullptr) << spans.dump(1);
  EXPECT_EQ(chat->value("kind", 0), 3);
  EXPECT_EQ(Str(*chat, "gen_ai.provider.name"), "anthropic");
  EXPECT_EQ(Str(*chat, "gen_ai.system"), "anthropic");
  EXPECT_EQ(Str(*chat, "gen_ai.request.model"), "claude-test");
  ASSERT_EQ(model.server->requests().size(), 1u);
  EXPECT_EQ(model.server->requests()[0]["headers"].value("traceparent", ""),
            "00-" + chat->value("traceId", "") + "-" + chat->value("spanId", "") + "-01");
}

TEST(OtelTest, AFhirRunExportsNoNoteTextArgumentsOrPatientIdentifier) {
  const std::string kPatient = "MRN-4471923";
  const std::string kNote = "crushing chest pain radiating to the left arm since Tuesday";
  testing::TempDir dir;
  Json inr = testing::Observation("inr", "6301-6", "INR", 2.3, "{INR}", "2025-06-10");
  inr["subject"]["reference"] = "urn:uuid:" + kPatient;
  Json bundle = {{"resourceType", "Bundle"}, {"type", "collection"}, {"entry", Json::array()}};
  bundle["entry"].push_back(testing::Entry({{"resourceType", "Patient"}, {"id", kPatient}, {"gender", "female"},
                                            {"birthDate", "1950-05-01"}}));
  bundle["entry"].push_back(testing::Entry(inr));
  { std::ofstream(dir.File("record.json")) << bundle.dump(); }

  OtlpReceiver receiver;
  ASSERT_TRUE(receiver.Start());
  TracerScope tracing(receiver.traces_url());
  testing::ScriptedServer model(Json{
      {"responses", Json::array({CallTurn("call_1", "get_recent_labs", {{"category", kPatient}}, Usage(50, 5)),
                                 AnswerTurn("INR 2.3 for " + kPatient, Usage(60, 6))})}});
  PackContext context;
  context.fhir_path = dir.File("record.json");
  auto tools = ChatTools({"fhir"}, context);
  ASSERT_TRUE(tools.ok()) << tools.status().ToString();
  RunResult r = RunChat(ModelAt(model.url()), *tools, "Patient " + kPatient + ": " + kNote + ". Latest INR?", {});
  ASSERT_EQ(r.status, RunStatus::kFinished) << r.error;
  ASSERT_EQ(r.trace.steps.at(0).tool_results.size(), 1u);
  ASSERT_TRUE(tracing.tracer->Flush(Millis(10'000)));

  ASSERT_FALSE(receiver.posts().empty());
  ASSERT_NE(Named(receiver.Spans(), "execute_tool get_recent_labs"), nullptr);
  for (const auto& post : receiver.posts()) {
    EXPECT_EQ(post.body.find(kPatient), std::string::npos) << post.body;
    EXPECT_EQ(post.body.find("chest pain"), std::string::npos);
    EXPECT_EQ(post.body.find("INR 2.3"), std::string::npos);  // the answer
    EXPECT_EQ(post.body.find("6301-6"), std::string::npos);   // the tool's result
  }
}

TEST(OtelTest, WithLogPhiTheToolArgumentsAreAnAttribute) {
  OtlpReceiver receiver;
  ASSERT_TRUE(receiver.Start());
  TracerScope tracing(receiver.traces_url());
  testing::ScriptedServer model(Json{
      {"responses", Json::array({CallTurn("call_1", "calculator", {{"expression", "6*7"}}, Usage(10, 1)),
                                 AnswerTurn("42", Usage(12, 1))})}});
  auto tools = ChatTools({"util"}, {});
  ASSERT_TRUE(tools.ok());
  SetLogPhi(true);
  RunResult r = RunChat(ModelAt(model.url()), *tools, "6*7?", {});
  SetLogPhi(false);
  ASSERT_EQ(r.status, RunStatus::kFinished) << r.error;
  ASSERT_TRUE(tracing.tracer->Flush(Millis(10'000)));
  const Json spans = receiver.Spans();
  const Json* tool = Named(spans, "execute_tool calculator");
  ASSERT_NE(tool, nullptr);
  EXPECT_EQ(Str(*tool, "gen_ai.tool.call.arguments"), R"({"expression":"6*7"})") << tool->dump();
}

TEST(OtelTest, AFailedModelCallIsAnErrorSpanWithoutTheServersText) {
  OtlpReceiver receiver;
  ASSERT_TRUE(receiver.Start());
  TracerScope tracing(receiver.traces_url());
  testing::ScriptedServer model(Json{
      {"responses", Json::array({{{"status", 400}, {"body", {{"error", {{"message", "bad field MRN-99"}}}}}}})}});
  RunResult r = RunChat(ModelAt(model.url()), std::make_shared<ToolRegistry>(), "q", {});
  ASSERT_EQ(r.status, RunStatus::kError);
  ASSERT_TRUE(tracing.tracer->Flush(Millis(10'000)));
  const Json spans = receiver.Spans();
  const Json* chat = Named(spans, "chat mock");
  ASSERT_NE(chat, nullptr);
  EXPECT_EQ((*chat)["status"].value("code", 0), 2);  // ERROR
  EXPECT_FALSE(Str(*chat, "error.type").empty());
  const Json* run = Named(spans, "invoke_agent chat");
  ASSERT_NE(run, nullptr);
  EXPECT_EQ((*run)["status"].value("code", 0), 2);
  EXPECT_EQ(Str(*run, "error.type"), "error");
  for (const auto& post : receiver.posts()) EXPECT_EQ(post.body.find("MRN-99"), std::string::npos) << post.body;
}

TEST(OtelTest, CollectorDownTheRunSucceedsAndItsSpansAreCountedAsDropped) {
  OtlpReceiver closed;  // a port that was free a moment ago: connection refused
  ASSERT_TRUE(closed.Start());
  const std::string url = closed.traces_url();
  closed.Stop();
  TracerScope tracing(url);
  testing::ScriptedServer model(Json{{"responses", Json::array({AnswerTurn("fine", Usage(5, 1))})}});
  RunResult r = RunChat(ModelAt(model.url()), std::make_shared<ToolRegistry>(), "q", {});
  EXPECT_EQ(r.status, RunStatus::kFinished) << r.error;
  EXPECT_EQ(r.answer, "fine");
  EXPECT_TRUE(tracing.tracer->Flush(Millis(10'000)));
  const otel::TracerStats stats = tracing.tracer->stats();
  EXPECT_EQ(stats.ended, 3u);  // run, step, model call
  EXPECT_EQ(stats.dropped, 3u);
  EXPECT_EQ(stats.exported, 0u);
  EXPECT_GE(stats.failed_exports, 1u);
  EXPECT_GE(otel::GlobalTracerStats().dropped, 3u);
}

TEST(OtelTest, ASlowCollectorHoldsNeitherTheRunNorTheShutdownBeyondItsBounds) {
  OtlpReceiver slow;
  slow.set_hold(true);  // takes the POST, answers only when released (60 s at most)
  ASSERT_TRUE(slow.Start());
  const auto start = std::chrono::steady_clock::now();
  {
    TracerScope tracing(slow.traces_url(), /*export_timeout=*/Millis(1'000));
    auto tools = ChatTools({"util"}, {});
    ASSERT_TRUE(tools.ok());
    for (int i = 0; i < 3; ++i) {  // the first batches go out while later runs go on
      testing::ScriptedServer again(Json{{"responses", Json::array({CallTurn("c1", "calculator",
                                                                             {{"expression", "1+1"}}, Usage(5, 1)),
                                                                    AnswerTurn("2", Usage(6, 1))})}});
      RunResult r = RunChat(ModelAt(again.url()), *tools, "1+1?", {});
      ASSERT_EQ(r.status, RunStatus::kFinished) << r.error;
    }
    ASSERT_TRUE(slow.WaitForPosts(1));
    tracing.tracer->Shutdown(Millis(500));
    const otel::TracerStats stats = tracing.tracer->stats();
    EXPECT_EQ(stats.exported, 0u);
    EXPECT_EQ(stats.dropped, stats.ended);
    EXPECT_GE(stats.failed_exports, 1u);
  }
  // A deadline, not a speed: the collector holds for 60 s; runs and shutdown
  // are bounded by the 1 s export timeout and the 0.5 s shutdown wait.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  slow.Stop();
}

TEST(OtelTest, TracingOffSendsNoTraceparent) {
  otel::InstallTracer(std::nullopt);
  testing::ScriptedServer model(Json{{"responses", Json::array({AnswerTurn("ok", Usage(1, 1))})}});
  RunResult r = RunChat(ModelAt(model.url()), std::make_shared<ToolRegistry>(), "q", {});
  ASSERT_EQ(r.status, RunStatus::kFinished);
  ASSERT_EQ(model.server->requests().size(), 1u);
  EXPECT_FALSE(model.server->requests()[0]["headers"].contains("traceparent"));
}

TEST(OtelTest, ARunContinuesTheTraceItIsGiven) {
  OtlpReceiver receiver;
  ASSERT_TRUE(receiver.Start());
  TracerScope tracing(receiver.traces_url());
  testing::ScriptedServer model(Json{{"responses", Json::array({AnswerTurn("ok", Usage(1, 1))})}});
  AgentOptions options;
  options.traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
  RunResult r = RunChat(ModelAt(model.url()), std::make_shared<ToolRegistry>(), "q", options);
  ASSERT_EQ(r.status, RunStatus::kFinished);
  ASSERT_TRUE(tracing.tracer->Flush(Millis(10'000)));
  const Json spans = receiver.Spans();
  const Json* run = Named(spans, "invoke_agent chat");
  ASSERT_NE(run, nullptr);
  EXPECT_EQ(run->value("traceId", ""), "0af7651916cd43dd8448eb211c80319c") << run->dump();
  EXPECT_EQ(run->value("parentSpanId", ""), "b7ad6b7169203331");
  EXPECT_EQ(model.server->requests()[0]["headers"].value("traceparent", "").substr(0, 36),
            "00-0af7651916cd43dd8448eb211c80319c-");
}

// ---- medreact serve ------------------------------------------------------------

TEST(OtelServerTest, ARunPostedWithATraceparentContinuesItsTraceAndMetricsCountSpans) {
  OtlpReceiver receiver;
  ASSERT_TRUE(receiver.Start());
  TracerScope tracing(receiver.traces_url());
  testing::ScriptedServer model(Json{
      {"responses", Json::array({CallTurn("c1", "calculator", {{"expression", "2+2"}}, Usage(10, 2)),
                                 AnswerTurn("It is 4.", Usage(12, 3))})}});
  testing::ServeFixture srv({.model = {.url = model.url(), .name = "mock", .max_retries = 0}});
  const std::string trace_id = "4bf92f3577b34da6a3ce929d0e0e4736";
  auto r = srv.Post("/v1/runs",
                    DumpJson(Json{{"app", "chat"}, {"inputs", {{"message", "What is 2+2?"}, {"packs", {"util"}}}}}),
                    "application/json", {{"traceparent", "00-" + trace_id + "-00f067aa0ba902b7-01"}});
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 201) << r->body;
  const std::string id = testing::ServeFixture::JsonOf(r)["run"].value("id", "");
  std::string status = "running";
  for (int i = 0; i < 600 && (status == "running" || status == "queued"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    status = testing::ServeFixture::JsonOf(srv.Get("/v1/runs/" + id))["run"].value("status", "");
  }
  ASSERT_EQ(status, "finished");
  ASSERT_TRUE(tracing.tracer->Flush(Millis(10'000)));
  const Json spans = receiver.Spans();
  const Json* run = Named(spans, "invoke_agent chat");
  ASSERT_NE(run, nullptr) << spans.dump(1);
  EXPECT_EQ(run->value("traceId", ""), trace_id);
  EXPECT_EQ(run->value("parentSpanId", ""), "00f067aa0ba902b7");
  const Json* tool = Named(spans, "execute_tool calculator");
  ASSERT_NE(tool, nullptr);
  EXPECT_EQ(tool->value("traceId", ""), trace_id);
  for (const Json& req : model.server->requests()) {
    EXPECT_EQ(req["headers"].value("traceparent", "").substr(0, 36), "00-" + trace_id + "-");
  }
  auto metrics = srv.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->body.find("medreact_otel_spans{outcome=\"exported\"}"), std::string::npos) << metrics->body;
  EXPECT_NE(metrics->body.find("medreact_otel_failed_exports"), std::string::npos);
}

// ---- The binary -------------------------------------------------------------

const char kCalcThenAnswer[] = R"({"responses": [
  {"message": {"content": null, "tool_calls": [{"id": "call_1", "name": "calculator",
                                                "arguments": "{\"expression\": \"17*23\"}"}]}},
  {"message": {"content": "17 * 23 = 391"}}
]})";

TEST(OtelCliTest, ChatSendsItsSpansBeforeTheProcessExits) {
  OtlpReceiver receiver;
  ASSERT_TRUE(receiver.Start());
  testing::MockLlmProcess mock(kCalcThenAnswer);
  ASSERT_TRUE(mock.ok());
  // The default schedule delay (5 s) is longer than the run: only the flush at exit sends them.
  auto r = testing::RunCommand({MEDREACT_BINARY, "chat", "--llm-url", mock.base_url(), "--model", "mock",
                                "What is 17*23?"},
                               {{"OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint()},
                                {"OTEL_SERVICE_NAME", "cli-test"},
                                {"OTEL_EXPORTER_OTLP_HEADERS", "x-tenant=ward%205,authorization=Bearer abc"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "17 * 23 = 391\n");
  const auto posts = receiver.posts();  // the process has exited: what arrived is all
  ASSERT_FALSE(posts.empty());
  EXPECT_EQ(posts[0].headers.at("x-tenant"), "ward 5");
  EXPECT_EQ(posts[0].headers.at("authorization"), "Bearer abc");
  const Json spans = receiver.Spans();
  EXPECT_EQ(spans.size(), 6u) << spans.dump(1);
  const Json* run = Named(spans, "invoke_agent chat");
  ASSERT_NE(run, nullptr);
  EXPECT_EQ(run->value("service", ""), "cli-test");
  EXPECT_NE(Named(spans, "execute_tool calculator"), nullptr);
}

TEST(OtelCliTest, SdkDisabledExportsNothing) {
  OtlpReceiver receiver;
  ASSERT_TRUE(receiver.Start());
  testing::MockLlmProcess mock(kCalcThenAnswer);
  ASSERT_TRUE(mock.ok());
  auto r = testing::RunCommand({MEDREACT_BINARY, "chat", "--llm-url", mock.base_url(), "What is 17*23?"},
                               {{"OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint()},
                                {"OTEL_SDK_DISABLED", "true"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(receiver.posts().empty());
  for (const std::string& line : mock.request_lines()) {
    EXPECT_EQ(line.find("traceparent"), std::string::npos) << line;
  }
}

TEST(OtelCliTest, CollectorDownTheChatStillAnswers) {
  OtlpReceiver closed;
  ASSERT_TRUE(closed.Start());
  const std::string endpoint = closed.endpoint();
  closed.Stop();
  testing::MockLlmProcess mock(kCalcThenAnswer);
  ASSERT_TRUE(mock.ok());
  auto r = testing::RunCommand({MEDREACT_BINARY, "chat", "--llm-url", mock.base_url(), "What is 17*23?"},
                               {{"OTEL_EXPORTER_OTLP_ENDPOINT", endpoint}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "17 * 23 = 391\n");
}

}  // namespace
}  // namespace medreact
