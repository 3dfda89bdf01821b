#include "services/sessions/sessions_server.h"

#include <atomic>
#include <cstring>
#include <functional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "engine/games/all_games.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "services/common/core/crypto.h"
#include "services/common/core/periodic_loop.h"
#include "services/common/deletions/account_deletions.h"
#include "services/sessions/api/block_checker.h"
#include "services/sessions/api/revocation_poller.h"
#include "services/sessions/api/sessions_api.h"
#include "services/sessions/api/stream_guard.h"
#include "services/sessions/api/watch_hub.h"
#include "services/sessions/domain/account_deletions.h"
#include "services/sessions/domain/sessions.h"
#include "services/sessions/outbox/dispatcher.h"
#include "services/sessions/outbox/notifications_adapter.h"
#include "services/sessions/outbox/ratings_reporter.h"
#include "services/sessions/store/change_listener.h"
#include "services/sessions/store/store.h"
#include "spdlog/spdlog.h"

namespace parlor::sessions {
namespace {

// The games and outbox gauges, and the store's counts of game reads, from the store at `now`.
void RefreshGauges(SessionsMetrics& metrics, GameStore& store, OutboxStore& outbox,
                   const engine::Registry& games, absl::Time now) {
  absl::StatusOr<std::map<std::string, int64_t>> counts = store.CountGamesInProgress();
  if (counts.ok()) {
    for (const engine::Game* game : games.games()) {
      auto it = counts->find(game->name());
      metrics.SetGames(game->name(), "active", it == counts->end() ? 0 : it->second);
    }
  }
  const PgSessionsStore::GameReads reads = store.game_reads();
  metrics.SetGameReads(reads.stamp_matched, reads.stamp_missed, reads.whole, reads.locked_held,
                       reads.locked_whole, reads.unlocked_written, reads.unlocked_retried);
  absl::StatusOr<OutboxStore::Health> health = outbox.GetHealth();
  if (health.ok()) {
    for (const auto& [kind, backlog] :
         {std::pair{"notification", health->notifications}, std::pair{"result", health->results}}) {
      metrics.SetOutbox(kind, backlog.pending, now - backlog.oldest);
    }
  }
}

}  // namespace

struct SessionsHandles {
  std::atomic<SessionsMetrics*> batch_metrics{nullptr};
  std::unique_ptr<engine::Registry> games;
  std::unique_ptr<GameStore> store;
  std::unique_ptr<PgTableStore> table;
  std::unique_ptr<BlockChecker> blocks;
  std::unique_ptr<GroupCommitter> committer;
  std::unique_ptr<OutboxStore> outbox;
  std::unique_ptr<Sessions> domain;
  std::unique_ptr<Authenticator> authenticator;
  std::unique_ptr<WatchHub> hub;
  std::unique_ptr<StreamGuard> guard;
  std::unique_ptr<ThreadPool> stream_pool;
  std::unique_ptr<RevocationPoller> revocations;
  std::unique_ptr<SessionsApi> api;
  std::unique_ptr<SessionsInternalApi> internal_api;
  std::unique_ptr<PushAdapter> push;
  std::unique_ptr<ResultReporter> reporter;
  std::unique_ptr<OutboxDispatcher> dispatcher;
  std::unique_ptr<PeriodicLoop> sweeper;
  std::unique_ptr<PeriodicLoop> gauges;
  std::unique_ptr<DispatchLoop> dispatch;
  std::unique_ptr<AccountErasureStore> erasure;
  std::unique_ptr<SessionsDeletionSink> deletion_sink;
  std::unique_ptr<AccountDeletionFollower> deletions;

