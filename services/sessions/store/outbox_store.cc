#include "services/sessions/store/outbox_store.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "pqxx/pqxx"
#include "services/common/core/utf8.h"
#include "services/common/db/pg_array.h"
#include "services/sessions/store/outbox_sql.h"

namespace parlor::sessions {
absl::Status OutboxStore::MarkNotificationsSent(const std::vector<int64_t>& ids, absl::Time now) {
  if (ids.empty()) return absl::OkStatus();
  const std::string id_array = PgIntArray(ids);
  return db_->Transact("sessions.notifications_sent", [&](pqxx::work& txn) {
    txn.exec_params0(sql::kNotificationsSent, id_array, absl::ToUnixMicros(now));
    return absl::OkStatus();
  });
}

absl::Status OutboxStore::MarkNotificationsFailed(const std::vector<Failure>& failures) {
  if (failures.empty()) return absl::OkStatus();
  std::vector<int64_t> ids, retry_at;
  std::vector<std::string> errors;
  for (const Failure& f : failures) {
    ids.push_back(f.id);
    retry_at.push_back(absl::ToUnixMicros(f.retry_at));
    // NUL cannot travel in a text value.
    std::string error = CutUtf8(f.error, 500);
    error.erase(std::remove(error.begin(), error.end(), '\0'), error.end());
    errors.push_back(std::move(error));
  }
  const std::string id_array = PgIntArray(ids), retry_array = PgIntArray(retry_at),
                    error_array = PgTextArray(errors);
  return db_->Transact("sessions.notifications_failed", [&](pqxx::work& txn) {
    txn.exec_params0(sql::kNotificationsFailed, id_array, retry_array, error_array);
    return absl::OkStatus();
  });
}

absl::StatusOr<OutboxStore::Health> OutboxStore::GetHealth() {
  Health health;
  absl::Status status = db_->Transact("sessions.outbox_health", [&](pqxx::work& txn) {
    for (const pqxx::row& r : txn.exec(sql::kOutboxHealth)) {
      Backlog& b = r[0].as<std::string>() == "notification" ? health.notifications : health.results;
      b.pending = r[1].as<int64_t>();
      const int64_t oldest = r[2].as<int64_t>();
      b.oldest = b.pending > 0 ? absl::FromUnixMicros(oldest) : absl::InfiniteFuture();
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return health;
}

}  // namespace parlor::sessions
