#ifndef PARLOR_ENGINE_GAMES_PICO_PICO_H_
#define PARLOR_ENGINE_GAMES_PICO_PICO_H_

// Pico (rules: engine/games/pico/RULES.md). Two players, 13 cards with a value and points:
//
//   value  2 3 4 5 6 7 8 9 10 11 12 13 16
//   points 1 1 1 2 2 2 3 3  3  3  3  3  4
//
// The 13 cards are shuffled: 6 to seat 0, 6 to seat 1, one face up and out of play. In each
// trick both players secretly choose a card at the same time; the higher card wins unless it is
// more than twice the lower one, in which case the lower card wins. The winning card scores its
// points and leaves its owner's hand; the losing card goes back. A round ends the moment a hand
// holds one card. Rounds come in pairs: the second round of a pair is played with the dealt hands
// swapped. Option `rounds` (2, 4 or 6; default 2). Higher total wins; equal totals draw.
//
// Action codes: the value of the chosen card (2..13 or 16), so legal lists are ascending by value.
// Chance: one shuffle of the 13 card values (2, 3, ..., 13, 16) at the start of rounds 1, 3 and
// 5, recorded as the resulting order: the first 6 are seat 0's hand, the next 6 seat 1's, the
// last is face up.

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/game.h"
#include "engine/core/registry.h"
#include "engine/core/state.h"

namespace parlor::games::pico {

inline constexpr int kNumCards = 13;
inline constexpr int kHandSize = 6;
inline constexpr int kMaxTricksPerRound = 9;
inline constexpr int kMaxRounds = 6;
// Card values and points by card index (index order is value order).
inline constexpr std::array<int, kNumCards> kCardValues = {2, 3,  4,  5,  6,  7, 8,
                                                           9, 10, 11, 12, 13, 16};
inline constexpr std::array<int, kNumCards> kCardPoints = {1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4};

// Index of a card value, or -1 when no Pico card has that value.
constexpr int CardIndex(int64_t value) {
  if (value >= 2 && value <= 13) return static_cast<int>(value - 2);
  return value == 16 ? 12 : -1;
}
// True when the card of value `a` wins a trick against the card of value `b` (a != b).
constexpr bool Beats(int a, int b) {
  const int high = a > b ? a : b, low = a > b ? b : a;
  const int winner = high > 2 * low ? low : high;
  return winner == a;
}

class PicoGame : public engine::Game {
 public:
  PicoGame();
  const google::protobuf::Descriptor* ActionDescriptor() const override;
  const google::protobuf::Descriptor* ViewDescriptor() const override;
  absl::StatusOr<engine::Action> ActionFromProto(
      const google::protobuf::Message& action) const override;
  std::unique_ptr<google::protobuf::Message> ActionToProto(engine::Action action) const override;
  int64_t MaxMoves(int num_players, const engine::Options& options) const override;

 protected:
  absl::Status ValidateSetup(int num_players, const engine::Options& options) const override;
  std::unique_ptr<engine::State> CreateState(
      int num_players, std::shared_ptr<const engine::Options> options) const override;
};

class PicoState : public engine::State {
 public:
  PicoState(const engine::Game& game, std::shared_ptr<const engine::Options> options);

  // Score difference (totals, plus the points of the current round), from `seat`'s side.
  double Heuristic(int seat) const override;

  // Read access for tests and bots. Cards as bit masks over card indices.
  int round() const { return round_; }
  int trick() const { return TricksThisRound() + 1; }
  uint16_t hand(int seat) const { return hand_[seat]; }
  uint16_t won(int seat) const { return won_[seat]; }
  int face_up_card() const { return kCardValues[face_up_]; }
  // Value of the seat's pending card, 0 when none.
  int pending_card(int seat) const { return pending_[seat] < 0 ? 0 : kCardValues[pending_[seat]]; }
  int total(int seat) const;
  int round_score(int seat, int round) const { return round_scores_[seat][round - 1]; }

 protected:
  void SetupImpl(engine::Chance& chance) override;
  std::unique_ptr<engine::State> CloneImpl() const override;
  engine::SeatSet ActingSeatsImpl() const override;
  bool IsTerminalImpl() const override;
  void LegalActionsImpl(int seat, std::vector<engine::Action>* out) const override;
  absl::Status CheckActionImpl(int seat, engine::Action action) const override;
  absl::Status NotYourTurnImpl(int seat) const override;
  void ApplyImpl(int seat, engine::Action action, engine::Chance& chance) override;
  std::vector<int> RanksImpl() const override;
  std::vector<int64_t> ScoresImpl() const override;
  std::string EndReasonImpl() const override;
  std::string ActionToStringImpl(int seat, engine::Action action) const override;
  std::unique_ptr<google::protobuf::Message> ViewImpl(const engine::Viewer& viewer) const override;
  void ResampleHiddenImpl(int observer, engine::Rng& rng) override;
  void SaveImpl(google::protobuf::Any* out) const override;
  absl::Status LoadImpl(const google::protobuf::Any& in) override;

 private:
  PicoState(const PicoState&) = default;
  void Deal(engine::Chance& chance);
  int TricksThisRound() const;

  struct Trick {
    int8_t round;
    std::array<int8_t, 2> cards;  // card index per seat
  };

  int rounds_;
  int round_ = 1;
  int face_up_ = 0;                           // card index
  std::array<uint16_t, 2> dealt_{};           // the six cards each seat was dealt for this round
  std::array<uint16_t, 2> hand_{};            // cards in hand (pending card included)
  std::array<uint16_t, 2> won_{};             // won pile of this round
  std::array<int8_t, 2> pending_ = {-1, -1};  // card index chosen for this trick, -1 for none
  std::array<std::array<int16_t, kMaxRounds>, 2> round_scores_{};
  int num_tricks_ = 0;
  std::array<Trick, kMaxRounds * kMaxTricksPerRound> tricks_{};
};

void Register(engine::Registry& registry);

}  // namespace parlor::games::pico

#endif  // PARLOR_ENGINE_GAMES_PICO_PICO_H_
