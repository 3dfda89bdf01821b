#include "services/sessions/store/versioned_cache.h"

#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace parlor::sessions {
namespace {

TEST(VersionedCacheTest, KeepsTheNewestVersionOfEachGame) {
  SnapshotCache cache(100);
  EXPECT_FALSE(cache.Get("g1").has_value());
  cache.Put("g1", 3, std::make_shared<const std::string>("three"));
  cache.Put("g1", 5, std::make_shared<const std::string>("five"));
  // An older commit that finishes reporting after a newer one does not replace it.
  cache.Put("g1", 4, std::make_shared<const std::string>("four"));
  ASSERT_TRUE(cache.Get("g1").has_value());
  EXPECT_EQ(cache.Get("g1")->version, 5);
  EXPECT_EQ(*cache.Get("g1")->value, "five");
  EXPECT_EQ(*cache.Get("g1", 5), "five");
  // A value is only handed out for the version it was made from.
  EXPECT_EQ(cache.Get("g1", 4), nullptr);
  cache.Erase("g1");
  EXPECT_FALSE(cache.Get("g1").has_value());
}

TEST(VersionedCacheTest, StaysWithinItsBound) {
  SnapshotCache cache(64);
  for (int i = 0; i < 10000; ++i)
    cache.Put("game-" + std::to_string(i), 1, std::make_shared<const std::string>("x"));
  // 16 shards of ceil(64 / 16) = 4 entries each.
  EXPECT_LE(cache.size(), 64u);
  EXPECT_GT(cache.size(), 0u);
}

TEST(VersionedCacheTest, ZeroEntriesTurnsItOff) {
  SnapshotCache cache(0);
  cache.Put("g1", 1, std::make_shared<const std::string>("one"));
  EXPECT_FALSE(cache.Get("g1").has_value());
  EXPECT_EQ(cache.size(), 0u);
}

TEST(VersionedCacheTest, AnEntryOutlivesItsEvictionWhileInUse) {
  SnapshotCache cache(16);
  cache.Put("g1", 1, std::make_shared<const std::string>("one"));
  const std::optional<SnapshotCache::Entry> held = cache.Get("g1");
  for (int i = 0; i < 1000; ++i)
    cache.Put("other-" + std::to_string(i), 1, std::make_shared<const std::string>("x"));
  ASSERT_TRUE(held.has_value());
  EXPECT_EQ(*held->value, "one");
}

}  // namespace
}  // namespace parlor::sessions
