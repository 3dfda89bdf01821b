#include "services/sessions/outbox/notifications_adapter.h"

#include "absl/strings/str_cat.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "grpcpp/client_context.h"

namespace parlor::sessions {

namespace nv1 = notifications::v1;

absl::StatusOr<nv1::Event> BuildNotificationEvent(const std::string& game_id,
                                                  const NotificationRow& notification) {
  nv1::Event event;
  if (notification.kind == "your_turn") {
    event.set_kind(nv1::EVENT_KIND_YOUR_TURN);
  } else if (notification.kind == "reminder") {
    event.set_kind(nv1::EVENT_KIND_REMINDER);
  } else if (notification.kind == "timeout") {
    event.set_kind(nv1::EVENT_KIND_TIMEOUT);
  } else if (notification.kind == "game_over") {
    event.set_kind(nv1::EVENT_KIND_GAME_OVER);
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("no notifications event for kind \"", notification.kind, "\""));
  }
  event.set_dedupe_key(absl::StrCat("sessions:", notification.dedupe_key));
  event.set_account_id(notification.account_id);
  event.set_game_id(game_id);
  event.set_version(notification.version);
  google::protobuf::Struct payload;
  if (google::protobuf::util::JsonStringToMessage(notification.payload_json, &payload).ok()) {
    auto game = payload.fields().find("game");
    if (game != payload.fields().end()) event.set_game(game->second.string_value());
  }
  return event;
}

NotificationsPushAdapter::NotificationsPushAdapter(std::shared_ptr<grpc::Channel> channel,
                                                   auth::TokenSigner signer, absl::Duration timeout)
    : stub_(nv1::NotificationsInternalService::NewStub(std::move(channel))),
      signer_(std::move(signer)),
      timeout_(timeout) {}

absl::Status NotificationsPushAdapter::Send(const std::string& game_id,
                                            const NotificationRow& notification) {
  absl::StatusOr<nv1::Event> event = BuildNotificationEvent(game_id, notification);
  // A kind notifications does not know is not worth retrying: acknowledged without sending.
  if (!event.ok()) return absl::OkStatus();
  absl::StatusOr<std::string> token = signer_.Sign("sessions", "", absl::Now(), absl::Minutes(5));
  if (!token.ok()) return token.status();
  nv1::AcceptEventsRequest request;
  *request.add_events() = *std::move(event);
  grpc::ClientContext context;
  context.AddMetadata("authorization", absl::StrCat("Bearer ", *token));
  context.set_deadline(absl::ToChronoTime(absl::Now() + timeout_));
  nv1::AcceptEventsResponse response;
  const grpc::Status status = stub_->AcceptEvents(&context, request, &response);
  if (status.ok()) return absl::OkStatus();
  if (status.error_code() == grpc::StatusCode::CANCELLED) {
    return absl::UnavailableError("notifications.AcceptEvents was cancelled; will retry");
  }
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                      absl::StrCat("notifications.AcceptEvents: ", status.error_message()));
}

}  // namespace parlor::sessions
