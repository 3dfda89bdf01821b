#include "services/sessions/outbox/dispatcher.h"

#include <algorithm>
#include <chrono>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "curl/curl.h"
#include "services/common/core/logging.h"
#include "services/common/core/thread_name.h"
#include "spdlog/spdlog.h"

namespace parlor::sessions {

absl::Status LoggingPushAdapter::Send(const std::string& game_id,
                                      const NotificationRow& notification) {
  spdlog::info("push {} to account {} (game {}, version {}, dedupe {}): {}", notification.kind,
               notification.account_id, game_id, notification.version, notification.dedupe_key,
               notification.payload_json);
  return absl::OkStatus();
}

WebhookPushAdapter::WebhookPushAdapter(std::string url, absl::Duration timeout)
    : url_(std::move(url)), timeout_(timeout) {
  curl_global_init(CURL_GLOBAL_DEFAULT);
}

namespace {
size_t DiscardBody(char*, size_t size, size_t n, void*) { return size * n; }
}  // namespace

absl::Status WebhookPushAdapter::Send(const std::string& game_id,
                                      const NotificationRow& notification) {
  const std::string body = absl::StrCat(
      "{\"dedupe_key\":\"", JsonEscape(notification.dedupe_key), "\",\"account_id\":\"",
      JsonEscape(notification.account_id), "\",\"kind\":\"", JsonEscape(notification.kind),
      "\",\"game_id\":\"", JsonEscape(game_id), "\",\"version\":", notification.version,
      ",\"payload\":", notification.payload_json, "}");
  CURL* curl = curl_easy_init();
  if (curl == nullptr) return absl::UnavailableError("webhook: cannot create a curl handle");
  struct curl_slist* headers = nullptr;
  headers = curl_slist_append(headers, "Content-Type: application/json");
  const std::string idempotency = absl::StrCat("Idempotency-Key: ", notification.dedupe_key);
  headers = curl_slist_append(headers, idempotency.c_str());
  curl_easy_setopt(curl, CURLOPT_URL, url_.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.c_str());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS,
                   static_cast<long>(absl::ToInt64Milliseconds(timeout_)));
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &DiscardBody);
  const CURLcode code = curl_easy_perform(curl);
  long http = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &http);
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  if (code != CURLE_OK) {
    return absl::UnavailableError(absl::StrCat("webhook: ", curl_easy_strerror(code)));
  }
  if (http >= 200 && http < 300) return absl::OkStatus();
  if (http == 408 || http == 429 || http >= 500) {
    return absl::UnavailableError(absl::StrCat("webhook answered HTTP ", http));
  }
  return absl::FailedPreconditionError(absl::StrCat("webhook refused with HTTP ", http));
}

OutboxDispatcher::OutboxDispatcher(PgSessionsStore* store, PushAdapter* push,
                                   ResultReporter* reporter, std::function<absl::Time()> clock,
                                   Options options)
    : store_(store),
      outbox_(&store->db()),
      push_(push),
      reporter_(reporter),
      clock_(std::move(clock)),
      options_(options) {
  if (options_.metrics != nullptr) options_.metrics->DeclareAdapter(push_->Name());
}

absl::Time OutboxDispatcher::RetryAt(absl::Time now, int attempts) const {
  absl::Duration backoff = absl::Seconds(1);
  for (int i = 1; i < attempts && backoff < options_.max_backoff; ++i) backoff *= 2;
  return now + std::min(backoff, options_.max_backoff);
}

