#include "engine/bots/bot.h"

#include <algorithm>
#include <limits>
#include <map>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace parlor::bots {

using engine::Action;
using engine::Rng;
using engine::SeatSet;
using engine::State;

Bot::~Bot() = default;

absl::Status CannotAct(const State& state, int seat) {
  if (state.IsTerminal()) return absl::FailedPreconditionError("the game is over");
  return absl::FailedPreconditionError(absl::StrCat("seat ", seat, " may not act now"));
}

namespace {

// Index of a best value; ties are broken uniformly at random.
size_t ArgMaxRandomTie(const std::vector<double>& values, Rng& rng) {
  double best = -std::numeric_limits<double>::infinity();
  std::vector<size_t> ties;
  for (size_t i = 0; i < values.size(); ++i) {
    if (values[i] > best) {
      best = values[i];
      ties.assign(1, i);
    } else if (values[i] == best) {
      ties.push_back(i);
    }
  }
  return ties[rng.Uniform(ties.size())];
}

// The copy of `state` a bot explores after `seat` plays `action`: hidden information redrawn,
// and the other seats' choices of the same simultaneous step filled in at random. Null if the
// action does not apply (which would be a bug in the game).
std::unique_ptr<State> ExploreAfter(const State& state, int seat, Action action, Rng& rng) {
  std::unique_ptr<State> copy = state.ResampleHidden(seat, rng);
  SeatSet others = state.ActingSeats();
  others.Erase(seat);
  if (!copy->Apply(seat, action).ok()) return nullptr;
  ResolveOthersAtRandom(*copy, others, rng);
  return copy;
}

}  // namespace

double FinalValue(const State& state, int seat) {
  const engine::Outcome outcome = state.GetOutcome();
  const int n = state.num_players();
  // The share of the other sides finished ahead of, a tie counting half: a draw is worth less
  // than a win.
  std::map<int, int> other_sides;  // team -> rank
  for (int s = 0; s < n; ++s) {
    if (state.TeamOf(s) != state.TeamOf(seat)) other_sides[state.TeamOf(s)] = outcome.ranks[s];
  }
  double beaten = 0.0;
  for (const auto& [team, rank] : other_sides) {
    beaten += rank > outcome.ranks[seat] ? 1.0 : rank == outcome.ranks[seat] ? 0.5 : 0.0;
  }
  const double position = other_sides.empty() ? 1.0 : beaten / other_sides.size();
  int64_t best_other = std::numeric_limits<int64_t>::min();
  for (int s = 0; s < n; ++s) {
    if (state.TeamOf(s) != state.TeamOf(seat)) best_other = std::max(best_other, outcome.scores[s]);
  }
  const double margin = best_other == std::numeric_limits<int64_t>::min()
                            ? 0.0
                            : static_cast<double>(outcome.scores[seat] - best_other);
  return position + 1e-6 * margin;
}

double CutOffValue(const State& state, int seat) {
  const double h = state.Heuristic(seat);
  return (h > 0 ? 0.75 : h < 0 ? 0.25 : 0.5) + 1e-6 * h;
}

absl::StatusOr<Action> RandomLegalAction(const State& state, int seat, Rng& rng) {
  std::vector<Action> legal = state.LegalActions(seat);
  if (legal.empty()) return CannotAct(state, seat);
  return legal[rng.Uniform(legal.size())];
}

void ResolveOthersAtRandom(State& state, SeatSet seats, Rng& rng) {
  for (int other : seats.ToVector()) {
    if (state.IsTerminal() || !state.ActingSeats().Contains(other)) continue;
    absl::StatusOr<Action> action = RandomLegalAction(state, other, rng);
    if (action.ok()) state.Apply(other, *action).IgnoreError();
  }
}

absl::StatusOr<Action> RandomBot::Choose(const State& state, int seat, Rng& rng) {
  return RandomLegalAction(state, seat, rng);
}

absl::StatusOr<Action> KindFirstBot::Choose(const State& state, int seat, Rng& rng) {
  std::vector<Action> legal = state.LegalActions(seat);
  if (legal.empty()) return CannotAct(state, seat);
  std::map<int, std::vector<Action>> by_kind;
  for (Action a : legal) by_kind[state.ActionKind(a)].push_back(a);
  auto kind = by_kind.begin();
  std::advance(kind, static_cast<long>(rng.Uniform(by_kind.size())));
  return kind->second[rng.Uniform(kind->second.size())];
}

