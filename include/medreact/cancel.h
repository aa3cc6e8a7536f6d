// CancellationToken and Deadline: how a caller asks work to stop.
//
// A CancellationToken is a shared flag: copies observe the same state, Cancel()
// is visible to all of them and wakes whoever waits on it. It is thread-safe. A default-constructed token is
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
  CancellationToken();
  // Async-signal-safe: an atomic store and, when someone may be waiting, one
  // write(2) to an eventfd. Wakes every WaitFor() and every poll on
  // wake_fd() at once.
  void Cancel() const;
  bool cancelled() const { return state_->cancelled.load(std::memory_order_seq_cst); }
  // Sleeps for `d` or until cancelled, whichever comes first; no polling.
  // Returns cancelled().
  bool WaitFor(Millis d) const;
  // A file descriptor that becomes (and stays) readable when the token is
  // cancelled, for poll()-based waits (the HTTP transport). Created on first
  // use; -1 only if the system refuses an eventfd (then callers poll).
  // Never read it: it stays readable so every waiter sees it.
  int wake_fd() const;

 private:
  struct State {
    std::atomic<bool> cancelled{false};
    std::atomic<int> fd{-1};
    ~State();
  };
  std::shared_ptr<State> state_;
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
