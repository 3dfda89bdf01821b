// picadice tests: the snapshot: round trips, replays and damaged snapshots refused. Shared helpers:
// picadice_test_util.h.
#include "engine/games/picadice/picadice_test_util.h"

namespace parlor::games::picadice {
namespace {

TEST_F(PicadiceTest, SerializeDeserializeAndReplayReproduceTheState) {
  auto s = Start(3, {}, {{"match_play", "true"}, {"match_target", "2"}});
  engine::Rng rng(5);
  int moves = 0;
  while (!s->IsTerminal() && moves < 5000) {
    const int seat = s->player_to_act();
    std::vector<Action> legal = s->LegalActions(seat);
    ASSERT_TRUE(s->Apply(seat, legal[rng.Uniform(legal.size())]).ok());
    ++moves;
    if (moves % 37 == 0) {
      absl::StatusOr<std::unique_ptr<engine::State>> loaded = game_.Deserialize(s->Serialize());
      ASSERT_TRUE(loaded.ok()) << loaded.status();
      EXPECT_EQ((*loaded)->SerializeToString(), s->SerializeToString());
    }
  }
  ASSERT_TRUE(s->IsTerminal());
  EXPECT_EQ(s->end_reason(), EndReason::kMatchTargetReached);
  EXPECT_GE(s->round(), 1);
  absl::StatusOr<std::unique_ptr<engine::State>> replayed = game_.Replay(s->Serialize(), true);
  ASSERT_TRUE(replayed.ok()) << replayed.status();
  EXPECT_EQ((*replayed)->SerializeToString(), s->SerializeToString());
}

TEST_F(PicadiceTest, DamagedSnapshotsAreRefused) {
  auto s = ARolled({kOrange, kBlue, kGreen}, 3);
  const std::vector<std::pair<std::string, std::function<void(Snapshot&)>>> damages = {
      {"phase", [](Snapshot& x) { x.set_phase(static_cast<pb::PicadicePhase>(7)); }},
      {"player_to_act", [](Snapshot& x) { x.set_player_to_act(3); }},
      {"dice", [](Snapshot& x) { x.set_dice(0, 7); }},
      {"dice", [](Snapshot& x) { x.add_dice(1); }},
      {"dice", [](Snapshot& x) { x.set_phase(pb::PICADICE_PHASE_TURN_START); }},
      {"grids", [](Snapshot& x) { x.add_grids(0); }},
      {"grids", [](Snapshot& x) { x.set_grids(0, 1u << 20); }},
      {"grids", [](Snapshot& x) { x.set_grids(0, kFullGrid); }},
      {"nest", [](Snapshot& x) { x.set_nest(2, 5); }},
      {"nest", [](Snapshot& x) { x.set_nest(2, -1); }},
      {"nest", [](Snapshot& x) { x.add_nest(0); }},
      {"turns_completed", [](Snapshot& x) { x.set_turns_completed(450); }},
      {"turns_completed", [](Snapshot& x) { x.set_turns_completed(-1); }},
      {"round", [](Snapshot& x) { x.set_round(2); }},
      {"round", [](Snapshot& x) { x.set_round(0); }},
      {"roll_off", [](Snapshot& x) { x.clear_roll_off(); }},
      {"roll_off", [](Snapshot& x) { x.mutable_roll_off(0)->set_faces(0, 1); }},
      {"roll_off", [](Snapshot& x) { x.mutable_roll_off(0)->add_seats(3); }},
      {"match_points", [](Snapshot& x) { x.add_match_points(0); }},
      {"match_points", [](Snapshot& x) { x.set_match_points(0, 1); }},
      {"end_reason", [](Snapshot& x) { x.set_end_reason(pb::PICADICE_END_REASON_GRID_FILLED); }},
      {"round_results", [](Snapshot& x) { x.add_round_results(); }},
  };
  for (const auto& [what, damage] : damages) {
    engine::v1::GameRecord record = s->Serialize();
    Snapshot snapshot;
    ASSERT_TRUE(record.state().UnpackTo(&snapshot));
    damage(snapshot);
    record.mutable_state()->PackFrom(snapshot);
    absl::StatusOr<std::unique_ptr<engine::State>> loaded = game_.Deserialize(record);
    EXPECT_FALSE(loaded.ok()) << "accepted damage to " << what;
    if (!loaded.ok()) {
      EXPECT_EQ(loaded.status().code(), absl::StatusCode::kInvalidArgument);
    }
  }
  // Bytes that are not a snapshot at all.
  engine::v1::GameRecord record = s->Serialize();
  record.mutable_state()->set_value("\xff\xff\xff garbage");
  EXPECT_FALSE(game_.Deserialize(record).ok());
  record.mutable_state()->PackFrom(pb::PicadiceView());
  EXPECT_FALSE(game_.Deserialize(record).ok());
}

TEST_F(PicadiceTest, RandomlyCorruptedSnapshotsNeverCrashAndLoadOnlyIfPlayable) {
  auto s = WithGrids(*ARolled({kBlackFace, kOrange, kOrange}, 4, {{"match_play", "true"}}),
                     {Grid({{kGreen, "##.."}}), AllRows("#..."), 0, Grid({{kBlue, "###."}})},
                     {{kPurple, 2}, {kBlackFace, 1}});
  const engine::v1::GameRecord record = s->Serialize();
  const std::string bytes = record.state().value();
  engine::Rng rng(99);
  int loaded_count = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::string damaged = bytes;
    const int flips = 1 + static_cast<int>(rng.Uniform(3));
    for (int f = 0; f < flips; ++f) {
      damaged[rng.Uniform(damaged.size())] ^= static_cast<char>(1 + rng.Uniform(255));
    }
    engine::v1::GameRecord copy = record;
    copy.mutable_state()->set_value(damaged);
    absl::StatusOr<std::unique_ptr<engine::State>> loaded = game_.Deserialize(copy);
    if (!loaded.ok()) {
      EXPECT_EQ(loaded.status().code(), absl::StatusCode::kInvalidArgument);
      continue;
    }
    ++loaded_count;
    // Whatever loads is a consistent position: it plays to its next decision and saves again.
    engine::State& state = **loaded;
    EXPECT_EQ(game_.Deserialize(state.Serialize()).ok(), true);
    for (int seat = 0; seat < 4; ++seat) {
      for (Action a : state.LegalActions(seat)) {
        std::unique_ptr<engine::State> clone = state.Clone();
        EXPECT_TRUE(clone->Apply(seat, a).ok()) << state.ActionToString(seat, a);
      }
    }
  }
  EXPECT_GT(loaded_count, 0);  // some flips land on harmless values (e.g. a grid bit)
}

}  // namespace
}  // namespace parlor::games::picadice
