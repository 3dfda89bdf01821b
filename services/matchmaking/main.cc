// parlor-matchmaking: queue tickets, parties and challenges; creates games through sessions.
//
//   parlor-matchmaking [serve] --db_url=... --access_token_public_key=...
//                      --service_token_private_key=... --accounts_address=...
//                      --sessions_address=... [--ratings_address=...]
//   parlor-matchmaking migrate --db_url=...        apply migrations, exit
//
// Every flag can also come from the environment (PARLOR_<FLAG>); see --help.
#include <cstring>

#include "services/matchmaking/matchmaking_server.h"

int main(int argc, char** argv) {
  parlor::matchmaking::MatchmakingConfig config;
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
