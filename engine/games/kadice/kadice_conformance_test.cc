// The engine's conformance suite over KA'DICE! (2-4 players, default and random options).
//
// 200 playouts, not 2000: random play never eliminates, so most playouts run to the round limit
// (100 rounds by default, up to 500 with random options), about 2,000 positions each, and the
// suite's per-position checks serialize the whole record, so a playout costs about 2 CPU seconds.
// 200 playouts check about 400,000 positions and 15 million refused actions in about 6 CPU
// minutes; engine/conformance's engine_conformance_test runs more over every registered game.
#include "engine/conformance/conformance.h"
#include "engine/games/kadice/kadice.h"
#include "gtest/gtest.h"

namespace parlor::games::kadice {
namespace {

TEST(KadiceConformance, PassesTwoHundredFullLengthPlayouts) {
  KadiceGame game;
  const conformance::ConformanceFigures figures =
      conformance::RunConformance(game, {.playouts = 200, .seed = 8});
  EXPECT_EQ(figures.failures, 0);
  EXPECT_GE(figures.playouts, 1);
}

}  // namespace
}  // namespace parlor::games::kadice
