// parlor-ratings-test-games: parlor-ratings with the ladders of the test-only games too (derived
// from engine::AllGamesWithTestGames). Built for the end-to-end tests only, never shipped.
#include <cstring>
#include <memory>

#include "engine/games/test_games.h"
#include "services/ratings/ratings_server.h"

int main(int argc, char** argv) {
  parlor::ratings::RatingsConfig config;
  config.games = &parlor::engine::AllGamesWithTestGames;
  std::unique_ptr<parlor::ratings::model::LadderRegistry> ladders;
  const bool migrate = argc >= 2 && std::strcmp(argv[1], "migrate") == 0;
  return parlor::RunServiceMain(
      argc, argv,
      parlor::ServiceMain{
          .identity = parlor::ratings::RatingsIdentity(),
          .add_flags =
              [&](parlor::Flags& flags) {
                if (!migrate) parlor::ratings::AddRatingsFlags(flags, &config);
              },
          .finalize_config = nullptr,
          .make_services =
              [&](parlor::ServiceHost& host) {
                ladders = std::make_unique<parlor::ratings::model::LadderRegistry>(
                    parlor::ratings::ConfiguredLadders(config));
                return parlor::ratings::InstallRatings(host, config, ladders.get());
              },
      });
}
