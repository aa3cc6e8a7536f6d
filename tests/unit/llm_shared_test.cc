// The pieces every model provider shares: SSE framing (llm/sse.h), the retry
// loop (llm/retry.h) and the cancellation token's wake-up.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "llm/retry.h"
#include "llm/sse.h"
#include "medreact/cancel.h"

namespace medreact {
namespace {

std::vector<SseEvent> Decode(const std::string& bytes, size_t step) {
  SseDecoder decoder;
  std::vector<SseEvent> events;
  auto keep = [&](SseEvent&& e) {
    events.push_back(std::move(e));
    return true;
  };
  for (size_t i = 0; i < bytes.size(); i += step) decoder.Feed(std::string_view(bytes).substr(i, step), keep);
  decoder.Finish(keep);
  return events;
}

TEST(SseDecoderTest, NamedEventsMultiLineDataAndCommentsOverEverySplit) {
  const std::string stream =
      ": keep-alive\r\n"
      "event: message_start\r\n"
      "data: {\"a\":1}\r\n\r\n"
      "id: 7\n"
      "data: line one\n"
      "data:line two\n\n"
      "event: ping\n\n"  // no data: not dispatched, and its name does not leak
      "data: tail";      // no closing blank line: dispatched at the end
  for (size_t step = 1; step <= stream.size(); ++step) {
    std::vector<SseEvent> events = Decode(stream, step);
    ASSERT_EQ(events.size(), 3u) << "step " << step;
    EXPECT_EQ(events[0].name, "message_start");
    EXPECT_EQ(events[0].data, "{\"a\":1}");
    EXPECT_FALSE(events[0].at_end);
    EXPECT_EQ(events[1].name, "");
    EXPECT_EQ(events[1].data, "line one\nline two");
    EXPECT_EQ(events[2].data, "tail");
    EXPECT_TRUE(events[2].at_end);
  }
}

TEST(SseDecoderTest, AHandlerThatStopsEndsDecoding) {
  SseDecoder decoder;
  int seen = 0;
  auto stop_after_first = [&](SseEvent&&) { return ++seen < 1; };
  EXPECT_FALSE(decoder.Feed("data: 1\n\ndata: 2\n\n", stop_after_first));
  EXPECT_FALSE(decoder.Feed("data: 3\n\n", stop_after_first));
  EXPECT_EQ(seen, 1);
}

TEST(JsonBodySnifferTest, KeepsAJsonBodyAndLetsAStreamGoAtItsFirstByte) {
  JsonBodySniffer json;
  EXPECT_TRUE(json.Feed(" \r\n"));  // blank: not decided yet
  EXPECT_TRUE(json.Feed("{\"error\":"));
  EXPECT_TRUE(json.Feed("{\"type\":\"overloaded_error\"}}"));
  EXPECT_TRUE(json.maybe_json());
  EXPECT_EQ(json.body(), " \r\n{\"error\":{\"type\":\"overloaded_error\"}}");

  JsonBodySniffer events;
  EXPECT_TRUE(events.Feed("\n"));
  EXPECT_FALSE(events.Feed("data: {\"id\":1}\n\n"));
  EXPECT_FALSE(events.maybe_json());
  EXPECT_EQ(events.body(), "");
  EXPECT_FALSE(events.Feed("{\"later\":true}"));  // decided: a '{' later in a stream is not a body
  EXPECT_EQ(events.body(), "");
}

TEST(RetryTest, RetriesRetryableFailuresWithBackoffThenGivesUpNamingTheLastError) {
  std::vector<Millis> waits;
  RetryPolicy policy{.max_retries = 2, .initial_backoff = Millis(100), .max_backoff = Millis(1000),
                     .sleep = [&](Millis d) { waits.push_back(d); }};
  int attempts = 0;
  Result<ModelResponse> r = CallWithRetries(policy, {}, [&](Millis) {
    ++attempts;
    HttpResponse response;
    response.status = 503;
    response.body = R"({"error":{"message":"overloaded"}})";
    return HttpFailureAttempt(response, "http://127.0.0.1:1/v1/chat/completions");
  });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(attempts, 3);
  EXPECT_EQ(r.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(r.status().message().find("after 3 attempts"), std::string::npos);
  EXPECT_NE(r.status().message().find("overloaded"), std::string::npos);
  ASSERT_EQ(waits.size(), 2u);
  EXPECT_GE(waits[0], Millis(50));
  EXPECT_LE(waits[0], Millis(100));
  EXPECT_GE(waits[1], Millis(100));
  EXPECT_LE(waits[1], Millis(200));
}

TEST(RetryTest, ANonRetryableFailureReturnsAtOnceAndASuccessCountsAttempts) {
  int attempts = 0;
  Result<ModelResponse> refused = CallWithRetries({.sleep = [](Millis) {}}, {}, [&](Millis) {
    ++attempts;
    HttpResponse response;
    response.status = 401;
    return HttpFailureAttempt(response, "u");
  });
  EXPECT_EQ(attempts, 1);
  EXPECT_EQ(refused.status().code(), StatusCode::kPermissionDenied);

  attempts = 0;
  Result<ModelResponse> ok = CallWithRetries({.sleep = [](Millis) {}}, {}, [&](Millis) {
    ModelAttempt a;
    if (++attempts < 2) {
      a.error = Status::Unavailable("reset");
      a.retryable = true;
    } else {
      a.response = ModelResponse{};
    }
    return a;
  });
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->attempts, 2);
}

// llama-server without Jinja (--no-jinja) refuses "tools" with a 500 no
// retry changes (seen against llama.cpp de3ff81): one attempt, and the remedy.
TEST(RetryTest, ALlamaServerWithoutJinjaIsNotRetriedAndSaysWhatToDo) {
  int attempts = 0;
  Result<ModelResponse> refused = CallWithRetries({.max_retries = 3, .sleep = [](Millis) {}}, {}, [&](Millis) {
    ++attempts;
    HttpResponse response;
    response.status = 500;
    response.body = R"({"error":{"code":500,"message":"tools param requires --jinja flag","type":"server_error"}})";
    return HttpFailureAttempt(response, "u");
  });
  EXPECT_EQ(attempts, 1);
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.status().message(), ::testing::HasSubstr("--jinja"));
  EXPECT_THAT(refused.status().message(), ::testing::HasSubstr("set the tool protocol (protocol) to text"));
  attempts = 0;  // any other 500 is still retried
  (void)CallWithRetries({.max_retries = 3, .sleep = [](Millis) {}}, {}, [&](Millis) {
    ++attempts;
    HttpResponse response;
    response.status = 500;
    response.body = R"({"error":"boom"})";
    return HttpFailureAttempt(response, "u");
  });
  EXPECT_EQ(attempts, 4);
}

TEST(CancelTest, WaitForWakesAtOnceWhenCancelledFromAnotherThread) {
  CancellationToken token;
  const auto start = std::chrono::steady_clock::now();
  std::thread canceller([token] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    token.Cancel();
  });
  EXPECT_TRUE(token.WaitFor(Millis(60'000)));
  canceller.join();
  // Not a timing assertion on speed: only that it did not wait the minute out.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
}

TEST(CancelTest, WaitForRunsItsTimeWhenNotCancelledAndTheFdStaysReadableOnceCancelled) {
  CancellationToken token;
  EXPECT_FALSE(token.WaitFor(Millis(5)));
  const int fd = token.wake_fd();
  ASSERT_GE(fd, 0);
  EXPECT_EQ(fd, token.wake_fd());  // one descriptor per token
  CancellationToken copy = token;
  copy.Cancel();
  EXPECT_TRUE(token.cancelled());
  EXPECT_TRUE(token.WaitFor(Millis(60'000)));
  EXPECT_TRUE(token.WaitFor(Millis(60'000)));  // level-triggered: every later waiter sees it

  CancellationToken early;  // cancelled before anyone asked for the descriptor
  early.Cancel();
  EXPECT_TRUE(early.WaitFor(Millis(60'000)));
}

}  // namespace
}  // namespace medreact
