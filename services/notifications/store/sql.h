#ifndef PARLOR_SERVICES_NOTIFICATIONS_STORE_SQL_H_
#define PARLOR_SERVICES_NOTIFICATIONS_STORE_SQL_H_

// Every SQL statement of the notifications service, in one place. Parameters are always bound
// ($1, $2, ...), never spliced into the text. Times travel as Unix microseconds (BIGINT); lists
// as array literals (services/common/db/pg_array.h).
namespace parlor::notifications::sql {

#define PARLOR_TS(n) "to_timestamp($" #n "::bigint / 1000000.0)"
#define PARLOR_MICROS(col) "(extract(epoch FROM " col ") * 1000000)::bigint"

#define PARLOR_DEVICE_COLUMNS                                                       \
  "device_id::text, account_id::text, platform, token, locale, time_zone, app_id, " \
  "sandbox, " PARLOR_MICROS("create_time") ", " PARLOR_MICROS("update_time")

// The account holding (platform, token) now, locked so that two registrations queue up.
inline constexpr char kLockToken[] =
    "SELECT device_id::text, account_id::text FROM notifications.devices "
    "WHERE platform = $1 AND token = $2 FOR UPDATE";

inline constexpr char kUpsertDevice[] =
    "INSERT INTO notifications.devices (account_id, platform, token, locale, time_zone, app_id, "
    "sandbox, create_time, update_time) "
    "VALUES ($1::uuid, $2, $3, $4, $5, $6, $7, " PARLOR_TS(8) ", " PARLOR_TS(8) ") "
    "ON CONFLICT (platform, token) DO UPDATE SET account_id = EXCLUDED.account_id, "
    "locale = EXCLUDED.locale, time_zone = EXCLUDED.time_zone, app_id = EXCLUDED.app_id, "
    "sandbox = EXCLUDED.sandbox, "
    "update_time = greatest(notifications.devices.create_time, EXCLUDED.update_time) "
    "RETURNING " PARLOR_DEVICE_COLUMNS;

// A moved token's undelivered pushes were for its previous account.
inline constexpr char kDropDevicePushes[] =
    "DELETE FROM notifications.deliveries WHERE device_id = $1::uuid";

inline constexpr char kUnregisterById[] =
    "DELETE FROM notifications.devices WHERE account_id = $1::uuid AND device_id = $2::uuid "
    "RETURNING device_id";
inline constexpr char kUnregisterByToken[] =
    "DELETE FROM notifications.devices WHERE account_id = $1::uuid AND token = $2 "
    "RETURNING device_id";

inline constexpr char kListDevices[] = "SELECT " PARLOR_DEVICE_COLUMNS
                                       " FROM notifications.devices WHERE account_id = $1::uuid "
                                       "ORDER BY create_time DESC, device_id";

inline constexpr char kGetPreferences[] =
    "SELECT muted_game_ids, disabled_kinds, quiet_start, quiet_end, time_zone "
    "FROM notifications.preferences WHERE account_id = $1::uuid";

inline constexpr char kPutPreferences[] =
    "INSERT INTO notifications.preferences (account_id, muted_game_ids, disabled_kinds, "
    "quiet_start, quiet_end, time_zone, update_time) "
    "VALUES ($1::uuid, $2::text[], $3::smallint[], NULLIF($4::smallint, -1), "
    "NULLIF($5::smallint, -1), $6, " PARLOR_TS(7)
    ") ON CONFLICT (account_id) DO UPDATE SET muted_game_ids = EXCLUDED.muted_game_ids, "
    "disabled_kinds = EXCLUDED.disabled_kinds, quiet_start = EXCLUDED.quiet_start, "
    "quiet_end = EXCLUDED.quiet_end, time_zone = EXCLUDED.time_zone, "
    "update_time = EXCLUDED.update_time";

// No row back: the dedupe key was seen before.
inline constexpr char kInsertEvent[] =
    "INSERT INTO notifications.events (dedupe_key, account_id, kind, game_id, game, version, "
    "title_loc_key, loc_key, loc_args, deep_link, commit_time, expire_time, create_time, "
    "in_inbox, last_move_player, last_move) "
    "VALUES ($1, $2::uuid, $3, $4, $5, $6, $7, $8, $9::text[], $10, " PARLOR_TS(11)
    ", CASE WHEN $12::bigint < 0 THEN NULL ELSE " PARLOR_TS(12) " END, " PARLOR_TS(13)
    ", $14, $15, $16) ON CONFLICT (dedupe_key) DO NOTHING RETURNING notification_id";

// Whether $1 is a deleted account this service forgot (its events are not stored).
inline constexpr char kIsForgotten[] =
    "SELECT EXISTS (SELECT 1 FROM notifications.forgotten_accounts WHERE account_id = $1::uuid)";

// Pending "your turn" (1) and reminder (2) pushes of the game made stale by an event at version
// $3: older versions, and the same version too when $4 (the turn is over at $3).
inline constexpr char kDropStalePushes[] =
    "DELETE FROM notifications.deliveries WHERE account_id = $1::uuid AND game_id = $2 "
    "AND kind IN (1, 2) AND (version < $3::bigint OR (version = $3::bigint AND $4::boolean))";

// A turns row's update by a newer event: the game is over when that event says so, and stays over
// when another event of the same version follows its game-over event (they share the move).
#define PARLOR_TURN_UPDATE                                                                    \
  " ON CONFLICT (account_id, game_id) DO UPDATE SET version = EXCLUDED.version, "             \
  "my_turn = EXCLUDED.my_turn, expire_time = EXCLUDED.expire_time, "                          \
  "over_time = CASE WHEN notifications.turns.version = EXCLUDED.version "                     \
  "THEN coalesce(EXCLUDED.over_time, notifications.turns.over_time) ELSE EXCLUDED.over_time " \
  "END WHERE notifications.turns.version <= EXCLUDED.version"

// The turn state of (account, game) as of version $3, unless a newer event already set it; $6 is
// the commit time of a game-over event (-1: the game goes on).
inline constexpr char kSetTurn[] =
    "INSERT INTO notifications.turns (account_id, game_id, version, my_turn, expire_time, "
    "over_time) VALUES ($1::uuid, $2, $3, $4, CASE WHEN $5::bigint < 0 THEN NULL ELSE " PARLOR_TS(
        5) " END, CASE WHEN $6::bigint < 0 THEN NULL ELSE " PARLOR_TS(6) " END)" PARLOR_TURN_UPDATE;

// The badge: games where it is the player's turn (and that turn has not run out).
inline constexpr char kCountMyTurns[] =
    "SELECT count(*) FROM notifications.turns WHERE account_id = $1::uuid AND my_turn "
    "AND (expire_time IS NULL OR expire_time > " PARLOR_TS(2) ")";

// One queued push per device of the account.
inline constexpr char kFanOut[] =
    "INSERT INTO notifications.deliveries (notification_id, device_id, account_id, game_id, "
    "kind, version, badge, commit_time, expire_time, due_time) "
    "SELECT $1::bigint, device_id, account_id, $3::text, $4::smallint, $5::bigint, "
    "$6::integer, " PARLOR_TS(7) ", CASE WHEN $8::bigint < 0 THEN NULL ELSE " PARLOR_TS(
        8) " END, " PARLOR_TS(9) " FROM notifications.devices WHERE account_id = $2::uuid";

// --- AcceptEvents, set-based: a batch in five statements whatever its size. Each takes one
// array per column (unnest), so a batch costs the same round trips as one event.

// The preferences of every account of the batch ($1 uuid[]); account last.
inline constexpr char kGetPreferencesMany[] =
    "SELECT muted_game_ids, disabled_kinds, quiet_start, quiet_end, time_zone, account_id::text "
    "FROM notifications.preferences WHERE account_id = ANY($1::uuid[])";

// The batch's events in order (identity ids follow it); those whose dedupe key was seen before
// are skipped. loc_args travel as one array literal per event. $14 = now.
inline constexpr char kInsertEvents[] =
    "INSERT INTO notifications.events (dedupe_key, account_id, kind, game_id, game, version, "
    "title_loc_key, loc_key, loc_args, deep_link, commit_time, expire_time, create_time, "
    "in_inbox, last_move_player, last_move) "
    "SELECT t.dedupe_key, t.account_id, t.kind, t.game_id, t.game, t.version, t.title_loc_key, "
    "t.loc_key, t.loc_args::text[], t.deep_link, to_timestamp(t.commit_us / 1000000.0), "
    "CASE WHEN t.expire_us < 0 THEN NULL ELSE to_timestamp(t.expire_us / 1000000.0) END, "
    PARLOR_TS(14) ", t.in_inbox, t.last_move_player, t.last_move "
    "FROM unnest($1::text[], $2::uuid[], $3::smallint[], $4::text[], $5::text[], $6::bigint[], "
    "$7::text[], $8::text[], $9::text[], $10::text[], $11::bigint[], $12::bigint[], "
    "$13::boolean[], $15::text[], $16::text[]) WITH ORDINALITY AS t(dedupe_key, account_id, "
    "kind, game_id, game, version, title_loc_key, loc_key, loc_args, deep_link, commit_us, "
    "expire_us, in_inbox, last_move_player, last_move, ord) "
    "WHERE NOT EXISTS (SELECT 1 FROM notifications.forgotten_accounts f "
    "  WHERE f.account_id = t.account_id) "
    "ORDER BY t.ord ON CONFLICT (dedupe_key) DO NOTHING RETURNING notification_id, dedupe_key";

// The turn state of each (account, game) of the batch (one row each: its newest event), unless a
// newer event already set it; over_us as in kSetTurn.
inline constexpr char kSetTurns[] =
    "INSERT INTO notifications.turns (account_id, game_id, version, my_turn, expire_time, "
    "over_time) SELECT t.account_id, t.game_id, t.version, t.my_turn, "
    "CASE WHEN t.expire_us < 0 THEN NULL ELSE to_timestamp(t.expire_us / 1000000.0) END, "
    "CASE WHEN t.over_us < 0 THEN NULL ELSE to_timestamp(t.over_us / 1000000.0) END "
    "FROM unnest($1::uuid[], $2::text[], $3::bigint[], $4::boolean[], $5::bigint[], "
    "$6::bigint[]) AS t(account_id, game_id, version, my_turn, expire_us, over_us) "
    "WHERE NOT EXISTS (SELECT 1 FROM notifications.forgotten_accounts f "
    "  WHERE f.account_id = t.account_id)" PARLOR_TURN_UPDATE;

// One queued push per event and device of its account, with the account's badge as the batch
// left it. $9 = now.
inline constexpr char kFanOutMany[] =
    "INSERT INTO notifications.deliveries (notification_id, device_id, account_id, game_id, "
    "kind, version, badge, commit_time, expire_time, due_time) "
    "SELECT t.id, d.device_id, d.account_id, t.game_id, t.kind, t.version, b.badge, "
    "to_timestamp(t.commit_us / 1000000.0), "
    "CASE WHEN t.expire_us < 0 THEN NULL ELSE to_timestamp(t.expire_us / 1000000.0) END, "
    "to_timestamp(t.due_us / 1000000.0) "
    "FROM unnest($1::bigint[], $2::uuid[], $3::text[], $4::smallint[], $5::bigint[], "
    "$6::bigint[], $7::bigint[], $8::bigint[]) "
    "AS t(id, account_id, game_id, kind, version, commit_us, expire_us, due_us) "
    "JOIN notifications.devices d ON d.account_id = t.account_id "
    "CROSS JOIN LATERAL (SELECT count(*)::integer AS badge FROM notifications.turns u "
    "  WHERE u.account_id = t.account_id AND u.my_turn "
    "  AND (u.expire_time IS NULL OR u.expire_time > " PARLOR_TS(9) ")) b";

// Pending "your turn" (1) and reminder (2) pushes made stale by an event of the batch: of the
// same account and game, older versions, and the same version too when inclusive (the turn is
// over at that version). Runs after the fan-out, so it also drops the batch's own stale pushes.
// Looked up event by event (LATERAL ... OFFSET 0, on the partial index of (account, game): such
// pushes always have a game) and deleted by id: planned against a queue it saw empty, a join
// hashed the whole index instead, ~100 us per event.
inline constexpr char kDropStalePushesMany[] =
    "DELETE FROM notifications.deliveries WHERE delivery_id = ANY(ARRAY("
    "SELECT s.delivery_id FROM unnest($1::uuid[], $2::text[], $3::bigint[], $4::boolean[]) "
    "AS t(account_id, game_id, version, inclusive) "
    "CROSS JOIN LATERAL (SELECT d.delivery_id FROM notifications.deliveries d "
    "  WHERE d.account_id = t.account_id AND d.game_id = t.game_id AND d.game_id <> '' "
    "  AND d.kind IN (1, 2) AND (d.version < t.version OR (d.version = t.version AND "
    "  t.inclusive)) OFFSET 0) s))";

#define PARLOR_NOTIFICATION_COLUMNS \
  "notification_id, kind, title_loc_key, loc_key, loc_args, game_id, game, version, " \
  "deep_link, " PARLOR_MICROS("create_time") ", read_time IS NOT NULL, last_move_player, " \
  "last_move"

inline constexpr char kListInbox[] =
    "SELECT " PARLOR_NOTIFICATION_COLUMNS
    " FROM notifications.events WHERE account_id = $1::uuid AND in_inbox "
    "AND notification_id < $2 ORDER BY notification_id DESC LIMIT $3";

inline constexpr char kListInboxAfter[] =
    "SELECT " PARLOR_NOTIFICATION_COLUMNS
    " FROM notifications.events WHERE account_id = $1::uuid AND in_inbox "
    "AND notification_id > $2 ORDER BY notification_id LIMIT $3";

// Per account of $1: its newest inbox id and unread count (both from the partial indexes).
inline constexpr char kInboxHeads[] =
    "SELECT a::text, coalesce((SELECT max(e.notification_id) FROM notifications.events e "
    "  WHERE e.account_id = a AND e.in_inbox), 0), "
    "(SELECT count(*) FROM notifications.events e WHERE e.account_id = a AND e.in_inbox "
    "  AND e.read_time IS NULL) "
    "FROM unnest($1::uuid[]) AS a";

// Pruning: of the oldest $2 events by id (ids follow creation), those created before $1 are
// deleted, with their queued pushes (ON DELETE CASCADE). It reads only those rows, through the
// primary key, so it costs the same however long the history, and it locks only rows it deletes
// (replicas pruning at once delete each row once; the later one finds it gone).
inline constexpr char kPruneEvents[] =
    "DELETE FROM notifications.events WHERE notification_id IN (SELECT h.notification_id "
    "FROM (SELECT notification_id, create_time FROM notifications.events "
    "ORDER BY notification_id LIMIT $2) h WHERE h.create_time < " PARLOR_TS(1) ")";

// The turn state of the oldest $2 games over before $1 (turns_over_idx): no event of theirs can
// change it any more (migrations notifications/0006 and 0007).
inline constexpr char kPruneTurns[] =
    "DELETE FROM notifications.turns WHERE (account_id, game_id) IN (SELECT account_id, game_id "
    "FROM notifications.turns WHERE over_time < " PARLOR_TS(1) " ORDER BY over_time LIMIT $2)";

inline constexpr char kCountUnread[] =
    "SELECT count(*) FROM notifications.events WHERE account_id = $1::uuid AND in_inbox "
    "AND read_time IS NULL";

inline constexpr char kMarkReadIds[] =
    "UPDATE notifications.events SET read_time = " PARLOR_TS(3)
    " WHERE account_id = $1::uuid AND notification_id = ANY($2::bigint[]) AND in_inbox "
    "AND read_time IS NULL";

inline constexpr char kMarkReadUpTo[] = "UPDATE notifications.events SET read_time = " PARLOR_TS(
    3) " WHERE account_id = $1::uuid AND notification_id <= $2 AND in_inbox AND read_time IS NULL";

// First in every transaction that reads or writes the delivery queue, or fans out to it: such a
// statement is prepared once per pooled connection and its generic plan kept, and a queue is
// mostly empty, so PostgreSQL would plan full scans of it (the claim scanned the table once per
// claimed row) and keep them when the queue grows (thousands of rows at a provider's outage) or
// is full of dead rows between vacuums; likewise the badge count and the foreign-key checks on a
// new service's empty tables. With sequential scans off every statement here uses its index.
inline constexpr char kIndexScansOnly[] = "SET LOCAL enable_seqscan = off";

#define PARLOR_CLAIMED_COLUMNS \
  "d.delivery_id, d.attempts, v.device_id::text, v.account_id::text, v.platform, v.token, "  \
  "v.locale, v.time_zone, v.app_id, v.sandbox, d.kind, d.game_id, d.version, "             \
  "e.title_loc_key, e.loc_key, e.loc_args, e.deep_link, d.badge, " PARLOR_MICROS(           \
      "d.commit_time") ", " PARLOR_MICROS("d.expire_time") ", e.dedupe_key, "               \
                           "e.last_move_player, e.last_move"

// Leases due pushes (SKIP LOCKED: every replica's senders claim different rows) until $2 by
// setting lease_time, which no index covers: PostgreSQL updates the rows in place (HOT).
inline constexpr char kClaimPushes[] =
    "WITH due AS (SELECT delivery_id FROM notifications.deliveries "
    "  WHERE due_time <= " PARLOR_TS(1) " AND (lease_time IS NULL OR lease_time <= " PARLOR_TS(
        1) ") ORDER BY due_time LIMIT $3 FOR UPDATE SKIP LOCKED) "
           "UPDATE notifications.deliveries d SET lease_time = " PARLOR_TS(2)
    ", attempts = d.attempts + 1 "
    "FROM due, notifications.devices v, notifications.events e "
    "WHERE d.delivery_id = due.delivery_id AND v.device_id = d.device_id "
    "AND e.notification_id = d.notification_id RETURNING " PARLOR_CLAIMED_COLUMNS;

// The former claim, kept for the load tool's comparison (--compare=claim): the lease moved
// due_time forward, a change of an indexed column, so every claim added an entry to each index.
inline constexpr char kClaimPushesMovingDueTime[] =
    "WITH due AS (SELECT delivery_id FROM notifications.deliveries "
    "  WHERE due_time <= " PARLOR_TS(1) " ORDER BY due_time LIMIT $3 FOR UPDATE SKIP LOCKED) "
    "UPDATE notifications.deliveries d SET due_time = " PARLOR_TS(2)
    ", attempts = d.attempts + 1 "
    "FROM due, notifications.devices v, notifications.events e "
    "WHERE d.delivery_id = due.delivery_id AND v.device_id = d.device_id "
    "AND e.notification_id = d.notification_id RETURNING " PARLOR_CLAIMED_COLUMNS;

#undef PARLOR_CLAIMED_COLUMNS

inline constexpr char kRemovePushes[] =
    "DELETE FROM notifications.deliveries WHERE delivery_id = ANY($1::bigint[])";

inline constexpr char kReschedulePushes[] =
    "UPDATE notifications.deliveries d SET due_time = to_timestamp(u.due / 1000000.0), "
    "lease_time = NULL, last_error = u.error "
    "FROM unnest($1::bigint[], $2::bigint[], $3::text[]) AS u(id, due, error) "
    "WHERE d.delivery_id = u.id";

inline constexpr char kRemoveDeadDevice[] =
    "DELETE FROM notifications.devices WHERE device_id = $1::uuid AND token = $2 "
    "RETURNING device_id";

// Depth counts every queued push; the oldest age only those due (not a reminder waiting for the
// end of quiet hours, nor a retry backing off, nor one being sent).
inline constexpr char kQueueStats[] = "SELECT count(*), " PARLOR_MICROS(
    "min(commit_time) FILTER (WHERE due_time <= now() AND (lease_time IS NULL OR lease_time "
    "<= now()))") " FROM notifications.deliveries";

#undef PARLOR_TURN_UPDATE
#undef PARLOR_NOTIFICATION_COLUMNS
#undef PARLOR_DEVICE_COLUMNS
#undef PARLOR_MICROS
#undef PARLOR_TS

// --- Deleted accounts (the accounts service's deletion outbox) ----------------------------------

inline constexpr char kForgottenThrough[] =
    "SELECT coalesce(max(sequence), 0) FROM notifications.forgotten_accounts";

// $1 account, $2 its deletion's sequence.
inline constexpr char kRecordForgotten[] =
    "INSERT INTO notifications.forgotten_accounts (account_id, sequence, forget_time) "
    "VALUES ($1::uuid, $2, now()) ON CONFLICT (account_id) DO NOTHING";

inline constexpr char kForgetDeliveries[] =
    "DELETE FROM notifications.deliveries WHERE account_id = $1::uuid";
inline constexpr char kForgetDevices[] =
    "DELETE FROM notifications.devices WHERE account_id = $1::uuid";
inline constexpr char kForgetPreferences[] =
    "DELETE FROM notifications.preferences WHERE account_id = $1::uuid";
inline constexpr char kForgetEvents[] =
    "DELETE FROM notifications.events WHERE account_id = $1::uuid";
inline constexpr char kForgetTurns[] =
    "DELETE FROM notifications.turns WHERE account_id = $1::uuid";

// Other players' notifications that name the deleted player ($1 the former name) name it by its
// replacement ($2) instead.
inline constexpr char kRenameInNotifications[] =
    "UPDATE notifications.events SET loc_args = array_replace(loc_args, $1, $2), "
    "last_move_player = CASE WHEN last_move_player = $1 THEN $2 ELSE last_move_player END "
    "WHERE $1 = ANY(loc_args) OR last_move_player = $1";

}  // namespace parlor::notifications::sql

#endif  // PARLOR_SERVICES_NOTIFICATIONS_STORE_SQL_H_
