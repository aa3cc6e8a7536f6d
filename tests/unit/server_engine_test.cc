// The server's HTTP engine (src/server/http_engine.h) on loopback: requests
// and keep-alive, the body limit before any handler runs, answers from
// another thread, event streams (chunks in order, the close callback when
// the client leaves, a slow reader cut off), a port in use, and many open
// streams on two I/O threads.
#include "server/http_engine.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

namespace medreact::server {
namespace {

using ::testing::HasSubstr;

struct Engine {
  explicit Engine(HttpHandler h, HttpEngineOptions o = {}) : engine([&] {
    o.port = 0;
    return o;
  }(), std::move(h)) {
    Status s = engine.Start();
    EXPECT_TRUE(s.ok()) << s.message();
  }
  httplib::Client Client() {
    httplib::Client c("127.0.0.1", engine.port());
    c.set_read_timeout(5, 0);
    return c;
  }
  HttpEngine engine;
};

// A raw client socket connected to the engine, with `request` sent; -1 on failure.
int SendRaw(int port, const std::string& request) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::write(fd, request.data(), request.size()) != static_cast<ssize_t>(request.size())) {
    ::close(fd);
    return -1;
  }
  return fd;
}

TEST(ServerEngineTest, AnswersRequestsWithTheirPathQueryAndHeaders) {
  Engine e([](std::shared_ptr<Exchange> ex) {
    const HttpRequest& r = ex->request();
    ex->Respond({.status = 201,
                 .content_type = "text/plain",
                 .body = r.method + " " + r.path + " q=" + r.Query("q").value_or("-") + " h=" + r.Header("x-thing") +
                         " b=" + r.body,
                 .headers = {{"x-answer", "42"}}});
  });
  httplib::Client c = e.Client();
  auto r = c.Post("/v1/things?q=a%20b&z=1", {{"X-Thing", "yes"}}, "payload", "text/plain");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 201);
  EXPECT_EQ(r->body, "POST /v1/things q=a b h=yes b=payload");
  EXPECT_EQ(r->get_header_value("x-answer"), "42");
  // Keep-alive: the same client again.
  auto again = c.Get("/x");
  ASSERT_TRUE(again);
  EXPECT_EQ(again->body, "GET /x q=- h= b=");
  EXPECT_EQ(e.engine.stats().requests, 2);
}

TEST(ServerEngineTest, ABodyOverTheLimitGets413WithoutReachingTheHandler) {
  std::atomic<int> calls{0};
  Engine e([&](std::shared_ptr<Exchange> ex) {
    ++calls;
    ex->Respond({.body = "{}"});
  }, {.max_body_bytes = 1000});
  httplib::Client c = e.Client();
  auto r = c.Post("/v1/runs", std::string(5000, 'x'), "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413);
  EXPECT_THAT(r->body, HasSubstr("\"code\":\"too_large\""));
  EXPECT_THAT(r->body, HasSubstr("1000 bytes"));
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(e.engine.stats().refused_too_large, 1);
}

TEST(ServerEngineTest, AnAnswerMayComeFromAnotherThreadLater) {
  std::vector<std::thread> workers;
  std::mutex mu;
  Engine e([&](std::shared_ptr<Exchange> ex) {
    std::lock_guard<std::mutex> lock(mu);
    workers.emplace_back([ex] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      ex->Respond({.body = "late"});
      ex->Respond({.body = "twice"});  // ignored
    });
  });
  httplib::Client c = e.Client();
  auto r = c.Get("/slow");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "late");
  for (auto& t : workers) t.join();
}

TEST(ServerEngineTest, AStreamDeliversItsChunksInOrderAndEnds) {
  Engine e([](std::shared_ptr<Exchange> ex) {
    std::shared_ptr<EventStream> s = ex->Stream({{"cache-control", "no-store"}});
    for (int i = 0; i < 50; ++i) EXPECT_TRUE(s->Send("data: " + std::to_string(i) + "\n\n"));
    s->Close();
  });
  httplib::Client c = e.Client();
  std::string got;
  auto r = c.Get("/events", [&](const char* data, size_t n) {
    got.append(data, n);
    return true;
  });
  ASSERT_TRUE(r);
  EXPECT_EQ(r->get_header_value("content-type"), "text/event-stream");
  EXPECT_EQ(r->get_header_value("cache-control"), "no-store");
  std::string want;
  for (int i = 0; i < 50; ++i) want += "data: " + std::to_string(i) + "\n\n";
  EXPECT_EQ(got, want);
}

