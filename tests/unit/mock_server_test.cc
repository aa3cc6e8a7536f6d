// Tests of the scripted model server over real sockets: the replies it
// renders (JSON and SSE, with every quirk and fault a script can ask for),
// request recording, and its lifecycle (hangs that never block other
// connections, Stop() that cuts them short). Script parsing is tested in
// mock_script_test.cc. Every test runs a real server on
// 127.0.0.1 with port 0 and talks to it with httplib::Client or, where the
// raw bytes matter (truncation), with a plain socket.
#include "mockllm/mock_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <httplib.h>


namespace medreact::mockllm {
namespace {

using Clock = std::chrono::steady_clock;

long long MillisSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

std::unique_ptr<MockLlmServer> StartServer(const std::string& script_text) {
  Result<MockScript> script = MockLlmServer::ParseScript(Json::parse(script_text));
  EXPECT_TRUE(script.ok()) << script.status().ToString();
  if (!script.ok()) return nullptr;
  auto server = std::make_unique<MockLlmServer>(std::move(script).value());
  Status started = server->Start();
  EXPECT_TRUE(started.ok()) << started.ToString();
  return server;
}

httplib::Client ClientFor(const MockLlmServer& server) {
  httplib::Client client("127.0.0.1", server.port());
  client.set_read_timeout(10, 0);
  return client;
}

const char* kChatPath = "/v1/chat/completions";
const std::string kChatBody = R"({"model":"m","messages":[{"role":"user","content":"hi"}]})";
const std::string kStreamBody =
    R"({"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[]})";

// Splits an SSE body into its "data:" payloads, failing on anything else.
std::vector<std::string> SsePayloads(const std::string& body, const std::string& sep = "\n\n") {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos < body.size()) {
    size_t end = body.find(sep, pos);
    EXPECT_NE(end, std::string::npos) << "unterminated event at byte " << pos;
    if (end == std::string::npos) break;
    std::string event = body.substr(pos, end - pos);
    EXPECT_EQ(event.rfind("data: ", 0), 0u) << event;
    EXPECT_EQ(event.find('\n'), std::string::npos) << event;
    out.push_back(event.substr(6));
    pos = end + sep.size();
  }
  return out;
}

// POSTs with a raw socket and returns every byte received until EOF, or
// hangs up once at least `hang_up_after` bytes have arrived.
std::string RawPost(int port, const std::string& body, size_t hang_up_after = std::string::npos) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  timeval timeout{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  std::string received;
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) {
    std::string request = std::string("POST ") + kChatPath + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
                          "Connection: close\r\nContent-Type: application/json\r\n" +
                          "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
    if (send(fd, request.data(), request.size(), 0) == static_cast<ssize_t>(request.size())) {
      char buf[4096];
      for (ssize_t n; received.size() < hang_up_after && (n = recv(fd, buf, sizeof(buf), 0)) > 0;) {
        received.append(buf, n);
      }
    }
  }
  close(fd);
  return received;
}

TEST(MockLlmServerTest, ServesModelsAndOpenAiStyle404) {
  auto server = StartServer(R"({"responses": []})");
  ASSERT_TRUE(server);
  EXPECT_EQ(server->base_url(), "http://127.0.0.1:" + std::to_string(server->port()) + "/v1");
  auto client = ClientFor(*server);
  auto models = client.Get("/v1/models");
  ASSERT_TRUE(models);
  EXPECT_EQ(Json::parse(models->body),
            Json::parse(R"({"object":"list","data":[{"id":"mock","object":"model"}]})"));
  auto missing = client.Post("/v1/embeddings", "{}", "application/json");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  Json error = Json::parse(missing->body);
  EXPECT_TRUE(error["error"]["message"].is_string());
  EXPECT_TRUE(error["error"]["type"].is_string());
  EXPECT_EQ(server->requests().size(), 2u);
}

