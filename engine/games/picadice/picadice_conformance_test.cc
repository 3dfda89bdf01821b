// The engine's conformance suite over thousands of seeded Picadice playouts. Half of them draw
// random valid options (so 2, 3 and 4 players, doubles, match play to targets up to 25 and short
// turn limits all occur); the other half use the defaults with a random player count.
#include "engine/conformance/conformance.h"
#include "engine/games/picadice/picadice.h"
#include "gtest/gtest.h"

namespace parlor::games::picadice {
namespace {

TEST(PicadiceConformance, RandomPlayoutsKeepEveryContract) {
  PicadiceGame game;
  const conformance::ConformanceFigures figures =
      conformance::RunConformance(game, {.playouts = 2000, .seed = 6});
  EXPECT_EQ(figures.failures, 0);
  EXPECT_GT(figures.playouts, 0);  // 2000, or fewer under PARLOR_CONFORMANCE_SCALE
  EXPECT_GT(figures.illegal_actions_checked, 0);
  EXPECT_GT(figures.replays, 0);
}

// Every playout with random options: doubles, match play and short turn limits far more often.
TEST(PicadiceConformance, RandomOptionsOnly) {
  PicadiceGame game;
  const conformance::ConformanceFigures figures =
      conformance::RunConformance(game, {.playouts = 500, .seed = 66, .random_options_share = 1.0});
  EXPECT_EQ(figures.failures, 0);
}

}  // namespace
}  // namespace parlor::games::picadice
