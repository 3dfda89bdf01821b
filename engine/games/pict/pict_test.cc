// Pict's rules, case by case. Ann is seat 0 and Ben is seat 1. Unless a test says otherwise, the
// options are off, it is a painting phase with Ann to move and the palette is the recommended
// layout:
//
//       0 1 2
//   0   R Y B
//   1   Y B R
//   2   B R Y
#include "engine/games/pict/pict.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "engine/core/registry.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "parlor/games/v1/pict.pb.h"
#include "pict/pict_state.pb.h"

namespace parlor::games::pict {
namespace {

using engine::Action;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
namespace v1 = ::parlor::games::v1;

constexpr int kAnn = 0;
constexpr int kBen = 1;

// "R Y . B ..." → squares, row-major; spaces are ignored.
template <size_t N>
std::array<Colour, N> Squares(const std::string& text) {
  std::array<Colour, N> out{};
  size_t i = 0;
  for (char ch : text) {
    if (ch == ' ' || ch == '\n') continue;
    Colour k = ch == 'R' ? kRed : ch == 'Y' ? kYellow : ch == 'B' ? kBlue : kEmpty;
    if (i < N) out[i] = k;
    ++i;
  }
  EXPECT_EQ(i, N) << "diagram \"" << text << "\" has " << i << " squares";
  return out;
}
std::array<Colour, kCanvasSquares> Canvas(const std::string& text) { return Squares<16>(text); }
std::array<Colour, kPaletteSquares> Palette(const std::string& text) { return Squares<9>(text); }

Stroke S(int palette_row, int palette_col, int canvas_row, int canvas_col) {
  return {palette_row, palette_col, canvas_row, canvas_col};
}

Action Paint(std::vector<Stroke> strokes) {
  absl::StatusOr<Action> code = PaintCode(strokes);
  EXPECT_TRUE(code.ok()) << code.status();
  return code.ok() ? *code : -1;
}

v1::PictAction PaintProto(const std::vector<Stroke>& strokes) {
  v1::PictAction action;
  action.mutable_paint();
  for (const Stroke& s : strokes) {
    v1::PictStroke* stroke = action.mutable_paint()->add_strokes();
    stroke->mutable_palette()->set_row(s.palette_row);
    stroke->mutable_palette()->set_col(s.palette_col);
    stroke->mutable_canvas()->set_row(s.canvas_row);
    stroke->mutable_canvas()->set_col(s.canvas_col);
  }
  return action;
}

class PictTest : public ::testing::Test {
 protected:
  // A new game in which the draw picks `first`.
  std::unique_ptr<PictState> NewGame(int first = kAnn,
                                     std::map<std::string, std::string> raw_options = {}) {
    absl::StatusOr<engine::Options> options = game_.ParseOptions(raw_options, 2);
    EXPECT_TRUE(options.ok()) << options.status();
    absl::StatusOr<std::unique_ptr<engine::State>> state =
        game_.NewGameWithOutcomes(2, *options, engine::Seed::FromUint64(7), {first});
    EXPECT_TRUE(state.ok()) << state.status();
    return std::unique_ptr<PictState>(static_cast<PictState*>(state->release()));
  }
  std::unique_ptr<PictState> NewGameWithBrushes(int first = kAnn) {
    return NewGame(first, {{"paintbrushes", "true"}});
  }

  // A default game with Ann to move in a painting phase, her canvas and score as given.
  std::unique_ptr<PictState> AnnPaints(const std::string& ann_canvas, int ann_score = 0) {
    std::unique_ptr<PictState> state = NewGame();
    Board board = state->board();
    board.canvas[kAnn] = Canvas(ann_canvas);
    board.score[kAnn] = ann_score;
    state->SetBoardForTesting(board);
    return state;
  }

  absl::StatusOr<Action> FromProto(const v1::PictAction& action) {
    return game_.ActionFromProto(action);
  }

  // Applies and expects success.
  void Play(PictState& state, int seat, Action action) {
    absl::Status s = state.Apply(seat, action);
    ASSERT_TRUE(s.ok()) << state.ActionToString(seat, action) << ": " << s;
  }

  // Expects the action to be refused with `code` and exactly `message`, changing nothing.
  void ExpectRefused(PictState& state, int seat, Action action, absl::StatusCode code,
                     const std::string& message) {
    const std::string before = state.SerializeToString();
    const absl::Status s = state.Apply(seat, action);
    EXPECT_EQ(s.code(), code) << s;
    EXPECT_EQ(s.message(), message);
    EXPECT_EQ(state.SerializeToString(), before) << "a refused action changed the state";
    const std::vector<Action> legal = state.LegalActions(seat);
    EXPECT_FALSE(std::binary_search(legal.begin(), legal.end(), action));
  }

  // Expects the proto to be refused when it is read, with INVALID_ARGUMENT and `message`.
  void ExpectMalformed(const v1::PictAction& action, const std::string& message) {
    absl::StatusOr<Action> code = FromProto(action);
    EXPECT_EQ(code.status().code(), absl::StatusCode::kInvalidArgument) << code.status();
    EXPECT_EQ(code.status().message(), message);
  }

