#ifndef PARLOR_SERVICES_SESSIONS_STORE_OUTBOX_STORE_H_
#define PARLOR_SERVICES_SESSIONS_STORE_OUTBOX_STORE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "services/common/db/pool.h"
#include "services/sessions/store/store.h"

namespace parlor::sessions {

// The dispatcher's batch operations on the outboxes (the result outbox's claim stays in
// PgSessionsStore): a whole batch is handled in a few statements, never one per row. Every method
// blocks (worker or dispatcher thread only); no libpqxx exception escapes.
class OutboxStore {
 public:
  explicit OutboxStore(DbPool* db) : db_(db) {}

  using PendingNotification = PgSessionsStore::PendingNotification;
  struct Failure {
    int64_t id = 0;
    absl::Time retry_at;
    std::string error;  // cut to 500 bytes
  };
  // Hands a batch to its receiver and answers the rows it did not accept.
  using Deliver = absl::FunctionRef<std::vector<Failure>(const std::vector<PendingNotification>&)>;
  struct Delivery {
    int taken = 0;   // rows handed to `deliver`
    int failed = 0;  // of them, rows scheduled for a retry
  };
  // Delivers up to `limit` due notifications, oldest first, in one transaction: deletes them
  // (other replicas' dispatchers skip them), calls `deliver` with them, puts back the rows it
  // could not deliver with their retry (`Failure`, counting the attempt) and commits.
  // Until that commit every row stays in the outbox: a crash, a lost connection or a failed
  // commit has them delivered again (at least once; notifications drops a repeated dedupe key).
  // The transaction stays open while `deliver` runs, so it should answer within seconds.
  absl::StatusOr<Delivery> DeliverNotifications(absl::Time now, int limit, Deliver deliver);

  // One outbox's undelivered rows: how many, and when the oldest was written.
  struct Backlog {
    int64_t pending = 0;
    absl::Time oldest = absl::InfiniteFuture();  // InfiniteFuture when none is pending
  };
  struct Health {
    Backlog notifications;
    Backlog results;
  };
  absl::StatusOr<Health> GetHealth();

 private:
  DbPool* db_;
};

}  // namespace parlor::sessions

#endif  // PARLOR_SERVICES_SESSIONS_STORE_OUTBOX_STORE_H_
