#ifndef PARLOR_SERVICES_SESSIONS_OUTBOX_NOTIFICATIONS_ADAPTER_H_
#define PARLOR_SERVICES_SESSIONS_OUTBOX_NOTIFICATIONS_ADAPTER_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "grpcpp/channel.h"
#include "parlor/notifications/v1/notifications.grpc.pb.h"
#include "services/common/core/token.h"
#include "services/sessions/outbox/dispatcher.h"

namespace parlor::sessions {

// The notifications event for one outbox row: kind your_turn / reminder / timeout / game_over /
// turn_over, the game (its id, name and version), the opponents' display names and, for a
// your-turn or reminder, the turn's deadline as the expiry (all from the row's payload), the
// commit time when known (the row's creation: when its state change happened), dedupe key
// "sessions:<row's key>". Nothing else of the payload travels (its text, the seat).
// INVALID_ARGUMENT for a kind notifications has no event for.
absl::StatusOr<notifications::v1::Event> BuildNotificationEvent(
    const std::string& game_id, const NotificationRow& notification,
    std::optional<absl::Time> commit_time = std::nullopt);

// Hands the outbox's rows to parlor.notifications.v1.NotificationsInternalService.AcceptEvents
// with a service credential signed by this service, a claimed batch in one call (at most 500
// events, AcceptEvents' limit); notifications keeps the devices, the preferences and the inbox,
// and pushes through APNs and FCM. Idempotent on the dedupe key, so the dispatcher's
// at-least-once delivery is safe. A batch refused as bad input (all or nothing) is sent again
// row by row, so that only the bad row waits for its retry.
class NotificationsPushAdapter final : public PushAdapter {
 public:
  NotificationsPushAdapter(std::shared_ptr<grpc::Channel> channel, auth::TokenSigner signer,
                           absl::Duration timeout);
  absl::Status Send(const std::string& game_id, const NotificationRow& notification) override;
  std::vector<absl::Status> SendBatch(
      const std::vector<PgSessionsStore::PendingNotification>& batch) override;
  absl::string_view Name() const override { return "notifications"; }

  static constexpr int kMaxEventsPerCall = 500;

 private:
  absl::Status Accept(const notifications::v1::AcceptEventsRequest& request);

  std::unique_ptr<notifications::v1::NotificationsInternalService::Stub> stub_;
  auth::TokenSigner signer_;
  absl::Duration timeout_;
};

}  // namespace parlor::sessions

#endif  // PARLOR_SERVICES_SESSIONS_OUTBOX_NOTIFICATIONS_ADAPTER_H_
