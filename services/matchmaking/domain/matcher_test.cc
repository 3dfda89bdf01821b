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

// ---- Ticket properties, requirements and blocks ------------------------------------------------

PoolTicket With(PoolTicket t, std::map<std::string, std::string> strings,
                std::vector<Requirement> requirements = {},
                std::map<std::string, double> numbers = {}) {
  t.properties.strings = std::move(strings);
  t.properties.numbers = std::move(numbers);
  t.requirements = std::move(requirements);
  return t;
}

Requirement Same(std::string property) { return {.property = std::move(property)}; }
Requirement In(std::string property, std::vector<std::string> values) {
  return {.property = std::move(property), .kind = Requirement::Kind::kIn, .values = values};
}
Requirement Range(std::string property, double min, double max) {
  return {
      .property = std::move(property), .kind = Requirement::Kind::kRange, .min = min, .max = max};
}

// "Same region": a (eu, requires same region) is not seated with the older b (us), but with c
// (eu, who requires nothing); b waits.
TEST(MatcherTest, SameRegionRequirementSkipsOtherRegions) {
  Pool pool = TwoPlayer(false);
  pool.tickets = {With(Solo("a", 0, kT0), {{"region", "eu-west"}}, {Same("region")}),
                  With(Solo("b", 0, kT0 + absl::Seconds(1)), {{"region", "us-east"}}),
                  With(Solo("c", 0, kT0 + absl::Seconds(2)), {{"region", "eu-west"}})};
  std::vector<Table> tables = MatchPool(pool, kT0 + absl::Seconds(10), MatcherConfig{});
  ASSERT_THAT(tables, SizeIs(1));
  EXPECT_THAT(tables[0].seat_accounts, ElementsAre("a", "c"));
}

// A requirement binds whichever ticket anchors the table: b requires a language a does not
// speak, so the oldest ticket a cannot take b even though a itself requires nothing.
TEST(MatcherTest, RequirementsHoldBothWays) {
  Pool pool = TwoPlayer(false);
  pool.tickets = {With(Solo("a", 0, kT0), {{"language", "de"}}),
                  With(Solo("b", 0, kT0 + absl::Seconds(1)), {{"language", "en"}},
                       {In("language", {"en", "fr"})}),
                  With(Solo("c", 0, kT0 + absl::Seconds(2)), {{"language", "fr"}})};
  std::vector<Table> tables = MatchPool(pool, kT0 + absl::Seconds(10), MatcherConfig{});
  ASSERT_THAT(tables, SizeIs(1));
  EXPECT_THAT(tables[0].seat_accounts, ElementsAre("a", "c"));
  // Without c, a and b never meet.
  pool.tickets.pop_back();
  EXPECT_THAT(MatchPool(pool, kT0 + absl::Hours(1), MatcherConfig{}), IsEmpty());
}

// A ticket without the property a requirement names never satisfies it; a number range checks
// the other ticket's number.
TEST(MatcherTest, NumberRangeAndMissingProperties) {
  Pool pool = TwoPlayer(false);
  pool.tickets = {With(Solo("a", 0, kT0), {}, {Range("tier", 2, 4)}),
                  Solo("b", 0, kT0 + absl::Seconds(1)),  // no tier
                  With(Solo("c", 0, kT0 + absl::Seconds(2)), {}, {}, {{"tier", 5}}),
                  With(Solo("d", 0, kT0 + absl::Seconds(3)), {}, {}, {{"tier", 4}})};
  std::vector<Table> tables = MatchPool(pool, kT0 + absl::Seconds(10), MatcherConfig{});
  ASSERT_THAT(tables, SizeIs(2));
  EXPECT_THAT(tables[0].seat_accounts, ElementsAre("a", "d"));
  EXPECT_THAT(tables[1].seat_accounts, ElementsAre("b", "c"));
}

// At a 3-seat table every ticket's requirements accept every other ticket: c fits a's
// requirement but requires a language b does not have, so d is seated instead.
TEST(MatcherTest, EveryTicketAtATableAcceptsEveryOther) {
  Pool pool;
  pool.seat_teams[3] = {0, 1, 2};
  pool.tickets = {
      With(Solo("a", 0, kT0, {3}), {{"region", "eu"}, {"language", "en"}}, {Same("region")}),
      With(Solo("b", 0, kT0 + absl::Seconds(1), {3}), {{"region", "eu"}, {"language", "de"}}),
      With(Solo("c", 0, kT0 + absl::Seconds(2), {3}), {{"region", "eu"}, {"language", "en"}},
           {Same("language")}),
      With(Solo("d", 0, kT0 + absl::Seconds(3), {3}), {{"region", "eu"}, {"language", "fr"}})};
  std::vector<Table> tables = MatchPool(pool, kT0 + absl::Seconds(10), MatcherConfig{});
  ASSERT_THAT(tables, SizeIs(1));
  std::set<std::string> seated(tables[0].seat_accounts.begin(), tables[0].seat_accounts.end());
  EXPECT_THAT(seated, UnorderedElementsAre("a", "b", "d"));
}