TEST(MockLlmServerTest, ReplyWithToolCallsKeepsArgumentsAsGiven) {
  auto server = StartServer(R"({"responses": [{"message": {"content": null, "tool_calls": [
      {"id": "call_1", "name": "calc", "arguments": "{\"a\":1}"},
      {"name": "lookup", "arguments": {"q": "x"}}]}, "model": "scripted"}]})");
  ASSERT_TRUE(server);
  auto client = ClientFor(*server);
  auto res = client.Post("/chat/completions", kChatBody, "application/json");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200);
  Json body = Json::parse(res->body);
  EXPECT_EQ(body["object"], "chat.completion");
  EXPECT_EQ(body["model"], "scripted");
  const Json& choice = body["choices"][0];
  EXPECT_EQ(choice["finish_reason"], "tool_calls");
  EXPECT_TRUE(choice["message"]["content"].is_null());
  const Json& calls = choice["message"]["tool_calls"];
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0]["id"], "call_1");
  EXPECT_EQ(calls[0]["type"], "function");
  EXPECT_EQ(calls[0]["function"]["arguments"], "{\"a\":1}");
  EXPECT_FALSE(calls[1].contains("id"));
  EXPECT_EQ(calls[1]["function"]["arguments"], Json::parse(R"({"q":"x"})"));
  EXPECT_GT(body["usage"]["total_tokens"].get<int>(), 0);
  EXPECT_EQ(server->served(), 1u);
}

TEST(MockLlmServerTest, RecordsBodiesAndLowerCasedHeaders) {
  auto server = StartServer(R"({"responses": [{"message": {"content": "ok"}}]})");
  ASSERT_TRUE(server);
  auto client = ClientFor(*server);
  auto res = client.Post(kChatPath, {{"Authorization", "Bearer k"}, {"X-Trace-Id", "t1"}}, kChatBody,
                         "application/json");
  ASSERT_TRUE(res);
  auto bad = client.Post(kChatPath, "not json", "text/plain");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  EXPECT_TRUE(Json::parse(bad->body)["error"]["message"].is_string());

  std::vector<Json> requests = server->requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0]["method"], "POST");
  EXPECT_EQ(requests[0]["path"], kChatPath);
  EXPECT_EQ(requests[0]["body"], Json::parse(kChatBody));
  EXPECT_EQ(requests[0]["headers"]["authorization"], "Bearer k");
  EXPECT_EQ(requests[0]["headers"]["x-trace-id"], "t1");
  EXPECT_EQ(requests[0]["headers"]["content-type"], "application/json");
  EXPECT_FALSE(requests[0]["headers"].contains("REMOTE_ADDR"));
  EXPECT_EQ(requests[1]["body"], "not json");
  EXPECT_EQ(server->served(), 1u);  // the rejected body consumed nothing

  auto dump = client.Get("/_mock/requests");
  ASSERT_TRUE(dump);
  EXPECT_EQ(Json::parse(dump->body), Json(requests));
  EXPECT_EQ(server->requests().size(), 2u);  // the dump itself is not recorded
}

TEST(MockLlmServerTest, ObserverSeesRequestsInOrder) {
  Result<MockScript> script = MockLlmServer::ParseScript(Json::parse(R"({"responses": []})"));
  ASSERT_TRUE(script.ok());
  MockLlmServer server(std::move(script).value());
  std::vector<std::string> paths;
  server.SetRequestObserver([&](const Json& r) { paths.push_back(r["path"].get<std::string>()); });
  ASSERT_TRUE(server.Start().ok());
  auto client = ClientFor(server);
  client.Get("/a");
  client.Get("/v1/models");
  server.Stop();
  EXPECT_EQ(paths, (std::vector<std::string>{"/a", "/v1/models"}));
}

