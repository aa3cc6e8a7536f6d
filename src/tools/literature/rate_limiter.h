// RateLimiter: spaces requests to one service at most `per_second` apart.
//
// Each Reserve() takes the next free slot (now, or one interval after the
// previous slot) and returns how long the caller must wait before sending;
// the caller does the waiting (cancellably), so the limiter never sleeps and
// is tested with a fake clock. Requests are spaced evenly rather than let
// through in bursts, as Biopython's Bio.Entrez does for NCBI (0.333 s, or
// 0.1 s with an API key). A slot taken and then not used (the caller was
// cancelled while waiting) is simply lost. Thread-safe.
#ifndef MEDREACT_TOOLS_LITERATURE_RATE_LIMITER_H_
#define MEDREACT_TOOLS_LITERATURE_RATE_LIMITER_H_

#include <functional>
#include <mutex>
#include <optional>

#include "medreact/cancel.h"

namespace medreact {

class RateLimiter {
 public:
  using Clock = std::function<SteadyClock::time_point()>;

  // REQUIRES: per_second > 0. `now` Default: SteadyClock::now.
  explicit RateLimiter(double per_second, Clock now = {});

  // Takes the next slot; the wait before it (zero when the slot is now),
  // rounded up to whole milliseconds.
  Millis Reserve();

  double per_second() const { return per_second_; }

 private:
  const double per_second_;
  const SteadyClock::duration interval_;
  Clock now_;
  std::mutex mu_;
  std::optional<SteadyClock::time_point> next_;  // earliest time of the next slot
};

}  // namespace medreact

#endif  // MEDREACT_TOOLS_LITERATURE_RATE_LIMITER_H_
