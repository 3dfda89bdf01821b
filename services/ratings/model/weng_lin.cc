#include "services/ratings/model/weng_lin.h"

#include <algorithm>
#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace parlor::ratings::model {

WengLinRating WengLinInitial(const WengLinParams& params) { return {params.mu, params.sigma}; }

absl::StatusOr<std::vector<std::vector<WengLinRating>>> WengLinRate(
    const std::vector<std::vector<WengLinRating>>& teams, const std::vector<int>& ranks,
    const WengLinParams& params) {
  const size_t k = teams.size();
  if (k < 2) return absl::InvalidArgumentError("a game needs at least two teams");
  if (ranks.size() != k) {
    return absl::InvalidArgumentError(
        absl::StrCat("got ", ranks.size(), " ranks for ", k, " teams"));
  }
  for (size_t t = 0; t < k; ++t) {
    if (teams[t].empty()) return absl::InvalidArgumentError(absl::StrCat("team ", t, " is empty"));
    for (const WengLinRating& p : teams[t]) {
      if (!std::isfinite(p.mu) || !std::isfinite(p.sigma) || !(p.sigma > 0)) {
        return absl::InvalidArgumentError(absl::StrCat("team ", t, " has an invalid rating"));
      }
    }
  }
  // Additive dynamics (openskill's τ), applied before the update.
  std::vector<std::vector<WengLinRating>> in = teams;
  const double tau2 = params.tau * params.tau;
  if (tau2 > 0) {
    for (auto& team : in) {
      for (WengLinRating& p : team) {
        p.sigma =
            std::min(std::sqrt(p.sigma * p.sigma + tau2), std::max(p.sigma, params.max_sigma));
      }
    }
  }

  std::vector<double> team_mu(k, 0.0);
  std::vector<double> team_var(k, 0.0);
  double c2 = 0.0;
  for (size_t t = 0; t < k; ++t) {
    for (const WengLinRating& p : in[t]) {
      team_mu[t] += p.mu;
      team_var[t] += p.sigma * p.sigma;
    }
    c2 += team_var[t] + params.beta * params.beta;
  }
  const double c = std::sqrt(c2);
  // exp(θ_i / c) relative to the largest, so large μ cannot overflow; every use is a ratio.
  const double max_mu = *std::max_element(team_mu.begin(), team_mu.end());
  std::vector<double> ex(k);
  for (size_t t = 0; t < k; ++t) ex[t] = std::exp((team_mu[t] - max_mu) / c);
  // sum_q = Σ_{s : r(s) >= r(q)} exp(θ_s / c);  A_q = |{s : r(s) = r(q)}|.
  std::vector<double> sum_q(k, 0.0);
  std::vector<int> a(k, 0);
  for (size_t q = 0; q < k; ++q) {
    for (size_t s = 0; s < k; ++s) {
      if (ranks[s] >= ranks[q]) sum_q[q] += ex[s];
      if (ranks[s] == ranks[q]) ++a[q];
    }
  }

  std::vector<std::vector<WengLinRating>> out(k);
  for (size_t i = 0; i < k; ++i) {
    double omega = 0.0;
    double delta = 0.0;
    for (size_t q = 0; q < k; ++q) {
      if (ranks[q] > ranks[i]) continue;
      const double p = ex[i] / sum_q[q];
      delta += p * (1.0 - p) / a[q];
      omega += ((q == i ? 1.0 : 0.0) - p) / a[q];
    }
    omega *= team_var[i] / c;
    const double gamma = std::sqrt(team_var[i]) / c;
    delta *= gamma * team_var[i] / c2;
    out[i].reserve(in[i].size());
    for (const WengLinRating& p : in[i]) {
      const double share = p.sigma * p.sigma / team_var[i];
      out[i].push_back(
          {p.mu + share * omega, p.sigma * std::sqrt(std::max(1.0 - share * delta, params.kappa))});
    }
  }
  return out;
}

WengLinRating WengLinIdle(const WengLinRating& player, double idle_days,
                          const WengLinParams& params) {
  if (!(idle_days > 0) || !(params.periods_per_day > 0) || !(params.tau > 0)) return player;
  const double periods = idle_days * params.periods_per_day;
  const double grown = std::sqrt(player.sigma * player.sigma + periods * params.tau * params.tau);
  return {player.mu, std::max(player.sigma, std::min(grown, params.max_sigma))};
}

}  // namespace parlor::ratings::model
