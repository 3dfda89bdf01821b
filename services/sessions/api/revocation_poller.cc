#include "services/sessions/api/revocation_poller.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/time_util.h"
#include "grpcpp/client_context.h"
#include "services/common/core/thread_name.h"
#include "spdlog/spdlog.h"

namespace parlor::sessions {

using google::protobuf::util::TimeUtil;

RevocationPoller::RevocationPoller(std::shared_ptr<grpc::Channel> accounts,
                                   auth::TokenSigner signer, StreamGuard* guard,
                                   std::function<absl::Time()> clock, Options options)
    : stub_(accounts::v1::AccountsInternalService::NewStub(accounts)),
      credentials_(std::move(signer), "sessions"),
      guard_(guard),
      clock_(std::move(clock)),
      options_(options),
      since_(clock_() - options_.remember) {}

RevocationPoller::~RevocationPoller() { Stop(); }

void RevocationPoller::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (thread_.joinable()) return;
  thread_ = std::thread([this] {
    NameThisThread("revocations");
    Run();
  });
}

void RevocationPoller::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

absl::Status RevocationPoller::PollOnce() {
  // The accounts service answers for the last day only.
  since_ = std::max(since_, clock_() - absl::Hours(23));
  accounts::v1::ListRevokedSessionsRequest request;
  *request.mutable_revoked_since() = TimeUtil::MicrosecondsToTimestamp(absl::ToUnixMicros(since_));
  request.set_page_size(1000);
  absl::Time server_time = absl::InfinitePast();
  for (int page = 0; page < 100; ++page) {
    absl::StatusOr<std::string> credential = credentials_.Token(clock_());
    if (!credential.ok()) return credential.status();
    grpc::ClientContext context;
    context.AddMetadata("authorization", absl::StrCat("Bearer ", *credential));
    context.set_deadline(absl::ToChronoTime(absl::Now() + options_.rpc_timeout));
    accounts::v1::ListRevokedSessionsResponse response;
    grpc::Status status = stub_->ListRevokedSessions(&context, request, &response);
    if (!status.ok()) {
      return absl::UnavailableError(absl::StrCat("ListRevokedSessions: ", status.error_message()));
    }
    std::vector<std::string> ids;
    ids.reserve(response.sessions_size());
    absl::Time forget = absl::InfinitePast();
    for (const accounts::v1::RevokedSession& s : response.sessions()) {
      ids.push_back(s.session_id());
      forget = std::max(forget,
                        absl::FromUnixMicros(TimeUtil::TimestampToMicroseconds(s.revoke_time())) +
                            options_.remember);
    }
    guard_->Revoke(ids, forget);
    if (page == 0) {
      server_time = absl::FromUnixMicros(TimeUtil::TimestampToMicroseconds(response.server_time()));
    }
    if (response.next_page_token().empty()) break;
    request.set_page_token(response.next_page_token());
  }
  // The next poll starts a little before this one's server time (never further back than the
  // accounts service accepts).
  if (server_time > since_ + options_.overlap) since_ = server_time - options_.overlap;
  return absl::OkStatus();
}

void RevocationPoller::Run() {
  bool failing = false;
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    lock.unlock();
    absl::Status status = PollOnce();
    if (!status.ok() && !failing) {
      spdlog::warn(
          "revocation poller: {}; streams of signed-out sessions end only when their "
          "token expires until it recovers",
          status.ToString());
    } else if (status.ok() && failing) {
      spdlog::info("revocation poller: recovered");
    }
    failing = !status.ok();
    lock.lock();
    cv_.wait_for(lock, absl::ToChronoMilliseconds(options_.interval), [this] { return stop_; });
  }
}

}  // namespace parlor::sessions
