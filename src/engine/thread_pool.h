// ThreadPool: a fixed set of worker threads running submitted tasks in FIFO order.
//
// Used by the agent to run one turn's tool calls concurrently with a bound.
// A tool that hangs past its timeout keeps its worker busy; the agent stops
// waiting for it and records a timeout. The destructor therefore joins idle
// workers and detaches busy ones, so a hung tool can never hang the program's
// shutdown (tasks own their state through shared_ptr). Submit() is thread-safe.
#ifndef MEDREACT_ENGINE_THREAD_POOL_H_
#define MEDREACT_ENGINE_THREAD_POOL_H_

#include <functional>
#include <memory>

namespace medreact {

class ThreadPool {
 public:
  // REQUIRES: threads >= 1. Workers start lazily, on the first Submit.
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  void Submit(std::function<void()> task);
  int size() const;

  struct Shared;  // workers' shared state; defined in thread_pool.cc

 private:
  std::shared_ptr<Shared> shared_;
};

}  // namespace medreact

#endif  // MEDREACT_ENGINE_THREAD_POOL_H_
