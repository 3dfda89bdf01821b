#include "services/sessions/store/outbox_store.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "pqxx/pqxx"
#include "services/common/core/utf8.h"
#include "services/common/db/pg_array.h"
#include "services/sessions/store/outbox_sql.h"

namespace parlor::sessions {
namespace {

// Schedules the failed rows' retries in one statement.
void ScheduleRetries(pqxx::work& txn, const std::vector<OutboxStore::Failure>& failures) {
  std::vector<int64_t> ids, retry_at;
  std::vector<std::string> errors;
  for (const OutboxStore::Failure& f : failures) {
    ids.push_back(f.id);
    retry_at.push_back(absl::ToUnixMicros(f.retry_at));
    // NUL cannot travel in a text value.
    std::string error = CutUtf8(f.error, 500);
    error.erase(std::remove(error.begin(), error.end(), '\0'), error.end());
    errors.push_back(std::move(error));
  }
  txn.exec_params0(sql::kNotificationsFailed, PgIntArray(ids), PgIntArray(retry_at),
                   PgTextArray(errors));
}

}  // namespace

absl::StatusOr<OutboxStore::Delivery> OutboxStore::DeliverNotifications(absl::Time now, int limit,
                                                                        Deliver deliver) {
  Delivery delivery;
  absl::Status status = db_->Transact("sessions.deliver_notifications", [&](pqxx::work& txn) {
    std::vector<PendingNotification> batch;
    for (const pqxx::row& r :
         txn.exec_params(sql::kLockDueNotifications, absl::ToUnixMicros(now), limit)) {
      PendingNotification n;
      n.id = r[0].as<int64_t>();
      n.game_id = r[1].as<std::string>();
      n.row.account_id = r[2].as<std::string>();
      n.row.kind = r[3].as<std::string>();
      n.row.version = r[4].as<int64_t>();
      n.row.dedupe_key = r[5].as<std::string>();
      n.row.payload_json = r[6].as<std::string>();
      n.attempts = r[7].as<int>();
      n.created_at = absl::FromUnixMicros(r[8].as<int64_t>());
      batch.push_back(std::move(n));
    }
    delivery = Delivery{.taken = static_cast<int>(batch.size())};
    if (batch.empty()) return absl::OkStatus();
    const std::vector<Failure> failures = deliver(batch);
    absl::flat_hash_set<int64_t> failed;
    for (const Failure& f : failures) failed.insert(f.id);
    std::vector<int64_t> delivered;
    for (const PendingNotification& n : batch) {
      if (!failed.contains(n.id)) delivered.push_back(n.id);
    }
    if (!delivered.empty()) {
      txn.exec_params0(sql::kDeleteDeliveredNotifications, PgIntArray(delivered));
    }
    if (!failures.empty()) ScheduleRetries(txn, failures);
    delivery.failed = static_cast<int>(batch.size() - delivered.size());
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return delivery;
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
