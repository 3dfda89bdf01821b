#ifndef PARLOR_SERVICES_SESSIONS_STORE_TABLE_SQL_H_
#define PARLOR_SERVICES_SESSIONS_STORE_TABLE_SQL_H_

// The statements of PgTableStore (table_store.cc): chat, reports, rematch offers, nudges and seen
// versions (migration sessions/0008). Times are microseconds since the epoch
// (sessions.from_us / sessions.to_us).
namespace parlor::sessions::table_sql {

// Serializes the transactions that share the key $1 (a chat sender in a game, a rematch offer).
inline constexpr char kAdvisoryLock[] = "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))";

// $1 game, $2 sender, $3 window start: the sender's messages in the window, oldest first.
inline constexpr char kRecentChat[] =
    "SELECT sessions.to_us(created_at) FROM sessions.chat_messages "
    "WHERE game_id = $1::uuid AND account_id = $2::uuid AND created_at > sessions.from_us($3) "
    "ORDER BY created_at";

inline constexpr char kInsertChat[] =
    "INSERT INTO sessions.chat_messages (game_id, seat, account_id, text, game_version, "
    "created_at) VALUES ($1::uuid, $2, $3::uuid, $4, $5, sessions.from_us($6)) "
    "RETURNING message_id";

// $1 game, $2 after id, $3 before id (0: none), $4 limit.
inline constexpr char kListChatOldestFirst[] =
    "SELECT message_id, game_id::text, seat, account_id::text, text, game_version, "
    "sessions.to_us(created_at) FROM sessions.chat_messages "
    "WHERE game_id = $1::uuid AND message_id > $2 AND ($3 = 0 OR message_id < $3) "
    "ORDER BY message_id LIMIT $4";
inline constexpr char kListChatNewestFirst[] =
    "SELECT message_id, game_id::text, seat, account_id::text, text, game_version, "
    "sessions.to_us(created_at) FROM sessions.chat_messages "
    "WHERE game_id = $1::uuid AND message_id > $2 AND ($3 = 0 OR message_id < $3) "
    "ORDER BY message_id DESC LIMIT $4";

inline constexpr char kGetChat[] =
    "SELECT message_id, game_id::text, seat, account_id::text, text, game_version, "
    "sessions.to_us(created_at) FROM sessions.chat_messages "
    "WHERE game_id = $1::uuid AND message_id = $2";

inline constexpr char kLatestChatId[] =
    "SELECT COALESCE(max(message_id), 0) FROM sessions.chat_messages";

inline constexpr char kInsertReport[] =
    "INSERT INTO sessions.chat_reports (message_id, reporter_account_id, reason, created_at) "
    "VALUES ($1, $2::uuid, $3, sessions.from_us($4)) "
    "ON CONFLICT (message_id, reporter_account_id) DO NOTHING";

// The offer, locked (FOR UPDATE) when there is one.
inline constexpr char kLockRematch[] =
    "SELECT game_id::text, offered_by::text, array_to_string(accepted_by, ','), "
    "COALESCE(declined_by::text, ''), sessions.to_us(offered_at), sessions.to_us(expires_at), "
    "COALESCE(new_game_id::text, '') FROM sessions.rematch_offers WHERE game_id = $1::uuid "
    "FOR UPDATE";
inline constexpr char kGetRematch[] =
    "SELECT game_id::text, offered_by::text, array_to_string(accepted_by, ','), "
    "COALESCE(declined_by::text, ''), sessions.to_us(offered_at), sessions.to_us(expires_at), "
    "COALESCE(new_game_id::text, '') FROM sessions.rematch_offers WHERE game_id = $1::uuid";

// $1 game, $2 offered_by, $3 accepted_by (uuid[] text), $4 declined_by ('' = none),
// $5 offered_at, $6 expires_at, $7 new game ('' = none).
inline constexpr char kUpsertRematch[] =
    "INSERT INTO sessions.rematch_offers (game_id, offered_by, accepted_by, declined_by, "
    "offered_at, expires_at, new_game_id) VALUES ($1::uuid, $2::uuid, $3::uuid[], "
    "NULLIF($4, '')::uuid, sessions.from_us($5), sessions.from_us($6), NULLIF($7, '')::uuid) "
    "ON CONFLICT (game_id) DO UPDATE SET offered_by = EXCLUDED.offered_by, "
    "accepted_by = EXCLUDED.accepted_by, declined_by = EXCLUDED.declined_by, "
    "offered_at = EXCLUDED.offered_at, expires_at = EXCLUDED.expires_at, "
    "new_game_id = EXCLUDED.new_game_id";

// $1 game, $2 account, $3 version, $4 now, $5 now - period. No row back: a nudge within the
// period (kLastNudge says when).
inline constexpr char kNudge[] =
    "INSERT INTO sessions.nudges (game_id, account_id, version, sent_at) "
    "VALUES ($1::uuid, $2::uuid, $3, sessions.from_us($4)) "
    "ON CONFLICT (game_id) DO UPDATE SET account_id = EXCLUDED.account_id, "
    "version = EXCLUDED.version, sent_at = EXCLUDED.sent_at "
    "WHERE sessions.nudges.sent_at <= sessions.from_us($5) RETURNING game_id";
inline constexpr char kLastNudge[] =
    "SELECT sessions.to_us(sent_at) FROM sessions.nudges WHERE game_id = $1::uuid";

inline constexpr char kMarkSeen[] =
    "INSERT INTO sessions.seen_versions (game_id, account_id, version, updated_at) "
    "VALUES ($1::uuid, $2::uuid, $3, sessions.from_us($4)) "
    "ON CONFLICT (account_id, game_id) DO UPDATE SET version = EXCLUDED.version, "
    "updated_at = EXCLUDED.updated_at WHERE sessions.seen_versions.version < EXCLUDED.version";

// $1 account, $2 games (uuid[] text).
inline constexpr char kSeenVersions[] =
    "SELECT game_id::text, version FROM sessions.seen_versions "
    "WHERE account_id = $1::uuid AND game_id = ANY ($2::uuid[])";

// ListMyGames ordered my turn first: by a key, then by game id, the greater first. The key is
// the rank (0 the caller must act, 1 waiting for others, 2 finished) times 4e15, plus the game's
// deadline in microseconds (active games; soonest first) or the time before the year 2096 since
// it ended (finished games; most recent first). $1 account, $2 filter (as kListMyGames), $3
// whether a cursor is given, $4/$5 the cursor (key, game id), $6 limit. Like kListMyGames, two
// branches over the seats' two partial indexes (migration 0013): the games in progress, few per
// player, are all read and ranked; the finished ones, however many, are read in their index's
// order (end time, then game id, both descending: the key's order) from the cursor on, a page
// at most. In that branch the cursor's key is the end time 11999999999999999 - key.
inline constexpr char kListMyGamesByTurn[] =
    "SELECT k.key, k.game_id::text FROM ("
    "(SELECT s.game_id, (CASE WHEN s.my_turn "
    "THEN coalesce(sessions.to_us(g.deadline), 3999999999999999) "
    "ELSE 4000000000000000 + coalesce(sessions.to_us(g.deadline), 3999999999999999) END) AS key "
    "FROM sessions.seats s JOIN sessions.games g ON g.game_id = s.game_id "
    "WHERE s.account_id = $1::uuid AND s.status = 'active' AND $2::int IN (0, 1, 2) "
    "AND ($2::int = 0 OR ($2::int = 1) = s.my_turn) "
    "AND (NOT $3::boolean OR $4::bigint < 8000000000000000)) "
    "UNION ALL "
    "(SELECT s.game_id, 11999999999999999 - sessions.to_us(s.finished_at) "
    "FROM sessions.seats s "
    "WHERE s.account_id = $1::uuid AND s.status = 'finished' AND $2::int IN (0, 3) "
    "AND (NOT $3::boolean OR $4::bigint < 8000000000000000 OR (s.finished_at, s.game_id) < "
    "(sessions.from_us(11999999999999999 - $4::bigint), $5::uuid)) "
    "ORDER BY s.finished_at DESC, s.game_id DESC LIMIT $6)) k "
    "WHERE NOT $3::boolean OR k.key > $4::bigint OR (k.key = $4::bigint AND k.game_id < $5::uuid) "
    "ORDER BY k.key, k.game_id DESC LIMIT $6";

}  // namespace parlor::sessions::table_sql

#endif  // PARLOR_SERVICES_SESSIONS_STORE_TABLE_SQL_H_
