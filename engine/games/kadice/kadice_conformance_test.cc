// The engine's conformance suite over KA'DICE! (2-4 players, default and random options).
#include "engine/conformance/conformance.h"
#include "engine/games/kadice/kadice.h"
#include "gtest/gtest.h"

namespace parlor::games::kadice {
namespace {

TEST(KadiceConformance, PassesTwoThousandPlayouts) {
  KadiceGame game;
  const conformance::ConformanceFigures figures =
      conformance::RunConformance(game, {.playouts = 2000, .seed = 8});
  EXPECT_EQ(figures.failures, 0);
  EXPECT_GE(figures.playouts, 1);
}

}  // namespace
}  // namespace parlor::games::kadice
