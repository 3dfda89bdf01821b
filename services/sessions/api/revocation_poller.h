#ifndef PARLOR_SERVICES_SESSIONS_API_REVOCATION_POLLER_H_
#define PARLOR_SERVICES_SESSIONS_API_REVOCATION_POLLER_H_

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "grpcpp/channel.h"
#include "parlor/accounts/v1/accounts.grpc.pb.h"
#include "services/common/core/token.h"
#include "services/sessions/api/stream_guard.h"

namespace parlor::sessions {

// Learns which sessions were signed out, on any accounts replica, by polling
// AccountsInternalService.ListRevokedSessions (with this service's credential) every
// `interval`, and hands them to the StreamGuard, which ends their streams. Each poll asks for
// what was revoked since a few seconds before the previous answer's server time (a sign-out
// committing late carries a slightly earlier time); the first asks for the last `remember`
// (longer than an access token lives), which is also how long a session is remembered.
class RevocationPoller {
 public:
  struct Options {
    absl::Duration interval = absl::Milliseconds(500);
    absl::Duration overlap = absl::Seconds(10);
    absl::Duration remember = absl::Hours(1);
    absl::Duration rpc_timeout = absl::Seconds(5);
  };

  // `signer` signs this service's credential (as "sessions").
  RevocationPoller(std::shared_ptr<grpc::Channel> accounts, auth::TokenSigner signer,
                   StreamGuard* guard, std::function<absl::Time()> clock, Options options);
  ~RevocationPoller();
  RevocationPoller(const RevocationPoller&) = delete;
  RevocationPoller& operator=(const RevocationPoller&) = delete;

  void Start();
  void Stop();

  // One poll now (every page); what the thread does each interval.
  absl::Status PollOnce();

 private:
  void Run();

  std::unique_ptr<accounts::v1::AccountsInternalService::Stub> stub_;
  auth::ServiceTokenSource credentials_;
  StreamGuard* guard_;
  std::function<absl::Time()> clock_;
  const Options options_;
  absl::Time since_;  // only touched by the polling thread (or PollOnce's caller)
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace parlor::sessions

#endif  // PARLOR_SERVICES_SESSIONS_API_REVOCATION_POLLER_H_
