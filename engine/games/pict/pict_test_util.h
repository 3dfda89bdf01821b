#ifndef PARLOR_ENGINE_GAMES_PICT_PICT_TEST_UTIL_H_
#define PARLOR_ENGINE_GAMES_PICT_PICT_TEST_UTIL_H_

// Helpers shared by the pict tests (pict_*_test.cc): one test program, split by theme.

// Pict's rules, case by case. Ann is seat 0 and Ben is seat 1. Unless a test says otherwise, the
// options are off, it is a painting phase with Ann to move and the palette is the recommended
// layout:
//
//       0 1 2
//   0   R Y B
//   1   Y B R
//   2   B R Y
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "engine/core/registry.h"
#include "engine/games/pict/pict.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "parlor/games/v1/pict.pb.h"
#include "pict/pict_state.pb.h"

namespace parlor::games::pict {

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
inline std::array<Colour, kCanvasSquares> Canvas(const std::string& text) {
  return Squares<16>(text);
}
inline std::array<Colour, kPaletteSquares> Palette(const std::string& text) {
  return Squares<9>(text);
}

inline Stroke S(int palette_row, int palette_col, int canvas_row, int canvas_col) {
  return {palette_row, palette_col, canvas_row, canvas_col};
}

inline Action Paint(std::vector<Stroke> strokes) {
  absl::StatusOr<Action> code = PaintCode(strokes);
  EXPECT_TRUE(code.ok()) << code.status();
  return code.ok() ? *code : -1;
}

inline v1::PictAction PaintProto(const std::vector<Stroke>& strokes) {
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

}  // namespace parlor::games::pict

#endif  // PARLOR_ENGINE_GAMES_PICT_PICT_TEST_UTIL_H_
