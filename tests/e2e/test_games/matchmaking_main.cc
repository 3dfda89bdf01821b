// parlor-matchmaking-test-games: parlor-matchmaking with the test-only games registered too
// (engine::AllGamesWithTestGames). Built for the end-to-end tests only, never shipped.
#include "engine/games/test_games.h"
#include "services/matchmaking/matchmaking_server.h"

int main(int argc, char** argv) {
  parlor::matchmaking::MatchmakingConfig config;
  config.games = &parlor::engine::AllGamesWithTestGames;
  return parlor::matchmaking::RunMatchmakingServer(argc, argv, config);
}
