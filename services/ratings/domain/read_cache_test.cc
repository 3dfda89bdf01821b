#include "services/ratings/domain/read_cache.h"

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/testing/status_matchers.h"

namespace parlor::ratings {
namespace {

using ::parlor::testing::IsOkAndHolds;
using ::parlor::testing::StatusIs;

TEST(SingleFlightTest, ConcurrentMissesOfOneKeyShareOneLoad) {
  SingleFlight<std::string, int> flight;
  std::atomic<int> loads{0};
  std::atomic<int> shared{0};
  std::atomic<bool> release{false};
  constexpr int kCallers = 8;
  std::vector<absl::StatusOr<int>> results(kCallers, absl::UnknownError("not run"));
  std::vector<std::thread> threads;
  for (int i = 0; i < kCallers; ++i) {
    threads.emplace_back([&, i] {
      bool was_shared = false;
      results[i] = flight.Do(
          "k",
          [&]() -> absl::StatusOr<int> {
            ++loads;
            // Held until the test lets it end.
            while (!release.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
            return 42;
          },
          &was_shared);
      if (was_shared) ++shared;
    });
  }
  // The load is held until every other caller has joined it.
  while (flight.joined() < kCallers - 1) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(flight.in_flight(), 1u);
  release = true;
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(loads.load(), 1);
  EXPECT_EQ(shared.load(), kCallers - 1);
  for (const auto& r : results) EXPECT_THAT(r, IsOkAndHolds(42));
  EXPECT_EQ(flight.in_flight(), 0u);
}

TEST(SingleFlightTest, ErrorsAreSharedAndTheNextCallLoadsAgain) {
  SingleFlight<int, int> flight;
  int loads = 0;
  EXPECT_THAT(flight.Do(1,
                        [&]() -> absl::StatusOr<int> {
                          ++loads;
                          return absl::UnavailableError("down");
                        }),
              StatusIs(absl::StatusCode::kUnavailable, ::testing::HasSubstr("down")));
  // Nothing is remembered once a load has ended: caching is the loader's business.
  EXPECT_THAT(flight.Do(1,
                        [&]() -> absl::StatusOr<int> {
                          ++loads;
                          return 7;
                        }),
              IsOkAndHolds(7));
  EXPECT_EQ(loads, 2);
}

TEST(SingleFlightTest, DifferentKeysLoadIndependently) {
  SingleFlight<int, int> flight;
  std::atomic<bool> release{false};
  std::atomic<int> loads{0};
  std::thread a([&] {
    (void)flight.Do(1, [&]() -> absl::StatusOr<int> {
      ++loads;
      while (!release.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      return 1;
    });
  });
  while (loads.load() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  // Key 2 does not wait for key 1's load.
  EXPECT_THAT(flight.Do(2, [&]() -> absl::StatusOr<int> { return 2; }), IsOkAndHolds(2));
  release = true;
  a.join();
}

TEST(LruCacheTest, EvictsLeastRecentlyUsedByCost) {
  LruCache<int, std::string> cache(10);
  cache.Put(1, "a", 4);
  cache.Put(2, "b", 4);
  EXPECT_EQ(cache.Get(1), "a");  // 1 is now the most recently used
  cache.Put(3, "c", 4);          // 12 > 10: evicts 2
  EXPECT_EQ(cache.Get(2), std::nullopt);
  EXPECT_EQ(cache.Get(1), "a");
  EXPECT_EQ(cache.Get(3), "c");
  EXPECT_EQ(cache.cost(), 8u);
  EXPECT_EQ(cache.size(), 2u);
}

TEST(LruCacheTest, ReplacesAKeyAndRefusesWhatCannotFit) {
  LruCache<int, std::string> cache(10);
  cache.Put(1, "a", 3);
  cache.Put(1, "a2", 5);
  EXPECT_EQ(cache.Get(1), "a2");
  EXPECT_EQ(cache.cost(), 5u);
  cache.Put(2, "huge", 11);
  EXPECT_EQ(cache.Get(2), std::nullopt);
  EXPECT_EQ(cache.Get(1), "a2");
  cache.Erase(1);
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_EQ(cache.cost(), 0u);
  cache.Put(3, "c", 1);
  cache.Clear();
  EXPECT_EQ(cache.Get(3), std::nullopt);
  EXPECT_EQ(cache.cost(), 0u);
}

}  // namespace
}  // namespace parlor::ratings
