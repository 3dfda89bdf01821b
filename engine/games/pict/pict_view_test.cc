// pict tests: views (what each viewer sees), action messages and texts. Shared helpers:
// pict_test_util.h.
#include "engine/games/pict/pict_test_util.h"

namespace parlor::games::pict {
namespace {

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

}  // namespace
}  // namespace parlor::games::pict
