#ifndef PARLOR_SERVICES_ACCOUNTS_API_ACCOUNTS_API_H_
#define PARLOR_SERVICES_ACCOUNTS_API_ACCOUNTS_API_H_

#include "parlor/accounts/v1/accounts.grpc.pb.h"
#include "services/accounts/api/export_sources.h"
#include "services/accounts/domain/accounts_service.h"
#include "services/accounts/domain/credentials_service.h"
#include "services/accounts/domain/deletion_service.h"
#include "services/accounts/domain/friends_service.h"
#include "services/accounts/domain/revocations.h"
#include "services/common/rpc.h"

namespace parlor::accounts {

// gRPC transport for AccountsService: proto ↔ domain translation only. Bodies run on the worker
// pool through RpcRunner, which also authenticates and maps the status.
class AccountsApi final : public parlor::accounts::v1::AccountsService::CallbackService {
 public:
  // `exports` (may be null) gathers games and ratings for ExportMyData.
  AccountsApi(AccountsService* accounts, CredentialsService* credentials, FriendsService* friends,
              DeletionService* deletion, RpcRunner* rpc, const ExportSources* exports = nullptr)
      : accounts_(accounts),
        credentials_(credentials),
        friends_(friends),
        deletion_(deletion),
        rpc_(rpc),
        exports_(exports) {}

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

  // Linked credentials and devices (credentials_api.cc).
  grpc::ServerUnaryReactor* SendLinkEmailCode(grpc::CallbackServerContext* context,
                                              const v1::SendLinkEmailCodeRequest* request,
                                              v1::SendLinkEmailCodeResponse* response) override;
  grpc::ServerUnaryReactor* LinkEmailPassword(grpc::CallbackServerContext* context,
                                              const v1::LinkEmailPasswordRequest* request,
                                              v1::LinkEmailPasswordResponse* response) override;
  grpc::ServerUnaryReactor* AuthenticateEmail(grpc::CallbackServerContext* context,
                                              const v1::AuthenticateEmailRequest* request,
                                              v1::AuthenticateEmailResponse* response) override;
  grpc::ServerUnaryReactor* SendPasswordResetCode(
      grpc::CallbackServerContext* context, const v1::SendPasswordResetCodeRequest* request,
      v1::SendPasswordResetCodeResponse* response) override;
  grpc::ServerUnaryReactor* ResetPassword(grpc::CallbackServerContext* context,
                                          const v1::ResetPasswordRequest* request,
                                          v1::ResetPasswordResponse* response) override;
  grpc::ServerUnaryReactor* AuthenticateIdToken(grpc::CallbackServerContext* context,
                                                const v1::AuthenticateIdTokenRequest* request,
                                                v1::AuthenticateIdTokenResponse* response) override;
  grpc::ServerUnaryReactor* LinkIdToken(grpc::CallbackServerContext* context,
                                        const v1::LinkIdTokenRequest* request,
                                        v1::LinkIdTokenResponse* response) override;
  grpc::ServerUnaryReactor* ListCredentials(grpc::CallbackServerContext* context,
                                            const v1::ListCredentialsRequest* request,
                                            v1::ListCredentialsResponse* response) override;
  grpc::ServerUnaryReactor* UnlinkCredential(grpc::CallbackServerContext* context,
                                             const v1::UnlinkCredentialRequest* request,
                                             v1::UnlinkCredentialResponse* response) override;
  grpc::ServerUnaryReactor* ListDevices(grpc::CallbackServerContext* context,
                                        const v1::ListDevicesRequest* request,
                                        v1::ListDevicesResponse* response) override;
  grpc::ServerUnaryReactor* RemoveDevice(grpc::CallbackServerContext* context,
                                         const v1::RemoveDeviceRequest* request,
                                         v1::RemoveDeviceResponse* response) override;

