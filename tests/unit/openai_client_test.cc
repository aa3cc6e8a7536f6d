// Tests for the OpenAI client's HTTP behaviour (headers, retries, backoff,
// Retry-After, error mapping, streaming) against a scripted fake transport,
// and for the libcurl transport against a real cpp-httplib server on
// 127.0.0.1 (timeouts, cancellation, refused connections).

#include <gtest/gtest.h>
#include <httplib.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "medreact/http.h"
#include "medreact/openai.h"

namespace medreact {
namespace {

// One scripted reply: a transport error, or an HTTP response whose 2xx body is
// streamed as `chunks` when the caller streams.
struct Scripted {
  Status error;
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::vector<std::string> chunks;
};

class FakeTransport : public HttpTransport {
 public:
  explicit FakeTransport(std::vector<Scripted> script) : script_(std::move(script)) {}

  Result<HttpResponse> Send(const HttpRequest& request, const HttpChunkHandler& on_chunk,
                            const CancellationToken& cancel) override {
    std::lock_guard<std::mutex> lock(mu_);
    requests_.push_back(request);
    if (next_ >= script_.size()) return Status::Internal("fake transport: script exhausted");
    const Scripted& s = script_[next_++];
    if (!s.error.ok()) return s.error;
    HttpResponse response;
    response.status = s.status;
    response.headers = s.headers;
    std::vector<std::string> pieces = s.chunks.empty() ? std::vector<std::string>{s.body} : s.chunks;
    for (const std::string& piece : pieces) {
      if (on_chunk && s.status / 100 == 2) {
        if (!on_chunk(piece)) return Status::Cancelled("aborted by the body handler");
      } else {
        response.body += piece;
      }
    }
    return response;
  }

  std::vector<HttpRequest> requests() const {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }

 private:
  mutable std::mutex mu_;
  std::vector<Scripted> script_;
  size_t next_ = 0;
  std::vector<HttpRequest> requests_;
};

std::string Header(const HttpRequest& request, const std::string& name) {
  for (const auto& [k, v] : request.headers) {
    if (k == name) return v;
  }
  return "<absent>";
}

const char kOkBody[] = R"({"model":"m","choices":[{"message":{"content":"INR 2.1"},"finish_reason":"stop"}]})";

Scripted Ok() { return Scripted{.body = kOkBody}; }
Scripted Http(int status, std::string body = R"({"error":{"message":"try later"}})",
              std::vector<std::pair<std::string, std::string>> headers = {}) {
  return Scripted{.status = status, .headers = std::move(headers), .body = std::move(body)};
}
Scripted Fails(Status error) { return Scripted{.error = std::move(error)}; }

ModelRequest Request(bool stream = false) {
  ModelRequest r;
  r.messages = {Message::System("Be careful."), Message::User("Check INR.")};
  r.stream = stream;
  return r;
}

class OpenAIClientTest : public ::testing::Test {
 protected:
  std::unique_ptr<ChatModel> Make(std::vector<Scripted> script, OpenAIOptions options = {}) {
    transport_ = std::make_shared<FakeTransport>(std::move(script));
    if (options.base_url.empty()) options.base_url = "http://llm.local:8000/v1/";
    options.transport = transport_;
    options.sleep = [this](Millis d) { sleeps_.push_back(d.count()); };
    return MakeOpenAIModel(std::move(options));
  }

