// Ladders derived from the engine's game metadata: today's ladders exactly, and a game the
// ratings code has never heard of (the test-only Race) ranked with no edit here.
#include "services/ratings/model/game_ladders.h"

#include <map>
#include <string>

#include "engine/games/all_games.h"
#include "engine/games/test_games.h"
#include "gtest/gtest.h"

namespace parlor::ratings::model {
namespace {

std::map<std::string, const LadderSpec*> ByName(const LadderRegistry& registry) {
  std::map<std::string, const LadderSpec*> out;
  for (const LadderSpec& l : registry.ladders()) out[l.name] = &l;
  return out;
}

std::string LadderFor(const LadderRegistry& registry, const GameShape& shape) {
  absl::StatusOr<const LadderSpec*> l = registry.ForGame(shape);
  return l.ok() ? (*l)->name : std::string(absl::StatusCodeToString(l.status().code()));
}

TEST(GameLadders, TheShippedGamesGetExactlyTodaysLadders) {
  const LadderRegistry derived = LaddersForGames(engine::AllGames());
  const std::map<std::string, const LadderSpec*> want = ByName(LadderRegistry::Default());
  const std::map<std::string, const LadderSpec*> got = ByName(derived);
  ASSERT_EQ(got.size(), want.size());
  ASSERT_EQ(got.size(), 7u);
  for (const auto& [name, w] : want) {
    ASSERT_TRUE(got.contains(name)) << name;
    const LadderSpec& g = *got.at(name);
    EXPECT_EQ(g.game, w->game) << name;
    EXPECT_EQ(g.model, w->model) << name;
    EXPECT_EQ(g.min_seats, w->min_seats) << name;
    EXPECT_EQ(g.max_seats, w->max_seats) << name;
    EXPECT_EQ(g.teams, w->teams) << name;
    EXPECT_EQ(g.provisional.max_deviation, w->provisional.max_deviation) << name;
    EXPECT_EQ(g.provisional.min_games, w->provisional.min_games) << name;
    EXPECT_EQ(g.weng_lin.tau, w->weng_lin.tau) << name;
  }
}

TEST(GameLadders, AGameOfTwoToThreePlayersGetsOneWengLinLadderNamedAfterIt) {
  // Race is registered only for tests; nothing in ratings names it.
  const LadderRegistry derived = LaddersForGames(engine::AllGamesWithTestGames());
  absl::StatusOr<const LadderSpec*> race = derived.Find("race");
  ASSERT_TRUE(race.ok()) << race.status();
  EXPECT_EQ((*race)->model, ModelKind::kWengLin);
  EXPECT_EQ((*race)->min_seats, 2);
  EXPECT_EQ((*race)->max_seats, 3);
  EXPECT_FALSE((*race)->teams);
  EXPECT_EQ(LadderFor(derived, {"race", 2, {}}), "race");
  EXPECT_EQ(LadderFor(derived, {"race", 3, {}}), "race");
  EXPECT_EQ(LadderFor(derived, {"race", 4, {}}), "INVALID_ARGUMENT");
  EXPECT_EQ(derived.ladders().size(), 8u);
}

TEST(GameLadders, TwoPlayerGamesAreGlicko2AndTeamGamesAlsoGetATeamsLadder) {
  const LadderRegistry derived = LadderRegistry::Derive(
      {{.game = "duel", .min_players = 2, .max_players = 2},
       {.game = "crew", .min_players = 2, .max_players = 6, .has_teams = true}},
      /*overrides=*/{});
  EXPECT_EQ((*derived.Find("duel"))->model, ModelKind::kGlicko2);
  EXPECT_EQ(LadderFor(derived, {"duel", 2, {}}), "duel");
  EXPECT_EQ(LadderFor(derived, {"crew", 5, {}}), "crew");
  EXPECT_EQ(LadderFor(derived, {"crew", 4, {0, 1, 0, 1}}), "crew-teams");
  EXPECT_EQ((*derived.Find("crew-teams"))->model, ModelKind::kWengLin);
}

TEST(GameLadders, AnOverrideReplacesTheDerivedLaddersOfItsGame) {
  const LadderRegistry derived = LaddersForGames(engine::AllGames());
  EXPECT_EQ(derived.Find("picadice").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(derived.Find("picadice-teams").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(LadderFor(derived, {"picadice", 2, {}}), "picadice-duel");
  EXPECT_EQ(LadderFor(derived, {"picadice", 4, {0, 1, 0, 1}}), "picadice-doubles");
}

}  // namespace
}  // namespace parlor::ratings::model
