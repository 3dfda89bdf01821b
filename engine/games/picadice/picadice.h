// Picadice: a dice race for 2–4 players (doubles and match play included).
//
// Rules: engine/games/picadice/RULES.md (the complete rules and every decision this project
// added). In short: each player fills a grid of 5 coloured rows ×
// 4 columns. A turn is either Roll (three dice of six colours: orange, yellow, green, blue,
// purple and the black Pica Bird) followed by one use of the roll (UseColour, CallPicaBirds or
// DiscardAll), or one steal from the shared nest (StealFromNest, StealBlackFromNest). Unused dice
// go to the nest as counters (4-per-colour overflow). A triple earns another turn; Pica Birds
// steal adjoining counters from one row of one other player but may never fill the thief's last
// vacant circle. The first player to fill their grid wins (their team, in doubles); match play
// repeats rounds until a side reaches the target, scoring 4 − (completed columns of the lowest
// scoring opponent).
//
// Options: players (2–4), team_play (false; only with 4 players), match_play (false),
// match_target (5, 1–25), turn_limit_per_seat (150, 25–1000).
//
// ---- Action encoding ---------------------------------------------------------------------------
//
// An action is the decimal number
//
//     code = kind × 10000 + victim × 1000 + colour × 100 + column × 10 + destination
//
// with every digit 0 unless the kind uses it:
//
//   kind 1  Roll                 10000
//   kind 2  StealFromNest        20cs0     c = colour 1–5, s = start column 1–4
//   kind 3  StealBlackFromNest   3vrfd     raid: v = victim seat 0–3, r = row colour 1–5,
//                                          f = from column 1–4, d = 0 discard / 1–4 place at
//   kind 4  UseColour            40cs0     as StealFromNest
//   kind 5  CallPicaBirds        5vrfd     as StealBlackFromNest
//   kind 6  DiscardAll           60000
//
// Colours are their values (1 orange, 2 yellow, 3 green, 4 blue, 5 purple, 6 black); black (6)
// is encodable as a colour or row only so that it can be refused with NO_BLACK_ROW. For example
// UseColour{orange, 1} = 40110 and CallPicaBirds{victim 1, purple, from 1, place at 3} = 51513.
// Because the kind is the leading digit and the fields follow in the rules doc's canonical order
// (victim, colour, column, destination with Discard first), ascending codes are exactly the
// canonical order of legal actions (rules doc 6.4).
//
// ActionKind (GameInfo::action_kinds) is kind − 1: roll, steal_from_nest, steal_black_from_nest,
// use_colour, call_pica_birds, discard_all.
#ifndef PARLOR_ENGINE_GAMES_PICADICE_PICADICE_H_
#define PARLOR_ENGINE_GAMES_PICADICE_PICADICE_H_

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

namespace parlor::games::picadice {

using engine::Action;

inline constexpr int kMaxPlayers = 4;
inline constexpr int kRows = 5;
inline constexpr int kColumns = 4;
inline constexpr int kColours = 6;  // values 1..6
inline constexpr int kBlack = 6;
inline constexpr int kDice = 3;
inline constexpr int kNestMax = 4;
inline constexpr int kCountersPerColour = 20;
inline constexpr int kBlackCounters = 4;
inline constexpr uint32_t kFullGrid = (1u << (kRows * kColumns)) - 1;

enum class Kind : int {
  kRoll = 1,
  kStealFromNest = 2,
  kStealBlackFromNest = 3,
  kUseColour = 4,
  kCallPicaBirds = 5,
  kDiscardAll = 6,
};

// The fields of an action code; unused fields are 0.
struct DecodedAction {
  int kind = 0;
  int victim = 0;
  int colour = 0;       // colour of UseColour/StealFromNest, or the raid's row
  int column = 0;       // start column, or the raid's from column
  int destination = 0;  // raids: 0 discard, 1–4 place at that column
};

// Builders for action codes (no validation; see the encoding above).
Action RollAction();
Action DiscardAllAction();
Action UseColourAction(int colour, int start_column);
Action StealFromNestAction(int colour, int start_column);
// destination: 0 to discard, else the start column of the placement.
Action CallPicaBirdsAction(int victim, int row, int from_column, int destination);
Action StealBlackFromNestAction(int victim, int row, int from_column, int destination);
// Splits a code into its digits. False when the code has a digit outside the encoding
// (MALFORMED_ACTION); colour/row 6 (black) is accepted here and refused by the rules.
bool DecodeAction(Action action, DecodedAction* out);

enum class Phase : uint8_t { kTurnStart = 1, kAfterRoll = 2, kGameOver = 3 };
enum class EndReason : uint8_t {
  kNone = 0,
  kGridFilled = 1,
  kMatchTargetReached = 2,
  kTurnLimit = 3
};

struct RollOffRound {
  std::vector<int> seats;
  std::vector<int> faces;
};

struct RoundResult {
  int winning_side = -1;  // -1: turn limit
  int points = 0;
  std::vector<uint32_t> grids;  // per seat, at the end of the round
};

class PicadiceGame;

class PicadiceState : public engine::State {
 public:
  PicadiceState(const PicadiceGame& game, int num_players,
                std::shared_ptr<const engine::Options> options);

