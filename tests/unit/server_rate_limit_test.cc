// Tests for the per-client token bucket (src/server/rate_limit.h), with time
// driven by hand: burst, refill, Retry-After, time going backwards, eviction
// of the least recently seen client, invalid options, and many threads.
#include <atomic>
#include <barrier>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "server/rate_limit.h"

namespace medreact::server {
namespace {

using Clock = RateLimiter::Clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

const Clock::time_point kT0 = Clock::time_point() + std::chrono::hours(1000);

TEST(ServerRateLimitTest, ANewClientHasAFullBurstThenIsRefused) {
  RateLimiter limiter({.per_second = 2, .burst = 5});
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(limiter.Allow("10.0.0.1", kT0)) << i;
  EXPECT_FALSE(limiter.Allow("10.0.0.1", kT0));
  EXPECT_FALSE(limiter.Allow("10.0.0.1", kT0));
  // Another client has its own bucket.
  EXPECT_TRUE(limiter.Allow("10.0.0.2", kT0));
  EXPECT_EQ(limiter.ClientCount(), 2u);
}

TEST(ServerRateLimitTest, TokensRefillAtTheRateUpToTheBurst) {
  RateLimiter limiter({.per_second = 2, .burst = 5});
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(limiter.Allow("c", kT0));
  ASSERT_FALSE(limiter.Allow("c", kT0));
  // 0.4 s at 2/s is 0.8 of a token: not yet.
  EXPECT_FALSE(limiter.Allow("c", kT0 + milliseconds(400)));
  // 0.5 s: one token.
  EXPECT_TRUE(limiter.Allow("c", kT0 + milliseconds(500)));
  EXPECT_FALSE(limiter.Allow("c", kT0 + milliseconds(500)));
  // 1.5 s more: three tokens.
  const Clock::time_point t = kT0 + seconds(2);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(limiter.Allow("c", t)) << i;
  EXPECT_FALSE(limiter.Allow("c", t));
  // An hour idle refills to the burst, not beyond.
  const Clock::time_point later = t + std::chrono::hours(1);
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(limiter.Allow("c", later)) << i;
  EXPECT_FALSE(limiter.Allow("c", later));
}

TEST(ServerRateLimitTest, RetryAfterSaysWhenTheNextTokenComes) {
  RateLimiter limiter({.per_second = 4, .burst = 2});
  EXPECT_EQ(limiter.RetryAfterSeconds("unknown", kT0), 0);
  ASSERT_TRUE(limiter.Allow("c", kT0));
  EXPECT_EQ(limiter.RetryAfterSeconds("c", kT0), 0);  // one token left
  ASSERT_TRUE(limiter.Allow("c", kT0));
  EXPECT_DOUBLE_EQ(limiter.RetryAfterSeconds("c", kT0), 0.25);
  EXPECT_NEAR(limiter.RetryAfterSeconds("c", kT0 + milliseconds(100)), 0.15, 1e-9);
  EXPECT_EQ(limiter.RetryAfterSeconds("c", kT0 + milliseconds(250)), 0);
  // Asking changes nothing: the token is still there to take.
  EXPECT_FALSE(limiter.Allow("c", kT0 + milliseconds(200)));
  EXPECT_TRUE(limiter.Allow("c", kT0 + milliseconds(250)));
}

TEST(ServerRateLimitTest, TimeGoingBackwardsRefillsNothing) {
  RateLimiter limiter({.per_second = 1, .burst = 1});
  ASSERT_TRUE(limiter.Allow("c", kT0 + seconds(10)));
  EXPECT_FALSE(limiter.Allow("c", kT0));              // earlier than the last request
  EXPECT_FALSE(limiter.Allow("c", kT0 + seconds(10)));  // the step back did not move its clock
  EXPECT_DOUBLE_EQ(limiter.RetryAfterSeconds("c", kT0 + seconds(9)), 2.0);
  EXPECT_TRUE(limiter.Allow("c", kT0 + seconds(11)));
}

TEST(ServerRateLimitTest, ExtremeTimePointsDoNotOverflow) {
  RateLimiter limiter({.per_second = 1, .burst = 1});
  ASSERT_TRUE(limiter.Allow("c", Clock::time_point::min()));
  EXPECT_TRUE(limiter.Allow("c", Clock::time_point::max()));
  EXPECT_FALSE(limiter.Allow("c", Clock::time_point::max()));
  EXPECT_GT(limiter.RetryAfterSeconds("c", Clock::time_point::min()), 0);
  EXPECT_TRUE(std::isfinite(limiter.RetryAfterSeconds("c", Clock::time_point::min())));
}

TEST(ServerRateLimitTest, MemoryIsBoundedByEvictingTheLeastRecentlySeen) {
  RateLimiter limiter({.per_second = 0.01, .burst = 1, .max_clients = 3});  // refills ~nothing here
  ASSERT_TRUE(limiter.Allow("a", kT0));
  ASSERT_TRUE(limiter.Allow("b", kT0 + seconds(1)));
  ASSERT_TRUE(limiter.Allow("c", kT0 + milliseconds(1100)));
  EXPECT_FALSE(limiter.Allow("a", kT0 + milliseconds(200)));  // "a" is now the most recently seen; "b" the least
  ASSERT_TRUE(limiter.Allow("d", kT0 + milliseconds(1200)));   // evicts "b"
  EXPECT_EQ(limiter.ClientCount(), 3u);
  // "a" and "c" kept their empty buckets; "b" comes back new, with a full one.
  EXPECT_FALSE(limiter.Allow("a", kT0 + milliseconds(1200)));
  EXPECT_FALSE(limiter.Allow("c", kT0 + milliseconds(1200)));
  EXPECT_TRUE(limiter.Allow("b", kT0 + milliseconds(1200)));  // evicts "d" (least recent now)
  EXPECT_EQ(limiter.ClientCount(), 3u);

  // A flood of new addresses never holds more than max_clients buckets.
  RateLimiter flood({.max_clients = 100});
  for (int i = 0; i < 10000; ++i) flood.Allow("10.0." + std::to_string(i / 256) + "." + std::to_string(i % 256), kT0);
  EXPECT_EQ(flood.ClientCount(), 100u);
}

TEST(ServerRateLimitTest, LongKeysAreCut) {
  RateLimiter limiter({.per_second = 1, .burst = 1});
  const std::string prefix(kMaxClientKeyBytes, 'k');
  ASSERT_TRUE(limiter.Allow(prefix + "one", kT0));
  EXPECT_FALSE(limiter.Allow(prefix + "two", kT0));  // the same first 256 bytes: the same bucket
  EXPECT_EQ(limiter.ClientCount(), 1u);
}

TEST(ServerRateLimitTest, InvalidOptionsAreNamedAndReplacedByDefaults) {
  EXPECT_TRUE(CheckRateLimitOptions({}).ok());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_THAT(CheckRateLimitOptions({.per_second = 0}).message(), ::testing::HasSubstr("per_second"));
  EXPECT_THAT(CheckRateLimitOptions({.per_second = nan}).message(), ::testing::HasSubstr("per_second"));
  EXPECT_THAT(CheckRateLimitOptions({.per_second = -1}).message(), ::testing::HasSubstr("per_second"));
  EXPECT_THAT(CheckRateLimitOptions({.burst = 0.5}).message(), ::testing::HasSubstr("burst"));
  EXPECT_THAT(CheckRateLimitOptions({.burst = inf}).message(), ::testing::HasSubstr("burst"));
  EXPECT_THAT(CheckRateLimitOptions({.max_clients = 0}).message(), ::testing::HasSubstr("max_clients"));

  RateLimiter limiter({.per_second = nan, .burst = 0, .max_clients = 0});
  EXPECT_EQ(limiter.options().per_second, 20);
  EXPECT_EQ(limiter.options().burst, 40);
  EXPECT_EQ(limiter.options().max_clients, 10000u);
  int allowed = 0;
  for (int i = 0; i < 100; ++i) allowed += limiter.Allow("c", kT0) ? 1 : 0;
  EXPECT_EQ(allowed, 40);
}

// Threads released together take exactly the burst between them.
TEST(ServerRateLimitTest, ConcurrentRequestsNeverTakeMoreThanTheBucketHolds) {
  constexpr int kThreads = 8;
  constexpr int kEach = 500;
  RateLimiter limiter({.per_second = 1, .burst = 1000, .max_clients = 4});
  std::atomic<int> allowed{0};
  std::barrier start(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      start.arrive_and_wait();
      for (int i = 0; i < kEach; ++i) {
        if (limiter.Allow("shared", kT0)) allowed.fetch_add(1);
        limiter.Allow("own-" + std::to_string(t % 6), kT0);  // churn: 6 keys in 4 slots
        (void)limiter.RetryAfterSeconds("shared", kT0);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  // "shared" may be evicted by the churn and come back full: at least the
  // burst, and exactly the burst without churn (checked below).
  EXPECT_GE(allowed.load(), 1000);

  RateLimiter only_shared({.per_second = 1, .burst = 1000});
  std::atomic<int> taken{0};
  std::barrier go(kThreads);
  std::vector<std::thread> more;
  for (int t = 0; t < kThreads; ++t) {
    more.emplace_back([&] {
      go.arrive_and_wait();
      for (int i = 0; i < kEach; ++i) {
        if (only_shared.Allow("shared", kT0)) taken.fetch_add(1);
      }
    });
  }
  for (std::thread& thread : more) thread.join();
  EXPECT_EQ(taken.load(), 1000);
}

}  // namespace
}  // namespace medreact::server
