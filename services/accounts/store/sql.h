#ifndef PARLOR_SERVICES_ACCOUNTS_STORE_SQL_H_
#define PARLOR_SERVICES_ACCOUNTS_STORE_SQL_H_

// Every SQL statement of the accounts service, in one place. Parameters are always bound
// ($1, $2, ...), never spliced into the text. Token hashes travel as hex text (decode($n, 'hex')).
// Times travel as Unix microseconds (BIGINT) so no time-zone or text parsing is involved.
namespace parlor::accounts::sql {

inline constexpr char kFindDeviceAccount[] =
    "SELECT a.account_id::text, a.display_name, "
    "(extract(epoch FROM a.create_time) * 1000000)::bigint, "
    "(extract(epoch FROM a.update_time) * 1000000)::bigint "
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

}  // namespace parlor::accounts::sql

#endif  // PARLOR_SERVICES_ACCOUNTS_STORE_SQL_H_
