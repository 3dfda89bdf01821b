#include "services/common/deletions/account_deletions.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "grpcpp/client_context.h"
#include "services/common/core/thread_name.h"
#include "spdlog/spdlog.h"

namespace parlor {

AccountDeletionFollower::AccountDeletionFollower(std::shared_ptr<grpc::Channel> accounts,
                                                 auth::TokenSigner signer, std::string service_name,
                                                 AccountDeletionSink* sink,
                                                 std::function<absl::Time()> clock, Options options)
    : stub_(accounts::v1::AccountsInternalService::NewStub(accounts)),
      credentials_(std::move(signer), service_name),
      service_name_(std::move(service_name)),
      sink_(sink),
      clock_(std::move(clock)),
      options_(options) {}

AccountDeletionFollower::~AccountDeletionFollower() { Stop(); }

void AccountDeletionFollower::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (thread_.joinable()) return;
  thread_ = std::thread([this] {
    NameThisThread("account-deletes");
    Run();
  });
}

void AccountDeletionFollower::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

absl::StatusOr<int> AccountDeletionFollower::ReadFrom(int64_t after_sequence) {
  int handled = 0;
  accounts::v1::ListDeletedAccountsRequest request;
  request.set_page_size(500);
  for (int64_t after = after_sequence;;) {
    request.set_after_sequence(after);
    absl::StatusOr<std::string> credential = credentials_.Token(clock_());
    if (!credential.ok()) return credential.status();
    grpc::ClientContext context;
    context.AddMetadata("authorization", absl::StrCat("Bearer ", *credential));
    context.set_deadline(absl::ToChronoTime(absl::Now() + options_.rpc_timeout));
    accounts::v1::ListDeletedAccountsResponse response;
    grpc::Status status = stub_->ListDeletedAccounts(&context, request, &response);
    if (!status.ok()) {
      return absl::UnavailableError(absl::StrCat("ListDeletedAccounts: ", status.error_message()));
    }
    for (const accounts::v1::AccountDeletion& deletion : response.deletions()) {
      after = std::max(after, deletion.sequence());
      if (recently_handled_.contains(deletion.sequence())) continue;
      absl::Status forgotten =
          sink_->Forget({.sequence = deletion.sequence(),
                         .account_id = deletion.account_id(),
                         .display_name = deletion.display_name(),
                         .former_display_name = deletion.former_display_name()});
      if (!forgotten.ok()) {
        return absl::Status(forgotten.code(),
                            absl::StrCat("forgetting deleted account ", deletion.account_id(), ": ",
                                         forgotten.message()));
      }
      recently_handled_.insert(deletion.sequence());
      ++handled;
    }
    if (response.deletions_size() < request.page_size()) break;
  }
  return handled;
}

absl::StatusOr<int> AccountDeletionFollower::PollOnce() {
  const absl::Time now = clock_();
  absl::StatusOr<int64_t> through = sink_->HandledThrough();
  if (!through.ok()) return through.status();
  cursor_history_.emplace_back(now, *through);
  while (cursor_history_.size() > 1 && cursor_history_[1].first <= now - options_.reread) {
    cursor_history_.pop_front();
  }
  int64_t after = *through;
  if (now - last_reread_ >= options_.reread) {
    // Start from where this replica stood about `reread` ago: deletions that committed late
    // (with a sequence below one already handled) are picked up now.
    after = std::min(after, cursor_history_.front().second);
    last_reread_ = now;
  }
  absl::StatusOr<int> handled = ReadFrom(after);
  if (!handled.ok()) return handled.status();
  // What lies below the oldest remembered cursor is never read again.
  const int64_t floor = cursor_history_.front().second;
  recently_handled_.erase(recently_handled_.begin(), recently_handled_.upper_bound(floor));
  return *handled;
}

void AccountDeletionFollower::Run() {
  bool failing = false;
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    lock.unlock();
    absl::StatusOr<int> handled = PollOnce();
    if (!handled.ok() && !failing) {
      spdlog::warn("{}: account deletions are not being applied: {}", service_name_,
                   handled.status().ToString());
    } else if (handled.ok() && failing) {
      spdlog::info("{}: account deletions recovered", service_name_);
    }
    if (handled.ok() && *handled > 0) {
      spdlog::info("{}: forgot {} deleted account(s)", service_name_, *handled);
    }
    failing = !handled.ok();
    lock.lock();
    cv_.wait_for(lock, absl::ToChronoMilliseconds(options_.interval), [this] { return stop_; });
  }
}

void AddAccountDeletionFlags(Flags& flags, AccountDeletionSettings* settings) {
  flags.String("accounts_address", &settings->accounts_address,
               "accounts gRPC host:port, polled for deleted accounts (whose data this service "
               "then erases); needs --service_token_private_key; empty: deleted players' data "
               "stays");
  flags.Secret("service_token_private_key", &settings->service_token_private_key,
               "signs this service's credential for the accounts service (PEM)");
}

absl::StatusOr<std::unique_ptr<AccountDeletionFollower>> MakeAccountDeletionFollower(
    ServiceHost& host, const AccountDeletionSettings& settings, const std::string& service_name,
    AccountDeletionSink* sink) {
  if (settings.accounts_address.empty()) {
    spdlog::warn(
        "no --accounts_address: {} keeps what it holds about deleted accounts until it is "
        "started with one (it then catches up from the first deletion)",
        service_name);
    return nullptr;
  }
  absl::StatusOr<auth::TokenSigner> signer =
      auth::TokenSigner::Create(auth::TokenKind::kService, settings.service_token_private_key);
  if (!signer.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--accounts_address needs --service_token_private_key: ", signer.status().message()));
  }
  auto follower = std::make_unique<AccountDeletionFollower>(
      host.InternalChannel(settings.accounts_address), *std::move(signer), service_name, sink,
      [] { return absl::Now(); }, AccountDeletionFollower::Options{});
  return follower;
}

}  // namespace parlor