  PictGame game_;
};

// ---- Rule cases ------------------------------------------------------------------------------

TEST_F(PictTest, Case1SetupGivesTheRecommendedPaletteAnd480Paints) {
  std::unique_ptr<PictState> state = NewGame(kAnn);
  const Board& b = state->board();
  EXPECT_EQ(b.palette, Palette("R Y B  Y B R  B R Y"));
  EXPECT_EQ(b.canvas[kAnn], Canvas("...."
                                   "...."
                                   "...."
                                   "...."));
  EXPECT_EQ(b.canvas[kBen], Canvas("...."
                                   "...."
                                   "...."
                                   "...."));
  EXPECT_THAT(state->Scores(), ElementsAre(0, 0));
  EXPECT_EQ(b.phase, Phase::kPainting);
  EXPECT_EQ(b.to_move, kAnn);
  EXPECT_EQ(b.paintbrushes_left[kAnn], 0);

  const std::vector<Action> legal = state->LegalActions(kAnn);
  EXPECT_EQ(legal.size(), 480u);
  // 9 single squares at 16 places, 12 pairs at 12, 6 straight triples at 8, 16 bent at 9.
  std::map<std::string, int> by_shape;
  std::set<std::set<int>> groups[4];
  for (Action a : legal) {
    std::unique_ptr<google::protobuf::Message> m = game_.ActionToProto(a);
    const auto& paint = static_cast<const v1::PictAction&>(*m).paint();
    std::set<int> rows, cols, group;
    for (const v1::PictStroke& s : paint.strokes()) {
      rows.insert(s.palette().row());
      cols.insert(s.palette().col());
      group.insert(s.palette().row() * 3 + s.palette().col());
    }
    groups[paint.strokes_size()].insert(group);
    const bool straight = rows.size() == 1 || cols.size() == 1;
    ++by_shape[paint.strokes_size() == 3 ? (straight ? "straight" : "bent")
                                         : std::to_string(paint.strokes_size())];
  }
  EXPECT_EQ(by_shape["1"], 9 * 16);
  EXPECT_EQ(by_shape["2"], 12 * 12);
  EXPECT_EQ(by_shape["straight"], 6 * 8);
  EXPECT_EQ(by_shape["bent"], 16 * 9);
  EXPECT_EQ(groups[1].size(), 9u);
  EXPECT_EQ(groups[2].size(), 12u);
  EXPECT_EQ(groups[3].size(), 22u);
  EXPECT_TRUE(state->LegalActions(kBen).empty());
}

TEST_F(PictTest, Case1TheDrawDecidesWhoMovesFirst) {
  std::unique_ptr<PictState> state = NewGame(kBen);
  EXPECT_EQ(state->board().to_move, kBen);
  EXPECT_EQ(state->board().first_player, kBen);
  EXPECT_EQ(state->LegalActions(kBen).size(), 480u);
  EXPECT_TRUE(state->LegalActions(kAnn).empty());
  // The draw is recorded in the setup entry of the log.
  const engine::v1::GameRecord record = state->Serialize();
  ASSERT_GE(record.log_size(), 1);
  EXPECT_THAT(record.log(0).outcomes(), ElementsAre(kBen));
}

TEST_F(PictTest, Case2ALoneSquareScoresOne) {
  std::unique_ptr<PictState> state = NewGame();
  Play(*state, kAnn, Paint({S(0, 0, 2, 1)}));  // the red
  EXPECT_EQ(state->board().score[kAnn], 1);
  EXPECT_EQ(state->board().canvas[kAnn][2 * 4 + 1], kRed);
  EXPECT_EQ(state->board().palette[0], kEmpty);
  EXPECT_EQ(state->board().to_move, kBen);
  ASSERT_EQ(state->history().size(), 1u);
  const Move& move = state->history()[0];
  EXPECT_EQ(move.turn_score, 1);
  ASSERT_EQ(move.num_chains, 1);
  EXPECT_EQ(move.chains[0].shape, Chain::Shape::kLone);
}

TEST_F(PictTest, Case3LengtheningALineScoresTheWholeNewLength) {
  std::unique_ptr<PictState> state = AnnPaints(
      "R R . ."
      "...."
      "...."
      "....");
  Play(*state, kAnn, Paint({S(1, 2, 0, 2)}));  // the red at (1,2)
  EXPECT_EQ(state->board().score[kAnn], 3);
}

TEST_F(PictTest, Case4JoiningTwoLinesScoresTheOneLineTheyForm) {
  std::unique_ptr<PictState> state = AnnPaints(
      "...."
      "R R . R"
      "...."
      "....");
  Play(*state, kAnn, Paint({S(1, 2, 1, 2)}));
  EXPECT_EQ(state->board().score[kAnn], 4);
}

TEST_F(PictTest, Case5ACrossingSquareCountsTwice) {
  std::unique_ptr<PictState> state = AnnPaints(
      "...."
      "...."
      ". R . ."
      ". . R .");
  Play(*state, kAnn, Paint({S(1, 2, 2, 2)}));  // 2 across + 2 down
  EXPECT_EQ(state->board().score[kAnn], 4);
  EXPECT_EQ(state->history().back().num_chains, 2);
}

TEST_F(PictTest, Case6CornersDoNotConnect) {
  std::unique_ptr<PictState> state = AnnPaints(
      "...."
      ". Y . ."
      "...."
      "....");
  Play(*state, kAnn, Paint({S(2, 2, 2, 2)}));  // yellow, touching (1,1) only at a corner
  EXPECT_EQ(state->board().score[kAnn], 1);
}

TEST_F(PictTest, Case7OnlyChainsThroughANewSquareCount) {
  std::unique_ptr<PictState> state = AnnPaints(
      "B . . ."
      "B . . ."
      "...."
      "....");
  Play(*state, kAnn, Paint({S(0, 2, 0, 1)}));  // blue into (0,1): the run (0,0)–(0,1)
  EXPECT_EQ(state->board().score[kAnn], 2);    // not 3 or 4: (0,0)–(1,0) has no new square
}

TEST_F(PictTest, Case8AChainCountsOnceNotOncePerSquare) {
  std::unique_ptr<PictState> state = NewGame();
  Board board = state->board();
  board.palette = Palette("Y Y B  B Y B  R R .");  // after a refill: red at (2,0) and (2,1)
  state->SetBoardForTesting(board);
  Play(*state, kAnn, Paint({S(2, 0, 3, 1), S(2, 1, 3, 2)}));
  EXPECT_EQ(state->board().score[kAnn], 2);
}

TEST_F(PictTest, Case9TheWorkedExampleScoresSix) {
  std::unique_ptr<PictState> state = AnnPaints(
      "B B . ."
      "Y . . R"
      "Y . . ."
      ". Y . .",
      /*ann_score=*/5);
  Play(*state, kAnn, Paint({S(0, 2, 0, 2), S(1, 2, 1, 2), S(2, 2, 2, 2)}));
  EXPECT_EQ(state->board().canvas[kAnn], Canvas("B B B ."
                                                "Y . R R"
                                                "Y . Y ."
                                                ". Y . ."));
  EXPECT_EQ(state->board().score[kAnn], 11);
  const Move& move = state->history().back();
  EXPECT_EQ(move.turn_score, 6);
  ASSERT_EQ(move.num_chains, 3);
  // Blue run (0,0)–(0,2): 3; red run (1,2)–(1,3): 2; lone yellow (2,2): 1.
  EXPECT_EQ(move.chains[0].shape, Chain::Shape::kHorizontal);
  EXPECT_EQ(move.chains[0].colour, kBlue);
  EXPECT_EQ(move.chains[0].first, 0);
  EXPECT_EQ(move.chains[0].last, 2);
  EXPECT_EQ(move.chains[0].length, 3);
  EXPECT_EQ(move.chains[1].shape, Chain::Shape::kHorizontal);
  EXPECT_EQ(move.chains[1].colour, kRed);
  EXPECT_EQ(move.chains[1].first, 6);
  EXPECT_EQ(move.chains[1].last, 7);
  EXPECT_EQ(move.chains[2].shape, Chain::Shape::kLone);
  EXPECT_EQ(move.chains[2].colour, kYellow);
  EXPECT_EQ(move.chains[2].first, 10);
}

TEST_F(PictTest, Case10ABentTripleOfOneColourScoresTwoRuns) {
  std::unique_ptr<PictState> state = NewGame();
  Board board = state->board();
  board.palette = Palette("R R B  R B Y  B Y Y");
  state->SetBoardForTesting(board);
  Play(*state, kAnn, Paint({S(0, 0, 1, 1), S(0, 1, 1, 2), S(1, 0, 2, 1)}));
  EXPECT_EQ(state->board().score[kAnn], 4);  // (1,1)–(1,2) and (1,1)–(2,1), not 3
}

TEST_F(PictTest, Case11NoRotatingOrFlipping) {
  std::unique_ptr<PictState> state = NewGame();
  // One above the other on the palette, side by side on the canvas: shifts (0,−2) and (−1,−1).
  ExpectMalformed(PaintProto({S(0, 2, 0, 0), S(1, 2, 0, 1)}),
                  "the squares must keep their palette arrangement: no rotating or flipping");
  // A mirror image.
  ExpectMalformed(PaintProto({S(0, 0, 0, 1), S(0, 1, 0, 0)}),
                  "the squares must keep their palette arrangement: no rotating or flipping");
  // The same shift (0,−2) for both: accepted.
  absl::StatusOr<Action> moved = FromProto(PaintProto({S(0, 2, 0, 0), S(1, 2, 1, 0)}));
  ASSERT_TRUE(moved.ok()) << moved.status();
  Play(*state, kAnn, *moved);
  EXPECT_EQ(state->board().canvas[kAnn][0], kBlue);
  EXPECT_EQ(state->board().canvas[kAnn][4], kRed);
}

TEST_F(PictTest, Case12TheSquaresTakenMustShareEdges) {
  std::unique_ptr<PictState> state = NewGame();
  ExpectMalformed(PaintProto({S(0, 0, 0, 0), S(1, 1, 1, 1)}),
                  "palette squares (0,0) and (1,1) do not share an edge");
  // A code naming squares that touch only at a corner is refused by the rules check too.
  ExpectRefused(*state, kAnn, 204022, absl::StatusCode::kInvalidArgument,
                "palette squares (0,0) and (1,1) do not share an edge");
  // The bent triple (0,0), (0,1), (1,1) may be taken from the full palette.
  const std::vector<Action> legal = state->LegalActions(kAnn);
  EXPECT_TRUE(std::binary_search(legal.begin(), legal.end(),
                                 Paint({S(0, 0, 0, 0), S(0, 1, 0, 1), S(1, 1, 1, 1)})));
  // After (0,1) has been taken, the empty (0,1) does not join (0,0) and (0,2).
  Play(*state, kAnn, Paint({S(0, 1, 3, 3)}));
  Play(*state, kBen, Paint({S(2, 2, 3, 3)}));
  ExpectMalformed(PaintProto({S(0, 0, 0, 0), S(0, 2, 0, 2)}),
                  "palette squares (0,0) and (0,2) do not share an edge");
  ExpectRefused(*state, kAnn, 202022, absl::StatusCode::kInvalidArgument,
                "palette squares (0,0) and (0,2) do not share an edge");
  // Three squares, one of them apart.
  ExpectMalformed(PaintProto({S(0, 0, 0, 0), S(0, 1, 0, 1), S(2, 2, 2, 2)}),
                  "palette square (2,2) does not share an edge with (0,0) or (0,1)");
}

TEST_F(PictTest, Case13TargetsMustBeFreeAndOnTheCanvas) {
  std::unique_ptr<PictState> state = AnnPaints(
      "...."
      ". . Y ."
      "...."
      "....");
  ExpectRefused(*state, kAnn, Paint({S(1, 2, 1, 2)}), absl::StatusCode::kFailedPrecondition,
                "your canvas square (1,2) is already painted");
  ExpectRefused(*state, kAnn, Paint({S(1, 1, 1, 1), S(1, 2, 1, 2)}),
                absl::StatusCode::kFailedPrecondition,
                "your canvas square (1,2) is already painted");
  // The top row shifted by (0,2) would need canvas column 4.
  ExpectMalformed(PaintProto({S(0, 0, 0, 2), S(0, 1, 0, 3), S(0, 2, 0, 4)}),
                  "canvas square (0,4) is outside the 4×4 canvas");
  ExpectMalformed(PaintProto({S(0, 2, 0, 4)}), "canvas square (0,4) is outside the 4×4 canvas");
  // As a code (square 2, shift (0,2)) it is refused by the rules check the same way.
  ExpectRefused(*state, kAnn, 120024, absl::StatusCode::kInvalidArgument,
                "canvas square (0,4) is outside the 4×4 canvas");
}

TEST_F(PictTest, Case14OnlyPiecesOnThePaletteCanBeTaken) {
  std::unique_ptr<PictState> state = NewGame();
  Play(*state, kAnn, Paint({S(0, 0, 0, 0)}));
  Play(*state, kBen, Paint({S(2, 2, 0, 0)}));
  ExpectRefused(*state, kAnn, Paint({S(0, 0, 1, 1)}), absl::StatusCode::kFailedPrecondition,
                "palette square (0,0) is empty");
  ExpectRefused(*state, kAnn, Paint({S(0, 0, 1, 1), S(0, 1, 1, 2)}),
                absl::StatusCode::kFailedPrecondition, "palette square (0,0) is empty");
}

TEST_F(PictTest, Case15RightActionRightPhaseRightPlayer) {
  // Painting phase, Ann to move.
  std::unique_ptr<PictState> state = NewGame();
  ExpectRefused(*state, kAnn, FillCode(0, 0, kRed), absl::StatusCode::kFailedPrecondition,
                "it is a painting phase: send a Paint");
  ExpectRefused(*state, kBen, Paint({S(0, 0, 0, 0)}), absl::StatusCode::kFailedPrecondition,
                "it is seat 0's turn");
  // A seat that may not act is told whose turn it is, whatever it sends (engine/GAMES.md).
  ExpectRefused(*state, kBen, FillCode(0, 0, kRed), absl::StatusCode::kFailedPrecondition,
                "it is seat 0's turn");

  // Filling phase, Ann to move.
  Board board = state->board();
  board.palette = Palette("... ... ...");
  board.phase = Phase::kFilling;
  board.phase_starter = kAnn;
  state->SetBoardForTesting(board);
  ExpectRefused(*state, kAnn, Paint({S(0, 0, 0, 0)}), absl::StatusCode::kFailedPrecondition,
                "the palette is being filled: send a Fill");
  // Shape before legality (RULES.md, order of checks, steps 5 and 6): a Paint code off the
  // canvas is malformed in a filling phase too.
  ExpectRefused(*state, kAnn, 120024, absl::StatusCode::kInvalidArgument,
                "canvas square (0,4) is outside the 4×4 canvas");
  ExpectRefused(*state, kBen, FillCode(0, 0, kRed), absl::StatusCode::kFailedPrecondition,
                "it is seat 0's turn");
  ExpectRefused(*state, kBen, Paint({S(0, 0, 0, 0)}), absl::StatusCode::kFailedPrecondition,
                "it is seat 0's turn");
}

TEST_F(PictTest, Case16NoPassingAndThePhaseEndsWithThePalette) {
  std::unique_ptr<PictState> state = AnnPaints(
      "R Y B ."
      "Y B R Y"
      "B R . B"
      ". Y R Y");
  Board board = state->board();
  board.palette = Palette(". . .  . B .  . . .");
  state->SetBoardForTesting(board);
  const std::vector<Action> legal = state->LegalActions(kAnn);
  // Sorted by shift: (−1,2), (1,1), (2,−1).
  EXPECT_THAT(legal,
              ElementsAre(Paint({S(1, 1, 0, 3)}), Paint({S(1, 1, 2, 2)}), Paint({S(1, 1, 3, 0)})));
  std::vector<Action> sorted = legal;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, legal);
  Play(*state, kAnn, Paint({S(1, 1, 2, 2)}));
  EXPECT_EQ(state->board().phase, Phase::kFilling);
  EXPECT_EQ(state->board().palette, Palette("... ... ..."));
}

// A board whose palette holds one yellow at (1,1), in a painting phase started by `starter`.
Board LastPieceBoard(Board board, int starter, int to_move) {
  board.palette = Palette(". . .  . Y .  . . .");
  board.phase = Phase::kPainting;
  board.phase_starter = static_cast<int8_t>(starter);
  board.to_move = static_cast<int8_t>(to_move);
  return board;
}

TEST_F(PictTest, Case17TheLowerScoreFillsFirst) {
  for (int last_painter : {kAnn, kBen}) {
    std::unique_ptr<PictState> state = NewGame();
    Board board = LastPieceBoard(state->board(), kAnn, last_painter);
    // The last Paint scores a lone square; the palette empties at Ann 9, Ben 12.
    board.score = {last_painter == kAnn ? 8 : 9, last_painter == kBen ? 11 : 12};
    state->SetBoardForTesting(board);
    Play(*state, last_painter, Paint({S(1, 1, 0, 0)}));
    EXPECT_THAT(state->Scores(), ElementsAre(9, 12));
    EXPECT_EQ(state->board().phase, Phase::kFilling);
    EXPECT_EQ(state->board().to_move, kAnn) << "last painter " << last_painter;
    // Ann takes the 1st, 3rd, 5th, 7th and 9th Fill.
    std::vector<int> fillers;
    while (state->board().phase == Phase::kFilling) {
      const int seat = state->board().to_move;
      fillers.push_back(seat);
      Play(*state, seat, state->LegalActions(seat).front());
    }
    EXPECT_THAT(fillers, ElementsAre(kAnn, kBen, kAnn, kBen, kAnn, kBen, kAnn, kBen, kAnn));
  }
}

TEST_F(PictTest, Case18EqualScoresFewerSquaresFillsFirst) {
  std::unique_ptr<PictState> state = NewGame();
  Board board = LastPieceBoard(state->board(), kAnn, kAnn);
  board.canvas[kAnn] = Canvas(
      "R Y B R"
      "Y B R Y"
      "B . . ."
      "....");  // 9, then 10
  board.canvas[kBen] = Canvas(
      "R Y B R"
      "Y B R Y"
      "...."
      "....");  // 8
  board.score = {9, 10};
  state->SetBoardForTesting(board);
  Play(*state, kAnn, Paint({S(1, 1, 3, 3)}));
  EXPECT_THAT(state->Scores(), ElementsAre(10, 10));
  EXPECT_EQ(state->board().phase, Phase::kFilling);
  EXPECT_EQ(state->board().to_move, kBen);
  EXPECT_EQ(state->board().phase_starter, kBen);
}

TEST_F(PictTest, Case19EqualScoresAndSquaresThePreviousPaintingStarterFillsFirst) {
  // Ann took the first turn of the painting phase; Ben makes its last Paint. 10–10, 9 squares
  // each: Ann fills first (the alternation alone would have given Ann too, so also check Ben).
  for (int starter : {kAnn, kBen}) {
    std::unique_ptr<PictState> state = NewGame();
    Board board = LastPieceBoard(state->board(), starter, kBen);
    board.canvas[kAnn] = Canvas(
        "R Y B R"
        "Y B R Y"
        "B . . ."
        "....");  // 9
    board.canvas[kBen] = Canvas(
        "R Y B R"
        "Y B R Y"
        "...."
        "....");  // 8, then 9
    board.score = {10, 9};
    board.previous_painting_starter = kBen;
    state->SetBoardForTesting(board);
    Play(*state, kBen, Paint({S(1, 1, 3, 3)}));
    EXPECT_THAT(state->Scores(), ElementsAre(10, 10));
    EXPECT_EQ(state->board().phase, Phase::kFilling);
    EXPECT_EQ(state->board().to_move, starter);
    EXPECT_EQ(state->board().previous_painting_starter, starter);
  }
}

TEST_F(PictTest, Case20ThreeOfEachColour) {
  std::unique_ptr<PictState> state = NewGame();
  Board board = state->board();
  board.palette = Palette("R . B  Y R B  R Y .");
  board.phase = Phase::kFilling;
  board.phase_starter = kBen;
  board.to_move = kBen;
  state->SetBoardForTesting(board);
  EXPECT_THAT(state->LegalActions(kBen),
              ElementsAre(FillCode(0, 1, kYellow), FillCode(0, 1, kBlue), FillCode(2, 2, kYellow),
                          FillCode(2, 2, kBlue)));
  ExpectRefused(*state, kBen, FillCode(0, 1, kRed), absl::StatusCode::kFailedPrecondition,
                "the palette already holds three red pieces");
  ExpectRefused(*state, kBen, FillCode(1, 1, kYellow), absl::StatusCode::kFailedPrecondition,
                "palette square (1,1) already holds a piece");
}

TEST_F(PictTest, Case21TheFirstFillerPaintsFirst) {
  std::unique_ptr<PictState> state = NewGame();
  Board board = state->board();
  board.palette = Palette("... ... ...");
  board.phase = Phase::kFilling;
  board.phase_starter = kBen;
  board.to_move = kBen;
  state->SetBoardForTesting(board);
  std::vector<int> fillers;
  for (int i = 0; i < 9; ++i) {
    const int seat = state->board().to_move;
    fillers.push_back(seat);
    EXPECT_EQ(state->board().phase, Phase::kFilling);
    Play(*state, seat, state->LegalActions(seat).back());
  }
  EXPECT_THAT(fillers, ElementsAre(kBen, kAnn, kBen, kAnn, kBen, kAnn, kBen, kAnn, kBen));
  EXPECT_EQ(state->board().phase, Phase::kPainting);
  EXPECT_EQ(state->board().to_move, kBen);
  EXPECT_EQ(state->board().phase_starter, kBen);
  int per_colour[4] = {0, 0, 0, 0};
  for (Colour k : state->board().palette) ++per_colour[k];
  EXPECT_EQ(per_colour[kRed], 3);
  EXPECT_EQ(per_colour[kYellow], 3);
  EXPECT_EQ(per_colour[kBlue], 3);
}

TEST_F(PictTest, Case22FinishingTheCanvasEndsTheGameAtOnceWithTwoBonusPoints) {
  std::unique_ptr<PictState> state = AnnPaints(
      ". Y Y B"
      "R R B B"
      "Y B R R"
      "Y B R Y",
      /*ann_score=*/18);
  Board board = state->board();
  board.score[kBen] = 21;
  state->SetBoardForTesting(board);
  Play(*state, kAnn, Paint({S(0, 0, 0, 0)}));
  const Move& move = state->history().back();
  EXPECT_EQ(move.turn_score, 2);  // the vertical run (0,0)–(1,0)
  EXPECT_EQ(move.bonus, 2);
  EXPECT_THAT(state->Scores(), ElementsAre(22, 21));
  EXPECT_TRUE(state->IsTerminal());
  EXPECT_EQ(state->board().finisher, kAnn);
  EXPECT_TRUE(state->LegalActions(kBen).empty());
  EXPECT_TRUE(state->LegalActions(kAnn).empty());
  EXPECT_NE(state->board().palette[1], kEmpty);  // pieces left on the palette are ignored
  ExpectRefused(*state, kBen, Paint({S(0, 1, 0, 0)}), absl::StatusCode::kFailedPrecondition,
                "the game is over");
  const engine::Outcome outcome = state->GetOutcome();
  EXPECT_THAT(outcome.ranks, ElementsAre(1, 2));
  EXPECT_THAT(outcome.scores, ElementsAre(22, 21));
}

TEST_F(PictTest, Case23EqualFinalScoresAreADraw) {
  std::unique_ptr<PictState> state = AnnPaints(
      ". Y Y B"
      "R R B B"
      "Y B R R"
      "Y B R Y",
      /*ann_score=*/18);
  Board board = state->board();
  board.score[kBen] = 22;
  state->SetBoardForTesting(board);
  Play(*state, kAnn, Paint({S(0, 0, 0, 0)}));
  EXPECT_TRUE(state->IsTerminal());
  const engine::Outcome outcome = state->GetOutcome();
  EXPECT_THAT(outcome.scores, ElementsAre(22, 22));
  EXPECT_THAT(outcome.ranks, ElementsAre(1, 1));  // finishing does not break the tie
}

TEST_F(PictTest, Case24TheOpeningFill) {
  std::unique_ptr<PictState> state = NewGame(kBen, {{"empty_palette_start", "true"}});
  EXPECT_EQ(state->board().palette, Palette("... ... ..."));
  EXPECT_EQ(state->board().phase, Phase::kFilling);
  EXPECT_TRUE(state->board().opening_fill);
  EXPECT_EQ(state->LegalActions(kBen).size(), 27u);
  EXPECT_TRUE(state->LegalActions(kAnn).empty());
  std::vector<int> fillers;
  while (state->board().phase == Phase::kFilling) {
    const int seat = state->board().to_move;
    fillers.push_back(seat);
    Play(*state, seat, state->LegalActions(seat).front());
  }
  EXPECT_THAT(fillers, ElementsAre(kBen, kAnn, kBen, kAnn, kBen, kAnn, kBen, kAnn, kBen));
  EXPECT_EQ(state->board().phase, Phase::kPainting);
  EXPECT_FALSE(state->board().opening_fill);
  EXPECT_EQ(state->board().to_move, kAnn);  // who went second in the opening fill
  EXPECT_EQ(state->board().phase_starter, kAnn);
  EXPECT_EQ(state->board().previous_painting_starter, -1);
}

TEST_F(PictTest, Case24LaterFillingPhasesFollowTheGeneralRule) {
  std::unique_ptr<PictState> state = NewGame(kBen, {{"empty_palette_start", "true"}});
  for (int i = 0; i < 9; ++i) {
    Play(*state, state->board().to_move, state->LegalActions(state->board().to_move).front());
  }
  // Empty the palette with nine single squares, Ann first; scores stay level only if the lone
  // squares score 1 each, so simply check that the first filler follows the general rule.
  while (state->board().phase == Phase::kPainting) {
    const int seat = state->board().to_move;
    Play(*state, seat, state->LegalActions(seat).front());
  }
  ASSERT_EQ(state->board().phase, Phase::kFilling);
  const auto& b = state->board();
  const int filled0 =
      std::count_if(b.canvas[0].begin(), b.canvas[0].end(), [](Colour k) { return k != kEmpty; });
  const int filled1 =
      std::count_if(b.canvas[1].begin(), b.canvas[1].end(), [](Colour k) { return k != kEmpty; });
  const int expected = b.score[0] != b.score[1] ? (b.score[0] < b.score[1] ? 0 : 1)
                       : filled0 != filled1     ? (filled0 < filled1 ? 0 : 1)
                                                : kAnn;
  EXPECT_EQ(b.to_move, expected);
  EXPECT_EQ(b.previous_painting_starter, kAnn);
  // The first filler of this (not opening) fill also paints first.
  const int first_filler = b.to_move;
  for (int i = 0; i < 9; ++i) {
    Play(*state, state->board().to_move, state->LegalActions(state->board().to_move).front());
  }
  EXPECT_EQ(state->board().phase, Phase::kPainting);
  EXPECT_EQ(state->board().to_move, first_filler);
}

// Ben's canvas holds only B B B . in row 1; Ben has 3 points; Ann has 2 tokens.
std::unique_ptr<PictState> BrushPosition(std::unique_ptr<PictState> state) {
  Board board = state->board();
  board.canvas[kBen] = Canvas(
      "...."
      "B B B ."
      "...."
      "....");
  board.score[kBen] = 3;
  state->SetBoardForTesting(board);
  return state;
}

TEST_F(PictTest, Case25UsingAPaintbrush) {
  std::unique_ptr<PictState> state = BrushPosition(NewGameWithBrushes());
  EXPECT_EQ(state->board().paintbrushes_left[kAnn], 2);
  Play(*state, kAnn, Paint({S(0, 1, 0, 0)}));  // a lone yellow
  EXPECT_EQ(state->board().score[kAnn], 1);
  EXPECT_TRUE(state->board().brush_step);
  EXPECT_EQ(state->board().to_move, kAnn);
  EXPECT_THAT(state->LegalActions(kAnn),
              ElementsAre(kSkipBrush, BrushCode(1, 0, kRed), BrushCode(1, 0, kYellow),
                          BrushCode(1, 1, kRed), BrushCode(1, 1, kYellow), BrushCode(1, 2, kRed),
                          BrushCode(1, 2, kYellow)));
  EXPECT_TRUE(state->LegalActions(kBen).empty());
  Play(*state, kAnn, BrushCode(1, 1, kRed));
  EXPECT_EQ(state->board().paintbrushes_left[kAnn], 1);
  EXPECT_EQ(state->board().canvas[kBen], Canvas("...."
                                                "B R B ."
                                                "...."
                                                "...."));
  EXPECT_THAT(state->Scores(), ElementsAre(1, 3));
  EXPECT_FALSE(state->board().brush_step);
  EXPECT_EQ(state->board().to_move, kBen);
}

TEST_F(PictTest, Case26DecliningKeepsTheTokens) {
  std::unique_ptr<PictState> state = BrushPosition(NewGameWithBrushes());
  Play(*state, kAnn, Paint({S(0, 1, 0, 0)}));
  Play(*state, kAnn, kSkipBrush);
  EXPECT_EQ(state->board().paintbrushes_left[kAnn], 2);
  EXPECT_EQ(state->board().to_move, kBen);
  EXPECT_EQ(state->board().canvas[kBen], Canvas("...."
                                                "B B B ."
                                                "...."
                                                "...."));
}

TEST_F(PictTest, Case26NoBrushStepWithoutTokens) {
  std::unique_ptr<PictState> state = BrushPosition(NewGameWithBrushes());
  Board board = state->board();
  board.paintbrushes_left[kAnn] = 0;
  state->SetBoardForTesting(board);
  Play(*state, kAnn, Paint({S(0, 1, 0, 0)}));
  EXPECT_FALSE(state->board().brush_step);
  EXPECT_EQ(state->board().to_move, kBen);
}

TEST_F(PictTest, Case26NoBrushStepWhileTheOpponentsCanvasIsEmpty) {
  std::unique_ptr<PictState> state = NewGameWithBrushes();
  Play(*state, kAnn, Paint({S(0, 1, 0, 0)}));
  EXPECT_FALSE(state->board().brush_step);
  EXPECT_EQ(state->board().to_move, kBen);
  // Ben paints: Ann's canvas is not empty, so Ben has a brush step.
  Play(*state, kBen, Paint({S(0, 0, 0, 0)}));
  EXPECT_TRUE(state->board().brush_step);
  EXPECT_EQ(state->board().to_move, kBen);
}

TEST_F(PictTest, Case26NoBrushStepAfterTheFinishingPaint) {
  std::unique_ptr<PictState> state = BrushPosition(NewGameWithBrushes());
  Board board = state->board();
  board.canvas[kAnn] = Canvas(
      ". Y Y B"
      "R R B B"
      "Y B R R"
      "Y B R Y");
  state->SetBoardForTesting(board);
  Play(*state, kAnn, Paint({S(0, 0, 0, 0)}));
  EXPECT_TRUE(state->IsTerminal());
  EXPECT_FALSE(state->board().brush_step);
  EXPECT_TRUE(state->LegalActions(kAnn).empty());
  EXPECT_EQ(state->board().paintbrushes_left[kAnn], 2);
}

TEST_F(PictTest, Case26NoBrushStepWithoutTheOption) {
  std::unique_ptr<PictState> state = BrushPosition(NewGame());
  Play(*state, kAnn, Paint({S(0, 1, 0, 0)}));
  EXPECT_FALSE(state->board().brush_step);
  EXPECT_EQ(state->board().to_move, kBen);
}

TEST_F(PictTest, Case26TheBrushStepThatEmptiesThePaletteLeadsToTheFill) {
  std::unique_ptr<PictState> state = BrushPosition(NewGameWithBrushes());
  Board board = LastPieceBoard(state->board(), kAnn, kAnn);
  state->SetBoardForTesting(board);
  Play(*state, kAnn, Paint({S(1, 1, 3, 3)}));
  EXPECT_TRUE(state->board().brush_step);
  EXPECT_EQ(state->board().phase, Phase::kPainting);  // the filling waits for the brush step
  Play(*state, kAnn, BrushCode(1, 0, kYellow));
  EXPECT_EQ(state->board().phase, Phase::kFilling);
  // 1–3: Ann is behind and fills first.
  EXPECT_EQ(state->board().to_move, kAnn);
}

TEST_F(PictTest, Case27PaintbrushRefusals) {
  // In a game without paintbrushes.
  std::unique_ptr<PictState> plain = BrushPosition(NewGame());
  ExpectRefused(*plain, kAnn, BrushCode(1, 1, kRed), absl::StatusCode::kFailedPrecondition,
                "paintbrush tokens are not used in this game");
  ExpectRefused(*plain, kAnn, kSkipBrush, absl::StatusCode::kFailedPrecondition,
                "paintbrush tokens are not used in this game");

  std::unique_ptr<PictState> state = BrushPosition(NewGameWithBrushes());
  // Before Ann has painted.
  ExpectRefused(*state, kAnn, BrushCode(1, 1, kRed), absl::StatusCode::kFailedPrecondition,
                "a paintbrush can only be used right after your own Paint");
  ExpectRefused(*state, kAnn, kSkipBrush, absl::StatusCode::kFailedPrecondition,
                "a paintbrush can only be used right after your own Paint");
  Play(*state, kAnn, Paint({S(0, 1, 0, 0)}));
  ExpectRefused(*state, kAnn, BrushCode(3, 3, kRed), absl::StatusCode::kFailedPrecondition,
                "seat 1's canvas square (3,3) is empty");
  Board board = state->board();
  board.canvas[kBen][1 * 4 + 1] = kRed;
  state->SetBoardForTesting(board);
  ExpectRefused(*state, kAnn, BrushCode(1, 1, kRed), absl::StatusCode::kFailedPrecondition,
                "seat 1's canvas square (1,1) is already red");
  ExpectRefused(*state, kAnn, Paint({S(0, 0, 0, 1)}), absl::StatusCode::kFailedPrecondition,
                "you have painted this turn: send a Brush or a SkipBrush");
  // Ben during Ann's brush step.
  ExpectRefused(*state, kBen, Paint({S(0, 0, 0, 1)}), absl::StatusCode::kFailedPrecondition,
                "it is seat 0's turn");
  ExpectRefused(*state, kBen, BrushCode(0, 0, kRed), absl::StatusCode::kFailedPrecondition,
                "it is seat 0's turn");
  ExpectRefused(*state, kBen, kSkipBrush, absl::StatusCode::kFailedPrecondition,
                "it is seat 0's turn");
  ExpectRefused(*state, kBen, FillCode(0, 1, kRed), absl::StatusCode::kFailedPrecondition,
                "it is seat 0's turn");
  // A Brush without a colour is refused when it is read.
  v1::PictAction no_colour;
  no_colour.mutable_brush()->mutable_target()->set_row(1);
  no_colour.mutable_brush()->mutable_target()->set_col(1);
  ExpectMalformed(no_colour, "the paintbrush needs a colour");
}

TEST_F(PictTest, AnOldLoneSquareTouchedFromTheSideScoresNothing) {
  // Yellow at (0,0) is a lone square already; a red placed beside it is a new lone square: 1.
  std::unique_ptr<PictState> state = AnnPaints(
      "Y . . ."
      "...."
      "...."
      "....");
  Play(*state, kAnn, Paint({S(0, 0, 0, 1)}));
  EXPECT_EQ(state->board().score[kAnn], 1);
}

TEST_F(PictTest, ATripleCanScoreSeveralChainsOfDifferentColours) {
  // The palette's column 0 (R, Y, B) goes into canvas column 1, beside R, Y, B in column 0 and
  // above a blue at (3,1).
  std::unique_ptr<PictState> state = AnnPaints(
      "R . . ."
      "Y . . ."
      "B . . ."
      ". B . .");
  Play(*state, kAnn, Paint({S(0, 0, 0, 1), S(1, 0, 1, 1), S(2, 0, 2, 1)}));
  // Red run 2 + yellow run 2 + blue runs (2,0)–(2,1) and (2,1)–(3,1): 2 + 2 + 2 + 2.
  EXPECT_EQ(state->board().score[kAnn], 8);
  EXPECT_EQ(state->history().back().num_chains, 4);
}

TEST_F(PictTest, LegalPaintsAreListedInTheDocsOrder) {
  std::unique_ptr<PictState> state = NewGame();
  const std::vector<Action> legal = state->LegalActions(kAnn);
  ASSERT_EQ(legal.size(), 480u);
  // Singles first, the top-left square first, its shifts in ascending (row, col) order.
  EXPECT_EQ(legal[0], Paint({S(0, 0, 0, 0)}));
  EXPECT_EQ(legal[1], Paint({S(0, 0, 0, 1)}));
  EXPECT_EQ(legal[4], Paint({S(0, 0, 1, 0)}));
  EXPECT_EQ(legal[16], Paint({S(0, 1, 0, 0)}));
  // The first pair is (0,0)+(0,1); the last Paint is the bottom row (2,0), (2,1), (2,2) moved
  // by its largest shift, (1,1).
  EXPECT_EQ(legal[144], Paint({S(0, 0, 0, 0), S(0, 1, 0, 1)}));
  EXPECT_EQ(legal.back(), Paint({S(2, 0, 3, 1), S(2, 1, 3, 2), S(2, 2, 3, 3)}));
  EXPECT_TRUE(std::is_sorted(legal.begin(), legal.end()));
}

// ---- Every refusal of the rules doc's tables ---------------------------------------------------

TEST_F(PictTest, PaintTableChecksComeInTheDocsOrder) {
  std::unique_ptr<PictState> state = NewGame();
  ExpectMalformed(PaintProto({S(0, 0, 0, 0), S(0, 1, 0, 1), S(0, 2, 0, 2), S(1, 0, 1, 0)}),
                  "a Paint takes 1, 2 or 3 palette squares; got 4");
  ExpectMalformed(PaintProto({}), "a Paint takes 1, 2 or 3 palette squares; got 0");
  ExpectMalformed(PaintProto({S(3, 1, 0, 0)}), "palette square (3,1) is outside the 3×3 palette");
  ExpectMalformed(PaintProto({S(0, -1, 0, 0)}), "palette square (0,-1) is outside the 3×3 palette");
  ExpectMalformed(PaintProto({S(0, 0, -1, 0)}), "canvas square (-1,0) is outside the 4×4 canvas");
  ExpectMalformed(PaintProto({S(1, 1, 1, 1), S(1, 1, 2, 2)}),
                  "palette square (1,1) is named twice");
  // Strokes may come in any order and mean the same Paint.
  EXPECT_EQ(*FromProto(PaintProto({S(1, 2, 1, 3), S(0, 2, 0, 3)})),
            *FromProto(PaintProto({S(0, 2, 0, 3), S(1, 2, 1, 3)})));
  // A stroke without its squares.
  v1::PictAction missing = PaintProto({S(0, 0, 0, 0)});
  missing.mutable_paint()->mutable_strokes(0)->clear_canvas();
  ExpectMalformed(missing, "paint.strokes[0].canvas is missing");
}

TEST_F(PictTest, FillTableRefusals) {
  std::unique_ptr<PictState> state = NewGame(kAnn, {{"empty_palette_start", "true"}});
  v1::PictAction outside;
  outside.mutable_fill()->mutable_at()->set_row(3);
  outside.mutable_fill()->mutable_at()->set_col(1);
  outside.mutable_fill()->set_colour(v1::PICT_COLOUR_RED);
  ExpectMalformed(outside, "palette square (3,1) is outside the 3×3 palette");
  v1::PictAction no_colour;
  no_colour.mutable_fill()->mutable_at()->set_row(1);
  ExpectMalformed(no_colour, "a Fill needs a colour: red, yellow or blue");
  v1::PictAction bad_colour = no_colour;
  bad_colour.mutable_fill()->set_colour(static_cast<v1::PictColour>(7));
  ExpectMalformed(bad_colour, "a Fill needs a colour: red, yellow or blue");
  ExpectRefused(*state, kBen, FillCode(0, 0, kRed), absl::StatusCode::kFailedPrecondition,
                "it is seat 0's turn");
  Play(*state, kAnn, FillCode(1, 1, kRed));
  ExpectRefused(*state, kBen, FillCode(1, 1, kBlue), absl::StatusCode::kFailedPrecondition,
                "palette square (1,1) already holds a piece");
}

TEST_F(PictTest, BrushTableRefusals) {
  v1::PictAction outside;
  outside.mutable_brush()->mutable_target()->set_row(4);
  outside.mutable_brush()->set_colour(v1::PICT_COLOUR_RED);
  ExpectMalformed(outside, "canvas square (4,0) is outside the 4×4 canvas");
  v1::PictAction no_target;
  no_target.mutable_brush()->set_colour(v1::PICT_COLOUR_RED);
  ExpectMalformed(no_target, "brush.target is missing");
  // During a filling phase nobody is in a brush step.
  std::unique_ptr<PictState> state =
      NewGame(kAnn, {{"empty_palette_start", "true"}, {"paintbrushes", "true"}});
  ExpectRefused(*state, kAnn, kSkipBrush, absl::StatusCode::kFailedPrecondition,
                "a paintbrush can only be used right after your own Paint");
  ExpectRefused(*state, kBen, kSkipBrush, absl::StatusCode::kFailedPrecondition,
                "it is seat 0's turn");
}

TEST_F(PictTest, NothingIsAcceptedAfterTheEnd) {
  std::unique_ptr<PictState> state = AnnPaints(
      ". Y Y B"
      "R R B B"
      "Y B R R"
      "Y B R Y");
  Play(*state, kAnn, Paint({S(0, 0, 0, 0)}));
  for (int seat : {kAnn, kBen}) {
    for (Action a : {Paint({S(0, 1, 0, 0)}), FillCode(0, 0, kRed), kSkipBrush}) {
      ExpectRefused(*state, seat, a, absl::StatusCode::kFailedPrecondition, "the game is over");
    }
  }
}

TEST_F(PictTest, CodesThatMeanNoActionAreInvalidArguments) {
  std::unique_ptr<PictState> state = NewGame();
  for (Action code : {Action{0}, Action{1}, Action{999}, Action{1000}, Action{1004}, Action{1301},
                      Action{2401}, Action{3000}, Action{100066}, Action{210022}, Action{110122},
                      Action{190022}, Action{400000}, Action{-5}}) {
    const std::string before = state->SerializeToString();
    const absl::Status s = state->Apply(kAnn, code);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << code << ": " << s;
    EXPECT_EQ(s.message(), absl::StrCat(code, " is not a Pict action code"));
    EXPECT_EQ(state->SerializeToString(), before);
    // Ben may not act: he is told so whatever he sends (engine/GAMES.md, "Refusals").
    EXPECT_EQ(state->CheckAction(kBen, code).message(), "it is seat 0's turn");
  }
}

// ---- Options, metadata, bounds -----------------------------------------------------------------

TEST_F(PictTest, MetadataAndOptionsWithDefaults) {
  engine::Registry registry;
  Register(registry);
  absl::StatusOr<const engine::Game*> found = registry.Find("pict");
  ASSERT_TRUE(found.ok());
  const engine::GameInfo& info = (*found)->info();
  EXPECT_EQ(info.display_name, "Pict");
  EXPECT_EQ(info.min_players, 2);
  EXPECT_EQ(info.max_players, 2);
  ASSERT_EQ(info.options.size(), 2u);
  EXPECT_EQ(info.options[0].name, "empty_palette_start");
  EXPECT_EQ(info.options[0].default_value, 0);
  EXPECT_EQ(info.options[1].name, "paintbrushes");
  EXPECT_EQ(info.options[1].default_value, 0);
  EXPECT_THAT(info.action_kinds, ElementsAre("paint", "brush", "skip_brush", "fill"));
  absl::StatusOr<engine::Options> defaults = game_.ParseOptions({}, 2);
  ASSERT_TRUE(defaults.ok());
  EXPECT_FALSE(defaults->GetBool("empty_palette_start"));
  EXPECT_FALSE(defaults->GetBool("paintbrushes"));
}

TEST_F(PictTest, BadOptionsAreRefusedNamingTheOption) {
  absl::Status s = game_.ParseOptions({{"paintbrushes", "maybe"}}, 2).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("paintbrushes"));
  s = game_.ParseOptions({{"empty_palette_start", "2"}}, 2).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("empty_palette_start"));
  s = game_.ParseOptions({{"brushes", "true"}}, 2).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("brushes"));
  s = game_.ParseOptions({}, 3).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("exactly 2 players"));
  // Typed values are checked at creation too.
  s = game_
          .NewGame(2, engine::Options({{"paintbrushes", 5}, {"empty_palette_start", 0}}),
                   engine::Seed::FromUint64(1))
          .status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("paintbrushes"));
}

