#include "services/ratings/model/ladder.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace parlor::ratings::model {
namespace {

double InitialDeviation(const LadderSpec& l) {
  return l.model == ModelKind::kGlicko2 ? l.glicko2.initial_deviation : l.weng_lin.sigma;
}
double InitialValue(const LadderSpec& l) {
  return l.model == ModelKind::kGlicko2 ? l.glicko2.initial_rating : l.weng_lin.mu;
}

absl::StatusOr<std::vector<Rating>> RateGlicko2(const LadderSpec& ladder,
                                                const std::vector<Participant>& ps) {
  if (ps.size() != 2 || ps[0].side == ps[1].side) {
    return absl::InvalidArgumentError(
        absl::StrCat("ladder ", ladder.name, " rates games of exactly two single players"));
  }
  const double score_a = ps[0].rank < ps[1].rank ? 1.0 : ps[0].rank == ps[1].rank ? 0.5 : 0.0;
  const Glicko2Pair out = Glicko2RateGame(
      {ps[0].rating.value, ps[0].rating.deviation, ps[0].rating.volatility}, ps[0].idle_days,
      {ps[1].rating.value, ps[1].rating.deviation, ps[1].rating.volatility}, ps[1].idle_days,
      score_a, ladder.glicko2);
  return std::vector<Rating>{
      {out.a.rating, out.a.deviation, out.a.volatility, ps[0].rating.games + 1},
      {out.b.rating, out.b.deviation, out.b.volatility, ps[1].rating.games + 1}};
}

absl::StatusOr<std::vector<Rating>> RateWengLin(const LadderSpec& ladder,
                                                const std::vector<Participant>& ps) {
  // Group participants by side, in order of first appearance.
  std::map<int, size_t> side_index;
  std::vector<std::vector<WengLinRating>> teams;
  std::vector<int> ranks;
  std::vector<std::pair<size_t, size_t>> where(ps.size());
  for (size_t i = 0; i < ps.size(); ++i) {
    auto [it, inserted] = side_index.emplace(ps[i].side, teams.size());
    if (inserted) {
      teams.emplace_back();
      ranks.push_back(ps[i].rank);
    } else if (ranks[it->second] != ps[i].rank) {
      return absl::InvalidArgumentError(
          absl::StrCat("team ", ps[i].side, " has players with different ranks"));
    }
    const WengLinRating aged =
        WengLinIdle({ps[i].rating.value, ps[i].rating.deviation}, ps[i].idle_days, ladder.weng_lin);
    where[i] = {it->second, teams[it->second].size()};
    teams[it->second].push_back(aged);
  }
  auto rated = WengLinRate(teams, ranks, ladder.weng_lin);
  if (!rated.ok()) return rated.status();
  std::vector<Rating> out;
  out.reserve(ps.size());
  for (size_t i = 0; i < ps.size(); ++i) {
    const WengLinRating& r = (*rated)[where[i].first][where[i].second];
    out.push_back({r.mu, r.sigma, 0.0, ps[i].rating.games + 1});
  }
  return out;
}

LadderSpec Glicko2Ladder(std::string name, std::string game) {
  LadderSpec l;
  l.name = std::move(name);
  l.game = std::move(game);
  l.model = ModelKind::kGlicko2;
  l.min_seats = l.max_seats = 2;
  // Lichess's threshold: RD above 110 is provisional.
  l.provisional = {110.0, 5};
  return l;
}

LadderSpec WengLinLadder(std::string name, std::string game, int min_seats, int max_seats,
                         bool teams) {
  LadderSpec l;
  l.name = std::move(name);
  l.game = std::move(game);
  l.model = ModelKind::kWengLin;
  l.min_seats = min_seats;
  l.max_seats = max_seats;
  l.teams = teams;
  l.weng_lin.tau = 25.0 / 300.0;  // openskill.py's default additive dynamics
  // About ten two-player games between new players bring σ from 8.33 to 6.2.
  l.provisional = {6.5, 5};
  return l;
}

}  // namespace

absl::string_view ModelKindName(ModelKind kind) {
  return kind == ModelKind::kGlicko2 ? "glicko2" : "weng-lin";
}

Rating LadderSpec::Initial() const {
  if (model == ModelKind::kGlicko2) {
    return {glicko2.initial_rating, glicko2.initial_deviation, glicko2.initial_volatility, 0};
  }
  return {weng_lin.mu, weng_lin.sigma, 0.0, 0};
}

double LadderSpec::Conservative(const Rating& r) const {
  return model == ModelKind::kGlicko2 ? r.value - 2.0 * r.deviation : r.value - 3.0 * r.deviation;
}

bool LadderSpec::Provisional(const Rating& r) const {
  return r.deviation > provisional.max_deviation || r.games < provisional.min_games;
}

Rating LadderSpec::ApplySeasonReset(const Rating& r) const {
  const double mean = InitialValue(*this);
  const double initial_dev = InitialDeviation(*this);
  const double pull = std::clamp(season_reset.pull, 0.0, 1.0);
  const double boost = season_reset.deviation_boost * initial_dev;
  Rating out = r;
  out.value = mean + (r.value - mean) * (1.0 - pull);
  if (!Provisional(r)) return out;  // established: the deviation carries over unchanged
  out.deviation = std::max(
      r.deviation, std::min(initial_dev, std::sqrt(r.deviation * r.deviation + boost * boost)));
  return out;
}

