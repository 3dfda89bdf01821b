#include "services/ratings/ratings_server.h"

#include <cstring>
#include <memory>

#include "services/common/core/crypto.h"
#include "services/ratings/api/ratings_api.h"
#include "services/ratings/model/game_ladders.h"
#include "services/ratings/store/pg_ratings_store.h"

namespace parlor::ratings {
namespace {

// Everything one ratings server owns, destroyed together (domain first: it stops the refresher).
struct Installed {
  std::unique_ptr<PgRatingsStore> store;
  std::unique_ptr<RatingsMetrics> metrics;
  std::unique_ptr<PageTokens> tokens;
  std::unique_ptr<RatingsService> domain;
  std::unique_ptr<RatingsApi> api;
  std::unique_ptr<RatingsInternalApi> internal_api;
  std::unique_ptr<AccountDeletionFollower> deletions;
  ~Installed() {
    deletions.reset();
    if (domain) domain->StopRefresher();
  }
};

}  // namespace

ServiceHost::Identity RatingsIdentity() {
  return {.name = "ratings", .version = PARLOR_VERSION, .schema = "ratings"};
}

void AddRatingsFlags(Flags& flags, RatingsConfig* config) {
  flags.Secret("page_token_secret", &config->page_token_secret,
               "secret keying leaderboard/history page tokens; the same on every replica");
  flags.Duration("leaderboard_refresh_interval", &config->options.refresh_interval,
                 "how often changed leaderboards are re-snapshotted", absl::Seconds(1),
                 absl::Hours(1));
  flags.Duration("leaderboard_snapshot_retention", &config->options.snapshot_retention,
                 "how long a replaced leaderboard snapshot stays readable for page walks",
                 absl::Seconds(10), absl::Hours(24));
  flags.Int("season_reset_pull_percent", &config->season_reset_pull_percent,
            "at a new season, how far ratings are pulled toward the starting rating (percent)",
            {.min = 0, .max = 100});
  flags.Int("season_reset_deviation_boost_percent", &config->season_reset_deviation_boost_percent,
            "at a new season, deviation added in quadrature, in percent of the starting deviation",
            {.min = 0, .max = 100});
  flags.Int("idle_periods_per_100_days", &config->idle_periods_per_100_days,
            "rating periods counted per 100 days without a game (deviation growth); 0 disables",
            {.min = 0, .max = 10000});
  flags.Int("leaderboard_inactive_days", &config->inactive_days,
            "days without a rated game after which a player leaves a ladder's board (until they "
            "play again)",
            {.min = 1, .max = 3650});
  flags.Duration("leaderboard_max_age", &config->options.snapshot_max_age,
                 "a board is rebuilt at least this often even without new results (idle "
                 "deviations grow, inactive players leave)",
                 absl::Minutes(1), absl::Hours(24));
  flags.Bool("refresh_leaderboards", &config->refresh_boards,
             "run the leaderboard snapshot refresher in this replica");
  AddAccountDeletionFlags(flags, &config->deletions);
}

model::LadderRegistry ConfiguredLadders(const RatingsConfig& config) {
  const model::LadderRegistry defaults = model::LaddersForGames(config.games());
  model::LadderRegistry out;
  for (model::LadderSpec spec : defaults.ladders()) {
    spec.season_reset.pull = config.season_reset_pull_percent / 100.0;
    spec.season_reset.deviation_boost = config.season_reset_deviation_boost_percent / 100.0;
    spec.glicko2.periods_per_day = config.idle_periods_per_100_days / 100.0;
    spec.weng_lin.periods_per_day = config.idle_periods_per_100_days / 100.0;
    spec.inactive_days = config.inactive_days;
    out.Add(std::move(spec));
  }
  return out;
}

absl::StatusOr<std::shared_ptr<void>> InstallRatings(ServiceHost& host, const RatingsConfig& config,
                                                     const model::LadderRegistry* ladders,
                                                     RatingsService::Clock clock,
                                                     RatingsService** domain_out) {
  auto installed = std::make_shared<Installed>();
  installed->store = std::make_unique<PgRatingsStore>(&host.db());
  installed->metrics = std::make_unique<RatingsMetrics>(host.metrics().registry());
  std::string secret = config.page_token_secret;
  if (secret.empty()) {
    spdlog::warn("no --page_token_secret: using a random one (single replica only)");
    secret = RandomBytes(32);
  }
  installed->tokens = std::make_unique<PageTokens>(secret);
  installed->domain = std::make_unique<RatingsService>(
      ladders, installed->store.get(), installed->metrics.get(), std::move(clock), config.options);
  installed->api =
      std::make_unique<RatingsApi>(installed->domain.get(), &host.rpc(), installed->tokens.get());
  installed->internal_api =
      std::make_unique<RatingsInternalApi>(installed->domain.get(), &host.rpc());
  host.AddService(installed->api.get(), "parlor.ratings.v1.RatingsService");
  host.AddService(installed->internal_api.get(), "parlor.ratings.v1.RatingsInternalService");
  // Only once the host is SERVING: before that the schema may not exist yet (migrations run in
  // Start(), or by the migrate Job), and a refresh would fail and log an error on every first
  // start.
  if (config.refresh_boards) {
    host.WhenFirstServing([domain = installed->domain.get()] { domain->StartRefresher(); });
  }
  absl::StatusOr<std::unique_ptr<AccountDeletionFollower>> deletions =
      MakeAccountDeletionFollower(host, config.deletions, "ratings", installed->store.get());
  if (!deletions.ok()) return deletions.status();
  installed->deletions = *std::move(deletions);
  if (installed->deletions != nullptr) {
    host.WhenFirstServing([follower = installed->deletions.get()] { follower->Start(); });
  }
  if (domain_out != nullptr) *domain_out = installed->domain.get();
  return std::shared_ptr<void>(installed);
}

int RunRatingsServer(int argc, char** argv, RatingsConfig config) {
  std::unique_ptr<model::LadderRegistry> ladders;
  const bool migrate = argc >= 2 && std::strcmp(argv[1], "migrate") == 0;
  return RunServiceMain(
      argc, argv,
      ServiceMain{
          .identity = RatingsIdentity(),
          .add_flags =
              [&](Flags& flags) {
                if (!migrate) AddRatingsFlags(flags, &config);
              },
          .server_defaults = nullptr,
          .finalize_config = nullptr,
          .make_services =
              [&](ServiceHost& host) {
                ladders = std::make_unique<model::LadderRegistry>(ConfiguredLadders(config));
                return InstallRatings(host, config, ladders.get());
              },
      });
}

}  // namespace parlor::ratings
