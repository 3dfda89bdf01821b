#include "services/common/core/periodic_loop.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>

#include "gtest/gtest.h"

namespace parlor {
namespace {

// Counts ticks and lets a test wait for the n-th one.
struct Ticks {
  void Tick() {
    std::lock_guard<std::mutex> lock(mu);
    ++count;
    cv.notify_all();
  }
  bool WaitFor(int n) {
    std::unique_lock<std::mutex> lock(mu);
    return cv.wait_for(lock, std::chrono::seconds(30), [&] { return count >= n; });
  }
  std::mutex mu;
  std::condition_variable cv;
  int count = 0;
};

TEST(PeriodicLoopTest, AWokenLoopTicksBeforeItsInterval) {
  Ticks ticks;
  PeriodicLoop loop("test-loop", absl::Hours(1), [&ticks] { ticks.Tick(); });
  loop.Wake();
  EXPECT_TRUE(ticks.WaitFor(1));
  loop.Wake();
  EXPECT_TRUE(ticks.WaitFor(2));
}

TEST(PeriodicLoopTest, ALoopTicksEveryIntervalUnwoken) {
  Ticks ticks;
  PeriodicLoop loop("test-loop", absl::Milliseconds(1), [&ticks] { ticks.Tick(); });
  EXPECT_TRUE(ticks.WaitFor(3));
}

TEST(PeriodicLoopTest, ALoopWithoutAnIntervalNeverTicks) {
  std::atomic<int> ticks{0};
  {
    PeriodicLoop loop("test-loop", absl::ZeroDuration(), [&ticks] { ++ticks; });
    loop.Wake();
  }
  EXPECT_EQ(ticks.load(), 0);
}

TEST(PeriodicLoopTest, DestroyingALoopWaitsForItsRunningTick) {
  std::atomic<bool> started{false};
  std::atomic<bool> finished{false};
  {
    PeriodicLoop loop("test-loop", absl::Hours(1), [&] {
      started = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      finished = true;
    });
    loop.Wake();
    while (!started) std::this_thread::yield();
  }
  EXPECT_TRUE(finished.load());
}

}  // namespace
}  // namespace parlor
