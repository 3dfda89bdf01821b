#ifndef PARLOR_SERVICES_RATINGS_MODEL_GAME_LADDERS_H_
#define PARLOR_SERVICES_RATINGS_MODEL_GAME_LADDERS_H_

#include <vector>

#include "engine/core/registry.h"
#include "services/ratings/model/ladder.h"

namespace parlor::ratings::model {

// The facts each ladder derives from (player counts, teams), read from the engine's games.
std::vector<GameFacts> FactsOf(const engine::Registry& games);

// The ladders of every game in `games`: Parlor's overrides where there is one, derived from the
// game's metadata otherwise (ladder.h). A game added to the engine is ranked with no other edit.
LadderRegistry LaddersForGames(const engine::Registry& games);

}  // namespace parlor::ratings::model

#endif  // PARLOR_SERVICES_RATINGS_MODEL_GAME_LADDERS_H_
