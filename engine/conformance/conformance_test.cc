// The conformance suite passes a correct game and catches each deliberate bug of the fake game.

#include "engine/conformance/conformance.h"

#include "engine/conformance/fake_game.h"
#include "gtest/gtest-spi.h"
#include "gtest/gtest.h"

namespace parlor::conformance {
namespace {

ConformanceOptions Quick() {
  ConformanceOptions opts;
  opts.playouts = 60;
  opts.max_failures = 1;
  opts.print_figures = false;
  return opts;
}

TEST(Conformance, ACorrectGamePassesAndTheFiguresCountTheWork) {
  std::unique_ptr<engine::Game> game = MakeFakeGame();
  ConformanceOptions opts = Quick();
  opts.playouts = 300;
  const ConformanceFigures f = RunConformance(*game, opts);
  EXPECT_EQ(f.failures, 0);
  EXPECT_GE(f.playouts, 30);  // at least a tenth even under PARLOR_CONFORMANCE_SCALE=0.1
  EXPECT_GT(f.forfeit_playouts, 0);
  EXPECT_GT(f.steps, f.playouts);
  EXPECT_GT(f.legal_actions_checked, f.full_steps / 2);
  EXPECT_GT(f.illegal_actions_checked, f.legal_actions_checked);
  EXPECT_GT(f.views_checked, f.full_steps);
  EXPECT_EQ(f.round_trips, f.full_steps);
  EXPECT_GT(f.full_steps, f.steps / 2) << "short games are checked almost everywhere";
  EXPECT_GE(f.replays, f.playouts);
  EXPECT_NE(FormatFigures(*game, f).find("tally: "), std::string::npos);
}

void ExpectCaught(FakeBug bug, const char* message) {
  std::unique_ptr<engine::Game> game = MakeFakeGame(bug);
  EXPECT_NONFATAL_FAILURE(RunConformance(*game, Quick()), message);
}

TEST(Conformance, CatchesAViewThatLeaksHiddenInformation) {
  ExpectCaught(FakeBug::kLeakyView, "hidden information leaks into its view");
}

TEST(Conformance, CatchesUnsortedLegalActions) {
  ExpectCaught(FakeBug::kUnsortedLegal, "are not sorted and unique");
}

TEST(Conformance, CatchesACheckThatAcceptsAnActionNotInTheLegalList) {
  ExpectCaught(FakeBug::kLenientCheck, "which is not in its legal actions");
}

TEST(Conformance, CatchesARefusalThatChangesTheState) {
  ExpectCaught(FakeBug::kRefusalChangesState, "changed the state");
}

TEST(Conformance, CatchesAGameLongerThanItsBound) {
  ExpectCaught(FakeBug::kBoundTooSmall, "MaxMoves");
}

TEST(Conformance, CatchesAViewWhoseRanksAreNotTheOutcomes) {
  ExpectCaught(FakeBug::kBadRanks, "the outcome has");
}

TEST(Conformance, CatchesASnapshotThatLosesState) {
  ExpectCaught(FakeBug::kLossySnapshot, "the deserialized state has other acting seats");
}

TEST(Conformance, CatchesAShapeRefusalThatDependsOnThePosition) {
  ExpectCaught(FakeBug::kShapeAfterState, "shape checks (INVALID_ARGUMENT) must not depend");
}

TEST(Conformance, CatchesAHiddenChoiceInAGameThatDeclaresItsChoicesPublic) {
  ExpectCaught(FakeBug::kHiddenChoice, "declares its choices public");
}

TEST(Conformance, CatchesChanceThatDoesNotGoThroughTheLog) {
  ExpectCaught(FakeBug::kUnrecordedChance, "Replay");
}

}  // namespace
}  // namespace parlor::conformance
