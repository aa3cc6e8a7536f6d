// Even spacing of requests. See rate_limiter.h.
#include "tools/literature/rate_limiter.h"

#include <algorithm>
#include <chrono>
#include <utility>

namespace medreact {

RateLimiter::RateLimiter(double per_second, Clock now)
    : per_second_(per_second),
      interval_(std::chrono::duration_cast<SteadyClock::duration>(std::chrono::duration<double>(1.0 / per_second))),
      now_(now ? std::move(now) : Clock([] { return SteadyClock::now(); })) {}

Millis RateLimiter::Reserve() {
  const SteadyClock::time_point now = now_();
  std::lock_guard<std::mutex> lock(mu_);
  const SteadyClock::time_point slot = next_ ? std::max(now, *next_) : now;
  next_ = slot + interval_;
  return std::chrono::ceil<Millis>(slot - now);
}

}  // namespace medreact
