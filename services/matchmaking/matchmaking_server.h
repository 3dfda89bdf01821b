#ifndef PARLOR_SERVICES_MATCHMAKING_MATCHMAKING_SERVER_H_
#define PARLOR_SERVICES_MATCHMAKING_MATCHMAKING_SERVER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "engine/core/registry.h"
#include "engine/games/all_games.h"
#include "services/common/server.h"
#include "services/matchmaking/domain/matchmaking_service.h"

namespace parlor::matchmaking {

// Settings only matchmaking has.
struct MatchmakingConfig {
  // Ed25519 private key (base64 seed) of the internal service credential sent to accounts and
  // sessions.
  std::string service_token_private_key;
  std::string accounts_address = "accounts:8080";
  std::string sessions_address = "sessions:8080";
  // Empty: every ranked player gets the ladder default rating (logged once at start).
  std::string ratings_address;
  // How often this replica runs the matcher pass and the game-creation outbox (0 = never).
  absl::Duration matcher_interval = absl::Seconds(1);
  absl::Duration watch_poll_interval = absl::Seconds(1);
  // How often this replica deletes final tickets and challenges older than
  // options.history_retention (0 = never).
  absl::Duration prune_interval = absl::Minutes(1);
  // notifications gRPC host:port: match found and challenges are handed over from the
  // notification outbox every `notifications_interval`. Empty: the outbox only fills.
  std::string notifications_address;
  absl::Duration notifications_interval = absl::Seconds(1);
  // Rating window, in whole rating points (flags); copied into options.matcher.
  int initial_window = 100;
  int widen_per_minute = 50;
  MatchmakingOptions options;
  // The games offered (and their ladders). Test builds of the service pass
  // engine::AllGamesWithTestGames.
  engine::Registry (*games)() = &engine::AllGames;
};

ServiceHost::Identity MatchmakingIdentity();
void AddMatchmakingFlags(Flags& flags, MatchmakingConfig* config);

// The whole of parlor-matchmaking's main(): `serve` (the default) or `migrate`, flags from the
// command line and the environment, over `config` (the end-to-end tests' build passes the
// test-only games too).
int RunMatchmakingServer(int argc, char** argv, MatchmakingConfig config);
absl::Status FinalizeMatchmakingConfig(MatchmakingConfig& config, ServerConfig& server);

// Builds store → domain → API on `host`, registers the gRPC service and starts the background
// loop (matcher pass + game delivery). The holder keeps everything alive; destroy it after the
// host has shut down.
absl::StatusOr<std::shared_ptr<void>> InstallMatchmaking(
    ServiceHost& host, const MatchmakingConfig& config,
    MatchmakingService::Clock clock = [] { return absl::Now(); },
    MatchmakingService** service_out = nullptr);

}  // namespace parlor::matchmaking

#endif  // PARLOR_SERVICES_MATCHMAKING_MATCHMAKING_SERVER_H_
