#include "engine/thread_pool.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

namespace medreact {

struct ThreadPool::Shared {
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::function<void()>> queue;
  bool stopping = false;
  int size = 1;
  std::vector<std::thread> workers;
  std::vector<std::shared_ptr<std::atomic<bool>>> busy;
};

namespace {

void WorkerLoop(std::shared_ptr<ThreadPool::Shared> shared, std::shared_ptr<std::atomic<bool>> busy);

}  // namespace

ThreadPool::ThreadPool(int threads) : shared_(std::make_shared<Shared>()) {
  shared_->size = threads < 1 ? 1 : threads;
}

ThreadPool::~ThreadPool() {
  std::vector<std::thread> workers;
  std::vector<std::shared_ptr<std::atomic<bool>>> busy;
  {
    std::lock_guard<std::mutex> lock(shared_->mu);
    shared_->stopping = true;
    shared_->queue.clear();
    workers.swap(shared_->workers);
    busy.swap(shared_->busy);
  }
  shared_->cv.notify_all();
  for (size_t i = 0; i < workers.size(); ++i) {
    // A worker still running a task (a hung tool) is let go; it exits when
    // its task returns and holds the shared state alive until then.
    if (busy[i]->load()) {
      workers[i].detach();
    } else {
      workers[i].join();
    }
  }
}

int ThreadPool::size() const { return shared_->size; }

void ThreadPool::Submit(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(shared_->mu);
    shared_->queue.push_back(std::move(task));
    if (static_cast<int>(shared_->workers.size()) < shared_->size) {
      auto busy = std::make_shared<std::atomic<bool>>(false);
      shared_->busy.push_back(busy);
      shared_->workers.emplace_back(WorkerLoop, shared_, busy);
    }
  }
  shared_->cv.notify_one();
}

namespace {

void WorkerLoop(std::shared_ptr<ThreadPool::Shared> shared, std::shared_ptr<std::atomic<bool>> busy) {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(shared->mu);
      shared->cv.wait(lock, [&] { return shared->stopping || !shared->queue.empty(); });
      if (shared->stopping) return;
      task = std::move(shared->queue.front());
      shared->queue.pop_front();
      busy->store(true);
    }
    task();
    busy->store(false);
  }
}

}  // namespace
}  // namespace medreact
