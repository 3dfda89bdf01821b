#include "services/ratings/model/glicko2.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace parlor::ratings::model {
namespace {

// The paper's conversion factor between the Glicko and Glicko-2 scales (400 / ln 10).
constexpr double kScale = 173.7178;
constexpr double kCenter = 1500.0;
// The Illinois iteration converges in a handful of steps; this bound only guards against a
// non-finite input looping forever.
constexpr int kMaxIterations = 200;

double G(double phi) {
  return 1.0 / std::sqrt(1.0 + 3.0 * phi * phi / (std::numbers::pi * std::numbers::pi));
}

double E(double mu, double mu_j, double phi_j) {
  return 1.0 / (1.0 + std::exp(-G(phi_j) * (mu - mu_j)));
}

double MaxPhi(const Glicko2Params& params) { return params.max_deviation / kScale; }

// Step 5: the new volatility σ' by the Illinois algorithm.
double NewVolatility(double phi, double sigma, double v, double delta, const Glicko2Params& p) {
  const double a = std::log(sigma * sigma);
  const double tau2 = p.tau * p.tau;
  const double phi2 = phi * phi;
  const double delta2 = delta * delta;
  auto f = [&](double x) {
    const double ex = std::exp(x);
    const double d = phi2 + v + ex;
    return ex * (delta2 - phi2 - v - ex) / (2.0 * d * d) - (x - a) / tau2;
  };
  double A = a;
  double B;
  if (delta2 > phi2 + v) {
    B = std::log(delta2 - phi2 - v);
  } else {
    int k = 1;
    while (f(a - k * p.tau) < 0 && k < kMaxIterations) ++k;
    B = a - k * p.tau;
  }
  double fa = f(A);
  double fb = f(B);
  for (int i = 0; i < kMaxIterations && std::fabs(B - A) > p.epsilon; ++i) {
    const double C = A + (A - B) * fa / (fb - fa);
    const double fc = f(C);
    if (fc * fb <= 0) {
      A = B;
      fa = fb;
    } else {
      fa /= 2.0;
    }
    B = C;
    fb = fc;
  }
  return std::exp(A / 2.0);
}

}  // namespace

Glicko2Rating Glicko2Initial(const Glicko2Params& params) {
  return {params.initial_rating, params.initial_deviation, params.initial_volatility};
}

Glicko2Rating Glicko2Update(const Glicko2Rating& player, const std::vector<Glicko2Game>& games,
                            const Glicko2Params& params) {
  // Step 2: to the Glicko-2 scale.
  const double mu = (player.rating - kCenter) / kScale;
  const double phi = player.deviation / kScale;
  const double sigma = player.volatility;
  if (games.empty()) {
    // Step 6 alone for a player who did not compete.
    const double phi_new = std::min(std::sqrt(phi * phi + sigma * sigma), MaxPhi(params));
    return {player.rating, phi_new * kScale, sigma};
  }
  // Steps 3 and 4: estimated variance v and improvement Δ.
  double v_inv = 0.0;
  double sum = 0.0;
  for (const Glicko2Game& game : games) {
    const double mu_j = (game.opponent.rating - kCenter) / kScale;
    const double phi_j = game.opponent.deviation / kScale;
    const double g = G(phi_j);
    const double e = E(mu, mu_j, phi_j);
    v_inv += g * g * e * (1.0 - e);
    sum += g * (game.score - e);
  }
  const double v = 1.0 / v_inv;
  const double delta = v * sum;
  // Step 5.
  const double sigma_new = NewVolatility(phi, sigma, v, delta, params);
  // Step 6: pre-period deviation.
  const double phi_star = std::sqrt(phi * phi + sigma_new * sigma_new);
  // Step 7: new deviation and rating.
  double phi_new = 1.0 / std::sqrt(1.0 / (phi_star * phi_star) + 1.0 / v);
  phi_new = std::min(phi_new, MaxPhi(params));
  const double mu_new = mu + phi_new * phi_new * sum;
  // Step 8: back to the Glicko scale.
  return {kCenter + kScale * mu_new, kScale * phi_new, sigma_new};
}

Glicko2Rating Glicko2Idle(const Glicko2Rating& player, double idle_days,
                          const Glicko2Params& params) {
  if (!(idle_days > 0) || !(params.periods_per_day > 0)) return player;
  const double periods = idle_days * params.periods_per_day;
  const double phi = player.deviation / kScale;
  const double sigma = player.volatility;
  const double grown = std::sqrt(phi * phi + periods * sigma * sigma);
  // Never shrink a deviation that is already above the cap (e.g. from older parameters).
  const double capped = std::max(phi, std::min(grown, MaxPhi(params)));
  return {player.rating, capped * kScale, player.volatility};
}

Glicko2Pair Glicko2RateGame(const Glicko2Rating& a, double a_idle_days, const Glicko2Rating& b,
                            double b_idle_days, double score_a, const Glicko2Params& params) {
  const Glicko2Rating a0 = Glicko2Idle(a, a_idle_days, params);
  const Glicko2Rating b0 = Glicko2Idle(b, b_idle_days, params);
  return {Glicko2Update(a0, {{b0, score_a}}, params),
          Glicko2Update(b0, {{a0, 1.0 - score_a}}, params)};
}

}  // namespace parlor::ratings::model
