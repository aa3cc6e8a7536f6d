// The OpenAI-compatible facade of `medreact serve` (src/server/api_openai.cc)
// on loopback over a real run store and the scripted model server: the
// models list, a completion with a tool call (answer, usage over both model
// calls, the stored run), the same streamed (role, reasoning with the tool,
// content, finish, usage only when asked, [DONE] last), a run paused for
// approval naming what waits and where, UI task prompts answered without a
// run, bad bodies refused naming their field, and an image to medreact-cxr
// with the offline planner.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <random>
#include <thread>

#include "core/sha256.h"
#include "testing/image_builders.h"
#include "testing/scripted_server.h"
#include "testing/serve_fixture.h"
#include "tools/imaging/image_codec.h"

namespace medreact::server {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::ScriptedServer;
using testing::ServeFixture;
using testing::SseEvent;

const std::string kToken = "facade-token-0123456789";

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

ServeOptions WithModel(const ScriptedServer& model) {
  ServeOptions o{.token = kToken};
  o.model = {.url = model.url(), .name = "mock", .max_retries = 0};
  return o;
}

Json Body(const std::string& model, const std::string& question, bool stream = false) {
  return {{"model", model},
          {"messages", Json::array({{{"role", "user"}, {"content", question}}})},
          {"stream", stream},
          {"max_tokens", 512},
          {"temperature", 0.2}};
}

// The data lines of a streamed answer, parsed ("[DONE]" kept as a string).
std::vector<Json> DataOf(const std::string& body) {
  std::vector<Json> out;
  for (const SseEvent& e : testing::ParseSse(body)) {
    Result<Json> j = ParseJson(e.data);
    out.push_back(j.ok() ? *j : Json(e.data));
  }
  return out;
}

std::string DeltaText(const std::vector<Json>& chunks, const std::string& key) {
  std::string out;
  for (const Json& c : chunks) {
    if (!c.is_object() || !c.contains("choices") || c["choices"].empty()) continue;
    out += StringOr(c["choices"][0]["delta"], key);
  }
  return out;
}

void ExpectError(const httplib::Result& r, int status, const std::string& field) {
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, status) << r->body;
  Json j = ServeFixture::JsonOf(r);
  ASSERT_TRUE(j.is_object() && j.contains("error")) << r->body;
  EXPECT_FALSE(StringOr(j["error"], "message").empty());
  EXPECT_FALSE(StringOr(j["error"], "code").empty());
  EXPECT_EQ(StringOr(j["error"], "type"), status >= 500 ? "server_error" : "invalid_request_error");
  EXPECT_EQ(StringOr(j["error"], "field"), field) << r->body;
}

size_t StoredRuns(ServeFixture& srv) {
  Result<std::vector<RunRecord>> runs = srv.store()->List({});
  EXPECT_TRUE(runs.ok());
  return runs.ok() ? runs->size() : 0;
}

TEST(ServerOpenAiTest, ModelsAreListedInOpenAisShapeWithTheToken) {
  ServeFixture srv({.token = kToken});
  httplib::Client c("127.0.0.1", srv.port());
  auto none = c.Get("/v1/models");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 401);
  auto r = srv.Get("/v1/models");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  Json j = ServeFixture::JsonOf(r);
  EXPECT_EQ(StringOr(j, "object"), "list");
  ASSERT_TRUE(j["data"].is_array());
  std::vector<std::string> ids;
  for (const Json& m : j["data"]) {
    ids.push_back(StringOr(m, "id"));
    EXPECT_EQ(StringOr(m, "object"), "model");
    EXPECT_EQ(StringOr(m, "owned_by"), "medreact");
    EXPECT_GT(IntegerOr(m, "created", 0), 1'600'000'000);
  }
  EXPECT_EQ(ids, (std::vector<std::string>{"medreact-chat", "medreact-cxr", "medreact-research"}));
  auto one = srv.Get("/v1/models/medreact-cxr");
  ASSERT_TRUE(one);
  EXPECT_EQ(one->status, 200);
  EXPECT_EQ(ServeFixture::JsonOf(one), j["data"][1]);
  ExpectError(srv.Get("/v1/models/gpt-4o"), 404, "model");
}

