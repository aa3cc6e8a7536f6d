#include "cli/interrupt.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <mutex>

namespace medreact::cli {
namespace {

// Set before the handlers are installed and never destroyed, so the handler
// only reads the pointer and stores to a lock-free atomic (async-signal-safe).
const CancellationToken* g_token = nullptr;
volatile sig_atomic_t g_signal = 0;

static_assert(std::atomic<bool>::is_always_lock_free, "Cancel() must be async-signal-safe");

void OnSignal(int signo) {
  if (g_signal != 0) {  // the second one: the user insists
    ::signal(signo, SIG_DFL);
    ::raise(signo);
    return;
  }
  g_signal = signo;
  g_token->Cancel();
  static const char kMessage[] =
      "\nmedreact: interrupted; stopping the run and writing what it has (press again to quit at once)\n";
  [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
}

}  // namespace

const CancellationToken& InstallInterruptHandlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    g_token = new CancellationToken();
    struct sigaction action {};
    action.sa_handler = &OnSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    ::sigaction(SIGINT, &action, nullptr);
    ::sigaction(SIGTERM, &action, nullptr);
  });
  return *g_token;
}

int InterruptSignal() { return g_signal; }

int ExitCodeAfterInterrupt(int exit_code) { return g_signal != 0 ? 128 + g_signal : exit_code; }

}  // namespace medreact::cli