TEST_F(PictTest, MaxMovesIsTheRulesBound) {
  auto options = [&](bool empty, bool brushes) {
    return *game_.ParseOptions({{"empty_palette_start", empty ? "true" : "false"},
                                {"paintbrushes", brushes ? "true" : "false"}},
                               2);
  };
  EXPECT_EQ(game_.MaxMoves(2, options(false, false)), 58);
  EXPECT_EQ(game_.MaxMoves(2, options(true, false)), 67);
  EXPECT_EQ(game_.MaxMoves(2, options(false, true)), 88);
  EXPECT_EQ(game_.MaxMoves(2, options(true, true)), 97);
}

TEST_F(PictTest, SinglesOnlyGameReachesTheFourthPaintingPhaseWithinTheBound) {
  // Both players always take one square: the longest possible game.
  std::unique_ptr<PictState> state =
      NewGame(kAnn, {{"empty_palette_start", "true"}, {"paintbrushes", "true"}});
  int painting_phases = 0;
  bool was_painting = false;
  while (!state->IsTerminal()) {
    const int seat = state->board().to_move;
    const bool painting = state->board().phase == Phase::kPainting;
    if (painting && !was_painting) ++painting_phases;
    was_painting = painting;
    const std::vector<Action> legal = state->LegalActions(seat);
    // SkipBrush, or the first Paint (a single square), or the first Fill.
    Play(*state, seat, legal.front());
  }
  EXPECT_EQ(painting_phases, 4);  // a player places at most 5 singles per phase
  EXPECT_LE(state->NumMoves(), 97);
  EXPECT_LE(state->NumMoves(), game_.MaxMoves(2, state->options()));
}

