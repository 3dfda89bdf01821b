// parlor-matchmaking: queue tickets, parties and challenges; creates games through sessions.
//
//   parlor-matchmaking [serve] --db_url=... --access_token_public_key=...
//                      --service_token_private_key=... --accounts_address=...
//                      --sessions_address=... [--ratings_address=...]
//   parlor-matchmaking migrate --db_url=...        apply migrations, exit
//
// Every flag can also come from the environment (PARLOR_<FLAG>); see --help.
#include "services/matchmaking/matchmaking_server.h"

int main(int argc, char** argv) {
  return parlor::matchmaking::RunMatchmakingServer(argc, argv, {});
}
