#include "services/notifications/api/notifications_api.h"

#include "google/protobuf/util/time_util.h"
#include "services/common/grpc_status.h"

namespace parlor::notifications {
namespace {

using google::protobuf::util::TimeUtil;

void ToProto(absl::Time time, google::protobuf::Timestamp* out) {
  *out = TimeUtil::MicrosecondsToTimestamp(absl::ToUnixMicros(time));
}

absl::Time FromProto(const google::protobuf::Timestamp& time) {
  return absl::FromUnixMicros(TimeUtil::TimestampToMicroseconds(time));
}

void ToProto(const Device& device, v1::Device* out) {
  out->set_device_id(device.device_id);
  out->set_platform(static_cast<v1::Platform>(device.platform));
  out->set_token(device.token);
  out->set_locale(device.locale);
  out->set_time_zone(device.time_zone);
  out->set_app_id(device.app_id);
  out->set_sandbox(device.sandbox);
  ToProto(device.create_time, out->mutable_create_time());
  ToProto(device.update_time, out->mutable_update_time());
}

void ToProto(const Preferences& preferences, v1::Preferences* out) {
  for (const std::string& game_id : preferences.muted_game_ids) out->add_muted_game_ids(game_id);
  for (EventKind kind : preferences.disabled_kinds) {
    out->add_disabled_kinds(static_cast<v1::EventKind>(kind));
  }
  if (preferences.quiet_hours.has_value()) {
    out->mutable_quiet_hours()->set_start_minute(preferences.quiet_hours->start_minute);
    out->mutable_quiet_hours()->set_end_minute(preferences.quiet_hours->end_minute);
  }
  out->set_time_zone(preferences.time_zone);
}

Preferences FromProto(const v1::Preferences& in) {
  Preferences preferences;
  preferences.muted_game_ids.assign(in.muted_game_ids().begin(), in.muted_game_ids().end());
  for (int kind : in.disabled_kinds()) {
    preferences.disabled_kinds.push_back(static_cast<EventKind>(kind));
  }
  if (in.has_quiet_hours()) {
    preferences.quiet_hours =
        QuietHours{in.quiet_hours().start_minute(), in.quiet_hours().end_minute()};
  }
  preferences.time_zone = in.time_zone();
  return preferences;
}

}  // namespace

void ToProto(const Notification& n, v1::Notification* out) {
  out->set_notification_id(n.notification_id);
  out->set_kind(static_cast<v1::EventKind>(n.kind));
  out->set_title_loc_key(n.content.title_loc_key);
  out->set_loc_key(n.content.loc_key);
  for (const std::string& arg : n.content.loc_args) out->add_loc_args(arg);
  out->set_game_id(n.game_id);
  out->set_game(n.game);
  out->set_version(n.version);
  out->set_deep_link(n.content.deep_link);
  ToProto(n.create_time, out->mutable_create_time());
  out->set_read(n.read);
  if (!n.content.last_move.empty()) {
    out->mutable_last_move()->set_player_name(n.content.last_move_player);
    out->mutable_last_move()->set_description(n.content.last_move);
  }
}

Event FromProto(const v1::Event& in) {
  Event event;
  event.dedupe_key = in.dedupe_key();
  event.account_id = in.account_id();
  event.kind = static_cast<EventKind>(in.kind());
  event.game_id = in.game_id();
  event.game = in.game();
  event.version = in.version();
  event.opponent_names.assign(in.opponent_names().begin(), in.opponent_names().end());
  event.from_name = in.from_name();
  event.party_id = in.party_id();
  if (in.has_commit_time()) event.commit_time = FromProto(in.commit_time());
  if (in.has_expire_time()) event.expire_time = FromProto(in.expire_time());
  event.last_move_player = in.last_move().player_name();
  event.last_move = in.last_move().description();
  return event;
}

grpc::ServerUnaryReactor* NotificationsApi::RegisterDevice(grpc::CallbackServerContext* context,
                                                           const v1::RegisterDeviceRequest* request,
                                                           v1::RegisterDeviceResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext& call, const v1::RegisterDeviceRequest& request,
                          v1::RegisterDeviceResponse* response) -> absl::Status {
                     Device device;
                     device.platform = static_cast<Platform>(request.platform());
                     device.token = request.token();
                     device.locale = request.locale();
                     device.time_zone = request.time_zone();
                     device.app_id = request.app_id();
                     device.sandbox = request.sandbox();
                     absl::StatusOr<NotificationsStore::Registered> registered =
                         service_->RegisterDevice(call.account_id(), std::move(device));
                     if (!registered.ok()) return registered.status();
                     ToProto(registered->device, response->mutable_device());
                     response->set_moved(registered->moved);
                     return absl::OkStatus();
                   });
}

grpc::ServerUnaryReactor* NotificationsApi::UnregisterDevice(
    grpc::CallbackServerContext* context, const v1::UnregisterDeviceRequest* request,
    v1::UnregisterDeviceResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext& call, const v1::UnregisterDeviceRequest& request,
                          v1::UnregisterDeviceResponse*) {
                     return service_->UnregisterDevice(call.account_id(), request.device_id(),
                                                       request.token());
                   });
}

