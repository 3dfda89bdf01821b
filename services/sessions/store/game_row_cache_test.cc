#include "services/sessions/store/game_row_cache.h"

#include <cstdint>
#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace parlor::sessions {
namespace {

std::shared_ptr<const GameRow> RowAt(int64_t version) {
  auto row = std::make_shared<GameRow>();
  row->version = version;
  return row;
}

TEST(GameRowCacheTest, TheStampIsTheTransactionIdWithoutItsEpoch) {
  // txid_current() counts wraparounds of the 32-bit id above it; a row's xmin shows the id alone.
  EXPECT_EQ(GameRowCache::Xid((uint64_t{3} << 32) | 1234), 1234u);
}

TEST(GameRowCacheTest, KeepsTheRowOfTheNewestWrite) {
  GameRowCache cache(100);
  EXPECT_FALSE(cache.ToCheck("g1").has_value());
  cache.Put("g1", 10, RowAt(3));
  cache.Put("g1", 20, RowAt(5));
  // A commit that reports after a newer one does not replace it.
  cache.Put("g1", 15, RowAt(4));
  ASSERT_TRUE(cache.ToCheck("g1").has_value());
  EXPECT_EQ(cache.ToCheck("g1")->txid, 20u);
  EXPECT_EQ(cache.ToCheck("g1")->row->version, 5);
}

TEST(GameRowCacheTest, AGameWrittenElsewhereIsReadWholeUntilItsRowIsThisServersAgain) {
  GameRowCache cache(100);
  cache.Put("g1", 20, RowAt(5));
  // Another replica moved: the stored row carries its transaction and the next version.
  cache.Saw("g1", 31, 6);
  EXPECT_FALSE(cache.ToCheck("g1").has_value());
  // This server's next write does not make the stamp worth checking by itself: the other replica
  // may write again before the next read.
  cache.Put("g1", 40, RowAt(7));
  EXPECT_FALSE(cache.ToCheck("g1").has_value());
  // A whole read found the row of that write: the stamp is checked again.
  cache.Saw("g1", 40, 7);
  ASSERT_TRUE(cache.ToCheck("g1").has_value());
  EXPECT_EQ(cache.ToCheck("g1")->row->version, 7);
}

TEST(GameRowCacheTest, AMatchingIdOfAnotherVersionIsNoMatch) {
  GameRowCache cache(100);
  cache.Put("g1", 20, RowAt(5));
  cache.Saw("g1", 20, 6);
  EXPECT_FALSE(cache.ToCheck("g1").has_value());
}

TEST(GameRowCacheTest, StaysWithinItsBoundAndZeroTurnsItOff) {
  GameRowCache cache(64);
  for (int i = 0; i < 10000; ++i) cache.Put("game-" + std::to_string(i), 1, RowAt(1));
  EXPECT_LE(cache.size(), 64u);
  EXPECT_GT(cache.size(), 0u);
  GameRowCache off(0);
  off.Put("g1", 1, RowAt(1));
  EXPECT_FALSE(off.ToCheck("g1").has_value());
  EXPECT_EQ(off.size(), 0u);
}

}  // namespace
}  // namespace parlor::sessions
