// A per-client token bucket for the server's requests, with no socket and no
// clock of its own: the caller passes `now` (a steady clock's time point), so
// tests drive time by hand.
//
// Each client (an address, or whatever key the caller chooses) has a bucket
// of `burst` tokens, refilled at `per_second` tokens a second up to `burst`;
// a request takes one token or is refused. A new client starts full. Memory
// is bounded: at most `max_clients` buckets; a new client beyond that evicts
// the one seen least recently (a client evicted comes back with a full bucket:
// the cap trades exactness for memory under an address flood). Keys longer
// than kMaxClientKeyBytes are cut to that length. Time that goes backwards
// refills nothing. Thread-safe (one mutex; every call is O(1) on average).
#ifndef MEDREACT_SERVER_RATE_LIMIT_H_
#define MEDREACT_SERVER_RATE_LIMIT_H_

#include <chrono>
#include <cstddef>
#include <list>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "medreact/status.h"

namespace medreact::server {

struct RateLimitOptions {
  // Tokens added per second (finite, > 0). Default: 20.
  double per_second = 20;
  // Bucket size: the longest run of requests allowed at once (finite, >= 1). Default: 40.
  double burst = 40;
  // Buckets kept; the least recently seen is evicted past it (>= 1). Default: 10000.
  size_t max_clients = 10000;
};

// InvalidArgument naming the field when `options` is outside the ranges
// above (for checking flags before the server starts).
Status CheckRateLimitOptions(const RateLimitOptions& options);

inline constexpr size_t kMaxClientKeyBytes = 256;

class RateLimiter {
 public:
  using Clock = std::chrono::steady_clock;

  // A field outside its range (see CheckRateLimitOptions) is replaced by its
  // default, so a limiter never divides by zero or stores NaN.
  explicit RateLimiter(RateLimitOptions options = {});
  RateLimiter(const RateLimiter&) = delete;
  RateLimiter& operator=(const RateLimiter&) = delete;

  // Takes one token from `client`'s bucket: true when there was one.
  bool Allow(std::string_view client, Clock::time_point now);

  // Seconds until `client` has a token again: 0 when it has one now (or is
  // unknown). Rounded up by the caller for a Retry-After header. Changes nothing.
  double RetryAfterSeconds(std::string_view client, Clock::time_point now) const;

  // Buckets held now (<= max_clients).
  size_t ClientCount() const;

  // The options in use (after the replacement of invalid fields).
  const RateLimitOptions& options() const { return options_; }

 private:
  struct Bucket {
    double tokens = 0;
    Clock::time_point last;                // the time `tokens` was computed at
    std::list<std::string>::iterator lru;  // its place in lru_ (front: most recent)
  };

  // `bucket`'s tokens at `now` (not stored).
  double TokensAt(const Bucket& bucket, Clock::time_point now) const;

  RateLimitOptions options_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Bucket> buckets_;  // guarded by mutex_
  std::list<std::string> lru_;                       // guarded by mutex_; keys, most recently seen first
};

}  // namespace medreact::server

#endif  // MEDREACT_SERVER_RATE_LIMIT_H_
