// CancellationToken: an atomic flag plus, once somebody waits, an eventfd that
// Cancel() writes to. Waiting is then a poll(2) on that descriptor: a run
// waiting for a model or a retry costs no CPU until it is woken, instead of
// waking every few milliseconds to look at the flag.
//
// Ordering: Cancel() stores the flag, then loads the descriptor; a waiter
// creates (or loads) the descriptor, then loads the flag, then polls. Both
// sides use sequentially consistent operations, so either the waiter sees the
// flag or Cancel() sees the descriptor and its write wakes the poll.
#include "medreact/cancel.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

namespace medreact {

static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free,
              "Cancel() must be async-signal-safe");

CancellationToken::CancellationToken() : state_(std::make_shared<State>()) {}

CancellationToken::State::~State() {
  const int f = fd.load();
  if (f >= 0) ::close(f);
}

void CancellationToken::Cancel() const {
  state_->cancelled.store(true);
  const int f = state_->fd.load();
  if (f >= 0) {
    const uint64_t one = 1;
    [[maybe_unused]] ssize_t n = ::write(f, &one, sizeof one);  // signal-safe; full counter is harmless
  }
}

int CancellationToken::wake_fd() const {
  int f = state_->fd.load();
  if (f >= 0) return f;
  const int created = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (created < 0) return -1;
  int expected = -1;
  if (!state_->fd.compare_exchange_strong(expected, created)) {
    ::close(created);  // another thread made one first
    f = expected;
  } else {
    f = created;
  }
  // The flag may have been set before the descriptor existed: make it readable.
  if (state_->cancelled.load()) {
    const uint64_t one = 1;
    [[maybe_unused]] ssize_t n = ::write(f, &one, sizeof one);
  }
  return f;
}

bool CancellationToken::WaitFor(Millis d) const {
  const auto until = SteadyClock::now() + d;
  const int f = wake_fd();
  while (!cancelled()) {
    const auto left = std::chrono::duration_cast<Millis>(until - SteadyClock::now());
    if (left <= Millis(0)) break;
    if (f < 0) {  // no eventfd: sleep in slices
      struct timespec ts{0, 20'000'000};
      if (left < Millis(20)) ts.tv_nsec = static_cast<long>(left.count()) * 1'000'000;
      ::nanosleep(&ts, nullptr);
      continue;
    }
    struct pollfd p{f, POLLIN, 0};
    const long long ms = left.count() > 3'600'000 ? 3'600'000 : left.count();
    const int r = ::poll(&p, 1, static_cast<int>(ms) + 1);  // +1: poll rounds down, never wake early
    if (r < 0 && errno != EINTR) break;
  }
  return cancelled();
}

}  // namespace medreact