TEST(ServerOpenAiTest, ACompletionRunsTheChatAppWithItsToolAndSumsTheUsageOfBothModelCalls) {
  ScriptedServer model(
      Json{{"responses", Json::array({Call("c1", "2+2", Tokens(10, 5)), Answer("It is 4.", Tokens(20, 7))})}});
  ServeFixture srv(WithModel(model));
  Json body = Body("medreact-chat", "What is 2+2?");
  // Earlier turns go to the run as its history; the client's system prompt does not.
  body["messages"] = Json::array({{{"role", "system"}, {"content", "You are a pirate."}},
                                  {{"role", "user"}, {"content", "Hello there"}},
                                  {{"role", "assistant"}, {"content", "Hello! How can I help?"}},
                                  {{"role", "user"}, {"content", Json::array({{{"type", "text"},
                                                                               {"text", "What is 2+2?"}}})}}});
  auto r = srv.Post("/v1/chat/completions", DumpJson(body));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  Json j = ServeFixture::JsonOf(r);
  const std::string run_id = r->get_header_value("x-medreact-run-id");
  ASSERT_FALSE(run_id.empty());
  EXPECT_EQ(StringOr(j, "id"), "chatcmpl-" + run_id);
  EXPECT_EQ(StringOr(j, "object"), "chat.completion");
  EXPECT_EQ(StringOr(j, "model"), "medreact-chat");
  ASSERT_EQ(j["choices"].size(), 1u);
  EXPECT_EQ(StringOr(j["choices"][0]["message"], "role"), "assistant");
  EXPECT_EQ(StringOr(j["choices"][0]["message"], "content"), "It is 4.");
  EXPECT_EQ(StringOr(j["choices"][0], "finish_reason"), "stop");
  EXPECT_EQ(j["usage"], Tokens(30, 12));

  Result<RunRecord> run = srv.store()->Get(run_id);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_EQ(run->app, "chat");
  EXPECT_EQ(run->status, "finished");
  EXPECT_EQ(StringOr(run->inputs, "message"), "What is 2+2?");

  const std::vector<Json> sent = model.server->requests();
  ASSERT_FALSE(sent.empty());
  const std::string first = DumpJson(sent.front());
  EXPECT_THAT(first, HasSubstr("Hello! How can I help?"));
  EXPECT_THAT(first, Not(HasSubstr("pirate")));

  auto metrics = srv.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_THAT(metrics->body, HasSubstr("medreact_chat_completions_total{model=\"medreact-chat\",outcome=\"finished\"} 1"));
  EXPECT_THAT(metrics->body, HasSubstr("medreact_tool_calls_total{tool=\"calculator\"} 1"));
}

TEST(ServerOpenAiTest, AStreamSendsTheRoleTheStepsAsReasoningTheAnswerTheFinishTheUsageAndDone) {
  ScriptedServer model(
      Json{{"responses", Json::array({Call("c1", "2+2", Tokens(10, 5)), Answer("It is 4.", Tokens(20, 7)),
                                      Call("c1", "2+2"), Answer("It is 4.")})}});
  ServeFixture srv(WithModel(model));
  Json body = Body("medreact-chat", "What is 2+2?", true);
  body["stream_options"] = {{"include_usage", true}};
  auto r = srv.Post("/v1/chat/completions", DumpJson(body));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_THAT(r->get_header_value("content-type"), HasSubstr("text/event-stream"));
  const std::string run_id = r->get_header_value("x-medreact-run-id");
  ASSERT_FALSE(run_id.empty());
  std::vector<Json> chunks = DataOf(r->body);
  ASSERT_GE(chunks.size(), 5u) << r->body;
  EXPECT_EQ(chunks.back(), Json("[DONE]"));
  EXPECT_EQ(StringOr(chunks.front()["choices"][0]["delta"], "role"), "assistant");
  for (size_t i = 0; i + 1 < chunks.size(); ++i) {
    EXPECT_EQ(StringOr(chunks[i], "id"), "chatcmpl-" + run_id);
    EXPECT_EQ(StringOr(chunks[i], "object"), "chat.completion.chunk");
  }
  const std::string reasoning = DeltaText(chunks, "reasoning_content");
  EXPECT_THAT(reasoning, HasSubstr("→ calculator {\"expression\":\"2+2\"}"));
  EXPECT_THAT(reasoning, HasSubstr("← {\"expression\":\"2+2\",\"result\":4}"));
  EXPECT_EQ(DeltaText(chunks, "content"), "It is 4.");
  // The finish chunk, then the usage chunk (no choices), then [DONE].
  const Json& finish = chunks[chunks.size() - 3];
  EXPECT_EQ(StringOr(finish["choices"][0], "finish_reason"), "stop");
  const Json& usage = chunks[chunks.size() - 2];
  EXPECT_TRUE(usage["choices"].is_array() && usage["choices"].empty());
  EXPECT_EQ(usage["usage"], Tokens(30, 12));

  // Without include_usage: no usage chunk.
  auto plain = srv.Post("/v1/chat/completions", DumpJson(Body("medreact-chat", "What is 2+2?", true)));
  ASSERT_TRUE(plain);
  std::vector<Json> again = DataOf(plain->body);
  ASSERT_GE(again.size(), 3u);
  EXPECT_EQ(again.back(), Json("[DONE]"));
  EXPECT_EQ(StringOr(again[again.size() - 2]["choices"][0], "finish_reason"), "stop");
  for (const Json& c : again) EXPECT_FALSE(c.is_object() && c.contains("usage")) << DumpJson(c);
}

