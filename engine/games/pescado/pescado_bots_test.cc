// The greedy bot (one ply with PescadoState::Heuristic) against the random bot over 200 seeded
// games: catching every matching tile and stealing from the predecessor must win clearly.
#include "engine/bots/bot.h"
#include "engine/bots/bot_match.h"
#include "engine/games/pescado/pescado.h"
#include "gtest/gtest.h"

namespace parlor::games::pescado {
namespace {

TEST(PescadoBots, GreedyBeatsRandomClearlyOverTwoHundredGames) {
  const PescadoGame game;
  bots::GreedyBot greedy;
  bots::RandomBot random;
  const double score = bots::WinRate(game, greedy, random, /*games=*/200, /*seed=*/1);
  std::printf("pescado: greedy vs random over 200 games, score %.3f\n", score);
  EXPECT_GT(score, 0.8);
}

TEST(PescadoBots, GreedyBeatsRandomInFourPlayerSnatchingGames) {
  const PescadoGame game;
  bots::GreedyBot greedy;
  bots::RandomBot random;
  absl::StatusOr<bots::MatchResult> result = bots::PlayMatch(
      game, greedy, random,
      {.games = 200, .seed = 2, .num_players = 4, .options = {{"snatching", "true"}}});
  ASSERT_TRUE(result.ok()) << result.status();
  std::printf(
      "pescado: greedy vs 3 random, snatching, 200 games: %d wins, %d draws, %d losses, "
      "score %.3f\n",
      result->wins, result->draws, result->losses, result->score);
  EXPECT_GT(result->score, 0.8);
}

}  // namespace
}  // namespace parlor::games::pescado
