#ifndef PARLOR_ENGINE_GAMES_TEST_GAMES_H_
#define PARLOR_ENGINE_GAMES_TEST_GAMES_H_

#include "engine/core/registry.h"

namespace parlor::engine {

// AllGames() plus the test-only games (folders under engine/games/ whose CMakeLists.txt sets
// PARLOR_TEST_ONLY_GAME). Library parlor::test_games: linked only into tests and the test builds
// of the services, so no shipped program contains a test-only game.
Registry AllGamesWithTestGames();

}  // namespace parlor::engine

#endif  // PARLOR_ENGINE_GAMES_TEST_GAMES_H_