TEST(ServerOpenAiTest, AQuietStreamGetsKeepAliveCommentsWhileTheModelThinks) {
  ScriptedServer model(Json{{"responses", Json::array({Json{{"delay_ms", 600}, {"message", {{"content", "It is 4."}}}}})}});
  ServeOptions o = WithModel(model);
  o.heartbeat_s = 0.05;
  ServeFixture srv(o);
  auto r = srv.Post("/v1/chat/completions", DumpJson(Body("medreact-chat", "What is 2+2?", true)));
  ASSERT_TRUE(r);
  EXPECT_THAT(r->body, HasSubstr(": keep-alive\n\n"));
  std::vector<Json> chunks = DataOf(r->body);
  ASSERT_FALSE(chunks.empty());
  EXPECT_EQ(chunks.back(), Json("[DONE]"));
  EXPECT_EQ(DeltaText(chunks, "content"), "It is 4.");
  // Nothing after [DONE] but the end.
  EXPECT_EQ(r->body.substr(r->body.size() - 14), "data: [DONE]\n\n");
}

TEST(ServerOpenAiTest, ARunPausedForApprovalEndsNamingTheCallTheRunAndTheApprovalRoute) {
  ScriptedServer model(Json{{"responses", Json::array({Call("c1", "2+2"), Answer("It is 4."), Call("c1", "2+2")})}});
  ServeFixture srv(WithModel(model));
  Json body = Body("medreact-chat", "What is 2+2?");
  body["medreact"] = {{"require_approval", {"tool:calculator"}}};
  auto r = srv.Post("/v1/chat/completions", DumpJson(body));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const std::string run_id = r->get_header_value("x-medreact-run-id");
  ASSERT_FALSE(run_id.empty());
  Json j = ServeFixture::JsonOf(r);
  const std::string content = StringOr(j["choices"][0]["message"], "content");
  EXPECT_THAT(content, HasSubstr("calculator {\"expression\":\"2+2\"} (call c1)"));
  EXPECT_THAT(content, HasSubstr("POST /v1/runs/" + run_id + "/approvals/{call_id}"));
  EXPECT_EQ(StringOr(j["choices"][0], "finish_reason"), "stop");
  Result<RunRecord> run = srv.store()->Get(run_id);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->status, "awaiting_approval");

  // The route it names decides the call; the run goes on to its answer.
  auto decided = srv.Post("/v1/runs/" + run_id + "/approvals/c1", R"({"decision": "approve", "reviewer": "dr.a"})");
  ASSERT_TRUE(decided);
  EXPECT_EQ(decided->status, 200) << decided->body;
  std::string status;
  for (int i = 0; i < 2000 && status != "finished"; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    status = srv.store()->Get(run_id).value().status;
  }
  EXPECT_EQ(status, "finished");

  // Streamed: the same message, then the end; no hang.
  body["stream"] = true;
  auto s = srv.Post("/v1/chat/completions", DumpJson(body));
  ASSERT_TRUE(s);
  std::vector<Json> chunks = DataOf(s->body);
  ASSERT_FALSE(chunks.empty());
  EXPECT_EQ(chunks.back(), Json("[DONE]"));
  EXPECT_THAT(DeltaText(chunks, "content"), HasSubstr("/approvals/{call_id}"));
  EXPECT_THAT(DeltaText(chunks, "reasoning_content"), HasSubstr("calculator waits for a person's approval"));

  // A bad rule names the facade's field.
  body["medreact"] = {{"require_approval", {"sometimes"}}};
  body["stream"] = false;
  ExpectError(srv.Post("/v1/chat/completions", DumpJson(body)), 400, "medreact.require_approval");
}

