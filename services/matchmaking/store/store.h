#ifndef PARLOR_SERVICES_MATCHMAKING_STORE_STORE_H_
#define PARLOR_SERVICES_MATCHMAKING_STORE_STORE_H_

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "services/common/deletions/account_deletions.h"

namespace parlor::matchmaking {

// Stored rows, as the domain sees them. Options are the canonical "name=value,..." text of every
// option of the game; account ids are restricted to [A-Za-z0-9_-] (the domain checks).
enum class TicketState { kWaiting, kMatched, kCancelled, kExpired };

struct TicketRow {
  std::string ticket_id;
  std::string owner_id;
  std::string game;
  std::string options;
  bool ranked = false;
  std::vector<int> player_counts;
  std::string party_id;              // empty for a solo ticket
  std::vector<std::string> members;  // owner first
  double rating;
  TicketState state = TicketState::kWaiting;
  std::string match_id;  // kMatched only
  std::string game_id;   // once the game exists
  absl::Time create_time;
  absl::Time expire_time;
  absl::Time update_time;
  // Canonical text of the ticket's properties and requirements (domain/properties.h), and the
  // accounts its players must not be seated with (sorted). LoadPool fills all three; the
  // other reads fill properties and requirements.
  std::string properties;
  std::string requirements;
  std::vector<std::string> avoid;
  // The published time control's name (domain/time_controls.h) and "private" or "public".
  std::string time_control = "per_move_3d";
  std::string visibility = "private";
  // LoadPool only: where the row was when the pool was read (its ctid), so that a claim reaches
  // it without an index lookup; a row changed since is not found there and is not claimed.
  std::string row_locator;
};

// One WatchMyTickets stream's question in a round (MatchmakingStore::WatchTickets).
struct TicketWatchQuery {
  std::string account_id;
  absl::Time changed_after;
  // The stream's first round reads the player's history; later rounds read only the tickets added
  // after `changed_after` and those the stream saw not final (waiting, or matched with no game).
  bool first_round = true;
  std::vector<std::string> unfinished_ticket_ids = {};
};

// A ticket answering a TicketWatchQuery.
struct WatchedTicket {
  size_t query = 0;  // its index in the round's queries
  // Waiting, or changed after the query's time: the stream reports it. A first round also returns
  // the matched tickets whose game is not created yet, for the stream to remember.
  bool report = true;
  TicketRow ticket;
};

struct PartyRow {
  std::string party_id;
  std::string code;
  std::string leader_id;
  int max_size = 2;
  std::vector<std::string> members;  // join order, leader first
  absl::Time create_time;
};

// An open invitation to a party, with the party as it is now.
struct PartyInviteRow {
  std::string party_id;
  std::string inviter_id;
  std::string account_id;  // the invited player
  absl::Time create_time;
  absl::Time expire_time;
  std::string leader_id;
  std::vector<std::string> members;  // join order, leader first
  int max_size = 2;
};

enum class ChallengeState { kOpen, kAccepted, kDeclined, kExpired };

struct ChallengePlayer {
  std::string account_id;
  bool accepted = false;
};

struct ChallengeRow {
  std::string challenge_id;
  std::string challenger_id;
  std::string game;
  std::string options;
  bool ranked = false;
  int player_count = 2;
  std::string invite_code;               // empty unless by code
  std::vector<ChallengePlayer> players;  // seat order, challenger first
  ChallengeState state = ChallengeState::kOpen;
  std::string match_id;
  std::string game_id;
  absl::Time create_time;
  absl::Time expire_time;
  absl::Time update_time;
  std::string time_control = "per_move_3d";
  std::string visibility = "private";
};

// A match to create a game for (the outbox).
struct MatchRow {
  std::string match_id;
  std::string source;  // "queue" or "challenge"
  std::string game;
  std::string options;
  bool ranked = false;
  std::vector<std::string> seat_accounts;
  std::vector<int> seat_teams;
  double rating_spread;
  absl::Time create_time;
  std::string game_id;  // empty until created
  int attempts;
  std::string time_control = "per_move_3d";
  std::string visibility = "private";
};

// A pool: the tickets that may be matched together.
struct PoolKey {
  std::string game;
  std::string options;
  bool ranked = false;
  std::string time_control = "per_move_3d";
  std::string visibility = "private";
  friend bool operator==(const PoolKey&, const PoolKey&) = default;
};

// A table chosen by the matcher, in terms of the loaded tickets.
struct PlannedMatch {
  std::vector<size_t> tickets;  // indices into the loaded tickets
  std::vector<std::string> seat_accounts;
  std::vector<int> seat_teams;
  double rating_spread;
};

// What claiming one batch of planned matches did.
struct ClaimResult {
  // Another replica was claiming the same batch (same plan) at that moment: nothing was done.
  bool skipped = false;
  // A ticket of the batch was held or changed while the usual one-statement claim ran, so the
  // batch was claimed again the careful way (locking what it could first).
  bool careful = false;
  // The matches written (a subset of the batch, in batch order) with the index of each in the
  // batch; a planned match with a ticket no longer waiting, or held by someone else, is left out
  // and its other tickets stay waiting.
  std::vector<MatchRow> matches;
  std::vector<size_t> planned_index;
};

// All persistence of matchmaking, as the domain needs it (PostgreSQL: PgMatchmakingStore in
// store/pg_matchmaking_store.h). Every method is one transaction; every error is an absl::Status
// (NOT_FOUND, ALREADY_EXISTS, FAILED_PRECONDITION for domain conditions). Deleted accounts are
// forgotten through AccountDeletionSink.
class MatchmakingStore : public AccountDeletionSink {
 public:
  ~MatchmakingStore() override = default;

