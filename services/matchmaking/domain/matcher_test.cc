#include "services/matchmaking/domain/matcher.h"

#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace parlor::matchmaking {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;
using ::testing::UnorderedElementsAre;

const absl::Time kT0 = absl::FromUnixSeconds(1'800'000'000);

PoolTicket Solo(std::string player, double rating, absl::Time enqueued,
                std::vector<int> counts = {2}) {
  return PoolTicket{.players = {std::move(player)},
                    .rating = rating,
                    .enqueue_time = enqueued,
                    .player_counts = std::move(counts)};
}

Pool TwoPlayer(bool ranked) {
  Pool pool;
  pool.ranked = ranked;
  pool.seat_teams[2] = {0, 1};
  return pool;
}

TEST(RatingWindowTest, WidensThenUnbounded) {
  MatcherConfig config;
  EXPECT_DOUBLE_EQ(RatingWindow(config, absl::ZeroDuration()), 100);
  EXPECT_DOUBLE_EQ(RatingWindow(config, absl::Minutes(2)), 200);
  EXPECT_DOUBLE_EQ(RatingWindow(config, absl::Seconds(90)), 175);
  EXPECT_TRUE(std::isinf(RatingWindow(config, absl::Minutes(10))));
}

TEST(MatcherTest, CasualPairsOldestFirst) {
  Pool pool = TwoPlayer(false);
  pool.tickets = {Solo("c", 0, kT0 + absl::Seconds(3)), Solo("a", 0, kT0 + absl::Seconds(1)),
                  Solo("b", 0, kT0 + absl::Seconds(2))};
  std::vector<Table> tables = MatchPool(pool, kT0 + absl::Seconds(10), MatcherConfig{});
  ASSERT_THAT(tables, SizeIs(1));
  EXPECT_THAT(tables[0].tickets, ElementsAre(1, 2));  // a (oldest) with b; c waits
  EXPECT_THAT(tables[0].seat_accounts, ElementsAre("a", "b"));
}

TEST(MatcherTest, RankedRespectsWindowAndItWidensWithTime) {
  Pool pool = TwoPlayer(true);
  pool.tickets = {Solo("a", 1500, kT0), Solo("b", 1800, kT0)};
  MatcherConfig config;
  EXPECT_THAT(MatchPool(pool, kT0, config), IsEmpty());
  EXPECT_THAT(MatchPool(pool, kT0 + absl::Minutes(3), config), IsEmpty());      // window 250
  std::vector<Table> tables = MatchPool(pool, kT0 + absl::Minutes(4), config);  // window 300
  ASSERT_THAT(tables, SizeIs(1));
  EXPECT_DOUBLE_EQ(tables[0].rating_spread, 300);
}

TEST(MatcherTest, BothWindowsMustCoverTheGap) {
  Pool pool = TwoPlayer(true);
  // a waited 10 minutes (unbounded) but b is fresh (±100): b does not accept a 500-point gap.
  pool.tickets = {Solo("a", 1500, kT0), Solo("b", 2000, kT0 + absl::Minutes(10))};
  EXPECT_THAT(MatchPool(pool, kT0 + absl::Minutes(10), MatcherConfig{}), IsEmpty());
  // Once b has waited 8 minutes its window is 500.
  EXPECT_THAT(MatchPool(pool, kT0 + absl::Minutes(18), MatcherConfig{}), SizeIs(1));
}

// The table seen in production: a three-player KA'DICE! game formed with a 221-point spread
// while every ticket's window was about 118, because each candidate was compared with the
// anchor only (110.5 below it and 110.5 above it).
TEST(MatcherTest, ThreeSeatTableWaitsUntilEveryPairIsWithinBothWindows) {
  Pool pool;
  pool.ranked = true;
  pool.seat_teams[3] = {0, 1, 2};
  const absl::Time enqueued = kT0;
  pool.tickets = {Solo("anchor", 1500, enqueued, {3}), Solo("low", 1389.5, enqueued, {3}),
                  Solo("high", 1610.5, enqueued, {3})};
  MatcherConfig config;
  const absl::Time now = enqueued + absl::Seconds(22);
  EXPECT_NEAR(RatingWindow(config, now - enqueued), 118.3, 0.1);
  // low and high are 221 apart, almost twice their windows: no table, they wait.
  EXPECT_THAT(MatchPool(pool, now, config), IsEmpty());
  // Still waiting at 2 minutes (window 200 < 221)...
  EXPECT_THAT(MatchPool(pool, enqueued + absl::Minutes(2), config), IsEmpty());
  // ...and seated once every window covers 221 (2 min 30 s: window 225).
  std::vector<Table> tables = MatchPool(pool, enqueued + absl::Seconds(150), config);
  ASSERT_THAT(tables, SizeIs(1));
  EXPECT_DOUBLE_EQ(tables[0].rating_spread, 221);
}

TEST(MatcherTest, ThreeSeatTableTakesThePlayersWhoFitEachOther) {
  Pool pool;
  pool.ranked = true;
  pool.seat_teams[3] = {0, 1, 2};
  pool.tickets = {Solo("anchor", 1500, kT0, {3}), Solo("low", 1389.5, kT0, {3}),
                  Solo("high", 1610.5, kT0, {3}), Solo("mid", 1450, kT0, {3})};
  std::vector<Table> tables = MatchPool(pool, kT0 + absl::Seconds(22), MatcherConfig{});
  ASSERT_THAT(tables, SizeIs(1));
  // anchor, mid and low are pairwise within 118; high (160.5 from mid) waits.
  EXPECT_THAT(tables[0].seat_accounts, UnorderedElementsAre("anchor", "mid", "low"));
  EXPECT_DOUBLE_EQ(tables[0].rating_spread, 110.5);
}

TEST(MatcherTest, RankedPicksTheNearestRating) {
  Pool pool = TwoPlayer(true);
  pool.tickets = {Solo("a", 1500, kT0), Solo("far", 1590, kT0 + absl::Seconds(1)),
                  Solo("near", 1510, kT0 + absl::Seconds(2))};
  std::vector<Table> tables = MatchPool(pool, kT0 + absl::Seconds(5), MatcherConfig{});
  ASSERT_THAT(tables, SizeIs(1));
  EXPECT_THAT(tables[0].tickets, ElementsAre(0, 2));
}

TEST(MatcherTest, NeverAPlayerWithThemself) {
  Pool pool = TwoPlayer(false);
  pool.tickets = {Solo("a", 0, kT0), Solo("a", 0, kT0)};
  EXPECT_THAT(MatchPool(pool, kT0, MatcherConfig{}), IsEmpty());
}

TEST(MatcherTest, TicketsNotAcceptingTheSizeAreSkipped) {
  Pool pool;
  pool.seat_teams = {{2, {0, 1}}, {3, {0, 1, 2}}};
  pool.tickets = {Solo("a", 0, kT0, {3}), Solo("b", 0, kT0, {2}), Solo("c", 0, kT0, {2, 3}),
                  Solo("d", 0, kT0, {3})};
  std::vector<Table> tables = MatchPool(pool, kT0, MatcherConfig{});
  ASSERT_THAT(tables, SizeIs(1));
  EXPECT_THAT(tables[0].seat_accounts, ElementsAre("a", "c", "d"));
}

TEST(MatcherTest, LargestTableFirstThenSmallerAfterWaiting) {
  Pool pool;
  pool.seat_teams = {{2, {0, 1}}, {3, {0, 1, 2}}, {4, {0, 1, 2, 3}}};
  pool.tickets = {Solo("a", 0, kT0, {2, 3, 4}), Solo("b", 0, kT0, {2, 3, 4}),
                  Solo("c", 0, kT0, {3, 4})};
  MatcherConfig config;
  config.full_table_wait = absl::Minutes(1);
  // Fresh: only the full table of 4 is tried, and three players cannot fill it.
  EXPECT_THAT(MatchPool(pool, kT0 + absl::Seconds(30), config), IsEmpty());
  // After a minute: the largest table every ticket accepts that can be filled now: 3.
  std::vector<Table> tables = MatchPool(pool, kT0 + absl::Minutes(1), config);
  ASSERT_THAT(tables, SizeIs(1));
  EXPECT_THAT(tables[0].seat_accounts, ElementsAre("a", "b", "c"));
}

Pool Doubles() {
  Pool pool;
  pool.ranked = true;
  pool.seat_teams[4] = {0, 0, 1, 1};
  return pool;
}

TEST(MatcherTest, PartyIsSeatedAsOneTeam) {
  Pool pool = Doubles();
  pool.tickets = {
      Solo("s1", 1500, kT0, {4}),
      PoolTicket{
          .players = {"p1", "p2"}, .rating = 1500, .enqueue_time = kT0, .player_counts = {4}},
      Solo("s2", 1500, kT0, {4})};
  std::vector<Table> tables = MatchPool(pool, kT0, MatcherConfig{});
  ASSERT_THAT(tables, SizeIs(1));
  const Table& t = tables[0];
  ASSERT_THAT(t.seat_accounts, SizeIs(4));
  std::set<int> party_teams;
  for (size_t seat = 0; seat < 4; ++seat) {
    if (t.seat_accounts[seat] == "p1" || t.seat_accounts[seat] == "p2") {
      party_teams.insert(t.seat_teams[seat]);
    }
  }
  EXPECT_THAT(party_teams, SizeIs(1));
}

TEST(MatcherTest, TwoPartiesFaceEachOtherAndAPartyIsNeverSplit) {
  Pool pool = Doubles();
  auto party = [](std::string x, std::string y, absl::Time t) {
    return PoolTicket{.players = {std::move(x), std::move(y)},
                      .rating = 1500,
                      .enqueue_time = t,
                      .player_counts = {4}};
  };
  pool.tickets = {party("a1", "a2", kT0), party("b1", "b2", kT0), party("c1", "c2", kT0)};
  std::vector<Table> tables = MatchPool(pool, kT0, MatcherConfig{});
  ASSERT_THAT(tables, SizeIs(1));
  EXPECT_THAT(tables[0].seat_accounts, ElementsAre("a1", "a2", "b1", "b2"));
  EXPECT_THAT(tables[0].seat_teams, ElementsAre(0, 0, 1, 1));
}

TEST(MatcherTest, PartyTooLargeForAnyTeamNeverMatches) {
  Pool pool = TwoPlayer(false);
  pool.tickets = {PoolTicket{.players = {"a", "b"}, .enqueue_time = kT0, .player_counts = {2}},
                  Solo("c", 0, kT0)};
  EXPECT_THAT(MatchPool(pool, kT0, MatcherConfig{}), IsEmpty());
}

TEST(MatcherTest, SoloTeamsAreBalancedByRating) {
  Pool pool = Doubles();
  pool.tickets = {Solo("w", 1400, kT0, {4}), Solo("x", 1500, kT0, {4}), Solo("y", 1550, kT0, {4}),
                  Solo("z", 1450, kT0, {4})};
  // After a minute every window is 150, which covers the table's 150-point spread.
  std::vector<Table> tables = MatchPool(pool, kT0 + absl::Minutes(1), MatcherConfig{});
  ASSERT_THAT(tables, SizeIs(1));
  const Table& t = tables[0];
  double team_total[2] = {0, 0};
  for (size_t seat = 0; seat < 4; ++seat) team_total[t.seat_teams[seat]] += t.seat_ratings[seat];
  // 1550+1400 vs 1500+1450: the best split.
  EXPECT_DOUBLE_EQ(team_total[0], team_total[1]);
}

TEST(MatcherTest, EveryTicketInAtMostOneTable) {
  Pool pool = TwoPlayer(true);
  for (int i = 0; i < 1001; ++i) {
    pool.tickets.push_back(
        Solo(absl::StrCat("p", i), 1000 + (i * 37) % 1000, kT0 + absl::Seconds(i % 120)));
  }
  std::vector<Table> tables = MatchPool(pool, kT0 + absl::Minutes(13), MatcherConfig{});
  std::set<size_t> seen;
  for (const Table& t : tables) {
    for (size_t ticket : t.tickets) EXPECT_TRUE(seen.insert(ticket).second) << ticket;
  }
  EXPECT_EQ(seen.size(), 1000u);  // everyone unbounded by now; one odd ticket left over
}

}  // namespace
}  // namespace parlor::matchmaking
