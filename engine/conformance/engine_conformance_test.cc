// Runs the conformance suite over every game registered in engine::AllGames().
//
// PARLOR_CONFORMANCE_SCALE scales the number of playouts (the sanitizer build uses a fraction).

#include <string>
#include <vector>

#include "engine/conformance/conformance.h"
#include "engine/games/all_games.h"
#include "gtest/gtest.h"

namespace parlor::conformance {
namespace {

const engine::Registry& Games() {
  static const engine::Registry* const registry = new engine::Registry(engine::AllGames());
  return *registry;
}

std::vector<std::string> GameNames() {
  std::vector<std::string> names;
  for (const engine::Game* game : Games().games()) names.push_back(game->name());
  return names;
}

class EngineConformanceTest : public testing::TestWithParam<std::string> {};

TEST_P(EngineConformanceTest, RandomPlayoutsKeepEveryContract) {
  absl::StatusOr<const engine::Game*> game = Games().Find(GetParam());
  ASSERT_TRUE(game.ok()) << game.status();
  const ConformanceFigures figures =
      RunConformance(**game, {.playouts = PARLOR_CONFORMANCE_PLAYOUTS});
  EXPECT_EQ(figures.failures, 0);
  EXPECT_GT(figures.legal_actions_checked, 0);
  EXPECT_GT(figures.illegal_actions_checked, 0);
}

INSTANTIATE_TEST_SUITE_P(AllGames, EngineConformanceTest, testing::ValuesIn(GameNames()),
                         [](const testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(EngineConformanceTest);

}  // namespace
}  // namespace parlor::conformance
