#ifndef PARLOR_SERVICES_ACCOUNTS_STORE_SQL_H_
#define PARLOR_SERVICES_ACCOUNTS_STORE_SQL_H_

// Every SQL statement of the accounts service, in one place. Parameters are always bound
// ($1, $2, ...), never spliced into the text. Token hashes travel as hex text (decode($n, 'hex')).
// Times travel as Unix microseconds (BIGINT) so no time-zone or text parsing is involved.
namespace parlor::accounts::sql {

inline constexpr char kFindDeviceAccount[] =
    "SELECT a.account_id::text, a.display_name, "
    "(extract(epoch FROM a.create_time) * 1000000)::bigint, "
    "(extract(epoch FROM a.update_time) * 1000000)::bigint, d.removed_time IS NOT NULL "
    "FROM accounts.devices d JOIN accounts.accounts a USING (account_id) "
    "WHERE d.device_id = $1";

inline constexpr char kTouchDevice[] =
    "UPDATE accounts.devices SET last_seen_time = to_timestamp($2::double precision / 1000000) "
    "WHERE device_id = $1";

// ON CONFLICT DO NOTHING covers the case-insensitive name index: no row back means "taken".
inline constexpr char kInsertAccount[] =
    "INSERT INTO accounts.accounts (display_name, create_time, update_time) "
    "VALUES ($1, to_timestamp($2::double precision / 1000000), "
    "to_timestamp($2::double precision / 1000000)) "
    "ON CONFLICT DO NOTHING "
    "RETURNING account_id::text, display_name, "
    "(extract(epoch FROM create_time) * 1000000)::bigint, "
    "(extract(epoch FROM update_time) * 1000000)::bigint";

// Two first sign-ins of one device race here; the loser finds no row and re-reads.
inline constexpr char kInsertDevice[] =
    "INSERT INTO accounts.devices (device_id, account_id, create_time, last_seen_time) "
    "VALUES ($1, $2::uuid, to_timestamp($3::double precision / 1000000), "
    "to_timestamp($3::double precision / 1000000)) "
    "ON CONFLICT (device_id) DO NOTHING RETURNING device_id";

inline constexpr char kInsertSession[] =
    "INSERT INTO accounts.sessions (account_id, device_id, create_time) "
    "VALUES ($1::uuid, $2, to_timestamp($3::double precision / 1000000)) "
    "RETURNING session_id::text";

inline constexpr char kInsertRefreshToken[] =
    "INSERT INTO accounts.refresh_tokens (token_hash, session_id, issue_time, expire_time) "
    "VALUES (decode($1, 'hex'), $2::uuid, to_timestamp($3::double precision / 1000000), "
    "to_timestamp($4::double precision / 1000000))";

// Locks the token row so two concurrent refreshes with one token cannot both rotate it.
inline constexpr char kLockRefreshToken[] =
    "SELECT t.session_id::text, s.account_id::text, t.use_time IS NOT NULL, "
    "t.expire_time <= to_timestamp($2::double precision / 1000000), s.revoke_time IS NOT NULL, "
    "s.device_id "
    "FROM accounts.refresh_tokens t JOIN accounts.sessions s USING (session_id) "
    "WHERE t.token_hash = decode($1, 'hex') FOR UPDATE OF t, s";

inline constexpr char kMarkRefreshTokenUsed[] =
    "UPDATE accounts.refresh_tokens SET use_time = to_timestamp($2::double precision / 1000000) "
    "WHERE token_hash = decode($1, 'hex')";

inline constexpr char kRevokeSession[] =
    "UPDATE accounts.sessions SET revoke_time = to_timestamp($3::double precision / 1000000), "
    "revoke_reason = $4 "
    "WHERE session_id = $1::uuid AND account_id = $2::uuid AND revoke_time IS NULL";

inline constexpr char kRevokeAllSessions[] =
    "UPDATE accounts.sessions SET revoke_time = to_timestamp($2::double precision / 1000000), "
    "revoke_reason = 'sign_out_all' WHERE account_id = $1::uuid AND revoke_time IS NULL";

inline constexpr char kSessionIsLive[] =
    "SELECT revoke_time IS NULL FROM accounts.sessions "
    "WHERE session_id = $1::uuid AND account_id = $2::uuid";

inline constexpr char kGetAccount[] =
    "SELECT a.account_id::text, a.display_name, "
    "(extract(epoch FROM a.create_time) * 1000000)::bigint, "
    "(extract(epoch FROM a.update_time) * 1000000)::bigint "
    "FROM accounts.accounts a WHERE a.account_id = $1::uuid";

inline constexpr char kUpdateDisplayName[] =
    "UPDATE accounts.accounts a SET display_name = $2, "
    "update_time = greatest(a.create_time, to_timestamp($3::double precision / 1000000)) "
    "WHERE a.account_id = $1::uuid "
    "RETURNING a.account_id::text, a.display_name, "
    "(extract(epoch FROM a.create_time) * 1000000)::bigint, "
    "(extract(epoch FROM a.update_time) * 1000000)::bigint";

// $1 is a text[] of ids; WITH ORDINALITY keeps the request's order.
inline constexpr char kGetAccounts[] =
    "SELECT a.account_id::text, a.display_name, "
    "(extract(epoch FROM a.create_time) * 1000000)::bigint, "
    "(extract(epoch FROM a.update_time) * 1000000)::bigint "
    "FROM unnest($1::uuid[]) WITH ORDINALITY AS wanted(account_id, position) "
    "JOIN accounts.accounts a USING (account_id) ORDER BY wanted.position";

// ListRevokedSessions: keyset pagination on (revoke_time, session_id). $1 = revoked since (unix
// micros), $2/$3 = after this (micros, session id; -1/'' for the first page), $4 = limit.
inline constexpr char kListRevokedSessions[] =
    "SELECT session_id::text, account_id::text, "
    "(extract(epoch FROM revoke_time) * 1000000)::bigint "
    "FROM accounts.sessions "
    "WHERE revoke_time IS NOT NULL "
    "AND revoke_time >= to_timestamp($1::double precision / 1000000) "
    "AND (revoke_time, session_id) > (to_timestamp($2::double precision / 1000000), "
    "     COALESCE(NULLIF($3, '')::uuid, '00000000-0000-0000-0000-000000000000'::uuid)) "
    "ORDER BY revoke_time, session_id LIMIT $4";

// --- Linked credentials, one-time codes, devices ------------------------------------------

inline constexpr char kCredentialColumns[] =
    "credential_id::text, account_id::text, kind, email, "
    "(extract(epoch FROM create_time) * 1000000)::bigint, "
    "(extract(epoch FROM last_used_time) * 1000000)::bigint";

// $1 kind, $2 subject. Also the password hash (NULL unless email).
inline constexpr char kFindCredential[] =
    "SELECT credential_id::text, account_id::text, kind, email, "
    "(extract(epoch FROM create_time) * 1000000)::bigint, "
    "(extract(epoch FROM last_used_time) * 1000000)::bigint, coalesce(password_hash, '') "
    "FROM accounts.credentials WHERE kind = $1 AND subject = $2";

inline constexpr char kListCredentials[] =
    "SELECT credential_id::text, account_id::text, kind, email, "
    "(extract(epoch FROM create_time) * 1000000)::bigint, "
    "(extract(epoch FROM last_used_time) * 1000000)::bigint "
    "FROM accounts.credentials WHERE account_id = $1::uuid ORDER BY create_time, credential_id";

// Locks the account's credentials (unlinking the last one races with nothing then).
inline constexpr char kLockCredentials[] =
    "SELECT credential_id::text, kind FROM accounts.credentials WHERE account_id = $1::uuid "
    "FOR UPDATE";

// $1 account, $2 kind, $3 subject, $4 email, $5 password hash ('' for none), $6 now.
inline constexpr char kInsertCredential[] =
    "INSERT INTO accounts.credentials (account_id, kind, subject, email, password_hash, "
    "create_time, last_used_time) VALUES ($1::uuid, $2, $3, $4, NULLIF($5, ''), "
    "to_timestamp($6::double precision / 1000000), to_timestamp($6::double precision / 1000000)) "
    "RETURNING credential_id::text, account_id::text, kind, email, "
    "(extract(epoch FROM create_time) * 1000000)::bigint, "
    "(extract(epoch FROM last_used_time) * 1000000)::bigint";

inline constexpr char kTouchCredential[] =
    "UPDATE accounts.credentials SET last_used_time = greatest(create_time, "
    "to_timestamp($2::double precision / 1000000)) WHERE credential_id = $1::uuid";

inline constexpr char kSetPasswordHash[] =
    "UPDATE accounts.credentials SET password_hash = $2, last_used_time = greatest(create_time, "
    "to_timestamp($3::double precision / 1000000)) WHERE credential_id = $1::uuid";

inline constexpr char kDeleteCredential[] =
    "DELETE FROM accounts.credentials WHERE credential_id = $1::uuid AND account_id = $2::uuid";

// $1 account, $2 purpose, $3 email, $4 code hash (hex), $5 now, $6 expire. Replaces an older one.
inline constexpr char kUpsertEmailCode[] =
    "INSERT INTO accounts.email_codes (account_id, purpose, email, code_hash, create_time, "
    "expire_time, failed_attempts) VALUES ($1::uuid, $2, $3, decode($4, 'hex'), "
    "to_timestamp($5::double precision / 1000000), to_timestamp($6::double precision / 1000000), "
    "0) ON CONFLICT (account_id, purpose) DO UPDATE SET email = EXCLUDED.email, "
    "code_hash = EXCLUDED.code_hash, create_time = EXCLUDED.create_time, "
    "expire_time = EXCLUDED.expire_time, failed_attempts = 0";

// $1 account, $2 purpose, $3 now: email, code hash (hex), expired?, failed attempts.
inline constexpr char kLockEmailCode[] =
    "SELECT email, encode(code_hash, 'hex'), "
    "expire_time <= to_timestamp($3::double precision / 1000000), failed_attempts "
    "FROM accounts.email_codes WHERE account_id = $1::uuid AND purpose = $2 FOR UPDATE";

inline constexpr char kFailEmailCode[] =
    "UPDATE accounts.email_codes SET failed_attempts = failed_attempts + 1 "
    "WHERE account_id = $1::uuid AND purpose = $2";

inline constexpr char kDeleteEmailCode[] =
    "DELETE FROM accounts.email_codes WHERE account_id = $1::uuid AND purpose = $2";

// $1 token hash (hex), $2 provider, $3 expire. No row back: the token was used before.
inline constexpr char kInsertUsedIdToken[] =
    "INSERT INTO accounts.used_id_tokens (token_hash, provider, expire_time) "
    "VALUES (decode($1, 'hex'), $2, to_timestamp($3::double precision / 1000000)) "
    "ON CONFLICT DO NOTHING RETURNING provider";

// Forgets up to 100 expired used tokens (each sign-in by ID token sweeps a little).
inline constexpr char kSweepUsedIdTokens[] =
    "DELETE FROM accounts.used_id_tokens WHERE token_hash IN (SELECT token_hash FROM "
    "accounts.used_id_tokens WHERE expire_time < to_timestamp($1::double precision / 1000000) "
    "LIMIT 100)";

// $1 device: its account and whether it was removed; locks the row.
inline constexpr char kLockDevice[] =
    "SELECT account_id::text, removed_time IS NOT NULL FROM accounts.devices "
    "WHERE device_id = $1 FOR UPDATE";

inline constexpr char kListDevices[] =
    "SELECT device_id, (extract(epoch FROM create_time) * 1000000)::bigint, "
    "(extract(epoch FROM last_seen_time) * 1000000)::bigint FROM accounts.devices "
    "WHERE account_id = $1::uuid AND removed_time IS NULL ORDER BY create_time, device_id";

inline constexpr char kCountLiveDevices[] =
    "SELECT count(*) FROM accounts.devices WHERE account_id = $1::uuid AND removed_time IS NULL";

inline constexpr char kRemoveDevice[] =
    "UPDATE accounts.devices SET removed_time = to_timestamp($3::double precision / 1000000) "
    "WHERE device_id = $1 AND account_id = $2::uuid AND removed_time IS NULL "
    "RETURNING device_id";

// $1 device, $2 now, $3 reason.
inline constexpr char kRevokeDeviceSessions[] =
    "UPDATE accounts.sessions SET revoke_time = to_timestamp($2::double precision / 1000000), "
    "revoke_reason = $3 WHERE device_id = $1 AND revoke_time IS NULL";

// $1 account, $2 now, $3 reason.
inline constexpr char kRevokeAccountSessions[] =
    "UPDATE accounts.sessions SET revoke_time = to_timestamp($2::double precision / 1000000), "
    "revoke_reason = $3 WHERE account_id = $1::uuid AND revoke_time IS NULL";

// --- Friends and blocks ------------------------------------------------------------------------
// A pair is stored in friendships as (least, greatest) of the two ids.

inline constexpr char kFindAccountByName[] =
    "SELECT account_id::text, display_name FROM accounts.accounts "
    "WHERE lower(display_name) = lower($1)";

inline constexpr char kFindAccountById[] =
    "SELECT account_id::text, display_name FROM accounts.accounts WHERE account_id = $1::uuid";

// $1 caller, $2 other: friends?, request caller→other?, request other→caller?, caller blocked
// other?, other blocked caller?
inline constexpr char kRelation[] =
    "SELECT "
    "EXISTS (SELECT 1 FROM accounts.friendships WHERE low_account_id = least($1::uuid, $2::uuid) "
    "        AND high_account_id = greatest($1::uuid, $2::uuid)), "
    "EXISTS (SELECT 1 FROM accounts.friend_requests WHERE from_account_id = $1::uuid "
    "        AND to_account_id = $2::uuid), "
    "EXISTS (SELECT 1 FROM accounts.friend_requests WHERE from_account_id = $2::uuid "
    "        AND to_account_id = $1::uuid), "
    "EXISTS (SELECT 1 FROM accounts.blocks WHERE blocker_account_id = $1::uuid "
    "        AND blocked_account_id = $2::uuid), "
    "EXISTS (SELECT 1 FROM accounts.blocks WHERE blocker_account_id = $2::uuid "
    "        AND blocked_account_id = $1::uuid)";

// Serializes changes to one account's friends (counts and pairs stay consistent).
inline constexpr char kLockAccount[] =
    "SELECT 1 FROM accounts.accounts WHERE account_id = $1::uuid FOR UPDATE";

inline constexpr char kCountFriends[] =
    "SELECT count(*) FROM accounts.friendships WHERE low_account_id = $1::uuid "
    "OR high_account_id = $1::uuid";

inline constexpr char kCountOutgoingRequests[] =
    "SELECT count(*) FROM accounts.friend_requests WHERE from_account_id = $1::uuid";

inline constexpr char kCountBlocks[] =
    "SELECT count(*) FROM accounts.blocks WHERE blocker_account_id = $1::uuid";

// $1 from, $2 to, $3 now.
inline constexpr char kInsertFriendRequest[] =
    "INSERT INTO accounts.friend_requests (from_account_id, to_account_id, create_time) "
    "VALUES ($1::uuid, $2::uuid, to_timestamp($3::double precision / 1000000))";

inline constexpr char kDeleteFriendRequest[] =
    "DELETE FROM accounts.friend_requests WHERE from_account_id = $1::uuid "
    "AND to_account_id = $2::uuid RETURNING 1";

// Both directions.
inline constexpr char kDeleteFriendRequests[] =
    "DELETE FROM accounts.friend_requests WHERE (from_account_id = $1::uuid AND to_account_id = "
    "$2::uuid) OR (from_account_id = $2::uuid AND to_account_id = $1::uuid)";

inline constexpr char kInsertFriendship[] =
    "INSERT INTO accounts.friendships (low_account_id, high_account_id, create_time) "
    "VALUES (least($1::uuid, $2::uuid), greatest($1::uuid, $2::uuid), "
    "to_timestamp($3::double precision / 1000000)) ON CONFLICT DO NOTHING";

inline constexpr char kDeleteFriendship[] =
    "DELETE FROM accounts.friendships WHERE low_account_id = least($1::uuid, $2::uuid) "
    "AND high_account_id = greatest($1::uuid, $2::uuid) RETURNING 1";

inline constexpr char kListFriends[] =
    "SELECT a.account_id::text, a.display_name, "
    "(extract(epoch FROM f.create_time) * 1000000)::bigint "
    "FROM accounts.friendships f JOIN accounts.accounts a ON a.account_id = "
    "CASE WHEN f.low_account_id = $1::uuid THEN f.high_account_id ELSE f.low_account_id END "
    "WHERE f.low_account_id = $1::uuid OR f.high_account_id = $1::uuid "
    "ORDER BY lower(a.display_name)";

inline constexpr char kListIncomingRequests[] =
    "SELECT a.account_id::text, a.display_name, "
    "(extract(epoch FROM r.create_time) * 1000000)::bigint "
    "FROM accounts.friend_requests r JOIN accounts.accounts a ON a.account_id = r.from_account_id "
    "WHERE r.to_account_id = $1::uuid ORDER BY r.create_time, a.account_id";

inline constexpr char kListOutgoingRequests[] =
    "SELECT a.account_id::text, a.display_name, "
    "(extract(epoch FROM r.create_time) * 1000000)::bigint "
    "FROM accounts.friend_requests r JOIN accounts.accounts a ON a.account_id = r.to_account_id "
    "WHERE r.from_account_id = $1::uuid ORDER BY r.create_time, a.account_id";

inline constexpr char kInsertBlock[] =
    "INSERT INTO accounts.blocks (blocker_account_id, blocked_account_id, create_time) "
    "VALUES ($1::uuid, $2::uuid, to_timestamp($3::double precision / 1000000)) "
    "ON CONFLICT DO NOTHING RETURNING 1";

inline constexpr char kDeleteBlock[] =
    "DELETE FROM accounts.blocks WHERE blocker_account_id = $1::uuid "
    "AND blocked_account_id = $2::uuid RETURNING 1";

inline constexpr char kListBlockedPlayers[] =
    "SELECT a.account_id::text, a.display_name, "
    "(extract(epoch FROM b.create_time) * 1000000)::bigint "
    "FROM accounts.blocks b JOIN accounts.accounts a ON a.account_id = b.blocked_account_id "
    "WHERE b.blocker_account_id = $1::uuid ORDER BY b.create_time DESC, a.account_id";

// $1 a text[] of ids: every block with both ends in it.
inline constexpr char kBlocksAmong[] =
    "SELECT blocker_account_id::text, blocked_account_id::text FROM accounts.blocks "
    "WHERE blocker_account_id = ANY($1::uuid[]) AND blocked_account_id = ANY($1::uuid[]) "
    "ORDER BY 1, 2";

inline constexpr char kBlockedBy[] =
    "SELECT blocked_account_id::text FROM accounts.blocks WHERE blocker_account_id = $1::uuid "
    "ORDER BY create_time DESC LIMIT 1000";

inline constexpr char kBlockersOf[] =
    "SELECT blocker_account_id::text FROM accounts.blocks WHERE blocked_account_id = $1::uuid "
    "ORDER BY create_time DESC LIMIT 1000";

// --- Account deletion ----------------------------------------------------------------------

// $1 account: its display name and whether it is deleted already; locks the row.
inline constexpr char kLockAccountForDeletion[] =
    "SELECT display_name, delete_time IS NOT NULL FROM accounts.accounts "
    "WHERE account_id = $1::uuid FOR UPDATE";

// $1 account, $2 the replacement name, $3 now.
inline constexpr char kAnonymizeAccount[] =
    "UPDATE accounts.accounts SET display_name = $2, "
    "update_time = greatest(create_time, to_timestamp($3::double precision / 1000000)), "
    "delete_time = to_timestamp($3::double precision / 1000000) WHERE account_id = $1::uuid";

inline constexpr char kDeleteAccountCredentials[] =
    "DELETE FROM accounts.credentials WHERE account_id = $1::uuid";

inline constexpr char kDeleteAccountEmailCodes[] =
    "DELETE FROM accounts.email_codes WHERE account_id = $1::uuid";

// The device ids are replaced by a digest (so the same app install can start afresh) and the
// devices removed.
inline constexpr char kEraseAccountDevices[] =
    "UPDATE accounts.devices SET device_id = 'erased-' || "
    "encode(sha256(convert_to(device_id, 'UTF8')), 'hex'), "
    "removed_time = coalesce(removed_time, to_timestamp($2::double precision / 1000000)) "
    "WHERE account_id = $1::uuid AND device_id NOT LIKE 'erased-%'";

inline constexpr char kDeleteAccountFriendships[] =
    "DELETE FROM accounts.friendships WHERE low_account_id = $1::uuid "
    "OR high_account_id = $1::uuid";

inline constexpr char kDeleteAccountFriendRequests[] =
    "DELETE FROM accounts.friend_requests WHERE from_account_id = $1::uuid "
    "OR to_account_id = $1::uuid";

inline constexpr char kDeleteAccountBlocks[] =
    "DELETE FROM accounts.blocks WHERE blocker_account_id = $1::uuid "
    "OR blocked_account_id = $1::uuid";

// $1 account, $2 now, $3 the name it carried.
inline constexpr char kInsertAccountDeletion[] =
    "INSERT INTO accounts.account_deletions (account_id, delete_time, former_display_name) "
    "VALUES ($1::uuid, to_timestamp($2::double precision / 1000000), $3)";

// $1 after this sequence, $2 limit. The account's current (replacement) name comes along.
inline constexpr char kListAccountDeletions[] =
    "SELECT d.sequence, d.account_id::text, "
    "(extract(epoch FROM d.delete_time) * 1000000)::bigint, a.display_name, "
    "coalesce(d.former_display_name, '') "
    "FROM accounts.account_deletions d JOIN accounts.accounts a USING (account_id) "
    "WHERE d.sequence > $1 ORDER BY d.sequence LIMIT $2";

// $1 erase the former names of deletions before this time (unix micros).
inline constexpr char kEraseFormerDisplayNames[] =
    "UPDATE accounts.account_deletions SET former_display_name = NULL "
    "WHERE former_display_name IS NOT NULL "
    "AND delete_time < to_timestamp($1::double precision / 1000000)";

}  // namespace parlor::accounts::sql

#endif  // PARLOR_SERVICES_ACCOUNTS_STORE_SQL_H_
