// The bot levels of every game: names and aliases, reproducible decisions from the stream they
// are given, and a loose bound on strength over a few games (the published win rates come from
// parlor-bot-match, engine/README.md).

#include <memory>
#include <string>

#include "engine/bots/bot.h"
#include "engine/bots/bot_match.h"
#include "engine/core/rng.h"
#include "engine/games/all_games.h"
#include "gtest/gtest.h"

namespace parlor::bots {
namespace {

TEST(BotLevels, EasyMediumAndHardAreBotsAndTheOldNamesStay) {
  EXPECT_EQ(BotLevels(), (std::vector<std::string>{"easy", "medium", "hard"}));
  for (const std::string& name : BotNames()) EXPECT_TRUE(MakeBot(name).ok()) << name;
  EXPECT_EQ((*MakeBot("easy"))->name(), "random");
  EXPECT_EQ((*MakeBot("medium"))->name(), "greedy");
  EXPECT_EQ((*MakeBot("hard"))->name(), "hard");
  EXPECT_EQ((*MakeBot("mc"))->name(), "mc");
  const absl::Status unknown = MakeBot("expert").status();
  EXPECT_EQ(unknown.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(unknown.message().find("easy, medium, hard"), std::string::npos) << unknown;
}

TEST(BotLevels, HardDecidesTheSameFromTheSameStreamInEveryGame) {
  const engine::Registry registry = engine::AllGames();
  for (const engine::Game* game : registry.games()) {
    const int n = game->info().min_players;
    std::unique_ptr<engine::State> state =
        *game->NewGame(n, *game->ParseOptions({}, n), engine::Seed::FromUint64(4));
    const int seat = state->ActingSeats().ToVector()[0];
    IsmctsBot hard(/*iterations=*/60);
    engine::Rng a = engine::BotDecisionRng(state->seed(), seat, state->NumMoves());
    engine::Rng b = engine::BotDecisionRng(state->seed(), seat, state->NumMoves());
    const absl::StatusOr<engine::Action> first = hard.Choose(*state, seat, a);
    const absl::StatusOr<engine::Action> second = hard.Choose(*state, seat, b);
    ASSERT_TRUE(first.ok()) << game->name() << ": " << first.status();
    EXPECT_EQ(*first, *second) << game->name();
    EXPECT_TRUE(state->CheckAction(seat, *first).ok()) << game->name();
  }
}

TEST(BotLevels, HardWithASmallBudgetBeatsEasyInMostOfAFewPicoGames) {
  // A loose bound on few games to keep the suite fast; the real figures are parlor-bot-match's.
  const engine::Registry registry = engine::AllGames();
  const engine::Game& pico = **registry.Find("pico");
  IsmctsBot hard(/*iterations=*/60);
  RandomBot easy;
  MatchSettings settings;
  settings.games = 6;
  settings.seed = 3;
  absl::StatusOr<MatchResult> result = PlayMatch(pico, hard, easy, settings);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_GE(result->score, 0.6) << "wins " << result->wins << ", losses " << result->losses;
}

TEST(BotLevels, HardRefusesToChooseForASeatThatMayNotAct) {
  const engine::Registry registry = engine::AllGames();
  const engine::Game& pict = **registry.Find("pict");
  std::unique_ptr<engine::State> state =
      *pict.NewGame(2, *pict.ParseOptions({}, 2), engine::Seed::FromUint64(1));
  const int waiting = 1 - state->ActingSeats().ToVector()[0];
  IsmctsBot hard(/*iterations=*/10);
  engine::Rng rng(1);
  EXPECT_EQ(hard.Choose(*state, waiting, rng).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace parlor::bots
