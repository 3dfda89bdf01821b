#include "services/sessions/outbox/notifications_adapter.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/util/time_util.h"
#include "grpcpp/client_context.h"

namespace parlor::sessions {

namespace nv1 = notifications::v1;
using google::protobuf::util::TimeUtil;

namespace {

constexpr int kMaxOpponents = 8;

absl::StatusOr<nv1::EventKind> KindOf(const std::string& kind) {
  if (kind == "your_turn") return nv1::EVENT_KIND_YOUR_TURN;
  if (kind == "reminder") return nv1::EVENT_KIND_REMINDER;
  if (kind == "timeout") return nv1::EVENT_KIND_TIMEOUT;
  if (kind == "game_over") return nv1::EVENT_KIND_GAME_OVER;
  if (kind == "turn_over") return nv1::EVENT_KIND_TURN_OVER;
  // A player's nudge is a reminder to move (dropped like one once the turn is over); a rematch
  // offer is a challenge from that player to the same game.
  if (kind == "nudge") return nv1::EVENT_KIND_REMINDER;
  if (kind == "rematch_offer") return nv1::EVENT_KIND_CHALLENGE_RECEIVED;
  return absl::InvalidArgumentError(absl::StrCat("no notifications event for kind \"", kind, "\""));
}

}  // namespace

absl::StatusOr<nv1::Event> BuildNotificationEvent(const std::string& game_id,
                                                  const NotificationRow& notification,
                                                  std::optional<absl::Time> commit_time) {
  absl::StatusOr<nv1::EventKind> kind = KindOf(notification.kind);
  if (!kind.ok()) return kind.status();
  nv1::Event event;
  event.set_kind(*kind);
  event.set_dedupe_key(absl::StrCat("sessions:", notification.dedupe_key));
  event.set_account_id(notification.account_id);
  event.set_game_id(game_id);
  event.set_version(notification.version);
  if (commit_time.has_value()) {
    *event.mutable_commit_time() =
        TimeUtil::MicrosecondsToTimestamp(absl::ToUnixMicros(*commit_time));
  }
  google::protobuf::Struct payload;
  if (!google::protobuf::util::JsonStringToMessage(notification.payload_json, &payload).ok()) {
    return event;
  }
  const auto& fields = payload.fields();
  if (auto game = fields.find("game"); game != fields.end()) {
    event.set_game(game->second.string_value());
  }
  if (auto opponents = fields.find("opponents"); opponents != fields.end()) {
    for (const google::protobuf::Value& name : opponents->second.list_value().values()) {
      if (event.opponent_names_size() == kMaxOpponents) break;
      // notifications takes names of 1-64 bytes; a longer one is left out, not the event.
      const std::string& text = name.string_value();
      if (!text.empty() && text.size() <= 64) event.add_opponent_names(text);
    }
  }
  if (auto from = fields.find("from_name"); from != fields.end()) {
    const std::string& text = from->second.string_value();
    if (!text.empty() && text.size() <= 64) event.set_from_name(text);
  }
  if (auto move = fields.find("last_move"); move != fields.end()) {
    // Written by sessions within notifications' limits (1-200 bytes; a mover's name of 1-64).
    const std::string& text = move->second.string_value();
    if (!text.empty() && text.size() <= 200) {
      event.mutable_last_move()->set_description(text);
      if (auto mover = fields.find("last_mover"); mover != fields.end()) {
        const std::string& name = mover->second.string_value();
        if (!name.empty() && name.size() <= 64) event.mutable_last_move()->set_player_name(name);
      }
    }
  }
  if (auto expires = fields.find("expires_at_us"); expires != fields.end()) {
    // Microseconds since the epoch as a JSON number (exact below 2^53, i.e. until year 2255).
    *event.mutable_expire_time() =
        TimeUtil::MicrosecondsToTimestamp(static_cast<int64_t>(expires->second.number_value()));
  }
  return event;
}

NotificationsPushAdapter::NotificationsPushAdapter(std::shared_ptr<grpc::Channel> channel,
                                                   auth::TokenSigner signer, absl::Duration timeout)
    : stub_(nv1::NotificationsInternalService::NewStub(std::move(channel))),
      signer_(std::move(signer)),
      timeout_(timeout) {}

absl::Status NotificationsPushAdapter::Accept(const nv1::AcceptEventsRequest& request) {
  absl::StatusOr<std::string> token = signer_.Sign("sessions", "", absl::Now(), absl::Minutes(5));
  if (!token.ok()) return token.status();
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

absl::Status NotificationsPushAdapter::Send(const std::string& game_id,
                                            const NotificationRow& notification) {
  absl::StatusOr<nv1::Event> event = BuildNotificationEvent(game_id, notification);
  // A kind notifications does not know is not worth retrying: acknowledged without sending.
  if (!event.ok()) return absl::OkStatus();
  nv1::AcceptEventsRequest request;
  *request.add_events() = *std::move(event);
  return Accept(request);
}

std::vector<absl::Status> NotificationsPushAdapter::SendBatch(
    const std::vector<PgSessionsStore::PendingNotification>& batch) {
  std::vector<absl::Status> results(batch.size(), absl::OkStatus());
  for (size_t start = 0; start < batch.size(); start += kMaxEventsPerCall) {
    const size_t end = std::min(batch.size(), start + kMaxEventsPerCall);
    nv1::AcceptEventsRequest request;
    std::vector<size_t> rows;  // the batch index of each event sent
    for (size_t i = start; i < end; ++i) {
      const PgSessionsStore::PendingNotification& n = batch[i];
      absl::StatusOr<nv1::Event> event = BuildNotificationEvent(n.game_id, n.row, n.created_at);
      if (!event.ok()) continue;  // acknowledged without sending, as in Send
      *request.add_events() = *std::move(event);
      rows.push_back(i);
    }
    if (rows.empty()) continue;
    absl::Status accepted = Accept(request);
    if (accepted.code() == absl::StatusCode::kInvalidArgument && rows.size() > 1) {
      // One bad row refuses the whole call: send them one by one.
      for (size_t k = 0; k < rows.size(); ++k) {
        nv1::AcceptEventsRequest single;
        *single.add_events() = request.events(static_cast<int>(k));
        results[rows[k]] = Accept(single);
      }
      continue;
    }
    for (size_t i : rows) results[i] = accepted;
  }
  return results;
}

}  // namespace parlor::sessions
