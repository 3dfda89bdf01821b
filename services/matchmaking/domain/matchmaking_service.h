#ifndef PARLOR_SERVICES_MATCHMAKING_DOMAIN_MATCHMAKING_SERVICE_H_
#define PARLOR_SERVICES_MATCHMAKING_DOMAIN_MATCHMAKING_SERVICE_H_

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "prometheus/registry.h"
#include "services/matchmaking/domain/catalog.h"
#include "services/matchmaking/domain/clients.h"
#include "services/matchmaking/domain/matcher.h"
#include "services/matchmaking/domain/properties.h"
#include "services/matchmaking/domain/time_controls.h"
#include "services/matchmaking/store/store.h"

namespace parlor::matchmaking {

struct MatchmakingOptions {
  absl::Duration ticket_ttl = absl::Hours(24);
  absl::Duration challenge_ttl = absl::Hours(72);
  // How long a party invitation lets the invited player join by the party's id.
  absl::Duration party_invite_ttl = absl::Hours(24);
  MatcherConfig matcher;
  // How long a replica leaves a match alone after trying to create its game, and the longest
  // back-off between attempts.
  absl::Duration create_lease = absl::Seconds(30);
  absl::Duration max_create_backoff = absl::Minutes(5);
  // Rows handled per expiry / outbox step.
  int batch_size = 500;
  // Games of one outbox step created at once (CreateGame round trips in flight).
  int delivery_parallelism = 8;
  // The matcher pass writes its matches in transactions of about this many tickets: a player's
  // CancelTicket waits at most for one of them. At 500 such a cancel's p99 stayed under 50 ms
  // during a 100,000-ticket pass (over 60 ms at 1,000) for about the same pass time
  // (parlor-matchmaking-pass-bench).
  int claim_batch_tickets = 500;
  // Batches of one pool claimed at once (each on its own database connection). A claim is short
  // and its transaction waits on round trips and the commit's flush, so more claims than cores
  // keep PostgreSQL busy: a 100,000-ticket pass claimed in 1.5-2.0 s at 4 against 2.4-2.8 s at 2
  // (8: no faster, call p99 up to 40 ms), durable PostgreSQL on the shared 2-core machine.
  int claim_parallelism = 4;
  // Ranked tickets need every player's finish rate (games finished / games ended, in games
  // against people) to be at least this many percent once they have ended
  // `ranked_min_games_for_finish_rate` games (0: no minimum). Checked at Enqueue.
  int ranked_min_finish_percent = 0;
  int ranked_min_games_for_finish_rate = 10;
  // Final tickets and challenges are deleted this long after their creation and last change, and
  // matches this long after their game's creation (PruneHistory); the lists show a week.
  absl::Duration history_retention = absl::Hours(24 * 30);
};

// GameCatalog::LadderFor over the shipped games (engine::AllGames()): the ratings service's
// ladder of a ticket, derived as services/ratings/model/ladder.h derives a finished game's: game,
// seat count and teams of the smallest table size the ticket accepts (a table where every seat is
// its own team has no teams). The game id when no ladder takes it.
std::string LadderFor(const std::string& game, const std::map<int, std::vector<int>>& seat_teams);

struct EnqueueInput {
  std::string game;
  std::map<std::string, std::string> options;
  bool ranked = false;
  std::vector<int> player_counts;
  std::string party_id;
  // Region, language and custom properties, and what the ticket requires of its opponents
  // (domain/properties.h).
  TicketProperties properties;
  std::vector<Requirement> requirements;
  // parlor.matchmaking.v1.TimeControl and GameVisibility values (0: the defaults).
  int time_control = 0;
  int visibility = 0;
};

struct ChallengeInput {
  std::string game;
  std::map<std::string, std::string> options;
  bool ranked = false;
  std::vector<std::string> invitees;
  bool create_invite_code = false;
  int player_count = 0;
  // As in EnqueueInput.
  int time_control = 0;
  int visibility = 0;
};

// What one background step did (for tests and logs).
struct PassStats {
  int pools = 0;
  // Batches of matches another replica was claiming at the same moment (it wrote them).
  int batches_skipped = 0;
  // Batches claimed the careful way after a ticket changed under the usual claim.
  int batches_careful = 0;
  int matches = 0;
  int tickets_matched = 0;
  int tickets_expired = 0;
  // Where the pass's time went (summed over pools): reading the pools, planning in memory,
  // claiming the matches. Each pool after the first is read and planned while the one before it
  // is claimed, so over several pools the three overlap and add up to more than the pass.
  absl::Duration load_time;
  absl::Duration plan_time;
  absl::Duration claim_time;
};

class MatchmakingMetrics;

// The matchmaking rules: validation, tickets, parties, challenges, the matcher pass and the
// game-creation outbox. No gRPC, no SQL. Every method may block (PostgreSQL and the other
// services), so it runs on a worker pool or the background loop, never on a gRPC thread.
class MatchmakingService {
 public:
  using Clock = std::function<absl::Time()>;

  struct Deps {
    MatchmakingStore* store;
    const GameCatalog* catalog;
    RatingSource* ratings;
    AccountDirectory* accounts;
    GameCreator* games;
    prometheus::Registry* metrics;  // may be null
    Clock clock;
    // Blocks between players, read at enqueue (null: nobody is blocked).
    BlockSource* blocks = nullptr;
    // Players' records, read at a ranked enqueue when a minimum finish rate is set (null: not
    // checked).
    RecordSource* records = nullptr;
  };