TEST(ServerOpenAiTest, AStreamAlwaysEndsWithTheFinishAndDoneWhenTheRunIsCancelledOrFails) {
  // Cancelled through the run route while the model hangs.
  ScriptedServer model(Json{{"responses", Json::array({Call("c1", "2+2"), Json{{"hang_ms", 30000}}})}});
  ServeFixture srv(WithModel(model));
  std::string streamed;
  int streamed_status = 0;
  std::thread client([&] {
    auto r = srv.Post("/v1/chat/completions", DumpJson(Body("medreact-chat", "What is 2+2?", true)));
    if (r) streamed = r->body, streamed_status = r->status;
  });
  std::string id;
  for (int i = 0; i < 2000 && id.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    Result<std::vector<RunRecord>> runs = srv.store()->List({});
    if (runs.ok() && !runs->empty() && runs->front().steps >= 1) id = runs->front().id;
  }
  ASSERT_FALSE(id.empty());
  auto cancel = srv.Post("/v1/runs/" + id + "/cancel", "{}");
  ASSERT_TRUE(cancel);
  EXPECT_EQ(cancel->status, 202) << cancel->body;
  client.join();
  EXPECT_EQ(streamed_status, 200);
  std::vector<Json> chunks = DataOf(streamed);
  ASSERT_GE(chunks.size(), 3u) << streamed;
  EXPECT_EQ(chunks.back(), Json("[DONE]"));
  EXPECT_EQ(StringOr(chunks[chunks.size() - 2]["choices"][0], "finish_reason"), "stop");
  EXPECT_THAT(DeltaText(chunks, "content"), HasSubstr("stopped before it finished"));
  EXPECT_EQ(srv.store()->Get(id).value().status, "interrupted");

  // A model that cannot be reached: the run fails, the stream still ends.
  ServeOptions down{.token = kToken};
  down.model = {.url = "http://127.0.0.1:1/v1", .name = "mock", .max_retries = 0};
  ServeFixture broken(down);
  auto failed = broken.Post("/v1/chat/completions", DumpJson(Body("medreact-chat", "What is 2+2?", true)));
  ASSERT_TRUE(failed);
  std::vector<Json> ended = DataOf(failed->body);
  ASSERT_GE(ended.size(), 3u) << failed->body;
  EXPECT_EQ(ended.back(), Json("[DONE]"));
  EXPECT_THAT(DeltaText(ended, "content"), HasSubstr("The run failed"));
}

TEST(ServerOpenAiTest, AtShutdownTheRunningCompletionStopsAndAQueuedOneNeverStarts) {
  ScriptedServer model(Json{{"responses", Json::array({Json{{"hang_ms", 30000}}, Answer("never asked")})}});
  ServeOptions o = WithModel(model);
  o.max_concurrent_runs = 1;
  ServeFixture srv(o);
  auto ask = [&] { srv.Post("/v1/chat/completions", DumpJson(Body("medreact-chat", "What is 2+2?"))); };
  std::thread first(ask);
  for (int i = 0; i < 2000 && StoredRuns(srv) == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_EQ(StoredRuns(srv), 1u);
  std::thread second(ask);
  int64_t waiting = 0;
  for (int i = 0; i < 2000 && waiting == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    auto ready = srv.Get("/readyz");
    if (ready) waiting = IntegerOr(ServeFixture::JsonOf(ready), "runs_queued", 0);
  }
  ASSERT_EQ(waiting, 1);
  const auto t0 = std::chrono::steady_clock::now();
  srv.server().Stop(10);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  first.join();
  second.join();
  Result<std::vector<RunRecord>> runs = srv.store()->List({});
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 1u);  // the queued one was never stored
  EXPECT_EQ(runs->front().status, "interrupted");
  // The queued one never asked the model; the running one had asked, unless
  // the stop came between its first checkpoint and its request (a slow build).
  EXPECT_LE(model.chat_requests(), 1u);
}

