#ifndef PARLOR_SERVICES_SESSIONS_SESSIONS_SERVER_H_
#define PARLOR_SERVICES_SESSIONS_SESSIONS_SERVER_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "engine/core/registry.h"
#include "engine/games/all_games.h"
#include "services/common/server.h"
#include "services/sessions/api/stream_guard.h"

namespace parlor::sessions {

// Settings only sessions has.
struct SessionsConfig {
  // Keys ListMyGames page tokens; the same on every replica.
  std::string page_token_secret;
  // How often this replica's sweeper looks for due deadlines and reminders (0 = never).
  absl::Duration sweep_interval = absl::Seconds(10);
  // How often the games / outbox gauges are refreshed.
  absl::Duration gauge_interval = absl::Seconds(15);
  // SubmitAction idempotency keys older than this are deleted by the sweeper (a retry within it
  // gets the first answer).
  absl::Duration idempotency_key_retention = absl::Hours(7 * 24);
  // The bot that moves for a timed-out player in casual games.
  std::string timeout_bot = "greedy";
  int casual_forfeit_after_timeouts = 3;
  int vacation_days_per_year = 30;
  // How often this replica drains the notification and result outboxes (0 = never).
  absl::Duration dispatch_interval = absl::Seconds(1);
  // Push gateway: empty = log each notification; otherwise the webhook URL to POST to.
  std::string push_webhook_url;
  // ratings service (host:port) for ReportResult; empty = results stay held in the outbox.
  std::string ratings_address;
  // notifications host:port; set: notifications go to its AcceptEvents (not the webhook).
  std::string notifications_address;
  // Ed25519 private key (base64) signing this service's credential for ReportResult.
  std::string service_token_private_key;
  // Group commit of SubmitAction (GroupCommitter): committer threads (0 = every move its own
  // transaction) and the most moves in one transaction.
  int group_commit_threads = 2;
  int group_commit_max_batch = 64;
  // Sessions::Options::snapshot_with_log: the whole log in each snapshot (a rollout from a
  // version that needs it).
  bool snapshot_with_log = false;
  // Automatic play per request (Sessions::Options::auto_moves_per_request / auto_play_budget).
  int auto_moves_per_request = 100;
  absl::Duration auto_play_budget = absl::Milliseconds(250);
  // CreateBotGame's per-account quotas (0 = no limit).
  int max_active_games = 100;
  int max_bot_games_per_hour = 60;
  int max_actions_per_day = 100000;
  // WatchGame / WatchMyGames: the threads that read for them (their own pool) and their limits.
  int stream_threads = 2;
  StreamLimits streams;
  // accounts service (host:port) polled for signed-out sessions, whose streams then end; empty =
  // streams end only when their token expires.
  std::string accounts_address;
  absl::Duration revocation_poll_interval = absl::Milliseconds(500);
  // Table talk: a rematch offer's lifetime and the shortest time between two nudges of a game
  // (Sessions::Options).
  absl::Duration rematch_offer_ttl = absl::Hours(72);
  absl::Duration nudge_period = absl::Hours(24);
  // The games this service runs. Test builds of the service pass
  // engine::AllGamesWithTestGames.
  engine::Registry (*games)() = &engine::AllGames;
};

ServiceHost::Identity SessionsIdentity();
void AddSessionsFlags(Flags& flags, SessionsConfig* config);

// What InstallSessions built, for tests and tools that drive it directly.
struct SessionsHandles;

// Builds store → domain → API on `host`, starts the replica's LISTEN connection, the sweeper and
// the gauge refresher, and registers the gRPC services. The returned holder keeps everything
// alive (and stops the background threads when destroyed); destroy it after the host shut down.
absl::StatusOr<std::shared_ptr<void>> InstallSessions(
    ServiceHost& host, const SessionsConfig& config,
    std::function<absl::Time()> clock = [] { return absl::Now(); });

// The whole of parlor-sessions' main(): `serve` (the default) or `migrate`, flags from the command
// line and the environment, over `config` (the shipped binary passes the defaults; the end-to-end
// tests' build passes the test-only games too).
int RunSessionsServer(int argc, char** argv, SessionsConfig config);

// Runs one sweep now on an installed service (tests with an injected clock).
absl::StatusOr<int> SweepNow(const std::shared_ptr<void>& installed);

}  // namespace parlor::sessions

#endif  // PARLOR_SERVICES_SESSIONS_SESSIONS_SERVER_H_
