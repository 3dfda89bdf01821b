// The greedy bot (one ply, Pict's heuristic: score margin plus each canvas's prospects) beats the
// random bot at Pict, with and without the master-painter options.
#include <cstdio>

#include "engine/bots/bot.h"
#include "engine/bots/bot_match.h"
#include "engine/games/pict/pict.h"
#include "gtest/gtest.h"

namespace parlor::games::pict {
namespace {

bots::MatchResult Match(const std::map<std::string, std::string>& options, uint64_t seed) {
  PictGame game;
  // Pict hides nothing, so one sample per action sees everything there is.
  bots::GreedyBot greedy(/*samples=*/1);
  bots::RandomBot random;
  absl::StatusOr<bots::MatchResult> result =
      bots::PlayMatch(game, greedy, random, {.games = 200, .seed = seed, .options = options});
  EXPECT_TRUE(result.ok()) << result.status();
  return result.ok() ? *result : bots::MatchResult{};
}

TEST(PictBots, GreedyBeatsRandomClearlyOver200SeededGames) {
  const bots::MatchResult result = Match({}, 1);
  EXPECT_EQ(result.games, 200);
  EXPECT_GE(result.wins, 170) << "wins " << result.wins << ", draws " << result.draws << ", losses "
                              << result.losses;
  std::printf("greedy vs random, default options, 200 games: %d wins, %d draws, %d losses\n",
              result.wins, result.draws, result.losses);
}

TEST(PictBots, GreedyBeatsRandomWithBothMasterPainterOptions) {
  const bots::MatchResult result =
      Match({{"empty_palette_start", "true"}, {"paintbrushes", "true"}}, 2);
  EXPECT_EQ(result.games, 200);
  EXPECT_GE(result.wins, 170) << "wins " << result.wins << ", draws " << result.draws << ", losses "
                              << result.losses;
  std::printf("greedy vs random, both options, 200 games: %d wins, %d draws, %d losses\n",
              result.wins, result.draws, result.losses);
}

}  // namespace
}  // namespace parlor::games::pict
