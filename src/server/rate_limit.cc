// Per-client token buckets with least-recently-seen eviction: see rate_limit.h.
#include "server/rate_limit.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace medreact::server {
namespace {

bool ValidRate(double v) { return std::isfinite(v) && v > 0; }
bool ValidBurst(double v) { return std::isfinite(v) && v >= 1; }

std::string_view Key(std::string_view client) { return client.substr(0, kMaxClientKeyBytes); }

// b - a in seconds, computed in double: the integer difference of two
// extreme time points (min() and max()) would overflow.
double SecondsBetween(RateLimiter::Clock::time_point a, RateLimiter::Clock::time_point b) {
  using Seconds = std::chrono::duration<double>;
  return Seconds(b.time_since_epoch()).count() - Seconds(a.time_since_epoch()).count();
}

}  // namespace

Status CheckRateLimitOptions(const RateLimitOptions& options) {
  if (!ValidRate(options.per_second)) {
    return Status::InvalidArgument("rate limit per_second must be a finite number above 0");
  }
  if (!ValidBurst(options.burst)) return Status::InvalidArgument("rate limit burst must be a finite number >= 1");
  if (options.max_clients < 1) return Status::InvalidArgument("rate limit max_clients must be at least 1");
  return Status::OK();
}

RateLimiter::RateLimiter(RateLimitOptions options) : options_(options) {
  const RateLimitOptions defaults;
  if (!ValidRate(options_.per_second)) options_.per_second = defaults.per_second;
  if (!ValidBurst(options_.burst)) options_.burst = defaults.burst;
  if (options_.max_clients < 1) options_.max_clients = defaults.max_clients;
}

double RateLimiter::TokensAt(const Bucket& bucket, Clock::time_point now) const {
  const double elapsed = std::max(0.0, SecondsBetween(bucket.last, now));
  return std::min(options_.burst, bucket.tokens + elapsed * options_.per_second);
}

bool RateLimiter::Allow(std::string_view client, Clock::time_point now) {
  const std::string key(Key(client));
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = buckets_.find(key);
  if (it == buckets_.end()) {
    if (buckets_.size() >= options_.max_clients) {  // evict the least recently seen
      buckets_.erase(lru_.back());
      lru_.pop_back();
    }
    lru_.push_front(key);
    it = buckets_.emplace(key, Bucket{options_.burst, now, lru_.begin()}).first;
  } else {
    lru_.splice(lru_.begin(), lru_, it->second.lru);
  }
  Bucket& bucket = it->second;
  bucket.tokens = TokensAt(bucket, now);
  bucket.last = std::max(bucket.last, now);
  if (bucket.tokens < 1) return false;
  bucket.tokens -= 1;
  return true;
}

double RateLimiter::RetryAfterSeconds(std::string_view client, Clock::time_point now) const {
  const std::string key(Key(client));
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = buckets_.find(key);
  if (it == buckets_.end()) return 0;
  const double tokens = TokensAt(it->second, now);
  if (tokens >= 1) return 0;
  // Time counts from the bucket's own clock when `now` is behind it.
  const double behind = std::max(0.0, SecondsBetween(now, it->second.last));
  return behind + (1 - tokens) / options_.per_second;
}

size_t RateLimiter::ClientCount() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return buckets_.size();
}

}  // namespace medreact::server
