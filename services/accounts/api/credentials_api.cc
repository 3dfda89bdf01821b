// gRPC transport for the linked-credential and device RPCs of AccountsService.
#include "services/accounts/api/accounts_api.h"
#include "services/accounts/api/api_convert.h"

namespace parlor::accounts {
namespace {

// "apple" / "google" for the providers; anything else is refused by the domain.
std::string ProviderName(v1::CredentialKind kind) {
  switch (kind) {
    case v1::CREDENTIAL_KIND_APPLE:
      return "apple";
    case v1::CREDENTIAL_KIND_GOOGLE:
      return "google";
    default:
      return "";
  }
}

template <typename Response>
absl::Status SignedIn(const absl::StatusOr<AccountsService::SignIn>& signed_in,
                      Response* response) {
  if (!signed_in.ok()) return signed_in.status();
  ToProto(signed_in->account, response->mutable_account());
  ToProto(signed_in->tokens, response->mutable_tokens());
  return absl::OkStatus();
}

}  // namespace

grpc::ServerUnaryReactor* AccountsApi::SendLinkEmailCode(
    grpc::CallbackServerContext* context, const v1::SendLinkEmailCodeRequest* request,
    v1::SendLinkEmailCodeResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext& call, const v1::SendLinkEmailCodeRequest& request,
                          v1::SendLinkEmailCodeResponse* response) -> absl::Status {
                     absl::StatusOr<absl::Time> expires = credentials_->SendLinkEmailCode(
                         *call.caller, request.email(), call.client_address);
                     if (!expires.ok()) return expires.status();
                     ToProto(*expires, response->mutable_code_expire_time());
                     return absl::OkStatus();
                   });
}

grpc::ServerUnaryReactor* AccountsApi::LinkEmailPassword(
    grpc::CallbackServerContext* context, const v1::LinkEmailPasswordRequest* request,
    v1::LinkEmailPasswordResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext& call, const v1::LinkEmailPasswordRequest& request,
                          v1::LinkEmailPasswordResponse* response) -> absl::Status {
                     absl::StatusOr<CredentialRow> credential = credentials_->LinkEmailPassword(
                         *call.caller, request.email(), request.code(), request.password(),
                         call.client_address);
                     if (!credential.ok()) return credential.status();
                     ToProto(*credential, response->mutable_credential());
                     return absl::OkStatus();
                   });
}

grpc::ServerUnaryReactor* AccountsApi::AuthenticateEmail(
    grpc::CallbackServerContext* context, const v1::AuthenticateEmailRequest* request,
    v1::AuthenticateEmailResponse* response) {
  return rpc_->Run(context, Access::kPublic, request, response,
                   [this](const CallContext& call, const v1::AuthenticateEmailRequest& request,
                          v1::AuthenticateEmailResponse* response) -> absl::Status {
                     return SignedIn(
                         credentials_->AuthenticateEmail(request.email(), request.password(),
                                                         request.device_id(), call.client_address),
                         response);
                   });
}

grpc::ServerUnaryReactor* AccountsApi::SendPasswordResetCode(
    grpc::CallbackServerContext* context, const v1::SendPasswordResetCodeRequest* request,
    v1::SendPasswordResetCodeResponse* response) {
  return rpc_->Run(context, Access::kPublic, request, response,
                   [this](const CallContext& call, const v1::SendPasswordResetCodeRequest& request,
                          v1::SendPasswordResetCodeResponse* response) -> absl::Status {
                     absl::StatusOr<absl::Time> expires =
                         credentials_->SendPasswordResetCode(request.email(), call.client_address);
                     if (!expires.ok()) return expires.status();
                     ToProto(*expires, response->mutable_code_expire_time());
                     return absl::OkStatus();
                   });
}

