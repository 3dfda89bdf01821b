#include "services/sessions/api/stream_guard.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "services/common/core/thread_name.h"
#include "services/common/grpc_status.h"

namespace parlor::sessions {
namespace {

absl::Status Exhausted(const std::string& message, absl::Duration retry) {
  return WithRetryDelay(absl::ResourceExhaustedError(message), retry);
}

}  // namespace

StreamGuard::StreamGuard(StreamLimits limits, Clock clock, SessionsMetrics* metrics)
    : limits_(limits),
      clock_(std::move(clock)),
      metrics_(metrics),
      opens_(limits.opens_per_account) {}

StreamGuard::~StreamGuard() { Stop(); }

void StreamGuard::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (thread_.joinable()) return;
  stop_ = false;
  thread_ = std::thread([this] {
    NameThisThread("stream-guard");
    Run();
  });
}

void StreamGuard::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

absl::StatusOr<int64_t> StreamGuard::Admit(const auth::Claims& caller, bool catching_up) {
  const absl::Time now = clock_();
  const char* refused = nullptr;
  absl::Status status;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!caller.session_id.empty() && IsRevokedLocked(caller.session_id)) {
      refused = kRefusedSignedOut;
      status =
          absl::UnauthenticatedError("this access token's session was signed out; sign in again");
    } else if (static_cast<int64_t>(entries_.size()) >= limits_.max_streams) {
      refused = kRefusedReplicaStreams;
      status = Exhausted(
          "this server has as many watch streams as it serves; retry in a few seconds (another "
          "replica may take it)",
          absl::Seconds(5));
    } else if (auto it = per_account_.find(caller.subject);
               it != per_account_.end() && it->second >= limits_.max_streams_per_account) {
      refused = kRefusedAccountStreams;
      status = Exhausted(absl::StrCat("at most ", limits_.max_streams_per_account,
                                      " watch streams per player at once; close one first"),
                         absl::Seconds(10));
    } else if (catching_up && catching_up_ >= limits_.max_catching_up) {
      refused = kRefusedCatchUp;
      status = Exhausted(
          "too many streams are catching up on game history here; retry shortly, or read it "
          "with GetHistory",
          absl::Seconds(2));
    }
  }
  if (refused == nullptr && opens_.enabled()) {
    const absl::Duration wait = opens_.Take(caller.subject, now);
    if (wait > absl::ZeroDuration()) {
      refused = kRefusedAccountOpens;
      status = Exhausted(absl::StrCat("at most ", limits_.opens_per_account.per_minute,
                                      " watch streams opened per minute per player; retry in ",
                                      absl::FormatDuration(absl::Ceil(wait, absl::Seconds(1)))),
                         absl::Ceil(wait, absl::Seconds(1)));
    }
  }
  if (refused != nullptr) {
    if (metrics_ != nullptr) metrics_->WatchRefused(refused);
    return status;
  }
  std::lock_guard<std::mutex> lock(mu_);
  // Checked again: another open of the same account may have got in meanwhile.
  if (static_cast<int64_t>(entries_.size()) >= limits_.max_streams ||
      per_account_[caller.subject] >= limits_.max_streams_per_account ||
      (catching_up && catching_up_ >= limits_.max_catching_up)) {
    if (metrics_ != nullptr) metrics_->WatchRefused(kRefusedAccountStreams);
    return Exhausted("too many watch streams at once; retry in a few seconds", absl::Seconds(2));
  }
  const int64_t id = next_id_++;
  entries_[id] = Entry{.account_id = caller.subject,
                       .session_id = caller.session_id,
                       .expires_at = caller.expires_at,
                       .catching_up = catching_up,
                       .stream = {}};
  ++per_account_[caller.subject];
  if (catching_up) ++catching_up_;
  return id;
}

void StreamGuard::Attach(int64_t id, std::weak_ptr<GuardedStream> stream) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(id);
  if (it != entries_.end()) it->second.stream = std::move(stream);
}

void StreamGuard::CaughtUp(int64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(id);
  if (it == entries_.end() || !it->second.catching_up) return;
  it->second.catching_up = false;
  --catching_up_;
}

void StreamGuard::Release(int64_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(id);
  if (it == entries_.end()) return;
  if (it->second.catching_up) --catching_up_;
  auto account = per_account_.find(it->second.account_id);
  if (account != per_account_.end() && --account->second <= 0) per_account_.erase(account);
  entries_.erase(it);
}

