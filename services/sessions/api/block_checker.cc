#include "services/sessions/api/block_checker.h"

#include "absl/strings/str_cat.h"
#include "grpcpp/client_context.h"

namespace parlor::sessions {

BlockChecker::BlockChecker(std::shared_ptr<grpc::Channel> accounts, auth::TokenSigner signer,
                           absl::Duration rpc_timeout)
    : stub_(accounts::v1::AccountsInternalService::NewStub(std::move(accounts))),
      credentials_(std::move(signer), "sessions"),
      rpc_timeout_(rpc_timeout) {}

absl::StatusOr<std::vector<std::pair<std::string, std::string>>> BlockChecker::Check(
    const std::vector<std::string>& account_ids) {
  std::vector<std::pair<std::string, std::string>> out;
  if (account_ids.size() < 2) return out;
  absl::StatusOr<std::string> credential = credentials_.Token(absl::Now());
  if (!credential.ok()) return credential.status();
  accounts::v1::CheckBlocksRequest request;
  for (const std::string& id : account_ids) request.add_account_ids(id);
  grpc::ClientContext context;
  context.AddMetadata("authorization", absl::StrCat("Bearer ", *credential));
  context.set_deadline(absl::ToChronoTime(absl::Now() + rpc_timeout_));
  accounts::v1::CheckBlocksResponse response;
  const grpc::Status status = stub_->CheckBlocks(&context, request, &response);
  if (!status.ok()) {
    return absl::UnavailableError(absl::StrCat("accounts.CheckBlocks: ", status.error_message()));
  }
  for (const accounts::v1::Block& b : response.blocks()) {
    out.emplace_back(b.blocker_account_id(), b.blocked_account_id());
  }
  return out;
}

absl::StatusOr<std::vector<std::string>> BlockChecker::EitherWay(const std::string& account_id) {
  absl::StatusOr<std::string> credential = credentials_.Token(absl::Now());
  if (!credential.ok()) return credential.status();
  accounts::v1::ListBlocksRequest request;
  request.set_account_id(account_id);
  grpc::ClientContext context;
  context.AddMetadata("authorization", absl::StrCat("Bearer ", *credential));
  context.set_deadline(absl::ToChronoTime(absl::Now() + rpc_timeout_));
  accounts::v1::ListBlocksResponse response;
  const grpc::Status status = stub_->ListBlocks(&context, request, &response);
  if (!status.ok()) {
    return absl::UnavailableError(absl::StrCat("accounts.ListBlocks: ", status.error_message()));
  }
  std::vector<std::string> out(response.blocked_account_ids().begin(),
                               response.blocked_account_ids().end());
  out.insert(out.end(), response.blocked_by_account_ids().begin(),
             response.blocked_by_account_ids().end());
  return out;
}

}  // namespace parlor::sessions