  // Friends and blocks (friends_api.cc).
  grpc::ServerUnaryReactor* SendFriendRequest(grpc::CallbackServerContext* context,
                                              const v1::SendFriendRequestRequest* request,
                                              v1::SendFriendRequestResponse* response) override;
  grpc::ServerUnaryReactor* AcceptFriendRequest(grpc::CallbackServerContext* context,
                                                const v1::AcceptFriendRequestRequest* request,
                                                v1::AcceptFriendRequestResponse* response) override;
  grpc::ServerUnaryReactor* DeclineFriendRequest(
      grpc::CallbackServerContext* context, const v1::DeclineFriendRequestRequest* request,
      v1::DeclineFriendRequestResponse* response) override;
  grpc::ServerUnaryReactor* RemoveFriend(grpc::CallbackServerContext* context,
                                         const v1::RemoveFriendRequest* request,
                                         v1::RemoveFriendResponse* response) override;
  grpc::ServerUnaryReactor* ListFriends(grpc::CallbackServerContext* context,
                                        const v1::ListFriendsRequest* request,
                                        v1::ListFriendsResponse* response) override;
  grpc::ServerUnaryReactor* BlockPlayer(grpc::CallbackServerContext* context,
                                        const v1::BlockPlayerRequest* request,
                                        v1::BlockPlayerResponse* response) override;
  grpc::ServerUnaryReactor* UnblockPlayer(grpc::CallbackServerContext* context,
                                          const v1::UnblockPlayerRequest* request,
                                          v1::UnblockPlayerResponse* response) override;
  grpc::ServerUnaryReactor* ListBlockedPlayers(grpc::CallbackServerContext* context,
                                               const v1::ListBlockedPlayersRequest* request,
                                               v1::ListBlockedPlayersResponse* response) override;

  // Deletion and export (privacy_api.cc).
  grpc::ServerUnaryReactor* DeleteAccount(grpc::CallbackServerContext* context,
                                          const v1::DeleteAccountRequest* request,
                                          v1::DeleteAccountResponse* response) override;
  grpc::ServerUnaryReactor* ExportMyData(grpc::CallbackServerContext* context,
                                         const v1::ExportMyDataRequest* request,
                                         v1::ExportMyDataResponse* response) override;

 private:
  // Fills games_with_friends from the caller's games in progress (or sets games_unavailable).
  void AddGamesWithFriends(const std::string& authorization,
                           v1::ListFriendsResponse* response) const;

  AccountsService* accounts_;
  CredentialsService* credentials_;
  FriendsService* friends_;
  DeletionService* deletion_;
  RpcRunner* rpc_;
  const ExportSources* exports_;
};

// The caller's `authorization` metadata, to ask other services on their behalf.
std::string Authorization(const grpc::CallbackServerContext& context);

// Internal RPCs; need a service credential.
class AccountsInternalApi final
    : public parlor::accounts::v1::AccountsInternalService::CallbackService {
 public:
  AccountsInternalApi(AccountsService* accounts, Revocations* revocations, FriendsService* friends,
                      DeletionService* deletion, RpcRunner* rpc)
      : accounts_(accounts),
        revocations_(revocations),
        friends_(friends),
        deletion_(deletion),
        rpc_(rpc) {}

  grpc::ServerUnaryReactor* BatchGetAccounts(grpc::CallbackServerContext* context,
                                             const v1::BatchGetAccountsRequest* request,
                                             v1::BatchGetAccountsResponse* response) override;
  grpc::ServerUnaryReactor* ListRevokedSessions(grpc::CallbackServerContext* context,
                                                const v1::ListRevokedSessionsRequest* request,
                                                v1::ListRevokedSessionsResponse* response) override;
  grpc::ServerUnaryReactor* CheckBlocks(grpc::CallbackServerContext* context,
                                        const v1::CheckBlocksRequest* request,
                                        v1::CheckBlocksResponse* response) override;
  grpc::ServerUnaryReactor* ListBlocks(grpc::CallbackServerContext* context,
                                       const v1::ListBlocksRequest* request,
                                       v1::ListBlocksResponse* response) override;

  grpc::ServerUnaryReactor* ListDeletedAccounts(grpc::CallbackServerContext* context,
                                                const v1::ListDeletedAccountsRequest* request,
                                                v1::ListDeletedAccountsResponse* response) override;

 private:
  AccountsService* accounts_;
  Revocations* revocations_;
  FriendsService* friends_;
  DeletionService* deletion_;
  RpcRunner* rpc_;
};

}  // namespace parlor::accounts

#endif  // PARLOR_SERVICES_ACCOUNTS_API_ACCOUNTS_API_H_
