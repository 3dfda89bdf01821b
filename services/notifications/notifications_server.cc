#include "services/notifications/notifications_server.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "services/common/core/periodic_loop.h"
#include "services/common/deletions/account_deletions.h"
#include "services/notifications/api/notifications_api.h"
#include "services/notifications/domain/notifications_service.h"
#include "services/notifications/store/pg_notifications_store.h"
#include "spdlog/spdlog.h"

namespace parlor::notifications {
namespace {

// Everything one notifications server owns, destroyed together (senders first).
struct Installed {
  NotificationsConfig config;
  std::unique_ptr<PgNotificationsStore> store;
  std::unique_ptr<DeliveryMetrics> metrics;
  std::unique_ptr<ApnsTokens> apns_tokens;
  std::unique_ptr<FcmTokens> fcm_tokens;
  std::unique_ptr<Deliverer> deliverer;
  std::unique_ptr<NotificationsService> domain;
  std::unique_ptr<Authenticator> authenticator;
  std::unique_ptr<InboxWatchHub> hub;
  std::unique_ptr<NotificationsApi> api;
  std::unique_ptr<NotificationsInternalApi> internal_api;
  std::mutex mu;
  std::unique_ptr<DeliveryLoop> loop;
  std::unique_ptr<AccountDeletionFollower> deletions;
  std::unique_ptr<PeriodicLoop> pruner;