// ---- Views, protos, snapshots ------------------------------------------------------------------

TEST_F(PictTest, EveryViewerSeesTheWholeTable) {
  std::unique_ptr<PictState> state = AnnPaints(
      "B B . ."
      "Y . . R"
      "Y . . ."
      ". Y . .",
      5);
  Play(*state, kAnn, Paint({S(0, 2, 0, 2), S(1, 2, 1, 2), S(2, 2, 2, 2)}));
  const std::string spectator = state->View(engine::Viewer::Spectator())->SerializeAsString();
  EXPECT_EQ(state->View(engine::Viewer::Seat(kAnn))->SerializeAsString(), spectator);
  EXPECT_EQ(state->View(engine::Viewer::Seat(kBen))->SerializeAsString(), spectator);
  EXPECT_EQ(state->View(engine::Viewer::All())->SerializeAsString(), spectator);

  std::unique_ptr<google::protobuf::Message> message = state->View(engine::Viewer::Seat(kBen));
  const auto& view = static_cast<const v1::PictView&>(*message);
  EXPECT_EQ(view.phase(), v1::PICT_PHASE_PAINTING);
  EXPECT_EQ(view.to_move(), kBen);
  EXPECT_EQ(view.first_player(), kAnn);
  EXPECT_EQ(view.finisher(), -1);
  ASSERT_EQ(view.palette_size(), 9);
  EXPECT_EQ(view.palette(0), v1::PICT_COLOUR_RED);
  EXPECT_EQ(view.palette(2), v1::PICT_COLOUR_UNSPECIFIED);
  ASSERT_EQ(view.players_size(), 2);
  EXPECT_EQ(view.players(kAnn).score(), 11);
  EXPECT_EQ(view.players(kAnn).filled_squares(), 9);
  ASSERT_EQ(view.players(kAnn).canvas_size(), 16);
  EXPECT_EQ(view.players(kAnn).canvas(2), v1::PICT_COLOUR_BLUE);
  ASSERT_EQ(view.history_size(), 1);
  const v1::PictMove& move = view.history(0);
  EXPECT_EQ(move.seat(), kAnn);
  EXPECT_EQ(move.turn_score(), 6);
  EXPECT_EQ(move.action().paint().strokes_size(), 3);
  ASSERT_EQ(move.chains_size(), 3);
  EXPECT_EQ(move.chains(0).shape(), v1::PICT_CHAIN_SHAPE_HORIZONTAL);
  EXPECT_EQ(move.chains(0).first().col(), 0);
  EXPECT_EQ(move.chains(0).last().col(), 2);
  EXPECT_EQ(move.chains(0).length(), 3);
  EXPECT_EQ(move.chains(2).shape(), v1::PICT_CHAIN_SHAPE_LONE);
  EXPECT_EQ(move.chains(2).colour(), v1::PICT_COLOUR_YELLOW);
}