TEST(MockLlmServerTest, StreamsValidSseWithUsageAndDone) {
  auto server = StartServer(R"({"responses": [{"message": {"content": "Hello, wörld!",
      "tool_calls": [{"id": "c1", "name": "calc", "arguments": "{\"expr\":\"1+2\"}"}]},
      "fragment_chars": 4}]})");
  ASSERT_TRUE(server);
  auto client = ClientFor(*server);
  auto res = client.Post(kChatPath, kStreamBody, "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("Content-Type"), "text/event-stream");
  EXPECT_EQ(res->get_header_value("Transfer-Encoding"), "chunked");
  std::vector<std::string> payloads = SsePayloads(res->body);
  ASSERT_GE(payloads.size(), 5u);
  EXPECT_EQ(payloads.back(), "[DONE]");

  std::string content, arguments, finish;
  Json usage;
  for (size_t i = 0; i + 1 < payloads.size(); ++i) {
    Json chunk = Json::parse(payloads[i]);
    EXPECT_EQ(chunk["object"], "chat.completion.chunk");
    if (chunk["choices"].empty()) {
      usage = chunk["usage"];
      continue;
    }
    const Json& delta = chunk["choices"][0]["delta"];
    if (i == 0) {
      EXPECT_EQ(delta, Json::parse(R"({"role":"assistant"})"));
    }
    if (delta.contains("content")) content += delta["content"].get<std::string>();
    if (delta.contains("tool_calls")) {
      const Json& call = delta["tool_calls"][0];
      EXPECT_EQ(call["index"], 0);
      if (call.contains("type")) {
        EXPECT_EQ(call["id"], "c1");
        EXPECT_EQ(call["function"]["name"], "calc");
        EXPECT_EQ(call["function"]["arguments"], "");
      } else {
        EXPECT_FALSE(call.contains("id"));
        EXPECT_FALSE(call["function"].contains("name"));
      }
      arguments += call["function"]["arguments"].get<std::string>();
    }
    if (!chunk["choices"][0]["finish_reason"].is_null()) finish = chunk["choices"][0]["finish_reason"].get<std::string>();
  }
  EXPECT_EQ(content, "Hello, wörld!");
  EXPECT_EQ(arguments, "{\"expr\":\"1+2\"}");
  EXPECT_EQ(finish, "tool_calls");
  EXPECT_GT(usage["total_tokens"].get<int>(), 0);
}

TEST(MockLlmServerTest, StreamingQuirksInterleaveRepeatNameAndNoDone) {
  auto server = StartServer(R"({"responses": [{"message": {"tool_calls": [
      {"id": "a", "name": "f", "arguments": "{\"x\":1}"}, {"name": "g", "arguments": {"y": 2}}]},
      "fragment_chars": 3, "interleave": true, "repeat_name_empty": true, "done": false,
      "chunk_delay_ms": 5}]})");
  ASSERT_TRUE(server);
  auto client = ClientFor(*server);
  auto res = client.Post(kChatPath, R"({"stream": true})", "application/json");
  ASSERT_TRUE(res);
  std::vector<std::string> payloads = SsePayloads(res->body);
  ASSERT_FALSE(payloads.empty());
  EXPECT_NE(payloads.back(), "[DONE]");
  std::vector<int> order;
  std::string args0;
  for (const std::string& p : payloads) {
    Json delta = Json::parse(p)["choices"][0]["delta"];
    if (!delta.contains("tool_calls")) continue;
    const Json& call = delta["tool_calls"][0];
    order.push_back(call["index"].get<int>());
    if (call.contains("type")) continue;  // a header chunk
    EXPECT_EQ(call["id"], "");
    EXPECT_EQ(call["function"]["name"], "");
    if (call["index"] == 0) args0 += call["function"]["arguments"].get<std::string>();
    if (call["index"] == 1) {
      EXPECT_EQ(call["function"]["arguments"], Json::parse(R"({"y":2})"));
    }
  }
  EXPECT_EQ(order, (std::vector<int>{0, 1, 0, 1, 0, 0}));
  EXPECT_EQ(args0, "{\"x\":1}");
}