absl::Duration StreamGuard::Budget::Refill(int rate, absl::Time now) {
  if (at == absl::InfinitePast()) {
    events = rate;  // a new bucket is full
  } else if (now > at) {
    events = std::min<double>(rate, events + rate * absl::ToDoubleSeconds(now - at));
  }
  at = std::max(at, now);
  return events > 0 ? absl::ZeroDuration() : absl::Seconds((1 - events) / rate);
}

absl::Duration StreamGuard::CatchUpWait(int64_t id, absl::Time now) {
  std::lock_guard<std::mutex> lock(mu_);
  absl::Duration wait = absl::ZeroDuration();
  if (limits_.catch_up_events_per_second > 0) {
    wait = replica_budget_.Refill(limits_.catch_up_events_per_second, now);
  }
  auto it = entries_.find(id);
  if (it != entries_.end() && limits_.catch_up_events_per_second_per_account > 0) {
    wait = std::max(wait, account_budgets_[it->second.account_id].Refill(
                              limits_.catch_up_events_per_second_per_account, now));
  }
  return wait;
}

void StreamGuard::CatchUpSent(int64_t id, int events, absl::Time now) {
  std::lock_guard<std::mutex> lock(mu_);
  if (limits_.catch_up_events_per_second > 0) {
    replica_budget_.Refill(limits_.catch_up_events_per_second, now);
    replica_budget_.events -= events;
  }
  auto it = entries_.find(id);
  if (it != entries_.end() && limits_.catch_up_events_per_second_per_account > 0) {
    Budget& budget = account_budgets_[it->second.account_id];
    budget.Refill(limits_.catch_up_events_per_second_per_account, now);
    budget.events -= events;
  }
}

void StreamGuard::Revoke(const std::vector<std::string>& session_ids, absl::Time forget_after) {
  if (session_ids.empty()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const std::string& id : session_ids) {
      absl::Time& until = revoked_[id];
      until = std::max(until, forget_after);
    }
    wake_ = true;
  }
  cv_.notify_all();
}

bool StreamGuard::IsRevoked(absl::string_view session_id) const {
  std::lock_guard<std::mutex> lock(mu_);
  return IsRevokedLocked(session_id);
}

bool StreamGuard::IsRevokedLocked(absl::string_view session_id) const {
  return revoked_.contains(session_id);
}

int64_t StreamGuard::streams() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int64_t>(entries_.size());
}

int64_t StreamGuard::catching_up() const {
  std::lock_guard<std::mutex> lock(mu_);
  return catching_up_;
}

void StreamGuard::CheckNow() {
  const absl::Time now = clock_();
  struct Due {
    std::shared_ptr<GuardedStream> stream;
    const char* reason = nullptr;  // null: only Tick
  };
  std::vector<Due> due;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = revoked_.begin(); it != revoked_.end();) {
      if (it->second < now) {
        revoked_.erase(it++);
      } else {
        ++it;
      }
    }
    // A player's catch-up budget that has refilled is the same as a new one.
    for (auto it = account_budgets_.begin(); it != account_budgets_.end();) {
      it->second.Refill(limits_.catch_up_events_per_second_per_account, now);
      if (it->second.events >= limits_.catch_up_events_per_second_per_account) {
        account_budgets_.erase(it++);
      } else {
        ++it;
      }
    }
    due.reserve(entries_.size());
    for (auto& [id, e] : entries_) {
      std::shared_ptr<GuardedStream> stream = e.stream.lock();
      if (stream == nullptr) continue;
      const char* reason = nullptr;
      if (now >= e.expires_at) {
        reason = kEndedTokenExpired;
      } else if (!e.session_id.empty() && IsRevokedLocked(e.session_id)) {
        reason = kEndedSignedOut;
      }
      due.push_back({std::move(stream), reason});
    }
  }
  for (Due& d : due) {
    if (d.reason == kEndedTokenExpired) {
      if (!d.stream->End(absl::UnauthenticatedError(
              "the access token this stream was opened with has expired; refresh the session "
              "and reconnect with the last version you have"))) {
        d.reason = nullptr;
      }
    } else if (d.reason == kEndedSignedOut) {
      if (!d.stream->End(
              absl::UnauthenticatedError("this session was signed out; sign in again"))) {
        d.reason = nullptr;
      }
    } else {
      d.reason = d.stream->Tick(now);
    }
    if (d.reason != nullptr && metrics_ != nullptr) metrics_->WatchEnded(d.reason);
  }
}

void StreamGuard::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    cv_.wait_for(lock, absl::ToChronoMilliseconds(limits_.check_interval),
                 [this] { return stop_ || wake_; });
    if (stop_) break;
    wake_ = false;
    lock.unlock();
    CheckNow();
    lock.lock();
  }
}

}  // namespace parlor::sessions