TEST(ServerEngineTest, AClientThatLeavesClosesItsStream) {
  std::promise<void> closed;
  std::shared_ptr<EventStream> held;
  std::promise<void> opened;
  Engine e([&](std::shared_ptr<Exchange> ex) {
    held = ex->Stream({});
    held->OnClose([&] { closed.set_value(); });
    held->Send(": hello\n\n");
    opened.set_value();
  });
  {
    httplib::Client c = e.Client();
    c.set_read_timeout(1, 0);
    std::atomic<bool> first{false};
    std::thread t([&] {
      c.Get("/events", [&](const char*, size_t) {
        first = true;
        return false;  // the client stops reading and closes
      });
    });
    t.join();
    EXPECT_TRUE(first);
  }
  ASSERT_EQ(closed.get_future().wait_for(std::chrono::seconds(5)), std::future_status::ready);
  EXPECT_TRUE(held->closed());
  EXPECT_FALSE(held->Send("data: after\n\n"));
  EXPECT_EQ(e.engine.stats().streams_open, 0);
}

TEST(ServerEngineTest, AReaderTooFarBehindIsCutOff) {
  std::promise<void> closed;
  Engine e(
      [&](std::shared_ptr<Exchange> ex) {
        std::shared_ptr<EventStream> s = ex->Stream({});
        s->OnClose([&] { closed.set_value(); });
        // 64 MiB queued at once against a 1 MiB buffer, to a client that reads nothing.
        const std::string chunk(1 << 16, 'x');
        for (int i = 0; i < 1024 && s->Send(chunk); ++i) {
        }
      },
      {.stream_buffer_bytes = 1u << 20});
  const int fd = SendRaw(e.engine.port(), "GET /events HTTP/1.1\r\nHost: x\r\n\r\n");
  ASSERT_GE(fd, 0);
  EXPECT_EQ(closed.get_future().wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_EQ(e.engine.stats().streams_dropped_slow, 1);
  ::close(fd);
}

TEST(ServerEngineTest, APortInUseIsRefusedNamingIt) {
  Engine first([](std::shared_ptr<Exchange> ex) { ex->Respond({}); });
  HttpEngine second({.port = first.engine.port()}, [](std::shared_ptr<Exchange> ex) { ex->Respond({}); });
  Status s = second.Start();
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_THAT(s.message(), HasSubstr("127.0.0.1:" + std::to_string(first.engine.port())));
  HttpEngine bad({.host = "not-an-address"}, [](std::shared_ptr<Exchange> ex) { ex->Respond({}); });
  EXPECT_EQ(bad.Start().code(), StatusCode::kInvalidArgument);
}

TEST(ServerEngineTest, TwoHundredOpenStreamsAndRequestsStillAnswered) {
  std::mutex mu;
  std::vector<std::shared_ptr<EventStream>> streams;
  Engine e([&](std::shared_ptr<Exchange> ex) {
    if (ex->request().path == "/healthz") return ex->Respond({.body = "ok"});
    std::lock_guard<std::mutex> lock(mu);
    streams.push_back(ex->Stream({}));
    streams.back()->Send(": open\n\n");
  });
  std::vector<int> fds;
  for (int i = 0; i < 200; ++i) {
    const int fd = SendRaw(e.engine.port(), "GET /events HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_GE(fd, 0);
    fds.push_back(fd);
  }
  for (int i = 0; i < 100 && e.engine.stats().streams_open < 200; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(e.engine.stats().streams_open, 200);
  httplib::Client c = e.Client();
  auto r = c.Get("/healthz");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, "ok");
  for (int fd : fds) ::close(fd);
  e.engine.Stop();
}

TEST(ServerEngineTest, PercentDecodingRefusesBadEscapes) {
  EXPECT_EQ(PercentDecode("a%20b+c", true), "a b c");
  EXPECT_EQ(PercentDecode("a+c", false), "a+c");
  EXPECT_EQ(PercentDecode("%4", true), std::nullopt);
  EXPECT_EQ(PercentDecode("%zz", true), std::nullopt);
  EXPECT_EQ(PercentDecode("%", true), std::nullopt);
}

}  // namespace
}  // namespace medreact::server
