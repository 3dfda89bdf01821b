// parlor-sessions: games in progress — create, move, watch, deadlines.
//
//   parlor-sessions [serve] --db_url=... --access_token_public_key=...
//       --service_token_public_key=... --page_token_secret=...     run the service
//   parlor-sessions migrate --db_url=...                             apply migrations, exit
//
// Every flag can also come from the environment (PARLOR_<FLAG>); see --help.
#include "services/sessions/sessions_server.h"

int main(int argc, char** argv) { return parlor::sessions::RunSessionsServer(argc, argv, {}); }
