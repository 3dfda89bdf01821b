// The engine's conformance suite over Pescado: 2000 seeded random playouts with 2–4 players,
// with and without the snatching option, some with forfeits.
#include "engine/conformance/conformance.h"
#include "engine/games/pescado/pescado.h"
#include "gtest/gtest.h"

namespace parlor::games::pescado {
namespace {

TEST(PescadoConformance, RandomPlayoutsKeepEveryContract) {
  const PescadoGame game;
  const conformance::ConformanceFigures figures =
      conformance::RunConformance(game, {.playouts = 1000, .seed = 7});
  EXPECT_EQ(figures.failures, 0);
  EXPECT_GT(figures.playouts, 0);
  EXPECT_GT(figures.illegal_actions_checked, 0);
  EXPECT_GT(figures.replays, 0);
}

TEST(PescadoConformance, SnatchingPlayoutsKeepEveryContract) {
  // Every playout with random options: half of them play the snatching variant.
  const PescadoGame game;
  const conformance::ConformanceFigures figures = conformance::RunConformance(
      game, {.playouts = 1000, .seed = 11, .random_options_share = 1.0});
  EXPECT_EQ(figures.failures, 0);
  EXPECT_GT(figures.views_checked, 0);
}

}  // namespace
}  // namespace parlor::games::pescado