TEST(ServerOpenAiTest, TitleTagsAndFollowUpPromptsAreAnsweredWithoutARun) {
  ScriptedServer model(Json{{"responses", Json::array({Answer("unused")})}});
  ServeFixture srv(WithModel(model));
  const std::string history =
      "### Chat History:\n<chat_history>\nUSER: What is the CHA2DS2-VASc score of a 70 year old?\n"
      "ASSISTANT: It is 2.\n</chat_history>";
  auto ask = [&](const std::string& prompt, bool stream = false) {
    Json body = Body("medreact-chat", prompt, stream);
    auto r = srv.Post("/v1/chat/completions", DumpJson(body));
    EXPECT_TRUE(r);
    EXPECT_EQ(r->status, 200) << r->body;
    EXPECT_EQ(r->get_header_value("x-medreact-run-id"), "");
    if (stream) return DeltaText(DataOf(r->body), "content");
    return StringOr(ServeFixture::JsonOf(r)["choices"][0]["message"], "content");
  };
  Result<Json> title = ParseJson(ask(
      "### Task:\nGenerate a concise, 3-5 word title with an emoji summarizing the chat history.\n### Output:\n"
      "JSON format: { \"title\": \"your concise title here\" }\n" + history));
  ASSERT_TRUE(title.ok());
  EXPECT_EQ(*title, (Json{{"title", "What is the CHA2DS2-VASc score of"}}));
  Result<Json> tags = ParseJson(ask(
      "### Task:\nGenerate 1-3 broad tags categorizing the main themes of the chat history.\n" + history, true));
  ASSERT_TRUE(tags.ok());
  EXPECT_EQ(*tags, (Json{{"tags", {"medical"}}}));
  Result<Json> follow = ParseJson(ask("### Task:\nSuggest 3-5 relevant follow-up questions.\n" + history));
  ASSERT_TRUE(follow.ok());
  EXPECT_EQ(*follow, (Json{{"follow_ups", Json::array()}}));
  EXPECT_EQ(ask("Please generate a concise, 5-word-or-less title for the conversation, with no punctuation.\n\n"
                "User: \"Dose of amoxicillin for otitis?\"\nAI: \"...\""),
            "Dose of amoxicillin for otitis");
  EXPECT_EQ(StoredRuns(srv), 0u);
  EXPECT_EQ(model.chat_requests(), 0u);
}

