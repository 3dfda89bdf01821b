// Pescado (Steffen Benndorf, Steffen-Spiele): 2–4 players throw colour dice to catch tiles of
// three fish from a pool of six and from the player before them. The complete rules, with every
// decision this project added: engine/games/pescado/RULES.md.
//
// Option: `snatching` (bool, default false) — the "snatching fish" variant, played as a sealed
// claim window in which every player acts at once (RULES.md 5.4).
//
// Chance (all through engine::Chance, so recorded):
//   setup       Shuffle of the tile ids 1..36 (the resulting order is the stack, top first; the
//               first six go to pool slots 0..5), then Uniform(num_players) for the first player;
//   ThrowFirst  five Roll(6), white dice 0..4 in order; with snatching and a triplet whose snatch
//               set is empty, five more Roll(6) per re-throw (at most 100 re-throws);
//   ThrowSecond one Roll(6) per white die not kept, ascending index, then one per grey die bought.
//   A die's face f (1..6) shows colour f-1: 1 yellow, 2 orange, 3 red, 4 blue, 5 green, 6 black.
//
// Action encoding (engine::Action, int64): code = kind << 40 | payload.
//   kind 1 ThrowFirst    payload 0.
//   kind 2 TakeTile      payload = tile id (1..36).
//   kind 3 BuyGreyDie    payload = low * 64 + high, the two tile ids with low < high.
//   kind 4 ThrowSecond   payload = kept_count << 5 | (31 - r), where r is the 5-bit mask of kept
//                        white dice with die i at bit (4 - i). For equal counts a larger r means a
//                        lexicographically smaller list of kept indices, so ascending codes list
//                        ThrowSecond by number kept, then lexicographically (RULES.md 6.7).
//   kind 5 EndTurn       payload 0.
//   kind 6 SnatchClaim   payload = length << 36 | sum over i < length of tile_i << (6 * (5 - i)):
//                        up to six 6-bit tile ids, best first in the most significant field, so
//                        ascending codes list claims by length, then lexicographically.
// Every legal code decodes to a canonical form; a code outside the layout, with an id out of
// range or a repeated tile, is not an action (CheckAction: INVALID_ARGUMENT).
#ifndef PARLOR_ENGINE_GAMES_PESCADO_PESCADO_H_
#define PARLOR_ENGINE_GAMES_PESCADO_PESCADO_H_

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "engine/core/game.h"
#include "engine/core/registry.h"
#include "engine/core/state.h"

namespace parlor::games::pescado {

inline constexpr int kNumTiles = 36;
inline constexpr int kNumColors = 6;
inline constexpr int kPoolSlots = 6;
inline constexpr int kWhiteDice = 5;
inline constexpr int kMaxGreyDice = 2;
inline constexpr int kMaxDice = kWhiteDice + kMaxGreyDice;
inline constexpr int kMaxPlayers = 4;
inline constexpr int kMaxTurns = 200;     // safety limit (RULES.md 9)
inline constexpr int kMaxRethrows = 100;  // snatch re-throws before giving up (RULES.md 5.4)
inline constexpr int kMaxClaimLength = kPoolSlots;

// Colours in table order; a die face f shows Color(f - 1).
enum Color : int8_t { kYellow = 0, kOrange, kRed, kBlue, kGreen, kBlack };

// The phases of RULES.md 5.2; values equal parlor.games.v1.PescadoPhase.
enum class Phase : int8_t {
  kAwaitFirstThrow = 1,
  kFirstThrowResolved = 2,
  kSnatchWindow = 3,
  kSecondThrowResolved = 4,
  kGameOver = 5,
};

enum class ActionType : int8_t {
  kInvalid = 0,
  kThrowFirst = 1,
  kTakeTile = 2,
  kBuyGreyDie = 3,
  kThrowSecond = 4,
  kEndTurn = 5,
  kSnatchClaim = 6,
};

enum class EndReason : int8_t { kNone = 0, kPoolCannotBeRefilled = 1, kSafetyLimit = 2 };

struct TileInfo {
  std::array<Color, 3> fish;
  std::array<int8_t, kNumColors> need;  // fish per colour
  uint32_t need_nibbles;                // need[c] in bits 4c..4c+3
  int points;
  const char* name;  // e.g. "BBG"
};

// The tile with id 1..36.
const TileInfo& Tile(int id);
char ColorLetter(Color c);
const char* ColorName(Color c);

// ---- Action codes ----------------------------------------------------------------------------

inline constexpr int kKindShift = 40;
inline constexpr engine::Action kPayloadMask = (engine::Action{1} << kKindShift) - 1;

engine::Action EncodeThrowFirst();
engine::Action EncodeTakeTile(int tile);
// Any order; the code always holds the lower id first (equal ids give a malformed code).
engine::Action EncodeBuyGreyDie(int tile_a, int tile_b);
// Bit i of keep_mask: white die i is kept.
engine::Action EncodeThrowSecond(uint32_t keep_mask);
engine::Action EncodeEndTurn();
// Up to six ids 1..63 (ids are not checked for range or repeats here: CheckAction does).
engine::Action EncodeSnatchClaim(std::span<const int> tiles);

struct DecodedAction {
  ActionType kind = ActionType::kInvalid;
  int tile = 0;                                 // TakeTile
  int tile_low = 0, tile_high = 0;              // BuyGreyDie
  uint32_t keep_mask = 0;                       // ThrowSecond
  std::array<int8_t, kMaxClaimLength> claim{};  // SnatchClaim
  int claim_length = 0;
};

// Splits a code into its kind and fields; kind kInvalid when the code is outside the layout.
// Field values are not range-checked beyond the layout (see CheckFields in the .cc).
DecodedAction DecodeAction(engine::Action action);

// ---- Game --------------------------------------------------------------------------------------

class PescadoGame : public engine::Game {
 public:
  PescadoGame();

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

// ---- State -------------------------------------------------------------------------------------

class PescadoState : public engine::State {
 public:
  PescadoState(const engine::Game& game, int num_players,
               std::shared_ptr<const engine::Options> options);

