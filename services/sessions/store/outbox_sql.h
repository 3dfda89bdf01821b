#ifndef PARLOR_SERVICES_SESSIONS_STORE_OUTBOX_SQL_H_
#define PARLOR_SERVICES_SESSIONS_STORE_OUTBOX_SQL_H_

// The dispatcher's side of the notification and result outboxes (the rows themselves are written
// by the state changes in sql.h). All parameterized; times travel as microseconds since the Unix
// epoch (BIGINT), as in sql.h.
namespace parlor::sessions::sql {

// A notification is delivered inside the transaction that deletes it. The due rows are deleted
// at once and returned oldest due first (ties by id, the order they were written), with the
// attempt this delivery is: one statement that changes each row once, where locking them and
// deleting the delivered ones later took two statements and two changes per row (the lock, then
// the delete). Other replicas' dispatchers skip rows this transaction holds; a crash, a lost
// connection or a failed commit undoes the delete, so every row stays until its delivery
// commits. $1 = now, $2 = limit. Rows still marked sent_at are those older binaries delivered and
// kept; none is due.
inline constexpr char kTakeDueNotifications[] =
    "WITH taken AS (DELETE FROM sessions.notification_outbox o WHERE (o.game_id, o.id) IN ("
    "SELECT game_id, id FROM sessions.notification_outbox "
    "WHERE sent_at IS NULL AND next_attempt_at <= sessions.from_us($1) "
    "ORDER BY next_attempt_at LIMIT $2 FOR UPDATE SKIP LOCKED) "
    "RETURNING o.*) "
    "SELECT id, game_id::text, account_id::text, kind, version, dedupe_key, payload::text, "
    "attempts + 1, sessions.to_us(created_at) FROM taken ORDER BY next_attempt_at, id";

// The rows of a batch that could not be delivered go back, as they were (same id, same dedupe
// key: the delete that took them is this transaction's own), with the attempt counted, the
// retry's time and the error: parallel arrays, $1 ids ... $11 errors.
inline constexpr char kReturnUndelivered[] =
    "INSERT INTO sessions.notification_outbox (id, game_id, account_id, kind, version, "
    "dedupe_key, payload, created_at, attempts, next_attempt_at, last_error) "
    "OVERRIDING SYSTEM VALUE "
    "SELECT t.id, t.game_id, t.account_id, t.kind, t.version, t.dedupe_key, t.payload::jsonb, "
    "sessions.from_us(t.created_us), t.attempts, sessions.from_us(t.retry_us), t.error "
    "FROM unnest($1::bigint[], $2::uuid[], $3::uuid[], $4::text[], $5::bigint[], $6::text[], "
    "$7::text[], $8::bigint[], $9::integer[], $10::bigint[], $11::text[]) "
    "AS t(id, game_id, account_id, kind, version, dedupe_key, payload, created_us, attempts, "
    "retry_us, error)";

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
