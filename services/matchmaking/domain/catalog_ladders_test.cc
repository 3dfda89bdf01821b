// A ranked ticket's ladder comes from the same game metadata the ratings service derives its
// ladders from: a game matchmaking has never heard of (the test-only Race) is ranked on its own
// ladder, not on its game id.
#include "engine/games/all_games.h"
#include "engine/games/test_games.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/testing/status_matchers.h"
#include "services/matchmaking/domain/catalog.h"
#include "services/ratings/model/game_ladders.h"

namespace parlor::matchmaking {
namespace {

using ::parlor::testing::IsOk;

std::string LadderOf(const GameCatalog& catalog, const std::string& game,
                     const std::map<std::string, std::string>& options, std::vector<int> counts) {
  absl::StatusOr<GameCatalog::Validated> v = catalog.Validate(game, options, counts);
  EXPECT_THAT(v, IsOk());
  return v.ok() ? catalog.LadderFor(game, v->seat_teams) : std::string();
}

TEST(CatalogLadders, ATestOnlyGameIsRankedOnTheLadderItsMetadataGives) {
  const engine::Registry registry = engine::AllGamesWithTestGames();
  const GameCatalog catalog(&registry);
  EXPECT_EQ(LadderOf(catalog, "race", {}, {2}), "race");
  EXPECT_EQ(LadderOf(catalog, "race", {{"target", "10"}}, {3}), "race");
  EXPECT_THAT(catalog.ladders().Find("race"), IsOk());
}

TEST(CatalogLadders, TheShippedGamesKeepTheirLadders) {
  const engine::Registry registry = engine::AllGames();
  const GameCatalog catalog(&registry);
  EXPECT_EQ(LadderOf(catalog, "pico", {}, {2}), "pico");
  EXPECT_EQ(LadderOf(catalog, "picadice", {}, {2}), "picadice-duel");
  EXPECT_EQ(LadderOf(catalog, "picadice", {{"team_play", "true"}}, {4}), "picadice-doubles");
  EXPECT_EQ(LadderOf(catalog, "picadice", {}, {3, 4}), "picadice-multi");
  EXPECT_EQ(LadderOf(catalog, "kadice", {}, {2, 3}), "kadice");
  // The same ladders as the ratings service's, from the same registry.
  const ratings::model::LadderRegistry rated = ratings::model::LaddersForGames(registry);
  ASSERT_EQ(catalog.ladders().ladders().size(), rated.ladders().size());
  for (const ratings::model::LadderSpec& l : rated.ladders()) {
    EXPECT_THAT(catalog.ladders().Find(l.name), IsOk()) << l.name;
  }
}

}  // namespace
}  // namespace parlor::matchmaking
