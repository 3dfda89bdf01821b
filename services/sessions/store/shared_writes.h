#ifndef PARLOR_SERVICES_SESSIONS_STORE_SHARED_WRITES_H_
#define PARLOR_SERVICES_SESSIONS_STORE_SHARED_WRITES_H_

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "pqxx/pqxx"
#include "services/common/db/pool.h"
#include "services/sessions/store/rows.h"

// Writes that the sessions stores' transactions share (PgSessionsStore, PgTableStore), each a
// fixed statement of sql.h run through DbPool::Run (prepared once per connection).
namespace parlor::sessions {

// Queues `rows` in the notification outbox for game `game_id`, created and due at `now` (once
// per dedupe key).
void InsertNotifications(const DbPool& db, pqxx::work& txn, const std::string& game_id,
                         const std::vector<NotificationRow>& rows, absl::Time now);

// Wakes every replica's change listener with `payload` at commit; nothing when it is empty.
void Notify(const DbPool& db, pqxx::work& txn, const std::string& payload);

}  // namespace parlor::sessions

#endif  // PARLOR_SERVICES_SESSIONS_STORE_SHARED_WRITES_H_
