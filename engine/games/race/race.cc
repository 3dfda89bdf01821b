#include "engine/games/race/race.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace parlor::games::race {
namespace {

using engine::Action;
using engine::SeatSet;

// How much an action adds, for a seat whose boost card is `boost`.
int Amount(Action action, int boost) { return action == kBoost ? boost : static_cast<int>(action); }

}  // namespace

// ---- RaceGame ---------------------------------------------------------------------------------

RaceGame::RaceGame()
    : Game({.name = "race",
            .display_name = "Race",
            .summary = "A test-only race to a target total: players add 1, 2 or 3 in turn, or play "
                       "their one secret boost card (4, 5 or 6); whoever reaches the target "
                       "exactly wins.",
            .min_players = 2,
            .max_players = kMaxPlayers,
            .has_teams = false,
            .options = {engine::OptionSpec::Int("target", "The total to reach exactly: 10 to 30.",
                                                21, 10, 30)},
            .action_kinds = {"add", "boost"}}) {}

int64_t RaceGame::MaxMoves(int num_players, const engine::Options& options) const {
  // Every move adds at least 1; each seat may forfeit once.
  return options.Get("target") + num_players;
}

std::unique_ptr<engine::State> RaceGame::CreateState(
    int num_players, std::shared_ptr<const engine::Options> options) const {
  return std::make_unique<RaceState>(*this, num_players, options);
}

void Register(engine::Registry& registry) { registry.Add(std::make_unique<RaceGame>()); }

// ---- RaceState --------------------------------------------------------------------------------

RaceState::RaceState(const engine::Game& game, int num_players,
                     const std::shared_ptr<const engine::Options>& options)
    : State(game, num_players, options), target_(static_cast<int>(options->Get("target"))) {}

std::unique_ptr<engine::State> RaceState::CloneImpl() const {
  return std::unique_ptr<engine::State>(new RaceState(*this));
}

void RaceState::SetupImpl(engine::Chance& chance) {
  for (int seat = 0; seat < num_players(); ++seat) {
    players_[seat].boost = kMinBoost + chance.Uniform(kMaxBoost - kMinBoost + 1);
  }
}

SeatSet RaceState::ActingSeatsImpl() const {
  return IsTerminalImpl() ? SeatSet() : SeatSet::Of(next_seat_);
}

bool RaceState::IsTerminalImpl() const { return total_ == target_; }

void RaceState::LegalActionsImpl(int seat, std::vector<Action>* out) const {
  for (Action step = 1; step <= 3; ++step) {
    if (total_ + step <= target_) out->push_back(step);
  }
  const Player& p = players_[seat];
  if (!p.boost_played && total_ + p.boost <= target_) out->push_back(kBoost);
}

absl::Status RaceState::CheckActionImpl(int seat, Action action) const {
  if (action < 1 || action > kBoost) {
    return absl::InvalidArgumentError(
        absl::StrCat("no Race action has code ", action, "; 1, 2 or 3 add, 4 plays the boost"));
  }
  const Player& p = players_[seat];
  if (action == kBoost && p.boost_played) {
    return absl::FailedPreconditionError("you already played your boost card");
  }
  const int amount = Amount(action, p.boost);
  if (total_ + amount > target_) {
    return absl::FailedPreconditionError(
        absl::StrCat(action == kBoost ? "your boost card" : absl::StrCat("adding ", amount),
                     " would pass the target ", target_, " (the total is ", total_, ")"));
  }
  return absl::OkStatus();
}

void RaceState::ApplyImpl(int seat, Action action, engine::Chance&) {
  Player& p = players_[seat];
  const int amount = Amount(action, p.boost);
  if (action == kBoost) p.boost_played = true;
  p.added += amount;
  total_ += amount;
  if (total_ == target_) winner_ = seat;
  next_seat_ = (seat + 1) % num_players();
}

std::vector<int> RaceState::RanksImpl() const {
  std::vector<int> ranks(num_players(), 2);
  ranks[winner_] = 1;
  return ranks;
}

std::vector<int64_t> RaceState::ScoresImpl() const {
  std::vector<int64_t> scores;
  scores.reserve(num_players());
  for (int seat = 0; seat < num_players(); ++seat) scores.push_back(players_[seat].added);
  return scores;
}

std::string RaceState::EndReasonImpl() const {
  return absl::StrCat("seat ", winner_, " reached ", target_);
}

}  // namespace parlor::games::race
