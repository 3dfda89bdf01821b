// Pico's rules: the game's metadata, the deal, legal actions and their checks, resolving a trick
// and the outcome. Views and action messages: pico_view.cc; the snapshot: pico_snapshot.cc.
#include "engine/games/pico/pico.h"

#include <bit>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "engine/games/pico/pico_internal.h"

namespace parlor::games::pico {
namespace {

using engine::Action;
using engine::SeatSet;
using internal::WinnerOf;

absl::Status NoSuchCard(int64_t value) {
  return absl::InvalidArgumentError(
      absl::StrCat("there is no Pico card ", value, "; cards are 2 to 13 and 16"));
}

}  // namespace

// ---- PicoGame ---------------------------------------------------------------------------------

PicoGame::PicoGame()
    : Game({.name = "pico",
            .display_name = "Pico",
            .summary = "A two-player bluffing card game with 13 numbered cards. In each trick both "
                       "players secretly pick a card at the same time; the larger number wins, "
                       "unless it is more than double the other, which then wins instead. The "
                       "winning card scores its dots; the losing card goes back to its owner's "
                       "hand. A round stops when a player is down to one card; in the return "
                       "round the players swap the hands they were dealt. Higher total wins.",
            .min_players = 2,
            .max_players = 2,
            .has_teams = false,
            .options = {engine::OptionSpec::IntOneOf(
                "rounds",
                "How many rounds the game has: 2, 4 or 6; each pair of rounds is a fresh deal and "
                "its return round with the hands swapped.",
                2, {2, 4, 6}, "rounds must be 2, 4 or 6")},
            .action_kinds = {"play_card"}}) {}

int64_t PicoGame::MaxMoves(int, const engine::Options& options) const {
  // Two choices per trick, at most 9 tricks per round, and one forfeit (which ends the game).
  return options.Get("rounds") * kMaxTricksPerRound * 2 + 1;
}

absl::Status PicoGame::ValidateSetup(int, const engine::Options& options) const {
  const int64_t rounds = options.Get("rounds");
  if (rounds != 2 && rounds != 4 && rounds != 6) {
    return absl::InvalidArgumentError("rounds must be 2, 4 or 6");
  }
  return absl::OkStatus();
}

std::unique_ptr<engine::State> PicoGame::CreateState(
    int, std::shared_ptr<const engine::Options> options) const {
  return std::make_unique<PicoState>(*this, std::move(options));
}

void Register(engine::Registry& registry) { registry.Add(std::make_unique<PicoGame>()); }

// ---- PicoState --------------------------------------------------------------------------------

PicoState::PicoState(const engine::Game& game, std::shared_ptr<const engine::Options> options)
    : State(game, 2, options), rounds_(static_cast<int>(options->Get("rounds"))) {}

std::unique_ptr<engine::State> PicoState::CloneImpl() const {
  return std::unique_ptr<engine::State>(new PicoState(*this));
}

void PicoState::Deal(engine::Chance& chance) {
  std::array<int32_t, kNumCards> order;
  for (int i = 0; i < kNumCards; ++i) order[i] = kCardValues[i];
  chance.Shuffle(order);
  for (int seat = 0; seat < 2; ++seat) {
    dealt_[seat] = 0;
    for (int k = 0; k < kHandSize; ++k) {
      dealt_[seat] |= static_cast<uint16_t>(1u << CardIndex(order[seat * kHandSize + k]));
    }
  }
  face_up_ = CardIndex(order[2 * kHandSize]);
}

void PicoState::SetupImpl(engine::Chance& chance) {
  Deal(chance);
  hand_ = dealt_;
  won_ = {0, 0};
}

int PicoState::TricksThisRound() const { return std::popcount(won_[0]) + std::popcount(won_[1]); }

int PicoState::total(int seat) const {
  int sum = 0;
  for (int r = 0; r < round_; ++r) sum += round_scores_[seat][r];
  return sum;
}

SeatSet PicoState::ActingSeatsImpl() const {
  SeatSet seats;
  if (IsTerminalImpl()) return seats;
  for (int seat = 0; seat < 2; ++seat) {
    if (pending_[seat] < 0) seats.Insert(seat);
  }
  return seats;
}

// Only the last round can end with a hand of one card: any earlier round is followed at once by
// the next round's full hands.
bool PicoState::IsTerminalImpl() const {
  return std::popcount(hand_[0]) == 1 || std::popcount(hand_[1]) == 1;
}

void PicoState::LegalActionsImpl(int seat, std::vector<Action>* out) const {
  for (uint32_t m = hand_[seat]; m != 0; m &= m - 1) {
    out->push_back(kCardValues[std::countr_zero(m)]);
  }
}

absl::Status PicoState::CheckActionImpl(int seat, Action action) const {
  const int card = CardIndex(action);
  if (card < 0) return NoSuchCard(action);
  const uint16_t bit = static_cast<uint16_t>(1u << card);
  if ((hand_[seat] & bit) != 0) return absl::OkStatus();
  const std::string prefix = absl::StrCat("card ", action, " is not in your hand: ");
  if (card == face_up_) {
    return absl::FailedPreconditionError(absl::StrCat(prefix, "it is the face-up card"));
  }
  if ((hand_[1 - seat] & bit) != 0) {
    return absl::FailedPreconditionError(absl::StrCat(prefix, "it is in your opponent's hand"));
  }
  if ((won_[seat] & bit) != 0) {
    return absl::FailedPreconditionError(absl::StrCat(prefix, "you won it this round"));
  }
  return absl::FailedPreconditionError(absl::StrCat(prefix, "your opponent won it this round"));
}

absl::Status PicoState::NotYourTurnImpl(int) const {
  // In a game not over, a seat may not act only when it has already chosen; whatever it sent
  // (engine/GAMES.md, "Refusals").
  return absl::FailedPreconditionError(
      "you already chose a card for this trick; wait for your opponent");
}

void PicoState::ApplyImpl(int seat, Action action, engine::Chance& chance) {
  const int card = CardIndex(action);
  const int other = 1 - seat;
  if (pending_[other] < 0) {
    pending_[seat] = static_cast<int8_t>(card);
    return;
  }
  // Both have chosen: reveal and resolve.
  pending_[seat] = static_cast<int8_t>(card);
  Trick& trick = tricks_[num_tricks_++];
  trick.round = static_cast<int8_t>(round_);
  trick.cards = pending_;
  const int winner = WinnerOf(trick.cards);
  const int winning_card = trick.cards[winner];
  const uint16_t bit = static_cast<uint16_t>(1u << winning_card);
  hand_[winner] &= static_cast<uint16_t>(~bit);
  won_[winner] |= bit;
  round_scores_[winner][round_ - 1] =
      static_cast<int16_t>(round_scores_[winner][round_ - 1] + kCardPoints[winning_card]);
  pending_ = {-1, -1};
  if (std::popcount(hand_[winner]) != 1 || round_ == rounds_) return;
  // The round is over and another follows in the same step.
  ++round_;
  if (round_ % 2 == 0) {
    std::swap(dealt_[0], dealt_[1]);  // the return round: each plays the other's dealt hand
  } else {
    Deal(chance);
  }
  hand_ = dealt_;
  won_ = {0, 0};
}

std::vector<int> PicoState::RanksImpl() const {
  const int a = total(0), b = total(1);
  if (a == b) return {1, 1};
  return a > b ? std::vector<int>{1, 2} : std::vector<int>{2, 1};
}

std::vector<int64_t> PicoState::ScoresImpl() const { return {total(0), total(1)}; }

std::string PicoState::EndReasonImpl() const {
  return rounds_ == 2 ? "both rounds played" : absl::StrCat("all ", rounds_, " rounds played");
}

double PicoState::Heuristic(int seat) const {
  if (IsTerminal()) return State::Heuristic(seat);
  return total(seat) - total(1 - seat);
}

}  // namespace parlor::games::pico