// Blocks: a blocked b (so both tickets avoid the other), and nobody sits with someone they
// blocked or who blocked them, whichever side's list names it; in a party ticket every member
// counts.
TEST(MatcherTest, BlockedPlayersAreNeverSeatedTogether) {
  Pool pool = TwoPlayer(false);
  PoolTicket a = Solo("a", 0, kT0);
  a.avoid = {"b"};
  PoolTicket b = Solo("b", 0, kT0 + absl::Seconds(1));
  b.avoid = {"a"};
  pool.tickets = {a, b, Solo("c", 0, kT0 + absl::Seconds(2)), Solo("d", 0, kT0 + absl::Seconds(3))};
  std::vector<Table> tables = MatchPool(pool, kT0 + absl::Seconds(10), MatcherConfig{});
  ASSERT_THAT(tables, SizeIs(2));
  EXPECT_THAT(tables[0].seat_accounts, ElementsAre("a", "c"));
  EXPECT_THAT(tables[1].seat_accounts, ElementsAre("b", "d"));
  // Only one side knows (the block was listed for the blocker's ticket alone): still apart.
  pool.tickets = {a, Solo("b", 0, kT0 + absl::Seconds(1))};
  EXPECT_THAT(MatchPool(pool, kT0 + absl::Hours(1), MatcherConfig{}), IsEmpty());

  // Doubles: the party x+y, where y blocked s, is not seated with s.
  Pool doubles;
  doubles.seat_teams[4] = {0, 1, 0, 1};
  PoolTicket party{.players = {"x", "y"}, .rating = 0, .enqueue_time = kT0, .player_counts = {4}};
  party.avoid = {"s"};
  doubles.tickets = {party, Solo("s", 0, kT0 + absl::Seconds(1), {4}),
                     Solo("t", 0, kT0 + absl::Seconds(2), {4}),
                     Solo("u", 0, kT0 + absl::Seconds(3), {4})};
  tables = MatchPool(doubles, kT0 + absl::Seconds(10), MatcherConfig{});
  ASSERT_THAT(tables, SizeIs(1));  // s, older than t and u, is passed over and waits
  std::set<std::string> seated(tables[0].seat_accounts.begin(), tables[0].seat_accounts.end());
  EXPECT_THAT(seated, UnorderedElementsAre("x", "y", "t", "u"));
}

// Ranked: requirements and windows both apply.
TEST(MatcherTest, RankedTicketsHonourRequirementsToo) {
  Pool pool = TwoPlayer(true);
  pool.tickets = {With(Solo("a", 1500, kT0), {{"region", "eu"}}, {Same("region")}),
                  With(Solo("b", 1510, kT0), {{"region", "us"}}),
                  With(Solo("c", 1590, kT0), {{"region", "eu"}})};
  std::vector<Table> tables = MatchPool(pool, kT0, MatcherConfig{});
  ASSERT_THAT(tables, SizeIs(1));
  EXPECT_THAT(tables[0].seat_accounts, ElementsAre("a", "c"));
}

// The stored text forms round-trip, and validation names the field.
TEST(TicketPropertiesTest, EncodeParseAndValidate) {
  TicketProperties p;
  p.strings = {{"region", "eu-west"}, {"language", "pt-BR"}, {"mode", "fast:1"}};
  p.numbers = {{"tier", 3.25}, {"level", -1e20}};
  ASSERT_TRUE(ValidateProperties(p).ok());
  EXPECT_EQ(EncodeProperties(p),
            "s:language=pt-BR;s:mode=fast:1;s:region=eu-west;n:level=-1e+20;n:tier=3.25");
  absl::StatusOr<TicketProperties> back = ParseProperties(EncodeProperties(p));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, p);
  std::vector<Requirement> r = {Same("region"), In("language", {"en", "pt-BR"}),
                                Range("tier", 0.5, 7)};
  ASSERT_TRUE(ValidateRequirements(r, p).ok());
  EXPECT_EQ(EncodeRequirements(r), "region:same;language:in=en|pt-BR;tier:range=0.5|7");
  absl::StatusOr<std::vector<Requirement>> r_back = ParseRequirements(EncodeRequirements(r));
  ASSERT_TRUE(r_back.ok());
  EXPECT_EQ(*r_back, r);
  EXPECT_TRUE(ParseProperties("").ok() && ParseProperties("")->strings.empty());
  EXPECT_FALSE(ParseProperties("garbage").ok());
  EXPECT_FALSE(ParseRequirements("tier:between=1|2").ok());

  TicketProperties bad = p;
  bad.strings["region"] = "EU West";
  EXPECT_THAT(std::string(ValidateProperties(bad).message()), ::testing::StartsWith("region: "));
  bad = p;
  bad.numbers["tier"] = std::nan("");
  EXPECT_EQ(ValidateProperties(bad).message(),
            "number_properties[\"tier\"]: must be a finite number");
  EXPECT_EQ(ValidateRequirements({Range("tier", 5, 1)}, p).message(),
            "requirements[0].range: min and max must be finite with min <= max, got [5, 1]");
  EXPECT_EQ(ValidateRequirements({Same("colour")}, p).message(),
            "requirements[0].same: this ticket has no colour property to compare with; set it, "
            "or use one_of / range");
}

}  // namespace
}  // namespace parlor::matchmaking
