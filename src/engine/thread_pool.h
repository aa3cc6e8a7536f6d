// ThreadPool: runs submitted tasks in FIFO order, at most `threads` of them at
// once, on the process's shared worker threads.
//
// A pool is a bound and a queue, not a set of threads. The workers belong to
// the process and are reused by every pool: an agent run (a pool per run, for
// one turn's tool calls) or a worklist (a pool for its cases) starts no thread
// when a worker is idle, and starting threads was most of the CPU cost of a
// short run. When every worker is busy a new one starts, so a task that waits
// for tasks of another pool (a worklist case whose agent runs tools) never
// deadlocks; a worker left idle for a while exits, so an idle process keeps
// none for long.
//
// A tool that hangs past its timeout keeps its worker busy; the agent stops
// waiting for it and records a timeout. The destructor therefore never waits:
// it drops the queued tasks, and running ones finish on their worker (tasks own
// their state through shared_ptr), so a hung tool can never hang the program's
// shutdown. A hung task still counts against its pool's bound while the pool
// lives, as it held one of the pool's threads before. Submit() is thread-safe.
#ifndef MEDREACT_ENGINE_THREAD_POOL_H_
#define MEDREACT_ENGINE_THREAD_POOL_H_

#include <cstdint>
#include <functional>
#include <memory>

namespace medreact {

class ThreadPool {
 public:
  // REQUIRES: threads >= 1 (less is read as 1).
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Throws std::system_error only when no worker is idle and the system
  // refuses a new thread (the task is then not queued).
  void Submit(std::function<void()> task);
  int size() const;

  // Worker threads started by the process so far (for benchmarks and logs).
  static uint64_t ThreadsStarted();
  // Workers running a task now, of every pool (a hung tool's included): what
  // may still run when main() returns (the tests' exit hook waits for a
  // sanitizer report from one of them).
  static int WorkersBusy();

  struct Shared;  // the pool's queue and bound; defined in thread_pool.cc

 private:
  std::shared_ptr<Shared> shared_;
};

}  // namespace medreact

#endif  // MEDREACT_ENGINE_THREAD_POOL_H_
