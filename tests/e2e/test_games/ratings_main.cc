// parlor-ratings-test-games: parlor-ratings with the ladders of the test-only games too (derived
// from engine::AllGamesWithTestGames). Built for the end-to-end tests only, never shipped.
#include "engine/games/test_games.h"
#include "services/ratings/ratings_server.h"

int main(int argc, char** argv) {
  parlor::ratings::RatingsConfig config;
  config.games = &parlor::engine::AllGamesWithTestGames;
  return parlor::ratings::RunRatingsServer(argc, argv, config);
}
