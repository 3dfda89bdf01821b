#include "services/sessions/store/shared_writes.h"

#include "services/sessions/store/sql.h"

namespace parlor::sessions {

void InsertNotifications(const DbPool& db, pqxx::work& txn, const std::string& game_id,
                         const std::vector<NotificationRow>& rows, absl::Time now) {
  for (const NotificationRow& n : rows) {
    db.Run(txn, "sessions_insert_notification", sql::kInsertNotification, game_id, n.account_id,
           n.kind, n.version, n.dedupe_key, n.payload_json, absl::ToUnixMicros(now));
  }
}

void Notify(const DbPool& db, pqxx::work& txn, const std::string& payload) {
  if (!payload.empty()) db.Run(txn, "sessions_notify", sql::kNotify, payload);
}

}  // namespace parlor::sessions
