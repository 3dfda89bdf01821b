// kadice tests: the snapshot: round trips, replays and damaged snapshots refused. Shared helpers:
// kadice_test_util.h.
#include "engine/games/kadice/kadice_test_util.h"

namespace parlor::games::kadice {
namespace {

TEST(KadiceSnapshot, RoundTripAndReplay) {
  auto state = Start({.tops = {{kSinglePair6}, {kSinglePair2}, {kSinglePair1}, {kSinglePair3}},
                      .after = {6, 5, 3, 2, 1, /*Ben*/ 1, 1, 2, 3, 4}});
  APPLY(state, kAnn, Roll());
  APPLY(state, kAnn, Hold({0, 1}));
  APPLY(state, kBen, Roll());
  APPLY(state, kBen, Eliminate({kCat}));
  const engine::v1::GameRecord record = state->Serialize();
  auto loaded = Game().Deserialize(record);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ((*loaded)->SerializeToString(), state->SerializeToString());
  auto replayed = Game().Replay(record, false);
  ASSERT_TRUE(replayed.ok()) << replayed.status();
  EXPECT_EQ((*replayed)->SerializeToString(), state->SerializeToString());
}

// The dealer war's event: every new game starts with one.
::parlor::engine::kadice::KadiceState_Event& FirstRollOff(StateProto& s) {
  for (auto& e : *s.mutable_events()) {
    if (e.kind() == 1) return e;
  }
  ADD_FAILURE() << "no roll-off event";
  return *s.add_events();
}

TEST(KadiceSnapshot, DamagedSnapshotsAreRejected) {
  auto started = Game().NewGame(4, DefaultOptions(), engine::Seed::FromUint64(2));
  ASSERT_TRUE(started.ok());
  const std::vector<std::function<void(StateProto&)>> damages = {
      [](StateProto& s) { s.mutable_players(0)->add_deck(3); },
      [](StateProto& s) { s.mutable_players(1)->set_dice(2, 7); },
      [](StateProto& s) { s.mutable_players(1)->set_held(31); },
      [](StateProto& s) { s.mutable_players()->RemoveLast(); },
      [](StateProto& s) { s.set_round(0); },
      [](StateProto& s) { s.set_phase(9); },
      [](StateProto& s) { s.set_current(7); },
      [](StateProto& s) { s.set_dealer(-1); },
      [](StateProto& s) { s.mutable_players(2)->set_turns_taken(4); },
      [](StateProto& s) { s.mutable_players(2)->set_active(-1); },
      [](StateProto& s) { s.mutable_players(3)->set_ghost(true); },
      [](StateProto& s) { s.add_events()->set_kind(9); },
      // A roll-off between fewer than two seats: nobody could ever win it.
      [](StateProto& s) { FirstRollOff(s).set_participants(1u << 2); },
      [](StateProto& s) { FirstRollOff(s).set_participants(0); },
      [](StateProto& s) { s.set_end_reason(1); },
  };
  for (size_t i = 0; i < damages.size(); ++i) {
    engine::v1::GameRecord record = (*started)->Serialize();
    StateProto proto;
    ASSERT_TRUE(record.state().UnpackTo(&proto));
    damages[i](proto);
    record.mutable_state()->PackFrom(proto);
    EXPECT_EQ(Game().Deserialize(record).status().code(), absl::StatusCode::kInvalidArgument)
        << "damage " << i;
  }
  engine::v1::GameRecord garbage = (*started)->Serialize();
  garbage.mutable_state()->set_value("\xff\xff\xff");
  EXPECT_FALSE(Game().Deserialize(garbage).ok());
}

}  // namespace
}  // namespace parlor::games::kadice
