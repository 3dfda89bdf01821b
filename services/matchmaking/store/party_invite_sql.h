#ifndef PARLOR_SERVICES_MATCHMAKING_STORE_PARTY_INVITE_SQL_H_
#define PARLOR_SERVICES_MATCHMAKING_STORE_PARTY_INVITE_SQL_H_

// The statements of party invitations (migration 0007; store/party_invites.cc). Parameters are
// bound, times travel as Unix microseconds, as in store/sql.h.
namespace parlor::matchmaking::sql {

// The inviter's party, locked against joins and leaves while the invitation is written.
inline constexpr char kLockInvitersParty[] =
    "SELECT p.party_id::text, p.leader_id, p.max_size FROM matchmaking.party_members m "
    "JOIN matchmaking.parties p USING (party_id) WHERE m.account_id = $1 FOR UPDATE OF p";

inline constexpr char kPartyMemberIds[] =
    "SELECT m.account_id FROM matchmaking.party_members m JOIN matchmaking.parties p "
    "USING (party_id) WHERE m.party_id = $1::uuid "
    "ORDER BY (m.account_id = p.leader_id) DESC, m.join_time, m.account_id";

#define PARLOR_MM_INVITE_COLUMNS                                                            \
  "i.party_id::text, i.inviter_id, i.account_id, "                                          \
  "(extract(epoch FROM i.create_time) * 1000000)::bigint, "                                 \
  "(extract(epoch FROM i.expire_time) * 1000000)::bigint, p.leader_id, p.max_size, "        \
  "array_to_string(ARRAY(SELECT m.account_id FROM matchmaking.party_members m "             \
  "WHERE m.party_id = p.party_id ORDER BY (m.account_id = p.leader_id) DESC, m.join_time, " \
  "m.account_id), ',')"

// An open invitation past its time is closed before the player is invited again.
inline constexpr char kExpireOpenInvite[] =
    "UPDATE matchmaking.party_invites SET state = 'expired', update_time = "
    "to_timestamp($3::double precision / 1000000) WHERE party_id = $1::uuid AND account_id = $2 "
    "AND state = 'open' AND expire_time <= to_timestamp($3::double precision / 1000000)";

inline constexpr char kInsertInvite[] =
    "INSERT INTO matchmaking.party_invites (party_id, account_id, inviter_id, create_time, "
    "expire_time, update_time) VALUES ($1::uuid, $2, $3, to_timestamp($4::double precision / "
    "1000000), to_timestamp($5::double precision / 1000000), to_timestamp($4::double precision "
    "/ 1000000)) ON CONFLICT (party_id, account_id) WHERE state = 'open' DO NOTHING";

inline constexpr char kOpenInvite[] =
    "SELECT " PARLOR_MM_INVITE_COLUMNS
    ", p.code FROM matchmaking.party_invites i JOIN matchmaking.parties p USING (party_id) "
    "WHERE i.party_id = $1::uuid AND i.account_id = $2 AND i.state = 'open' "
    "AND i.expire_time > to_timestamp($3::double precision / 1000000)";

inline constexpr char kDeclineInvite[] =
    "UPDATE matchmaking.party_invites SET state = 'declined', update_time = "
    "to_timestamp($3::double precision / 1000000) WHERE party_id = $1::uuid AND account_id = $2 "
    "AND state = 'open' AND expire_time > to_timestamp($3::double precision / 1000000) "
    "RETURNING invite_id";

inline constexpr char kListOpenInvites[] =
    "SELECT " PARLOR_MM_INVITE_COLUMNS
    " FROM matchmaking.party_invites i JOIN matchmaking.parties p USING (party_id) "
    "WHERE i.account_id = $1 AND i.state = 'open' "
    "AND i.expire_time > to_timestamp($2::double precision / 1000000) "
    "ORDER BY i.create_time DESC, i.invite_id LIMIT $3";

#undef PARLOR_MM_INVITE_COLUMNS

// A deleted account's invitations, received or sent.
inline constexpr char kForgetPartyInvites[] =
    "DELETE FROM matchmaking.party_invites WHERE account_id = $1 OR inviter_id = $1";

}  // namespace parlor::matchmaking::sql

#endif  // PARLOR_SERVICES_MATCHMAKING_STORE_PARTY_INVITE_SQL_H_
