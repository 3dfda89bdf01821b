#ifndef PARLOR_SERVICES_MATCHMAKING_STORE_SQL_H_
#define PARLOR_SERVICES_MATCHMAKING_STORE_SQL_H_

// Every SQL statement of the matchmaking service, in one place. Parameters are always bound
// ($1, $2, ...), never spliced into the text. Times travel as Unix microseconds (BIGINT); arrays
// as PostgreSQL array literals built by the store from validated ids, read back with
// array_to_string.
namespace parlor::matchmaking::sql {

#define PARLOR_MM_TS(n) "to_timestamp($" #n "::double precision / 1000000)"
#define PARLOR_MM_MICROS(col) "(extract(epoch FROM " col ") * 1000000)::bigint"

// Columns of a ticket read, in the order the store's ToTicket expects.
#define PARLOR_MM_TICKET_COLUMNS \
  "t.ticket_id::text, t.owner_id, t.game, t.options, t.ranked, "                                 \
  "array_to_string(t.player_counts, ','), coalesce(t.party_id::text, ''), "                      \
  "array_to_string(t.members, ','), t.rating, t.state, coalesce(t.match_id::text, ''), "         \
  "coalesce(m.game_id, ''), " PARLOR_MM_MICROS("t.create_time") ", " PARLOR_MM_MICROS(          \
      "t.expire_time") ", " PARLOR_MM_MICROS("t.update_time")                                    \
  ", t.properties, t.requirements, t.time_control, t.visibility"                                 \
  " FROM matchmaking.tickets t LEFT JOIN matchmaking.matches m ON m.match_id = t.match_id "

#define PARLOR_MM_CHALLENGE_COLUMNS \
  "c.challenge_id::text, c.challenger_id, c.game, c.options, c.ranked, c.player_count, "         \
  "coalesce(c.invite_code, ''), c.state, coalesce(c.match_id::text, ''), "                       \
  "coalesce(m.game_id, ''), " PARLOR_MM_MICROS("c.create_time") ", " PARLOR_MM_MICROS(          \
      "c.expire_time") ", " PARLOR_MM_MICROS("c.update_time")                                    \
  ", c.time_control, c.visibility"                                                               \
  " FROM matchmaking.challenges c LEFT JOIN matchmaking.matches m ON m.match_id = c.match_id "

#define PARLOR_MM_MATCH_COLUMNS                                                          \
  "match_id::text, source, game, options, ranked, array_to_string(seat_accounts, ','), " \
  "array_to_string(seat_teams, ','), rating_spread, " PARLOR_MM_MICROS(                  \
      "create_time") ", coalesce(game_id, ''), attempts, time_control, visibility"

// ---- Tickets ----------------------------------------------------------------------------------

inline constexpr char kInsertTicket[] =
    "INSERT INTO matchmaking.tickets (owner_id, game, options, ranked, player_counts, party_id, "
    "members, rating, state, create_time, expire_time, update_time, properties, requirements, "
    "avoid, time_control, visibility) "
    "VALUES ($1, $2, $3, $4, $5::int[], NULLIF($6, '')::uuid, $7::text[], $8, "
    "'waiting', " PARLOR_MM_TS(9) ", " PARLOR_MM_TS(10) ", " PARLOR_MM_TS(
        9) ", $11, $12, $13::text[], $14, $15) RETURNING ticket_id::text";

// The partial unique index (account, game, mode) WHERE waiting: a conflicting player gets no row.
inline constexpr char kInsertTicketPlayers[] =
    "INSERT INTO matchmaking.ticket_players (ticket_id, account_id, game, ranked, waiting, "
    "added_at) SELECT $1::uuid, a, $3, $4, true, " PARLOR_MM_TS(5) " FROM unnest($2::text[]) AS a "
    "ON CONFLICT (account_id, game, ranked) WHERE waiting DO NOTHING RETURNING account_id";

// A claim leaves a seated player's flag set (the flag only says the ticket held the place when it
// was written): before taking the place, an enqueue clears the flags of its players' tickets for
// this game and mode that are no longer waiting.
inline constexpr char kReleaseStaleTicketPlayers[] =
    "UPDATE matchmaking.ticket_players p SET waiting = false FROM matchmaking.tickets t "
    "WHERE p.account_id = ANY($1::text[]) AND p.game = $2 AND p.ranked = $3 AND p.waiting "
    "AND t.ticket_id = p.ticket_id AND t.state <> 'waiting'";

inline constexpr char kGetTicket[] =
    "SELECT " PARLOR_MM_TICKET_COLUMNS "WHERE t.ticket_id = $1::uuid AND $2 = ANY(t.members)";

inline constexpr char kGetTicketsByIds[] =
    "SELECT " PARLOR_MM_TICKET_COLUMNS "WHERE t.ticket_id = ANY($1::uuid[]) ORDER BY t.create_time";

inline constexpr char kLockTicketState[] =
    "SELECT state FROM matchmaking.tickets WHERE ticket_id = $1::uuid AND $2 = ANY(members) "
    "FOR UPDATE";

inline constexpr char kCancelTicket[] =
    "UPDATE matchmaking.tickets SET state = 'cancelled', update_time = " PARLOR_MM_TS(
        2) " WHERE ticket_id = $1::uuid AND state = 'waiting'";

inline constexpr char kReleaseTicketPlayers[] =
    "UPDATE matchmaking.ticket_players SET waiting = false "
    "WHERE ticket_id = ANY($1::uuid[]) AND waiting";

inline constexpr char kListTickets[] =
    "SELECT " PARLOR_MM_TICKET_COLUMNS
    "WHERE t.ticket_id IN (SELECT ticket_id FROM matchmaking.ticket_players WHERE account_id = $1) "
    "AND (t.state = 'waiting' OR t.update_time > " PARLOR_MM_TS(2) ") "
    "ORDER BY t.create_time DESC, t.ticket_id LIMIT $3";

// WatchMyTickets' rounds, each one statement for many streams: one (account, changed after, ...)
// entry per stream, rows prefixed by the (1-based) position of the entry they answer and whether
// the stream reports the ticket (it is waiting or changed after the entry's time). A ticket changes
// only until it is final (cancelled, expired, or matched with its game created).
//
// A stream's first round reads its player's whole history once (kListTickets' index path and
// limit): the tickets to report, and the matched ones whose game is not created yet, which the
// stream remembers without reporting.
inline constexpr char kOpenTicketsOfAccounts[] =
    "SELECT a.n, x.* FROM unnest($1::text[], $2::bigint[]) WITH ORDINALITY "
    "AS a(account_id, after, n) "
    "CROSS JOIN LATERAL (SELECT (t.state = 'waiting' OR t.update_time > "
    "to_timestamp(a.after::double precision / 1000000)), " PARLOR_MM_TICKET_COLUMNS
    "WHERE t.ticket_id IN (SELECT p.ticket_id FROM matchmaking.ticket_players p "
    "WHERE p.account_id = a.account_id) "
    "AND (t.state = 'waiting' OR t.update_time > to_timestamp(a.after::double precision / "
    "1000000) OR (t.state = 'matched' AND m.game_id IS NULL)) "
    "ORDER BY t.create_time DESC, t.ticket_id LIMIT $3) x";

// Every later round reads no history: the tickets the stream remembers as not final ($3, each
// entry the comma-separated ids of one stream) by their key, and the tickets added to the player
// after the entry's time through ticket_players_added_idx.
inline constexpr char kChangedTicketsOfAccounts[] =
    "SELECT a.n, true, x.* FROM unnest($1::text[], $2::bigint[], $3::text[]) WITH ORDINALITY "
    "AS a(account_id, after, open, n) "
    "CROSS JOIN LATERAL (SELECT " PARLOR_MM_TICKET_COLUMNS
    "WHERE t.ticket_id IN (SELECT p.ticket_id FROM matchmaking.ticket_players p "
    "WHERE p.account_id = a.account_id "
    "AND p.added_at > to_timestamp(a.after::double precision / 1000000) "
    "UNION ALL SELECT unnest(string_to_array(a.open, ',')::uuid[])) "
    "AND (t.state = 'waiting' OR t.update_time > to_timestamp(a.after::double precision / "
    "1000000)) "
    "ORDER BY t.create_time DESC, t.ticket_id LIMIT $4) x";

// ---- History ----------------------------------------------------------------------------------

// Pruning: up to $2 of the oldest final tickets (tickets_final_idx) created and last changed
// before $1, except those matched to a game not created yet; their ticket_players rows go with
// them (ON DELETE CASCADE). Replicas pruning at once delete each row once.
inline constexpr char kPruneTickets[] =
    "DELETE FROM matchmaking.tickets WHERE ticket_id IN (SELECT t.ticket_id "
    "FROM matchmaking.tickets t WHERE t.state <> 'waiting' AND t.create_time < " PARLOR_MM_TS(1)
    " AND t.update_time < " PARLOR_MM_TS(1)
    " AND NOT EXISTS (SELECT 1 FROM matchmaking.matches m WHERE m.match_id = t.match_id "
    "AND m.game_id IS NULL) ORDER BY t.create_time LIMIT $2)";

// The same for challenges (challenges_final_idx), with their challenge_players rows.
inline constexpr char kPruneChallenges[] =
    "DELETE FROM matchmaking.challenges WHERE challenge_id IN (SELECT c.challenge_id "
    "FROM matchmaking.challenges c WHERE c.state <> 'open' AND c.create_time < " PARLOR_MM_TS(1)
    " AND c.update_time < " PARLOR_MM_TS(1)
    " AND NOT EXISTS (SELECT 1 FROM matchmaking.matches m WHERE m.match_id = c.match_id "
    "AND m.game_id IS NULL) ORDER BY c.create_time LIMIT $2)";

// The same for matches whose game was created before $1 (matches_created_idx), once no ticket
// or challenge shows them: the statements above run first in the same transaction, and a match's
// tickets and challenge are final and last changed no later than its game's creation.
inline constexpr char kPruneMatches[] =
    "DELETE FROM matchmaking.matches WHERE match_id IN (SELECT m.match_id "
    "FROM matchmaking.matches m WHERE m.game_id IS NOT NULL AND m.game_create_time < " PARLOR_MM_TS(
        1) " AND NOT EXISTS (SELECT 1 FROM matchmaking.tickets t WHERE t.match_id = m.match_id) "
    "AND NOT EXISTS (SELECT 1 FROM matchmaking.challenges c WHERE c.match_id = m.match_id) "
    "ORDER BY m.game_create_time LIMIT $2)";

// ---- Parties ----------------------------------------------------------------------------------

inline constexpr char kInsertParty[] =
    "INSERT INTO matchmaking.parties (code, leader_id, max_size, create_time) "
    "VALUES ($1, $2, $3, " PARLOR_MM_TS(4) ") ON CONFLICT (code) DO NOTHING "
    "RETURNING party_id::text";

inline constexpr char kInsertPartyMember[] =
    "INSERT INTO matchmaking.party_members (account_id, party_id, join_time) "
    "VALUES ($1, $2::uuid, " PARLOR_MM_TS(3) ") ON CONFLICT (account_id) DO NOTHING "
    "RETURNING account_id";

inline constexpr char kLockPartyByCode[] =
    "SELECT party_id::text, code, leader_id, max_size, " PARLOR_MM_MICROS(
        "create_time") " FROM matchmaking.parties WHERE code = $1 FOR UPDATE";

inline constexpr char kLockPartyById[] =
    "SELECT party_id::text, code, leader_id, max_size, " PARLOR_MM_MICROS(
        "create_time") " FROM matchmaking.parties WHERE party_id = $1::uuid FOR SHARE";

inline constexpr char kPartyMembers[] =
    "SELECT m.account_id FROM matchmaking.party_members m JOIN matchmaking.parties p "
    "USING (party_id) WHERE m.party_id = $1::uuid "
    "ORDER BY (m.account_id = p.leader_id) DESC, m.join_time, m.account_id";

inline constexpr char kLockPartyOfMember[] =
    "SELECT p.party_id::text, p.leader_id FROM matchmaking.party_members m "
    "JOIN matchmaking.parties p USING (party_id) WHERE m.account_id = $1 FOR UPDATE OF p";

inline constexpr char kCancelPartyTickets[] =
    "UPDATE matchmaking.tickets SET state = 'cancelled', update_time = " PARLOR_MM_TS(
        2) " WHERE party_id = $1::uuid AND state = 'waiting' RETURNING ticket_id::text";

inline constexpr char kDeleteParty[] = "DELETE FROM matchmaking.parties WHERE party_id = $1::uuid";

inline constexpr char kDeletePartyMember[] =
    "DELETE FROM matchmaking.party_members WHERE account_id = $1";

// ---- Challenges -------------------------------------------------------------------------------

inline constexpr char kInsertChallenge[] =
    "INSERT INTO matchmaking.challenges (challenger_id, game, options, ranked, player_count, "
    "invite_code, state, create_time, expire_time, update_time, time_control, visibility) "
    "VALUES ($1, $2, $3, $4, $5, NULLIF($6, ''), 'open', " PARLOR_MM_TS(7) ", " PARLOR_MM_TS(8)
    ", " PARLOR_MM_TS(7) ", $9, $10) ON CONFLICT (invite_code) DO NOTHING RETURNING challenge_id::text";

inline constexpr char kInsertChallengePlayer[] =
    "INSERT INTO matchmaking.challenge_players (challenge_id, account_id, seat, accepted) "
    "VALUES ($1::uuid, $2, $3, $4)";

inline constexpr char kGetChallenge[] =
    "SELECT " PARLOR_MM_CHALLENGE_COLUMNS "WHERE c.challenge_id = $1::uuid";

inline constexpr char kLockChallengeById[] =
    "SELECT " PARLOR_MM_CHALLENGE_COLUMNS "WHERE c.challenge_id = $1::uuid FOR UPDATE OF c";

inline constexpr char kLockChallengeByCode[] =
    "SELECT " PARLOR_MM_CHALLENGE_COLUMNS "WHERE c.invite_code = $1 FOR UPDATE OF c";

inline constexpr char kChallengePlayers[] =
    "SELECT account_id, accepted FROM matchmaking.challenge_players WHERE challenge_id = $1::uuid "
    "ORDER BY seat";

inline constexpr char kAcceptChallengePlayer[] =
    "UPDATE matchmaking.challenge_players SET accepted = true "
    "WHERE challenge_id = $1::uuid AND account_id = $2";

inline constexpr char kSetChallengeState[] =
    "UPDATE matchmaking.challenges SET state = $2, match_id = NULLIF($3, '')::uuid, "
    "update_time = " PARLOR_MM_TS(4) " WHERE challenge_id = $1::uuid";

inline constexpr char kListChallenges[] =
    "SELECT " PARLOR_MM_CHALLENGE_COLUMNS
    "WHERE c.challenge_id IN (SELECT challenge_id FROM matchmaking.challenge_players "
    "WHERE account_id = $1) AND (c.state = 'open' OR c.update_time > " PARLOR_MM_TS(2) ") "
    "ORDER BY c.create_time DESC, c.challenge_id LIMIT $3";

inline constexpr char kExpireChallenges[] =
    "UPDATE matchmaking.challenges SET state = 'expired', update_time = " PARLOR_MM_TS(
        1) " WHERE state = 'open' AND expire_time <= " PARLOR_MM_TS(1);

// ---- Matcher ----------------------------------------------------------------------------------

inline constexpr char kListPools[] =
    "SELECT DISTINCT game, options, ranked, time_control, visibility FROM matchmaking.tickets "
    "WHERE state = 'waiting' AND expire_time > " PARLOR_MM_TS(
        1) " ORDER BY game, options, ranked, time_control, visibility";

// The pass reads a pool without locking it: only what the matcher needs, oldest first, and where
// each row is (its ctid) for the claim.
inline constexpr char kLoadPool[] =
    "SELECT t.ticket_id::text, array_to_string(t.members, ','), t.rating, " PARLOR_MM_MICROS(
        "t.create_time") ", array_to_string(t.player_counts, ','), t.properties, t.requirements, "
    "array_to_string(t.avoid, ','), t.ctid::text FROM matchmaking.tickets t "
    "WHERE t.state = 'waiting' AND t.game = $1 AND t.options = $2 AND t.ranked = $3 "
    "AND t.time_control = $5 AND t.visibility = $6 "
    "AND t.expire_time > " PARLOR_MM_TS(4) " ORDER BY t.create_time, t.ticket_id";

// Two replicas holding the same plan claim the same batch: one claims it, the other moves on.
inline constexpr char kTryLockBatch[] =
    "SELECT pg_try_advisory_xact_lock(hashtextextended('matchmaking.claim|' || $1, 0))";

// Locks those tickets of a batch that are still waiting and that nobody else holds right now (a
// player cancelling, another replica claiming): the claim never waits for them. The rows are
// reached where the pass read them ($1, ctids), not through an index. A row changed since has
// moved: it is either not found (not claimed this pass) or, when it changed after this
// statement's snapshot, found at its new place, which is returned. A ctid reused by another
// ticket returns that ticket's id, which the store ignores unless it is one of the batch's.
inline constexpr char kLockClaimable[] =
    "SELECT ctid::text, ticket_id::text FROM matchmaking.tickets WHERE ctid = ANY($1::tid[]) "
    "AND state = 'waiting' AND expire_time > " PARLOR_MM_TS(2) " FOR UPDATE SKIP LOCKED";

// Matches of one batch: ids, seats and teams as "a,b,c" texts (account ids hold no commas).
inline constexpr char kInsertMatches[] =
    "INSERT INTO matchmaking.matches (match_id, source, game, options, ranked, seat_accounts, "
    "seat_teams, rating_spread, create_time, next_attempt_time, time_control, visibility) "
    "SELECT u.m, 'queue', $5, $6, $7, string_to_array(u.a, ','), string_to_array(u.t, ',')::int[], "
    "u.s, " PARLOR_MM_TS(8) ", " PARLOR_MM_TS(8) ", $9, $10 FROM unnest($1::uuid[], $2::text[], $3::text[], "
    "$4::float8[]) AS u(m, a, t, s)";

// Seats the locked tickets ($1 their ctids as kLockClaimable returned them, which stay put while
// the rows are locked; $2 their ids; $3 their matches). The ANY($1) is a TID scan. $4 is the
// time the pass began, which may be before a ticket it read was written.
inline constexpr char kClaimTickets[] =
    "UPDATE matchmaking.tickets t SET state = 'matched', match_id = u.m, "
    "update_time = greatest(t.update_time, " PARLOR_MM_TS(
        4) ") FROM unnest($1::tid[], $2::uuid[], $3::uuid[]) AS u(c, id, m) "
    "WHERE t.ctid = ANY($1::tid[]) AND t.ctid = u.c AND t.ticket_id = u.id AND t.state = 'waiting'";

// The claim's usual path: one statement seats every planned match of a batch all of whose tickets
// are still waiting where the pass read them ($1 ctids, $2 ids, $3 each ticket's match, $4 the
// pass's time), without locking the batch's rows first. `ok` keeps the matches none of whose
// tickets changed before this statement (a ticket cancelled since the read leaves its match out);
// the UPDATE locks and rechecks each row, so a ticket still leaves 'waiting' at most once. A row
// changing during the statement (its lock is waited for, up to the transaction's lock_timeout)
// can leave a match part-seated: the store sees that in the returned rows and rolls the batch
// back to claim it the careful way (kLockClaimable, then kClaimTickets).
inline constexpr char kClaimWaitingTickets[] =
    "WITH u AS (SELECT * FROM unnest($1::tid[], $2::uuid[], $3::uuid[]) AS u(c, id, m)), "
    "ok AS (SELECT u.m FROM u LEFT JOIN matchmaking.tickets w ON w.ctid = u.c "
    "AND w.ticket_id = u.id AND w.state = 'waiting' AND w.expire_time > " PARLOR_MM_TS(
        4) " GROUP BY u.m HAVING count(w.ticket_id) = count(*)) "
    "UPDATE matchmaking.tickets t SET state = 'matched', match_id = u.m, "
    "update_time = greatest(t.update_time, " PARLOR_MM_TS(
        4) ") FROM u WHERE t.ctid = u.c AND t.ticket_id = u.id AND u.m IN (SELECT m FROM ok) "
    "AND t.state = 'waiting' AND t.expire_time > " PARLOR_MM_TS(
        4) " RETURNING t.ticket_id::text, u.m::text";

// How long the usual path waits for a ticket's row that someone else holds (a player cancelling,
// another replica's claim) before the batch is claimed the careful way, which skips held rows.
inline constexpr char kClaimLockTimeout[] = "SET LOCAL lock_timeout = '50ms'";

inline constexpr char kInsertMatch[] =
    "INSERT INTO matchmaking.matches (source, game, options, ranked, seat_accounts, seat_teams, "
    "rating_spread, create_time, next_attempt_time, time_control, visibility) "
    "VALUES ($1, $2, $3, $4, $5::text[], $6::int[], $7, " PARLOR_MM_TS(8) ", " PARLOR_MM_TS(
        8) ", $9, $10) RETURNING match_id::text";

inline constexpr char kExpireTickets[] =
    "UPDATE matchmaking.tickets SET state = 'expired', update_time = " PARLOR_MM_TS(1)
    " WHERE ticket_id IN (SELECT ticket_id FROM matchmaking.tickets WHERE state = 'waiting' "
    "AND expire_time <= " PARLOR_MM_TS(1) " ORDER BY expire_time LIMIT $2 FOR UPDATE SKIP LOCKED) "
    "RETURNING ticket_id::text";

// ---- Game-creation outbox ---------------------------------------------------------------------

inline constexpr char kClaimMatches[] =
    "UPDATE matchmaking.matches SET attempts = attempts + 1, next_attempt_time = " PARLOR_MM_TS(2)
    " WHERE match_id IN (SELECT match_id FROM matchmaking.matches WHERE game_id IS NULL "
    "AND next_attempt_time <= " PARLOR_MM_TS(1) " ORDER BY next_attempt_time LIMIT $3 "
    "FOR UPDATE SKIP LOCKED) RETURNING " PARLOR_MM_MATCH_COLUMNS;

inline constexpr char kGetMatch[] =
    "SELECT " PARLOR_MM_MATCH_COLUMNS " FROM matchmaking.matches WHERE match_id = $1::uuid";

inline constexpr char kMarkGameCreated[] =
    "UPDATE matchmaking.matches SET game_id = $2, game_create_time = "
    "greatest(create_time, " PARLOR_MM_TS(
        3) "), last_error = NULL WHERE match_id = $1::uuid AND game_id IS NULL";

// The match's tickets and challenge, by their match (tickets_match_idx, challenges_match_idx of
// migration 0008). Before, no index covered tickets.match_id, and the tickets were reached
// through every ticket_players row of the match's players: their whole history.
inline constexpr char kTouchMatchTickets[] =
    "UPDATE matchmaking.tickets SET update_time = greatest(update_time, " PARLOR_MM_TS(
        2) ") WHERE match_id = $1::uuid";

inline constexpr char kTouchMatchChallenges[] =
    "UPDATE matchmaking.challenges SET update_time = greatest(update_time, " PARLOR_MM_TS(
        2) ") WHERE match_id = $1::uuid";

inline constexpr char kRecordCreateFailure[] =
    "UPDATE matchmaking.matches SET last_error = left($2, 500), next_attempt_time = " PARLOR_MM_TS(
        3) " WHERE match_id = $1::uuid AND game_id IS NULL";

// --- Deleted accounts (the accounts service's deletion outbox) ----------------------------------

inline constexpr char kForgottenThrough[] =
    "SELECT coalesce(max(sequence), 0) FROM matchmaking.forgotten_accounts";

// $1 account, $2 its deletion's sequence.
inline constexpr char kRecordForgotten[] =
    "INSERT INTO matchmaking.forgotten_accounts (account_id, sequence, forget_time) "
    "VALUES ($1, $2, now()) ON CONFLICT (account_id) DO NOTHING";

inline constexpr char kForgetTickets[] =
    "DELETE FROM matchmaking.tickets WHERE ticket_id IN "
    "(SELECT ticket_id FROM matchmaking.ticket_players WHERE account_id = $1)";

inline constexpr char kForgetInBlockLists[] =
    "UPDATE matchmaking.tickets SET avoid = array_remove(avoid, $1) "
    "WHERE state = 'waiting' AND $1 = ANY(avoid)";

inline constexpr char kForgetLedParties[] = "DELETE FROM matchmaking.parties WHERE leader_id = $1";
inline constexpr char kForgetPartyMembership[] =
    "DELETE FROM matchmaking.party_members WHERE account_id = $1";

inline constexpr char kForgetChallenges[] =
    "DELETE FROM matchmaking.challenges WHERE challenger_id = $1 OR challenge_id IN "
    "(SELECT challenge_id FROM matchmaking.challenge_players WHERE account_id = $1)";

inline constexpr char kForgetNotifications[] =
    "DELETE FROM matchmaking.notification_outbox WHERE account_id = $1 OR from_account = $1";
// Other players' match pushes name the remaining opponents only.
inline constexpr char kForgetInNotifications[] =
    "UPDATE matchmaking.notification_outbox SET other_accounts = array_remove(other_accounts, $1) "
    "WHERE $1 = ANY(other_accounts)";

}  // namespace parlor::matchmaking::sql

#endif  // PARLOR_SERVICES_MATCHMAKING_STORE_SQL_H_
