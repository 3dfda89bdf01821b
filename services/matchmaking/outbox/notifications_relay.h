#ifndef PARLOR_SERVICES_MATCHMAKING_OUTBOX_NOTIFICATIONS_RELAY_H_
#define PARLOR_SERVICES_MATCHMAKING_OUTBOX_NOTIFICATIONS_RELAY_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/channel.h"
#include "parlor/notifications/v1/notifications.grpc.pb.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"
#include "services/common/core/token.h"
#include "services/matchmaking/domain/clients.h"
#include "services/matchmaking/store/notification_outbox.h"

namespace parlor::matchmaking {

// The notifications event for one outbox row: match found (the game, its id, the other side's
// display names), challenge received / accepted (the game, who from), party invite (the party,
// who from). `names` maps account ids to display names; an account it lacks shows as "Player".
// Dedupe key: the row's.
notifications::v1::Event BuildMatchmakingEvent(const OutboxNotification& row,
                                               const std::map<std::string, std::string>& names);

// Hands matchmaking's notification outbox to notifications.AcceptEvents: claims due rows (with a
// lease, so every replica may run one), looks up the display names the texts need (accounts),
// sends the batch in one call with this service's credential, and marks it sent or schedules its
// retry (1 s, 2 s, 4 s ... capped). At least once; notifications drops repeats by dedupe key.
//
// Its gauges (`metrics` may be null), read from the shared outbox, so every replica reports the
// same values:
//   parlor_matchmaking_notification_outbox_pending  rows not yet relayed (due or backing off)
//   parlor_matchmaking_notification_outbox_oldest_age_seconds  age of the oldest of them, from
//       the change it reports (0 when none)
class NotificationsRelay {
 public:
  struct Options {
    int batch = 200;
    absl::Duration lease = absl::Seconds(30);
    absl::Duration max_backoff = absl::Minutes(10);
    absl::Duration timeout = absl::Seconds(10);
  };
  NotificationsRelay(NotificationOutboxStore* outbox, AccountDirectory* accounts,
                     std::shared_ptr<grpc::Channel> notifications, auth::ServiceTokenSource* tokens,
                     std::function<absl::Time()> clock, Options options,
                     prometheus::Registry* metrics = nullptr);

  struct Relayed {
    int sent = 0;
    int failed = 0;
  };
  // Batches until no row is due (at most `max_batches`).
  absl::StatusOr<Relayed> Drain(int max_batches = 20);
  // Sets the backlog gauges from the outbox now (the relay loop does it after every drain).
  absl::Status UpdateGauges();

 private:
  absl::Status Send(const std::vector<OutboxNotification>& rows);
  // Marks `rows` sent, or schedules their retry after `sent`'s failure.
  absl::Status Settle(const std::vector<OutboxNotification>& rows, const absl::Status& sent,
                      Relayed& relayed);

  NotificationOutboxStore* outbox_;
  AccountDirectory* accounts_;
  std::unique_ptr<notifications::v1::NotificationsInternalService::Stub> stub_;
  auth::ServiceTokenSource* tokens_;
  std::function<absl::Time()> clock_;
  Options options_;
  prometheus::Gauge* pending_ = nullptr;
  prometheus::Gauge* oldest_age_ = nullptr;
};

}  // namespace parlor::matchmaking

#endif  // PARLOR_SERVICES_MATCHMAKING_OUTBOX_NOTIFICATIONS_RELAY_H_
