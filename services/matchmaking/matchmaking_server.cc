#include "services/matchmaking/matchmaking_server.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "engine/games/all_games.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "services/common/core/logging.h"
#include "services/common/core/periodic_loop.h"
#include "services/common/deletions/account_deletions.h"
#include "services/matchmaking/api/clients.h"
#include "services/matchmaking/api/matchmaking_api.h"
#include "services/matchmaking/outbox/notifications_relay.h"
#include "services/matchmaking/store/pg_matchmaking_store.h"

namespace parlor::matchmaking {
namespace {

struct Installed {
  std::unique_ptr<engine::Registry> registry;
  std::unique_ptr<GameCatalog> catalog;
  std::unique_ptr<MatchmakingStore> store;
  std::unique_ptr<auth::ServiceTokenSource> tokens;
  std::unique_ptr<GrpcAccountDirectory> accounts;
  std::unique_ptr<GrpcGameCreator> games;
  std::unique_ptr<RatingSource> ratings;
  std::unique_ptr<GrpcRecordSource> records;
  std::unique_ptr<MatchmakingService> domain;
  std::unique_ptr<Authenticator> authenticator;
  std::unique_ptr<WatchHub> hub;
  std::unique_ptr<MatchmakingApi> api;
  // Before `loop`, which wakes it, so destroyed after it.
  std::unique_ptr<PeriodicLoop> delivery_loop;
  std::unique_ptr<PeriodicLoop> loop;
  std::unique_ptr<PeriodicLoop> prune_loop;
  std::unique_ptr<NotificationOutboxStore> outbox;
  std::unique_ptr<NotificationsRelay> relay;
  std::unique_ptr<PeriodicLoop> relay_loop;
  std::unique_ptr<AccountDeletionFollower> deletions;

