// parlor-matchmaking-test-games: parlor-matchmaking with the test-only games registered too
// (engine::AllGamesWithTestGames). Built for the end-to-end tests only, never shipped.
#include <cstring>

#include "engine/games/test_games.h"
#include "services/matchmaking/matchmaking_server.h"

int main(int argc, char** argv) {
  parlor::matchmaking::MatchmakingConfig config;
  config.games = &parlor::engine::AllGamesWithTestGames;
  const bool migrate = argc >= 2 && std::strcmp(argv[1], "migrate") == 0;
  return parlor::RunServiceMain(
      argc, argv,
      parlor::ServiceMain{
          .identity = parlor::matchmaking::MatchmakingIdentity(),
          .add_flags =
              [&](parlor::Flags& flags) {
                if (!migrate) parlor::matchmaking::AddMatchmakingFlags(flags, &config);
              },
          .finalize_config =
              [&](parlor::ServerConfig& server) {
                if (migrate) return absl::OkStatus();
                return parlor::matchmaking::FinalizeMatchmakingConfig(config, server);
              },
          .make_services =
              [&](parlor::ServiceHost& host) {
                return parlor::matchmaking::InstallMatchmaking(host, config);
              },
      });
}