absl::StatusOr<OutboxDispatcher::Drained> OutboxDispatcher::DrainOnce() {
  Drained drained;
  const absl::Time now = clock_();
  absl::StatusOr<OutboxStore::Delivery> delivery = outbox_.DeliverNotifications(
      now, options_.batch, [this](const std::vector<OutboxStore::PendingNotification>& batch) {
        std::vector<OutboxStore::Failure> failures;
        const std::vector<absl::Status> answers = push_->SendBatch(batch);
        for (size_t i = 0; i < batch.size(); ++i) {
          const absl::Status delivered =
              i < answers.size() ? answers[i] : absl::InternalError("the adapter gave no answer");
          if (delivered.ok()) continue;
          failures.push_back(
              {batch[i].id, RetryAt(clock_(), batch[i].attempts), delivered.ToString()});
          if (options_.metrics != nullptr) options_.metrics->NotificationFailed(push_->Name());
        }
        return failures;
      });
  if (!delivery.ok()) return delivery.status();
  drained.more = delivery->taken >= options_.batch;
  drained.sent = delivery->taken - delivery->failed;
  drained.failed = delivery->failed;
  if (options_.metrics != nullptr)
    options_.metrics->NotificationsDelivered(push_->Name(), drained.sent);
  if (reporter_ == nullptr) return drained;
  absl::StatusOr<std::vector<std::pair<std::string, int>>> results =
      store_->ClaimResults(now, options_.lease, options_.batch);
  if (!results.ok()) return results.status();
  drained.more = drained.more || static_cast<int>(results->size()) >= options_.batch;
  for (const auto& [game_id, attempts] : *results) {
    absl::StatusOr<GameRow> game = store_->GetGame(game_id);
    absl::Status reported = game.ok() ? reporter_->Report(*game) : game.status();
    if (reported.ok()) {
      if (store_->MarkResultAcked(game_id, clock_(), "").ok()) ++drained.results_acked;
    } else if (reported.code() == absl::StatusCode::kCancelled) {
      // The reporter declines this game for good (e.g. casual with computer seats).
      if (store_->MarkResultAcked(game_id, clock_(), reported.message()).ok()) {
        ++drained.results_acked;
      }
    } else {
      ++drained.results_failed;
      (void)store_->MarkResultFailed(game_id, RetryAt(clock_(), attempts), reported.ToString());
    }
  }
  return drained;
}

absl::StatusOr<OutboxDispatcher::Drained> OutboxDispatcher::Drain() {
  Drained total;
  for (int i = 0; i < std::max(1, options_.max_batches); ++i) {
    absl::StatusOr<Drained> once = DrainOnce();
    if (!once.ok()) return once.status();
    total.sent += once->sent;
    total.failed += once->failed;
    total.results_acked += once->results_acked;
    total.results_failed += once->results_failed;
    total.more = once->more;
    if (!once->more) break;
  }
  return total;
}

DispatchLoop::DispatchLoop(OutboxDispatcher* dispatcher, std::unique_ptr<ChangeFeed> feed,
                           absl::Duration interval, absl::Duration coalesce)
    : dispatcher_(dispatcher), feed_(std::move(feed)), interval_(interval), coalesce_(coalesce) {
  feed_->Start([this](const GameChange&) {
    bool first = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      first = !std::exchange(announced_, true);
    }
    // Only the first announcement since the last drain has anyone to wake: the loop is then in
    // WaitForWork. Later ones arrive while it coalesces or drains, and waking it there (on every
    // committed change: thousands a second under load) only sends it back to sleep.
    if (first) cv_.notify_all();
  });
  thread_ = std::thread([this] {
    NameThisThread("outbox-dispatch");
    Run();
  });
}

DispatchLoop::~DispatchLoop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  feed_->Stop();
}

void DispatchLoop::Wake() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    woken_ = true;
  }
  cv_.notify_all();
}

DispatchLoop::Cause DispatchLoop::WaitForWork() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait_for(lock, absl::ToChronoMilliseconds(interval_),
               [this] { return stop_ || woken_ || announced_; });
  if (stop_) return Cause::kStop;
  if (std::exchange(woken_, false)) return Cause::kWoken;
  return announced_ ? Cause::kAnnounced : Cause::kInterval;
}

bool DispatchLoop::Coalesce() {
  std::unique_lock<std::mutex> lock(mu_);
  return !cv_.wait_for(lock, absl::ToChronoMilliseconds(coalesce_), [this] { return stop_; });
}

void DispatchLoop::Run() {
  for (;;) {
    const Cause cause = WaitForWork();
    if (cause == Cause::kStop) return;
    // Let the burst that announced itself finish, then take its rows in a few batches.
    if (cause == Cause::kAnnounced && !Coalesce()) return;
    {
      // The announcements so far are covered by this drain.
      std::lock_guard<std::mutex> lock(mu_);
      announced_ = false;
    }
    absl::StatusOr<OutboxDispatcher::Drained> drained = dispatcher_->Drain();
    if (!drained.ok()) {
      spdlog::warn("outbox dispatcher: {}", drained.status().ToString());
    } else if (drained->more) {
      Wake();  // still behind: go on at once
    }
  }
}

}  // namespace parlor::sessions
