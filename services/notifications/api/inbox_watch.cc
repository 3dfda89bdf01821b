#include "services/notifications/api/inbox_watch.h"

#include <deque>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "services/common/core/retry_delay.h"
#include "services/common/core/thread_name.h"
#include "services/common/grpc_status.h"
#include "services/notifications/api/notifications_api.h"

namespace parlor::notifications {

namespace {

class RefusedWatch final : public grpc::ServerWriteReactor<v1::WatchNotificationsResponse> {
 public:
  explicit RefusedWatch(const absl::Status& status) { Finish(ToGrpcStatus(status)); }
  void OnDone() override { delete this; }
};

}  // namespace

// One open stream. The hub's thread decides when it reads (Due, under the hub's lock); the read
// runs on a worker (Poll); gRPC's callbacks write. Deleted by whichever of OnDone and a running
// Poll comes last.
class InboxWatch final : public grpc::ServerWriteReactor<v1::WatchNotificationsResponse> {
 public:
  InboxWatch(InboxWatchHub* hub, std::string account_id, absl::Time expires_at, int64_t after_id)
      : hub_(hub),
        account_id_(std::move(account_id)),
        expires_at_(expires_at),
        last_id_(after_id),
        from_now_(after_id == 0) {}

  const std::string& account_id() const { return account_id_; }

  // The first read, at open.
  void Begin() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      busy_ = true;
    }
    if (!hub_->workers_->TrySubmit([this] { Poll(); })) Poll();
  }

  // Hub thread, under the hub's lock: ends an expired stream, or claims a read when the inbox
  // moved and the last message was taken.
  bool Due(const NotificationsStore::InboxHead* head, absl::Time now) {
    std::lock_guard<std::mutex> lock(mu_);
    if (finishing_ || done_) return false;
    if (now >= expires_at_) {
      EndLocked(grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                             "the access token expired; open the stream again with a fresh one "
                             "and the last notification_id received"));
      return false;
    }
    if (busy_ || writing_ || head == nullptr) return false;
    if (head->newest_id <= last_id_ && head->unread == unread_sent_) return false;
    busy_ = true;
    return true;
  }

  void Poll() {
    NotificationsService* service = hub_->service_;
    v1::WatchNotificationsResponse response;
    bool send = false;
    if (from_now_) {
      absl::StatusOr<std::map<std::string, NotificationsStore::InboxHead>> heads =
          service->InboxHeads({account_id_});
      if (heads.ok()) {
        const NotificationsStore::InboxHead head = (*heads)[account_id_];
        std::lock_guard<std::mutex> lock(mu_);
        from_now_ = false;
        last_id_ = head.newest_id;
        unread_sent_ = head.unread;
        response.set_unread_count(head.unread);
        send = true;
      }
    } else {
      int64_t after = 0;
      {
        std::lock_guard<std::mutex> lock(mu_);
        after = last_id_;
      }
      absl::StatusOr<NotificationsStore::InboxPage> page = service->InboxAfter(account_id_, after);
      if (page.ok()) {
        std::lock_guard<std::mutex> lock(mu_);
        for (const Notification& n : page->notifications) {
          ToProto(n, response.add_notifications());
          last_id_ = n.notification_id;
        }
        response.set_unread_count(page->unread);
        send = !page->notifications.empty() || page->unread != unread_sent_ || first_;
        unread_sent_ = page->unread;
      }
    }
    std::unique_lock<std::mutex> lock(mu_);
    if (send && !finishing_ && !done_) {
      first_ = false;
      pending_ = std::move(response);
      writing_ = true;
      StartWrite(&pending_);
    }
    busy_ = false;
    if (done_) {
      lock.unlock();
      delete this;
    }
  }

  void OnWriteDone(bool ok) override {
    std::lock_guard<std::mutex> lock(mu_);
    writing_ = false;
    if (!ok && !finishing_) {
      finishing_ = true;
      final_ = grpc::Status::CANCELLED;
    }
    if (finishing_ && !finished_) {
      finished_ = true;
      Finish(final_);
    }
  }

  void OnCancel() override {
    std::lock_guard<std::mutex> lock(mu_);
    EndLocked(grpc::Status::CANCELLED);
  }

  void OnDone() override {
    hub_->Remove(this);
    std::unique_lock<std::mutex> lock(mu_);
    done_ = true;
    if (busy_) return;  // the running Poll deletes
    lock.unlock();
    delete this;
  }

 private:
  // Ends the stream with `status` once any write in flight is done.
  void EndLocked(const grpc::Status& status) {
    if (finishing_) return;
    finishing_ = true;
    final_ = status;
    if (!writing_) {
      finished_ = true;
      Finish(status);
    }
  }

  InboxWatchHub* hub_;
  const std::string account_id_;
  const absl::Time expires_at_;
  std::mutex mu_;
  int64_t last_id_;
  int64_t unread_sent_ = -1;
  bool from_now_;
  bool first_ = true;  // the first message goes out even when empty
  v1::WatchNotificationsResponse pending_;
  grpc::Status final_;
  bool busy_ = false;
  bool writing_ = false;
  bool finishing_ = false;
  bool finished_ = false;
  bool done_ = false;
};

