#include "services/sessions/store/snapshot_cache.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace parlor::sessions {
namespace {

TEST(SnapshotCacheTest, KeepsTheNewestVersionOfEachGame) {
  SnapshotCache cache(100);
  EXPECT_FALSE(cache.Get("g1").has_value());
  cache.Put("g1", 3, "three");
  cache.Put("g1", 5, "five");
  // An older commit that finishes reporting after a newer one does not replace it.
  cache.Put("g1", 4, "four");
  ASSERT_TRUE(cache.Get("g1").has_value());
  EXPECT_EQ(cache.Get("g1")->version, 5);
  EXPECT_EQ(*cache.Get("g1")->snapshot, "five");
  cache.Erase("g1");
  EXPECT_FALSE(cache.Get("g1").has_value());
}

TEST(SnapshotCacheTest, StaysWithinItsBound) {
  SnapshotCache cache(64);
  for (int i = 0; i < 10000; ++i) cache.Put("game-" + std::to_string(i), 1, "x");
  // 16 shards of ceil(64 / 16) = 4 entries each.
  EXPECT_LE(cache.size(), 64u);
  EXPECT_GT(cache.size(), 0u);
}

TEST(SnapshotCacheTest, ZeroEntriesTurnsItOff) {
  SnapshotCache cache(0);
  cache.Put("g1", 1, "one");
  EXPECT_FALSE(cache.Get("g1").has_value());
  EXPECT_EQ(cache.size(), 0u);
}

TEST(SnapshotCacheTest, AnEntryOutlivesItsEvictionWhileInUse) {
  SnapshotCache cache(16);
  cache.Put("g1", 1, "one");
  const std::optional<SnapshotCache::Entry> held = cache.Get("g1");
  for (int i = 0; i < 1000; ++i) cache.Put("other-" + std::to_string(i), 1, "x");
  ASSERT_TRUE(held.has_value());
  EXPECT_EQ(*held->snapshot, "one");
}

}  // namespace
}  // namespace parlor::sessions