TEST(MockLlmServerTest, RawChunksAreVerbatimEvenWithoutStreamFlag) {
  auto server = StartServer(R"({"responses": [
      {"chunks": [{"choices": []}, "not json", "[DONE]"], "done": false},
      {"chunks": [{"a": 1}], "crlf": true}]})");
  ASSERT_TRUE(server);
  auto client = ClientFor(*server);
  auto first = client.Post(kChatPath, kChatBody, "application/json");
  ASSERT_TRUE(first);
  EXPECT_EQ(first->get_header_value("Content-Type"), "text/event-stream");
  EXPECT_EQ(first->body, "data: {\"choices\":[]}\n\ndata: not json\n\ndata: [DONE]\n\n");
  auto second = client.Post(kChatPath, kChatBody, "application/json");
  ASSERT_TRUE(second);
  EXPECT_EQ(second->body, "data: {\"a\":1}\r\n\r\ndata: [DONE]\r\n\r\n");
}

TEST(MockLlmServerTest, TruncationCutsTheChunkedBody) {
  auto server = StartServer(R"({"responses": [
      {"chunks": [{"n": 1}, {"n": 2}, {"n": 3}], "truncate_after": 2},
      {"message": {"content": "abcdefgh"}, "fragment_chars": 2, "truncate_after": 3},
      {"chunks": [{"n": 1}]}]})");
  ASSERT_TRUE(server);
  std::string raw = RawPost(server->port(), kChatBody);
  EXPECT_NE(raw.find("Transfer-Encoding: chunked"), std::string::npos) << raw;
  EXPECT_NE(raw.find("data: {\"n\":2}"), std::string::npos);
  EXPECT_EQ(raw.find("data: {\"n\":3}"), std::string::npos);
  EXPECT_EQ(raw.find("[DONE]"), std::string::npos);
  EXPECT_EQ(raw.find("\r\n0\r\n\r\n"), std::string::npos) << "chunked body was terminated";

  auto client = ClientFor(*server);
  auto cut = client.Post(kChatPath, R"({"stream": true})", "application/json");
  EXPECT_FALSE(cut) << "a truncated chunked body must fail the read";

  std::string complete = RawPost(server->port(), kChatBody);  // control: a finished stream
  EXPECT_NE(complete.find("\r\n0\r\n\r\n"), std::string::npos) << complete;
}

TEST(MockLlmServerTest, FaultsAndRawBodies) {
  auto server = StartServer(R"({"responses": [
      {"status": 429, "headers": {"Retry-After": "1"}},
      {"status": 503, "body": {"error": {"message": "overloaded"}}},
      {"raw_body": "not json at all"},
      {"raw_body": "<html>", "status": 502, "content_type": "text/html"}]})");
  ASSERT_TRUE(server);
  auto client = ClientFor(*server);
  auto limited = client.Post(kChatPath, kChatBody, "application/json");
  ASSERT_TRUE(limited);
  EXPECT_EQ(limited->status, 429);
  EXPECT_EQ(limited->get_header_value("Retry-After"), "1");
  EXPECT_NE(Json::parse(limited->body)["error"]["message"].get<std::string>().find("429"),
            std::string::npos);
  auto overloaded = client.Post(kChatPath, kChatBody, "application/json");
  ASSERT_TRUE(overloaded);
  EXPECT_EQ(overloaded->status, 503);
  EXPECT_EQ(Json::parse(overloaded->body)["error"]["message"], "overloaded");
  auto raw = client.Post(kChatPath, kChatBody, "application/json");
  ASSERT_TRUE(raw);
  EXPECT_EQ(raw->status, 200);
  EXPECT_EQ(raw->body, "not json at all");
  EXPECT_EQ(raw->get_header_value("Content-Type"), "application/json");
  auto html = client.Post(kChatPath, kChatBody, "application/json");
  ASSERT_TRUE(html);
  EXPECT_EQ(html->status, 502);
  EXPECT_EQ(html->get_header_value("Content-Type"), "text/html");
}

