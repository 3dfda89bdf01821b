#include "services/sessions/store/outbox_store.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "pqxx/pqxx"
#include "services/common/core/utf8.h"
#include "services/common/db/pg_array.h"
#include "services/sessions/store/outbox_sql.h"

namespace parlor::sessions {
namespace {

// Puts the rows of `batch` that could not be delivered back, with their retries, in one
// statement; returns how many. A failure naming no row of the batch, or one already named, puts
// nothing back.
int ReturnUndelivered(DbPool& db, pqxx::work& txn,
                      const std::vector<OutboxStore::PendingNotification>& batch,
                      const std::vector<OutboxStore::Failure>& failures) {
  absl::flat_hash_map<int64_t, const OutboxStore::PendingNotification*> taken;
  for (const OutboxStore::PendingNotification& n : batch) taken.emplace(n.id, &n);
  std::vector<int64_t> ids, versions, created, attempts, retry_at;
  std::vector<std::string> games, accounts, kinds, dedupe_keys, payloads, errors;
  for (const OutboxStore::Failure& f : failures) {
    auto it = taken.find(f.id);
    if (it == taken.end()) continue;  // not of this batch, or already put back
    const OutboxStore::PendingNotification& n = *it->second;
    taken.erase(it);
    ids.push_back(n.id);
    games.push_back(n.game_id);
    accounts.push_back(n.row.account_id);
    kinds.push_back(n.row.kind);
    versions.push_back(n.row.version);
    dedupe_keys.push_back(n.row.dedupe_key);
    payloads.push_back(n.row.payload_json);
    created.push_back(absl::ToUnixMicros(n.created_at));
    attempts.push_back(n.attempts);
    retry_at.push_back(absl::ToUnixMicros(f.retry_at));
    // NUL cannot travel in a text value.
    std::string error = CutUtf8(f.error, 500);
    error.erase(std::remove(error.begin(), error.end(), '\0'), error.end());
    errors.push_back(std::move(error));
  }
  if (ids.empty()) return 0;
  db.Run(txn, "sessions_outbox_return_undelivered", sql::kReturnUndelivered, PgIntArray(ids),
         PgTextArray(games), PgTextArray(accounts), PgTextArray(kinds), PgIntArray(versions),
         PgTextArray(dedupe_keys), PgTextArray(payloads), PgIntArray(created), PgIntArray(attempts),
         PgIntArray(retry_at), PgTextArray(errors));
  return static_cast<int>(ids.size());
}

}  // namespace

absl::StatusOr<OutboxStore::Delivery> OutboxStore::DeliverNotifications(absl::Time now, int limit,
                                                                        Deliver deliver) {
  Delivery delivery;
  absl::Status status = db_->Transact("sessions.deliver_notifications", [&](pqxx::work& txn) {
    std::vector<PendingNotification> batch;
    for (const pqxx::row& r : db_->Run(txn, "sessions_outbox_take_due", sql::kTakeDueNotifications,
                                       absl::ToUnixMicros(now), limit)) {
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
    if (!failures.empty()) delivery.failed = ReturnUndelivered(*db_, txn, batch, failures);
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