grpc::ServerUnaryReactor* AccountsApi::ResetPassword(grpc::CallbackServerContext* context,
                                                     const v1::ResetPasswordRequest* request,
                                                     v1::ResetPasswordResponse* response) {
  return rpc_->Run(context, Access::kPublic, request, response,
                   [this](const CallContext& call, const v1::ResetPasswordRequest& request,
                          v1::ResetPasswordResponse* response) -> absl::Status {
                     return SignedIn(credentials_->ResetPassword(
                                         request.email(), request.code(), request.new_password(),
                                         request.device_id(), call.client_address),
                                     response);
                   });
}

grpc::ServerUnaryReactor* AccountsApi::AuthenticateIdToken(
    grpc::CallbackServerContext* context, const v1::AuthenticateIdTokenRequest* request,
    v1::AuthenticateIdTokenResponse* response) {
  return rpc_->Run(context, Access::kPublic, request, response,
                   [this](const CallContext&, const v1::AuthenticateIdTokenRequest& request,
                          v1::AuthenticateIdTokenResponse* response) -> absl::Status {
                     return SignedIn(credentials_->AuthenticateIdToken(
                                         ProviderName(request.provider()), request.id_token(),
                                         request.nonce(), request.device_id()),
                                     response);
                   });
}

grpc::ServerUnaryReactor* AccountsApi::LinkIdToken(grpc::CallbackServerContext* context,
                                                   const v1::LinkIdTokenRequest* request,
                                                   v1::LinkIdTokenResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext& call, const v1::LinkIdTokenRequest& request,
                          v1::LinkIdTokenResponse* response) -> absl::Status {
                     absl::StatusOr<CredentialRow> credential =
                         credentials_->LinkIdToken(*call.caller, ProviderName(request.provider()),
                                                   request.id_token(), request.nonce());
                     if (!credential.ok()) return credential.status();
                     ToProto(*credential, response->mutable_credential());
                     return absl::OkStatus();
                   });
}

grpc::ServerUnaryReactor* AccountsApi::ListCredentials(grpc::CallbackServerContext* context,
                                                       const v1::ListCredentialsRequest* request,
                                                       v1::ListCredentialsResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext& call, const v1::ListCredentialsRequest&,
                          v1::ListCredentialsResponse* response) -> absl::Status {
                     absl::StatusOr<std::vector<CredentialRow>> credentials =
                         credentials_->ListCredentials(*call.caller);
                     if (!credentials.ok()) return credentials.status();
                     for (const CredentialRow& credential : *credentials) {
                       ToProto(credential, response->add_credentials());
                     }
                     return absl::OkStatus();
                   });
}

grpc::ServerUnaryReactor* AccountsApi::UnlinkCredential(grpc::CallbackServerContext* context,
                                                        const v1::UnlinkCredentialRequest* request,
                                                        v1::UnlinkCredentialResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext& call, const v1::UnlinkCredentialRequest& request,
                          v1::UnlinkCredentialResponse*) {
                     return credentials_->UnlinkCredential(*call.caller, request.credential_id());
                   });
}

grpc::ServerUnaryReactor* AccountsApi::ListDevices(grpc::CallbackServerContext* context,
                                                   const v1::ListDevicesRequest* request,
                                                   v1::ListDevicesResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext& call, const v1::ListDevicesRequest&,
                          v1::ListDevicesResponse* response) -> absl::Status {
                     absl::StatusOr<std::vector<DeviceInfo>> devices =
                         credentials_->ListDevices(*call.caller);
                     if (!devices.ok()) return devices.status();
                     for (const DeviceInfo& device : *devices) {
                       ToProto(device, response->add_devices());
                     }
                     return absl::OkStatus();
                   });
}

grpc::ServerUnaryReactor* AccountsApi::RemoveDevice(grpc::CallbackServerContext* context,
                                                    const v1::RemoveDeviceRequest* request,
                                                    v1::RemoveDeviceResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext& call, const v1::RemoveDeviceRequest& request,
                          v1::RemoveDeviceResponse*) {
                     return credentials_->RemoveDevice(*call.caller, request.device_handle());
                   });
}

}  // namespace parlor::accounts
