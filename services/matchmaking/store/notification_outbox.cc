#include "services/matchmaking/store/notification_outbox.h"

#include <tuple>

#include "pqxx/pqxx"
#include "services/common/db/pg_array.h"

namespace parlor::matchmaking {
namespace {

// The outbox's statements (the rows themselves are written by migration 0002's triggers). Times
// travel as Unix microseconds.
constexpr char kClaim[] =
    "UPDATE matchmaking.notification_outbox o SET "
    "next_attempt_at = to_timestamp($2::bigint / 1000000.0), attempts = o.attempts + 1 "
    "WHERE o.id IN (SELECT id FROM matchmaking.notification_outbox WHERE sent_at IS NULL "
    "AND next_attempt_at <= to_timestamp($1::bigint / 1000000.0) "
    "ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED) "
    "RETURNING o.id, o.account_id, o.kind, o.dedupe_key, o.game, o.game_id, o.from_account, "
    "o.other_accounts, (extract(epoch FROM o.created_at) * 1000000)::bigint, o.attempts, "
    "o.party_id";

constexpr char kSent[] =
    "UPDATE matchmaking.notification_outbox SET sent_at = to_timestamp($2::bigint / 1000000.0), "
    "last_error = NULL WHERE id = ANY($1::bigint[]) AND sent_at IS NULL";

constexpr char kFailed[] =
    "UPDATE matchmaking.notification_outbox SET "
    "next_attempt_at = to_timestamp($2::bigint / 1000000.0), last_error = $3 "
    "WHERE id = ANY($1::bigint[]) AND sent_at IS NULL";

constexpr char kBacklog[] =
    "SELECT count(*), (extract(epoch FROM min(created_at)) * 1000000)::bigint "
    "FROM matchmaking.notification_outbox WHERE sent_at IS NULL";

std::vector<std::string> TextArray(const pqxx::field& field) {
  std::vector<std::string> values;
  pqxx::array_parser parser = field.as_array();
  for (auto [juncture, value] = parser.get_next(); juncture != pqxx::array_parser::juncture::done;
       std::tie(juncture, value) = parser.get_next()) {
    if (juncture == pqxx::array_parser::juncture::string_value) values.push_back(value);
  }
  return values;
}

}  // namespace

absl::StatusOr<std::vector<OutboxNotification>> NotificationOutboxStore::Claim(absl::Time now,
                                                                               absl::Duration lease,
                                                                               int limit) {
  std::vector<OutboxNotification> rows;
  absl::Status status = db_->Transact("claim_notifications", [&](pqxx::work& txn) {
    rows.clear();
    for (const pqxx::row& r : db_->Run(txn, "claim_notifications", kClaim, absl::ToUnixMicros(now),
                                       absl::ToUnixMicros(now + lease), limit)) {
      OutboxNotification n;
      n.id = r[0].as<int64_t>();
      n.account_id = r[1].as<std::string>();
      n.kind = r[2].as<std::string>();
      n.dedupe_key = r[3].as<std::string>();
      n.game = r[4].as<std::string>();
      n.game_id = r[5].as<std::string>();
      n.from_account = r[6].as<std::string>();
      n.other_accounts = TextArray(r[7]);
      n.created_at = absl::FromUnixMicros(r[8].as<int64_t>());
      n.attempts = r[9].as<int>();
      n.party_id = r[10].as<std::string>();
      rows.push_back(std::move(n));
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return rows;
}

absl::Status NotificationOutboxStore::MarkSent(const std::vector<int64_t>& ids, absl::Time now) {
  if (ids.empty()) return absl::OkStatus();
  return db_->Transact("notifications_sent", [&](pqxx::work& txn) {
    db_->Run(txn, "notifications_sent", kSent, PgIntArray(ids), absl::ToUnixMicros(now));
    return absl::OkStatus();
  });
}

absl::Status NotificationOutboxStore::MarkFailed(const std::vector<int64_t>& ids,
                                                 absl::Time retry_at, const std::string& error) {
  if (ids.empty()) return absl::OkStatus();
  std::string cut = error.substr(0, 500);
  while (!cut.empty() && (static_cast<unsigned char>(cut.back()) & 0x80) != 0) cut.pop_back();
  return db_->Transact("notifications_failed", [&](pqxx::work& txn) {
    db_->Run(txn, "notifications_failed", kFailed, PgIntArray(ids), absl::ToUnixMicros(retry_at),
             cut);
    return absl::OkStatus();
  });
}

absl::StatusOr<OutboxBacklog> NotificationOutboxStore::Backlog() {
  OutboxBacklog backlog;
  absl::Status status = db_->Read("notification_backlog", [&](pqxx::nontransaction& txn) {
    const pqxx::row row = txn.exec(kBacklog)[0];
    backlog.pending = row[0].as<int64_t>();
    if (!row[1].is_null()) backlog.oldest_created_at = absl::FromUnixMicros(row[1].as<int64_t>());
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return backlog;
}

}  // namespace parlor::matchmaking
