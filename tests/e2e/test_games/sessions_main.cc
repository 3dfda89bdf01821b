// parlor-sessions-test-games: parlor-sessions with the test-only games registered too
// (engine::AllGamesWithTestGames). Built for the end-to-end tests only, never shipped.
#include "engine/games/test_games.h"
#include "services/sessions/sessions_server.h"

int main(int argc, char** argv) {
  parlor::sessions::SessionsConfig config;
  config.games = &parlor::engine::AllGamesWithTestGames;
  return parlor::sessions::RunSessionsServer(argc, argv, config);
}