TEST(ServerOpenAiTest, BadBodiesAreRefusedNamingTheirField) {
  ServeOptions o{.token = kToken};
  o.max_image_bytes = 1024;
  ServeFixture srv(o);
  const std::string png = testing::BuildPng({.width = 4, .height = 4, .samples = std::vector<uint16_t>(16, 100)});
  const std::string png_url = "data:image/png;base64," + imaging::Base64Encode(png);
  auto with_image = [](const std::string& model, const std::string& url) {
    return Json{{"model", model},
                {"messages", Json::array({{{"role", "user"},
                                           {"content", Json::array({{{"type", "text"}, {"text", "Effusion?"}},
                                                                    {{"type", "image_url"},
                                                                     {"image_url", {{"url", url}}}}})}}})}};
  };
  const std::string big = testing::BuildPng({.width = 64, .height = 64, .samples = [] {
    std::vector<uint16_t> s(64 * 64);
    std::mt19937 noise(7);
    for (uint16_t& v : s) v = static_cast<uint16_t>(noise() % 256);  // does not compress
    return s;
  }()});
  ASSERT_GT(big.size(), 1024u);
  const std::string image_field = "messages[0].content[1].image_url.url";
  struct Case {
    std::string body;
    int status;
    std::string field;
  };
  const std::vector<Case> cases = {
      {"{not json", 400, "body"},
      {DumpJson(Json{{"model", "medreact-chat"}}), 400, "messages"},
      {DumpJson(Json{{"model", "medreact-chat"}, {"messages", Json::array()}}), 400, "messages"},
      {DumpJson(Json{{"model", "medreact-chat"}, {"messages", "hi"}}), 400, "messages"},
      {DumpJson(Json{{"model", "medreact-chat"}, {"messages", Json::array({{{"content", "hi"}}})}}), 400,
       "messages[0].role"},
      {DumpJson(Json{{"model", "medreact-chat"}, {"messages", Json::array({{{"role", "wizard"}, {"content", "hi"}}})}}),
       400, "messages[0].role"},
      {DumpJson(Json{{"model", "medreact-chat"},
                     {"messages", Json::array({{{"role", "system"}, {"content", "be brief"}}})}}),
       400, "messages"},
      {DumpJson(Json{{"messages", Json::array({{{"role", "user"}, {"content", "hi"}}})}}), 400, "model"},
      {DumpJson(Body("gpt-4o", "hi")), 404, "model"},
      {DumpJson(with_image("medreact-cxr", "data:image/png,abc")), 400, image_field},
      {DumpJson(with_image("medreact-cxr", "data:image/png;base64,***")), 400, image_field},
      {DumpJson(with_image("medreact-cxr", "data:text/plain;base64," + imaging::Base64Encode("hello"))), 400,
       image_field},
      {DumpJson(with_image("medreact-cxr", "data:image/png;base64," + imaging::Base64Encode("not a png at all"))),
       400, image_field},
      {DumpJson(with_image("medreact-cxr", "https://example.org/x.png")), 400, image_field},
      {DumpJson(with_image("medreact-cxr", "data:image/png;base64," + imaging::Base64Encode(big))), 400, image_field},
      {DumpJson(with_image("medreact-chat", png_url)), 400, "messages[0].content"},
      {DumpJson(with_image("medreact-research", png_url)), 400, "messages[0].content"},
      {DumpJson(Body("medreact-cxr", "Effusion?")), 400, "messages"},
      {[] {
         Json b = Body("medreact-chat", "hi");
         b["medreact"] = {{"budget", 3}};
         return DumpJson(b);
       }(),
       400, "medreact.budget"},
      {[] {
         Json b = Body("medreact-research", "hi");
         b["medreact"] = {{"packs", {"util"}}};
         return DumpJson(b);
       }(),
       400, "medreact.packs"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.body.substr(0, 200));
    ExpectError(srv.Post("/v1/chat/completions", c.body), c.status, c.field);
  }
  EXPECT_EQ(StoredRuns(srv), 0u);
}

TEST(ServerOpenAiTest, AnImageGoesToTheCxrAppKeptInTheUploadFolderByItsHash) {
  ServeFixture srv({.token = kToken});  // no model: the offline plan
  std::vector<uint16_t> samples(32 * 32);
  for (size_t i = 0; i < samples.size(); ++i) samples[i] = static_cast<uint16_t>(i % 256);
  const std::string png = testing::BuildPng({.width = 32, .height = 32, .samples = samples});
  Json body{{"model", "medreact-cxr"},
            {"messages", Json::array({{{"role", "user"},
                                       {"content", Json::array({{{"type", "text"}, {"text", "Is there an effusion?"}},
                                                                {{"type", "image_url"},
                                                                 {"image_url", {{"url", "data:image/png;base64," +
                                                                                            imaging::Base64Encode(png)}}}}})}}})}};
  auto r = srv.Post("/v1/chat/completions", DumpJson(body));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const std::string run_id = r->get_header_value("x-medreact-run-id");
  ASSERT_FALSE(run_id.empty());
  Json j = ServeFixture::JsonOf(r);
  EXPECT_FALSE(StringOr(j["choices"][0]["message"], "content").empty()) << r->body;
  Result<RunRecord> run = srv.store()->Get(run_id);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->app, "cxr");
  EXPECT_EQ(run->status, "finished") << r->body;
  const std::string kept = srv.store_path() + ".uploads/" + Sha256Hex(png) + ".png";
  struct stat st {};
  ASSERT_EQ(::stat(kept.c_str(), &st), 0) << kept;
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_THAT(DumpJson(run->inputs), HasSubstr(Sha256Hex(png)));
}

}  // namespace
}  // namespace medreact::server
