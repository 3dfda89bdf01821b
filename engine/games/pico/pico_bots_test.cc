// The stronger bots beat the random one at Pico.

#include <cstdio>

#include "engine/bots/bot.h"
#include "engine/bots/bot_match.h"
#include "engine/games/pico/pico.h"
#include "gtest/gtest.h"

namespace parlor::games::pico {
namespace {

TEST(PicoBots, GreedyBeatsRandomInMostOf200SeededGames) {
  PicoGame game;
  bots::GreedyBot greedy;
  bots::RandomBot random;
  absl::StatusOr<bots::MatchResult> result =
      bots::PlayMatch(game, greedy, random, {.games = 200, .seed = 1});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->games, 200);
  EXPECT_GT(result->wins, 100) << "wins " << result->wins << ", draws " << result->draws
                               << ", losses " << result->losses;
  EXPECT_GT(result->wins, 2 * result->losses);
  std::printf("greedy vs random over 200 games: %d wins, %d draws, %d losses\n", result->wins,
              result->draws, result->losses);
}

TEST(PicoBots, MonteCarloBeatsRandomInMostOf200SeededGames) {
  PicoGame game;
  bots::MonteCarloBot mc(/*playouts_per_action=*/8);
  bots::RandomBot random;
  absl::StatusOr<bots::MatchResult> result =
      bots::PlayMatch(game, mc, random, {.games = 200, .seed = 2});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_GT(result->wins, 100) << "wins " << result->wins << ", draws " << result->draws
                               << ", losses " << result->losses;
  std::printf("mc (8 playouts per action) vs random over 200 games: %d wins, %d draws, %d losses\n",
              result->wins, result->draws, result->losses);
}

TEST(PicoBots, WinRateHelperAgreesWithPlayMatch) {
  PicoGame game;
  bots::GreedyBot greedy;
  bots::RandomBot random;
  const double rate = bots::WinRate(game, greedy, random, 40, 3);
  absl::StatusOr<bots::MatchResult> result =
      bots::PlayMatch(game, greedy, random, {.games = 40, .seed = 3});
  ASSERT_TRUE(result.ok());
  EXPECT_DOUBLE_EQ(rate, result->score);
  EXPECT_DOUBLE_EQ(result->score, (result->wins + 0.5 * result->draws) / 40.0);
  EXPECT_GT(rate, 0.5);
}

TEST(PicoBots, EveryBotPlaysWholeGamesAndSeededGamesRepeat) {
  PicoGame game;
  for (const std::string& name : bots::BotNames()) {
    // The hard bot's whole games are too slow for the sanitizer build; its reproducibility is
    // tested with a small budget in engine_bot_levels_test.
    if (name == "hard") continue;
    absl::StatusOr<std::unique_ptr<bots::Bot>> bot = bots::MakeBot(name);
    ASSERT_TRUE(bot.ok()) << name;
    // A level names the bot it stands for ("easy" is the random bot).
    EXPECT_EQ((*bot)->name(), name == "easy" ? "random" : name == "medium" ? "greedy" : name);
    std::string first_record;
    for (int run = 0; run < 2; ++run) {
      absl::StatusOr<std::unique_ptr<engine::State>> state =
          game.NewGame(2, *game.ParseOptions({}, 2), engine::Seed::FromUint64(11));
      ASSERT_TRUE(state.ok());
      engine::Rng rng(11);
      absl::StatusOr<std::unique_ptr<engine::State>> end =
          bots::PlayGame(*std::move(state), {bot->get(), bot->get()}, rng);
      ASSERT_TRUE(end.ok()) << name << ": " << end.status();
      EXPECT_TRUE((*end)->IsTerminal());
      if (run == 0)
        first_record = (*end)->SerializeToString();
      else
        EXPECT_EQ((*end)->SerializeToString(), first_record) << name << " is not reproducible";
    }
  }
  EXPECT_EQ(bots::MakeBot("clever").status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(PicoBots, BotsRefuseToChooseForASeatThatMayNotAct) {
  PicoGame game;
  absl::StatusOr<std::unique_ptr<engine::State>> state =
      game.NewGame(2, *game.ParseOptions({}, 2), engine::Seed::FromUint64(1));
  ASSERT_TRUE(state.ok());
  ASSERT_TRUE((*state)->Apply(0, (*state)->LegalActions(0)[0]).ok());
  engine::Rng rng(1);
  bots::GreedyBot greedy;
  EXPECT_EQ(greedy.Choose(**state, 0, rng).status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(greedy.Choose(**state, 1, rng).ok());
}

}  // namespace
}  // namespace parlor::games::pico