  MatchmakingService(Deps deps, MatchmakingOptions options);
  ~MatchmakingService();

  // Called with a match's players once its game is recorded (this replica's DeliverGames), so
  // that their WatchMyTickets streams can look at once instead of at their next poll. Set before
  // DeliverGames runs.
  void SetGameCreatedListener(std::function<void(const std::vector<std::string>&)> listener) {
    game_created_ = std::move(listener);
  }

  absl::StatusOr<TicketRow> Enqueue(const std::string& caller, const EnqueueInput& input);
  absl::StatusOr<TicketRow> GetTicket(const std::string& caller, const std::string& ticket_id);
  absl::StatusOr<TicketRow> CancelTicket(const std::string& caller, const std::string& ticket_id);
  absl::StatusOr<std::vector<TicketRow>> ListMyTickets(const std::string& caller, int page_size);
  // WatchMyTickets' round: each stream's question answered, one statement per kind of question
  // (MatchmakingStore::WatchTickets).
  absl::StatusOr<std::vector<WatchedTicket>> WatchTickets(
      const std::vector<TicketWatchQuery>& queries);

  absl::StatusOr<PartyRow> CreateParty(const std::string& caller, int max_size);
  absl::StatusOr<PartyRow> JoinParty(const std::string& caller, const std::string& code);
  absl::Status LeaveParty(const std::string& caller);
  // Party invitations (domain/party_invites.cc). JoinParty by exactly one of `code` and
  // `party_id` (a party the caller holds an open invitation to).
  absl::StatusOr<PartyInviteRow> InviteToParty(const std::string& caller,
                                               const std::string& invitee);
  absl::StatusOr<PartyRow> JoinParty(const std::string& caller, const std::string& code,
                                     const std::string& party_id);
  absl::Status DeclinePartyInvite(const std::string& caller, const std::string& party_id);
  absl::StatusOr<std::vector<PartyInviteRow>> ListMyPartyInvites(const std::string& caller);

  absl::StatusOr<ChallengeRow> Challenge(const std::string& caller, const ChallengeInput& input);
  absl::StatusOr<ChallengeRow> AcceptChallenge(const std::string& caller,
                                               const std::string& challenge_id,
                                               const std::string& invite_code);
  absl::StatusOr<ChallengeRow> DeclineChallenge(const std::string& caller,
                                                const std::string& challenge_id);
  absl::StatusOr<std::vector<ChallengeRow>> ListMyChallenges(const std::string& caller,
                                                             int page_size);

  // Background work, safe to run on any number of replicas at once.
  // Expires due tickets and challenges, then runs the matcher over every pool.
  absl::StatusOr<PassStats> RunMatcherPass();
  // Deletes the final tickets and challenges older than the retention, and the matches whose game
  // was created before it, batch_size of each per transaction, until none is left or
  // kPruneBatchesPerCall batches are done (a backlog is worked off call by call, so a server
  // stopping waits for one call at most). Safe on every replica at once.
  struct Pruned {
    int64_t tickets = 0;
    int64_t challenges = 0;
    int64_t matches = 0;
  };
  absl::StatusOr<Pruned> PruneHistory();
  static constexpr int kPruneBatchesPerCall = 100;
  // Creates the games of matches that have none yet (sessions.CreateGame), up to
  // options.delivery_parallelism at once; returns how many were created. A failed match is
  // logged (WARNING) and left in the outbox for a later attempt; the others still go ahead.
  absl::StatusOr<int> DeliverGames();

  absl::Time Now() const { return deps_.clock(); }

 private:
  // FAILED_PRECONDITION naming the first invitee the caller blocked or was blocked by.
  absl::Status RefuseBlocked(const std::string& caller, const std::vector<std::string>& invitees);
  // The accounts `account_id` blocked or was blocked by (empty without a block source).
  absl::StatusOr<std::set<std::string>> BlockedEitherWay(const std::string& account_id) const;

  absl::StatusOr<std::vector<PlannedMatch>> Plan(const PoolKey& key,
                                                 const std::vector<TicketRow>& tickets,
                                                 absl::Time now);

  // Where this replica starts claiming a pool's batches (differs between replicas and passes).
  size_t NextStart();

  // A ranked ticket's players' finish rates against options_.ranked_min_finish_percent:
  // FAILED_PRECONDITION naming the first player below it.
  absl::Status CheckFinishRates(const std::string& caller, const std::vector<std::string>& members);

  Deps deps_;
  std::function<void(const std::vector<std::string>&)> game_created_;
  MatchmakingOptions options_;
  std::atomic<uint64_t> start_seed_;
  std::unique_ptr<MatchmakingMetrics> metrics_;
  // Waiting tickets per (game, ranked) as of this replica's last pass (background loop only).
  std::map<std::pair<std::string, bool>, double> last_waiting_;
};

// Validation shared by the API and tests.
absl::Status ValidateUuid(const std::string& field, const std::string& value);
absl::Status ValidateAccountId(const std::string& field, const std::string& value);

}  // namespace parlor::matchmaking

#endif  // PARLOR_SERVICES_MATCHMAKING_DOMAIN_MATCHMAKING_SERVICE_H_
