#ifndef PARLOR_ENGINE_GAMES_ALL_GAMES_H_
#define PARLOR_ENGINE_GAMES_ALL_GAMES_H_

#include "engine/core/registry.h"

namespace parlor::engine {

// A registry holding every game built into this program (every folder under engine/games/).
Registry AllGames();

}  // namespace parlor::engine

#endif  // PARLOR_ENGINE_GAMES_ALL_GAMES_H_
