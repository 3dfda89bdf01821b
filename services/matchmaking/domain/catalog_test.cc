#include "services/matchmaking/domain/catalog.h"

#include "engine/games/all_games.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/testing/status_matchers.h"

namespace parlor::matchmaking {
namespace {

using ::parlor::testing::IsOk;
using ::parlor::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class CatalogTest : public ::testing::Test {
 protected:
  engine::Registry registry_ = engine::AllGames();
  GameCatalog catalog_{&registry_};
};

TEST_F(CatalogTest, DefaultsAndCanonicalOptions) {
  absl::StatusOr<GameCatalog::Validated> v = catalog_.Validate("picadice", {}, {});
  ASSERT_THAT(v, IsOk());
  EXPECT_THAT(v->player_counts, ElementsAre(2));
  EXPECT_THAT(v->canonical_options, HasSubstr("team_play=false"));
  absl::StatusOr<GameCatalog::Validated> same =
      catalog_.Validate("picadice", {{"team_play", "false"}}, {2});
  ASSERT_THAT(same, IsOk());
  EXPECT_EQ(same->canonical_options, v->canonical_options);
}

TEST_F(CatalogTest, TeamsComeFromTheEngine) {
  absl::StatusOr<GameCatalog::Validated> v =
      catalog_.Validate("picadice", {{"team_play", "true"}}, {4});
  ASSERT_THAT(v, IsOk());
  EXPECT_THAT(v->seat_teams.at(4), ElementsAre(0, 0, 1, 1));
  absl::StatusOr<GameCatalog::Validated> solo = catalog_.Validate("picadice", {}, {3});
  ASSERT_THAT(solo, IsOk());
  EXPECT_THAT(solo->seat_teams.at(3), ElementsAre(0, 1, 2));
}

TEST_F(CatalogTest, RefusalsNameTheField) {
  EXPECT_THAT(catalog_.Validate("chess", {}, {}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("unknown game")));
  EXPECT_THAT(catalog_.Validate("", {}, {}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("game is required")));
  EXPECT_THAT(catalog_.Validate("picadice", {{"no_such_option", "1"}}, {}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("options")));
  EXPECT_THAT(catalog_.Validate("picadice", {}, {9}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("player_counts")));
  EXPECT_THAT(catalog_.Validate("picadice", {{"team_play", "true"}}, {2, 4}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("with 2 players")));
}

}  // namespace
}  // namespace parlor::matchmaking