  std::shared_ptr<FakeTransport> transport_;
  std::vector<int64_t> sleeps_;
};

TEST_F(OpenAIClientTest, PostsBodyToChatCompletions) {
  OpenAIOptions options;
  options.model = "gpt-x";
  auto model = Make({Ok()}, options);
  Result<ModelResponse> r = model->Complete(Request(), {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->message.content, "INR 2.1");
  EXPECT_EQ(r->attempts, 1);
  auto requests = transport_->requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "POST");
  EXPECT_EQ(requests[0].url, "http://llm.local:8000/v1/chat/completions");
  EXPECT_EQ(Header(requests[0], "Content-Type"), "application/json");
  EXPECT_EQ(Header(requests[0], "Authorization"), "<absent>");
  Json body = Json::parse(requests[0].body);
  EXPECT_EQ(body["model"], "gpt-x");
  EXPECT_EQ(body["messages"].size(), 2u);
  EXPECT_EQ(model->name(), "gpt-x");
  EXPECT_EQ(model->protocol(), "native");
}

TEST_F(OpenAIClientTest, AuthorizationOnlyWithKey) {
  OpenAIOptions options;
  options.api_key = "sk-test";
  auto model = Make({Ok()}, options);
  ASSERT_TRUE(model->Complete(Request(), {}).ok());
  EXPECT_EQ(Header(transport_->requests().at(0), "Authorization"), "Bearer sk-test");
  EXPECT_EQ(Make({Ok()})->name(), "default");
}

TEST_F(OpenAIClientTest, StreamsTextDeltasAndSetsHeaders) {
  Scripted s;
  s.chunks = {"data: {\"choices\":[{\"delta\":{\"content\":\"IN", "R \"}}]}\n\ndata: {\"choices\":[{\"delta\":",
              "{\"content\":\"2.1\"},\"finish_reason\":\"stop\"}]}\n\n", "data: [DONE]\n\n"};
  OpenAIOptions options;
  options.idle_timeout = Millis(1234);
  auto model = Make({s}, options);
  std::string streamed;
  ModelCallContext ctx;
  ctx.on_text_delta = [&](std::string_view t) { streamed.append(t); };
  Result<ModelResponse> r = model->Complete(Request(/*stream=*/true), ctx);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->message.content, "INR 2.1");
  EXPECT_EQ(streamed, "INR 2.1");
  const HttpRequest sent = transport_->requests().at(0);
  EXPECT_EQ(Header(sent, "Accept"), "text/event-stream");
  EXPECT_EQ(sent.idle_timeout.count(), 1234);
  EXPECT_EQ(Json::parse(sent.body)["stream"], true);
}

TEST_F(OpenAIClientTest, StreamRequestAnsweredWithPlainJson) {
  Scripted s;
  s.chunks = {"{\"choices\":[{\"message\":", "{\"content\":\"INR 2.1\"}}]}"};
  auto model = Make({s});
  Result<ModelResponse> r = model->Complete(Request(true), {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->message.content, "INR 2.1");
}

TEST_F(OpenAIClientTest, RetryAfterSecondsThenSuccess) {
  auto model = Make({Http(429, R"({"error":{"message":"rate limited"}})", {{"retry-after", "2"}}), Ok()});
  Result<ModelResponse> r = model->Complete(Request(), {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->attempts, 2);
  EXPECT_EQ(sleeps_, std::vector<int64_t>{2000});
}

TEST_F(OpenAIClientTest, RetryAfterHttpDate) {
  time_t at = time(nullptr) + 5;
  struct tm parts;
  gmtime_r(&at, &parts);
  char date[64];
  strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S GMT", &parts);
  auto model = Make({Http(503, "busy", {{"retry-after", date}}), Ok()});
  Result<ModelResponse> r = model->Complete(Request(), {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(sleeps_.size(), 1u);
  EXPECT_GE(sleeps_[0], 3000);
  EXPECT_LE(sleeps_[0], 5000);
}

TEST_F(OpenAIClientTest, RetryAfterCappedAtMaxBackoff) {
  OpenAIOptions options;
  options.max_backoff = Millis(1500);
  auto model = Make({Http(429, "", {{"retry-after", "60"}}), Ok()}, options);
  ASSERT_TRUE(model->Complete(Request(), {}).ok());
  EXPECT_EQ(sleeps_, std::vector<int64_t>{1500});
}

TEST_F(OpenAIClientTest, ServerErrorsRetriedWithExponentialJitteredBackoff) {
  auto model = Make({Http(500), Http(503), Ok()});
  Result<ModelResponse> r = model->Complete(Request(), {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->attempts, 3);
  ASSERT_EQ(sleeps_.size(), 2u);
  EXPECT_GE(sleeps_[0], 250);
  EXPECT_LE(sleeps_[0], 500);
  EXPECT_GE(sleeps_[1], 500);
  EXPECT_LE(sleeps_[1], 1000);
}

TEST_F(OpenAIClientTest, BackoffCappedAtMaxBackoff) {
  OpenAIOptions options;
  options.max_retries = 6;
  options.max_backoff = Millis(900);
  auto model = Make({Http(502), Http(502), Http(502), Http(502), Http(502), Ok()}, options);
  ASSERT_TRUE(model->Complete(Request(), {}).ok());
  ASSERT_EQ(sleeps_.size(), 5u);
  for (int64_t d : sleeps_) EXPECT_LE(d, 900);
  EXPECT_GE(sleeps_.back(), 450);
}

TEST_F(OpenAIClientTest, RequestTimeoutAndConflictAreRetried) {
  auto model = Make({Http(408), Http(409), Ok()});
  Result<ModelResponse> r = model->Complete(Request(), {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->attempts, 3);
}

TEST_F(OpenAIClientTest, BadRequestNotRetried) {
  auto model = Make({Http(400, R"({"error":{"message":"messages[2]: tool_call_id missing"}})"), Ok()});
  Result<ModelResponse> r = model->Complete(Request(), {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("400"), std::string::npos);
  EXPECT_NE(r.status().message().find("tool_call_id missing"), std::string::npos);
  EXPECT_EQ(transport_->requests().size(), 1u);
  EXPECT_TRUE(sleeps_.empty());
}

TEST_F(OpenAIClientTest, OtherClientErrorsNotRetried) {
  for (int status : {404, 422}) {
    auto model = Make({Http(status, R"({"detail":"no such model"})"), Ok()});
    Result<ModelResponse> r = model->Complete(Request(), {});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find("no such model"), std::string::npos);
    EXPECT_EQ(transport_->requests().size(), 1u);
  }
}

TEST_F(OpenAIClientTest, UnauthorizedIsPermissionDenied) {
  for (int status : {401, 403}) {
    auto model = Make({Http(status, R"({"error":{"message":"invalid api key"}})"), Ok()});
    Result<ModelResponse> r = model->Complete(Request(), {});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kPermissionDenied);
    EXPECT_NE(r.status().message().find("invalid api key"), std::string::npos);
    EXPECT_EQ(transport_->requests().size(), 1u);
  }
}

TEST_F(OpenAIClientTest, ExhaustedRetriesMapByLastError) {
  OpenAIOptions options;
  options.max_retries = 2;
  {
    auto model = Make({Http(503), Http(503), Http(503), Ok()}, options);
    Result<ModelResponse> r = model->Complete(Request(), {});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
    EXPECT_NE(r.status().message().find("3 attempts"), std::string::npos);
    EXPECT_NE(r.status().message().find("try later"), std::string::npos);
    EXPECT_EQ(transport_->requests().size(), 3u);
  }
  {
    auto model = Make({Http(429), Http(429), Http(429)}, options);
    Result<ModelResponse> r = model->Complete(Request(), {});
    EXPECT_EQ(r.status().code(), StatusCode::kResourceExhausted);
  }
  {
    auto model = Make({Fails(Status::Unavailable("refused")), Http(500), Fails(Status::Timeout("idle timeout"))},
                      options);
    Result<ModelResponse> r = model->Complete(Request(), {});
    EXPECT_EQ(r.status().code(), StatusCode::kTimeout);
    EXPECT_NE(r.status().message().find("idle timeout"), std::string::npos);
  }
}

TEST_F(OpenAIClientTest, ConnectionErrorThenSuccess) {
  auto model = Make({Fails(Status::Unavailable("Couldn't connect to server (llm.local:8000)")), Ok()});
  Result<ModelResponse> r = model->Complete(Request(), {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->attempts, 2);
  EXPECT_EQ(sleeps_.size(), 1u);
}

TEST_F(OpenAIClientTest, TruncatedStreamIsRetried) {
  Scripted cut;
  cut.chunks = {"data: {\"choices\":[{\"delta\":{\"content\":\"IN\"}}]}\n\n", "data: {\"choi"};
  Scripted good;
  good.chunks = {"data: {\"choices\":[{\"delta\":{\"content\":\"INR\"},\"finish_reason\":\"stop\"}]}\n\n"};
  auto model = Make({cut, good});
  Result<ModelResponse> r = model->Complete(Request(true), {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->message.content, "INR");
  EXPECT_EQ(r->attempts, 2);
}

TEST_F(OpenAIClientTest, ErrorEventInStreamIsNotRetried) {
  Scripted s;
  s.chunks = {"data: {\"error\":{\"message\":\"context length exceeded\"}}\n\n"};
  auto model = Make({s, Ok()});
  Result<ModelResponse> r = model->Complete(Request(true), {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("context length exceeded"), std::string::npos);
  EXPECT_EQ(transport_->requests().size(), 1u);
}

TEST_F(OpenAIClientTest, NoRetryPastTheDeadline) {
  auto model = Make({Http(503, "busy", {{"retry-after", "5"}}), Ok()});
  ModelCallContext ctx;
  ctx.deadline = Deadline::In(std::chrono::seconds(1));
  Result<ModelResponse> r = model->Complete(Request(), ctx);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(r.status().message().find("deadline"), std::string::npos);
  EXPECT_EQ(transport_->requests().size(), 1u);
  EXPECT_TRUE(sleeps_.empty());
  EXPECT_LE(transport_->requests()[0].total_timeout.count(), 1000);  // clipped to the deadline
}

TEST_F(OpenAIClientTest, CancelledWhileWaitingStops) {
  auto transport = std::make_shared<FakeTransport>(std::vector<Scripted>{Http(503), Ok()});
  ModelCallContext ctx;
  OpenAIOptions options;
  options.base_url = "http://x/v1";
  options.transport = transport;
  options.sleep = [&](Millis) { ctx.cancel.Cancel(); };
  Result<ModelResponse> r = MakeOpenAIModel(options)->Complete(Request(), ctx);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCancelled);
  EXPECT_EQ(transport->requests().size(), 1u);
}

TEST_F(OpenAIClientTest, DefaultSleepWakesOnCancel) {
  auto transport = std::make_shared<FakeTransport>(std::vector<Scripted>{Http(429, "", {{"retry-after", "10"}})});
  OpenAIOptions options;
  options.base_url = "http://x/v1";
  options.transport = transport;
  auto model = MakeOpenAIModel(options);
  ModelCallContext ctx;
  std::thread canceller([&] {
    std::this_thread::sleep_for(Millis(150));
    ctx.cancel.Cancel();
  });
  auto start = SteadyClock::now();
  Result<ModelResponse> r = model->Complete(Request(), ctx);
  canceller.join();
  EXPECT_EQ(r.status().code(), StatusCode::kCancelled);
  EXPECT_LT(SteadyClock::now() - start, std::chrono::seconds(2));
}

// ---- libcurl transport against a real local server ----

class CurlTransportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.Post("/ok", [](const httplib::Request& req, httplib::Response& res) {
      res.set_header("X-Echo-Length", std::to_string(req.body.size()));
      res.set_content(kOkBody, "application/json");
    });
    server_.Post("/busy", [](const httplib::Request&, httplib::Response& res) {
      res.status = 503;
      res.set_header("Retry-After", "3");
      res.set_content("overloaded", "text/plain");
    });
    server_.Post("/stream", [](const httplib::Request&, httplib::Response& res) {
      res.set_chunked_content_provider("text/event-stream", [](size_t, httplib::DataSink& sink) {
        for (int i = 0; i < 5; ++i) {
          std::string event = "data: " + std::to_string(i) + "\n\n";
          sink.write(event.data(), event.size());
          std::this_thread::sleep_for(Millis(20));
        }
        sink.done();
        return true;
      });
    });
    server_.Post("/hang", [this](const httplib::Request&, httplib::Response& res) {
      res.set_chunked_content_provider("text/event-stream", [this](size_t, httplib::DataSink& sink) {
        sink.write("data: 1\n\n", 9);
        while (!release_ && sink.is_writable()) std::this_thread::sleep_for(Millis(10));
        sink.done();
        return true;
      });
    });
    server_.Post("/v1/chat/completions", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(kOkBody, "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    ASSERT_GT(port_, 0);
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    // stop() is a no-op until the accept loop runs, so wait for it.
    while (!server_.is_running()) std::this_thread::sleep_for(Millis(1));
  }

  void TearDown() override {
    release_ = true;
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }

  HttpRequest Post(const std::string& path) {
    HttpRequest r;
    r.url = "http://127.0.0.1:" + std::to_string(port_) + path;
    r.body = R"({"hello":"world"})";
    r.headers = {{"Content-Type", "application/json"}};
    return r;
  }

  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::atomic<bool> release_{false};
};

TEST_F(CurlTransportTest, PostCollectsBodyAndLowerCasedHeaders) {
  auto transport = MakeCurlTransport();
  Result<HttpResponse> r = transport->Send(Post("/ok"), nullptr, CancellationToken());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body, kOkBody);
  EXPECT_EQ(r->Header("x-echo-length"), "17");
  EXPECT_EQ(r->Header("content-type"), "application/json");
  EXPECT_EQ(r->Header("absent"), "");
}

TEST_F(CurlTransportTest, ErrorStatusIsAnOkResponseWithBody) {
  std::string streamed;
  HttpChunkHandler on_chunk = [&](std::string_view c) {
    streamed.append(c);
    return true;
  };
  Result<HttpResponse> r = MakeCurlTransport()->Send(Post("/busy"), on_chunk, CancellationToken());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->status, 503);
  EXPECT_EQ(r->body, "overloaded");
  EXPECT_EQ(r->Header("retry-after"), "3");
  EXPECT_TRUE(streamed.empty());
}

TEST_F(CurlTransportTest, StreamsChunksToHandler) {
  std::string streamed;
  int calls = 0;
  HttpChunkHandler on_chunk = [&](std::string_view c) {
    streamed.append(c);
    ++calls;
    return true;
  };
  Result<HttpResponse> r = MakeCurlTransport()->Send(Post("/stream"), on_chunk, CancellationToken());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(streamed, "data: 0\n\ndata: 1\n\ndata: 2\n\ndata: 3\n\ndata: 4\n\n");
  EXPECT_GE(calls, 2);
  EXPECT_TRUE(r->body.empty());
}

TEST_F(CurlTransportTest, HandlerReturningFalseAborts) {
  HttpChunkHandler on_chunk = [](std::string_view) { return false; };
  Result<HttpResponse> r = MakeCurlTransport()->Send(Post("/hang"), on_chunk, CancellationToken());
  ASSERT_FALSE(r.ok());
}

TEST_F(CurlTransportTest, HangHitsIdleTimeoutQuickly) {
  HttpRequest request = Post("/hang");
  request.idle_timeout = Millis(300);
  HttpChunkHandler on_chunk = [](std::string_view) { return true; };
  auto start = SteadyClock::now();
  Result<HttpResponse> r = MakeCurlTransport()->Send(request, on_chunk, CancellationToken());
  auto took = SteadyClock::now() - start;
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kTimeout);
  EXPECT_NE(r.status().message().find("idle"), std::string::npos);
  EXPECT_GE(took, Millis(300));
  EXPECT_LT(took, std::chrono::seconds(2));
}

TEST_F(CurlTransportTest, TotalTimeout) {
  HttpRequest request = Post("/hang");
  request.idle_timeout = Millis(0);
  request.total_timeout = Millis(400);
  Result<HttpResponse> r = MakeCurlTransport()->Send(request, [](std::string_view) { return true; },
                                                     CancellationToken());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kTimeout);
  EXPECT_NE(r.status().message().find("total"), std::string::npos);
}

TEST_F(CurlTransportTest, CancellationStopsTransfer) {
  CancellationToken cancel;
  std::thread canceller([cancel] {
    std::this_thread::sleep_for(Millis(200));
    cancel.Cancel();
  });
  auto start = SteadyClock::now();
  Result<HttpResponse> r = MakeCurlTransport()->Send(Post("/hang"), [](std::string_view) { return true; }, cancel);
  canceller.join();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCancelled);
  EXPECT_LT(SteadyClock::now() - start, std::chrono::seconds(2));
}

TEST_F(CurlTransportTest, RefusedPortIsUnavailable) {
  HttpRequest request = Post("/ok");
  request.url = "http://127.0.0.1:1/v1/chat/completions";
  Result<HttpResponse> r = MakeCurlTransport()->Send(request, nullptr, CancellationToken());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(r.status().message().find("127.0.0.1:1"), std::string::npos);
}

TEST_F(CurlTransportTest, ClientEndToEndThroughCurl) {
  OpenAIOptions options;
  options.base_url = "http://127.0.0.1:" + std::to_string(port_) + "/v1";
  Result<ModelResponse> r = MakeOpenAIModel(options)->Complete(Request(), {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->message.content, "INR 2.1");
}

}  // namespace
}  // namespace medreact