TEST(MockLlmServerTest, ExhaustionIsAnErrorByDefault) {
  auto server = StartServer(R"({"responses": [{"message": {"content": "once"}}]})");
  ASSERT_TRUE(server);
  auto client = ClientFor(*server);
  ASSERT_EQ(client.Post(kChatPath, kChatBody, "application/json")->status, 200);
  auto res = client.Post(kChatPath, kChatBody, "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 500);
  EXPECT_NE(Json::parse(res->body)["error"]["message"].get<std::string>().find("exhausted"),
            std::string::npos);
  EXPECT_EQ(server->served(), 1u);
}

TEST(MockLlmServerTest, RepeatLastReplaysTheFinalEntry) {
  auto server = StartServer(R"({"responses": [{"message": {"content": "a"}},
      {"message": {"content": "b"}}], "on_exhausted": "repeat_last"})");
  ASSERT_TRUE(server);
  auto client = ClientFor(*server);
  std::string contents;
  for (int i = 0; i < 4; ++i) {
    auto res = client.Post(kChatPath, kChatBody, "application/json");
    ASSERT_TRUE(res);
    contents += Json::parse(res->body)["choices"][0]["message"]["content"].get<std::string>();
  }
  EXPECT_EQ(contents, "abbb");
  EXPECT_EQ(server->served(), 4u);
}

TEST(MockLlmServerTest, DelayWaitsBeforeAnswering) {
  auto server = StartServer(R"({"responses": [{"message": {"content": "late"}, "delay_ms": 200}]})");
  ASSERT_TRUE(server);
  auto client = ClientFor(*server);
  const auto start = Clock::now();
  auto res = client.Post(kChatPath, kChatBody, "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_GE(MillisSince(start), 200);
}

TEST(MockLlmServerTest, HangTimesOutClientsBlocksNoOneAndStopCutsIt) {
  auto server = StartServer(R"({"responses": [{"hang_ms": 60000}, {"hang_ms": 60000},
      {"message": {"content": "fast"}}]})");
  ASSERT_TRUE(server);
  // A client with a short read timeout gives up on the first hang.
  httplib::Client impatient("127.0.0.1", server->port());
  impatient.set_read_timeout(0, 300'000);
  auto timed_out = impatient.Post(kChatPath, kChatBody, "application/json");
  EXPECT_FALSE(timed_out);

  // A patient client hangs on the second entry in the background...
  auto hanging = std::async(std::launch::async, [&] {
    auto client = ClientFor(*server);
    auto res = client.Post(kChatPath, kChatBody, "application/json");
    return res ? res->status : -1;
  });
  const auto wait_start = Clock::now();
  while (server->requests().size() < 2 && MillisSince(wait_start) < 5000) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_EQ(server->requests().size(), 2u);
  // ...while another connection is served at once.
  auto client = ClientFor(*server);
  const auto fast_start = Clock::now();
  auto fast = client.Post(kChatPath, kChatBody, "application/json");
  ASSERT_TRUE(fast);
  EXPECT_EQ(fast->status, 200);
  EXPECT_LT(MillisSince(fast_start), 2000);

  const auto stop_start = Clock::now();
  server->Stop();
  EXPECT_LT(MillisSince(stop_start), 3000);
  ASSERT_EQ(hanging.wait_for(std::chrono::seconds(5)), std::future_status::ready);
  EXPECT_NE(hanging.get(), 200);
}

