#ifndef PARLOR_SERVICES_ACCOUNTS_API_ACCOUNTS_API_H_
#define PARLOR_SERVICES_ACCOUNTS_API_ACCOUNTS_API_H_

#include "parlor/accounts/v1/accounts.grpc.pb.h"
#include "services/accounts/domain/accounts_service.h"
#include "services/accounts/domain/revocations.h"
#include "services/common/rpc.h"

namespace parlor::accounts {

// gRPC transport for AccountsService: proto ↔ domain translation only. Bodies run on the worker
// pool through RpcRunner, which also authenticates and maps the status.
class AccountsApi final : public parlor::accounts::v1::AccountsService::CallbackService {
 public:
  AccountsApi(AccountsService* accounts, RpcRunner* rpc) : accounts_(accounts), rpc_(rpc) {}

  grpc::ServerUnaryReactor* AuthenticateDevice(grpc::CallbackServerContext* context,
                                               const v1::AuthenticateDeviceRequest* request,
                                               v1::AuthenticateDeviceResponse* response) override;
  grpc::ServerUnaryReactor* RefreshSession(grpc::CallbackServerContext* context,
                                           const v1::RefreshSessionRequest* request,
                                           v1::RefreshSessionResponse* response) override;
  grpc::ServerUnaryReactor* SignOut(grpc::CallbackServerContext* context,
                                    const v1::SignOutRequest* request,
                                    v1::SignOutResponse* response) override;
  grpc::ServerUnaryReactor* GetMe(grpc::CallbackServerContext* context,
                                  const v1::GetMeRequest* request,
                                  v1::GetMeResponse* response) override;
  grpc::ServerUnaryReactor* UpdateProfile(grpc::CallbackServerContext* context,
                                          const v1::UpdateProfileRequest* request,
                                          v1::UpdateProfileResponse* response) override;

 private:
  AccountsService* accounts_;
  RpcRunner* rpc_;
};

// Internal RPCs; need a service credential.
class AccountsInternalApi final
    : public parlor::accounts::v1::AccountsInternalService::CallbackService {
 public:
  AccountsInternalApi(AccountsService* accounts, Revocations* revocations, RpcRunner* rpc)
      : accounts_(accounts), revocations_(revocations), rpc_(rpc) {}

  grpc::ServerUnaryReactor* BatchGetAccounts(grpc::CallbackServerContext* context,
                                             const v1::BatchGetAccountsRequest* request,
                                             v1::BatchGetAccountsResponse* response) override;
  grpc::ServerUnaryReactor* ListRevokedSessions(grpc::CallbackServerContext* context,
                                                const v1::ListRevokedSessionsRequest* request,
                                                v1::ListRevokedSessionsResponse* response) override;

 private:
  AccountsService* accounts_;
  Revocations* revocations_;
  RpcRunner* rpc_;
};

}  // namespace parlor::accounts

#endif  // PARLOR_SERVICES_ACCOUNTS_API_ACCOUNTS_API_H_