absl::StatusOr<Action> GreedyBot::Choose(const State& state, int seat, Rng& rng) {
  std::vector<Action> legal = state.LegalActions(seat);
  if (legal.empty()) return CannotAct(state, seat);
  if (legal.size() == 1) return legal[0];
  std::vector<double> values(legal.size(), 0.0);
  for (size_t i = 0; i < legal.size(); ++i) {
    for (int k = 0; k < samples_; ++k) {
      std::unique_ptr<State> copy = ExploreAfter(state, seat, legal[i], rng);
      if (copy == nullptr) {
        return absl::InternalError(absl::StrCat("legal action ", legal[i], " of seat ", seat,
                                                " does not apply on a resampled copy"));
      }
      values[i] += copy->Heuristic(seat);
    }
  }
  return legal[ArgMaxRandomTie(values, rng)];
}

absl::StatusOr<Action> MonteCarloBot::Choose(const State& state, int seat, Rng& rng) {
  std::vector<Action> legal = state.LegalActions(seat);
  if (legal.empty()) return CannotAct(state, seat);
  if (legal.size() == 1) return legal[0];
  std::vector<double> values(legal.size(), 0.0);
  for (size_t i = 0; i < legal.size(); ++i) {
    for (int k = 0; k < playouts_; ++k) {
      std::unique_ptr<State> copy = ExploreAfter(state, seat, legal[i], rng);
      if (copy == nullptr) {
        return absl::InternalError(absl::StrCat("legal action ", legal[i], " of seat ", seat,
                                                " does not apply on a resampled copy"));
      }
      for (int moves = 0; !copy->IsTerminal() && moves < max_playout_moves_; ++moves) {
        const std::vector<int> acting = copy->ActingSeats().ToVector();
        const int mover = acting[rng.Uniform(acting.size())];
        absl::StatusOr<Action> action = RandomLegalAction(*copy, mover, rng);
        if (!action.ok()) return action.status();
        if (absl::Status s = copy->Apply(mover, *action); !s.ok()) return s;
      }
      values[i] += copy->IsTerminal() ? FinalValue(*copy, seat) : CutOffValue(*copy, seat);
    }
  }
  return legal[ArgMaxRandomTie(values, rng)];
}

std::vector<std::string> BotLevels() { return {"easy", "medium", "hard"}; }

std::vector<std::string> BotNames() {
  return {"easy", "medium", "hard", "random", "kind_first", "greedy", "mc"};
}

absl::StatusOr<std::unique_ptr<Bot>> MakeBot(absl::string_view name) {
  if (name == "random" || name == "easy") return std::make_unique<RandomBot>();
  if (name == "kind_first") return std::make_unique<KindFirstBot>();
  if (name == "greedy" || name == "medium") return std::make_unique<GreedyBot>();
  if (name == "hard") return std::make_unique<IsmctsBot>();
  if (name == "mc") return std::make_unique<MonteCarloBot>();
  return absl::InvalidArgumentError(
      absl::StrCat("unknown bot \"", name, "\"; bots are: ", absl::StrJoin(BotNames(), ", ")));
}

absl::StatusOr<std::unique_ptr<State>> PlayGame(std::unique_ptr<State> state,
                                                const std::vector<Bot*>& bots, Rng& rng) {
  if (static_cast<int>(bots.size()) != state->num_players()) {
    return absl::InvalidArgumentError(absl::StrCat("PlayGame needs one bot per seat: got ",
                                                   bots.size(), " for ", state->num_players(),
                                                   " seats"));
  }
  RandomBot forfeited_seat_bot;
  const int64_t max_moves = state->game().MaxMoves(state->num_players(), state->options());
  while (!state->IsTerminal()) {
    if (state->NumMoves() >= max_moves) {
      return absl::InternalError(absl::StrCat(state->game().name(), " is not over after ",
                                              state->NumMoves(), " moves, its declared bound"));
    }
    const std::vector<int> acting = state->ActingSeats().ToVector();
    const int seat = acting[rng.Uniform(acting.size())];
    Bot* bot = state->IsForfeited(seat) ? &forfeited_seat_bot : bots[seat];
    absl::StatusOr<Action> action = bot->Choose(*state, seat, rng);
    if (!action.ok()) return action.status();
    if (absl::Status s = state->Apply(seat, *action); !s.ok()) {
      return absl::InternalError(absl::StrCat("bot ", bot->name(), " chose ",
                                              state->ActionToString(seat, *action), " for seat ",
                                              seat, ", which was refused: ", s.message()));
    }
  }
  return state;
}

}  // namespace parlor::bots
