// gRPC transport for account deletion and data export, and the deletion outbox.
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "services/accounts/api/accounts_api.h"
#include "services/accounts/api/api_convert.h"

namespace parlor::accounts {

std::string Authorization(const grpc::CallbackServerContext& context) {
  auto it = context.client_metadata().find("authorization");
  if (it == context.client_metadata().end()) return "";
  return std::string(it->second.data(), it->second.size());
}

grpc::ServerUnaryReactor* AccountsApi::DeleteAccount(grpc::CallbackServerContext* context,
                                                     const v1::DeleteAccountRequest* request,
                                                     v1::DeleteAccountResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext& call, const v1::DeleteAccountRequest& request,
                          v1::DeleteAccountResponse*) {
                     return deletion_->DeleteAccount(*call.caller, request.confirm_display_name());
                   });
}

grpc::ServerUnaryReactor* AccountsApi::ExportMyData(grpc::CallbackServerContext* context,
                                                    const v1::ExportMyDataRequest* request,
                                                    v1::ExportMyDataResponse* response) {
  // Games and ratings are asked for with the caller's own credential.
  const std::string authorization = Authorization(*context);
  return rpc_->Run(
      context, Access::kPlayer, request, response,
      [this, authorization](const CallContext& call, const v1::ExportMyDataRequest&,
                            v1::ExportMyDataResponse* response) -> absl::Status {
        const auth::Claims& caller = *call.caller;
        v1::AccountDataExport* data = response->mutable_data();
        absl::StatusOr<Account> account = accounts_->GetMe(caller);
        if (!account.ok()) return account.status();
        ToProto(*account, data->mutable_account());
        absl::StatusOr<std::vector<CredentialRow>> credentials =
            credentials_->ListCredentials(caller);
        if (!credentials.ok()) return credentials.status();
        for (const CredentialRow& row : *credentials) ToProto(row, data->add_credentials());
        absl::StatusOr<std::vector<DeviceInfo>> devices = credentials_->ListDevices(caller);
        if (!devices.ok()) return devices.status();
        for (const DeviceInfo& device : *devices) ToProto(device, data->add_devices());
        absl::StatusOr<FriendsStore::FriendLists> friends = friends_->ListFriends(caller);
        if (!friends.ok()) return friends.status();
        for (const PlayerRow& row : friends->friends) ToProto(row, data->add_friends());
        for (const PlayerRow& row : friends->incoming) {
          ToProto(row, data->add_incoming_friend_requests());
        }
        for (const PlayerRow& row : friends->outgoing) {
          ToProto(row, data->add_outgoing_friend_requests());
        }
        absl::StatusOr<std::vector<PlayerRow>> blocked = friends_->ListBlockedPlayers(caller);
        if (!blocked.ok()) return blocked.status();
        for (const PlayerRow& row : *blocked) ToProto(row, data->add_blocked_players());
        std::string accounts_json;
        google::protobuf::Struct whole;
        if (!google::protobuf::util::MessageToJsonString(*data, &accounts_json).ok() ||
            !google::protobuf::util::JsonStringToMessage(accounts_json, &whole).ok()) {
          return absl::InternalError("could not write the export as JSON");
        }
        std::vector<std::string> omitted;
        if (exports_ == nullptr) {
          omitted = {"games", "ratings"};
        } else if (absl::Status s = exports_->Gather(authorization, &whole, &omitted); !s.ok()) {
          return s;
        }
        for (std::string& part : omitted) response->add_omitted_parts(std::move(part));
        google::protobuf::util::JsonPrintOptions options;
        options.add_whitespace = true;
        if (!google::protobuf::util::MessageToJsonString(whole, response->mutable_json(), options)
                 .ok()) {
          return absl::InternalError("could not write the export as JSON");
        }
        return absl::OkStatus();
      });
}

grpc::ServerUnaryReactor* AccountsInternalApi::ListDeletedAccounts(
    grpc::CallbackServerContext* context, const v1::ListDeletedAccountsRequest* request,
    v1::ListDeletedAccountsResponse* response) {
  return rpc_->Run(context, Access::kService, request, response,
                   [this](const CallContext&, const v1::ListDeletedAccountsRequest& request,
                          v1::ListDeletedAccountsResponse* response) -> absl::Status {
                     absl::StatusOr<std::vector<AccountDeletionRow>> rows =
                         deletion_->ListDeletedAccounts(request.after_sequence(),
                                                        request.page_size());
                     if (!rows.ok()) return rows.status();
                     for (const AccountDeletionRow& row : *rows) {
                       v1::AccountDeletion* out = response->add_deletions();
                       out->set_sequence(row.sequence);
                       out->set_account_id(row.account_id);
                       ToProto(row.delete_time, out->mutable_delete_time());
                       out->set_display_name(row.display_name);
                       out->set_former_display_name(row.former_display_name);
                     }
                     return absl::OkStatus();
                   });
}

}  // namespace parlor::accounts
