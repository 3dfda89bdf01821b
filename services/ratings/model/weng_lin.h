#ifndef PARLOR_SERVICES_RATINGS_MODEL_WENG_LIN_H_
#define PARLOR_SERVICES_RATINGS_MODEL_WENG_LIN_H_

#include <vector>

#include "absl/status/statusor.h"

namespace parlor::ratings::model {

// Weng-Lin Bayesian online ranking with the Plackett–Luce model: Ruby C. Weng and Chih-Jen Lin,
// "A Bayesian Approximation Method for Online Ranking", JMLR 12 (2011), Algorithm 4, with the
// choices openskill makes (openskill.js / openskill.py `PlackettLuce`): team strength is the sum
// of its players' μ and σ², c = sqrt(Σ_teams (σ_team² + β²)), γ_i = sqrt(σ_i²)/c, and κ bounds
// the variance shrink factor from below. Ties are equal ranks (A_q counts the teams sharing
// q's rank, as in the paper).
//
// How Parlor uses it: each game is one update; `tau` is openskill's additive dynamics factor,
// applied once per game (σ ← sqrt(σ² + τ²) before the update) and once per idle rating period
// (`periods_per_day` per day of inactivity, as for Glicko-2), never above `max_sigma`.
struct WengLinParams {
  double mu = 25.0;
  double sigma = 25.0 / 3.0;
  double beta = 25.0 / 6.0;
  double kappa = 0.0001;
  // Additive dynamics per game and per idle period. 0 reproduces openskill.js's default `rate`
  // (and the published vectors); the ladders use openskill.py's default 25/300.
  double tau = 0.0;
  double periods_per_day = 0.2;
  double max_sigma = 25.0 / 3.0;
};

struct WengLinRating {
  double mu = 25.0;
  double sigma = 25.0 / 3.0;
};

WengLinRating WengLinInitial(const WengLinParams& params);

// Rates one game. `teams[t]` lists team t's players; `ranks[t]` is team t's placement (lower is
// better; equal ranks are a tie; only the order matters, so 1,1,3 and 1,1,2 are the same). Returns
// the new ratings in the same shape. INVALID_ARGUMENT for fewer than two teams, an empty team,
// ranks of the wrong length, or a non-finite or non-positive input.
absl::StatusOr<std::vector<std::vector<WengLinRating>>> WengLinRate(
    const std::vector<std::vector<WengLinRating>>& teams, const std::vector<int>& ranks,
    const WengLinParams& params);

// σ growth for `idle_days` without a game: σ² += periods·τ², capped at max_sigma.
WengLinRating WengLinIdle(const WengLinRating& player, double idle_days,
                          const WengLinParams& params);

}  // namespace parlor::ratings::model

#endif  // PARLOR_SERVICES_RATINGS_MODEL_WENG_LIN_H_