TEST_F(PictTest, ActionProtosRoundTripForEveryLegalAction) {
  std::unique_ptr<PictState> state =
      NewGame(kAnn, {{"empty_palette_start", "true"}, {"paintbrushes", "true"}});
  engine::Rng rng(3);
  int checked = 0;
  while (!state->IsTerminal()) {
    const int seat = state->board().to_move;
    const std::vector<Action> legal = state->LegalActions(seat);
    for (Action a : legal) {
      std::unique_ptr<google::protobuf::Message> proto = game_.ActionToProto(a);
      absl::StatusOr<Action> back = game_.ActionFromProto(*proto);
      ASSERT_TRUE(back.ok()) << back.status();
      EXPECT_EQ(*back, a);
      ++checked;
    }
    Play(*state, seat, legal[rng.Uniform(legal.size())]);
  }
  EXPECT_GT(checked, 1000);
}

TEST_F(PictTest, ActionFromProtoRefusesOtherMessagesAndEmptyActions) {
  ExpectMalformed(v1::PictAction(),
                  "a PictAction must hold one of paint, brush, skip_brush or fill");
  v1::PictView not_an_action;
  absl::StatusOr<Action> code = game_.ActionFromProto(not_an_action);
  EXPECT_EQ(code.status().code(), absl::StatusCode::kInvalidArgument);
  v1::PictAction skip;
  skip.mutable_skip_brush();
  EXPECT_EQ(*FromProto(skip), kSkipBrush);
}