TEST(MockLlmServerTest, StopInterruptsASlowStream) {
  auto server = StartServer(R"({"responses": [{"chunks": [{"n": 1}, {"n": 2}],
      "chunk_delay_ms": 60000}]})");
  ASSERT_TRUE(server);
  auto streaming = std::async(std::launch::async, [&] {
    return RawPost(server->port(), kChatBody);
  });
  const auto wait_start = Clock::now();
  while (server->requests().empty() && MillisSince(wait_start) < 5000) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const auto stop_start = Clock::now();
  server->Stop();
  EXPECT_LT(MillisSince(stop_start), 3000);
  ASSERT_EQ(streaming.wait_for(std::chrono::seconds(5)), std::future_status::ready);
  std::string raw = streaming.get();
  EXPECT_NE(raw.find("data: {\"n\":1}"), std::string::npos);
  EXPECT_EQ(raw.find("data: {\"n\":2}"), std::string::npos);
}

TEST(MockLlmServerTest, ClientHangingUpMidStreamIsHarmless) {
  auto server = StartServer(R"({"responses": [{"chunks": [{"n": 1}, {"n": 2}, {"n": 3}, {"n": 4}],
      "chunk_delay_ms": 30}, {"message": {"content": "still here"}}]})");
  ASSERT_TRUE(server);
  std::string partial = RawPost(server->port(), kChatBody, 1);  // hang up on the first bytes
  EXPECT_FALSE(partial.empty());
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the server writes into the void
  auto client = ClientFor(*server);
  auto res = client.Post(kChatPath, kChatBody, "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
}

TEST(MockLlmServerTest, StopDoesNotWaitForIdleKeepAliveConnections) {
  auto server = StartServer(R"({"responses": [{"message": {"content": "a"}}]})");
  ASSERT_TRUE(server);
  auto client = ClientFor(*server);
  client.set_keep_alive(true);
  auto res = client.Post(kChatPath, kChatBody, "application/json");
  ASSERT_TRUE(res);
  ASSERT_EQ(client.Get("/v1/models")->status, 200);  // the same connection, now idle
  const auto stop_start = Clock::now();
  server->Stop();
  EXPECT_LT(MillisSince(stop_start), 500);
}

TEST(MockLlmServerTest, LoopbackOnlyAndSingleStart) {
  EXPECT_TRUE(MockLlmServer::IsLoopbackHost("127.0.0.1"));
  EXPECT_TRUE(MockLlmServer::IsLoopbackHost("127.1.2.3"));
  EXPECT_TRUE(MockLlmServer::IsLoopbackHost("localhost"));
  EXPECT_TRUE(MockLlmServer::IsLoopbackHost("::1"));
  EXPECT_TRUE(MockLlmServer::IsLoopbackHost("[::1]"));
  EXPECT_FALSE(MockLlmServer::IsLoopbackHost("0.0.0.0"));
  EXPECT_FALSE(MockLlmServer::IsLoopbackHost("10.0.0.1"));
  EXPECT_FALSE(MockLlmServer::IsLoopbackHost("example.com"));

  MockLlmServer refused(MockScript{});
  EXPECT_EQ(refused.Start("0.0.0.0", 0).code(), StatusCode::kInvalidArgument);
  MockLlmServer server(MockScript{});
  ASSERT_TRUE(server.Start().ok());
  EXPECT_GT(server.port(), 0);
  EXPECT_EQ(server.Start().code(), StatusCode::kFailedPrecondition);
  MockLlmServer clash(MockScript{});
  EXPECT_EQ(clash.Start("127.0.0.1", server.port()).code(), StatusCode::kUnavailable);
  server.Stop();
  server.Stop();  // idempotent
}

