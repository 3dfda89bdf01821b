#include "services/ratings/model/weng_lin.h"

#include <cmath>

#include "absl/status/status.h"
#include "gtest/gtest.h"

namespace parlor::ratings::model {
namespace {

using Teams = std::vector<std::vector<WengLinRating>>;

constexpr double kTol = 1e-6;

void ExpectPlayer(const WengLinRating& r, double mu, double sigma, double tol = kTol) {
  EXPECT_NEAR(r.mu, mu, tol);
  EXPECT_NEAR(r.sigma, sigma, tol);
}

Teams Rate(const Teams& teams, const std::vector<int>& ranks, const WengLinParams& p = {}) {
  auto out = WengLinRate(teams, ranks, p);
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? *out : Teams{};
}

TEST(WengLinTest, Defaults) {
  const WengLinParams p;
  EXPECT_EQ(p.mu, 25.0);
  EXPECT_EQ(p.sigma, 25.0 / 3.0);
  EXPECT_EQ(p.beta, 25.0 / 6.0);
  EXPECT_EQ(p.kappa, 0.0001);
}

// openskill.js README and src/models/__tests__/plackett-luce.test.js ("2p FFA"): two new players,
// the winner → μ 27.6352, σ 8.0655; the loser → μ 22.3648, σ 8.0655 (printed there as
// 27.63523138347365 / 8.065506316323548 and 22.36476861652635).
TEST(WengLinTest, OpenSkillTwoNewPlayers) {
  const WengLinRating r;
  const Teams out = Rate({{r}, {r}}, {1, 2});
  ExpectPlayer(out[0][0], 27.63523138347365, 8.065506316323548);
  ExpectPlayer(out[1][0], 22.36476861652635, 8.065506316323548);
  EXPECT_NEAR(out[0][0].mu, 27.6352, 5e-5);
  EXPECT_NEAR(out[1][0].mu, 22.3648, 5e-5);
  EXPECT_NEAR(out[0][0].sigma, 8.0655, 5e-5);
}

// openskill.js src/models/__tests__/plackett-luce.test.js, "3p FFA" (new players, ranks 1,2,3).
TEST(WengLinTest, OpenSkillThreePlayers) {
  const WengLinRating r;
  const Teams out = Rate({{r}, {r}, {r}}, {1, 2, 3});
  ExpectPlayer(out[0][0], 27.868876552746237, 8.204837030780652);
  ExpectPlayer(out[1][0], 25.717219138186557, 8.057829747583874);
  ExpectPlayer(out[2][0], 21.413904309067206, 8.057829747583874);
}

// openskill.js src/models/__tests__/plackett-luce.test.js, "4p FFA".
TEST(WengLinTest, OpenSkillFourPlayers) {
  const WengLinRating r;
  const Teams out = Rate({{r}, {r}, {r}, {r}}, {1, 2, 3, 4});
  ExpectPlayer(out[0][0], 27.795084971874736, 8.263160757613477);
  ExpectPlayer(out[1][0], 26.552824984374855, 8.179213704945203);
  ExpectPlayer(out[2][0], 24.68943500312503, 8.083731307186588);
  ExpectPlayer(out[3][0], 20.96265504062538, 8.083731307186588);
}

// openskill.js src/models/__tests__/plackett-luce.test.js, "5p FFA".
TEST(WengLinTest, OpenSkillFivePlayers) {
  const WengLinRating r;
  const Teams out = Rate({{r}, {r}, {r}, {r}, {r}}, {1, 2, 3, 4, 5});
  ExpectPlayer(out[0][0], 27.666666666666668, 8.290556877154474);
  ExpectPlayer(out[1][0], 26.833333333333332, 8.240145629781066);
  ExpectPlayer(out[2][0], 25.72222222222222, 8.179996679645559);
  ExpectPlayer(out[3][0], 24.055555555555557, 8.111796013701358);
  ExpectPlayer(out[4][0], 20.72222222222222, 8.111796013701358);
}

// openskill.js src/models/__tests__/plackett-luce.test.js, "3 teams different sized players":
// teams of 3, 1 and 2 new players placed in that order.
TEST(WengLinTest, OpenSkillThreeTeamsOfDifferentSizes) {
  const WengLinRating r;
  const Teams out = Rate({{r, r, r}, {r}, {r, r}}, {1, 2, 3});
  for (const WengLinRating& p : out[0]) ExpectPlayer(p, 25.939870821784513, 8.247641552260456);
  ExpectPlayer(out[1][0], 27.21366020491262, 8.274321317985242);
  for (const WengLinRating& p : out[2]) ExpectPlayer(p, 21.84646897330287, 8.213058173195341);
}

// openskill.py tests/models/data/plackettluce.json, "normal": a model with μ 30.9227929079249,
// σ 6.478417585666653 (β 25/6 and τ 25/300, openskill.py's defaults) rates [[a], [b, c]] with the
// first team winning.
TEST(WengLinTest, OpenSkillPyWithAdditiveDynamics) {
  WengLinParams p;
  p.mu = 30.9227929079249;
  p.sigma = 6.478417585666653;
  p.tau = 25.0 / 300.0;
  const WengLinRating r{p.mu, p.sigma};
  const Teams out = Rate({{r}, {r, r}}, {1, 2}, p);
  ExpectPlayer(out[0][0], 33.969011487326654, 6.446958847986065);
  ExpectPlayer(out[1][0], 27.876574328523148, 6.433659614219379);
  ExpectPlayer(out[1][1], 27.876574328523148, 6.433659614219379);
}

// Derived with services/ratings/model/testdata/reference_vectors.py (the paper's Algorithm 4
// written out independently): a 2v2 between new players.
TEST(WengLinTest, TwoVersusTwo) {
  const WengLinRating r;
  const Teams out = Rate({{r, r}, {r, r}}, {1, 2});
  for (const WengLinRating& p : out[0]) ExpectPlayer(p, 26.9641855033, 8.1775563577);
  for (const WengLinRating& p : out[1]) ExpectPlayer(p, 23.0358144967, 8.1775563577);
}

// reference_vectors.py: a 2v2 with uneven players; the second team wins. Team-mates move in
// proportion to their own variance.
TEST(WengLinTest, TwoVersusTwoUneven) {
  const Teams out = Rate({{{30.0, 5.0}, {20.0, 7.0}}, {{25.0, 25.0 / 3}, {28.0, 3.0}}}, {2, 1});
  ExpectPlayer(out[0][0], 29.1860951358, 4.9478621667);
  ExpectPlayer(out[0][1], 18.4047464661, 6.8562027262);
  ExpectPlayer(out[1][0], 27.2608468451, 8.0823270375);
  ExpectPlayer(out[1][1], 28.2930057511, 2.9884431615);
}

// reference_vectors.py: a two-player tie between equals moves neither μ; both σ shrink as after a
// decisive game.
TEST(WengLinTest, TieBetweenTwoEquals) {
  const WengLinRating r;
  const Teams out = Rate({{r}, {r}}, {1, 1});
  ExpectPlayer(out[0][0], 25.0, 8.0655063163);
  ExpectPlayer(out[1][0], 25.0, 8.0655063163);
}

// reference_vectors.py: three new players, the first two tie for first.
TEST(WengLinTest, TieForFirstOfThree) {
  const WengLinRating r;
  const Teams out = Rate({{r}, {r}, {r}}, {1, 1, 3});
  ExpectPlayer(out[0][0], 25.7172191382, 8.2048370308);
  ExpectPlayer(out[1][0], 25.7172191382, 8.2048370308);
  ExpectPlayer(out[2][0], 23.5655617236, 8.2048370308);
  // Only the order of ranks matters.
  const Teams dense = Rate({{r}, {r}, {r}}, {1, 1, 2});
  ExpectPlayer(dense[2][0], 23.5655617236, 8.2048370308);
}

TEST(WengLinTest, OrderOfTeamsDoesNotMatter) {
  const Teams a = Rate({{{28, 4}}, {{22, 6}}, {{25, 8}}}, {3, 1, 2});
  const Teams b = Rate({{{25, 8}}, {{28, 4}}, {{22, 6}}}, {2, 3, 1});
  ExpectPlayer(a[0][0], b[1][0].mu, b[1][0].sigma, 1e-12);
  ExpectPlayer(a[1][0], b[2][0].mu, b[2][0].sigma, 1e-12);
  ExpectPlayer(a[2][0], b[0][0].mu, b[0][0].sigma, 1e-12);
}

TEST(WengLinTest, ZeroSumBetweenEqualTeams) {
  const Teams out = Rate({{{31, 3}}, {{31, 3}}}, {2, 1});
  EXPECT_NEAR(out[0][0].mu - 31, 31 - out[1][0].mu, 1e-12);
}

TEST(WengLinTest, HugeRatingsStayFinite) {
  const Teams out = Rate({{{5000, 1}}, {{-5000, 1}}}, {2, 1});
  EXPECT_TRUE(std::isfinite(out[0][0].mu));
  EXPECT_TRUE(std::isfinite(out[1][0].sigma));
}

TEST(WengLinTest, SigmaNeverCollapsesBelowKappaBound) {
  WengLinRating a{25, 25.0 / 3};
  WengLinRating b{25, 25.0 / 3};
  for (int i = 0; i < 2000; ++i) {
    const Teams out = Rate({{a}, {b}}, {1, 2});
    a = out[0][0];
    b = out[1][0];
  }
  EXPECT_GT(a.sigma, 0);
  EXPECT_GT(b.sigma, 0);
  EXPECT_GT(a.mu, b.mu);
}

TEST(WengLinTest, RejectsMalformedGames) {
  const WengLinRating r;
  EXPECT_EQ(WengLinRate({{r}}, {1}, {}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(WengLinRate({{r}, {}}, {1, 2}, {}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(WengLinRate({{r}, {r}}, {1}, {}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(WengLinRate({{r}, {{25, 0}}}, {1, 2}, {}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(WengLinRate({{r}, {{NAN, 1}}}, {1, 2}, {}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(WengLinTest, AdditiveDynamicsAndIdleGrowthAreCapped) {
  WengLinParams p;
  p.tau = 25.0 / 300.0;
  p.periods_per_day = 1.0;
  // A new player is already at the cap.
  EXPECT_DOUBLE_EQ(WengLinIdle({25, 25.0 / 3}, 100, p).sigma, 25.0 / 3);
  const WengLinRating settled{30, 3};
  EXPECT_NEAR(WengLinIdle(settled, 10, p).sigma, std::sqrt(9 + 10 * p.tau * p.tau), 1e-12);
  EXPECT_DOUBLE_EQ(WengLinIdle(settled, 1e6, p).sigma, 25.0 / 3);
  EXPECT_EQ(WengLinIdle(settled, 10, p).mu, 30);
  p.tau = 0;
  EXPECT_EQ(WengLinIdle(settled, 10, p).sigma, 3);
}

}  // namespace
}  // namespace parlor::ratings::model
