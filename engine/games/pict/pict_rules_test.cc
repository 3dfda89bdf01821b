// pict tests: the rules beyond the numbered cases: refusals, legal-action order, options, bounds
// and outcomes. Shared helpers: pict_test_util.h.
#include "engine/games/pict/pict_test_util.h"

namespace parlor::games::pict {
namespace {

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