  // Tickets. InsertTicket fails with ALREADY_EXISTS naming the player when one of `members`
  // already has a waiting ticket for the game and mode. For a party ticket, the party must still
  // be led by owner_id with exactly `members` (FAILED_PRECONDITION otherwise).
  virtual absl::StatusOr<TicketRow> InsertTicket(const TicketRow& ticket) = 0;
  // NOT_FOUND unless `account_id` is one of the ticket's players.
  virtual absl::StatusOr<TicketRow> GetTicket(const std::string& ticket_id,
                                              const std::string& account_id) = 0;
  virtual absl::StatusOr<TicketRow> CancelTicket(const std::string& ticket_id,
                                                 const std::string& account_id, absl::Time now) = 0;
  // The player's tickets that are waiting or changed after `changed_after`, newest first.
  virtual absl::StatusOr<std::vector<TicketRow>> ListTickets(const std::string& account_id,
                                                             absl::Time changed_after,
                                                             int limit) = 0;
  // A round of WatchMyTickets streams in one statement per kind of question (first rounds, later
  // rounds); each row is paired with the index in `queries` of the query it answers, in
  // ListTickets' order within a query.
  virtual absl::StatusOr<std::vector<WatchedTicket>> WatchTickets(
      const std::vector<TicketWatchQuery>& queries, int limit) = 0;

  // Parties.
  virtual absl::StatusOr<PartyRow> CreateParty(const std::string& leader_id, int max_size,
                                               const std::string& code, absl::Time now) = 0;
  // `blocked_with`: the accounts the joiner blocked or was blocked by; FAILED_PRECONDITION when
  // one of them is a member (checked in the join's transaction, so a member who joins meanwhile
  // is seen).
  virtual absl::StatusOr<PartyRow> JoinParty(const std::string& code, const std::string& account_id,
                                             absl::Time now,
                                             const std::set<std::string>& blocked_with) = 0;
  // Leaves (or, for the leader, disbands) and cancels the party's waiting tickets.
  virtual absl::Status LeaveParty(const std::string& account_id, absl::Time now) = 0;
  virtual absl::StatusOr<PartyRow> GetParty(const std::string& party_id) = 0;

  // Party invitations. InviteToParty: the party `inviter` is in (NOT_FOUND when none) invites
  // `invitee` until `expire_time`; FAILED_PRECONDITION when the invitee is a member or the party
  // is full, or when a member is among `invitee_blocked_with` (the accounts the invitee blocked
  // or was blocked by). An open invitation is returned as it is (not renewed). Its notification
  // is written in the same transaction.
  virtual absl::StatusOr<PartyInviteRow> InviteToParty(
      const std::string& inviter, const std::string& invitee, absl::Time now,
      absl::Time expire_time, const std::set<std::string>& invitee_blocked_with) = 0;
  // The code of `party_id` when `account_id` holds an open invitation to it (NOT_FOUND
  // otherwise). Joining the party (JoinParty) accepts the invitation.
  virtual absl::StatusOr<std::string> InvitedPartyCode(const std::string& party_id,
                                                       const std::string& account_id,
                                                       absl::Time now) = 0;
  virtual absl::Status DeclinePartyInvite(const std::string& party_id,
                                          const std::string& account_id, absl::Time now) = 0;
  // Open invitations of `account_id`, newest first.
  virtual absl::StatusOr<std::vector<PartyInviteRow>> ListPartyInvites(
      const std::string& account_id, absl::Time now, int limit) = 0;

