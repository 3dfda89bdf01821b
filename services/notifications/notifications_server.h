#ifndef PARLOR_SERVICES_NOTIFICATIONS_NOTIFICATIONS_SERVER_H_
#define PARLOR_SERVICES_NOTIFICATIONS_NOTIFICATIONS_SERVER_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "services/common/deletions/account_deletions.h"
#include "services/common/server.h"
#include "services/notifications/api/inbox_watch.h"
#include "services/notifications/domain/delivery.h"
#include "services/notifications/domain/notifications_service.h"
#include "services/notifications/push/apns.h"
#include "services/notifications/push/fcm.h"

namespace parlor::notifications {

// Settings only notifications has. A provider without credentials is off: its pushes are dropped
// (result="unconfigured"), the inbox still fills.
struct NotificationsConfig {
  ApnsConfig apns;                  // key id, team id, .p8 key (PEM), endpoints
  std::string fcm_service_account;  // the service-account key file's JSON
  FcmConfig fcm;                    // endpoint; account parsed from fcm_service_account
  std::string push_ca_file;         // CA bundle for the providers' TLS (tests); empty: system
  absl::Duration push_timeout = absl::Seconds(10);
  DeliveryOptions delivery;
  // AcceptEvents one event at a time (some six statements each) instead of set-based: only the
  // load tool's baseline sets it.
  bool accept_one_by_one = false;
  // The queue worked the former way (PgNotificationsStore::QueueMode::kFormer): only the load
  // tool's baseline sets it (with delivery.wake_all).
  bool former_queue = false;
  WatchLimits watch;  // WatchNotifications' bounds
  // How long events (inbox entries) are kept, and how often each replica deletes older ones and
  // the turn state of games over for longer (zero: never; tests call PruneNow).
  absl::Duration retention = NotificationsService::kDefaultRetention;
  absl::Duration prune_interval = absl::Minutes(1);
  AccountDeletionSettings deletions;  // where deleted accounts are learnt
};

ServiceHost::Identity NotificationsIdentity();
void AddNotificationsFlags(Flags& flags, NotificationsConfig* config);
// Parses the service-account key and checks that each provider has all or none of its settings.
absl::Status FinalizeNotificationsConfig(NotificationsConfig& config);

// Builds store -> domain -> API on `host`, registers the gRPC services, and starts the senders
// once the host first turns SERVING (delivery.threads 0: no senders; tests drive DeliverNow).
// The returned holder keeps them alive; destroy it after the host has shut down.
absl::StatusOr<std::shared_ptr<void>> InstallNotifications(
    ServiceHost& host, const NotificationsConfig& config,
    std::function<absl::Time()> clock = [] { return absl::Now(); });

// One delivery round on the calling thread with its own senders (tests).
absl::StatusOr<int> DeliverNow(const std::shared_ptr<void>& installed);
// Deletes the events older than the retention now, as the pruning loop does (tests).
absl::StatusOr<NotificationsService::Pruned> PruneNow(const std::shared_ptr<void>& installed);
// Sets the queue-depth and oldest-age gauges from the queue now, as the first sender does every
// second (tests).
absl::Status UpdateQueueGaugesNow(const std::shared_ptr<void>& installed);

}  // namespace parlor::notifications

#endif  // PARLOR_SERVICES_NOTIFICATIONS_NOTIFICATIONS_SERVER_H_
