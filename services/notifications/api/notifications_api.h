#ifndef PARLOR_SERVICES_NOTIFICATIONS_API_NOTIFICATIONS_API_H_
#define PARLOR_SERVICES_NOTIFICATIONS_API_NOTIFICATIONS_API_H_

#include "parlor/notifications/v1/notifications.grpc.pb.h"
#include "services/common/rpc.h"
#include "services/notifications/api/inbox_watch.h"
#include "services/notifications/domain/notifications_service.h"

namespace parlor::notifications {

// gRPC transport for NotificationsService: proto <-> domain translation only. Bodies run on the
// worker pool through RpcRunner, which also authenticates and maps the status.
class NotificationsApi final : public v1::NotificationsService::CallbackService {
 public:
  // `authenticator` checks the streams' callers (unary calls go through `rpc`); `hub` holds
  // the open streams.
  NotificationsApi(NotificationsService* service, RpcRunner* rpc,
                   const Authenticator* authenticator, InboxWatchHub* hub)
      : service_(service), rpc_(rpc), authenticator_(authenticator), hub_(hub) {}

  grpc::ServerUnaryReactor* RegisterDevice(grpc::CallbackServerContext* context,
                                           const v1::RegisterDeviceRequest* request,
                                           v1::RegisterDeviceResponse* response) override;
  grpc::ServerUnaryReactor* UnregisterDevice(grpc::CallbackServerContext* context,
                                             const v1::UnregisterDeviceRequest* request,
                                             v1::UnregisterDeviceResponse* response) override;
  grpc::ServerUnaryReactor* ListMyDevices(grpc::CallbackServerContext* context,
                                          const v1::ListMyDevicesRequest* request,
                                          v1::ListMyDevicesResponse* response) override;
  grpc::ServerUnaryReactor* GetPreferences(grpc::CallbackServerContext* context,
                                           const v1::GetPreferencesRequest* request,
                                           v1::GetPreferencesResponse* response) override;
  grpc::ServerUnaryReactor* UpdatePreferences(grpc::CallbackServerContext* context,
                                              const v1::UpdatePreferencesRequest* request,
                                              v1::UpdatePreferencesResponse* response) override;
  grpc::ServerUnaryReactor* ListNotifications(grpc::CallbackServerContext* context,
                                              const v1::ListNotificationsRequest* request,
                                              v1::ListNotificationsResponse* response) override;
  grpc::ServerUnaryReactor* MarkRead(grpc::CallbackServerContext* context,
                                     const v1::MarkReadRequest* request,
                                     v1::MarkReadResponse* response) override;
  grpc::ServerWriteReactor<v1::WatchNotificationsResponse>* WatchNotifications(
      grpc::CallbackServerContext* context, const v1::WatchNotificationsRequest* request) override;

 private:
  NotificationsService* service_;
  RpcRunner* rpc_;
  const Authenticator* authenticator_;
  InboxWatchHub* hub_;
};

// Internal RPCs; need a service credential.
class NotificationsInternalApi final : public v1::NotificationsInternalService::CallbackService {
 public:
  NotificationsInternalApi(NotificationsService* service, RpcRunner* rpc)
      : service_(service), rpc_(rpc) {}

  grpc::ServerUnaryReactor* AcceptEvents(grpc::CallbackServerContext* context,
                                         const v1::AcceptEventsRequest* request,
                                         v1::AcceptEventsResponse* response) override;

 private:
  NotificationsService* service_;
  RpcRunner* rpc_;
};

// Proto <-> domain (exposed for the senders' tests and tools, and the streams).
Event FromProto(const v1::Event& event);
void ToProto(const Notification& n, v1::Notification* out);

}  // namespace parlor::notifications

#endif  // PARLOR_SERVICES_NOTIFICATIONS_API_NOTIFICATIONS_API_H_
