#include "services/common/core/thread_pool.h"

#include <atomic>
#include <latch>

#include "gtest/gtest.h"

namespace parlor {
namespace {

TEST(ThreadPoolTest, RunsEverythingQueuedBeforeShutdown) {
  std::atomic<int> ran{0};
  {
    ThreadPool pool("test", 2, 1000);
    for (int i = 0; i < 100; ++i) ASSERT_TRUE(pool.TrySubmit([&] { ran++; }));
  }
  EXPECT_EQ(ran.load(), 100);
}

TEST(ThreadPoolTest, RefusesWorkBeyondTheQueueBound) {
  ThreadPool pool("test", 1, 1);
  std::latch started(1);
  std::latch release(1);
  ASSERT_TRUE(pool.TrySubmit([&] {
    started.count_down();
    release.wait();
  }));
  started.wait();
  EXPECT_TRUE(pool.TrySubmit([] {}));   // fills the single queue slot
  EXPECT_FALSE(pool.TrySubmit([] {}));  // overload is refused, not buffered
  release.count_down();
  pool.Shutdown();
  EXPECT_FALSE(pool.TrySubmit([] {}));
}

}  // namespace
}  // namespace parlor
