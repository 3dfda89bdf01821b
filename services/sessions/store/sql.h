#ifndef PARLOR_SERVICES_SESSIONS_STORE_SQL_H_
#define PARLOR_SERVICES_SESSIONS_STORE_SQL_H_

// Every SQL statement of the sessions service, in one place. All are parameterized. Times travel
// as microseconds since the Unix epoch (BIGINT) to keep libpqxx conversions exact.
namespace parlor::sessions::sql {

// The columns of a game row, in the order GameStore's row reader expects.
#define PARLOR_SESSIONS_GAME_COLUMNS_BEFORE_SNAPSHOT                                   \
  "g.game_id::text, g.game, coalesce(g.match_id, ''), g.ranked, g.status, g.version, " \
  "g.num_players, g.options::text, "
#define PARLOR_SESSIONS_GAME_COLUMNS_AFTER_SNAPSHOT                                             \
  ", g.seed_commitment, g.acting_seats, g.tc_kind, "                                            \
  "coalesce(g.tc_per_move_s, 0), coalesce(g.tc_bank_initial_s, 0), "                            \
  "coalesce(g.tc_bank_increment_s, 0), g.vacation_days, "                                       \
  "coalesce((extract(epoch from g.deadline) * 1000000)::bigint, 0), "                           \
  "coalesce(array_to_string(g.ranks, ','), ''), coalesce(array_to_string(g.scores, ','), ''), " \
  "coalesce(g.end_reason, ''), (extract(epoch from g.created_at) * 1000000)::bigint, "          \
  "(extract(epoch from g.updated_at) * 1000000)::bigint, g.visibility = 'public'"
#define PARLOR_SESSIONS_GAME_COLUMNS           \
  PARLOR_SESSIONS_GAME_COLUMNS_BEFORE_SNAPSHOT \
      "g.snapshot" PARLOR_SESSIONS_GAME_COLUMNS_AFTER_SNAPSHOT
// The same columns, with the snapshot NULL when the row's version is `param`, the version whose
// snapshot the server already holds in memory (SnapshotCache): the database then neither
// decompresses it nor sends it.
#define PARLOR_SESSIONS_GAME_COLUMNS_UNLESS_CACHED(param) \
  PARLOR_SESSIONS_GAME_COLUMNS_BEFORE_SNAPSHOT            \
      "CASE WHEN g.version = " param                      \
      "::bigint THEN NULL ELSE g.snapshot END" PARLOR_SESSIONS_GAME_COLUMNS_AFTER_SNAPSHOT

#define PARLOR_SESSIONS_SEAT_COLUMNS                                                        \
  "s.seat, coalesce(s.account_id::text, ''), coalesce(s.bot, ''), s.display_name, s.team, " \
  "s.forfeited, s.my_turn, "                                                                \
  "coalesce((extract(epoch from s.turn_started_at) * 1000000)::bigint, 0), "                \
  "coalesce((extract(epoch from s.deadline) * 1000000)::bigint, 0), s.reminders_sent, "     \
  "coalesce(s.time_bank_ms, -1), s.vacation_used_ms"

// A new game, as it is after its set-up and any computer moves made at once: it may already
// have ended ($18 = 'finished', with the outcome in $19..$21).
inline constexpr char kInsertGame[] =
    "INSERT INTO sessions.games (game_id, game, match_id, ranked, status, version, num_players, "
    "options, snapshot, seed_commitment, acting_seats, tc_kind, tc_per_move_s, tc_bank_initial_s, "
    "tc_bank_increment_s, vacation_days, deadline, created_at, updated_at, visibility, ranks, "
    "scores, end_reason, finished_at) "
    "VALUES ($1::uuid, $2, NULLIF($3, ''), $4, $18, $22, $5, $6::jsonb, $7, $8, $9, $10, "
    "NULLIF($11::bigint, 0), NULLIF($12::bigint, 0), CASE WHEN $10 = 'time_bank' THEN $13::bigint "
    "END, $14, "
    "CASE WHEN $15::bigint = 0 THEN NULL ELSE to_timestamp($15::double precision / 1000000) END, "
    "to_timestamp($16::double precision / 1000000), to_timestamp($16::double precision / 1000000), "
    "$17, NULLIF($19, '')::integer[], NULLIF($20, '')::bigint[], NULLIF($21, ''), "
    "CASE WHEN $18 = 'finished' THEN to_timestamp($16::double precision / 1000000) END)";

inline constexpr char kInsertSeat[] =
    "INSERT INTO sessions.seats (game_id, seat, account_id, bot, display_name, team, status, "
    "my_turn, turn_started_at, deadline, time_bank_ms, updated_at) "
    "VALUES ($1::uuid, $2, NULLIF($3, '')::uuid, NULLIF($4, ''), $5, $6, $12, $7, "
    "CASE WHEN $8::bigint = 0 THEN NULL ELSE to_timestamp($8::double precision / 1000000) END, "
    "CASE WHEN $9::bigint = 0 THEN NULL ELSE to_timestamp($9::double precision / 1000000) END, "
    "NULLIF($10::bigint, -1), to_timestamp($11::double precision / 1000000))";

// Claims a match id; returns no row when it was already claimed.
inline constexpr char kInsertMatch[] =
    "INSERT INTO sessions.matches (match_id, game_id, request_hash, created_at) "
    "VALUES ($1, $2::uuid, $3, to_timestamp($4::double precision / 1000000)) "
    "ON CONFLICT (match_id) DO NOTHING RETURNING match_id";

inline constexpr char kSelectMatch[] =
    "SELECT game_id::text, request_hash FROM sessions.matches WHERE match_id = $1";

inline constexpr char kSelectGame[] =
    "SELECT " PARLOR_SESSIONS_GAME_COLUMNS " FROM sessions.games g WHERE g.game_id = $1::uuid";

// kSelectGame with the snapshot left out when the row is at version $2 (SnapshotCache).
inline constexpr char kSelectGameUnlessCached[] =
    "SELECT " PARLOR_SESSIONS_GAME_COLUMNS_UNLESS_CACHED(
        "$2") " FROM sessions.games g WHERE g.game_id = $1::uuid";

inline constexpr char kSelectGameForUpdate[] =
    "SELECT " PARLOR_SESSIONS_GAME_COLUMNS
    " FROM sessions.games g WHERE g.game_id = $1::uuid FOR UPDATE";

inline constexpr char kSelectSeats[] =
    "SELECT " PARLOR_SESSIONS_SEAT_COLUMNS
    " FROM sessions.seats s WHERE s.game_id = $1::uuid ORDER BY s.seat";

// SubmitAction's read, in one round trip: the game row locked FOR UPDATE, its seats, and the
// answer stored under ($2 account, $3 key), if any, repeated on every seat row. The seats are
// locked too: a caller that waited for the game row's lock gets the newest game row, and only
// rows it locks are re-read at their newest version, so seats left unlocked could predate the
// game row (two sweepers timing one seat out twice). Seat rows are written only under their
// game row's lock, so this order cannot deadlock. The snapshot is left out when the row is at
// version $4, whose snapshot the server holds (SnapshotCache).
inline constexpr char kLockGameWithSeats[] = "SELECT " PARLOR_SESSIONS_GAME_COLUMNS_UNLESS_CACHED(
    "$4") ", " PARLOR_SESSIONS_SEAT_COLUMNS
          ", k.request_hash, coalesce(k.version, -1), k.response "
          "FROM sessions.games g JOIN sessions.seats s ON s.game_id = g.game_id "
          "LEFT JOIN sessions.idempotency_keys k ON k.game_id = g.game_id "
          "AND k.account_id = NULLIF($2, '')::uuid AND k.key = $3 "
          "WHERE g.game_id = $1::uuid ORDER BY s.seat FOR UPDATE OF g, s";

// Every write of one state change, in one round trip (data-modifying CTEs): the game row, its
// seats, the new log entries, the idempotency answer, the notification and result outbox rows,
// and the NOTIFY. Lists travel as arrays ($11..$18, $19, $22, $23, $33) or as comma-separated
// text of hex-encoded values ($24 accounts, $25 entries, $31.., $35 payloads).
inline constexpr char kWriteMutation[] =
    "WITH g AS (UPDATE sessions.games SET status = $2, version = $3, snapshot = $4, "
    "acting_seats = $5, "
    "deadline = CASE WHEN $6::bigint = 0 THEN NULL "
    "ELSE to_timestamp($6::double precision / 1000000) END, "
    "ranks = NULLIF($7, '')::integer[], scores = NULLIF($8, '')::bigint[], "
    "end_reason = NULLIF($9, ''), updated_at = to_timestamp($10::double precision / 1000000), "
    "finished_at = CASE WHEN $2 = 'finished' THEN to_timestamp($10::double precision / 1000000) "
    "END WHERE game_id = $1::uuid RETURNING 1), "
    "s AS (UPDATE sessions.seats AS s SET forfeited = t.forfeited, status = $2, "
    "my_turn = t.my_turn, "
    "turn_started_at = CASE WHEN t.ts = 0 THEN NULL "
    "ELSE to_timestamp(t.ts::double precision / 1000000) END, "
    "deadline = CASE WHEN t.dl = 0 THEN NULL ELSE to_timestamp(t.dl::double precision / 1000000) "
    "END, reminders_sent = t.rem, time_bank_ms = NULLIF(t.bank, -1), vacation_used_ms = t.vac, "
    "updated_at = to_timestamp($10::double precision / 1000000) "
    "FROM unnest($11::integer[], $12::boolean[], $13::boolean[], $14::bigint[], $15::bigint[], "
    "$16::smallint[], $17::bigint[], $18::bigint[]) "
    "AS t(seat, forfeited, my_turn, ts, dl, rem, bank, vac) "
    "WHERE s.game_id = $1::uuid AND s.seat = t.seat RETURNING 1), "
    "a AS (INSERT INTO sessions.actions (game_id, version, kind, cause, seat, action, account_id, "
    "entry, created_at) SELECT $1::uuid, t.version, t.kind, t.cause, t.seat, t.action, "
    "NULLIF(t.account, '')::uuid, decode(t.entry, 'hex'), "
    "to_timestamp($10::double precision / 1000000) "
    "FROM unnest($19::bigint[], string_to_array($20, ','), string_to_array($21, ','), "
    "$22::integer[], $23::bigint[], string_to_array($24, ','), string_to_array($25, ',')) "
    "AS t(version, kind, cause, seat, action, account, entry) RETURNING 1), "
    "i AS (INSERT INTO sessions.idempotency_keys (game_id, account_id, key, request_hash, version, "
    "response, created_at) SELECT $1::uuid, NULLIF($27, '')::uuid, $26, $28, $29, $30, "
    "to_timestamp($10::double precision / 1000000) WHERE $26 <> '' RETURNING 1), "
    "n AS (INSERT INTO sessions.notification_outbox (game_id, account_id, kind, version, "
    "dedupe_key, payload, created_at, next_attempt_at) SELECT $1::uuid, t.account::uuid, t.kind, "
    "t.version, t.dedupe, convert_from(decode(t.payload, 'hex'), 'UTF8')::jsonb, "
    "to_timestamp($10::double precision / 1000000), to_timestamp($10::double precision / 1000000) "
    "FROM unnest(string_to_array($31, ','), string_to_array($32, ','), $33::bigint[], "
    "string_to_array($34, ','), string_to_array($35, ',')) "
    "AS t(account, kind, version, dedupe, payload) "
    "ON CONFLICT (dedupe_key) DO NOTHING RETURNING 1), "
    "r AS (INSERT INTO sessions.result_outbox (game_id, game, ranked, payload, created_at, "
    "next_attempt_at) SELECT $1::uuid, $37, $38, NULLIF($36, '')::jsonb, "
    "to_timestamp($10::double precision / 1000000), to_timestamp($10::double precision / 1000000) "
    "WHERE $36 <> '' RETURNING 1) "
    "SELECT CASE WHEN $39 <> '' THEN pg_notify('parlor_sessions', $39) END, "
    "(SELECT count(*) FROM g), (SELECT count(*) FROM s), (SELECT count(*) FROM a)";

inline constexpr char kInsertAction[] =
    "INSERT INTO sessions.actions (game_id, version, kind, cause, seat, action, account_id, entry, "
    "created_at) VALUES ($1::uuid, $2, $3, $4, $5, $6, NULLIF($7, '')::uuid, $8, "
    "to_timestamp($9::double precision / 1000000))";

inline constexpr char kSelectActions[] =
    "SELECT version, kind, cause, seat, action, coalesce(account_id::text, ''), entry, "
    "(extract(epoch from created_at) * 1000000)::bigint FROM sessions.actions "
    "WHERE game_id = $1::uuid AND version >= $2 ORDER BY version LIMIT $3";

inline constexpr char kSelectIdempotencyKey[] =
    "SELECT request_hash, version, response FROM sessions.idempotency_keys "
    "WHERE game_id = $1::uuid AND account_id = $2::uuid AND key = $3";

inline constexpr char kInsertIdempotencyKey[] =
    "INSERT INTO sessions.idempotency_keys (game_id, account_id, key, request_hash, version, "
    "response, created_at) VALUES ($1::uuid, $2::uuid, $3, $4, $5, $6, "
    "to_timestamp($7::double precision / 1000000))";

inline constexpr char kInsertNotification[] =
    "INSERT INTO sessions.notification_outbox (game_id, account_id, kind, version, dedupe_key, "
    "payload, created_at, next_attempt_at) VALUES ($1::uuid, $2::uuid, $3, $4, $5, $6::jsonb, "
    "to_timestamp($7::double precision / 1000000), to_timestamp($7::double precision / 1000000)) "
    "ON CONFLICT (dedupe_key) DO NOTHING";

inline constexpr char kInsertResult[] =
    "INSERT INTO sessions.result_outbox (game_id, game, ranked, payload, created_at, "
    "next_attempt_at) VALUES ($1::uuid, $2, $3, $4::jsonb, "
    "to_timestamp($5::double precision / 1000000), to_timestamp($5::double precision / 1000000))";

// Announces a committed change to every replica's listener (delivered at commit).
inline constexpr char kNotifyChannel[] = "parlor_sessions";
inline constexpr char kNotify[] = "SELECT pg_notify('parlor_sessions', $1)";

// ListMyGames: keyset pagination on (updated_at DESC, game_id DESC). $2 = filter: 0 all,
// 1 my turn, 2 waiting, 3 finished. $3/$4 = cursor (0/'' for the first page). $5 = limit.
inline constexpr char kListMyGames[] =
    "SELECT " PARLOR_SESSIONS_GAME_COLUMNS
    " FROM sessions.seats s JOIN sessions.games g ON g.game_id = s.game_id "
    "WHERE s.account_id = $1::uuid "
    "AND ($2::int = 0 OR ($2::int = 1 AND s.status = 'active' AND s.my_turn) "
    "OR ($2::int = 2 AND s.status = 'active' AND NOT s.my_turn) OR ($2::int = 3 AND s.status = "
    "'finished')) "
    "AND ($3::bigint = 0 OR (s.updated_at, s.game_id) < "
    "(to_timestamp($3::double precision / 1000000), $4::uuid)) "
    "ORDER BY s.updated_at DESC, s.game_id DESC LIMIT $5";

// Games whose earliest deadline or next reminder is due, skipping games another replica's
// sweeper holds.
inline constexpr char kSelectDueGames[] =
    "SELECT g.game_id::text FROM sessions.games g WHERE g.status = 'active' AND EXISTS ("
    "SELECT 1 FROM sessions.seats s WHERE s.game_id = g.game_id AND s.my_turn AND ("
    "s.deadline <= to_timestamp($1::double precision / 1000000) OR "
    "(s.reminders_sent = 0 AND s.turn_started_at + (s.deadline - s.turn_started_at) * 0.5 <= "
    "to_timestamp($1::double precision / 1000000)) OR "
    "(s.reminders_sent = 1 AND s.turn_started_at + (s.deadline - s.turn_started_at) * 0.9 <= "
    "to_timestamp($1::double precision / 1000000)))) "
    "ORDER BY g.deadline LIMIT $2 FOR UPDATE OF g SKIP LOCKED";

inline constexpr char kSelectVacation[] =
    "SELECT (extract(epoch from started_at) * 1000000)::bigint, "
    "(extract(epoch from ends_at) * 1000000)::bigint FROM sessions.vacations "
    "WHERE account_id = $1::uuid";

// Starts a vacation unless one is running; returns no row when one is.
inline constexpr char kStartVacation[] =
    "INSERT INTO sessions.vacations (account_id, started_at, ends_at) "
    "VALUES ($1::uuid, to_timestamp($2::double precision / 1000000), "
    "to_timestamp($3::double precision / 1000000)) "
    "ON CONFLICT (account_id) DO UPDATE SET started_at = EXCLUDED.started_at, "
    "ends_at = EXCLUDED.ends_at WHERE sessions.vacations.ends_at <= EXCLUDED.started_at "
    "RETURNING account_id";

// Ends a running vacation now; returns no row when none is running.
inline constexpr char kEndVacation[] =
    "DELETE FROM sessions.vacations WHERE account_id = $1::uuid "
    "AND ends_at > to_timestamp($2::double precision / 1000000) RETURNING account_id";

// The outboxes are drained at least once by every replica's dispatcher: a claim pushes the row's
// next attempt out by a lease (so no other replica takes it meanwhile) and counts the attempt.
// $1 = now, $2 = lease end, $3 = limit.
inline constexpr char kClaimNotifications[] =
    "UPDATE sessions.notification_outbox o SET "
    "next_attempt_at = to_timestamp($2::double precision / 1000000), attempts = attempts + 1 "
    "WHERE o.id IN (SELECT id FROM sessions.notification_outbox WHERE sent_at IS NULL "
    "AND next_attempt_at <= to_timestamp($1::double precision / 1000000) "
    "ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED) "
    "RETURNING o.id, o.game_id::text, o.account_id::text, o.kind, o.version, o.dedupe_key, "
    "o.payload::text, o.attempts";

inline constexpr char kNotificationSent[] =
    "UPDATE sessions.notification_outbox SET sent_at = to_timestamp($2::double precision / "
    "1000000), last_error = NULL WHERE id = $1";

inline constexpr char kNotificationFailed[] =
    "UPDATE sessions.notification_outbox SET next_attempt_at = "
    "to_timestamp($2::double precision / 1000000), last_error = $3 WHERE id = $1";

inline constexpr char kClaimResults[] =
    "UPDATE sessions.result_outbox o SET "
    "next_attempt_at = to_timestamp($2::double precision / 1000000), attempts = attempts + 1 "
    "WHERE o.game_id IN (SELECT game_id FROM sessions.result_outbox WHERE acked_at IS NULL "
    "AND next_attempt_at <= to_timestamp($1::double precision / 1000000) "
    "ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED) "
    "RETURNING o.game_id::text, o.attempts";

inline constexpr char kResultAcked[] =
    "UPDATE sessions.result_outbox SET acked_at = to_timestamp($2::double precision / 1000000), "
    "last_error = NULLIF($3, '') WHERE game_id = $1::uuid";

inline constexpr char kResultFailed[] =
    "UPDATE sessions.result_outbox SET next_attempt_at = "
    "to_timestamp($2::double precision / 1000000), last_error = $3 WHERE game_id = $1::uuid";

inline constexpr char kCountPendingOutbox[] =
    "SELECT (SELECT count(*) FROM sessions.notification_outbox WHERE sent_at IS NULL), "
    "(SELECT count(*) FROM sessions.result_outbox WHERE acked_at IS NULL)";

inline constexpr char kCountGames[] =
    "SELECT game, status, count(*) FROM sessions.games GROUP BY game, status";

// ListPublicGames: keyset pagination on (updated_at DESC, game_id DESC) over public games of one
// status ($2 'active' or 'finished'), optionally of one game ($1, '' = any). $3/$4 = cursor
// (0/'' for the first page). $5 = limit.
inline constexpr char kListPublicGames[] =
    "SELECT " PARLOR_SESSIONS_GAME_COLUMNS
    " FROM sessions.games g WHERE g.visibility = 'public' AND g.status = $2 "
    "AND ($1 = '' OR g.game = $1) "
    "AND ($3::bigint = 0 OR (g.updated_at, g.game_id) < "
    "(to_timestamp($3::double precision / 1000000), $4::uuid)) "
    "ORDER BY g.updated_at DESC, g.game_id DESC LIMIT $5";

// Deletes up to $2 idempotency keys created before $1 (the retention cutoff); rows another
// transaction holds are left for the next batch. Returns one row per key deleted.
inline constexpr char kDeleteOldIdempotencyKeys[] =
    "DELETE FROM sessions.idempotency_keys WHERE ctid = ANY(ARRAY("
    "SELECT ctid FROM sessions.idempotency_keys "
    "WHERE created_at < to_timestamp($1::double precision / 1000000) "
    "LIMIT $2 FOR UPDATE SKIP LOCKED)) RETURNING 1";

#undef PARLOR_SESSIONS_GAME_COLUMNS
#undef PARLOR_SESSIONS_SEAT_COLUMNS

}  // namespace parlor::sessions::sql

#endif  // PARLOR_SERVICES_SESSIONS_STORE_SQL_H_
