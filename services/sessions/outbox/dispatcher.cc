#include "services/sessions/outbox/dispatcher.h"

#include <algorithm>
#include <chrono>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "curl/curl.h"
#include "pqxx/pqxx"
#include "services/common/core/logging.h"
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
      options_(options) {}

absl::Time OutboxDispatcher::RetryAt(absl::Time now, int attempts) const {
  absl::Duration backoff = absl::Seconds(1);
  for (int i = 1; i < attempts && backoff < options_.max_backoff; ++i) backoff *= 2;
  return now + std::min(backoff, options_.max_backoff);
}

absl::StatusOr<OutboxDispatcher::Drained> OutboxDispatcher::DrainOnce() {
  Drained drained;
  const absl::Time now = clock_();
  absl::StatusOr<std::vector<PgSessionsStore::PendingNotification>> claimed =
      store_->ClaimNotifications(now, options_.lease, options_.batch);
  if (!claimed.ok()) return claimed.status();
  drained.more = static_cast<int>(claimed->size()) >= options_.batch;
  std::vector<int64_t> sent;
  std::vector<OutboxStore::Failure> failures;
  const std::vector<absl::Status> answers = push_->SendBatch(*claimed);
  for (size_t i = 0; i < claimed->size(); ++i) {
    const PgSessionsStore::PendingNotification& n = (*claimed)[i];
    const absl::Status delivered =
        i < answers.size() ? answers[i] : absl::InternalError("the adapter gave no answer");
    if (delivered.ok()) {
      sent.push_back(n.id);
    } else {
      failures.push_back({n.id, RetryAt(clock_(), n.attempts), delivered.ToString()});
      if (options_.observer != nullptr) options_.observer->NotificationFailed(push_->Name());
    }
  }
  // A failed settlement leaves the rows claimed: they are delivered again after the lease.
  if (absl::Status marked = outbox_.MarkNotificationsSent(sent, clock_()); marked.ok()) {
    drained.sent = static_cast<int>(sent.size());
  } else {
    spdlog::warn("outbox: cannot mark {} notifications sent: {}", sent.size(), marked.ToString());
  }
  drained.failed = static_cast<int>(failures.size());
  if (absl::Status marked = outbox_.MarkNotificationsFailed(failures); !marked.ok()) {
    spdlog::warn("outbox: cannot schedule {} retries: {}", failures.size(), marked.ToString());
  }
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

namespace {

// Counts announcements on the sessions channel; the payload does not matter here.
class Announcements final : public pqxx::notification_receiver {
 public:
  explicit Announcements(pqxx::connection& c) : pqxx::notification_receiver(c, "parlor_sessions") {}
  void operator()(const std::string&, int) override { ++count; }
  int count = 0;
};

constexpr absl::Duration kPollSlice = absl::Milliseconds(100);

}  // namespace

DispatchLoop::DispatchLoop(OutboxDispatcher* dispatcher, std::string db_url,
                           absl::Duration interval, absl::Duration coalesce)
    : dispatcher_(dispatcher),
      db_url_(std::move(db_url)),
      interval_(interval),
      coalesce_(coalesce),
      thread_([this] { Run(); }) {}

DispatchLoop::~DispatchLoop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void DispatchLoop::Wake() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    woken_ = true;
  }
  cv_.notify_all();
}

void DispatchLoop::Run() {
  std::unique_ptr<pqxx::connection> connection;
  std::unique_ptr<Announcements> announcements;
  auto drop_listener = [&] {
    announcements.reset();
    connection.reset();
  };
  for (;;) {
    if (connection == nullptr) {
      try {
        connection = std::make_unique<pqxx::connection>(db_url_);
        announcements = std::make_unique<Announcements>(*connection);
      } catch (const std::exception& e) {
        spdlog::warn("outbox dispatcher: no LISTEN connection ({}); draining every {}", e.what(),
                     absl::FormatDuration(interval_));
        drop_listener();
      }
    }
    // Wait for an announcement, a Wake, the interval, or stop.
    const absl::Time until = absl::Now() + interval_;
    bool announced = false;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mu_);
        if (stop_) return;
        if (std::exchange(woken_, false)) break;
        if (connection == nullptr) {
          cv_.wait_for(lock, absl::ToChronoMilliseconds(std::min(kPollSlice, until - absl::Now())));
          if (stop_) return;
        }
      }
      if (connection != nullptr) {
        try {
          announcements->count = 0;
          connection->await_notification(0, absl::ToInt64Microseconds(kPollSlice));
          if (announcements->count > 0) announced = true;
        } catch (const std::exception& e) {
          spdlog::warn("outbox dispatcher: LISTEN connection lost: {}", e.what());
          drop_listener();
        }
      }
      if (announced || absl::Now() >= until) break;
    }
    if (announced) {
      // Let the burst that woke us finish, then take its rows in a few batches.
      std::unique_lock<std::mutex> lock(mu_);
      if (cv_.wait_for(lock, absl::ToChronoMilliseconds(coalesce_), [this] { return stop_; })) {
        return;
      }
    }
    if (connection != nullptr) {
      try {
        connection->get_notifs();  // those that arrived meanwhile are covered by this drain
      } catch (const std::exception&) {
        drop_listener();
      }
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