grpc::ServerUnaryReactor* NotificationsApi::ListMyDevices(grpc::CallbackServerContext* context,
                                                          const v1::ListMyDevicesRequest* request,
                                                          v1::ListMyDevicesResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext& call, const v1::ListMyDevicesRequest&,
                          v1::ListMyDevicesResponse* response) -> absl::Status {
                     absl::StatusOr<std::vector<Device>> devices =
                         service_->ListDevices(call.account_id());
                     if (!devices.ok()) return devices.status();
                     for (const Device& device : *devices) ToProto(device, response->add_devices());
                     return absl::OkStatus();
                   });
}

grpc::ServerUnaryReactor* NotificationsApi::GetPreferences(grpc::CallbackServerContext* context,
                                                           const v1::GetPreferencesRequest* request,
                                                           v1::GetPreferencesResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext& call, const v1::GetPreferencesRequest&,
                          v1::GetPreferencesResponse* response) -> absl::Status {
                     absl::StatusOr<Preferences> preferences =
                         service_->GetPreferences(call.account_id());
                     if (!preferences.ok()) return preferences.status();
                     ToProto(*preferences, response->mutable_preferences());
                     return absl::OkStatus();
                   });
}

grpc::ServerUnaryReactor* NotificationsApi::UpdatePreferences(
    grpc::CallbackServerContext* context, const v1::UpdatePreferencesRequest* request,
    v1::UpdatePreferencesResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext& call, const v1::UpdatePreferencesRequest& request,
                          v1::UpdatePreferencesResponse* response) -> absl::Status {
                     absl::StatusOr<Preferences> preferences = service_->UpdatePreferences(
                         call.account_id(), FromProto(request.preferences()));
                     if (!preferences.ok()) return preferences.status();
                     ToProto(*preferences, response->mutable_preferences());
                     return absl::OkStatus();
                   });
}

grpc::ServerUnaryReactor* NotificationsApi::ListNotifications(
    grpc::CallbackServerContext* context, const v1::ListNotificationsRequest* request,
    v1::ListNotificationsResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext& call, const v1::ListNotificationsRequest& request,
                          v1::ListNotificationsResponse* response) -> absl::Status {
                     absl::StatusOr<NotificationsService::InboxPage> page =
                         service_->ListNotifications(call.account_id(), request.page_size(),
                                                     request.page_token());
                     if (!page.ok()) return page.status();
                     for (const Notification& n : page->notifications) {
                       ToProto(n, response->add_notifications());
                     }
                     response->set_next_page_token(page->next_page_token);
                     response->set_unread_count(page->unread);
                     return absl::OkStatus();
                   });
}

grpc::ServerUnaryReactor* NotificationsApi::MarkRead(grpc::CallbackServerContext* context,
                                                     const v1::MarkReadRequest* request,
                                                     v1::MarkReadResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext& call, const v1::MarkReadRequest& request,
                          v1::MarkReadResponse* response) -> absl::Status {
                     std::vector<int64_t> ids(request.notification_ids().begin(),
                                              request.notification_ids().end());
                     absl::StatusOr<int64_t> unread = service_->MarkRead(
                         call.account_id(), ids, request.up_to_notification_id());
                     if (!unread.ok()) return unread.status();
                     response->set_unread_count(*unread);
                     return absl::OkStatus();
                   });
}

grpc::ServerWriteReactor<v1::WatchNotificationsResponse>* NotificationsApi::WatchNotifications(
    grpc::CallbackServerContext* context, const v1::WatchNotificationsRequest* request) {
  absl::StatusOr<std::optional<auth::Claims>> claims =
      authenticator_->Authenticate(*context, Access::kPlayer, rpc_->Now());
  if (!claims.ok() || !claims->has_value()) {
    class Refused final : public grpc::ServerWriteReactor<v1::WatchNotificationsResponse> {
     public:
      explicit Refused(const absl::Status& status) { Finish(ToGrpcStatus(status)); }
      void OnDone() override { delete this; }
    };
    return new Refused(claims.ok() ? absl::UnauthenticatedError("a player's access token is needed")
                                   : claims.status());
  }
  return hub_->Open(**claims, request->after_notification_id());
}

grpc::ServerUnaryReactor* NotificationsInternalApi::AcceptEvents(
    grpc::CallbackServerContext* context, const v1::AcceptEventsRequest* request,
    v1::AcceptEventsResponse* response) {
  return rpc_->Run(context, Access::kService, request, response,
                   [this](const CallContext&, const v1::AcceptEventsRequest& request,
                          v1::AcceptEventsResponse* response) -> absl::Status {
                     std::vector<Event> events;
                     events.reserve(request.events_size());
                     for (const v1::Event& event : request.events()) {
                       events.push_back(FromProto(event));
                     }
                     absl::StatusOr<NotificationsStore::Accepted> accepted =
                         service_->AcceptEvents(events);
                     if (!accepted.ok()) return accepted.status();
                     response->set_accepted(accepted->accepted);
                     response->set_duplicates(accepted->duplicates);
                     return absl::OkStatus();
                   });
}

}  // namespace parlor::notifications
