// Bots on KA'DICE!: the greedy bot beats the random one, and kind-first random playouts reach
// the rare paths (ghosts and revivals) that uniformly random play never does.
#include <cstdio>
#include <memory>

#include "engine/bots/bot.h"
#include "engine/bots/bot_match.h"
#include "engine/games/kadice/kadice.h"
#include "gtest/gtest.h"

namespace parlor::games::kadice {
namespace {

TEST(KadiceBots, GreedyBeatsRandomClearlyOverTwoHundredGames) {
  KadiceGame game;
  // One sample per action: only the deck orders are hidden, and they hardly change a decision.
  bots::GreedyBot greedy(1);
  bots::RandomBot random;
  const double score = bots::WinRate(game, greedy, random, 200, 1);
  std::printf("greedy vs random, 2 players, 200 games: score %.3f\n", score);
  EXPECT_GE(score, 0.8) << "greedy's share of games won against random: " << score;
}

TEST(KadiceBots, KindFirstPlayoutsReachGhostsAndRevivals) {
  KadiceGame game;
  bots::KindFirstBot bot;
  int games_with_ghost = 0, games_with_ghost_roll = 0, games_with_revival = 0;
  int games_ended_before_limit = 0;
  constexpr int kGames = 60;
  for (int g = 0; g < kGames; ++g) {
    const int players = 2 + g % 3;
    auto started =
        game.NewGame(players, *game.ParseOptions({}, players), engine::Seed::FromUint64(1000 + g));
    ASSERT_TRUE(started.ok()) << started.status();
    std::unique_ptr<engine::State> state = *std::move(started);
    engine::Rng rng(g);
    bool ghost = false, ghost_roll = false, revival = false;
    while (!state->IsTerminal()) {
      const int seat = state->ActingSeats().ToVector()[0];
      auto action = bot.Choose(*state, seat, rng);
      ASSERT_TRUE(action.ok()) << action.status();
      ASSERT_TRUE(state->Apply(seat, *action).ok());
      const auto& kadice = static_cast<const KadiceState&>(*state);
      for (int s = 0; s < players; ++s) ghost |= kadice.player(s).ghost;
      for (const auto& event : kadice.events()) {
        if (event.kind != KadiceState::Event::kGhostRoll) continue;
        ghost_roll = true;
        revival |= event.card != kNoCard;
      }
    }
    games_with_ghost += ghost;
    games_with_ghost_roll += ghost_roll;
    games_with_revival += revival;
    games_ended_before_limit +=
        static_cast<const KadiceState&>(*state).end_reason() == EndReason::kLastPlayer;
  }
  std::printf(
      "kind-first: %d/%d games with a ghost, %d with ghost rolls, %d with a revival, %d "
      "ended before the round limit\n",
      games_with_ghost, kGames, games_with_ghost_roll, games_with_revival,
      games_ended_before_limit);
  EXPECT_GE(games_with_ghost, kGames / 2);
  EXPECT_GE(games_with_ghost_roll, kGames / 4);
  EXPECT_GE(games_with_revival, kGames / 10);
}

}  // namespace
}  // namespace parlor::games::kadice