  // Challenges. AcceptChallenge by id (an invited player) or code (anyone); when the last seat
  // accepts, the match row is written in the same transaction.
  virtual absl::StatusOr<ChallengeRow> InsertChallenge(const ChallengeRow& challenge) = 0;
  virtual absl::StatusOr<ChallengeRow> AcceptChallenge(
      const std::string& challenge_id, const std::string& invite_code,
      const std::string& account_id, absl::Time now,
      const std::function<absl::StatusOr<std::vector<int>>(const ChallengeRow&)>& seat_teams) = 0;
  virtual absl::StatusOr<ChallengeRow> DeclineChallenge(const std::string& challenge_id,
                                                        const std::string& account_id,
                                                        absl::Time now) = 0;
  virtual absl::StatusOr<std::vector<ChallengeRow>> ListChallenges(const std::string& account_id,
                                                                   absl::Time changed_after,
                                                                   int limit) = 0;

  // The matcher. ListPools: pools with waiting tickets.
  virtual absl::StatusOr<std::vector<PoolKey>> ListPools(absl::Time now) = 0;
  // A pool's unexpired waiting tickets, oldest first, read without locking anything (a snapshot
  // the matcher plans on). Filled: ticket_id, members, rating, player_counts, create_time,
  // properties, requirements, avoid.
  virtual absl::StatusOr<std::vector<TicketRow>> LoadPool(const PoolKey& pool, absl::Time now) = 0;
  // Writes one batch of planned matches over `tickets` (as LoadPool returned them) in one short
  // transaction: locks those of the batch's tickets that are still waiting and that no other
  // transaction holds (SKIP LOCKED: it never waits for a player cancelling or another replica),
  // and writes every planned match all of whose tickets it locked, with their state change. A
  // ticket leaves 'waiting' at most once whatever runs concurrently. Replicas holding the same
  // plan do not both work on one batch: the second to arrive gets `skipped`.
  virtual absl::StatusOr<ClaimResult> ClaimMatches(const PoolKey& pool,
                                                   const std::vector<TicketRow>& tickets,
                                                   const std::vector<PlannedMatch>& batch,
                                                   absl::Time now) = 0;

  // Expires waiting tickets and open challenges whose time has come; returns the expired tickets.
  virtual absl::StatusOr<std::vector<TicketRow>> ExpireDue(absl::Time now, int limit) = 0;
  // Deletes up to `limit` final tickets, then up to `limit` final challenges, created and last
  // changed before `before` (not those whose match waits for its game), then up to `limit`
  // matches whose game was created before `before` and that nothing shows any more, in one
  // transaction; returns how many of each.
  struct PrunedRows {
    int tickets = 0;
    int challenges = 0;
    int matches = 0;
  };
  virtual absl::StatusOr<PrunedRows> PruneHistory(absl::Time before, int limit) = 0;

  // The game-creation outbox: claims up to `limit` matches without a game whose next attempt is
  // due (pushing it `lease` ahead so other replicas leave them alone meanwhile).
  virtual absl::StatusOr<std::vector<MatchRow>> ClaimPendingMatches(absl::Time now,
                                                                    absl::Duration lease,
                                                                    int limit) = 0;
  virtual absl::Status MarkGameCreated(const std::string& match_id, const std::string& game_id,
                                       absl::Time now) = 0;
  virtual absl::Status RecordCreateFailure(const std::string& match_id, const std::string& error,
                                           absl::Time next_attempt) = 0;
  virtual absl::StatusOr<MatchRow> GetMatch(const std::string& match_id) = 0;
};

}  // namespace parlor::matchmaking

#endif  // PARLOR_SERVICES_MATCHMAKING_STORE_STORE_H_
