// ThreadPool over the process's shared workers: the per-pool bound, FIFO
// order, no deadlock when a task waits for another pool's task, and a
// destructor that never waits for a hung task. Proven with barriers, never
// with timings.
#include "engine/thread_pool.h"

#include <algorithm>
#include <condition_variable>
#include <future>
#include <memory>
#include <mutex>
#include <vector>

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

namespace medreact {
namespace {

// A gate tasks wait at until the test opens it.
struct Gate {
  std::mutex mu;
  std::condition_variable cv;
  bool open = false;
  int waiting = 0;

  void Wait() {
    std::unique_lock<std::mutex> lock(mu);
    ++waiting;
    cv.notify_all();
    cv.wait(lock, [&] { return open; });
  }
  void AwaitWaiting(int n) {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return waiting >= n; });
  }
  void Open() {
    std::lock_guard<std::mutex> lock(mu);
    open = true;
    cv.notify_all();
  }
};

TEST(ThreadPoolTest, RunsAtMostSizeTasksAtOnceInOrder) {
  auto gate = std::make_shared<Gate>();
  auto mu = std::make_shared<std::mutex>();
  auto order = std::make_shared<std::vector<int>>();
  auto running = std::make_shared<int>(0);
  auto most = std::make_shared<int>(0);
  std::vector<std::promise<void>> done(6);
  {
    ThreadPool pool(2);
    for (int i = 0; i < 6; ++i) {
      pool.Submit([=, &done] {
        {
          std::lock_guard<std::mutex> lock(*mu);
          order->push_back(i);
          *most = std::max(*most, ++*running);
        }
        gate->Wait();
        {
          std::lock_guard<std::mutex> lock(*mu);
          --*running;
        }
        done[i].set_value();
      });
    }
    gate->AwaitWaiting(2);  // the first two hold both slots
    {
      // Queued first, started first; the two workers may record them in either order.
      std::lock_guard<std::mutex> lock(*mu);
      std::vector<int> first = *order;
      std::sort(first.begin(), first.end());
      EXPECT_EQ(first, (std::vector<int>{0, 1}));
    }
    gate->Open();
    for (auto& d : done) d.get_future().wait();
  }
  EXPECT_EQ(*most, 2);
  std::sort(order->begin(), order->end());
  EXPECT_EQ(*order, (std::vector<int>{0, 1, 2, 3, 4, 5}));
}

TEST(ThreadPoolTest, ATaskMayWaitForATaskOfAnotherPool) {
  // A worklist case (one pool) waits for its agent's tool calls (another);
  // with every worker busy a new one starts instead of deadlocking.
  ThreadPool outer(1);
  ThreadPool inner(1);
  std::promise<int> result;
  outer.Submit([&] {
    std::promise<int> inner_result;
    inner.Submit([&] { inner_result.set_value(42); });
    result.set_value(inner_result.get_future().get());
  });
  EXPECT_EQ(result.get_future().get(), 42);
}

TEST(ThreadPoolTest, DestructorNeverWaitsForAHungTask) {
  auto gate = std::make_shared<Gate>();
  {
    ThreadPool pool(1);
    pool.Submit([gate] { gate->Wait(); });
    gate->AwaitWaiting(1);
  }  // returns while the task still waits
  gate->Open();
  // The abandoned task's worker is free again: another pool's task runs.
  ThreadPool next(1);
  std::promise<void> ran;
  next.Submit([&] { ran.set_value(); });
  ran.get_future().wait();
  EXPECT_GE(ThreadPool::ThreadsStarted(), 1u);
}

// A forked child has none of its parent's threads: its pools start workers
// of their own instead of queueing for the parent's (which would never run
// the task: a tool call in the child would wait for its timeout).
TEST(ThreadPoolTest, AForkedChildRunsTasksOnWorkersOfItsOwn) {
  auto gate = std::make_shared<Gate>();
  ThreadPool parent(2);
  parent.Submit([gate] { gate->Wait(); });  // a busy worker, and an idle one later
  gate->AwaitWaiting(1);
  {
    std::promise<void> ran;
    parent.Submit([&] { ran.set_value(); });
    ran.get_future().wait();
  }
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ThreadPool pool(1);
    std::promise<void> ran;
    pool.Submit([&] { ran.set_value(); });
    const bool ok = ran.get_future().wait_for(std::chrono::seconds(20)) == std::future_status::ready;
    ::_exit(ok ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  gate->Open();
}

}  // namespace
}  // namespace medreact