TEST_F(PictTest, SerializationRoundTripAndReplay) {
  std::unique_ptr<PictState> state = NewGame(kBen, {{"paintbrushes", "true"}});
  engine::Rng rng(11);
  while (!state->IsTerminal()) {
    const int seat = state->board().to_move;
    const std::vector<Action> legal = state->LegalActions(seat);
    Play(*state, seat, legal[rng.Uniform(legal.size())]);
    const engine::v1::GameRecord record = state->Serialize();
    absl::StatusOr<std::unique_ptr<engine::State>> loaded = game_.Deserialize(record);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    EXPECT_EQ((*loaded)->SerializeToString(), state->SerializeToString());
  }
  absl::StatusOr<std::unique_ptr<engine::State>> replayed =
      game_.Replay(state->Serialize(), /*check_seed=*/false);
  ASSERT_TRUE(replayed.ok()) << replayed.status();
  EXPECT_EQ((*replayed)->SerializeToString(), state->SerializeToString());
}

TEST_F(PictTest, LoadingRefusesDamagedSnapshots) {
  std::unique_ptr<PictState> state = NewGame();
  Play(*state, kAnn, Paint({S(0, 0, 0, 0)}));
  Play(*state, kBen, Paint({S(0, 1, 0, 0), S(0, 2, 0, 1)}));
  const engine::v1::GameRecord good = state->Serialize();
  auto tamper = [&](auto&& edit) {
    engine::v1::GameRecord record = good;
    engine::pict::PictState snapshot;
    EXPECT_TRUE(record.state().UnpackTo(&snapshot));
    edit(snapshot);
    record.mutable_state()->PackFrom(snapshot);
    return game_.Deserialize(record).status();
  };
  EXPECT_TRUE(tamper([](engine::pict::PictState&) {}).ok());
  absl::Status s = tamper([](engine::pict::PictState& p) { p.set_scores(0, 40); });
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("does not match"));
  s = tamper([](engine::pict::PictState& p) { p.set_first_player(7); });
  EXPECT_THAT(s.message(), HasSubstr("first_player"));
  s = tamper([](engine::pict::PictState& p) { p.mutable_moves(1)->set_seat(0); });
  EXPECT_THAT(s.message(), HasSubstr("move 1"));
  s = tamper([](engine::pict::PictState& p) { p.mutable_moves(0)->set_action(123); });
  EXPECT_THAT(s.message(), HasSubstr("move 0"));
  s = tamper([](engine::pict::PictState& p) { p.set_palette(0, static_cast<v1::PictColour>(9)); });
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  s = tamper([](engine::pict::PictState& p) { p.clear_canvas_seat1(); });
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  s = tamper([](engine::pict::PictState& p) {
    for (int i = 0; i < 200; ++i) p.add_moves()->set_action(kSkipBrush);
  });
  EXPECT_THAT(s.message(), HasSubstr("at most"));
  engine::v1::GameRecord wrong_type = good;
  wrong_type.mutable_state()->PackFrom(v1::PictView());
  EXPECT_EQ(game_.Deserialize(wrong_type).status().code(), absl::StatusCode::kInvalidArgument);
  engine::v1::GameRecord garbage = good;
  garbage.mutable_state()->set_value("\xff\xff\xff");
  EXPECT_EQ(game_.Deserialize(garbage).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(PictTest, ActionKindsAndStrings) {
  std::unique_ptr<PictState> state = NewGame();
  EXPECT_EQ(state->ActionKind(Paint({S(0, 0, 0, 0)})), kKindPaint);
  EXPECT_EQ(state->ActionKind(BrushCode(0, 0, kRed)), kKindBrush);
  EXPECT_EQ(state->ActionKind(kSkipBrush), kKindSkipBrush);
  EXPECT_EQ(state->ActionKind(FillCode(0, 0, kRed)), kKindFill);
  EXPECT_EQ(state->ActionToString(kAnn, Paint({S(0, 0, 2, 1)})), "paint (0,0)→(2,1)");
  EXPECT_EQ(Paint({S(0, 0, 2, 1)}), 100043);
  EXPECT_EQ(Paint({S(0, 2, 0, 2), S(1, 2, 1, 2), S(2, 2, 2, 2)}), 325822);
  EXPECT_EQ(state->ActionToString(kAnn, FillCode(0, 1, kYellow)), "fill (0,1) yellow");
  EXPECT_EQ(state->ActionToString(kAnn, BrushCode(1, 1, kRed)),
            "brush seat 1's canvas square (1,1) red");
}

TEST_F(PictTest, HeuristicPrefersTheBiggerScore) {
  std::unique_ptr<PictState> state = AnnPaints(
      "R R . ."
      "...."
      "...."
      "....");
  std::unique_ptr<engine::State> long_line = state->Clone();
  ASSERT_TRUE(long_line->Apply(kAnn, Paint({S(1, 2, 0, 2)})).ok());  // 3 points
  std::unique_ptr<engine::State> lone = state->Clone();
  ASSERT_TRUE(lone->Apply(kAnn, Paint({S(1, 1, 3, 3)})).ok());  // 1 point
  EXPECT_GT(long_line->Heuristic(kAnn), lone->Heuristic(kAnn));
  EXPECT_LT(long_line->Heuristic(kBen), lone->Heuristic(kBen));
}

}  // namespace
}  // namespace parlor::games::pict
