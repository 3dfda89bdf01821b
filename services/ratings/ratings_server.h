#ifndef PARLOR_SERVICES_RATINGS_RATINGS_SERVER_H_
#define PARLOR_SERVICES_RATINGS_RATINGS_SERVER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "engine/core/registry.h"
#include "engine/games/all_games.h"
#include "services/common/core/flags.h"
#include "services/common/deletions/account_deletions.h"
#include "services/common/server.h"
#include "services/ratings/domain/ratings_service.h"

namespace parlor::ratings {

// Settings of the ratings service beyond the shared ServerConfig.
struct RatingsConfig {
  // Keys the MAC of page tokens; every replica must use the same. Empty: a random one (fine for a
  // single replica; tokens then do not survive a restart).
  std::string page_token_secret;
  RatingsService::Options options;
  // Soft reset at a new season, in percent (see model::SeasonReset).
  int season_reset_pull_percent = 20;
  int season_reset_deviation_boost_percent = 25;
  // Rating periods per 100 days of inactivity (deviation growth; see model::Glicko2Params).
  int idle_periods_per_100_days = 20;
  // Days without a rated game after which a player leaves a board (model::LadderSpec).
  int inactive_days = 30;
  // Run the leaderboard refresher (off in tests that refresh by hand).
  bool refresh_boards = true;
  AccountDeletionSettings deletions;  // where deleted accounts are learnt
  // The games whose ladders are rated (derived from their metadata, model/game_ladders.h). Test
  // builds of the service pass engine::AllGamesWithTestGames.
  engine::Registry (*games)() = &engine::AllGames;
};

ServiceHost::Identity RatingsIdentity();
void AddRatingsFlags(Flags& flags, RatingsConfig* config);

// The service part of parlor-ratings' main(): `serve` (the default) or `migrate`, flags from the
// command line and the environment, over `config` (the end-to-end tests' build passes the
// test-only games too).
int RunRatingsServer(int argc, char** argv, RatingsConfig config);
// The ladders of config.games, with the configured season reset and idle growth.
model::LadderRegistry ConfiguredLadders(const RatingsConfig& config);

// Builds store, domain and gRPC services on `host` and registers them. The returned holder keeps
// them alive. `ladders` must outlive it.
absl::StatusOr<std::shared_ptr<void>> InstallRatings(
    ServiceHost& host, const RatingsConfig& config, const model::LadderRegistry* ladders,
    RatingsService::Clock clock = [] { return absl::Now(); },
    RatingsService** domain_out = nullptr);

}  // namespace parlor::ratings

#endif  // PARLOR_SERVICES_RATINGS_RATINGS_SERVER_H_
