#ifndef PARLOR_SERVICES_SESSIONS_STORE_OUTBOX_SQL_H_
#define PARLOR_SERVICES_SESSIONS_STORE_OUTBOX_SQL_H_

// The dispatcher's side of the notification and result outboxes (the rows themselves are written
// by the state changes in sql.h). All parameterized; times travel as microseconds since the Unix
// epoch (BIGINT), as in sql.h.
namespace parlor::sessions::sql {

// Marks a batch of claimed notifications delivered, in one statement. $1 = ids, $2 = now.
inline constexpr char kNotificationsSent[] =
    "UPDATE sessions.notification_outbox SET sent_at = to_timestamp($2::double precision / "
    "1000000), last_error = NULL WHERE id = ANY($1::bigint[]) AND sent_at IS NULL";

// Schedules the retry of a batch of notifications that could not be delivered, in one
// statement: $1 = ids, $2 = retry times, $3 = errors (parallel arrays).
inline constexpr char kNotificationsFailed[] =
    "UPDATE sessions.notification_outbox o SET "
    "next_attempt_at = to_timestamp(t.retry_at::double precision / 1000000), last_error = t.error "
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
