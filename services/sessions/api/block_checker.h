#ifndef PARLOR_SERVICES_SESSIONS_API_BLOCK_CHECKER_H_
#define PARLOR_SERVICES_SESSIONS_API_BLOCK_CHECKER_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/channel.h"
#include "parlor/accounts/v1/accounts.grpc.pb.h"
#include "services/common/core/token.h"

namespace parlor::sessions {

// Who blocked whom among a few accounts, from AccountsInternalService.CheckBlocks (with this
// service's credential): what the chat needs to hide a blocked sender's messages from the
// blocker. Safe to call from any thread.
class BlockChecker {
 public:
  // `signer` signs this service's credential (as "sessions").
  BlockChecker(std::shared_ptr<grpc::Channel> accounts, auth::TokenSigner signer,
               absl::Duration rpc_timeout = absl::Seconds(2));

  // The (blocker, blocked) pairs among 2-16 accounts; UNAVAILABLE when accounts cannot answer.
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> Check(
      const std::vector<std::string>& account_ids);

  // Everyone `account_id` blocked or was blocked by (accounts' ListBlocks); UNAVAILABLE when
  // accounts cannot answer.
  absl::StatusOr<std::vector<std::string>> EitherWay(const std::string& account_id);

 private:
  std::unique_ptr<accounts::v1::AccountsInternalService::Stub> stub_;
  auth::ServiceTokenSource credentials_;
  const absl::Duration rpc_timeout_;
};

}  // namespace parlor::sessions

#endif  // PARLOR_SERVICES_SESSIONS_API_BLOCK_CHECKER_H_
