#include "services/ratings/model/glicko2.h"

#include <cmath>

#include "gtest/gtest.h"

namespace parlor::ratings::model {
namespace {

Glicko2Params ExampleParams() {
  Glicko2Params p;
  p.tau = 0.5;
  return p;
}

// Mark Glickman, "Example of the Glicko-2 system" (2013), the worked example: a player rated
// 1500 / RD 200 / σ 0.06 beats 1400/30 and loses to 1550/100 and 1700/300 in one rating period
// with τ = 0.5, ending at 1464.06 / 151.52 / 0.05999. The paper rounds intermediate values, so
// the rating and RD are compared within ±0.02 and the volatility within 1e-5.
TEST(Glicko2Test, GlickmanWorkedExample) {
  const Glicko2Rating player{1500, 200, 0.06};
  const std::vector<Glicko2Game> games = {
      {{1400, 30, 0.06}, 1.0}, {{1550, 100, 0.06}, 0.0}, {{1700, 300, 0.06}, 0.0}};
  const Glicko2Rating out = Glicko2Update(player, games, ExampleParams());
  EXPECT_NEAR(out.rating, 1464.06, 0.02);
  EXPECT_NEAR(out.deviation, 151.52, 0.02);
  EXPECT_NEAR(out.volatility, 0.05999, 1e-5);
}

TEST(Glicko2Test, Defaults) {
  const Glicko2Params p;
  const Glicko2Rating r = Glicko2Initial(p);
  EXPECT_EQ(r.rating, 1500);
  EXPECT_EQ(r.deviation, 350);
  EXPECT_EQ(r.volatility, 0.06);
}

// Derived with services/ratings/model/testdata/reference_vectors.py (a separate transcription of
// the paper's steps): two new players draw; neither rating moves and both RDs shrink to 290.32.
TEST(Glicko2Test, DrawBetweenEqualsMovesNoRatingAndShrinksDeviation) {
  const Glicko2Params p = ExampleParams();
  const Glicko2Pair out = Glicko2RateGame(Glicko2Initial(p), 0, Glicko2Initial(p), 0, 0.5, p);
  EXPECT_NEAR(out.a.rating, 1500.0, 1e-9);
  EXPECT_NEAR(out.b.rating, 1500.0, 1e-9);
  EXPECT_NEAR(out.a.deviation, 290.3190, 1e-3);
  EXPECT_NEAR(out.b.deviation, 290.3190, 1e-3);
  EXPECT_NEAR(out.a.volatility, 0.0599990, 1e-6);
}

// reference_vectors.py: 1500/200 draws 1800/50 → 1567.5633 / 185.2566 and 1796.0911 / 50.8356.
TEST(Glicko2Test, DrawAgainstStrongerPlayerGainsRating) {
  const Glicko2Params p = ExampleParams();
  const Glicko2Pair out = Glicko2RateGame({1500, 200, 0.06}, 0, {1800, 50, 0.06}, 0, 0.5, p);
  EXPECT_NEAR(out.a.rating, 1567.5633, 1e-3);
  EXPECT_NEAR(out.a.deviation, 185.2566, 1e-3);
  EXPECT_NEAR(out.b.rating, 1796.0911, 1e-3);
  EXPECT_NEAR(out.b.deviation, 50.8356, 1e-3);
}

// reference_vectors.py: 1700/80 beats 1500/200 → 1708.4245 / 79.4688 and 1455.1782 / 180.4259.
TEST(Glicko2Test, ExpectedWinMovesLittle) {
  const Glicko2Params p = ExampleParams();
  const Glicko2Pair out = Glicko2RateGame({1700, 80, 0.06}, 0, {1500, 200, 0.06}, 0, 1.0, p);
  EXPECT_NEAR(out.a.rating, 1708.4245, 1e-3);
  EXPECT_NEAR(out.a.deviation, 79.4688, 1e-3);
  EXPECT_NEAR(out.b.rating, 1455.1782, 1e-3);
  EXPECT_NEAR(out.b.deviation, 180.4259, 1e-3);
}

TEST(Glicko2Test, SymmetricInTheTwoPlayers) {
  const Glicko2Params p = ExampleParams();
  const Glicko2Rating x{1620, 90, 0.058};
  const Glicko2Rating y{1480, 160, 0.061};
  const Glicko2Pair xy = Glicko2RateGame(x, 3, y, 10, 1.0, p);
  const Glicko2Pair yx = Glicko2RateGame(y, 10, x, 3, 0.0, p);
  EXPECT_DOUBLE_EQ(xy.a.rating, yx.b.rating);
  EXPECT_DOUBLE_EQ(xy.a.deviation, yx.b.deviation);
  EXPECT_DOUBLE_EQ(xy.b.rating, yx.a.rating);
  EXPECT_DOUBLE_EQ(xy.b.volatility, yx.a.volatility);
  // Between equals, what one gains the other loses.
  const Glicko2Pair eq = Glicko2RateGame({1500, 100, 0.06}, 0, {1500, 100, 0.06}, 0, 1.0, p);
  EXPECT_NEAR(eq.a.rating - 1500, 1500 - eq.b.rating, 1e-9);
  EXPECT_DOUBLE_EQ(eq.a.deviation, eq.b.deviation);
}

TEST(Glicko2Test, DeviationGrowsWithInactivityCappedAt350) {
  Glicko2Params p;
  p.periods_per_day = 1.0;
  const Glicko2Rating r{1700, 50, 0.06};
  // One period: φ² + σ² on the Glicko-2 scale.
  const double phi = 50 / 173.7178;
  EXPECT_NEAR(Glicko2Idle(r, 1, p).deviation, 173.7178 * std::sqrt(phi * phi + 0.0036), 1e-9);
  // Monotone in idle time, rating and volatility untouched.
  double last = r.deviation;
  for (double days : {1.0, 10.0, 100.0, 500.0}) {
    const Glicko2Rating aged = Glicko2Idle(r, days, p);
    EXPECT_GT(aged.deviation, last);
    EXPECT_EQ(aged.rating, 1700);
    EXPECT_EQ(aged.volatility, 0.06);
    last = aged.deviation;
  }
  // About 1,100 periods take RD 50 past 350: capped there.
  EXPECT_DOUBLE_EQ(Glicko2Idle(r, 5000, p).deviation, 350.0);
  EXPECT_DOUBLE_EQ(Glicko2Idle({1500, 350, 0.06}, 30, p).deviation, 350.0);
  // No idle time, no growth; 0 periods a day disables it.
  EXPECT_EQ(Glicko2Idle(r, 0, p).deviation, 50);
  p.periods_per_day = 0;
  EXPECT_EQ(Glicko2Idle(r, 365, p).deviation, 50);
}

TEST(Glicko2Test, DefaultInactivityRateIsGentle) {
  const Glicko2Params p;  // 0.2 periods a day
  const double after_year = Glicko2Idle({1700, 50, 0.06}, 365, p).deviation;
  EXPECT_GT(after_year, 95);
  EXPECT_LT(after_year, 110);
}

TEST(Glicko2Test, InactivityMakesTheNextGameCountMore) {
  const Glicko2Params p;
  const Glicko2Rating a{1600, 60, 0.06};
  const Glicko2Rating b{1600, 60, 0.06};
  const Glicko2Pair fresh = Glicko2RateGame(a, 0, b, 0, 1.0, p);
  const Glicko2Pair rusty = Glicko2RateGame(a, 400, b, 0, 1.0, p);
  EXPECT_GT(rusty.a.rating - 1600, fresh.a.rating - 1600);
}

TEST(Glicko2Test, NoGamesAppliesStepSixOnly) {
  const Glicko2Params p;
  const Glicko2Rating out = Glicko2Update({1500, 200, 0.06}, {}, p);
  const double phi = 200 / 173.7178;
  EXPECT_NEAR(out.deviation, 173.7178 * std::sqrt(phi * phi + 0.0036), 1e-9);
  EXPECT_EQ(out.rating, 1500);
}

TEST(Glicko2Test, UpsetRaisesVolatilityAndIsFinite) {
  const Glicko2Params p;
  const Glicko2Pair out = Glicko2RateGame({1200, 40, 0.06}, 0, {2200, 40, 0.06}, 0, 1.0, p);
  EXPECT_TRUE(std::isfinite(out.a.rating));
  EXPECT_GT(out.a.volatility, 0.06);
  EXPECT_GT(out.a.rating, 1200);
  EXPECT_LT(out.b.rating, 2200);
}

}  // namespace
}  // namespace parlor::ratings::model
