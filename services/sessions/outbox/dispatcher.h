#ifndef PARLOR_SERVICES_SESSIONS_OUTBOX_DISPATCHER_H_
#define PARLOR_SERVICES_SESSIONS_OUTBOX_DISPATCHER_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "services/sessions/store/store.h"

namespace parlor::sessions {

// Where push notifications go. Send must be idempotent on `dedupe_key` from the receiver's point
// of view (the dispatcher delivers at least once). UNAVAILABLE / DEADLINE_EXCEEDED /
// RESOURCE_EXHAUSTED mean "retry later"; any other error is recorded and also retried, with a
// longer backoff.
class PushAdapter {
 public:
  virtual ~PushAdapter() = default;
  virtual absl::Status Send(const std::string& game_id, const NotificationRow& notification) = 0;
};

// Writes each notification to the log (the default, for development).
class LoggingPushAdapter final : public PushAdapter {
 public:
  absl::Status Send(const std::string& game_id, const NotificationRow& notification) override;
};

// POSTs each notification as JSON to a push gateway:
//   {"dedupe_key": "...", "account_id": "...", "kind": "your_turn", "game_id": "...",
//    "version": 7, "payload": {...}}
// with headers `Content-Type: application/json` and `Idempotency-Key: <dedupe_key>`. A 2xx
// answer is success; 408, 429 and 5xx (and network errors) are UNAVAILABLE; other 4xx are
// FAILED_PRECONDITION.
class WebhookPushAdapter final : public PushAdapter {
 public:
  WebhookPushAdapter(std::string url, absl::Duration timeout);
  absl::Status Send(const std::string& game_id, const NotificationRow& notification) override;

 private:
  std::string url_;
  absl::Duration timeout_;
};

// Reports a finished game's result; OK once the receiver acknowledged it.
class ResultReporter {
 public:
  virtual ~ResultReporter() = default;
  virtual absl::Status Report(const GameRow& game) = 0;
};

// Drains the notification and result outboxes: claims due rows (with a lease, so every replica
// can run one), delivers them, and marks them sent or schedules a retry with exponential backoff
// (1 s, 2 s, 4 s ... capped at `max_backoff`).
class OutboxDispatcher {
 public:
  struct Options {
    absl::Duration lease = absl::Seconds(60);
    absl::Duration max_backoff = absl::Hours(1);
    int batch = 100;
  };
  // `reporter` may be null: result rows then stay held in the outbox.
  OutboxDispatcher(GameStore* store, PushAdapter* push, ResultReporter* reporter,
                   std::function<absl::Time()> clock, Options options);

  struct Drained {
    int sent = 0;
    int failed = 0;
    int results_acked = 0;
    int results_failed = 0;
  };
  absl::StatusOr<Drained> DrainOnce();

 private:
  absl::Time RetryAt(absl::Time now, int attempts) const;

  GameStore* store_;
  PushAdapter* push_;
  ResultReporter* reporter_;
  std::function<absl::Time()> clock_;
  Options options_;
};

}  // namespace parlor::sessions

#endif  // PARLOR_SERVICES_SESSIONS_OUTBOX_DISPATCHER_H_