// Scripted routes: each path its own queue, in order, recorded with its
// path, outside served(); exhaustion is a 500 naming the route.
TEST(MockLlmServerTest, RoutesServeTheirEntriesInOrderAndRecordThePath) {
  auto server = StartServer(R"({
    "responses": [{"message": {"content": "chat"}}],
    "routes": {
      "/classify": {"responses": [
          {"status": 500, "body": "model crashed", "headers": {"Retry-After": "0"}},
          {"json": {"model": "m", "labels": [{"label": "Edema", "probability": 0.5}]}}]},
      "/ground": {"responses": [{"json": {"model": "g", "boxes": []}}]}
    }})");
  ASSERT_TRUE(server);
  auto client = ClientFor(*server);
  auto crashed = client.Post("/classify", {{"Authorization", "Bearer k"}}, R"({"image": {}})", "application/json");
  ASSERT_TRUE(crashed);
  EXPECT_EQ(crashed->status, 500);
  EXPECT_EQ(crashed->body, "model crashed");
  EXPECT_EQ(crashed->get_header_value("Retry-After"), "0");
  auto grounded = client.Get("/ground");  // any method consumes the route's entry
  ASSERT_TRUE(grounded);
  EXPECT_EQ(grounded->status, 200);
  EXPECT_EQ(Json::parse(grounded->body)["model"], "g");
  auto classified = client.Post("/classify", R"({"image": {}})", "application/json");
  ASSERT_TRUE(classified);
  EXPECT_EQ(classified->status, 200);
  EXPECT_EQ(classified->get_header_value("Content-Type"), "application/json");
  EXPECT_EQ(Json::parse(classified->body)["labels"][0]["label"], "Edema");
  auto chat = client.Post(kChatPath, kChatBody, "application/json");  // the chat script is untouched
  ASSERT_TRUE(chat);
  EXPECT_EQ(chat->status, 200);

  auto exhausted = client.Post("/ground", "{}", "application/json");
  ASSERT_TRUE(exhausted);
  EXPECT_EQ(exhausted->status, 500);
  EXPECT_EQ(Json::parse(exhausted->body)["error"]["message"],
            "mock route /ground exhausted: all 1 scripted responses were already served");
  auto unknown = client.Post("/segment", "{}", "application/json");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);

  EXPECT_EQ(server->served(), 1u);  // chat requests only
  std::vector<Json> requests = server->requests();
  ASSERT_EQ(requests.size(), 6u);
  EXPECT_EQ(requests[0]["path"], "/classify");
  EXPECT_EQ(requests[0]["method"], "POST");
  EXPECT_EQ(requests[0]["headers"]["authorization"], "Bearer k");
  EXPECT_EQ(requests[0]["body"], Json::parse(R"({"image": {}})"));
  EXPECT_EQ(requests[1]["path"], "/ground");
  EXPECT_EQ(requests[1]["method"], "GET");
  EXPECT_EQ(requests[3]["path"], kChatPath);
  EXPECT_EQ(requests[5]["path"], "/segment");
}

TEST(MockLlmServerTest, RouteRepeatLastReplaysItsFinalEntry) {
  auto server = StartServer(R"({"routes": {"/segment": {"responses": [{"json": 1}, {"json": 2}],
      "on_exhausted": "repeat_last"}}})");
  ASSERT_TRUE(server);
  auto client = ClientFor(*server);
  std::string bodies;
  for (int i = 0; i < 4; ++i) {
    auto res = client.Post("/segment", "{}", "application/json");
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 200);
    bodies += res->body;
  }
  EXPECT_EQ(bodies, "1222");
  EXPECT_EQ(server->served(), 0u);
}

TEST(MockLlmServerTest, StopCutsARouteHangShort) {
  auto server = StartServer(R"({"routes": {"/classify": {"responses": [{"hang_ms": 60000}]}}})");
  ASSERT_TRUE(server);
  auto hanging = std::async(std::launch::async, [&] {
    auto client = ClientFor(*server);
    auto res = client.Post("/classify", "{}", "application/json");
    return res ? res->status : -1;
  });
  const auto wait_start = Clock::now();
  while (server->requests().empty() && MillisSince(wait_start) < 5000) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_EQ(server->requests().size(), 1u);
  const auto stop_start = Clock::now();
  server->Stop();
  EXPECT_LT(MillisSince(stop_start), 30'000);
  ASSERT_EQ(hanging.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  EXPECT_NE(hanging.get(), 200);
}

}  // namespace
}  // namespace medreact::mockllm
