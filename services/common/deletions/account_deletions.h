#ifndef PARLOR_SERVICES_COMMON_DELETIONS_ACCOUNT_DELETIONS_H_
#define PARLOR_SERVICES_COMMON_DELETIONS_ACCOUNT_DELETIONS_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/channel.h"
#include "parlor/accounts/v1/accounts.grpc.pb.h"
#include "services/common/core/flags.h"
#include "services/common/core/token.h"
#include "services/common/deletions/deletion_sink.h"
#include "services/common/server.h"

namespace parlor {

// Reads AccountsInternalService.ListDeletedAccounts (with this service's credential) every
// `interval` and hands each deletion to the sink. A deletion committing late can carry a lower
// sequence than one already read, so every `reread` it also re-reads from where it stood
// `reread` earlier, skipping what it handled since. Every replica runs one; the sink's work is
// idempotent, so replicas racing on the same deletion is harmless.
class AccountDeletionFollower {
 public:
  struct Options {
    absl::Duration interval = absl::Seconds(2);
    absl::Duration reread = absl::Minutes(1);
    absl::Duration rpc_timeout = absl::Seconds(5);
  };

  AccountDeletionFollower(std::shared_ptr<grpc::Channel> accounts, auth::TokenSigner signer,
                          std::string service_name, AccountDeletionSink* sink,
                          std::function<absl::Time()> clock, Options options);
  ~AccountDeletionFollower();
  AccountDeletionFollower(const AccountDeletionFollower&) = delete;
  AccountDeletionFollower& operator=(const AccountDeletionFollower&) = delete;

  void Start();
  void Stop();

  // One poll now, every page; what the thread does each interval. Returns how many deletions
  // were handed to the sink.
  absl::StatusOr<int> PollOnce();

 private:
  void Run();
  absl::StatusOr<int> ReadFrom(int64_t after_sequence);

  std::unique_ptr<accounts::v1::AccountsInternalService::Stub> stub_;
  auth::ServiceTokenSource credentials_;
  std::string service_name_;
  AccountDeletionSink* sink_;
  std::function<absl::Time()> clock_;
  const Options options_;
  // Only touched by the polling thread (or PollOnce's caller).
  std::deque<std::pair<absl::Time, int64_t>> cursor_history_;
  std::set<int64_t> recently_handled_;
  absl::Time last_reread_ = absl::InfinitePast();
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

// The settings of a service that follows deletions but has no other use for the accounts
// service: --accounts_address and --service_token_private_key.
struct AccountDeletionSettings {
  std::string accounts_address;
  std::string service_token_private_key;
};
void AddAccountDeletionFlags(Flags& flags, AccountDeletionSettings* settings);

// A follower for `service_name` that hands deletions to `sink` (Start() it once the schema is
// migrated), or nullptr (with a warning that the service keeps deleted players' data) when
// `accounts_address` is empty. INVALID_ARGUMENT when the address is set without a service
// signing key.
absl::StatusOr<std::unique_ptr<AccountDeletionFollower>> MakeAccountDeletionFollower(
    ServiceHost& host, const AccountDeletionSettings& settings, const std::string& service_name,
    AccountDeletionSink* sink);

}  // namespace parlor

#endif  // PARLOR_SERVICES_COMMON_DELETIONS_ACCOUNT_DELETIONS_H_