  SenderFactory Factory() {
    return [this](Platform platform) -> std::unique_ptr<PushSender> {
      if (platform == Platform::kApns && apns_tokens != nullptr) {
        return std::make_unique<ApnsSender>(config.apns, apns_tokens.get());
      }
      if (platform == Platform::kFcm && fcm_tokens != nullptr) {
        return std::make_unique<FcmSender>(config.fcm, fcm_tokens.get());
      }
      return nullptr;
    };
  }
  void Wake() {
    std::lock_guard<std::mutex> lock(mu);
    if (loop != nullptr) loop->Wake();
  }
  ~Installed() {
    pruner.reset();
    deletions.reset();
    if (hub != nullptr) hub->Stop();
    std::unique_ptr<DeliveryLoop> stopping;
    {
      std::lock_guard<std::mutex> lock(mu);
      stopping = std::move(loop);
    }
    stopping.reset();
  }
};

}  // namespace

ServiceHost::Identity NotificationsIdentity() {
  return {.name = "notifications", .version = PARLOR_VERSION, .schema = "notifications"};
}

void AddNotificationsFlags(Flags& flags, NotificationsConfig* config) {
  AddAccountDeletionFlags(flags, &config->deletions);
  flags.String("apns_url", &config->apns.url, "APNs provider API (production devices)");
  flags.String("apns_sandbox_url", &config->apns.sandbox_url,
               "APNs provider API for devices registered with sandbox=true");
  flags.String("apns_key_id", &config->apns.key_id,
               "APNs authentication key id (the kid of the provider token); empty: APNs off");
  flags.String("apns_team_id", &config->apns.team_id, "Apple developer team id (the iss)");
  flags.Secret("apns_private_key", &config->apns.private_key_pem,
               "the APNs authentication key (.p8, PEM); use --apns_private_key_file for a "
               "mounted Secret");
  flags.Duration("apns_token_refresh", &config->apns.token_refresh,
                 "age at which the APNs provider token is renewed (Apple: 20-60 minutes)",
                 absl::Minutes(20), absl::Minutes(59));
  flags.String("fcm_url", &config->fcm.url,
               "FCM HTTP v1 endpoint; messages go to <url>/v1/projects/<project>/messages:send");
  flags.Secret("fcm_service_account", &config->fcm_service_account,
               "the Google service-account key file (JSON) for FCM; its token_uri is where "
               "access tokens come from; empty: FCM off");
  flags.String("push_ca_file", &config->push_ca_file,
               "PEM CA bundle trusted for APNs/FCM/OAuth TLS instead of the system's (tests)");
  flags.Duration("push_timeout", &config->push_timeout, "timeout of one provider request",
                 absl::Seconds(1), absl::Minutes(1));
  flags.Int("push_threads", &config->delivery.threads,
            "sender threads (each with its own HTTP/2 connections)", {.min = 0, .max = 64});
  flags.Int("push_batch", &config->delivery.batch, "pushes one sender claims at a time",
            {.min = 1, .max = 1000});
  flags.Int("push_in_flight", &config->delivery.in_flight,
            "pushes one sender has in flight at once, as streams of its HTTP/2 connection to a "
            "provider (1: one at a time)",
            {.min = 1, .max = 1000});
  flags.Duration("push_poll_interval", &config->delivery.poll_interval,
                 "how often idle senders look for due retries", absl::Milliseconds(10),
                 absl::Minutes(1));
  flags.Duration("push_backoff_base", &config->delivery.backoff_base,
                 "first retry delay after a 429/5xx (doubling each attempt)",
                 absl::Milliseconds(10), absl::Minutes(10));
  flags.Duration("push_backoff_cap", &config->delivery.backoff_cap, "longest retry delay",
                 absl::Milliseconds(10), absl::Hours(6));
  flags.Int("push_rejected_attempts", &config->delivery.rejected_attempts,
            "attempts after which another 4xx answer is final", {.min = 1, .max = 10});
  flags.Int("watch_max_streams", &config->watch.max_streams,
            "open WatchNotifications streams this replica holds at most",
            {.min = 1, .max = 1000000});
  flags.Int("watch_max_streams_per_account", &config->watch.max_streams_per_account,
            "open WatchNotifications streams of one account on this replica",
            {.min = 1, .max = 64});
  flags.Duration("watch_poll_interval", &config->watch.poll_interval,
                 "how often the open streams' inboxes are read (one statement for all)",
                 absl::Milliseconds(10), absl::Minutes(1));
  flags.Int("push_max_attempts", &config->delivery.max_attempts,
            "attempts after which 429/5xx answers are given up", {.min = 1, .max = 100});
  flags.Duration("inbox_retention", &config->retention,
                 "how long events (inbox entries) are kept; an event committed longer ago is "
                 "acknowledged and not stored (at least 7 days: longer than any sender's backlog "
                 "should last)",
                 absl::Hours(24 * 7), absl::Hours(24 * 3650));
  flags.Duration("inbox_prune_interval", &config->prune_interval,
                 "how often this replica deletes events older than --inbox_retention, and the "
                 "turn state of games over for longer than it and a day (0: never)",
                 absl::ZeroDuration(), absl::Hours(24));
}

absl::Status FinalizeNotificationsConfig(NotificationsConfig& config) {
  const ApnsConfig& apns = config.apns;
  const int apns_set = !apns.key_id.empty() + !apns.team_id.empty() + !apns.private_key_pem.empty();
  if (apns_set != 0 && apns_set != 3) {
    return absl::InvalidArgumentError(
        "APNs needs all of --apns_key_id, --apns_team_id and --apns_private_key (or none)");
  }
  if (!config.fcm_service_account.empty()) {
    absl::StatusOr<ServiceAccount> account = ParseServiceAccount(config.fcm_service_account);
    if (!account.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--fcm_service_account: ", account.status().message()));
    }
    config.fcm.account = *std::move(account);
  }
  config.apns.http.ca_file = config.push_ca_file;
  config.apns.http.timeout = config.push_timeout;
  config.fcm.http.ca_file = config.push_ca_file;
  config.fcm.http.timeout = config.push_timeout;
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<void>> InstallNotifications(ServiceHost& host,
                                                           const NotificationsConfig& config,
                                                           std::function<absl::Time()> clock) {
  auto installed = std::make_shared<Installed>();
  Installed* h = installed.get();
  h->config = config;
  if (!h->config.apns.private_key_pem.empty()) {
    absl::StatusOr<std::unique_ptr<ApnsTokens>> tokens = ApnsTokens::Create(h->config.apns, clock);
    if (!tokens.ok()) return tokens.status();
    h->apns_tokens = *std::move(tokens);
  }
  if (!h->config.fcm.account.private_key_pem.empty()) {
    absl::StatusOr<std::unique_ptr<FcmTokens>> tokens = FcmTokens::Create(h->config.fcm, clock);
    if (!tokens.ok()) return tokens.status();
    h->fcm_tokens = *std::move(tokens);
  }
  spdlog::info("notifications: APNs {}, FCM {}", h->apns_tokens ? "on" : "off (no credentials)",
               h->fcm_tokens ? "on" : "off (no credentials)");
  h->store = std::make_unique<PgNotificationsStore>(
      &host.db(),
      config.accept_one_by_one ? PgNotificationsStore::AcceptMode::kOneByOne
                               : PgNotificationsStore::AcceptMode::kSetBased,
      config.former_queue ? PgNotificationsStore::QueueMode::kFormer
                          : PgNotificationsStore::QueueMode::kIndexed);
  h->metrics = std::make_unique<DeliveryMetrics>(&host.metrics().registry());
  h->deliverer =
      std::make_unique<Deliverer>(h->store.get(), h->metrics.get(), clock, h->config.delivery);
  h->domain = std::make_unique<NotificationsService>(
      h->store.get(), clock, h->metrics.get(), [h] { h->Wake(); }, config.retention);
  absl::StatusOr<auth::TokenVerifier> access =
      auth::TokenVerifier::Create(auth::TokenKind::kAccess, host.config().access_token_public_key);
  if (!access.ok()) return access.status();
  h->authenticator = std::make_unique<Authenticator>(*std::move(access), std::nullopt);
  h->hub =
      std::make_unique<InboxWatchHub>(h->domain.get(), &host.workers(), h->config.watch, clock);
  h->domain->SetInboxChanged([h] { h->hub->Wake(); });
  h->api = std::make_unique<NotificationsApi>(h->domain.get(), &host.rpc(), h->authenticator.get(),
                                              h->hub.get());
  h->internal_api = std::make_unique<NotificationsInternalApi>(h->domain.get(), &host.rpc());
  host.AddService(h->api.get(), "parlor.notifications.v1.NotificationsService");
  host.AddService(h->internal_api.get(), "parlor.notifications.v1.NotificationsInternalService");
  absl::StatusOr<std::unique_ptr<AccountDeletionFollower>> deletions =
      MakeAccountDeletionFollower(host, config.deletions, "notifications", h->store.get());
  if (!deletions.ok()) return deletions.status();
  h->deletions = *std::move(deletions);
  if (h->deletions != nullptr) {
    host.WhenFirstServing([h] { h->deletions->Start(); });
  }
  // Its first round comes one interval after start-up, once the migrations have run.
  h->pruner = std::make_unique<PeriodicLoop>(
      "inbox-pruner", h->config.prune_interval, [domain = h->domain.get()] {
        absl::StatusOr<NotificationsService::Pruned> pruned = domain->Prune();
        if (!pruned.ok()) {
          spdlog::warn("notifications: pruning old events failed: {}", pruned.status().ToString());
        } else if (pruned->events + pruned->turns > 0) {
          spdlog::info(
              "notifications: pruned {} events and the turn state of {} players' games "
              "older than the retention",
              pruned->events, pruned->turns);
        }
      });
  if (h->config.delivery.threads > 0) {
    // The senders need the schema: start them once the migrations ran.
    host.WhenFirstServing([h] {
      std::lock_guard<std::mutex> lock(h->mu);
      h->loop = std::make_unique<DeliveryLoop>(h->deliverer.get(), h->Factory());
    });
  }
  return std::shared_ptr<void>(installed);
}

absl::StatusOr<int> DeliverNow(const std::shared_ptr<void>& installed) {
  auto* h = static_cast<Installed*>(installed.get());
  Deliverer::Senders senders(h->Factory());
  return h->deliverer->DeliverOnce(senders);
}

absl::StatusOr<NotificationsService::Pruned> PruneNow(const std::shared_ptr<void>& installed) {
  return static_cast<Installed*>(installed.get())->domain->Prune();
}

absl::Status UpdateQueueGaugesNow(const std::shared_ptr<void>& installed) {
  return static_cast<Installed*>(installed.get())->deliverer->UpdateQueueGauges();
}

}  // namespace parlor::notifications
