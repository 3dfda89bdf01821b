// parlor-sessions: games in progress — create, move, watch, deadlines.
//
//   parlor-sessions [serve] --db_url=... --access_token_public_key=...
//       --service_token_public_key=... --page_token_secret=...     run the service
//   parlor-sessions migrate --db_url=...                             apply migrations, exit
//
// Every flag can also come from the environment (PARLOR_<FLAG>); see --help.
#include <cstring>

#include "services/sessions/sessions_server.h"

int main(int argc, char** argv) {
  parlor::sessions::SessionsConfig config;
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
