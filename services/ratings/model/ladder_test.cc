#include "services/ratings/model/ladder.h"

#include <cmath>

#include "absl/status/status.h"
#include "gtest/gtest.h"

namespace parlor::ratings::model {
namespace {

const LadderRegistry& Registry() {
  static const LadderRegistry* r = new LadderRegistry(LadderRegistry::Default());
  return *r;
}

std::string LadderFor(const GameShape& shape) {
  auto l = Registry().ForGame(shape);
  return l.ok() ? (*l)->name : std::string(absl::StatusCodeToString(l.status().code()));
}

TEST(LadderTest, DerivesLadderFromGameShape) {
  EXPECT_EQ(LadderFor({"pico", 2, {}}), "pico");
  EXPECT_EQ(LadderFor({"pict", 2, {}}), "pict");
  EXPECT_EQ(LadderFor({"picadice", 2, {}}), "picadice-duel");
  EXPECT_EQ(LadderFor({"picadice", 4, {0, 1, 0, 1}}), "picadice-doubles");
  EXPECT_EQ(LadderFor({"picadice", 3, {}}), "picadice-multi");
  EXPECT_EQ(LadderFor({"picadice", 4, {}}), "picadice-multi");
  // Every seat its own team is a game without teams.
  EXPECT_EQ(LadderFor({"picadice", 4, {0, 1, 2, 3}}), "picadice-multi");
  EXPECT_EQ(LadderFor({"pescado", 2, {}}), "pescado");
  EXPECT_EQ(LadderFor({"pescado", 4, {}}), "pescado");
  EXPECT_EQ(LadderFor({"kadice", 3, {}}), "kadice");
}

TEST(LadderTest, RejectsShapesNoLadderTakes) {
  EXPECT_EQ(LadderFor({"chess", 2, {}}), "INVALID_ARGUMENT");
  EXPECT_EQ(LadderFor({"pico", 3, {}}), "INVALID_ARGUMENT");
  EXPECT_EQ(LadderFor({"pico", 1, {}}), "INVALID_ARGUMENT");
  EXPECT_EQ(LadderFor({"pescado", 5, {}}), "INVALID_ARGUMENT");
  EXPECT_EQ(LadderFor({"picadice", 4, {0, 0, 0, 1}}), "INVALID_ARGUMENT");
  EXPECT_EQ(LadderFor({"picadice", 4, {0, 0, 1}}), "INVALID_ARGUMENT");
  EXPECT_EQ(LadderFor({"picadice", 4, {0, 0, 0, 0}}), "INVALID_ARGUMENT");
  EXPECT_EQ(LadderFor({"kadice", 4, {0, 0, 1, 1}}), "INVALID_ARGUMENT");
}

TEST(LadderTest, ModelsAndLookup) {
  EXPECT_EQ((*Registry().Find("pico"))->model, ModelKind::kGlicko2);
  EXPECT_EQ((*Registry().Find("picadice-duel"))->model, ModelKind::kGlicko2);
  EXPECT_EQ((*Registry().Find("picadice-doubles"))->model, ModelKind::kWengLin);
  EXPECT_EQ((*Registry().Find("kadice"))->model, ModelKind::kWengLin);
  EXPECT_EQ(Registry().Find("nope").status().code(), absl::StatusCode::kNotFound);
}

TEST(LadderTest, ConservativeRatingAndProvisional) {
  const LadderSpec& g = **Registry().Find("pico");
  EXPECT_DOUBLE_EQ(g.Conservative({1700, 60, 0.06, 30}), 1580);
  EXPECT_TRUE(g.Provisional(g.Initial()));
  EXPECT_TRUE(g.Provisional({1700, 60, 0.06, 4}));    // too few games
  EXPECT_TRUE(g.Provisional({1700, 120, 0.06, 40}));  // deviation too high
  EXPECT_FALSE(g.Provisional({1700, 60, 0.06, 5}));
  const LadderSpec& w = **Registry().Find("pescado");
  EXPECT_DOUBLE_EQ(w.Conservative({30, 2, 0, 10}), 24);
  EXPECT_DOUBLE_EQ(w.Conservative(w.Initial()), 0);
  EXPECT_TRUE(w.Provisional(w.Initial()));
  EXPECT_FALSE(w.Provisional({30, 5, 0, 12}));
  // A lucky newcomer cannot top an established player.
  auto rated = Rate(g, {{g.Initial(), 0, 0, 1}, {{2100, 50, 0.06, 100}, 0, 1, 2}});
  ASSERT_TRUE(rated.ok());
  EXPECT_LT(g.Conservative((*rated)[0]), g.Conservative((*rated)[1]));
}

TEST(LadderTest, RateGlicko2LadderMatchesTheModel) {
  const LadderSpec& g = **Registry().Find("pict");
  const Rating a{1600, 80, 0.06, 10};
  const Rating b{1500, 120, 0.059, 3};
  auto out = Rate(g, {{a, 2.0, 0, 2}, {b, 5.0, 1, 1}});
  ASSERT_TRUE(out.ok()) << out.status();
  const Glicko2Pair want =
      Glicko2RateGame({1600, 80, 0.06}, 2.0, {1500, 120, 0.059}, 5.0, 0.0, g.glicko2);
  EXPECT_DOUBLE_EQ((*out)[0].value, want.a.rating);
  EXPECT_DOUBLE_EQ((*out)[1].deviation, want.b.deviation);
  EXPECT_DOUBLE_EQ((*out)[1].volatility, want.b.volatility);
  EXPECT_EQ((*out)[0].games, 11);
  EXPECT_EQ((*out)[1].games, 4);
  // A tie is a draw.
  auto draw = Rate(g, {{g.Initial(), 0, 0, 1}, {g.Initial(), 0, 1, 1}});
  ASSERT_TRUE(draw.ok());
  EXPECT_NEAR((*draw)[0].value, 1500, 1e-9);
}

TEST(LadderTest, RateWengLinTeamsMatchesTheModel) {
  LadderSpec d = **Registry().Find("picadice-doubles");
  d.weng_lin.tau = 0;  // compare with the published-vector setting
  const Rating n = d.Initial();
  // Seats 0 and 2 against 1 and 3; the second team wins.
  auto out = Rate(d, {{n, 0, 0, 2}, {n, 0, 1, 1}, {n, 0, 0, 2}, {n, 0, 1, 1}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_NEAR((*out)[1].value, 26.9641855033, 1e-6);
  EXPECT_NEAR((*out)[3].value, 26.9641855033, 1e-6);
  EXPECT_NEAR((*out)[0].value, 23.0358144967, 1e-6);
  EXPECT_NEAR((*out)[2].deviation, 8.1775563577, 1e-6);
}

TEST(LadderTest, RateRejectsInconsistentInput) {
  const LadderSpec& g = **Registry().Find("pico");
  const Rating n = g.Initial();
  EXPECT_FALSE(Rate(g, {{n, 0, 0, 1}, {n, 0, 0, 2}}).ok());                // one side
  EXPECT_FALSE(Rate(g, {{n, 0, 0, 1}, {n, 0, 1, 2}, {n, 0, 2, 3}}).ok());  // three sides
  EXPECT_FALSE(Rate(g, {{n, 0, 0, 0}, {n, 0, 1, 2}}).ok());                // rank 0
  const LadderSpec& d = **Registry().Find("picadice-doubles");
  const Rating m = d.Initial();
  EXPECT_FALSE(Rate(d, {{m, 0, 0, 1}, {m, 0, 1, 2}, {m, 0, 0, 2}, {m, 0, 1, 2}}).ok());
  EXPECT_FALSE(Rate(d, {{m, NAN, 0, 1}, {m, 0, 1, 2}}).ok());
}

TEST(LadderTest, SeasonResetPullsTowardTheMeanAndInflatesOnlyProvisionalDeviations) {
  const LadderSpec& g = **Registry().Find("pico");
  const Rating r{1900, 60, 0.06, 50};
  const Rating reset = g.ApplySeasonReset(r);
  EXPECT_DOUBLE_EQ(reset.value, 1500 + 400 * 0.8);
  // Established (50 games, RD 60 <= 110): the deviation carries over.
  EXPECT_DOUBLE_EQ(reset.deviation, 60);
  EXPECT_EQ(reset.games, 50);
  EXPECT_EQ(reset.volatility, 0.06);
  // Provisional (RD 130 > 110): widened by the boost, 25 % of 350 in quadrature.
  EXPECT_NEAR(g.ApplySeasonReset({1600, 130, 0.06, 20}).deviation,
              std::sqrt(130.0 * 130 + 87.5 * 87.5), 1e-9);
  // Never above the initial deviation; a below-mean player is pulled up.
  EXPECT_DOUBLE_EQ(g.ApplySeasonReset({1200, 340, 0.06, 3}).deviation, 350);
  EXPECT_DOUBLE_EQ(g.ApplySeasonReset({1200, 340, 0.06, 3}).value, 1260);
  LadderSpec hard = g;
  hard.season_reset.pull = 1.0;
  EXPECT_DOUBLE_EQ(hard.ApplySeasonReset(r).value, 1500);
  const LadderSpec& w = **Registry().Find("kadice");
  EXPECT_DOUBLE_EQ(w.ApplySeasonReset({35, 3, 0, 20}).value, 33);
}

// The worked example of the README: last season's leader, RD 105.65 after 40 games, used to
// come out of the reset at RD 137.18, above the 110 limit, and so was provisional (off the board)
// even after a game. Now it keeps 105.65 and stays on the board; its value is pulled 20 % toward
// 1500.
TEST(LadderTest, LastSeasonsLeaderStaysEstablishedThroughTheReset) {
  const LadderSpec& g = **Registry().Find("pico");
  const Rating leader{2100, 105.65, 0.06, 40};
  ASSERT_FALSE(g.Provisional(leader));
  const Rating reset = g.ApplySeasonReset(leader);
  EXPECT_DOUBLE_EQ(reset.value, 1980);
  EXPECT_DOUBLE_EQ(reset.deviation, 105.65);
  EXPECT_FALSE(g.Provisional(reset));
  EXPECT_NEAR(g.Conservative(reset), 1768.7, 1e-9);
  // The formula without the rule, for comparison: sqrt(105.65^2 + 87.5^2) = 137.18 > 110.
  EXPECT_NEAR(std::sqrt(105.65 * 105.65 + 87.5 * 87.5), 137.18, 0.01);
  // Weng-Lin: sigma 6.0 after 30 games stays 6.0 (limit 6.5).
  const LadderSpec& w = **Registry().Find("kadice");
  EXPECT_DOUBLE_EQ(w.ApplySeasonReset({32, 6.0, 0, 30}).deviation, 6.0);
}

// One scale for people: Glicko-2 shows r; Weng-Lin shows its ordinal μ − 3σ mapped onto the
// 1500 scale, 29.48 points per unit, 1500 for a perfectly known average player (the README's
// worked example).
TEST(LadderTest, DisplayRatingPutsEveryLadderOnTheGlicko2Scale) {
  const LadderSpec& pico = **Registry().Find("pico");
  const LadderSpec& kadice = **Registry().Find("kadice");
  EXPECT_DOUBLE_EQ(pico.Display({1620, 64, 0.06, 30}), 1620);
  EXPECT_DOUBLE_EQ(pico.Display(pico.Initial()), 1500);
  const double k = kadice.DisplayPointsPerUnit();
  EXPECT_NEAR(k, 29.48, 0.005);
  EXPECT_NEAR(kadice.Display(kadice.Initial()), 763.0, 0.05);   // 1500 + 29.48 x (0 - 25)
  EXPECT_NEAR(kadice.Display({30, 1.5, 0, 40}), 1514.7, 0.05);  // ordinal 25.5
  EXPECT_DOUBLE_EQ(kadice.Display({25, 0.0, 0, 40}), 1500);
  EXPECT_NEAR(kadice.Display({31.2, 1.1, 0, 80}), 1585.5, 0.05);  // ordinal 27.9
  // Linear in the ordinal, so a Weng-Lin board (ordered by μ − 3σ) reads in display order.
  EXPECT_GT(kadice.Display({28, 2, 0, 10}), kadice.Display({29, 2.5, 0, 10}));
  // Equal gaps, equal odds: two established Weng-Lin players 5 μ apart (σ 0.5) have the win
  // probability that Glicko-2 gives two established players 5·k points apart (RD 30).
  const double beta = kadice.weng_lin.beta;
  const double c = std::sqrt(2 * beta * beta + 2 * 0.5 * 0.5);
  const double plackett_luce = 1 / (1 + std::exp(-5 / c));
  const double phi = 30 / 173.7178;
  const double g = 1 / std::sqrt(1 + 3 * phi * phi / (M_PI * M_PI));
  const double glicko = 1 / (1 + std::pow(10, -g * 5 * k / 400));
  EXPECT_NEAR(plackett_luce, glicko, 0.005);
}

TEST(LadderTest, IdleGrowsDeviationOnBothModels) {
  const LadderSpec& g = **Registry().Find("pico");
  EXPECT_GT(g.Idle({1700, 60, 0.06, 10}, 100).deviation, 60);
  const LadderSpec& w = **Registry().Find("kadice");
  EXPECT_GT(w.Idle({30, 3, 0, 10}, 100).deviation, 3);
  EXPECT_EQ(w.Idle({30, 3, 0, 10}, 100).value, 30);
}

}  // namespace
}  // namespace parlor::ratings::model
