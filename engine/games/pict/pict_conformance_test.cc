// The engine's conformance suite over seeded random playouts of Pict (both master-painter options
// are drawn at random in half of the playouts).
#include "engine/conformance/conformance.h"
#include "engine/games/pict/pict.h"
#include "gtest/gtest.h"

namespace parlor::games::pict {
namespace {

TEST(PictConformance, TwoThousandPlayoutsPass) {
  PictGame game;
  const conformance::ConformanceFigures figures =
      conformance::RunConformance(game, {.playouts = 2000, .seed = 5});
  EXPECT_EQ(figures.failures, 0);
  EXPECT_GE(figures.playouts, 1);
}

}  // namespace
}  // namespace parlor::games::pict