  ~Installed() {
    deletions.reset();
    prune_loop.reset();
    relay_loop.reset();
    loop.reset();
    if (hub) hub->Stop();
  }
};

}  // namespace

ServiceHost::Identity MatchmakingIdentity() {
  return {.name = "matchmaking", .version = PARLOR_VERSION, .schema = "matchmaking"};
}

void AddMatchmakingFlags(Flags& flags, MatchmakingConfig* config) {
  flags.Secret("service_token_private_key", &config->service_token_private_key,
               "Ed25519 private key (base64 32-byte seed) signing this service's credential for "
               "accounts and sessions",
               /*required=*/true);
  flags.String("accounts_address", &config->accounts_address, "accounts gRPC host:port");
  flags.String("sessions_address", &config->sessions_address, "sessions gRPC host:port");
  flags.String("ratings_address", &config->ratings_address,
               "ratings gRPC host:port (ranked rating windows); empty: everyone at the ladder "
               "default 1500");
  flags.Duration("matcher_interval", &config->matcher_interval,
                 "how often this replica runs a matcher pass and creates pending games "
                 "(0s = never)",
                 absl::ZeroDuration(), absl::Minutes(10));
  flags.String("notifications_address", &config->notifications_address,
               "notifications gRPC host:port (match found, challenges); empty: not handed over");
  flags.Duration("notifications_interval", &config->notifications_interval,
                 "how often this replica hands the notification outbox to notifications",
                 absl::Milliseconds(10), absl::Minutes(10));
  flags.Duration("watch_poll_interval", &config->watch_poll_interval,
                 "how often open WatchMyTickets streams look for changes", absl::Milliseconds(100),
                 absl::Minutes(1));
  flags.Duration("ticket_ttl", &config->options.ticket_ttl, "lifetime of an unmatched ticket",
                 absl::Minutes(1), absl::Hours(24 * 30));
  flags.Duration("challenge_ttl", &config->options.challenge_ttl,
                 "lifetime of an unaccepted challenge", absl::Minutes(1), absl::Hours(24 * 30));
  flags.Duration("history_retention", &config->options.history_retention,
                 "final tickets and challenges are deleted this long after their creation and "
                 "last change, matches this long after their game's creation (the lists show 7 "
                 "days)",
                 absl::Hours(24 * 8), absl::Hours(24 * 3650));
  flags.Duration("prune_interval", &config->prune_interval,
                 "how often this replica deletes tickets, challenges and matches older than "
                 "--history_retention (0s = never)",
                 absl::ZeroDuration(), absl::Hours(24));
  flags.Int("rating_window", &config->initial_window,
            "ranked: accepted rating difference when a ticket is new", {.min = 0, .max = 10000});
  flags.Int("rating_window_widen_per_minute", &config->widen_per_minute,
            "ranked: rating points the window widens per minute waited", {.min = 0, .max = 10000});
  flags.Duration("rating_window_unbounded_after", &config->options.matcher.unbounded_after,
                 "ranked: waiting time after which any rating is accepted", absl::ZeroDuration(),
                 absl::Hours(24 * 30));
  flags.Int("ranked_min_finish_percent", &config->options.ranked_min_finish_percent,
            "ranked tickets need every player to have finished at least this percentage of "
            "their ended games against people (0 = no minimum)",
            {.min = 0, .max = 100});
  flags.Int("ranked_min_games_for_finish_rate", &config->options.ranked_min_games_for_finish_rate,
            "games against people a player must have ended before the finish rate applies",
            {.min = 1, .max = 10000});
  flags.Duration("full_table_wait", &config->options.matcher.full_table_wait,
                 "waiting time after which a smaller accepted table is formed instead of the "
                 "largest",
                 absl::ZeroDuration(), absl::Hours(24));
}

absl::Status FinalizeMatchmakingConfig(MatchmakingConfig& config, ServerConfig& server) {
  absl::StatusOr<std::string> key = auth::PublicKeyFor(config.service_token_private_key);
  if (!key.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--service_token_private_key: ", key.status().message()));
  }
  if (server.access_token_public_key.empty()) {
    return absl::InvalidArgumentError(
        "--access_token_public_key is required (players' tokens are verified locally)");
  }
  config.options.matcher.initial_window = config.initial_window;
  config.options.matcher.widen_per_minute = config.widen_per_minute;
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<void>> InstallMatchmaking(ServiceHost& host,
                                                         const MatchmakingConfig& config,
                                                         MatchmakingService::Clock clock,
                                                         MatchmakingService** service_out) {
  absl::StatusOr<auth::TokenSigner> signer =
      auth::TokenSigner::Create(auth::TokenKind::kService, config.service_token_private_key);
  if (!signer.ok()) return signer.status();
  absl::StatusOr<auth::TokenVerifier> access =
      auth::TokenVerifier::Create(auth::TokenKind::kAccess, host.config().access_token_public_key);
  if (!access.ok()) return access.status();

  auto installed = std::make_shared<Installed>();
  installed->registry = std::make_unique<engine::Registry>(config.games());
  installed->catalog = std::make_unique<GameCatalog>(installed->registry.get());
  installed->store = std::make_unique<PgMatchmakingStore>(&host.db());
  installed->tokens = std::make_unique<auth::ServiceTokenSource>(*std::move(signer), "matchmaking");
  installed->accounts = std::make_unique<GrpcAccountDirectory>(
      host.InternalChannel(config.accounts_address), installed->tokens.get());
  installed->games = std::make_unique<GrpcGameCreator>(
      host.InternalChannel(config.sessions_address), installed->tokens.get(),
      installed->accounts.get(), GrpcGameCreator::Settings{});
  installed->records = std::make_unique<GrpcRecordSource>(
      host.InternalChannel(config.sessions_address), installed->tokens.get());
  if (config.ratings_address.empty()) {
    spdlog::warn(
        "matchmaking: no --ratings_address (PARLOR_RATINGS_ADDRESS); every ranked player gets the "
        "ladder default rating 1500");
    installed->ratings = std::make_unique<DefaultRatingSource>();
  } else {
    installed->ratings = std::make_unique<GrpcRatingSource>(
        host.InternalChannel(config.ratings_address), installed->tokens.get());
  }
  installed->domain = std::make_unique<MatchmakingService>(
      MatchmakingService::Deps{.store = installed->store.get(),
                               .catalog = installed->catalog.get(),
                               .ratings = installed->ratings.get(),
                               .accounts = installed->accounts.get(),
                               .games = installed->games.get(),
                               .metrics = &host.metrics().registry(),
                               .clock = clock,
                               .blocks = installed->accounts.get(),
                               .records = installed->records.get()},
      config.options);
  installed->authenticator = std::make_unique<Authenticator>(*std::move(access), std::nullopt);
  installed->hub = std::make_unique<WatchHub>(installed->domain.get(), config.watch_poll_interval);
  installed->domain->SetGameCreatedListener(
      [hub = installed->hub.get()](const std::vector<std::string>& players) {
        hub->Wake(players);
      });
  installed->api = std::make_unique<MatchmakingApi>(
      installed->domain.get(), &host.rpc(), installed->authenticator.get(), installed->hub.get());
  host.AddService(installed->api.get(), "parlor.matchmaking.v1.MatchmakingService");
  {
    MatchmakingService* domain = installed->domain.get();
    installed->prune_loop = std::make_unique<
        PeriodicLoop>("ticket-pruner", config.prune_interval, [domain] {
      absl::StatusOr<MatchmakingService::Pruned> pruned = domain->PruneHistory();
      if (!pruned.ok()) {
        spdlog::warn("matchmaking: pruning history failed: {}", pruned.status().ToString());
      } else if (pruned->tickets + pruned->challenges + pruned->matches > 0) {
        spdlog::info(
            "matchmaking: pruned {} tickets, {} challenges and {} matches older than the retention",
            pruned->tickets, pruned->challenges, pruned->matches);
      }
    });
  }
  if (config.matcher_interval > absl::ZeroDuration()) {
    MatchmakingService* domain = installed->domain.get();
    // Games are created on their own loop: behind the pass, a burst of CreateGame calls (seconds
    // while sessions is busy) held back the next pass and every ticket waiting for it. A pass
    // that seated matches wakes it.
    installed->delivery_loop =
        std::make_unique<PeriodicLoop>("game-delivery", config.matcher_interval, [domain] {
          absl::StatusOr<int> delivered = domain->DeliverGames();
          if (!delivered.ok()) {
            spdlog::warn("matchmaking: game delivery failed: {}", delivered.status().ToString());
          }
        });
    installed->loop = std::make_unique<PeriodicLoop>(
        "matcher", config.matcher_interval, [domain, delivery = installed->delivery_loop.get()] {
          absl::StatusOr<PassStats> pass = domain->RunMatcherPass();
          if (!pass.ok()) {
            spdlog::warn("matchmaking: matcher pass failed: {}", pass.status().ToString());
          } else if (pass->matches > 0) {
            delivery->Wake();
          }
        });
  }
  if (!config.notifications_address.empty()) {
    installed->outbox = std::make_unique<NotificationOutboxStore>(&host.db());
    installed->relay = std::make_unique<NotificationsRelay>(
        installed->outbox.get(), installed->accounts.get(),
        host.InternalChannel(config.notifications_address), installed->tokens.get(), clock,
        NotificationsRelay::Options{}, &host.metrics().registry());
    NotificationsRelay* relay = installed->relay.get();
    installed->relay_loop =
        std::make_unique<PeriodicLoop>("notify-relay", config.notifications_interval, [relay] {
          absl::StatusOr<NotificationsRelay::Relayed> relayed = relay->Drain();
          if (!relayed.ok()) {
            spdlog::warn("matchmaking: notification relay failed: {}", relayed.status().ToString());
          }
          if (absl::Status gauges = relay->UpdateGauges(); !gauges.ok()) {
            spdlog::warn("matchmaking: notification backlog gauges: {}", gauges.ToString());
          }
        });
  }
  absl::StatusOr<std::unique_ptr<AccountDeletionFollower>> deletions =
      MakeAccountDeletionFollower(host,
                                  {.accounts_address = config.accounts_address,
                                   .service_token_private_key = config.service_token_private_key},
                                  "matchmaking", installed->store.get());
  if (!deletions.ok()) return deletions.status();
  installed->deletions = *std::move(deletions);
  if (installed->deletions != nullptr) {
    host.WhenFirstServing([follower = installed->deletions.get()] { follower->Start(); });
  }
  if (service_out != nullptr) *service_out = installed->domain.get();
  return std::shared_ptr<void>(installed);
}

int RunMatchmakingServer(int argc, char** argv, MatchmakingConfig config) {
  const bool migrate = argc >= 2 && std::strcmp(argv[1], "migrate") == 0;
  return RunServiceMain(
      argc, argv,
      ServiceMain{
          .identity = MatchmakingIdentity(),
          .add_flags =
              [&](Flags& flags) {
                if (!migrate) AddMatchmakingFlags(flags, &config);
              },
          // An Enqueue mostly waits (accounts, ratings, its commit): with the common 8 workers,
          // 1,000 players enqueueing at once were written ~200 a second and the matchmaking
          // wait's p99 missed 5 s in the full-system load.
          .server_defaults = [](ServerConfig& server) { server.worker_threads = 32; },
          .finalize_config =
              [&](ServerConfig& server) {
                if (migrate) return absl::OkStatus();
                return FinalizeMatchmakingConfig(config, server);
              },
          .make_services = [&](ServiceHost& host) { return InstallMatchmaking(host, config); },
      });
}

}  // namespace parlor::matchmaking