  double Heuristic(int seat) const override;

  // Read access for tests and bots.
  Phase phase() const { return phase_; }
  int active_seat() const { return active_; }
  int predecessor() const { return (active_ + num_players() - 1) % num_players(); }
  int turn_counter() const { return turn_; }
  int grey_dice_bought() const { return grey_bought_; }
  // Tile id in a pool slot, 0 when empty.
  int pool_tile(int slot) const { return pool_[slot]; }
  bool pool_flipped(int slot) const { return (flipped_slots_ >> slot & 1u) != 0; }
  int stack_size() const { return kNumTiles - stack_begin_; }
  // Tile ids of a supply in the order caught.
  std::vector<int> Supply(int seat) const;
  bool IsSafe(int tile) const;  // in a supply and face down
  // Current dice colours (5 after the first throw, 5 + grey after the second).
  std::vector<Color> Dice() const;
  // Points and tile count of a seat's supply.
  int Points(int seat) const;
  // Snatch set of the open (or last) window, ascending.
  std::vector<int> SnatchSet() const;
  bool HasClaimed(int seat) const { return snatch_.claimed.Contains(seat); }

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
  // Where a tile lies: a pool slot 0..5, a supply (kInSupply + seat) or the stack.
  static constexpr int8_t kInSupply = 8;
  static constexpr int8_t kInStack = 100;

  struct Snatch {
    int8_t thrower = 0;
    std::array<int8_t, kWhiteDice> dice{};
    int16_t rethrows = 0;
    uint64_t set = 0;  // bit t: tile t is in the snatch set
    engine::SeatSet claimed;
    std::array<std::array<int8_t, kMaxClaimLength>, kMaxPlayers> claim{};
    std::array<int8_t, kMaxPlayers> claim_length{};
    std::array<std::array<int8_t, kMaxClaimLength>, kMaxPlayers> received{};
    std::array<int8_t, kMaxPlayers> received_length{};
    bool resolved = false;
  };

  PescadoState(const PescadoState&) = default;

  // Face-up pool tiles and the predecessor's exposed tiles (as tile bits).
  uint64_t CatchableMask() const { return pool_up_ | exposed_[static_cast<size_t>(predecessor())]; }
  // Catchable tiles matching the current dice.
  uint64_t TakeableMask() const;
  uint64_t FlippableMask() const;
  bool Matches(int tile) const;
  bool MatchesSnatchDice(int tile) const;

  // The FAILED_PRECONDITION text for a tile that is not catchable / flippable / snatchable.
  std::string WhyNotCatchable(int seat, int tile) const;
  std::string WhyNotFlippable(int seat, int tile) const;
  std::string Shortfall(int tile, const std::array<int8_t, kNumColors>& counts,
                        absl::string_view dice_name) const;
  absl::Status CheckKindFits(int seat, ActionType kind) const;

  void ThrowWhite(engine::Chance& chance, uint32_t keep_mask);
  void CountDice();
  void StartSnatchRound(engine::Chance& chance);
  void ResolveSnatch();
  // End of a turn or snatch round: counter, refill, game end; then the next turn starts.
  void FinishRound(bool next_player);
  void AddToSupply(int seat, int tile, bool safe);
  void RemoveFromSupply(int seat, int tile);
  void RebuildDerived();
  void AppendClaims(std::vector<engine::Action>* out) const;

  bool snatching_ = false;
  Phase phase_ = Phase::kAwaitFirstThrow;
  int8_t active_ = 0;
  int16_t turn_ = 0;
  EndReason end_reason_ = EndReason::kNone;

  // stack_[stack_begin_..35] is the stack, top first.
  std::array<int8_t, kNumTiles> stack_{};
  int8_t stack_begin_ = kNumTiles;
  std::array<int8_t, kPoolSlots> pool_{};
  uint8_t flipped_slots_ = 0;
  std::array<std::array<int8_t, kNumTiles>, kMaxPlayers> supply_{};
  std::array<int8_t, kMaxPlayers> supply_size_{};

  std::array<int8_t, kMaxDice> dice_{};
  int8_t num_dice_ = 0;
  int8_t grey_bought_ = 0;
  uint8_t kept_mask_ = 0;

  bool has_snatch_ = false;
  Snatch snatch_;

  // Derived from the above (rebuilt on load), for speed.
  std::array<int8_t, kNumTiles + 1> where_{};
  uint64_t pool_up_ = 0;  // face-up pool tiles
  std::array<uint64_t, kMaxPlayers> exposed_{};
  uint32_t dice_nibbles_ = 0;  // count of colour c in bits 4c..4c+3
};

void Register(engine::Registry& registry);

}  // namespace parlor::games::pescado

#endif  // PARLOR_ENGINE_GAMES_PESCADO_PESCADO_H_
