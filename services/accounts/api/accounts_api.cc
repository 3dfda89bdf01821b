#include "services/accounts/api/accounts_api.h"

#include "google/protobuf/util/time_util.h"
#include "services/accounts/api/api_convert.h"

namespace parlor::accounts {
using google::protobuf::util::TimeUtil;

void ToProto(absl::Time time, google::protobuf::Timestamp* out) {
  *out = TimeUtil::MicrosecondsToTimestamp(absl::ToUnixMicros(time));
}

void ToProto(const Account& account, v1::Account* out) {
  out->set_account_id(account.account_id);
  out->set_display_name(account.display_name);
  ToProto(account.create_time, out->mutable_create_time());
  ToProto(account.update_time, out->mutable_update_time());
}

void ToProto(const SessionTokens& tokens, v1::SessionTokens* out) {
  out->set_access_token(tokens.access_token);
  ToProto(tokens.access_token_expire_time, out->mutable_access_token_expire_time());
  out->set_refresh_token(tokens.refresh_token);
  ToProto(tokens.refresh_token_expire_time, out->mutable_refresh_token_expire_time());
}

void ToProto(const CredentialRow& credential, v1::Credential* out) {
  out->set_credential_id(credential.credential_id);
  out->set_kind(credential.kind == "email"   ? v1::CREDENTIAL_KIND_EMAIL
                : credential.kind == "apple" ? v1::CREDENTIAL_KIND_APPLE
                                             : v1::CREDENTIAL_KIND_GOOGLE);
  out->set_email(credential.email);
  ToProto(credential.create_time, out->mutable_create_time());
  ToProto(credential.last_used_time, out->mutable_last_used_time());
}

void ToProto(const DeviceInfo& device, v1::Device* out) {
  out->set_device_handle(device.device_handle);
  ToProto(device.create_time, out->mutable_create_time());
  ToProto(device.last_seen_time, out->mutable_last_seen_time());
  out->set_current(device.current);
}

void ToProto(const PlayerRow& player, v1::PlayerSummary* out) {
  out->set_account_id(player.account_id);
  out->set_display_name(player.display_name);
  ToProto(player.since, out->mutable_since_time());
}

grpc::ServerUnaryReactor* AccountsApi::AuthenticateDevice(
    grpc::CallbackServerContext* context, const v1::AuthenticateDeviceRequest* request,
    v1::AuthenticateDeviceResponse* response) {
  return rpc_->Run(context, Access::kPublic, request, response,
                   [this](const CallContext& call, const v1::AuthenticateDeviceRequest& request,
                          v1::AuthenticateDeviceResponse* response) -> absl::Status {
                     std::optional<std::string> display_name;
                     if (request.has_display_name()) display_name = request.display_name();
                     absl::StatusOr<AccountsService::SignIn> signed_in =
                         accounts_->AuthenticateDevice(request.device_id(), display_name,
                                                       call.client_address);
                     if (!signed_in.ok()) return signed_in.status();
                     ToProto(signed_in->account, response->mutable_account());
                     ToProto(signed_in->tokens, response->mutable_tokens());
                     response->set_created(signed_in->created);
                     return absl::OkStatus();
                   });
}

grpc::ServerUnaryReactor* AccountsApi::RefreshSession(grpc::CallbackServerContext* context,
                                                      const v1::RefreshSessionRequest* request,
                                                      v1::RefreshSessionResponse* response) {
  return rpc_->Run(context, Access::kPublic, request, response,
                   [this](const CallContext&, const v1::RefreshSessionRequest& request,
                          v1::RefreshSessionResponse* response) -> absl::Status {
                     absl::StatusOr<SessionTokens> tokens =
                         accounts_->RefreshSession(request.refresh_token());
                     if (!tokens.ok()) return tokens.status();
                     ToProto(*tokens, response->mutable_tokens());
                     return absl::OkStatus();
                   });
}

grpc::ServerUnaryReactor* AccountsApi::SignOut(grpc::CallbackServerContext* context,
                                               const v1::SignOutRequest* request,
                                               v1::SignOutResponse* response) {
  return rpc_->Run(
      context, Access::kPlayer, request, response,
      [this](const CallContext& call, const v1::SignOutRequest& request, v1::SignOutResponse*) {
        return accounts_->SignOut(*call.caller, request.all_devices());
      });
}

grpc::ServerUnaryReactor* AccountsApi::GetMe(grpc::CallbackServerContext* context,
                                             const v1::GetMeRequest* request,
                                             v1::GetMeResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext& call, const v1::GetMeRequest&,
                          v1::GetMeResponse* response) -> absl::Status {
                     absl::StatusOr<Account> account = accounts_->GetMe(*call.caller);
                     if (!account.ok()) return account.status();
                     ToProto(*account, response->mutable_account());
                     return absl::OkStatus();
                   });
}

grpc::ServerUnaryReactor* AccountsApi::UpdateProfile(grpc::CallbackServerContext* context,
                                                     const v1::UpdateProfileRequest* request,
                                                     v1::UpdateProfileResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext& call, const v1::UpdateProfileRequest& request,
                          v1::UpdateProfileResponse* response) -> absl::Status {
                     absl::StatusOr<Account> account =
                         accounts_->UpdateProfile(*call.caller, request.display_name());
                     if (!account.ok()) return account.status();
                     ToProto(*account, response->mutable_account());
                     return absl::OkStatus();
                   });
}

grpc::ServerUnaryReactor* AccountsInternalApi::BatchGetAccounts(
    grpc::CallbackServerContext* context, const v1::BatchGetAccountsRequest* request,
    v1::BatchGetAccountsResponse* response) {
  return rpc_->Run(
      context, Access::kService, request, response,
      [this](const CallContext&, const v1::BatchGetAccountsRequest& request,
             v1::BatchGetAccountsResponse* response) -> absl::Status {
        std::vector<std::string> ids(request.account_ids().begin(), request.account_ids().end());
        absl::StatusOr<std::vector<Account>> accounts = accounts_->BatchGetAccounts(ids);
        if (!accounts.ok()) return accounts.status();
        for (const Account& account : *accounts) {
          ToProto(account, response->add_accounts());
        }
        return absl::OkStatus();
      });
}

grpc::ServerUnaryReactor* AccountsInternalApi::ListRevokedSessions(
    grpc::CallbackServerContext* context, const v1::ListRevokedSessionsRequest* request,
    v1::ListRevokedSessionsResponse* response) {
  return rpc_->Run(context, Access::kService, request, response,
                   [this](const CallContext&, const v1::ListRevokedSessionsRequest& request,
                          v1::ListRevokedSessionsResponse* response) -> absl::Status {
                     const absl::Time since = absl::FromUnixMicros(
                         TimeUtil::TimestampToMicroseconds(request.revoked_since()));
                     absl::StatusOr<Revocations::Page> page =
                         revocations_->List(since, request.page_size(), request.page_token());
                     if (!page.ok()) return page.status();
                     for (const RevokedSessionRow& row : page->sessions) {
                       v1::RevokedSession* out = response->add_sessions();
                       out->set_session_id(row.session_id);
                       out->set_account_id(row.account_id);
                       ToProto(row.revoke_time, out->mutable_revoke_time());
                     }
                     response->set_next_page_token(page->next_page_token);
                     ToProto(page->server_time, response->mutable_server_time());
                     return absl::OkStatus();
                   });
}

}  // namespace parlor::accounts
