// KA'DICE!: dice against cards, for 2–4 players.
//
// Rules: engine/games/kadice/RULES.md (the complete rules). In short: every player
// has a shuffled deck of the same 17 cards and five dice. The top card is the player's active
// card; rolling the combination on an opponent's active card eliminates it. Rounds of up to three
// turns per player: roll (releasing held dice first if wanted), change dice with the card's
// ability or a five of a kind, then eliminate one or more cards or hold up to four dice. A player
// who eliminates (unless FULL HOUSE) or is eliminated sits out the rest of the round. Duplicate
// active cards fight wars (roll-offs). A player without cards is a ghost, who may be revived by a
// lucky roll at the end of a later round. The last player with cards wins; at the round limit
// (option max_rounds, default 100) players are ranked by cards left.
//
// Options: max_rounds (int, 30–500, default 100).
//
// Hidden information: only the order of every deck, hidden from everyone (the owner included).
//
// Action encoding (engine::Action, int64). code = 100 * kind + payload; codes sorted ascending
// are in the rules doc's listing order (6.7):
//   Roll      100 + SubsetRank5(release)   release: bit mask of held dice to release (0..31)
//   SetDie    200 + 10 * die + value       die 0–4, value 1–6
//   ShiftDie  300 + 10 * die + direction   direction 0 = UP, 1 = DOWN
//   Eliminate 400 + SubsetRank4(targets)   targets: bit mask of seats (0..15)
//   Hold      500 + SubsetRank5(dice)      dice: bit mask of dice to hold (0..31)
// SubsetRankN(mask) is the position of the subset in the list of all subsets of {0..N-1} sorted
// by size, then lexicographically ({}, {0}, {1}, ..., {0,1}, {0,2}, ...). Two codes decode to
// actions that are always refused with INVALID_ARGUMENT: Eliminate with no targets (400) and Hold
// of all five dice (531); they exist so that every well-formed proto maps to a code and is
// refused in the rules doc's order of checks.
#ifndef PARLOR_ENGINE_GAMES_KADICE_KADICE_H_
#define PARLOR_ENGINE_GAMES_KADICE_KADICE_H_

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/core/game.h"
#include "engine/core/registry.h"
#include "engine/core/state.h"

namespace parlor::games::kadice {

inline constexpr int kNumCards = 17;
inline constexpr int kNumDice = 5;
inline constexpr int kMaxHeld = 4;
inline constexpr int kMaxTurnsPerRound = 3;
inline constexpr int kMinPlayers = 2;
inline constexpr int kMaxPlayers = 4;
// Roll-offs tied this many times are decided by lot (rules 5.2).
inline constexpr int kMaxRollOffRolls = 50;

// Canonical card indices (rules 3.2).
enum Card : int8_t {
  kSinglePair1 = 0,
  kSinglePair2 = 1,
  kSinglePair3 = 2,
  kSinglePair4 = 3,
  kSinglePair5 = 4,
  kSinglePair6 = 5,
  kThreeOfAKind = 6,
  kTenOrUnder = 7,
  kTwentyFiveOrOver = 8,
  kTwoPairs = 9,
  kSmallStraight = 10,
  kFullHouse = 11,
  kAllEvens = 12,
  kAllOdds = 13,
  kFourOfAKind = 14,
  kLargeStraight = 15,
  kKadice = 16,
  kNoCard = -1,
};

// The card's name as printed: "SINGLE PAIR 3", "KA'DICE".
std::string CardName(int card);

using Dice = std::array<int8_t, kNumDice>;

// Bit c set iff the dice meet the requirement of card c (rules 7).
uint32_t MetCards(const Dice& dice);
inline bool Meets(const Dice& dice, int card) { return (MetCards(dice) >> card & 1u) != 0; }
// All five dice show the same number.
bool IsFiveOfAKind(const Dice& dice);

// Action kinds (GameInfo::action_kinds order).
enum ActionKind : int { kRoll = 0, kSetDie = 1, kShiftDie = 2, kEliminate = 3, kHold = 4 };
enum ShiftDirection : int { kUp = 0, kDown = 1 };

// Subset ranks of the encoding above.
int SubsetRank5(uint32_t mask);
uint32_t SubsetFromRank5(int rank);
int SubsetRank4(uint32_t mask);
uint32_t SubsetFromRank4(int rank);

engine::Action RollAction(uint32_t release_mask);
engine::Action SetDieAction(int die, int value);
engine::Action ShiftDieAction(int die, ShiftDirection direction);
engine::Action EliminateAction(uint32_t target_mask);
engine::Action HoldAction(uint32_t dice_mask);

// A decoded action code.
struct DecodedAction {
  ActionKind kind = kRoll;
  uint32_t mask = 0;  // Roll: release; Eliminate: targets; Hold: dice
  int die = 0;        // SetDie, ShiftDie
  int value = 0;      // SetDie: 1–6; ShiftDie: ShiftDirection
};
// INVALID_ARGUMENT for a code that is no action at all.
absl::StatusOr<DecodedAction> DecodeAction(engine::Action action);

enum class Phase : int8_t { kAwaitRoll = 0, kDecide = 1, kGameOver = 2 };
enum class EndReason : int8_t { kNone = 0, kLastPlayer = 1, kRoundLimit = 2 };

class KadiceGame : public engine::Game {
 public:
  KadiceGame();

  const google::protobuf::Descriptor* ActionDescriptor() const override;
  const google::protobuf::Descriptor* ViewDescriptor() const override;
  absl::StatusOr<engine::Action> ActionFromProto(
      const google::protobuf::Message& action) const override;
  std::unique_ptr<google::protobuf::Message> ActionToProto(engine::Action action) const override;
  int64_t MaxMoves(int num_players, const engine::Options& options) const override;

