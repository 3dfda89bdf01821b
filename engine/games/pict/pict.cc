// Pict's rules: the game's metadata, action codes, the board, legal actions and their checks,
// painting, brushing and filling, scoring and the outcome. Views and action messages:
// pict_view.cc; the snapshot: pict_snapshot.cc.
#include "engine/games/pict/pict.h"

#include <algorithm>
#include <bit>
#include <utility>

#include "absl/strings/str_cat.h"
#include "engine/games/pict/pict_internal.h"

namespace parlor::games::pict {
namespace {

using engine::Action;
using internal::ColourName;
using internal::Decode;
using internal::Decoded;
using internal::FilledMask;
using internal::PaletteMask;
using internal::SeatName;
using internal::SquareText;

using engine::Action;

constexpr int kPaintCodeMin = 100000;
constexpr int kPaintCodeEnd = 400000;
constexpr int kFillCodeMin = 1000;
constexpr int kBrushCodeEnd = 3000;
constexpr uint16_t kFullCanvas = 0xFFFF;

// ---- Squares and colours -----------------------------------------------------------------------

std::string PaletteText(int index) { return SquareText(index / 3, index % 3); }
std::string CanvasText(int index) { return SquareText(index / 4, index % 4); }

constexpr bool PaletteAdjacent(int a, int b) {
  const int dr = a / 3 - b / 3, dc = a % 3 - b % 3;
  return (dr == 0 && (dc == 1 || dc == -1)) || (dc == 0 && (dr == 1 || dr == -1));
}

// Squares sorted row-major; 1..3 of them.
constexpr bool PaletteConnected(const int* squares, int count) {
  if (count == 1) return true;
  if (count == 2) return PaletteAdjacent(squares[0], squares[1]);
  // Three squares on a grid are joined iff at least two of the three pairs share an edge.
  const int pairs = PaletteAdjacent(squares[0], squares[1]) +
                    PaletteAdjacent(squares[0], squares[2]) +
                    PaletteAdjacent(squares[1], squares[2]);
  return pairs >= 2;
}

// Check 8 of the Paint table, for squares sorted row-major that are not joined.
absl::Status NotConnectedError(const int* squares, int count) {
  if (count == 2) {
    return absl::InvalidArgumentError(absl::StrCat("palette squares ", PaletteText(squares[0]),
                                                   " and ", PaletteText(squares[1]),
                                                   " do not share an edge"));
  }
  // Name a square that touches neither of the other two.
  for (int i = 0; i < 3; ++i) {
    const int a = squares[(i + 1) % 3], b = squares[(i + 2) % 3];
    if (!PaletteAdjacent(squares[i], a) && !PaletteAdjacent(squares[i], b)) {
      const int lo = std::min(a, b), hi = std::max(a, b);
      return absl::InvalidArgumentError(absl::StrCat("palette square ", PaletteText(squares[i]),
                                                     " does not share an edge with ",
                                                     PaletteText(lo), " or ", PaletteText(hi)));
    }
  }
  return absl::InvalidArgumentError("the palette squares do not share edges");
}

// ---- Codes
// ---------------------------------------------------------------------------------------

constexpr Action EncodePaint(int count, const int* squares, int shift_row, int shift_col) {
  int code = count;
  for (int i = 0; i < 3; ++i) code = code * 10 + (i < count ? squares[i] : 0);
  return (code * 10 + shift_row + 2) * 10 + shift_col + 2;
}

// Every Paint that fits an empty canvas from a full palette, in code order (which is the rules
// doc's order). A position's legal Paints are the entries whose palette squares are all filled
// and whose canvas squares are all free.
struct PaintTemplate {
  int32_t code = 0;
  uint16_t palette_mask = 0;
  uint16_t canvas_mask = 0;
};

constexpr int kNumPaintTemplates = 480;

constexpr std::array<PaintTemplate, kNumPaintTemplates> BuildPaintTemplates() {
  std::array<PaintTemplate, kNumPaintTemplates> table{};
  int n = 0;
  auto add_group = [&](const int* squares, int count) {
    if (!PaletteConnected(squares, count)) return;
    for (int dr = -2; dr <= 3; ++dr) {
      for (int dc = -2; dc <= 3; ++dc) {
        uint16_t palette_mask = 0, canvas_mask = 0;
        bool fits = true;
        for (int i = 0; i < count; ++i) {
          const int r = squares[i] / 3 + dr, c = squares[i] % 3 + dc;
          if (r < 0 || r >= kCanvasSize || c < 0 || c >= kCanvasSize) fits = false;
          palette_mask |= static_cast<uint16_t>(1u << squares[i]);
          if (fits) canvas_mask |= static_cast<uint16_t>(1u << (r * 4 + c));
        }
        if (!fits) continue;
        table[n++] = {static_cast<int32_t>(EncodePaint(count, squares, dr, dc)), palette_mask,
                      canvas_mask};
      }
    }
  };
  for (int a = 0; a < 9; ++a) {
    const int s[3] = {a, 0, 0};
    add_group(s, 1);
  }
  for (int a = 0; a < 9; ++a) {
    for (int b = a + 1; b < 9; ++b) {
      const int s[3] = {a, b, 0};
      add_group(s, 2);
    }
  }
  for (int a = 0; a < 9; ++a) {
    for (int b = a + 1; b < 9; ++b) {
      for (int c = b + 1; c < 9; ++c) {
        const int s[3] = {a, b, c};
        add_group(s, 3);
      }
    }
  }
  return table;
}

constexpr std::array<PaintTemplate, kNumPaintTemplates> kPaintTemplates = BuildPaintTemplates();

static_assert(kPaintTemplates.back().code != 0, "480 Paints fit an empty canvas");

// ---- Scoring
// ---------------------------------------------------------------------------------------

bool AddChain(Move* move, const Chain& chain) {
  for (uint8_t i = 0; i < move->num_chains; ++i) {
    const Chain& c = move->chains[i];
    if (c.shape == chain.shape && c.first == chain.first) return false;
  }
  move->chains[move->num_chains++] = chain;
  return true;
}

// Adds the chains through the squares of `new_mask` (already placed) to `move`; returns the
// turn score: the sum of the distinct chains' lengths.
int ScoreChains(const std::array<Colour, kCanvasSquares>& canvas, uint16_t new_mask, Move* move) {
  int total = 0;
  for (uint32_t bits = new_mask; bits != 0; bits &= bits - 1) {
    const int s = std::countr_zero(bits);
    const int row = s / 4, col = s % 4;
    const Colour k = canvas[s];
    int left = col, right = col, top = row, bottom = row;
    while (left > 0 && canvas[row * 4 + left - 1] == k) --left;
    while (right < 3 && canvas[row * 4 + right + 1] == k) ++right;
    while (top > 0 && canvas[(top - 1) * 4 + col] == k) --top;
    while (bottom < 3 && canvas[(bottom + 1) * 4 + col] == k) ++bottom;
    const int across = right - left + 1, down = bottom - top + 1;
    if (across >= 2) {
      const Chain c{Chain::Shape::kHorizontal, k, static_cast<uint8_t>(row * 4 + left),
                    static_cast<uint8_t>(row * 4 + right), static_cast<uint8_t>(across)};
      if (AddChain(move, c)) total += across;
    }
    if (down >= 2) {
      const Chain c{Chain::Shape::kVertical, k, static_cast<uint8_t>(top * 4 + col),
                    static_cast<uint8_t>(bottom * 4 + col), static_cast<uint8_t>(down)};
      if (AddChain(move, c)) total += down;
    }
    if (across == 1 && down == 1) {
      const Chain c{Chain::Shape::kLone, k, static_cast<uint8_t>(s), static_cast<uint8_t>(s), 1};
      if (AddChain(move, c)) total += 1;
    }
  }
  return total;
}

// What a lone piece of the best colour would score on free square `s` now.
int BestSingleScore(const std::array<Colour, kCanvasSquares>& canvas, int s) {
  const int row = s / 4, col = s % 4;
  int best = 1;
  for (Colour k : {kRed, kYellow, kBlue}) {
    int left = col, right = col, top = row, bottom = row;
    while (left > 0 && canvas[row * 4 + left - 1] == k) --left;
    while (right < 3 && canvas[row * 4 + right + 1] == k) ++right;
    while (top > 0 && canvas[(top - 1) * 4 + col] == k) --top;
    while (bottom < 3 && canvas[(bottom + 1) * 4 + col] == k) ++bottom;
    const int across = right - left + 1, down = bottom - top + 1;
    const int score = (across >= 2 ? across : 0) + (down >= 2 ? down : 0);
    best = std::max(best, score);
  }
  return best;
}

}  // namespace

namespace internal {

std::string SquareText(int row, int col) { return absl::StrCat("(", row, ",", col, ")"); }

const char* ColourName(Colour colour) {
  switch (colour) {
    case kRed:
      return "red";
    case kYellow:
      return "yellow";
    case kBlue:
      return "blue";
    case kEmpty:
      break;
  }
  return "no colour";
}

std::string SeatName(int seat) { return absl::StrCat("seat ", seat); }

Decoded Decode(Action code) {
  Decoded d;
  if (code == kSkipBrush) {
    d.kind = Decoded::Kind::kSkipBrush;
    return d;
  }
  if (code >= kFillCodeMin && code < kBrushCodeEnd) {
    const bool fill = code < kSkipBrush;
    d.row = static_cast<int>(code / 100 % 10);
    d.col = static_cast<int>(code / 10 % 10);
    const int colour = static_cast<int>(code % 10);
    const int limit = fill ? kPaletteSize : kCanvasSize;
    if (d.row >= limit || d.col >= limit || colour < kRed || colour > kBlue) return d;
    d.colour = static_cast<Colour>(colour);
    d.kind = fill ? Decoded::Kind::kFill : Decoded::Kind::kBrush;
    return d;
  }
  if (code >= kPaintCodeMin && code < kPaintCodeEnd) {
    d.count = static_cast<int>(code / 100000);
    d.squares[0] = static_cast<int>(code / 10000 % 10);
    d.squares[1] = static_cast<int>(code / 1000 % 10);
    d.squares[2] = static_cast<int>(code / 100 % 10);
    const int r = static_cast<int>(code / 10 % 10), c = static_cast<int>(code % 10);
    if (r > 5 || c > 5) return d;
    for (int i = 0; i < 3; ++i) {
      if (d.squares[i] >= kPaletteSquares) return d;
      if (i >= d.count && d.squares[i] != 0) return d;
      if (i > 0 && i < d.count && d.squares[i] <= d.squares[i - 1]) return d;
    }
    d.shift_row = r - 2;
    d.shift_col = c - 2;
    d.kind = Decoded::Kind::kPaint;
  }
  return d;
}

uint16_t FilledMask(const std::array<Colour, kCanvasSquares>& canvas) {
  uint16_t mask = 0;
  for (int s = 0; s < kCanvasSquares; ++s) {
    if (canvas[s] != kEmpty) mask |= static_cast<uint16_t>(1u << s);
  }
  return mask;
}

uint16_t PaletteMask(const std::array<Colour, kPaletteSquares>& palette) {
  uint16_t mask = 0;
  for (int s = 0; s < kPaletteSquares; ++s) {
    if (palette[s] != kEmpty) mask |= static_cast<uint16_t>(1u << s);
  }
  return mask;
}

}  // namespace internal

// ---- Codes (public helpers) --------------------------------------------------------------------

Action FillCode(int row, int col, Colour colour) { return 1000 + row * 100 + col * 10 + colour; }

Action BrushCode(int row, int col, Colour colour) { return 2000 + row * 100 + col * 10 + colour; }

absl::StatusOr<Action> PaintCode(std::span<const Stroke> strokes) {
  const int count = static_cast<int>(strokes.size());
  if (count < 1 || count > 3) {
    return absl::InvalidArgumentError(
        absl::StrCat("a Paint takes 1, 2 or 3 palette squares; got ", count));
  }
  for (const Stroke& s : strokes) {
    if (s.palette_row < 0 || s.palette_row >= kPaletteSize || s.palette_col < 0 ||
        s.palette_col >= kPaletteSize) {
      return absl::InvalidArgumentError(absl::StrCat("palette square ",
                                                     SquareText(s.palette_row, s.palette_col),
                                                     " is outside the 3×3 palette"));
    }
    if (s.canvas_row < 0 || s.canvas_row >= kCanvasSize || s.canvas_col < 0 ||
        s.canvas_col >= kCanvasSize) {
      return absl::InvalidArgumentError(absl::StrCat(
          "canvas square ", SquareText(s.canvas_row, s.canvas_col), " is outside the 4×4 canvas"));
    }
  }
  int squares[3] = {0, 0, 0};
  for (int i = 0; i < count; ++i) {
    squares[i] = strokes[i].palette_row * 3 + strokes[i].palette_col;
    for (int j = 0; j < i; ++j) {
      if (squares[j] == squares[i]) {
        return absl::InvalidArgumentError(
            absl::StrCat("palette square ", PaletteText(squares[i]), " is named twice"));
      }
    }
  }
  int sorted[3] = {squares[0], squares[1], squares[2]};
  for (int i = 1; i < count; ++i) {  // insertion sort of at most three squares
    for (int j = i; j > 0 && sorted[j - 1] > sorted[j]; --j) std::swap(sorted[j - 1], sorted[j]);
  }
  if (!PaletteConnected(sorted, count)) return NotConnectedError(sorted, count);
  const int shift_row = strokes[0].canvas_row - strokes[0].palette_row;
  const int shift_col = strokes[0].canvas_col - strokes[0].palette_col;
  for (const Stroke& s : strokes) {
    if (s.canvas_row - s.palette_row != shift_row || s.canvas_col - s.palette_col != shift_col) {
      return absl::InvalidArgumentError(
          "the squares must keep their palette arrangement: no rotating or flipping");
    }
  }
  return EncodePaint(count, sorted, shift_row, shift_col);
}

// ---- PictGame
// ------------------------------------------------------------------------------------

PictGame::PictGame()
    : Game(engine::GameInfo{
          .name = "pict",
          .display_name = "Pict",
          .summary =
              "A two-player abstract painting game of perfect information. Take 1 to 3 "
              "edge-connected squares from the shared 3×3 palette, place them on your own 4×4 "
              "canvas without turning them, and score the straight same-colour chains they join. "
              "Painting phases alternate with filling phases that restock the palette with three "
              "pieces of each colour. Whoever fills his canvas first gets 2 bonus points and ends "
              "the game; the higher score wins.",
          .min_players = 2,
          .max_players = 2,
          .has_teams = false,
          .options =
              {engine::OptionSpec::Bool(
                   "empty_palette_start",
                   "Master painters: start from an empty palette with an opening filling phase "
                   "instead of the recommended layout.",
                   false),
               engine::OptionSpec::Bool(
                   "paintbrushes",
                   "Master painters: each player has 2 paintbrush tokens; right after his own "
                   "Paint he may use one to recolour a filled square of his opponent's canvas.",
                   false)},
          .action_kinds = {"paint", "brush", "skip_brush", "fill"},
          .choices_public = true,
      }) {}

int64_t PictGame::MaxMoves(int, const engine::Options& options) const {
  // RULES.md "Length of a game": at most 31 Paints (16 + 15 squares placed), 27 Fills (three
  // completed painting phases), 9 more for the opening fill, and a brush step after every Paint
  // but the last. A forfeit ends the game, so it only ever replaces a move.
  int64_t bound = 31 + 27;
  if (options.GetBool("empty_palette_start")) bound += 9;
  if (options.GetBool("paintbrushes")) bound += 30;
  return bound;
}

std::unique_ptr<engine::State> PictGame::CreateState(
    int, std::shared_ptr<const engine::Options> options) const {
  return std::make_unique<PictState>(*this, std::move(options));
}

// ---- PictState
// -----------------------------------------------------------------------------------

PictState::PictState(const engine::Game& game, std::shared_ptr<const engine::Options> options)
    : State(game, 2, std::move(options)),
      empty_palette_start_(this->options().GetBool("empty_palette_start")),
      paintbrushes_(this->options().GetBool("paintbrushes")) {}

void PictState::StartBoard(int first_player) {
  board_ = Board{};
  board_.first_player = static_cast<int8_t>(first_player);
  board_.to_move = static_cast<int8_t>(first_player);
  board_.phase_starter = static_cast<int8_t>(first_player);
  board_.previous_painting_starter = -1;
  board_.finisher = -1;
  const int8_t tokens = paintbrushes_ ? kPaintbrushesPerPlayer : 0;
  board_.paintbrushes_left = {tokens, tokens};
  if (empty_palette_start_) {
    board_.phase = Phase::kFilling;
    board_.opening_fill = true;
  } else {
    board_.phase = Phase::kPainting;
    board_.palette = kRecommendedPalette;
  }
  history_.clear();
}

void PictState::SetupImpl(engine::Chance& chance) { StartBoard(chance.Uniform(2)); }

std::unique_ptr<engine::State> PictState::CloneImpl() const {
  return std::unique_ptr<engine::State>(new PictState(*this));
}

engine::SeatSet PictState::ActingSeatsImpl() const {
  if (board_.phase == Phase::kOver) return {};
  return engine::SeatSet::Of(board_.to_move);
}

bool PictState::IsTerminalImpl() const { return board_.phase == Phase::kOver; }

void PictState::LegalActionsImpl(int seat, std::vector<Action>* out) const {
  if (board_.phase == Phase::kOver || seat != board_.to_move) return;
  if (board_.phase == Phase::kFilling) {
    int count[4] = {0, 0, 0, 0};
    for (Colour k : board_.palette) ++count[k];
    for (int s = 0; s < kPaletteSquares; ++s) {
      if (board_.palette[s] != kEmpty) continue;
      for (Colour k : {kRed, kYellow, kBlue}) {
        if (count[k] < kPiecesPerColour) out->push_back(FillCode(s / 3, s % 3, k));
      }
    }
    return;
  }
  if (board_.brush_step) {
    out->push_back(kSkipBrush);
    const auto& target = board_.canvas[1 - seat];
    for (int s = 0; s < kCanvasSquares; ++s) {
      if (target[s] == kEmpty) continue;
      for (Colour k : {kRed, kYellow, kBlue}) {
        if (k != target[s]) out->push_back(BrushCode(s / 4, s % 4, k));
      }
    }
    return;
  }
  const uint16_t missing = static_cast<uint16_t>(~PaletteMask(board_.palette));
  const uint16_t filled = FilledMask(board_.canvas[seat]);
  out->reserve(out->size() + 64);
  for (const PaintTemplate& t : kPaintTemplates) {
    if ((t.palette_mask & missing) == 0 && (t.canvas_mask & filled) == 0) out->push_back(t.code);
  }
}

absl::Status PictState::Check(int seat, Action action) const {
  const Decoded d = Decode(action);
  if (d.kind == Decoded::Kind::kInvalid) {
    return absl::InvalidArgumentError(absl::StrCat(action, " is not a Pict action code"));
  }
  if (board_.phase == Phase::kOver) return absl::FailedPreconditionError("the game is over");
  const bool to_move = seat == board_.to_move;
  auto not_your_turn = [&] {
    return absl::FailedPreconditionError(
        absl::StrCat("it is ", SeatName(board_.to_move), "'s turn"));
  };
  switch (d.kind) {
    case Decoded::Kind::kPaint: {
      // Shape first (Paint checks 2 and 4): they look at nothing but the code.
      int targets[3];
      for (int i = 0; i < d.count; ++i) {
        const int r = d.squares[i] / 3 + d.shift_row, c = d.squares[i] % 3 + d.shift_col;
        if (r < 0 || r >= kCanvasSize || c < 0 || c >= kCanvasSize) {
          return absl::InvalidArgumentError(
              absl::StrCat("canvas square ", SquareText(r, c), " is outside the 4×4 canvas"));
        }
        targets[i] = r * 4 + c;
      }
      if (!PaletteConnected(d.squares, d.count)) return NotConnectedError(d.squares, d.count);
      if (board_.phase != Phase::kPainting) {
        return absl::FailedPreconditionError("the palette is being filled: send a Fill");
      }
      if (!to_move) return not_your_turn();
      if (board_.brush_step) {
        return absl::FailedPreconditionError(
            "you have painted this turn: send a Brush or a SkipBrush");
      }
      for (int i = 0; i < d.count; ++i) {
        if (board_.palette[d.squares[i]] == kEmpty) {
          return absl::FailedPreconditionError(
              absl::StrCat("palette square ", PaletteText(d.squares[i]), " is empty"));
        }
      }
      for (int i = 0; i < d.count; ++i) {
        if (board_.canvas[seat][targets[i]] != kEmpty) {
          return absl::FailedPreconditionError(
              absl::StrCat("your canvas square ", CanvasText(targets[i]), " is already painted"));
        }
      }
      return absl::OkStatus();
    }
    case Decoded::Kind::kBrush:
    case Decoded::Kind::kSkipBrush: {
      if (!paintbrushes_) {
        return absl::FailedPreconditionError("paintbrush tokens are not used in this game");
      }
      if (!to_move) return not_your_turn();
      if (!board_.brush_step) {
        return absl::FailedPreconditionError(
            "a paintbrush can only be used right after your own Paint");
      }
      if (d.kind == Decoded::Kind::kSkipBrush) return absl::OkStatus();
      const int opponent = 1 - seat;
      const Colour present = board_.canvas[opponent][d.row * 4 + d.col];
      if (present == kEmpty) {
        return absl::FailedPreconditionError(absl::StrCat(SeatName(opponent), "'s canvas square ",
                                                          SquareText(d.row, d.col), " is empty"));
      }
      if (present == d.colour) {
        return absl::FailedPreconditionError(absl::StrCat(SeatName(opponent), "'s canvas square ",
                                                          SquareText(d.row, d.col), " is already ",
                                                          ColourName(present)));
      }
      return absl::OkStatus();
    }
    case Decoded::Kind::kFill: {
      if (board_.phase != Phase::kFilling) {
        return absl::FailedPreconditionError("it is a painting phase: send a Paint");
      }
      if (!to_move) return not_your_turn();
      if (board_.palette[d.row * 3 + d.col] != kEmpty) {
        return absl::FailedPreconditionError(
            absl::StrCat("palette square ", SquareText(d.row, d.col), " already holds a piece"));
      }
      int count = 0;
      for (Colour k : board_.palette) count += k == d.colour;
      if (count >= kPiecesPerColour) {
        return absl::FailedPreconditionError(
            absl::StrCat("the palette already holds three ", ColourName(d.colour), " pieces"));
      }
      return absl::OkStatus();
    }
    case Decoded::Kind::kInvalid:
      break;
  }
  return absl::InvalidArgumentError(absl::StrCat(action, " is not a Pict action code"));
}

absl::Status PictState::CheckActionImpl(int seat, Action action) const {
  return Check(seat, action);
}

absl::Status PictState::NotYourTurnImpl(int) const {
  // Whatever was sent (engine/GAMES.md, "Refusals").
  return absl::FailedPreconditionError(absl::StrCat("it is ", SeatName(board_.to_move), "'s turn"));
}

void PictState::EndPaintingTurn(int painter) {
  board_.brush_step = false;
  if (PaletteMask(board_.palette) != 0) {
    board_.to_move = static_cast<int8_t>(1 - painter);
    return;
  }
  // The palette is used up: a filling phase begins. First filler: the lower score, then fewer
  // filled squares, then the player who started the painting phase that has just ended.
  int first;
  if (board_.score[0] != board_.score[1]) {
    first = board_.score[0] < board_.score[1] ? 0 : 1;
  } else {
    const int filled0 = std::popcount(FilledMask(board_.canvas[0]));
    const int filled1 = std::popcount(FilledMask(board_.canvas[1]));
    first = filled0 != filled1 ? (filled0 < filled1 ? 0 : 1) : board_.phase_starter;
  }
  board_.previous_painting_starter = board_.phase_starter;
  board_.phase = Phase::kFilling;
  board_.phase_starter = static_cast<int8_t>(first);
  board_.to_move = static_cast<int8_t>(first);
}

void PictState::Play(int seat, Action action) {
  const Decoded d = Decode(action);
  Move move;
  move.seat = static_cast<int8_t>(seat);
  move.action = action;
  switch (d.kind) {
    case Decoded::Kind::kPaint: {
      auto& canvas = board_.canvas[seat];
      uint16_t placed = 0;
      for (int i = 0; i < d.count; ++i) {
        const int p = d.squares[i];
        const int t = (p / 3 + d.shift_row) * 4 + p % 3 + d.shift_col;
        canvas[t] = board_.palette[p];
        board_.palette[p] = kEmpty;
        placed |= static_cast<uint16_t>(1u << t);
      }
      move.turn_score = static_cast<int16_t>(ScoreChains(canvas, placed, &move));
      board_.score[seat] += move.turn_score;
      if (FilledMask(canvas) == kFullCanvas) {
        move.bonus = kFinishingBonus;
        board_.score[seat] += kFinishingBonus;
        board_.phase = Phase::kOver;
        board_.to_move = -1;
        board_.finisher = static_cast<int8_t>(seat);
        board_.brush_step = false;
      } else if (paintbrushes_ && board_.paintbrushes_left[seat] > 0 &&
                 FilledMask(board_.canvas[1 - seat]) != 0) {
        board_.brush_step = true;  // the painter stays to move
      } else {
        EndPaintingTurn(seat);
      }
      break;
    }
    case Decoded::Kind::kBrush:
      board_.canvas[1 - seat][d.row * 4 + d.col] = d.colour;
      --board_.paintbrushes_left[seat];
      EndPaintingTurn(seat);
      break;
    case Decoded::Kind::kSkipBrush:
      EndPaintingTurn(seat);
      break;
    case Decoded::Kind::kFill: {
      board_.palette[d.row * 3 + d.col] = d.colour;
      if (PaletteMask(board_.palette) != 0x1FF) {
        board_.to_move = static_cast<int8_t>(1 - seat);
        break;
      }
      // The palette is full: the first filler paints first, except after the opening fill,
      // where the player who went second in it does.
      const int starter = board_.opening_fill ? 1 - board_.phase_starter : board_.phase_starter;
      board_.opening_fill = false;
      board_.phase = Phase::kPainting;
      board_.phase_starter = static_cast<int8_t>(starter);
      board_.to_move = static_cast<int8_t>(starter);
      break;
    }
    case Decoded::Kind::kInvalid:
      return;
  }
  history_.push_back(move);
}

void PictState::ApplyImpl(int seat, Action action, engine::Chance&) { Play(seat, action); }

std::vector<int> PictState::RanksImpl() const {
  const int32_t a = board_.score[0], b = board_.score[1];
  if (a == b) return {1, 1};
  return a > b ? std::vector<int>{1, 2} : std::vector<int>{2, 1};
}

std::vector<int64_t> PictState::ScoresImpl() const { return {board_.score[0], board_.score[1]}; }

std::string PictState::EndReasonImpl() const {
  return absl::StrCat(SeatName(board_.finisher), " completed the canvas; final score ",
                      board_.score[0], "–", board_.score[1]);
}

int PictState::ActionKindImpl(Action action) const {
  switch (Decode(action).kind) {
    case Decoded::Kind::kBrush:
      return kKindBrush;
    case Decoded::Kind::kSkipBrush:
      return kKindSkipBrush;
    case Decoded::Kind::kFill:
      return kKindFill;
    case Decoded::Kind::kPaint:
    case Decoded::Kind::kInvalid:
      break;
  }
  return kKindPaint;
}

double PictState::Heuristic(int seat) const {
  const int opponent = 1 - seat;
  const double margin = board_.score[seat] - board_.score[opponent];
  if (board_.phase == Phase::kOver) {
    return margin + (margin > 0 ? 1000.0 : margin < 0 ? -1000.0 : 0.0);
  }
  // Prospects: how much more than a lone square each free square could still score with the
  // best colour, so that among equal gains the bot keeps its own lines open and spoils the
  // opponent's.
  auto prospects = [this](int who) {
    const auto& canvas = board_.canvas[who];
    int total = 0;
    for (int s = 0; s < kCanvasSquares; ++s) {
      if (canvas[s] == kEmpty) total += BestSingleScore(canvas, s) - 1;
    }
    return total;
  };
  return margin + 0.25 * (prospects(seat) - prospects(opponent));
}

void Register(engine::Registry& registry) { registry.Add(std::make_unique<PictGame>()); }

}  // namespace parlor::games::pict