InboxWatchHub::InboxWatchHub(NotificationsService* service, ThreadPool* workers, WatchLimits limits,
                             Clock clock)
    : service_(service),
      workers_(workers),
      limits_(limits),
      clock_(std::move(clock)),
      opens_(limits.opens_per_account),
      thread_([this] {
        NameThisThread("inbox-watch");
        Run();
      }) {}

InboxWatchHub::~InboxWatchHub() { Stop(); }

void InboxWatchHub::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void InboxWatchHub::Wake() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    wake_ = true;
  }
  cv_.notify_all();
}

int InboxWatchHub::streams() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(watches_.size());
}

grpc::ServerWriteReactor<v1::WatchNotificationsResponse>* InboxWatchHub::Open(
    const auth::Claims& caller, int64_t after_id) {
  if (after_id < 0) {
    return new RefusedWatch(absl::InvalidArgumentError(absl::StrCat(
        "after_notification_id must be 0 (from now on) or a notification id; got ", after_id)));
  }
  const absl::Time now = clock_();
  InboxWatch* watch = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (static_cast<int>(watches_.size()) >= limits_.max_streams) {
      return new RefusedWatch(WithRetryDelay(
          absl::ResourceExhaustedError(
              "this server holds as many notification streams as it allows; retry shortly"),
          absl::Seconds(5)));
    }
    if (per_account_[caller.subject] >= limits_.max_streams_per_account) {
      return new RefusedWatch(WithRetryDelay(
          absl::ResourceExhaustedError(absl::StrCat(
              "you have ", limits_.max_streams_per_account,
              " notification streams open on this server; close one (one per app is enough)")),
          absl::Seconds(30)));
    }
    if (const absl::Duration wait = opens_.Take(caller.subject, now); wait > absl::ZeroDuration()) {
      return new RefusedWatch(
          WithRetryDelay(absl::ResourceExhaustedError(absl::StrCat(
                             "notification streams opened too often; retry in ",
                             absl::FormatDuration(absl::Ceil(wait, absl::Seconds(1))))),
                         wait));
    }
    watch = new InboxWatch(this, caller.subject, caller.expires_at, after_id);
    watches_.insert(watch);
    ++per_account_[caller.subject];
  }
  watch->Begin();
  return watch;
}

void InboxWatchHub::Remove(InboxWatch* watch) {
  std::lock_guard<std::mutex> lock(mu_);
  if (watches_.erase(watch) == 0) return;
  auto it = per_account_.find(watch->account_id());
  if (it != per_account_.end() && --it->second <= 0) per_account_.erase(it);
}

void InboxWatchHub::Tick() {
  std::vector<std::string> accounts;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [account, count] : per_account_) accounts.push_back(account);
  }
  if (accounts.empty()) return;
  absl::StatusOr<std::map<std::string, NotificationsStore::InboxHead>> heads =
      service_->InboxHeads(accounts);
  const absl::Time now = clock_();
  std::lock_guard<std::mutex> lock(mu_);
  for (InboxWatch* watch : watches_) {
    const NotificationsStore::InboxHead* head = nullptr;
    if (heads.ok()) {
      auto found = heads->find(watch->account_id());
      if (found != heads->end()) head = &found->second;
    }
    if (watch->Due(head, now) && !workers_->TrySubmit([watch] { watch->Poll(); })) {
      watch->Poll();  // the pool is full: read on this thread rather than lose the change
    }
  }
}

void InboxWatchHub::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    cv_.wait_for(lock, absl::ToChronoMilliseconds(limits_.poll_interval),
                 [this] { return stop_ || wake_; });
    if (stop_) break;
    wake_ = false;
    lock.unlock();
    Tick();
    lock.lock();
  }
}

}  // namespace parlor::notifications