 protected:
  std::unique_ptr<engine::State> CreateState(
      int num_players, std::shared_ptr<const engine::Options> options) const override;
};

class KadiceState : public engine::State {
 public:
  struct Player {
    std::array<int8_t, kNumCards> deck{};  // deck[deck_top..16] are in the deck, top first
    int8_t deck_top = 0;
    int8_t active = kNoCard;
    std::array<int8_t, kNumCards> discard{};  // oldest first
    int8_t discard_size = 0;
    Dice dice{};       // 0 = never rolled
    uint8_t held = 0;  // bit mask of dice on the hold card
    bool ghost = false;
    int16_t ghost_round = 0;
    int16_t ghost_moment = 0;  // order of the moment the player last became a ghost; 0 = never
    int8_t turns_taken = 0;
    bool finished = false;
    bool immune = false;
    bool round_shift_used = false;

    int deck_size() const { return kNumCards - deck_top; }
    int cards_left() const { return deck_size() + (active >= 0 ? 1 : 0); }
  };

  // Something the engine did without player input, shown in the view of the step that did it.
  struct Event {
    enum Kind : int8_t { kRollOff = 1, kGhostRoll = 2, kRoundStart = 3 };
    Kind kind = kRollOff;
    int8_t seat = -1;       // roll-off winner, ghost, or dealer
    int8_t card = kNoCard;  // card fought over (-1: dealer war), or revived card
    bool flag = false;      // roll-off decided by lot; ghost roll matched
    uint8_t participants = 0;
    int16_t round = 0;
    std::vector<int8_t> dice;  // roll-off: all dice in throw order; ghost roll: five dice
  };

  KadiceState(const engine::Game& game, int num_players,
              std::shared_ptr<const engine::Options> options);

  double Heuristic(int seat) const override;

  // Read access for tests, bots and tools.
  Phase phase() const { return phase_; }
  int round() const { return round_; }
  int dealer() const { return dealer_; }
  int current() const { return current_; }
  const Player& player(int seat) const { return players_[seat]; }
  bool five_of_a_kind() const { return five_of_a_kind_; }
  uint8_t rolled_mask() const { return rolled_mask_; }
  EndReason end_reason() const { return end_reason_; }
  const std::vector<Event>& events() const { return events_; }
  // May take a turn now in this round (rules 5.4).
  bool Eligible(int seat) const;

 protected:
  void SetupImpl(engine::Chance& chance) override;
  std::unique_ptr<engine::State> CloneImpl() const override;
  engine::SeatSet ActingSeatsImpl() const override;
  bool IsTerminalImpl() const override { return phase_ == Phase::kGameOver; }
  void LegalActionsImpl(int seat, std::vector<engine::Action>* out) const override;
  absl::Status CheckActionImpl(int seat, engine::Action action) const override;
  absl::Status NotYourTurnImpl(int seat) const override;
  void ApplyImpl(int seat, engine::Action action, engine::Chance& chance) override;
  std::vector<int> RanksImpl() const override;
  std::vector<int64_t> ScoresImpl() const override;
  std::string EndReasonImpl() const override;
  std::string ActionToStringImpl(int seat, engine::Action action) const override;
  std::unique_ptr<google::protobuf::Message> ViewImpl(const engine::Viewer& viewer) const override;
  int ActionKindImpl(engine::Action action) const override;
  void ResampleHiddenImpl(int observer, engine::Rng& rng) override;
  void SaveImpl(google::protobuf::Any* out) const override;
  absl::Status LoadImpl(const google::protobuf::Any& in) override;

 private:
  KadiceState(const KadiceState&) = default;

  absl::Status CheckDecoded(int seat, const DecodedAction& action) const;
  absl::Status CheckSetDie(int die, int value) const;
  absl::Status CheckShiftDie(int die, int direction) const;
  absl::Status CheckEliminate(uint32_t targets) const;
  // Seats whose cards may be targeted now: another player's active card, not immune.
  uint32_t TargetableSeats() const;
  // Cards the current dice may eliminate beyond those met (rules 6.4), and whether the KA'DICE
  // all-or-nothing rule applies.
  int FreePicks(uint32_t met) const;
  bool KadiceSweep(uint32_t met) const;

  void RollDice(uint8_t mask, engine::Chance& chance);
  void BeginDecide();
  int RollOff(uint8_t participants, int card, engine::Chance& chance);
  void FightWars(engine::Chance& chance);
  void PushRoundStart();
  void Discard(int seat, int moment);
  int NonGhostCount() const;
  int NextEligibleAfter(int seat) const;
  void EndTurn(engine::Chance& chance);
  void EndRound(engine::Chance& chance);
  void StartRoundTurns();
  void EndGame(EndReason reason);

  int max_rounds_;
  std::array<Player, kMaxPlayers> players_{};
  int16_t round_ = 1;
  int8_t dealer_ = 0;
  Phase phase_ = Phase::kAwaitRoll;
  int8_t current_ = 0;
  int8_t last_player_ = -1;
  uint8_t rolled_mask_ = 0;
  uint8_t set_mask_ = 0;
  bool five_of_a_kind_ = false;
  bool turn_shift_used_ = false;
  bool bonus_pending_ = false;
  EndReason end_reason_ = EndReason::kNone;
  int16_t ghost_moments_ = 0;
  std::vector<Event> events_;
};

void Register(engine::Registry& registry);

}  // namespace parlor::games::kadice

#endif  // PARLOR_ENGINE_GAMES_KADICE_KADICE_H_
