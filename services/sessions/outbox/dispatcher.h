#ifndef PARLOR_SERVICES_SESSIONS_OUTBOX_DISPATCHER_H_
#define PARLOR_SERVICES_SESSIONS_OUTBOX_DISPATCHER_H_

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "services/sessions/domain/sessions_metrics.h"
#include "services/sessions/store/change_feed.h"
#include "services/sessions/store/outbox_store.h"
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
  // A batch, one status per row in order. By default one Send per row; an adapter whose
  // receiver takes batches (notifications' AcceptEvents) sends them in a few calls.
  virtual std::vector<absl::Status> SendBatch(
      const std::vector<PgSessionsStore::PendingNotification>& batch) {
    std::vector<absl::Status> results;
    results.reserve(batch.size());
    for (const PgSessionsStore::PendingNotification& n : batch) {
      results.push_back(Send(n.game_id, n.row));
    }
    return results;
  }
  // The adapter's label in parlor_sessions_notifications_failed_total{adapter}.
  virtual absl::string_view Name() const = 0;
};

// Writes each notification to the log (the default, for development).
class LoggingPushAdapter final : public PushAdapter {
 public:
  absl::Status Send(const std::string& game_id, const NotificationRow& notification) override;
  absl::string_view Name() const override { return "logging"; }
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
  absl::string_view Name() const override { return "webhook"; }

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

// Drains the notification and result outboxes; every replica can run one. A batch of due
// notifications is delivered inside the transaction that locks and then deletes it (rows that
// failed get a retry with exponential backoff: 1 s, 2 s, 4 s ... capped at `max_backoff`), so a
// batch costs one transaction whatever its size and a delivered row is never rewritten. Results
// are claimed with a lease, reported one by one and marked acknowledged.
class OutboxDispatcher {
 public:
  struct Options {
    // How long a claimed result is left to the replica that claimed it.
    absl::Duration lease = absl::Seconds(60);
    absl::Duration max_backoff = absl::Hours(1);
    int batch = 500;
    // Batches one Drain() call takes at most (it stops early once the outboxes are empty).
    int max_batches = 20;
    // Counts the notifications the adapter did not accept (they are retried later); may be
    // null. The adapter's series is declared (at 0) at construction.
    SessionsMetrics* metrics = nullptr;
  };
  // `reporter` may be null: result rows then stay held in the outbox.
  OutboxDispatcher(PgSessionsStore* store, PushAdapter* push, ResultReporter* reporter,
                   std::function<absl::Time()> clock, Options options);

  struct Drained {
    int sent = 0;
    int failed = 0;
    int results_acked = 0;
    int results_failed = 0;
    // A batch came back full: more rows may be due.
    bool more = false;
  };
  // One batch of each outbox.
  absl::StatusOr<Drained> DrainOnce();
  // Batches until the due rows are gone (at most options.max_batches).
  absl::StatusOr<Drained> Drain();

 private:
  absl::Time RetryAt(absl::Time now, int attempts) const;

  PgSessionsStore* store_;
  OutboxStore outbox_;
  PushAdapter* push_;
  ResultReporter* reporter_;
  std::function<absl::Time()> clock_;
  Options options_;
};

// Runs a dispatcher on its own thread: drains as soon as the store's change feed announces a
// state change, waiting `coalesce` first so that a burst of moves is delivered in a few batches
// rather than one transaction per move, and at least every `interval` (retries fall due without
// any announcement; while the feed is disconnected, the interval is all there is).
class DispatchLoop {
 public:
  DispatchLoop(OutboxDispatcher* dispatcher, std::unique_ptr<ChangeFeed> feed,
               absl::Duration interval, absl::Duration coalesce = absl::Milliseconds(50));
  ~DispatchLoop();  // stops and joins
  DispatchLoop(const DispatchLoop&) = delete;
  DispatchLoop& operator=(const DispatchLoop&) = delete;

  // Drains once now, as an announcement would (tests).
  void Wake();

 private:
  enum class Cause { kStop, kWoken, kAnnounced, kInterval };
  void Run();
  // Waits for an announcement, a Wake, the interval, or stop.
  Cause WaitForWork();
  // Waits `coalesce_`; false when stopped meanwhile.
  bool Coalesce();

  OutboxDispatcher* dispatcher_;
  std::unique_ptr<ChangeFeed> feed_;
  const absl::Duration interval_;
  const absl::Duration coalesce_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool woken_ = false;
  bool announced_ = false;
  std::thread thread_;
};

}  // namespace parlor::sessions

#endif  // PARLOR_SERVICES_SESSIONS_OUTBOX_DISPATCHER_H_
