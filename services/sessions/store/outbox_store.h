#ifndef PARLOR_SERVICES_SESSIONS_STORE_OUTBOX_STORE_H_
#define PARLOR_SERVICES_SESSIONS_STORE_OUTBOX_STORE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "services/common/db/pool.h"

namespace parlor::sessions {

// The dispatcher's batch operations on the outboxes (claiming stays in PgSessionsStore): a whole
// batch is settled in one statement, so draining costs two transactions per batch, not one per
// row. Every method blocks (worker or dispatcher thread only); no libpqxx exception escapes.
class OutboxStore {
 public:
  explicit OutboxStore(DbPool* db) : db_(db) {}

  // Marks claimed notifications delivered (rows already marked are left as they are).
  absl::Status MarkNotificationsSent(const std::vector<int64_t>& ids, absl::Time now);

  struct Failure {
    int64_t id = 0;
    absl::Time retry_at;
    std::string error;  // cut to 500 bytes
  };
  absl::Status MarkNotificationsFailed(const std::vector<Failure>& failures);

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
