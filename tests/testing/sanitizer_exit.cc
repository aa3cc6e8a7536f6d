// Under AddressSanitizer: a report a worker thread starts while the test's
// main thread is exiting is finished, not cut off. ASan prints a report's
// header, then symbolises its stacks (a child process: slow); a main thread
// that returns meanwhile ends the process with the test's own exit code, so
// the test passes and the log holds a header with no stack (it happened:
// docs/reliability.md, "Sanitizers"). This exit hook, registered before any
// other and so run after every static destructor, waits while a report is
// under way; the reporting thread then ends the process with the
// sanitizer's exit code. While the process's pool workers still run tasks
// (a hung tool, a request a stopped server left), it first watches them for
// a moment, so a report one of them starts during the exit is not lost
// either. No report and no busy worker: it returns at once.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MEDREACT_TEST_ASAN 1
#endif
#endif

#ifdef MEDREACT_TEST_ASAN
#include <sanitizer/asan_interface.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "engine/thread_pool.h"

namespace {

void WaitForAReportUnderWay() {
  for (int i = 0; i < 50 && !__asan_report_present() && medreact::ThreadPool::WorkersBusy() > 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(4));
  }
  if (!__asan_report_present()) return;
  // The reporter calls exit with ASan's exit code when it is done; this
  // only keeps the process alive until then.
  std::this_thread::sleep_for(std::chrono::seconds(30));
}

__attribute__((constructor(101))) void RegisterFirst() { std::atexit(WaitForAReportUnderWay); }

}  // namespace
#endif
