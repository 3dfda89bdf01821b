#include "services/common/core/thread_pool.h"

#include <atomic>
#include <latch>
#include <set>
#include <string>
#include <thread>

#include "gtest/gtest.h"
#include "services/common/core/thread_name.h"

namespace parlor {
namespace {

// Hands `pool` a task that holds its worker until `release` counts down; returns once it runs.
void HoldAWorker(ThreadPool& pool, std::latch& release) {
  std::latch started(1);
  ASSERT_TRUE(pool.TrySubmit([&started, &release] {
    started.count_down();
    release.wait();
  }));
  started.wait();
}

TEST(ThreadPoolTest, RunsEverythingQueuedBeforeShutdown) {
  std::atomic<int> ran{0};
  {
    ThreadPool pool("test", 2, 1000);
    for (int i = 0; i < 100; ++i) ASSERT_TRUE(pool.TrySubmit([&] { ran++; }));
  }
  EXPECT_EQ(ran.load(), 100);
}

TEST(ThreadPoolTest, NamesItsThreadsSoThatProfilesTellThemApart) {
  std::string seen;
  {
    ThreadPool pool("rpc-workers-of-a-long-name", 1, 10);
    ASSERT_TRUE(pool.TrySubmit([&] { seen = ThisThreadName(); }));
  }
  EXPECT_EQ(seen, "rpc-workers-of-");  // Linux keeps 15 bytes of a thread's name
}

// One task at a time, each handed in once every worker is idle: all of them run on the worker
// that went idle last, so one thread stays warm instead of the pool passing work round all of its
// threads.
TEST(ThreadPoolTest, GivesWorkToTheWorkerIdleShortest) {
  constexpr int kWorkers = 8;
  ThreadPool pool("test", kWorkers, 100);
  std::set<std::thread::id> ran_on;
  for (int i = 0; i < 20; ++i) {
    while (pool.idle() < kWorkers) std::this_thread::yield();
    std::latch done(1);
    ASSERT_TRUE(pool.TrySubmit([&] {
      ran_on.insert(std::this_thread::get_id());
      done.count_down();
    }));
    done.wait();
  }
  EXPECT_EQ(ran_on.size(), 1u);
}

TEST(ThreadPoolTest, WakesAnIdleWorkerWhileAnotherIsBusy) {
  ThreadPool pool("test", 2, 100);
  std::latch release(1);
  HoldAWorker(pool, release);
  std::latch second(1);
  ASSERT_TRUE(pool.TrySubmit([&] { second.count_down(); }));
  second.wait();  // ran on the other worker while the first still holds its task
  release.count_down();
}

TEST(ThreadPoolTest, RefusesWorkBeyondTheQueueBound) {
  ThreadPool pool("test", 1, 1);
  std::latch release(1);
  HoldAWorker(pool, release);
  EXPECT_TRUE(pool.TrySubmit([] {}));   // fills the single queue slot
  EXPECT_FALSE(pool.TrySubmit([] {}));  // overload is refused, not buffered
  release.count_down();
  pool.Shutdown();
  EXPECT_FALSE(pool.TrySubmit([] {}));
}

}  // namespace
}  // namespace parlor