  ~SessionsHandles() {
    // Background work first, then the listener, then what they use.
    deletions.reset();
    if (domain) domain->OnAutoPlayDue(nullptr);
    sweeper.reset();
    gauges.reset();
    dispatch.reset();
    if (revocations) revocations->Stop();
    if (guard) guard->Stop();
    if (stream_pool) stream_pool->Shutdown();
    if (hub) hub->Stop();
  }
};

ServiceHost::Identity SessionsIdentity() {
  return {.name = "sessions", .version = PARLOR_VERSION, .schema = "sessions"};
}

namespace {

// The sweeper, clocks and the play loop: deadlines, timeouts, vacations, rematches, nudges.
void AddClockFlags(Flags& flags, SessionsConfig* config) {
  flags.Duration("sweep_interval", &config->sweep_interval,
                 "how often the deadline sweeper runs (0s = never on this replica)",
                 absl::ZeroDuration(), absl::Hours(1));
  flags.Duration("idempotency_key_retention", &config->idempotency_key_retention,
                 "how long SubmitAction idempotency keys are kept (the sweeper deletes older "
                 "ones in batches); a retry within it gets the first answer",
                 absl::Hours(1), absl::Hours(365 * 24));
  flags.String("timeout_bot", &config->timeout_bot,
               "bot that moves for a timed-out player in casual games");
  flags.Int("casual_forfeit_after_timeouts", &config->casual_forfeit_after_timeouts,
            "a casual game's seat forfeits at this many timeouts in a row (0 = never)",
            {.min = 0, .max = 100});
  flags.Int("vacation_days_per_year", &config->vacation_days_per_year,
            "most vacation days a player may start in any 365 days (rolling)",
            {.min = 0, .max = 365});
  flags.Duration("rematch_offer_ttl", &config->rematch_offer_ttl,
                 "how long a rematch offer of a finished game stays open", absl::Minutes(1),
                 absl::Hours(30 * 24));
  flags.Duration("nudge_period", &config->nudge_period,
                 "the shortest time between two nudges of one game", absl::Minutes(1),
                 absl::Hours(30 * 24));
}

// The other services and the outbox: where pushes and results go, the credential for them, page
// tokens and gauges.
void AddPeerFlags(Flags& flags, SessionsConfig* config) {
  flags.Secret("page_token_secret", &config->page_token_secret,
               "secret keying ListMyGames page tokens (the same on every replica); derived from "
               "--service_token_private_key when empty");
  flags.Duration("gauge_interval", &config->gauge_interval,
                 "how often the games and outbox gauges are refreshed", absl::Seconds(1),
                 absl::Hours(1));
  flags.Duration("dispatch_interval", &config->dispatch_interval,
                 "longest wait between drains of the notification and result outboxes; every "
                 "state change also wakes the dispatcher (LISTEN) (0s = never drain here)",
                 absl::ZeroDuration(), absl::Hours(1));
  // Secret: push gateways often take their API key in the URL.
  flags.Secret("push_webhook_url", &config->push_webhook_url,
               "push gateway URL for notifications (JSON POST); empty logs them instead");
  flags.String("notifications_address", &config->notifications_address,
               "notifications service host:port: the outbox hands notifications to its "
               "AcceptEvents (needs --service_token_private_key; takes precedence over "
               "--push_webhook_url)");
  flags.String("ratings_address", &config->ratings_address,
               "ratings service host:port for ReportResult; empty holds results in the outbox");
  flags.Secret("service_token_private_key", &config->service_token_private_key,
               "Ed25519 private key (base64) signing this service's credential for the services "
               "it calls (ratings, notifications, accounts)");
  flags.String("accounts_address", &config->accounts_address,
               "accounts service host:port, polled for signed-out sessions (their watch streams "
               "end) and deleted accounts (their games resigned, seats renamed); needs "
               "--service_token_private_key; empty = streams end only when their token expires "
               "and deleted players' data stays");
  flags.Duration("revocation_poll_interval", &config->revocation_poll_interval,
                 "how often accounts is asked which sessions were signed out",
                 absl::Milliseconds(50), absl::Minutes(1));
}

// Throughput and abuse limits: group commit, the computer's moves per request, games against the
// computer.
void AddLimitFlags(Flags& flags, SessionsConfig* config) {
  flags.Int("group_commit_threads", &config->group_commit_threads,
            "SubmitAction group commit: transactions committing moves at once, each holding a "
            "database connection (0 = every move its own transaction)",
            {.min = 0, .max = 64});
  flags.Int("group_commit_max_batch", &config->group_commit_max_batch,
            "SubmitAction group commit: most moves in one transaction", {.min = 1, .max = 1000});
  flags.Bool("snapshot_with_log", &config->snapshot_with_log,
             "store each game's whole log in its snapshot, as servers before the snapshot "
             "without the log did and need: set it while replicas of such a version still run "
             "(by default the snapshot holds the setup only and the log lives in the log rows)");
  flags.Int("auto_moves_per_request", &config->auto_moves_per_request,
            "most computer moves one request (or one sweep of a game) plays; the sweeper plays "
            "the rest in the background",
            {.min = 1, .max = 100000});
  flags.Duration("auto_play_budget", &config->auto_play_budget,
                 "most time one request (or one sweep of a game) spends on computer moves (at "
                 "least one move is played)",
                 absl::Milliseconds(1), absl::Seconds(10));
  flags.Int("max_active_games", &config->max_active_games,
            "CreateBotGame: most games in progress per account (0 = no limit)",
            {.min = 0, .max = 1000000});
  flags.Int("max_bot_games_per_hour", &config->max_bot_games_per_hour,
            "CreateBotGame: most games against the computer one account starts per hour (0 = no "
            "limit)",
            {.min = 0, .max = 1000000});
  flags.Int("max_actions_per_day", &config->max_actions_per_day,
            "CreateBotGame: refused while the account's games created in the last 24 hours hold "
            "this many moves (0 = no limit)",
            {.min = 0, .max = 1000000000});
}

// Watch streams: their threads, per-replica and per-player bounds, catch-up budgets.
void AddStreamFlags(Flags& flags, SessionsConfig* config) {
  flags.Int("stream_threads", &config->stream_threads,
            "threads reading for WatchGame / WatchMyGames (their own pool, apart from the unary "
            "workers)",
            {.min = 1, .max = 64});
  flags.Int("watch_max_streams", &config->streams.max_streams,
            "most open watch streams on this replica (more are refused RESOURCE_EXHAUSTED)",
            {.min = 1, .max = 1000000});
  flags.Int("watch_max_streams_per_account", &config->streams.max_streams_per_account,
            "most open watch streams of one player on this replica", {.min = 1, .max = 10000});
  flags.Int("watch_opens_per_minute", &config->streams.opens_per_account.per_minute,
            "watch streams one player may open per minute on this replica (0 = no limit)",
            {.min = 0, .max = 1000000});
  flags.Int("watch_opens_burst", &config->streams.opens_per_account.burst,
            "watch stream opens one player may make at once before the per-minute rate applies",
            {.min = 0, .max = 1000000});
  flags.Int("watch_max_catching_up", &config->streams.max_catching_up,
            "most WatchGame streams of this replica catching up on history at once",
            {.min = 1, .max = 100000});
  flags.Int("watch_page_size", &config->streams.page_size,
            "events one stream read sends at most (and so the most a stream holds unsent)",
            {.min = 1, .max = 1000});
  flags.Int("watch_catch_up_events_per_second", &config->streams.catch_up_events_per_second,
            "history events (WatchGame catch-up) this replica's streams send per second in all; "
            "a stream over it waits for its next page, it is not refused (0 = no limit)",
            {.min = 0, .max = 10000000});
  flags.Int("watch_catch_up_events_per_second_per_account",
            &config->streams.catch_up_events_per_second_per_account,
            "history events one player's streams on this replica are sent per second (0 = no "
            "limit)",
            {.min = 0, .max = 10000000});
  flags.Int("stream_thread_nice", &config->streams.thread_nice,
            "nice value of the threads reading for watch streams, so that their catch-up work "
            "yields the CPU to the unary calls (0 = as the rest of the server)",
            {.min = 0, .max = 19});
  flags.Duration("watch_stall_timeout", &config->streams.stall_timeout,
                 "a watch stream whose client takes no message for this long ends (ABORTED, "
                 "naming the version to resume from)",
                 absl::Seconds(1), absl::Hours(1));
}

}  // namespace

void AddSessionsFlags(Flags& flags, SessionsConfig* config) {
  AddClockFlags(flags, config);
  AddPeerFlags(flags, config);
  AddLimitFlags(flags, config);
  AddStreamFlags(flags, config);
}

namespace {

// A signer of service credentials for calls to the peer named by `flag` (its address flag).
absl::StatusOr<auth::TokenSigner> PeerSigner(const SessionsConfig& config, absl::string_view flag) {
  absl::StatusOr<auth::TokenSigner> signer =
      auth::TokenSigner::Create(auth::TokenKind::kService, config.service_token_private_key);
  if (!signer.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--", flag, " needs --service_token_private_key: ", signer.status().message()));
  }
  return signer;
}

// The configured secret; else one derived from the service key, so every replica accepts the
// others' page tokens; else a random one, valid on this replica only.
std::string PageTokenSecret(const SessionsConfig& config) {
  if (!config.page_token_secret.empty()) return config.page_token_secret;
  if (!config.service_token_private_key.empty()) {
    return Sha256Hex(absl::StrCat("page-token:", config.service_token_private_key));
  }
  spdlog::warn("no --page_token_secret: page tokens work on this replica only");
  return RandomToken(32);
}

// The domain's options from the flags, and what they point to (the group committer, the table
// store, the block checks), built into `h`.
absl::StatusOr<Sessions::Options> DomainOptions(ServiceHost& host, const SessionsConfig& config,
                                                SessionsHandles& h) {
  Sessions::Options options;
  options.page_token_secret = PageTokenSecret(config);
  options.timeout_bot = config.timeout_bot;
  options.casual_forfeit_after_timeouts = config.casual_forfeit_after_timeouts;
  options.vacation_days_per_year = config.vacation_days_per_year;
  options.auto_moves_per_request = config.auto_moves_per_request;
  options.auto_play_budget = config.auto_play_budget;
  options.max_active_games = config.max_active_games;
  options.max_bot_games_per_hour = config.max_bot_games_per_hour;
  options.max_actions_per_day = config.max_actions_per_day;
  options.idempotency_key_retention = config.idempotency_key_retention;
  options.rematch_offer_ttl = config.rematch_offer_ttl;
  options.nudge_period = config.nudge_period;
  options.snapshot_with_log = config.snapshot_with_log;
  if (config.group_commit_threads > 0) {
    // Set once the domain (which owns the metrics) exists; the committer commits nothing before.
    std::atomic<SessionsMetrics*>* batch_metrics = &h.batch_metrics;
    h.committer = std::make_unique<GroupCommitter>(
        h.store.get(), GroupCommitter::Options{.threads = config.group_commit_threads,
                                               .max_batch = config.group_commit_max_batch,
                                               .on_batch = [batch_metrics](size_t n) {
                                                 SessionsMetrics* m = batch_metrics->load();
                                                 if (m != nullptr) m->GroupCommitted(n);
                                               }});
    options.group_committer = h.committer.get();
  }
  h.table = std::make_unique<PgTableStore>(&host.db());
  options.table_store = h.table.get();
  if (config.accounts_address.empty()) {
    spdlog::warn("no --accounts_address: chat cannot honour blocks");
    return options;
  }
  // Chat hides a blocked sender's messages from the blocker (accounts' CheckBlocks); public game
  // lists leave out games of players the caller blocked or was blocked by.
  absl::StatusOr<auth::TokenSigner> signer = PeerSigner(config, "accounts_address");
  if (!signer.ok()) return signer.status();
  h.blocks = std::make_unique<BlockChecker>(host.InternalChannel(config.accounts_address),
                                            *std::move(signer));
  BlockChecker* blocks = h.blocks.get();
  options.check_blocks = [blocks](const std::vector<std::string>& ids) {
    return blocks->Check(ids);
  };
  options.blocked_either_way = [blocks](const std::string& id) { return blocks->EitherWay(id); };
  return options;
}

// What the watch streams need: token checks, the replica's LISTEN hub, the stream bounds, the
// sign-out poller (which ends a signed-out session's streams) and the stream threads.
absl::StatusOr<StreamDeps> StartStreams(ServiceHost& host, const SessionsConfig& config,
                                        SessionsHandles& h) {
  std::optional<auth::TokenVerifier> access;
  if (!host.config().access_token_public_key.empty()) {
    absl::StatusOr<auth::TokenVerifier> verifier = auth::TokenVerifier::Create(
        auth::TokenKind::kAccess, host.config().access_token_public_key);
    if (!verifier.ok()) return verifier.status();
    access = *std::move(verifier);
  }
  h.authenticator = std::make_unique<Authenticator>(std::move(access), std::nullopt);
  // LISTEN: a direct connection, not via a pooler.
  h.hub = std::make_unique<WatchHub>(
      std::make_unique<PgChangeFeed>(host.db().session_url(), "parlor-sessions-watch-feed"),
      &h.domain->metrics());
  h.hub->Start();
  h.guard = std::make_unique<StreamGuard>(
      config.streams, [] { return absl::Now(); }, &h.domain->metrics());
  h.guard->Start();
  if (!config.accounts_address.empty()) {
    absl::StatusOr<auth::TokenSigner> signer = PeerSigner(config, "accounts_address");
    if (!signer.ok()) return signer.status();
    h.revocations = std::make_unique<RevocationPoller>(
        host.InternalChannel(config.accounts_address), *std::move(signer), h.guard.get(),
        [] { return absl::Now(); },
        RevocationPoller::Options{.interval = config.revocation_poll_interval});
    h.revocations->Start();
  } else {
    spdlog::warn(
        "no --accounts_address: watch streams of a signed-out session end only when "
        "their access token expires");
  }
  // Each stream has at most one read queued, so the queue never refuses below the stream cap.
  h.stream_pool = std::make_unique<ThreadPool>(
      "streams", config.stream_threads, static_cast<size_t>(config.streams.max_streams) + 16);
  return StreamDeps{.sessions = h.domain.get(),
                    .hub = h.hub.get(),
                    .workers = h.stream_pool.get(),
                    .guard = h.guard.get(),
                    .authenticator = h.authenticator.get(),
                    .clock = [] { return absl::Now(); }};
}

// The background loops: the sweeper (timeouts, the computer's turns, expired idempotency keys)
// and the gauge refresher.
void StartLoops(const SessionsConfig& config, SessionsHandles& h,
                const std::function<absl::Time()>& clock) {
  Sessions* domain = h.domain.get();
  h.sweeper = std::make_unique<PeriodicLoop>("sweeper", config.sweep_interval, [domain] {
    absl::StatusOr<int> swept = domain->Sweep();
    if (!swept.ok()) spdlog::warn("sweeper: {}", swept.status().ToString());
    absl::StatusOr<int> forgotten = domain->ForgetExpiredIdempotencyKeys();
    if (!forgotten.ok())
      spdlog::warn("sweeper: idempotency keys: {}", forgotten.status().ToString());
  });
  if (config.sweep_interval > absl::ZeroDuration()) {
    domain->OnAutoPlayDue([sweeper = h.sweeper.get()] { sweeper->Wake(); });
  }
  SessionsMetrics* metrics = &domain->metrics();
  GameStore* store = h.store.get();
  const engine::Registry* games = h.games.get();
  OutboxStore* outbox = h.outbox.get();
  h.gauges = std::make_unique<PeriodicLoop>(
      "gauges", config.gauge_interval, [metrics, store, outbox, games, clock] {
        RefreshGauges(*metrics, *store, *outbox, *games, clock());
      });
}

// The outbox's two destinations (pushes: notifications, a webhook or the log; results: ratings)
// and the dispatcher that drains it, woken by LISTEN.
absl::Status StartOutbox(ServiceHost& host, const SessionsConfig& config, SessionsHandles& h,
                         const std::function<absl::Time()>& clock) {
  if (!config.notifications_address.empty()) {
    absl::StatusOr<auth::TokenSigner> signer = PeerSigner(config, "notifications_address");
    if (!signer.ok()) return signer.status();
    h.push = std::make_unique<NotificationsPushAdapter>(
        host.InternalChannel(config.notifications_address), *std::move(signer), absl::Seconds(10));
  } else if (config.push_webhook_url.empty()) {
    h.push = std::make_unique<LoggingPushAdapter>();
  } else {
    h.push = std::make_unique<WebhookPushAdapter>(config.push_webhook_url, absl::Seconds(10));
  }
  if (!config.ratings_address.empty()) {
    absl::StatusOr<auth::TokenSigner> signer = PeerSigner(config, "ratings_address");
    if (!signer.ok()) return signer.status();
    h.reporter = std::make_unique<RatingsReporter>(host.InternalChannel(config.ratings_address),
                                                   *std::move(signer), absl::Seconds(10));
  }
  h.dispatcher = std::make_unique<OutboxDispatcher>(
      h.store.get(), h.push.get(), h.reporter.get(), clock,
      OutboxDispatcher::Options{.metrics = &h.domain->metrics()});
  if (config.dispatch_interval > absl::ZeroDuration()) {
    h.dispatch = std::make_unique<DispatchLoop>(
        h.dispatcher.get(),
        // The hub's LISTEN connection, not one of its own (HubChangeFeed).
        std::make_unique<HubChangeFeed>(h.hub.get()), config.dispatch_interval);
  }
  return absl::OkStatus();
}

// Follows accounts' deletions once the server serves: a deleted player's games, seats and
// records are forgotten here too.
absl::Status FollowDeletions(ServiceHost& host, const SessionsConfig& config, SessionsHandles& h) {
  h.erasure = std::make_unique<AccountErasureStore>(&host.db());
  h.deletion_sink = std::make_unique<SessionsDeletionSink>(h.domain.get(), h.erasure.get());
  absl::StatusOr<std::unique_ptr<AccountDeletionFollower>> deletions =
      MakeAccountDeletionFollower(host,
                                  {.accounts_address = config.accounts_address,
                                   .service_token_private_key = config.service_token_private_key},
                                  "sessions", h.deletion_sink.get());
  if (!deletions.ok()) return deletions.status();
  h.deletions = *std::move(deletions);
  if (h.deletions != nullptr) {
    host.WhenFirstServing([follower = h.deletions.get()] { follower->Start(); });
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::shared_ptr<void>> InstallSessions(ServiceHost& host,
                                                      const SessionsConfig& config,
                                                      std::function<absl::Time()> clock) {
  auto h = std::make_shared<SessionsHandles>();
  h->games = std::make_unique<engine::Registry>(config.games());
  h->store = std::make_unique<GameStore>(&host.db());
  h->outbox = std::make_unique<OutboxStore>(&host.db());
  absl::StatusOr<Sessions::Options> options = DomainOptions(host, config, *h);
  if (!options.ok()) return options.status();
  h->domain = std::make_unique<Sessions>(h->store.get(), h->games.get(), clock, *options,
                                         &host.metrics().registry());
  h->batch_metrics = &h->domain->metrics();
  absl::StatusOr<StreamDeps> streams = StartStreams(host, config, *h);
  if (!streams.ok()) return streams.status();
  h->api = std::make_unique<SessionsApi>(h->domain.get(), &host.rpc(), *std::move(streams));
  h->internal_api = std::make_unique<SessionsInternalApi>(h->domain.get(), &host.rpc());
  host.AddService(h->api.get(), "parlor.sessions.v1.SessionsService");
  host.AddService(h->internal_api.get(), "parlor.sessions.v1.SessionsInternalService");
  StartLoops(config, *h, clock);
  if (absl::Status started = StartOutbox(host, config, *h, clock); !started.ok()) return started;
  if (absl::Status followed = FollowDeletions(host, config, *h); !followed.ok()) return followed;
  return std::shared_ptr<void>(h);
}

absl::StatusOr<int> SweepNow(const std::shared_ptr<void>& installed) {
  return static_cast<SessionsHandles*>(installed.get())->domain->Sweep();
}

int RunSessionsServer(int argc, char** argv, SessionsConfig config) {
  const bool migrate = argc >= 2 && std::strcmp(argv[1], "migrate") == 0;
  return RunServiceMain(
      argc, argv,
      ServiceMain{
          .identity = SessionsIdentity(),
          .add_flags =
              [&](Flags& flags) {
                if (!migrate) AddSessionsFlags(flags, &config);
              },
          .server_defaults = nullptr,
          .finalize_config = nullptr,
          .make_services = [&](ServiceHost& host) { return InstallSessions(host, config); },
      });
}

}  // namespace parlor::sessions
