// pict tests: the snapshot: round trips, replays and damaged snapshots refused. Shared helpers:
// pict_test_util.h.
#include "engine/games/pict/pict_test_util.h"

namespace parlor::games::pict {
namespace {

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
  EXPECT_THAT(s.message(), HasSubstr("moves[1]"));
  s = tamper([](engine::pict::PictState& p) { p.mutable_moves(0)->set_action(123); });
  EXPECT_THAT(s.message(), HasSubstr("moves[0]"));
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

}  // namespace
}  // namespace parlor::games::pict
