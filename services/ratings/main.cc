// parlor-ratings: Glicko-2 and Weng-Lin ladders, leaderboards and seasons.
//
//   parlor-ratings [serve] --db_url=... --access_token_public_key=...
//   --service_token_public_key=... parlor-ratings migrate --db_url=...   apply the migrations of
//   schema `ratings` and exit
//
// Every flag can also come from the environment (PARLOR_<FLAG>); see --help.
#include <cstring>
#include <memory>

#include "services/ratings/ratings_server.h"

int main(int argc, char** argv) {
  parlor::ratings::RatingsConfig config;
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
