#ifndef PARLOR_SERVICES_SESSIONS_STORE_ERASURE_SQL_H_
#define PARLOR_SERVICES_SESSIONS_STORE_ERASURE_SQL_H_

// The statements that erase a deleted account (store/account_erasure.cc).
namespace parlor::sessions::sql {

inline constexpr char kForgottenThrough[] =
    "SELECT coalesce(max(sequence), 0) FROM sessions.forgotten_accounts";

// The games the account still plays in (its seat not forfeited).
inline constexpr char kActiveGamesOf[] =
    "SELECT game_id::text FROM sessions.seats WHERE account_id = $1::uuid AND status = 'active' "
    "AND NOT forfeited ORDER BY game_id";

// $1 account, $2 its deletion's sequence.
inline constexpr char kRecordForgotten[] =
    "INSERT INTO sessions.forgotten_accounts (account_id, sequence, forget_time) "
    "VALUES ($1::uuid, $2, now()) ON CONFLICT (account_id) DO NOTHING";

// The games rows of the seats kRenameSeats will rename ($1 account, $2 the name it carries now),
// locked in game id order before any seat, as every batch of moves locks them
// (kLockGamesWithSeats): the erasure and a batch then never wait for each other in a cycle.
inline constexpr char kLockGamesToRename[] =
    "SELECT g.game_id FROM sessions.games g WHERE g.game_id IN (SELECT s.game_id FROM "
    "sessions.seats s WHERE s.account_id = $1::uuid AND s.display_name <> $2) "
    "ORDER BY g.game_id FOR UPDATE";

// $1 account, $2 the name it carries now. The renamed seats' games rows are written again as
// they are: a server holding a game row it wrote itself trusts it while the stored games row
// still carries that write's transaction id (GameRowCache), and a seat is part of that row.
inline constexpr char kRenameSeats[] =
    "WITH renamed AS (UPDATE sessions.seats SET display_name = $2 WHERE account_id = $1::uuid "
    "AND display_name <> $2 RETURNING game_id) "
    "UPDATE sessions.games SET updated_at = updated_at "
    "WHERE game_id IN (SELECT game_id FROM renamed)";

inline constexpr char kForgetVacation[] =
    "DELETE FROM sessions.vacations WHERE account_id = $1::uuid";
inline constexpr char kForgetIdempotencyKeys[] =
    "DELETE FROM sessions.idempotency_keys WHERE account_id = $1::uuid";
inline constexpr char kForgetPushes[] =
    "DELETE FROM sessions.notification_outbox WHERE account_id = $1::uuid";
inline constexpr char kForgetRecord[] =
    "DELETE FROM sessions.player_records WHERE account_id = $1::uuid";
inline constexpr char kForgetSeenVersions[] =
    "DELETE FROM sessions.seen_versions WHERE account_id = $1::uuid";
inline constexpr char kForgetNudges[] = "DELETE FROM sessions.nudges WHERE account_id = $1::uuid";
// What they wrote in chats goes (with reports of it); their reports of others' messages too.
inline constexpr char kForgetChatReports[] =
    "DELETE FROM sessions.chat_reports WHERE reporter_account_id = $1::uuid OR message_id IN "
    "(SELECT message_id FROM sessions.chat_messages WHERE account_id = $1::uuid)";
inline constexpr char kForgetChatMessages[] =
    "DELETE FROM sessions.chat_messages WHERE account_id = $1::uuid";
// Rematch offers they made or took part in are withdrawn (the other players can offer again).
inline constexpr char kForgetRematchOffers[] =
    "DELETE FROM sessions.rematch_offers WHERE (offered_by = $1::uuid OR $1::uuid = "
    "ANY(accepted_by) OR declined_by = $1::uuid) AND new_game_id IS NULL";

// Other players' pushes that name the deleted player ($1 the former name) name it by its
// replacement ($2).
inline constexpr char kRenameInPushes[] =
    "UPDATE sessions.notification_outbox SET payload = jsonb_set(payload, '{opponents}', "
    "(SELECT coalesce(jsonb_agg(CASE WHEN o = to_jsonb($1::text) THEN to_jsonb($2::text) "
    "ELSE o END), '[]'::jsonb) FROM jsonb_array_elements(payload->'opponents') AS o)) "
    "WHERE payload->'opponents' @> jsonb_build_array($1::text)";
// ... and as the player who made the last move.
inline constexpr char kRenameLastMoverInPushes[] =
    "UPDATE sessions.notification_outbox SET payload = jsonb_set(payload, '{last_mover}', "
    "to_jsonb($2::text)) WHERE payload->>'last_mover' = $1";

}  // namespace parlor::sessions::sql

#endif  // PARLOR_SERVICES_SESSIONS_STORE_ERASURE_SQL_H_
