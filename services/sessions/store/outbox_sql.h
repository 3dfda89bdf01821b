#ifndef PARLOR_SERVICES_SESSIONS_STORE_OUTBOX_SQL_H_
#define PARLOR_SERVICES_SESSIONS_STORE_OUTBOX_SQL_H_

// The dispatcher's side of the notification and result outboxes (the rows themselves are written
// by the state changes in sql.h). All parameterized; times travel as microseconds since the Unix
// epoch (BIGINT), as in sql.h.
namespace parlor::sessions::sql {

// A notification is delivered inside the transaction that deletes it. The due rows, oldest
// first, locked for one delivery (other replicas' dispatchers skip them until this transaction
// ends), with the attempt this delivery is. $1 = now, $2 = limit. Rows still marked sent_at are
// those older binaries delivered and kept; none is due.
inline constexpr char kLockDueNotifications[] =
    "SELECT id, game_id::text, account_id::text, kind, version, dedupe_key, payload::text, "
    "attempts + 1, sessions.to_us(created_at) FROM sessions.notification_outbox "
    "WHERE sent_at IS NULL AND next_attempt_at <= sessions.from_us($1) "
    "ORDER BY next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED";

// The delivered rows leave the outbox ($1 = ids). A deletion is one small WAL record and no new
// index entries; marking a row sent (and, before that, claiming it with a lease) rewrote the
// whole row twice, each time with an entry in every index, and kept every push ever sent.
inline constexpr char kDeleteDeliveredNotifications[] =
    "DELETE FROM sessions.notification_outbox WHERE id = ANY($1::bigint[])";

// Schedules the retry of the rows that could not be delivered, in one statement, counting the
// attempt: $1 = ids, $2 = retry times, $3 = errors (parallel arrays).
inline constexpr char kNotificationsFailed[] =
    "UPDATE sessions.notification_outbox o SET attempts = o.attempts + 1, "
    "next_attempt_at = sessions.from_us(t.retry_at), last_error = t.error "
    "FROM unnest($1::bigint[], $2::bigint[], $3::text[]) AS t(id, retry_at, error) "
    "WHERE o.id = t.id AND o.sent_at IS NULL";

// Per outbox: rows not yet delivered and the creation time of the oldest (0 when none). Both
// walk only the pending rows (the partial indexes' predicates).
inline constexpr char kOutboxHealth[] =
    "SELECT 'notification', count(*), "
    "coalesce((extract(epoch from min(created_at)) * 1000000)::bigint, 0) "
    "FROM sessions.notification_outbox WHERE sent_at IS NULL "
    "UNION ALL SELECT 'result', count(*), "
    "coalesce((extract(epoch from min(created_at)) * 1000000)::bigint, 0) "
    "FROM sessions.result_outbox WHERE acked_at IS NULL";

}  // namespace parlor::sessions::sql

#endif  // PARLOR_SERVICES_SESSIONS_STORE_OUTBOX_SQL_H_
