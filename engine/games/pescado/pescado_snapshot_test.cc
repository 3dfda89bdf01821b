// pescado tests: the snapshot: round trips, replays and damaged snapshots refused. Shared helpers:
// pescado_test_util.h.
#include "engine/games/pescado/pescado_test_util.h"

namespace parlor::games::pescado {
namespace {

// ---- Snapshots ---------------------------------------------------------------------------------

TEST(PescadoSnapshot, SerializeDeserializeAndReplayGiveTheSameBytes) {
  auto s = Case15Game();
  Accept(*s, kAnn, EncodeThrowFirst());
  Accept(*s, kBen, EncodeSnatchClaim(std::vector<int>{3, 11}));
  for (const PescadoState* state : {s.get()}) {
    const engine::v1::GameRecord record = state->Serialize();
    auto loaded = Game().Deserialize(record);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    EXPECT_EQ((*loaded)->SerializeToString(), state->SerializeToString());
    auto replayed = Game().Replay(record, /*check_seed=*/false);
    ASSERT_TRUE(replayed.ok()) << replayed.status();
    EXPECT_EQ((*replayed)->SerializeToString(), state->SerializeToString());
  }
}

TEST(PescadoSnapshot, DamagedSnapshotsAreRejectedNeverLoaded) {
  auto fresh = Game().NewGame(3, Opts(), engine::Seed::FromUint64(5));
  ASSERT_TRUE(fresh.ok());
  const engine::v1::GameRecord good = (*fresh)->Serialize();
  engine::pescado::PescadoState base;
  ASSERT_TRUE(good.state().UnpackTo(&base));
  const std::vector<std::function<void(engine::pescado::PescadoState&)>> damage = {
      [](auto& p) { p.set_phase(0); },
      [](auto& p) { p.set_phase(6); },
      [](auto& p) { p.set_active_seat(3); },
      [](auto& p) { p.set_active_seat(-1); },
      [](auto& p) { p.set_turn_counter(200); },
      [](auto& p) { p.set_turn_counter(-1); },
      [](auto& p) { p.set_stack(0, p.stack(1)); },
      [](auto& p) { p.set_stack(0, 37); },
      [](auto& p) { p.mutable_stack()->RemoveLast(); },
      [](auto& p) { p.mutable_pool()->RemoveLast(); },
      [](auto& p) { p.mutable_pool(0)->set_flipped(true); },
      [](auto& p) { p.mutable_pool(0)->set_tile_id(0); },
      [](auto& p) { p.mutable_supplies()->RemoveLast(); },
      [](auto& p) { p.add_dice(1); },
      [](auto& p) { p.set_grey_dice_bought(1); },
      [](auto& p) { p.set_kept_mask(3); },
      [](auto& p) { p.set_end_reason(1); },
      [](auto& p) {
        p.set_phase(2);
        for (int i = 0; i < 5; ++i) p.add_dice(7);
      },
      [](auto& p) { p.set_phase(3); },
      [](auto& p) {
        p.set_phase(2);
        for (int i = 0; i < 5; ++i) p.add_dice(1);
        p.mutable_pool(0)->set_flipped(true);  // no grey die was bought
      },
      [](auto& p) {
        auto* sn = p.mutable_snatch();
        sn->set_thrower_seat(0);
        for (int i = 0; i < 5; ++i) sn->add_snatch_dice(0);
      },
  };
  for (size_t i = 0; i < damage.size(); ++i) {
    engine::pescado::PescadoState p = base;
    damage[i](p);
    engine::v1::GameRecord record = good;
    record.mutable_state()->PackFrom(p);
    auto loaded = Game().Deserialize(record);
    EXPECT_EQ(loaded.status().code(), absl::StatusCode::kInvalidArgument) << "damage " << i;
  }
  engine::v1::GameRecord wrong_type = good;
  wrong_type.mutable_state()->PackFrom(good);
  EXPECT_FALSE(Game().Deserialize(wrong_type).ok());
}

TEST(PescadoSnapshot, RandomlyCorruptedSnapshotsNeverCrashAndLoadOnlyIfPlayable) {
  // A snatch window in the middle of a game, then random byte damage to its snapshot.
  auto s = Case15Game();
  Accept(*s, kAnn, EncodeThrowFirst());
  Accept(*s, kBen, EncodeSnatchClaim(std::vector<int>{3, 11}));
  const engine::v1::GameRecord good = s->Serialize();
  engine::Rng rng(2024);
  int loaded_count = 0;
  for (int i = 0; i < 3000; ++i) {
    engine::v1::GameRecord record = good;
    std::string bytes = record.state().value();
    const int flips = 1 + static_cast<int>(rng.Uniform(4));
    for (int f = 0; f < flips; ++f) {
      bytes[rng.Uniform(bytes.size())] = static_cast<char>(rng.Uniform(256));
    }
    record.mutable_state()->set_value(bytes);
    auto loaded = Game().Deserialize(record);
    if (!loaded.ok()) {
      EXPECT_EQ(loaded.status().code(), absl::StatusCode::kInvalidArgument);
      continue;
    }
    ++loaded_count;
    engine::State& state = **loaded;
    for (int seat = 0; seat < 3; ++seat) {
      for (Action a : state.LegalActions(seat)) {
        EXPECT_TRUE(state.CheckAction(seat, a).ok());
        auto copy = state.Clone();
        EXPECT_TRUE(copy->Apply(seat, a).ok());
      }
      state.View(engine::Viewer::Seat(seat));
    }
    state.View(engine::Viewer::All());
    auto again = Game().Deserialize(state.Serialize());
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_EQ((*again)->SerializeToString(), state.SerializeToString());
  }
  EXPECT_GT(loaded_count, 0) << "some damage (e.g. to a claim) still gives a valid position";
}

}  // namespace
}  // namespace parlor::games::pescado
