#ifndef PARLOR_ENGINE_GAMES_PICT_PICT_H_
#define PARLOR_ENGINE_GAMES_PICT_PICT_H_

// Pict: a two-player abstract game of perfect information. Each player paints his own 4×4
// canvas with red, yellow and blue squares taken from a shared 3×3 palette. Painting phases
// (take 1–3 edge-connected palette squares, place them on free canvas squares without turning
// them, score the straight same-colour chains they join) alternate with filling phases (restock
// the empty palette with 3 pieces of each colour, one Fill per turn). The first player to fill
// his canvas gets 2 bonus points and ends the game at once; the higher score wins, equal scores
// draw. Options: `empty_palette_start` (open with a filling phase) and `paintbrushes` (2 tokens
// each to recolour an opponent's square right after one's own Paint).
//
// The complete rules, with every decision this project added: RULES.md in this folder.
//
// ---- Action codes ------------------------------------------------------------------------------
//
// Codes are small decimal numbers that read like the action. Squares are written as digits:
// a palette square (r,c) as its index r*3+c (0..8) in a Paint, and as the two digits r, c in a
// Fill or Brush. Colours are 1 red, 2 yellow, 3 blue (PictColour's numbers).
//
//   Fill       1rck        palette square (r,c), colour k.           e.g. 1012 = Fill (0,1) yellow
//   SkipBrush  2000
//   Brush      2rck        opponent's canvas square (r,c) → colour k. e.g. 2111 = Brush (1,1) red
//   Paint      N p1 p2 p3 R C  (six digits)
//                          N = number of strokes (1..3); p1 < p2 < p3 the palette squares taken
//                          (indices 0..8, row-major; unused ones are 0); R, C the shift
//                          (canvas − palette) plus 2, each 0..5 (a shift of −2..3).
//                          e.g. 100043 = Paint (0,0)→(2,1) (square 0, shift (2,1));
//                          325822 = Paint (0,2)→(0,2), (1,2)→(1,2), (2,2)→(2,2).
//
// Within each list the codes sort exactly as the rules doc orders legal actions: Paints by number
// of strokes, then palette squares in turn, then shift; SkipBrush before every Brush, Brushes by
// square then colour; Fills by square then colour. Only one kind of list is ever legal at once.
//
// A Paint code always names distinct palette squares with one shift, so rotating, flipping and
// naming a square twice cannot be encoded: ActionFromProto refuses them (and wrong stroke counts,
// out-of-range squares and missing colours) with INVALID_ARGUMENT in the rules doc's words. A code
// whose squares are not joined edge to edge, or whose shift puts a square off the canvas, is
// valid as a code and refused by CheckAction with INVALID_ARGUMENT in the same words, after the
// game-over, phase, turn and brush-step checks.

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/core/game.h"
#include "engine/core/registry.h"
#include "engine/core/state.h"

namespace parlor::games::pict {

inline constexpr int kPaletteSize = 3;
inline constexpr int kPaletteSquares = 9;
inline constexpr int kCanvasSize = 4;
inline constexpr int kCanvasSquares = 16;
inline constexpr int kPiecesPerColour = 3;
inline constexpr int kFinishingBonus = 2;
inline constexpr int kPaintbrushesPerPlayer = 2;

// Square contents; the numbers are PictColour's.
enum Colour : uint8_t { kEmpty = 0, kRed = 1, kYellow = 2, kBlue = 3 };

enum class Phase : uint8_t { kPainting, kFilling, kOver };

inline constexpr engine::Action kSkipBrush = 2000;

// Action kinds (GameInfo::action_kinds indexes).
enum ActionKindIndex : int { kKindPaint = 0, kKindBrush = 1, kKindSkipBrush = 2, kKindFill = 3 };

// One stroke of a Paint: palette square → canvas square.
struct Stroke {
  int palette_row = 0;
  int palette_col = 0;
  int canvas_row = 0;
  int canvas_col = 0;
};

engine::Action FillCode(int row, int col, Colour colour);
engine::Action BrushCode(int row, int col, Colour colour);
// The Paint code for strokes given in any order. INVALID_ARGUMENT, in the rules doc's words, for
// anything that is not a well-formed Paint (checks 5–9 of the Paint table).
absl::StatusOr<engine::Action> PaintCode(std::span<const Stroke> strokes);

// A chain a Paint scored. Squares are canvas indices row*4+col.
struct Chain {
  enum class Shape : uint8_t { kHorizontal, kVertical, kLone };
  Shape shape = Shape::kLone;
  Colour colour = kEmpty;
  uint8_t first = 0;
  uint8_t last = 0;
  uint8_t length = 0;
};

// One applied action with, for a Paint, its scoring breakdown.
struct Move {
  int8_t seat = 0;
  engine::Action action = 0;
  int16_t turn_score = 0;
  int8_t bonus = 0;
  uint8_t num_chains = 0;
  std::array<Chain, 6> chains{};  // three new squares, each in at most two chains
};

// Everything on the table.
struct Board {
  std::array<Colour, kPaletteSquares> palette{};
  std::array<std::array<Colour, kCanvasSquares>, 2> canvas{};
  std::array<int32_t, 2> score{};
  std::array<int8_t, 2> paintbrushes_left{};
  Phase phase = Phase::kPainting;
  bool opening_fill = false;
  int8_t to_move = 0;
  bool brush_step = false;
  int8_t phase_starter = 0;
  int8_t previous_painting_starter = -1;
  int8_t first_player = 0;
  int8_t finisher = -1;

  friend bool operator==(const Board&, const Board&) = default;
};

// The recommended layout (RULES.md): every row and column holds one of each colour.
inline constexpr std::array<Colour, kPaletteSquares> kRecommendedPalette = {
    kRed, kYellow, kBlue, kYellow, kBlue, kRed, kBlue, kRed, kYellow};

class PictGame : public engine::Game {
 public:
  PictGame();

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

class PictState : public engine::State {
 public:
  PictState(const engine::Game& game, std::shared_ptr<const engine::Options> options);

  const Board& board() const { return board_; }
  const std::vector<Move>& history() const { return history_; }
  bool paintbrushes() const { return paintbrushes_; }
  bool empty_palette_start() const { return empty_palette_start_; }

  // Puts the table in an arbitrary position, for rule-case tests ("Ann has red at (0,0)...").
  // The log and history are not touched, so such a state does not replay; never used in play.
  void SetBoardForTesting(const Board& board) { board_ = board; }

  // Score margin plus a share of each canvas's prospects (see pict.cc).
  double Heuristic(int seat) const override;

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
  int ActionKindImpl(engine::Action action) const override;
  void SaveImpl(google::protobuf::Any* out) const override;
  absl::Status LoadImpl(const google::protobuf::Any& in) override;

 private:
  PictState(const PictState&) = default;

  // The checks of the rules doc's tables, in their order, for any seat.
  absl::Status Check(int seat, engine::Action action) const;
  // Applies an action Check accepted (no chance is involved after setup).
  void Play(int seat, engine::Action action);
  // The board at setup, once the first player is known.
  void StartBoard(int first_player);
  // After the painter's turn (his Paint, or his brush step): next phase or the other player.
  void EndPaintingTurn(int painter);

  bool empty_palette_start_;
  bool paintbrushes_;
  Board board_;
  std::vector<Move> history_;
};

void Register(engine::Registry& registry);

}  // namespace parlor::games::pict

#endif  // PARLOR_ENGINE_GAMES_PICT_PICT_H_
