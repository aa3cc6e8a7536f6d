// CancellationToken and Deadline: how a caller asks work to stop.
//
// A CancellationToken is a shared flag: copies observe the same state, Cancel()
// is visible to all of them. It is thread-safe. A default-constructed token is
// a live token that simply has not been cancelled.
// A Deadline is a steady-clock instant; Deadline::Never() never expires.
#ifndef MEDREACT_CANCEL_H_
#define MEDREACT_CANCEL_H_

#include <atomic>
#include <chrono>
#include <memory>

namespace medreact {

using SteadyClock = std::chrono::steady_clock;
using Millis = std::chrono::milliseconds;

class CancellationToken {
 public:
  CancellationToken() : flag_(std::make_shared<std::atomic<bool>>(false)) {}
  void Cancel() const { flag_->store(true, std::memory_order_release); }
  bool cancelled() const { return flag_->load(std::memory_order_acquire); }

 private:
  std::shared_ptr<std::atomic<bool>> flag_;
};

class Deadline {
 public:
  static Deadline Never() { return Deadline(SteadyClock::time_point::max()); }
  static Deadline In(SteadyClock::duration d) {
    return d <= SteadyClock::duration::zero() ? Never() : Deadline(SteadyClock::now() + d);
  }
  static Deadline At(SteadyClock::time_point t) { return Deadline(t); }

  bool is_never() const { return at_ == SteadyClock::time_point::max(); }
  bool expired() const { return !is_never() && SteadyClock::now() >= at_; }
  SteadyClock::time_point at() const { return at_; }
  // Time left, clamped at zero; a large value for Never().
  Millis remaining() const {
    if (is_never()) return Millis(24LL * 3600 * 1000);
    auto left = std::chrono::duration_cast<Millis>(at_ - SteadyClock::now());
    return left.count() > 0 ? left : Millis(0);
  }
  // The earlier of two deadlines.
  static Deadline Earliest(Deadline a, Deadline b) { return a.at_ <= b.at_ ? a : b; }

 private:
  explicit Deadline(SteadyClock::time_point at) : at_(at) {}
  SteadyClock::time_point at_;
};

}  // namespace medreact

#endif  // MEDREACT_CANCEL_H_
