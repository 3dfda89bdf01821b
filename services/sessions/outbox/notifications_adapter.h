#ifndef PARLOR_SERVICES_SESSIONS_OUTBOX_NOTIFICATIONS_ADAPTER_H_
#define PARLOR_SERVICES_SESSIONS_OUTBOX_NOTIFICATIONS_ADAPTER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "grpcpp/channel.h"
#include "parlor/notifications/v1/notifications.grpc.pb.h"
#include "services/common/core/token.h"
#include "services/sessions/outbox/dispatcher.h"

namespace parlor::sessions {

// The notifications event for one outbox row: kind your_turn / reminder / timeout / game_over,
// the game (its id, name and version from the row's payload), dedupe key "sessions:<row's key>".
// INVALID_ARGUMENT for a kind notifications has no event for.
absl::StatusOr<notifications::v1::Event> BuildNotificationEvent(
    const std::string& game_id, const NotificationRow& notification);

// Hands each notification to parlor.notifications.v1.NotificationsInternalService.AcceptEvents
// with a service credential signed by this service; notifications keeps the devices, the
// preferences and the inbox, and pushes through APNs and FCM. Idempotent on the dedupe key, so
// the dispatcher's at-least-once delivery is safe.
class NotificationsPushAdapter final : public PushAdapter {
 public:
  NotificationsPushAdapter(std::shared_ptr<grpc::Channel> channel, auth::TokenSigner signer,
                           absl::Duration timeout);
  absl::Status Send(const std::string& game_id, const NotificationRow& notification) override;
  absl::string_view Name() const override { return "notifications"; }

 private:
  std::unique_ptr<notifications::v1::NotificationsInternalService::Stub> stub_;
  auth::TokenSigner signer_;
  absl::Duration timeout_;
};

}  // namespace parlor::sessions

#endif  // PARLOR_SERVICES_SESSIONS_OUTBOX_NOTIFICATIONS_ADAPTER_H_
