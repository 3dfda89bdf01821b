#include "services/ratings/model/game_ladders.h"

namespace parlor::ratings::model {

std::vector<GameFacts> FactsOf(const engine::Registry& games) {
  std::vector<GameFacts> out;
  for (const engine::Game* game : games.games()) {
    const engine::GameInfo& info = game->info();
    out.push_back({.game = info.name,
                   .min_players = info.min_players,
                   .max_players = info.max_players,
                   .has_teams = info.has_teams});
  }
  return out;
}

LadderRegistry LaddersForGames(const engine::Registry& games) {
  return LadderRegistry::Derive(FactsOf(games));
}

}  // namespace parlor::ratings::model
