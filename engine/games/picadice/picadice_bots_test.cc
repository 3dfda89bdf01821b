// The stronger bots beat the random one at Picadice over 200 seeded games.
#include <array>
#include <cstdio>
#include <memory>

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

// The kind-first bot (used by the conformance suite) reaches the rare paths: steals from the
// nest, black nest steals, Pica Birds placing and discarding, triples and nest overflow.
TEST(PicadiceBots, KindFirstPlayoutsReachTheRarePaths) {
  PicadiceGame game;
  bots::KindFirstBot bot;
  engine::Rng rng(17);
  int nest_steals = 0, black_nest_steals = 0, birds_placed = 0, birds_discarded = 0;
  int triples = 0, overflows = 0, wins = 0;
  for (int g = 0; g < 100; ++g) {
    const int players = 2 + g % 3;
    auto started =
        game.NewGame(players, *game.ParseOptions({}, players), engine::Seed::FromUint64(g));
    ASSERT_TRUE(started.ok());
    std::unique_ptr<engine::State> state = *std::move(started);
    while (!state->IsTerminal()) {
      auto& s = static_cast<PicadiceState&>(*state);
      const int seat = s.player_to_act();
      absl::StatusOr<engine::Action> action = bot.Choose(s, seat, rng);
      ASSERT_TRUE(action.ok());
      DecodedAction a;
      ASSERT_TRUE(DecodeAction(*action, &a));
      std::array<int, 7> nest_before{};
      for (int c = 1; c <= 6; ++c) nest_before[c] = s.nest(c);
      const bool triple = s.phase() == Phase::kAfterRoll && s.dice()[0] == s.dice()[1] &&
                          s.dice()[1] == s.dice()[2];
      ASSERT_TRUE(s.Apply(seat, *action).ok());
      switch (static_cast<Kind>(a.kind)) {
        case Kind::kStealFromNest:
          ++nest_steals;
          break;
        case Kind::kStealBlackFromNest:
          ++black_nest_steals;
          (a.destination == 0 ? birds_discarded : birds_placed)++;
          break;
        case Kind::kCallPicaBirds:
          (a.destination == 0 ? birds_discarded : birds_placed)++;
          break;
        default:
          break;
      }
      if (a.kind != static_cast<int>(Kind::kRoll)) triples += triple ? 1 : 0;
      // A nest circle that shrank without being stolen overflowed (unless a new round began).
      if (a.kind != static_cast<int>(Kind::kRoll) && s.round() == 1 && !s.IsTerminal()) {
        for (int c = 1; c <= 6; ++c) {
          const bool stolen = (a.kind == static_cast<int>(Kind::kStealFromNest) && a.colour == c) ||
                              (a.kind == static_cast<int>(Kind::kStealBlackFromNest) && c == 6);
          if (!stolen && s.nest(c) < nest_before[c]) ++overflows;
        }
      }
    }
    wins += static_cast<PicadiceState&>(*state).end_reason() == EndReason::kGridFilled ? 1 : 0;
  }
  std::printf(
      "kind_first, 100 games: %d nest steals, %d black nest steals, %d raids placed, "
      "%d raids discarded, %d triples, %d overflows, %d grids filled\n",
      nest_steals, black_nest_steals, birds_placed, birds_discarded, triples, overflows, wins);
  EXPECT_GT(nest_steals, 0);
  EXPECT_GT(black_nest_steals, 0);
  EXPECT_GT(birds_placed, 0);
  EXPECT_GT(birds_discarded, 0);
  EXPECT_GT(triples, 0);
  EXPECT_GT(overflows, 0);
  EXPECT_GT(wins, 0);
}

}  // namespace
}  // namespace parlor::games::picadice
