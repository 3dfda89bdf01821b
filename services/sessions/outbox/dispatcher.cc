#include "services/sessions/outbox/dispatcher.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "curl/curl.h"
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

OutboxDispatcher::OutboxDispatcher(GameStore* store, PushAdapter* push, ResultReporter* reporter,
                                   std::function<absl::Time()> clock, Options options)
    : store_(store),
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
  absl::StatusOr<std::vector<GameStore::PendingNotification>> claimed =
      store_->ClaimNotifications(now, options_.lease, options_.batch);
  if (!claimed.ok()) return claimed.status();
  for (const GameStore::PendingNotification& n : *claimed) {
    absl::Status sent = push_->Send(n.game_id, n.row);
    if (sent.ok()) {
      if (store_->MarkNotificationSent(n.id, clock_()).ok()) ++drained.sent;
    } else {
      ++drained.failed;
      (void)store_->MarkNotificationFailed(n.id, RetryAt(clock_(), n.attempts), sent.ToString());
    }
  }
  if (reporter_ == nullptr) return drained;
  absl::StatusOr<std::vector<std::pair<std::string, int>>> results =
      store_->ClaimResults(now, options_.lease, options_.batch);
  if (!results.ok()) return results.status();
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

}  // namespace parlor::sessions