Rating LadderSpec::Idle(const Rating& r, double idle_days) const {
  Rating out = r;
  if (model == ModelKind::kGlicko2) {
    out.deviation = Glicko2Idle({r.value, r.deviation, r.volatility}, idle_days, glicko2).deviation;
  } else {
    out.deviation = WengLinIdle({r.value, r.deviation}, idle_days, weng_lin).sigma;
  }
  return out;
}

double LadderSpec::DisplayPointsPerUnit() const {
  if (model == ModelKind::kGlicko2) return 1.0;
  return 400.0 / (std::log(10.0) * std::sqrt(2.0) * weng_lin.beta);
}

double LadderSpec::Display(const Rating& r) const {
  if (model == ModelKind::kGlicko2) return r.value;
  constexpr double kCentre = 1500.0;
  return kCentre + DisplayPointsPerUnit() * (r.value - 3.0 * r.deviation - weng_lin.mu);
}

absl::StatusOr<std::vector<Rating>> Rate(const LadderSpec& ladder,
                                         const std::vector<Participant>& participants) {
  std::set<int> sides;
  for (const Participant& p : participants) {
    if (p.rank < 1) return absl::InvalidArgumentError("ranks start at 1");
    if (!std::isfinite(p.rating.value) || !std::isfinite(p.rating.deviation) ||
        !(p.rating.deviation > 0) || !std::isfinite(p.idle_days)) {
      return absl::InvalidArgumentError("a participant has an invalid rating");
    }
    sides.insert(p.side);
  }
  if (sides.size() < 2) return absl::InvalidArgumentError("a rated game needs at least two sides");
  if (ladder.model == ModelKind::kGlicko2) return RateGlicko2(ladder, participants);
  return RateWengLin(ladder, participants);
}

std::vector<LadderSpec> DerivedLadders(const GameFacts& game) {
  std::vector<LadderSpec> out;
  if (game.max_players <= 2) {
    out.push_back(Glicko2Ladder(game.game, game.game));
  } else {
    out.push_back(
        WengLinLadder(game.game, game.game, game.min_players, game.max_players, /*teams=*/false));
  }
  if (game.has_teams) {
    out.push_back(WengLinLadder(absl::StrCat(game.game, "-teams"), game.game, game.min_players,
                                game.max_players, /*teams=*/true));
  }
  return out;
}

LadderOverrides ParlorLadderOverrides() {
  LadderOverrides out;
  out["picadice"] = {Glicko2Ladder("picadice-duel", "picadice"),
                     WengLinLadder("picadice-doubles", "picadice", 4, 4, /*teams=*/true),
                     WengLinLadder("picadice-multi", "picadice", 3, 4, /*teams=*/false)};
  return out;
}

LadderRegistry LadderRegistry::Derive(const std::vector<GameFacts>& games,
                                      const LadderOverrides& overrides) {
  LadderRegistry r;
  for (const GameFacts& game : games) {
    auto it = overrides.find(game.game);
    const std::vector<LadderSpec> ladders =
        it != overrides.end() ? it->second : DerivedLadders(game);
    for (const LadderSpec& spec : ladders) r.Add(spec);
  }
  return r;
}

LadderRegistry LadderRegistry::Default() {
  return Derive({{.game = "pico", .min_players = 2, .max_players = 2},
                 {.game = "pict", .min_players = 2, .max_players = 2},
                 {.game = "picadice", .min_players = 2, .max_players = 4, .has_teams = true},
                 {.game = "pescado", .min_players = 2, .max_players = 4},
                 {.game = "kadice", .min_players = 2, .max_players = 4}});
}

void LadderRegistry::Add(LadderSpec spec) { ladders_.push_back(std::move(spec)); }

absl::StatusOr<const LadderSpec*> LadderRegistry::Find(absl::string_view name) const {
  for (const LadderSpec& l : ladders_) {
    if (l.name == name) return &l;
  }
  return absl::NotFoundError(absl::StrCat("no ladder named \"", name, "\""));
}

absl::StatusOr<const LadderSpec*> LadderRegistry::ForGame(const GameShape& shape) const {
  bool known_game = false;
  const bool has_teams = !shape.team_of.empty();
  if (has_teams && static_cast<int>(shape.team_of.size()) != shape.seats) {
    return absl::InvalidArgumentError(absl::StrCat("teams are given for ", shape.team_of.size(),
                                                   " seats but the game has ", shape.seats));
  }
  // A "team" layout where every seat is its own team is a game without teams.
  bool real_teams = false;
  if (has_teams) {
    std::map<int, int> sizes;
    for (int t : shape.team_of) ++sizes[t];
    if (sizes.size() < 2) return absl::InvalidArgumentError("all seats are on one team");
    const int size = sizes.begin()->second;
    for (const auto& [team, n] : sizes) {
      if (n != size) return absl::InvalidArgumentError("teams must be of equal size");
    }
    real_teams = size > 1;
  }
  for (const LadderSpec& l : ladders_) {
    if (l.game != shape.game) continue;
    known_game = true;
    if (shape.seats < l.min_seats || shape.seats > l.max_seats) continue;
    if (l.teams != real_teams) continue;
    if (l.teams) {
      // Doubles: two teams of two.
      std::map<int, int> sizes;
      for (int t : shape.team_of) ++sizes[t];
      if (sizes.size() != 2) continue;
    }
    return &l;
  }
  if (!known_game) {
    return absl::InvalidArgumentError(absl::StrCat("game \"", shape.game, "\" is not rated"));
  }
  return absl::InvalidArgumentError(absl::StrCat("no ", shape.game, " ladder takes a game of ",
                                                 shape.seats, " seats",
                                                 real_teams ? " in teams" : ""));
}

}  // namespace parlor::ratings::model
