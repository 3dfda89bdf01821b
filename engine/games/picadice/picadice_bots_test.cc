// The stronger bots beat the random one at Picadice over 200 seeded games.
#include <cstdio>

#include "engine/bots/bot.h"
#include "engine/bots/bot_match.h"
#include "engine/games/picadice/picadice.h"
#include "gtest/gtest.h"

namespace parlor::games::picadice {
namespace {

void Report(const char* what, const bots::MatchResult& result) {
  std::printf("%s: %d wins, %d draws, %d losses, score %.3f\n", what, result.wins, result.draws,
              result.losses, result.score);
}

TEST(PicadiceBots, GreedyBeatsRandomInMostOf200TwoPlayerGames) {
  PicadiceGame game;
  bots::GreedyBot greedy;
  bots::RandomBot random;
  absl::StatusOr<bots::MatchResult> result =
      bots::PlayMatch(game, greedy, random, {.games = 200, .seed = 1, .num_players = 2});
  ASSERT_TRUE(result.ok()) << result.status();
  Report("greedy vs random, 2 players, 200 games", *result);
  EXPECT_EQ(result->games, 200);
  EXPECT_GT(result->wins, 150);
  EXPECT_GT(result->wins, 4 * result->losses);
}

TEST(PicadiceBots, GreedyBeatsThreeRandomPlayersMoreOftenThanAQuarterOfTheTime) {
  PicadiceGame game;
  bots::GreedyBot greedy;
  bots::RandomBot random;
  absl::StatusOr<bots::MatchResult> result =
      bots::PlayMatch(game, greedy, random, {.games = 200, .seed = 2, .num_players = 4});
  ASSERT_TRUE(result.ok()) << result.status();
  Report("greedy vs 3 random, 4 players, 200 games", *result);
  // A random seat wins a quarter of the time; the greedy seat wins far more.
  EXPECT_GT(result->wins, 100);
  EXPECT_GT(result->score, 0.75);
}

TEST(PicadiceBots, GreedyDoublesTeamBeatsARandomTeam) {
  PicadiceGame game;
  bots::GreedyBot greedy;
  bots::RandomBot random;
  absl::StatusOr<bots::MatchResult> result = bots::PlayMatch(
      game, greedy, random,
      {.games = 200, .seed = 3, .num_players = 4, .options = {{"team_play", "true"}}});
  ASSERT_TRUE(result.ok()) << result.status();
  Report("greedy team vs random team, doubles, 200 games", *result);
  EXPECT_GT(result->wins, 150);
}

TEST(PicadiceBots, GreedyWinsMatchesAgainstRandom) {
  PicadiceGame game;
  bots::GreedyBot greedy;
  bots::RandomBot random;
  absl::StatusOr<bots::MatchResult> result = bots::PlayMatch(
      game, greedy, random,
      {.games = 60, .seed = 4, .num_players = 2, .options = {{"match_play", "true"}}});
  ASSERT_TRUE(result.ok()) << result.status();
  Report("greedy vs random, match play to 5, 60 matches", *result);
  EXPECT_GT(result->wins, 50);
}

}  // namespace
}  // namespace parlor::games::picadice
