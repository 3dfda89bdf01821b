// Race's rules as cases, and the engine's conformance suite over seeded playouts.
#include "engine/games/race/race.h"

#include "engine/conformance/conformance.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "parlor/games/v1/race.pb.h"
#include "race/race_state.pb.h"

#ifndef RACE_CONFORMANCE_PLAYOUTS
#define RACE_CONFORMANCE_PLAYOUTS 2000
#endif

namespace parlor::games::race {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const RaceGame& Game() {
  static const RaceGame* const game = new RaceGame();
  return *game;
}

// A game of `players` whose boost cards are 4 + each index of `boost_indices`.
std::unique_ptr<engine::State> Deal(int players, std::vector<int32_t> boost_indices,
                                    int target = 21) {
  absl::StatusOr<engine::Options> options =
      Game().ParseOptions({{"target", std::to_string(target)}}, players);
  EXPECT_TRUE(options.ok()) << options.status();
  absl::StatusOr<std::unique_ptr<engine::State>> state = Game().NewGameWithOutcomes(
      players, *options, engine::Seed::FromUint64(1), std::move(boost_indices));
  EXPECT_TRUE(state.ok()) << state.status();
  return *std::move(state);
}

v1::RaceView ViewOf(const engine::State& state, const engine::Viewer& viewer) {
  return static_cast<const v1::RaceView&>(*state.View(viewer));
}

TEST(RaceRules, SeatsTakeTurnsAddingOneTwoOrThreeOrTheirBoost) {
  std::unique_ptr<engine::State> state = Deal(3, {0, 1, 2});  // boosts 4, 5, 6
  EXPECT_EQ(state->ActingSeats().ToVector(), std::vector<int>{0});
  EXPECT_THAT(state->LegalActions(0), ElementsAre(1, 2, 3, kBoost));
  ASSERT_TRUE(state->Apply(0, 3).ok());
  ASSERT_TRUE(state->Apply(1, kBoost).ok());  // seat 1's boost is 5
  EXPECT_EQ(static_cast<const RaceState&>(*state).total(), 8);
  EXPECT_EQ(state->ActingSeats().ToVector(), std::vector<int>{2});
}

TEST(RaceRules, NoMovePassesTheTargetAndTheBoostIsPlayedOnce) {
  std::unique_ptr<engine::State> state = Deal(2, {2, 0}, /*target=*/10);  // boosts 6 and 4
  ASSERT_TRUE(state->Apply(0, kBoost).ok());                              // 6
  const absl::Status again = state->CheckAction(1, kBoost);               // 6 + 4 = 10: fine
  EXPECT_TRUE(again.ok()) << again;
  ASSERT_TRUE(state->Apply(1, 1).ok());  // 7
  EXPECT_THAT(state->CheckAction(0, kBoost).message(), HasSubstr("already played"));
  ASSERT_TRUE(state->Apply(0, 1).ok());  // 8
  const absl::Status past = state->CheckAction(1, 3);
  EXPECT_EQ(past.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(past.message(), HasSubstr("adding 3 would pass the target 10 (the total is 8)"));
  EXPECT_THAT(state->LegalActions(1), ElementsAre(1, 2));  // the boost (4) would pass it too
}

TEST(RaceRules, WhoeverReachesTheTargetExactlyWinsAndTheOthersShareSecond) {
  std::unique_ptr<engine::State> state = Deal(3, {0, 0, 0}, /*target=*/10);
  for (engine::Action a : {3, 3, 3}) {
    const int seat = state->ActingSeats().ToVector()[0];
    ASSERT_TRUE(state->Apply(seat, a).ok());
  }
  ASSERT_TRUE(state->Apply(0, 1).ok());  // 10
  ASSERT_TRUE(state->IsTerminal());
  EXPECT_THAT(state->GetOutcome().ranks, ElementsAre(1, 2, 2));
  EXPECT_THAT(state->GetOutcome().scores, ElementsAre(4, 3, 3));
  EXPECT_EQ(state->GetOutcome().reason, "seat 0 reached 10");
}

TEST(RaceRules, ABoostCardIsSecretUntilPlayed) {
  std::unique_ptr<engine::State> state = Deal(2, {1, 2});  // boosts 5 and 6
  EXPECT_EQ(ViewOf(*state, engine::Viewer::Seat(0)).players(0).boost(), 5);
  EXPECT_EQ(ViewOf(*state, engine::Viewer::Seat(0)).players(1).boost(), 0);
  EXPECT_EQ(ViewOf(*state, engine::Viewer::Spectator()).players(1).boost(), 0);
  EXPECT_EQ(ViewOf(*state, engine::Viewer::All()).players(1).boost(), 6);
  ASSERT_TRUE(state->Apply(0, 1).ok());
  ASSERT_TRUE(state->Apply(1, kBoost).ok());
  EXPECT_EQ(ViewOf(*state, engine::Viewer::Spectator()).players(1).boost(), 6);
  EXPECT_EQ(state->ActionToString(1, kBoost), "play the boost card");
}

TEST(RaceActions, MessagesNameTheFieldThatIsWrong) {
  v1::RaceAction both;
  both.set_add(2);
  both.set_boost(true);
  EXPECT_THAT(Game().ActionFromProto(both).status().message(), HasSubstr("add: leave it 0"));
  v1::RaceAction none;
  EXPECT_EQ(Game().ActionFromProto(none).status().code(), absl::StatusCode::kInvalidArgument);
  v1::RaceAction four;
  four.set_add(4);
  EXPECT_THAT(Game().ActionFromProto(four).status().message(), HasSubstr("add: 1, 2 or 3"));
  for (engine::Action a : {1, 2, 3, 4}) {
    EXPECT_EQ(*Game().ActionFromProto(*Game().ActionToProto(a)), a);
  }
}

TEST(RaceSnapshot, ASnapshotWhoseTotalIsNotTheSumOfTheAddsIsRefused) {
  std::unique_ptr<engine::State> state = Deal(2, {0, 0});
  ASSERT_TRUE(state->Apply(0, 2).ok());
  engine::v1::GameRecord record = state->Serialize();
  ASSERT_TRUE(Game().Deserialize(record).ok());
  engine::race::RaceState snapshot;
  ASSERT_TRUE(record.state().UnpackTo(&snapshot));
  snapshot.set_total(5);
  record.mutable_state()->PackFrom(snapshot);
  const absl::Status refused = Game().Deserialize(record).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.message(), HasSubstr("total: 5 is not the sum"));
}

TEST(RaceConformance, SeededPlayoutsPass) {
  const conformance::ConformanceFigures figures =
      conformance::RunConformance(Game(), {.playouts = RACE_CONFORMANCE_PLAYOUTS, .seed = 21});
  EXPECT_EQ(figures.failures, 0);
  EXPECT_GE(figures.playouts, 1);
}

}  // namespace
}  // namespace parlor::games::race