  double Heuristic(int seat) const override;

  // Read access, for tests, bots and the view.
  Phase phase() const { return phase_; }
  int player_to_act() const { return player_to_act_; }
  uint32_t grid(int seat) const { return grids_[seat]; }
  // Row colour 1–5: the 4-bit row of that colour, bit j for column j + 1.
  int row(int seat, int colour) const { return (grids_[seat] >> ((colour - 1) * kColumns)) & 0xF; }
  int nest(int colour) const { return nest_[colour - 1]; }
  // Derived from the conservation invariant (rules doc 3.4).
  int store(int colour) const;
  const std::array<int, kDice>& dice() const { return dice_; }
  int turns_completed() const { return turns_completed_; }
  int round() const { return round_; }
  int match_points(int side) const { return match_points_[side]; }
  const std::vector<RollOffRound>& roll_off() const { return roll_off_; }
  const std::vector<RoundResult>& round_results() const { return round_results_; }
  EndReason end_reason() const { return end_reason_; }
  bool team_play() const { return team_play_; }
  int turn_limit() const { return turn_limit_; }

  static int CompletedColumns(uint32_t grid);
  static int Counters(uint32_t grid);

 protected:
  void SetupImpl(engine::Chance& chance) override;
  std::unique_ptr<engine::State> CloneImpl() const override;
  engine::SeatSet ActingSeatsImpl() const override;
  bool IsTerminalImpl() const override { return phase_ == Phase::kGameOver; }
  void LegalActionsImpl(int seat, std::vector<Action>* out) const override;
  absl::Status CheckActionImpl(int seat, Action action) const override;
  absl::Status NotYourTurnImpl(int seat) const override;
  absl::Status GameOverImpl(int seat) const override;
  void ApplyImpl(int seat, Action action, engine::Chance& chance) override;
  std::vector<int> RanksImpl() const override;
  std::vector<int64_t> ScoresImpl() const override;
  std::string EndReasonImpl() const override;
  std::string ActionToStringImpl(int seat, Action action) const override;
  std::unique_ptr<google::protobuf::Message> ViewImpl(const engine::Viewer& viewer) const override;
  int TeamOfImpl(int seat) const override { return team_play_ ? seat / 2 : seat; }
  int ActionKindImpl(Action action) const override;
  // Picadice hides nothing (rules doc section 4); only the future dice are unknown, and the base
  // class already replaced the seed.
  void ResampleHiddenImpl(int observer, engine::Rng& rng) override;
  void SaveImpl(google::protobuf::Any* out) const override;
  absl::Status LoadImpl(const google::protobuf::Any& in) override;

 private:
  PicadiceState(const PicadiceState&) = default;

  int NumSidesFast() const { return team_play_ ? 2 : num_players(); }
  // Shape checks (MALFORMED_ACTION, NO_BLACK_ROW): INVALID_ARGUMENT.
  absl::Status CheckShape(const DecodedAction& a, bool* decoded_ok) const;
  absl::Status CheckRaid(int thief, int birds, const DecodedAction& a) const;
  absl::Status CheckPlacement(int seat, int colour, int count, int start_column) const;
  void AppendRaids(int thief, int birds, Kind kind, std::vector<Action>* out) const;
  void AppendPlacements(int seat, int colour, int count, Kind kind, std::vector<Action>* out) const;

  void Discard(int colour, int count);
  void Raid(int thief, int birds, const DecodedAction& a);
  void EndTurn(int seat, bool triple, engine::Chance& chance);
  void StartRound(engine::Chance& chance);
  // Side key for ranking: (completed columns, counters), best partner in doubles.
  int ProgressKey(const std::vector<uint32_t>& grids, int side) const;
  std::vector<int> SideRanks() const;

  bool team_play_ = false;
  bool match_play_ = false;
  int match_target_ = 5;
  int turn_limit_ = 300;

  Phase phase_ = Phase::kTurnStart;
  int player_to_act_ = 0;
  std::array<int, kDice> dice_{};
  std::array<uint32_t, kMaxPlayers> grids_{};
  std::array<int, kColours> nest_{};
  int turns_completed_ = 0;
  int round_ = 1;
  std::array<int, kMaxPlayers> match_points_{};
  std::vector<RollOffRound> roll_off_;
  std::vector<RoundResult> round_results_;
  EndReason end_reason_ = EndReason::kNone;
};

class PicadiceGame : public engine::Game {
 public:
  PicadiceGame();

  const google::protobuf::Descriptor* ActionDescriptor() const override;
  const google::protobuf::Descriptor* ViewDescriptor() const override;
  absl::StatusOr<Action> ActionFromProto(const google::protobuf::Message& action) const override;
  std::unique_ptr<google::protobuf::Message> ActionToProto(Action action) const override;
  int64_t MaxMoves(int num_players, const engine::Options& options) const override;

 protected:
  absl::Status ValidateSetup(int num_players, const engine::Options& options) const override;
  std::unique_ptr<engine::State> CreateState(
      int num_players, std::shared_ptr<const engine::Options> options) const override;
};

void Register(engine::Registry& registry);

}  // namespace parlor::games::picadice

#endif  // PARLOR_ENGINE_GAMES_PICADICE_PICADICE_H_
