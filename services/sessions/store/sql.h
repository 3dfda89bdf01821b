#ifndef PARLOR_SERVICES_SESSIONS_STORE_SQL_H_
#define PARLOR_SERVICES_SESSIONS_STORE_SQL_H_

// Every SQL statement of the sessions service, in one place. All are parameterized. Times travel
// as microseconds since the Unix epoch (BIGINT) to keep libpqxx conversions exact:
// sessions.from_us(us) and sessions.to_us(t) (migration 0005) convert them in SQL.
namespace parlor::sessions::sql {

// The columns of a game row, in the order PgSessionsStore's row reader expects.
#define PARLOR_SESSIONS_GAME_COLUMNS_BEFORE_SNAPSHOT                                   \
  "g.game_id::text, g.game, coalesce(g.match_id, ''), g.ranked, g.status, g.version, " \
  "g.num_players, g.options::text, "
#define PARLOR_SESSIONS_GAME_COLUMNS_AFTER_SNAPSHOT                                             \
  ", g.seed_commitment, g.acting_seats, g.tc_kind, "                                            \
  "coalesce(g.tc_per_move_s, 0), coalesce(g.tc_bank_initial_s, 0), "                            \
  "coalesce(g.tc_bank_increment_s, 0), g.vacation_days, "                                       \
  "coalesce(sessions.to_us(g.deadline), 0), "                                                   \
  "coalesce(array_to_string(g.ranks, ','), ''), coalesce(array_to_string(g.scores, ','), ''), " \
  "coalesce(g.end_reason, ''), sessions.to_us(g.created_at), "                                  \
  "sessions.to_us(g.updated_at), g.visibility = 'public'"
#define PARLOR_SESSIONS_GAME_COLUMNS           \
  PARLOR_SESSIONS_GAME_COLUMNS_BEFORE_SNAPSHOT \
  "g.snapshot" PARLOR_SESSIONS_GAME_COLUMNS_AFTER_SNAPSHOT
// The same columns, with the snapshot NULL when the row's version is `param`, the version whose
// snapshot the server already holds in memory (SnapshotCache): the database then neither
// decompresses it nor sends it.
#define PARLOR_SESSIONS_GAME_COLUMNS_UNLESS_CACHED(param) \
  PARLOR_SESSIONS_GAME_COLUMNS_BEFORE_SNAPSHOT            \
  "CASE WHEN g.version = " param                          \
  "::bigint THEN NULL ELSE g.snapshot END" PARLOR_SESSIONS_GAME_COLUMNS_AFTER_SNAPSHOT

#define PARLOR_SESSIONS_SEAT_COLUMNS                                                             \
  "s.seat, coalesce(s.account_id::text, ''), coalesce(s.bot, ''), s.display_name, s.team, "      \
  "s.forfeited, s.my_turn, "                                                                     \
  "coalesce(sessions.to_us(s.turn_started_at), 0), "                                             \
  "coalesce(sessions.to_us(s.deadline), 0), s.reminders_sent, "                                  \
  "coalesce(s.time_bank_ms, -1), s.vacation_used_ms, "                                           \
  "coalesce(sessions.to_us(s.vacation_until), 0), coalesce(sessions.to_us(s.paused_until), 0), " \
  "s.timeouts_in_a_row"

// A new game, as it is after its set-up and any computer moves made at once: it may already
// have ended ($18 = 'finished', with the outcome in $19..$21). Returns the transaction's id, the
// stamp of the rows it writes (GameRowCache).
inline constexpr char kInsertGame[] =
    "INSERT INTO sessions.games (game_id, game, match_id, ranked, status, version, num_players, "
    "options, snapshot, seed_commitment, acting_seats, tc_kind, tc_per_move_s, tc_bank_initial_s, "
    "tc_bank_increment_s, vacation_days, deadline, created_at, updated_at, visibility, ranks, "
    "scores, end_reason, finished_at, wake_at, wake_version) "
    "VALUES ($1::uuid, $2, NULLIF($3, ''), $4, $18, $22, $5, $6::jsonb, $7, $8, $9, $10, "
    "NULLIF($11::bigint, 0), NULLIF($12::bigint, 0), CASE WHEN $10 = 'time_bank' THEN $13::bigint "
    "END, $14, "
    "CASE WHEN $15::bigint = 0 THEN NULL ELSE sessions.from_us($15) END, "
    "sessions.from_us($16), sessions.from_us($16), "
    "$17, NULLIF($19, '')::integer[], NULLIF($20, '')::bigint[], NULLIF($21, ''), "
    "CASE WHEN $18 = 'finished' THEN sessions.from_us($16) END, "
    "sessions.from_us(NULLIF($23::bigint, -1)), $22) RETURNING txid_current()";

inline constexpr char kInsertSeat[] =
    "INSERT INTO sessions.seats (game_id, seat, account_id, bot, display_name, team, status, "
    "my_turn, turn_started_at, deadline, time_bank_ms, updated_at, vacation_used_ms, "
    "vacation_until, paused_until) "
    "VALUES ($1::uuid, $2, NULLIF($3, '')::uuid, NULLIF($4, ''), $5, $6, $12, $7, "
    "CASE WHEN $8::bigint = 0 THEN NULL ELSE sessions.from_us($8) END, "
    "CASE WHEN $9::bigint = 0 THEN NULL ELSE sessions.from_us($9) END, "
    "NULLIF($10::bigint, -1), sessions.from_us($11), $13, "
    "sessions.from_us(NULLIF($14::bigint, 0)), sessions.from_us(NULLIF($15::bigint, 0)))";

// Claims a match id; returns no row when it was already claimed.
inline constexpr char kInsertMatch[] =
    "INSERT INTO sessions.matches (match_id, game_id, request_hash, created_at) "
    "VALUES ($1, $2::uuid, $3, sessions.from_us($4)) "
    "ON CONFLICT (match_id) DO NOTHING RETURNING match_id";

inline constexpr char kSelectMatch[] =
    "SELECT game_id::text, request_hash FROM sessions.matches WHERE match_id = $1";

// CreateBotGame's quotas: $1 account, $2 an hour ago, $3 a day ago (microseconds). Games in
// progress; games against the computer (no match id) created since $2 and the oldest one's time;
// log entries (version + 1 per game) of games created since $3 and the oldest one's time.
inline constexpr char kAccountUsage[] =
    "SELECT count(*) FILTER (WHERE g.status = 'active'), "
    "count(*) FILTER (WHERE g.match_id IS NULL AND g.created_at > sessions.from_us($2)), "
    "coalesce(min(sessions.to_us(g.created_at)) FILTER (WHERE g.match_id IS NULL "
    "AND g.created_at > sessions.from_us($2)), 0), "
    "coalesce(sum(g.version + 1) FILTER (WHERE g.created_at > sessions.from_us($3)), 0)::bigint, "
    "coalesce(min(sessions.to_us(g.created_at)) FILTER (WHERE g.created_at > "
    "sessions.from_us($3)), 0) "
    "FROM sessions.seats s JOIN sessions.games g ON g.game_id = s.game_id "
    "WHERE s.account_id = $1::uuid AND (g.status = 'active' OR "
    "g.created_at > sessions.from_us($3))";

inline constexpr char kSelectGame[] =
    "SELECT " PARLOR_SESSIONS_GAME_COLUMNS " FROM sessions.games g WHERE g.game_id = $1::uuid";

// The stamp of a games row: the id of the transaction that wrote it (its 32-bit `xmin`) and the
// game's version (GameRowCache).
#define PARLOR_SESSIONS_GAME_STAMP "g.xmin::text::bigint, g.version"

// GetGame in one statement (one snapshot, one round trip): the game row, with the snapshot left
// out when the row is at version $2 (SnapshotCache), and its seats, a row per seat; then the
// row's stamp.
inline constexpr char kSelectGameWithSeatsUnlessCached[] =
    "SELECT " PARLOR_SESSIONS_GAME_COLUMNS_UNLESS_CACHED(
        "$2") ", " PARLOR_SESSIONS_SEAT_COLUMNS ", " PARLOR_SESSIONS_GAME_STAMP
              " FROM sessions.games g JOIN sessions.seats s ON s.game_id = g.game_id "
              "WHERE g.game_id = $1::uuid ORDER BY s.seat";

// The same read for a player who may sit in the game, with the version that player last marked
// seen ($3 account; -1 when none): GetGame answers with its seen state from this one round trip
// instead of a second query.
inline constexpr char kSelectGameWithSeatsSeenBy[] =
    "SELECT " PARLOR_SESSIONS_GAME_COLUMNS_UNLESS_CACHED(
        "$2") ", " PARLOR_SESSIONS_SEAT_COLUMNS ", " PARLOR_SESSIONS_GAME_STAMP
              ", coalesce(v.version, -1) FROM sessions.games g "
              "JOIN sessions.seats s ON s.game_id = g.game_id "
              "LEFT JOIN sessions.seen_versions v ON v.account_id = $3::uuid "
              "AND v.game_id = g.game_id "
              "WHERE g.game_id = $1::uuid ORDER BY s.seat";

// Only the stamp, when the server holds the row its own write stamped (GameRowCache): an index
// lookup and two numbers instead of the row and its seats.
inline constexpr char kSelectGameStamp[] =
    "SELECT " PARLOR_SESSIONS_GAME_STAMP " FROM sessions.games g WHERE g.game_id = $1::uuid";

// The stamp and the version account $2 last marked seen (-1 when none).
inline constexpr char kSelectGameStampSeenBy[] =
    "SELECT " PARLOR_SESSIONS_GAME_STAMP
    ", coalesce(v.version, -1) FROM sessions.games g "
    "LEFT JOIN sessions.seen_versions v ON v.account_id = $2::uuid AND v.game_id = g.game_id "
    "WHERE g.game_id = $1::uuid";

// Several games by id ($1 uuid[] text), in the order of the ids; an id of no game has no row.
inline constexpr char kSelectGames[] =
    "SELECT " PARLOR_SESSIONS_GAME_COLUMNS
    " FROM unnest($1::uuid[]) WITH ORDINALITY AS r(game_id, n) "
    "JOIN sessions.games g ON g.game_id = r.game_id ORDER BY r.n";

// The seats of several games ($1 uuid[] text), each row led by its game's id.
inline constexpr char kSelectSeatsOfGames[] =
    "SELECT s.game_id::text, " PARLOR_SESSIONS_SEAT_COLUMNS
    " FROM sessions.seats s WHERE s.game_id = ANY ($1::uuid[]) ORDER BY s.game_id, s.seat";

// UpdateGames (and UpdateGame, a batch of one): several games' state changes in
// one transaction (group commit), so that the per-statement and per-commit work of the database
// is shared by every move of the batch: two statements, the locked read below and the write
// (kWriteMutations).
//
// The locked read: for each requested game ($1 ids, $2 accounts, $3 keys, $4 cached snapshot
// versions, -1 for none; $5 and $6 the stamp, xmin and version, of the row this server's own
// write left, -1 for none), the game row's id and stamp, the game row and its seats, and the
// stored answer. Rows are locked in game id order, so concurrent batches cannot deadlock. The
// seats are locked too: a caller that waited for a game row's lock gets the newest game row, and
// only rows it locks are re-read at their newest version, so seats left unlocked could predate
// the game row (two sweepers timing one seat out twice). Seat rows are written only under their
// game row's lock. The game and seat columns are NULL when the games row carries the stamp the
// server gave (GameRowCache: the row it holds is the stored one), and the snapshot alone is left
// out when the row is at the version whose snapshot the server holds (SnapshotCache). The stored
// answer is looked up by its whole key (the LATERAL ... LIMIT 1 keeps the planner from joining
// on game_id alone and filtering every key of the game, one heap row per earlier move). Each row
// ends with the transaction's id (FOR UPDATE has given it one): every row the batch writes will
// carry it as its `xmin`.
inline constexpr char kLockGamesWithSeats[] =
    "SELECT g.game_id::text, " PARLOR_SESSIONS_GAME_STAMP
    ", w.*, k.request_hash, coalesce(k.version, -1), k.response, txid_current() "
    "FROM unnest($1::uuid[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[]) "
    "AS r(game_id, account, key, cached, stamp, stamp_version) "
    "JOIN sessions.games g ON g.game_id = r.game_id "
    "JOIN sessions.seats s ON s.game_id = g.game_id "
    "LEFT JOIN LATERAL (SELECT " PARLOR_SESSIONS_GAME_COLUMNS_UNLESS_CACHED(
        "r.cached") ", " PARLOR_SESSIONS_SEAT_COLUMNS
                    " WHERE g.xmin::text::bigint <> r.stamp OR g.version <> r.stamp_version) w "
                    "ON true "
                    "LEFT JOIN LATERAL (SELECT k.request_hash, k.version, k.response "
                    "FROM sessions.idempotency_keys k WHERE k.game_id = g.game_id "
                    "AND k.account_id = NULLIF(r.account, '')::uuid AND k.key = r.key LIMIT 1) k "
                    "ON true ORDER BY g.game_id, s.seat FOR UPDATE OF g, s";

// Every write of a batch of state changes (UpdateGames; UpdateGame is a batch of one), in one
// statement. Each parameter is one table's new rows, as an array of the composite types that
// migrations 0005 and 0014 create, in binary form (PgBinaryRecordArray; kWriteTypes gives their
// OIDs); each row names its game. Byte strings (snapshots, log entries, request hashes, answers)
// travel back to back in the one binary parameter, each found by its offset and length.
inline constexpr char kWriteMutations[] = R"sql(
-- $1 sessions.game_write_v2[]      the game rows after each change
-- $2 sessions.seat_write[]         the seat rows that changed
-- $3 sessions.action_write[]       the new action log entries
-- $4 sessions.key_write[]          the answers stored under SubmitAction's idempotency keys
-- $5 sessions.notification_write[] push notifications to send (once per dedupe key)
-- $6 sessions.result_write[]       results of games that ended, for ratings
-- $7 text[]                        NOTIFY payloads (the streams' wake-up), sent at commit
-- $8 bytea                         every byte string of the batch, back to back
-- $9, $10, $11, $15                how many games, seats, log entries and keys it must write
-- $12 uuid[], $13, $14 bigint[]    games decided on the row this server holds, without a locked
--                                  read: the row's stamp (xmin) and version, which it must carry
-- $16 text (microseconds or '')    when every change of the batch was decided (the latest), if
--                                  each may keep an earlier stored wake time (moves); '' if not
-- Every other row is written only once every game row was (the count of g): a game another
-- transaction changed meanwhile leaves the rest unwritten (no clash with that transaction's log
-- entries), and the statement fails below.
WITH g AS (
  UPDATE sessions.games AS g
  SET status = t.status, version = t.version,
      snapshot = substring($8::bytea FROM t.snapshot_at + 1 FOR t.snapshot_len),
      acting_seats = t.acting_seats, deadline = sessions.from_us(t.deadline_us),
      ranks = t.ranks, scores = t.scores, end_reason = t.end_reason,
      updated_at = sessions.from_us(t.at_us),
      finished_at = CASE WHEN t.status = 'finished' THEN sessions.from_us(t.at_us) END,
      -- The stored wake time stays while it is ahead of $16 and no later than the new one
      -- (migration 0019: the row's indexed columns then stay as they were, a HOT update); the
      -- sweeper looks early, finds nothing due and stores the exact time ($16 NULL: exact).
      wake_at = CASE WHEN g.wake_at > sessions.from_us(NULLIF($16::text, '')::bigint)
                          AND g.wake_at <= sessions.from_us(t.wake_us)
                     THEN g.wake_at ELSE sessions.from_us(t.wake_us) END,
      wake_version = t.version
  FROM (SELECT t.*, h.stamp, h.stamp_version
        FROM unnest($1::sessions.game_write_v2[]) AS t
        LEFT JOIN unnest($12::uuid[], $13::bigint[], $14::bigint[])
                    AS h(game_id, stamp, stamp_version) ON h.game_id = t.game_id) AS t
  -- A plain condition on the row (not a subquery): after a wait for the row's lock, PostgreSQL
  -- checks it again on the newest version of the row.
  WHERE g.game_id = t.game_id
    AND (t.stamp IS NULL OR (g.xmin::text::bigint = t.stamp AND g.version = t.stamp_version))
  RETURNING 1),
s AS (
  UPDATE sessions.seats AS s
  SET forfeited = t.forfeited, status = t.status, my_turn = t.my_turn,
      turn_started_at = sessions.from_us(t.turn_started_us),
      deadline = sessions.from_us(t.deadline_us), reminders_sent = t.reminders_sent,
      time_bank_ms = t.time_bank_ms, vacation_used_ms = t.vacation_used_ms,
      vacation_until = sessions.from_us(t.vacation_until_us),
      paused_until = sessions.from_us(t.paused_until_us), timeouts_in_a_row = t.timeouts_in_a_row,
      updated_at = sessions.from_us(t.at_us)
  FROM unnest($2::sessions.seat_write[]) AS t
  WHERE s.game_id = t.game_id AND s.seat = t.seat AND (SELECT count(*) FROM g) = $9::bigint
  RETURNING 1),
a AS (
  INSERT INTO sessions.actions (game_id, version, kind, cause, seat, action, account_id, entry,
                                created_at)
  SELECT t.game_id, t.version, t.kind, t.cause, t.seat, t.action, t.account_id,
         substring($8::bytea FROM t.entry_at + 1 FOR t.entry_len), sessions.from_us(t.at_us)
  FROM unnest($3::sessions.action_write[]) AS t
  WHERE (SELECT count(*) FROM g) = $9::bigint
  RETURNING 1),
i AS (
  INSERT INTO sessions.idempotency_keys (game_id, account_id, key, request_hash, version,
                                         response, created_at)
  SELECT t.game_id, t.account_id, t.key, substring($8::bytea FROM t.hash_at + 1 FOR t.hash_len),
         t.version, substring($8::bytea FROM t.response_at + 1 FOR t.response_len),
         sessions.from_us(t.at_us)
  FROM unnest($4::sessions.key_write[]) AS t
  WHERE (SELECT count(*) FROM g) = $9::bigint
  ON CONFLICT DO NOTHING
  RETURNING 1),
n AS (
  INSERT INTO sessions.notification_outbox (game_id, account_id, kind, version, dedupe_key,
                                            payload, created_at, next_attempt_at)
  SELECT t.game_id, t.account_id, t.kind, t.version, t.dedupe_key, t.payload,
         sessions.from_us(t.at_us), sessions.from_us(t.at_us)
  FROM unnest($5::sessions.notification_write[]) AS t
  WHERE (SELECT count(*) FROM g) = $9::bigint
  ON CONFLICT (game_id, dedupe_key) DO NOTHING
  RETURNING 1),
r AS (
  INSERT INTO sessions.result_outbox (game_id, game, ranked, payload, created_at,
                                      next_attempt_at)
  SELECT t.game_id, t.game, t.ranked, t.payload, sessions.from_us(t.at_us),
         sessions.from_us(t.at_us)
  FROM unnest($6::sessions.result_write[]) AS t
  WHERE (SELECT count(*) FROM g) = $9::bigint
  RETURNING 1)
-- The NOTIFYs sent and the transaction's id (every row written carries it as its xmin); the
-- statement fails unless it wrote every game, seat, log entry and key it was given, so that a
-- COMMIT sent with it (pipelined) cannot keep a partial write (migration 0018: a batch decided
-- on held rows gets serialization_failure when a game or key changed since).
SELECT (SELECT count(n) FROM (SELECT pg_notify('parlor_sessions', p)::text AS n
                              FROM unnest($7::text[]) AS p WHERE p <> '') AS x),
       sessions.expect_batch_written((SELECT count(*) FROM g), $9::bigint,
                                     (SELECT count(*) FROM s), $10::bigint,
                                     (SELECT count(*) FROM a), $11::bigint,
                                     (SELECT count(*) FROM i), $15::bigint,
                                     cardinality($12::uuid[]) > 0),
       txid_current()
)sql";

// The OIDs of kWriteMutations' composite types (NULL for one that does not exist).
inline constexpr char kWriteTypes[] =
    "SELECT to_regtype('sessions.game_write_v2')::oid, to_regtype('sessions.seat_write')::oid, "
    "to_regtype('sessions.action_write')::oid, to_regtype('sessions.key_write')::oid, "
    "to_regtype('sessions.notification_write')::oid, to_regtype('sessions.result_write')::oid";

inline constexpr char kInsertAction[] =
    "INSERT INTO sessions.actions (game_id, version, kind, cause, seat, action, account_id, entry, "
    "created_at) VALUES ($1::uuid, $2, $3, $4, $5, $6, NULLIF($7, '')::uuid, $8, "
    "sessions.from_us($9))";

inline constexpr char kSelectActions[] =
    "SELECT version, kind, cause, seat, action, coalesce(account_id::text, ''), entry, "
    "sessions.to_us(created_at) FROM sessions.actions "
    "WHERE game_id = $1::uuid AND version >= $2 ORDER BY version LIMIT $3";

inline constexpr char kInsertNotification[] =
    "INSERT INTO sessions.notification_outbox (game_id, account_id, kind, version, dedupe_key, "
    "payload, created_at, next_attempt_at) VALUES ($1::uuid, $2::uuid, $3, $4, $5, $6::jsonb, "
    "sessions.from_us($7), sessions.from_us($7)) "
    "ON CONFLICT (game_id, dedupe_key) DO NOTHING";

inline constexpr char kInsertResult[] =
    "INSERT INTO sessions.result_outbox (game_id, game, ranked, payload, created_at, "
    "next_attempt_at) VALUES ($1::uuid, $2, $3, $4::jsonb, "
    "sessions.from_us($5), sessions.from_us($5))";

// Announces a committed change to every replica's listener (delivered at commit).
inline constexpr char kNotifyChannel[] = "parlor_sessions";
inline constexpr char kNotify[] = "SELECT pg_notify('parlor_sessions', $1)";

// ListMyGames: keyset pages of the player's games, newest activity first: (updated_at DESC,
// game_id DESC) of the game, which for a finished game is its finished_at (a finished game never
// changes again). $2 = filter: 0 all, 1 my turn, 2 waiting, 3 finished. $3/$4 = cursor (0/'' for
// the first page). $5 = limit. Two indexes whose columns a move never changes, so that a move's
// seat updates stay HOT (migration 0013): the games in progress, few per player, are all read
// and sorted; the finished ones, however many, are read in order from their index.
inline constexpr char kListMyGames[] =
    "SELECT " PARLOR_SESSIONS_GAME_COLUMNS
    " FROM ("
    "(SELECT g.game_id, g.updated_at AS at FROM sessions.seats s "
    "JOIN sessions.games g ON g.game_id = s.game_id "
    "WHERE s.account_id = $1::uuid AND s.status = 'active' AND $2::int IN (0, 1, 2) "
    "AND ($2::int = 0 OR ($2::int = 1) = s.my_turn) "
    "AND ($3::bigint = 0 OR (g.updated_at, g.game_id) < (sessions.from_us($3), $4::uuid)) "
    "ORDER BY g.updated_at DESC, g.game_id DESC LIMIT $5) "
    "UNION ALL "
    "(SELECT s.game_id, s.finished_at FROM sessions.seats s "
    "WHERE s.account_id = $1::uuid AND s.status = 'finished' AND $2::int IN (0, 3) "
    "AND ($3::bigint = 0 OR (s.finished_at, s.game_id) < (sessions.from_us($3), $4::uuid)) "
    "ORDER BY s.finished_at DESC, s.game_id DESC LIMIT $5)"
    ") AS p JOIN sessions.games g ON g.game_id = p.game_id "
    "ORDER BY p.at DESC, p.game_id DESC LIMIT $5";

// Games whose earliest deadline or next reminder is due ($1), earliest first (wake_at, migration
// 0014: only the due entries of the index are read), skipping games another replica's sweeper
// holds.
inline constexpr char kSelectDueGames[] =
    "SELECT g.game_id::text FROM sessions.games g "
    "WHERE g.status = 'active' AND g.wake_at <= sessions.from_us($1) "
    "ORDER BY g.wake_at LIMIT $2 FOR UPDATE OF g SKIP LOCKED";

// The vacations of the accounts $1 (uuid[]), one row per account that has one. PostgreSQL plans
// it on every call (for `= ANY` of an array parameter the custom plan always looks cheaper), so
// it spells out sessions.to_us instead of calling it: inlining a SQL function parses its body each
// time (planning 52 -> 23 us on a quiet machine, 220 us under load).
inline constexpr char kSelectVacations[] =
    "SELECT account_id::text, (extract(epoch FROM started_at) * 1000000)::bigint, "
    "(extract(epoch FROM ends_at) * 1000000)::bigint "
    "FROM sessions.vacations WHERE account_id = ANY($1::uuid[])";

// Starts a vacation unless one is running; returns no row when one is.
inline constexpr char kStartVacation[] =
    "INSERT INTO sessions.vacations (account_id, started_at, ends_at) "
    "VALUES ($1::uuid, sessions.from_us($2), "
    "sessions.from_us($3)) "
    "ON CONFLICT (account_id) DO UPDATE SET started_at = EXCLUDED.started_at, "
    "ends_at = EXCLUDED.ends_at WHERE sessions.vacations.ends_at <= EXCLUDED.started_at "
    "RETURNING account_id";

// Players' records ($1 account ids).
inline constexpr char kSelectPlayerRecords[] =
    "SELECT account_id::text, finished, resigned, timed_out FROM sessions.player_records "
    "WHERE account_id = ANY($1::uuid[])";

// The account's active games, for a vacation's change ($1 account).
inline constexpr char kSelectActiveGamesOf[] =
    "SELECT game_id::text FROM sessions.seats WHERE account_id = $1::uuid AND status = 'active' "
    "ORDER BY game_id";

// The total length in microseconds of the account's vacations ($1) started after $2.
inline constexpr char kVacationTakenSince[] =
    "SELECT coalesce(sum(sessions.to_us(ended_at) - sessions.to_us(started_at)), 0)::bigint "
    "FROM sessions.vacation_history WHERE account_id = $1::uuid "
    "AND started_at > sessions.from_us($2)";

inline constexpr char kInsertVacationHistory[] =
    "INSERT INTO sessions.vacation_history (account_id, started_at, ended_at) "
    "VALUES ($1::uuid, sessions.from_us($2), sessions.from_us($3)) "
    "ON CONFLICT (account_id, started_at) DO UPDATE SET ended_at = EXCLUDED.ended_at";

// The running vacation of $1 ended early at $2.
inline constexpr char kEndVacationHistory[] =
    "UPDATE sessions.vacation_history SET ended_at = sessions.from_us($2) "
    "WHERE account_id = $1::uuid AND started_at <= sessions.from_us($2) "
    "AND ended_at > sessions.from_us($2)";

// Ends a running vacation now; returns no row when none is running.
inline constexpr char kEndVacation[] =
    "DELETE FROM sessions.vacations WHERE account_id = $1::uuid "
    "AND ends_at > sessions.from_us($2) RETURNING account_id";

// The result outbox is drained at least once by every replica's dispatcher: a claim pushes the
// row's next attempt out by a lease (so no other replica takes it meanwhile) and counts the
// attempt. $1 = now, $2 = lease end, $3 = limit. (The notification outbox is delivered inside the
// transaction that deletes its rows: outbox_sql.h.)
inline constexpr char kClaimResults[] =
    "UPDATE sessions.result_outbox o SET "
    "next_attempt_at = sessions.from_us($2), attempts = attempts + 1 "
    "WHERE o.game_id IN (SELECT game_id FROM sessions.result_outbox WHERE acked_at IS NULL "
    "AND next_attempt_at <= sessions.from_us($1) "
    "ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED) "
    "RETURNING o.game_id::text, o.attempts";

inline constexpr char kResultAcked[] =
    "UPDATE sessions.result_outbox SET acked_at = sessions.from_us($2), "
    "last_error = NULLIF($3, '') WHERE game_id = $1::uuid";

inline constexpr char kResultFailed[] =
    "UPDATE sessions.result_outbox SET next_attempt_at = "
    "sessions.from_us($2), last_error = $3 WHERE game_id = $1::uuid";

inline constexpr char kCountPendingOutbox[] =
    "SELECT (SELECT count(*) FROM sessions.notification_outbox WHERE sent_at IS NULL), "
    "(SELECT count(*) FROM sessions.result_outbox WHERE acked_at IS NULL)";

// The games in progress per game (the metrics' gauge), read through games_wake_idx (partial, on
// games in progress): as many rows as games in progress, whatever the number of finished ones.
inline constexpr char kCountGamesInProgress[] =
    "SELECT game, count(*) FROM sessions.games WHERE status = 'active' GROUP BY game";

// ListPublicGames: keyset pagination on (updated_at DESC, game_id DESC) over public games of one
// status ($2 'active' or 'finished'), optionally of one game ($1, '' = any). $3/$4 = cursor
// (0/'' for the first page). $5 = limit. A public game's listed_at is its updated_at (a trigger
// keeps it, migration 0019), in an index that a private game's moves leave alone.
inline constexpr char kListPublicGames[] =
    "SELECT " PARLOR_SESSIONS_GAME_COLUMNS
    " FROM sessions.games g WHERE g.visibility = 'public' AND g.status = $2 "
    "AND ($1 = '' OR g.game = $1) "
    "AND ($3::bigint = 0 OR (g.listed_at, g.game_id) < "
    "(sessions.from_us($3), $4::uuid)) "
    "ORDER BY g.listed_at DESC, g.game_id DESC LIMIT $5";

// Deletes up to $2 idempotency keys created before $1 (the retention cutoff); rows another
// transaction holds are left for the next batch. Returns one row per key deleted.
inline constexpr char kDeleteOldIdempotencyKeys[] =
    "DELETE FROM sessions.idempotency_keys WHERE ctid = ANY(ARRAY("
    "SELECT ctid FROM sessions.idempotency_keys "
    "WHERE created_at < sessions.from_us($1) "
    "LIMIT $2 FOR UPDATE SKIP LOCKED)) RETURNING 1";

#undef PARLOR_SESSIONS_GAME_COLUMNS
#undef PARLOR_SESSIONS_SEAT_COLUMNS

}  // namespace parlor::sessions::sql

#endif  // PARLOR_SERVICES_SESSIONS_STORE_SQL_H_
