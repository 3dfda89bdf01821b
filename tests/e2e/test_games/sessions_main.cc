// parlor-sessions-test-games: parlor-sessions with the test-only games registered too
// (engine::AllGamesWithTestGames). Built for the end-to-end tests only, never shipped.
#include <cstring>

#include "engine/games/test_games.h"
#include "services/sessions/sessions_server.h"

int main(int argc, char** argv) {
  parlor::sessions::SessionsConfig config;
  config.games = &parlor::engine::AllGamesWithTestGames;
  const bool migrate = argc >= 2 && std::strcmp(argv[1], "migrate") == 0;
  return parlor::RunServiceMain(argc, argv,
                                parlor::ServiceMain{
                                    .identity = parlor::sessions::SessionsIdentity(),
                                    .add_flags =
                                        [&](parlor::Flags& flags) {
                                          if (!migrate)
                                            parlor::sessions::AddSessionsFlags(flags, &config);
                                        },
                                    .finalize_config = nullptr,
                                    .make_services =
                                        [&](parlor::ServiceHost& host) {
                                          return parlor::sessions::InstallSessions(host, config);
                                        },
                                });
}
