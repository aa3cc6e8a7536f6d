#include "engine/thread_pool.h"

#include <pthread.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <new>
#include <thread>
#include <utility>

namespace medreact {

struct ThreadPool::Shared {
  std::mutex mu;
  std::deque<std::function<void()>> queue;  // waiting for a free slot of the bound
  int size = 1;
  int running = 0;  // tasks of this pool on workers; the queue is non-empty only at `size`
  bool stopping = false;
};

namespace {

// How long an idle worker waits for work before it exits: long enough that
// the runs of a busy process (a server, a worklist, a benchmark) reuse
// workers, short enough that an idle process does not keep them.
constexpr std::chrono::seconds kIdleExit{30};

std::atomic<uint64_t> g_threads_started{0};
std::atomic<int> g_workers_busy{0};

// The process's workers. Never destroyed: a worker may still be running an
// abandoned tool when main() returns, and must not find its mutex gone.
//
// Fork-safe: a child process of a forked program has none of its parent's
// threads, so the child starts with no workers and no jobs (pthread_atfork
// holds the lock across the fork, so the child never inherits it held).
class Workers {
 public:
  static Workers& Get() {
    static Workers* const workers = [] {
      auto* w = new Workers();
      pthread_atfork([] { Get().mu_.lock(); }, [] { Get().mu_.unlock(); }, [] { Get().AfterForkInChild(); });
      return w;
    }();
    return *workers;
  }

  void Run(std::function<void()> job) {
    std::lock_guard<std::mutex> lock(mu_);
    // Each idle worker takes one queued job when it wakes; start one more when
    // the jobs would outnumber them. A new worker counts as idle at once, so a
    // burst starts exactly the workers it needs.
    if (jobs_.size() + 1 > idle_) {
      std::thread(&Workers::Loop, this).detach();  // may throw: nothing is queued yet
      g_threads_started.fetch_add(1, std::memory_order_relaxed);
      ++idle_;
    }
    jobs_.push_back(std::move(job));
    cv_.notify_one();
  }

 private:
  void Loop() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      const bool have_job = cv_.wait_for(lock, kIdleExit, [&] { return !jobs_.empty(); });
      --idle_;
      if (!have_job) return;
      std::function<void()> job = std::move(jobs_.front());
      jobs_.pop_front();
      lock.unlock();
      g_workers_busy.fetch_add(1, std::memory_order_relaxed);
      job();
      job = nullptr;  // release what the job holds before waiting again
      g_workers_busy.fetch_sub(1, std::memory_order_relaxed);
      lock.lock();
      ++idle_;
    }
  }

  // The child of a fork: its parent's workers are not here. Their jobs are
  // the parent's and are left behind (never run, never destroyed: what they
  // hold belongs to threads this process does not have).
  void AfterForkInChild() {
    new (&cv_) std::condition_variable();  // its waiters were the parent's threads
    new std::deque<std::function<void()>>(std::move(jobs_));
    jobs_.clear();
    idle_ = 0;
    mu_.unlock();
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  size_t idle_ = 0;  // workers waiting for a job, or started and not yet waiting
};

// Runs `task`, then the pool's queued tasks, on one worker, until the queue
// is empty or the pool is gone.
void Drain(const std::shared_ptr<ThreadPool::Shared>& shared, std::function<void()> task) {
  for (;;) {
    task();
    task = nullptr;
    std::lock_guard<std::mutex> lock(shared->mu);
    if (shared->stopping || shared->queue.empty()) {
      --shared->running;
      return;
    }
    task = std::move(shared->queue.front());
    shared->queue.pop_front();
  }
}

}  // namespace

ThreadPool::ThreadPool(int threads) : shared_(std::make_shared<Shared>()) {
  shared_->size = threads < 1 ? 1 : threads;
}

ThreadPool::~ThreadPool() {
  std::deque<std::function<void()>> dropped;
  std::lock_guard<std::mutex> lock(shared_->mu);
  shared_->stopping = true;
  dropped.swap(shared_->queue);
}

int ThreadPool::size() const { return shared_->size; }

uint64_t ThreadPool::ThreadsStarted() { return g_threads_started.load(std::memory_order_relaxed); }

int ThreadPool::WorkersBusy() { return g_workers_busy.load(std::memory_order_relaxed); }

void ThreadPool::Submit(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(shared_->mu);
    if (shared_->running >= shared_->size) {
      shared_->queue.push_back(std::move(task));
      return;
    }
    ++shared_->running;
  }
  try {
    Workers::Get().Run([shared = shared_, task = std::move(task)]() mutable { Drain(shared, std::move(task)); });
  } catch (...) {
    std::lock_guard<std::mutex> lock(shared_->mu);
    --shared_->running;
    throw;
  }
}

}  // namespace medreact
