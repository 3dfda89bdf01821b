// The engine's conformance suite over seeded random playouts of Pict (both master-painter options
// are drawn at random in half of the playouts).
#include "engine/conformance/conformance.h"
#include "engine/games/pict/pict.h"
#include "gtest/gtest.h"

#ifndef PICT_CONFORMANCE_PLAYOUTS
#define PICT_CONFORMANCE_PLAYOUTS 2000
#endif

namespace parlor::games::pict {
namespace {

TEST(PictConformance, SeededPlayoutsPass) {
  PictGame game;
  const conformance::ConformanceFigures figures =
      conformance::RunConformance(game, {.playouts = PICT_CONFORMANCE_PLAYOUTS, .seed = 5});
  EXPECT_EQ(figures.failures, 0);
  EXPECT_GE(figures.playouts, 1);
}

}  // namespace
}  // namespace parlor::games::pict
