#ifndef PARLOR_SERVICES_RATINGS_MODEL_GLICKO2_H_
#define PARLOR_SERVICES_RATINGS_MODEL_GLICKO2_H_

#include <vector>

namespace parlor::ratings::model {

// Glicko-2, as specified in Mark Glickman, "Example of the Glicko-2 system" (Boston University,
// 2013). Ratings are kept on the Glicko scale (rating r, rating deviation RD, volatility σ); the
// conversion to the Glicko-2 scale (μ, φ) and back is internal.
//
// How Parlor uses it: every game is its own rating period, so a player's update after a game uses
// exactly one opponent (Glicko2RateGame). Between games RD grows with the time the player was
// inactive: `periods_per_day` says how many rating periods one day of inactivity counts for, and
// each idle period applies step 6 of the paper (φ ← sqrt(φ² + σ²)), capped at `max_deviation`.
// With the defaults (0.2 periods a day, σ = 0.06) an established player at RD 50 drifts to about
// RD 100 after a year without a game, and a new player's RD 350 can never grow.
struct Glicko2Params {
  double initial_rating = 1500.0;
  double initial_deviation = 350.0;
  double initial_volatility = 0.06;
  // The system constant τ: how much volatility may change in one period. Glickman suggests
  // 0.3 to 1.2; his worked example uses 0.5.
  double tau = 0.5;
  // Rating periods per day of inactivity (fractions allowed). 0 disables growth with idle time.
  double periods_per_day = 0.2;
  // Upper bound on RD, whether reached by inactivity or by a period's own step 6.
  double max_deviation = 350.0;
  // Convergence tolerance of the Illinois iteration (step 5), on the Glicko-2 scale.
  double epsilon = 1e-6;
};

struct Glicko2Rating {
  double rating = 1500.0;
  double deviation = 350.0;
  double volatility = 0.06;
};

// One game of a rating period, from the rated player's side.
struct Glicko2Game {
  Glicko2Rating opponent;
  double score = 0.0;  // 1 win, 0.5 draw, 0 loss
};

// A new player's rating under `params`.
Glicko2Rating Glicko2Initial(const Glicko2Params& params);

// Steps 2–8 of the paper for one rating period containing `games` (all played against the
// opponents' ratings at the start of the period). With no games only step 6 applies.
Glicko2Rating Glicko2Update(const Glicko2Rating& player, const std::vector<Glicko2Game>& games,
                            const Glicko2Params& params);

// RD growth for `idle_days` without a game: φ ← sqrt(φ² + periods·σ²), periods =
// idle_days·periods_per_day, capped at max_deviation. Rating and volatility are unchanged.
Glicko2Rating Glicko2Idle(const Glicko2Rating& player, double idle_days,
                          const Glicko2Params& params);

struct Glicko2Pair {
  Glicko2Rating a;
  Glicko2Rating b;
};

// One two-sided game as its own rating period: both players are first aged by their idle days,
// then each is updated against the other's aged pre-game rating. `score_a` is 1 if a won, 0.5 for
// a draw, 0 if b won.
Glicko2Pair Glicko2RateGame(const Glicko2Rating& a, double a_idle_days, const Glicko2Rating& b,
                            double b_idle_days, double score_a, const Glicko2Params& params);

}  // namespace parlor::ratings::model

#endif  // PARLOR_SERVICES_RATINGS_MODEL_GLICKO2_H_
