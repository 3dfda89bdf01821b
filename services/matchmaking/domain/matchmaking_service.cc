#include "services/matchmaking/domain/matchmaking_service.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <future>
#include <mutex>
#include <set>
#include <thread>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "engine/games/all_games.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "services/common/core/crypto.h"
#include "services/common/core/logging.h"
#include "services/ratings/model/ladder.h"

namespace parlor::matchmaking {

// parlor_matchmaking_* metrics.
class MatchmakingMetrics {
 public:
  explicit MatchmakingMetrics(prometheus::Registry* registry) {
    if (registry == nullptr) {
      own_ = std::make_shared<prometheus::Registry>();
      registry = own_.get();
    }
    waiting_ = &prometheus::BuildGauge()
                    .Name("parlor_matchmaking_tickets_waiting")
                    .Help(
                        "Tickets waiting in the queue, by game and mode (as of this replica's "
                        "last matcher pass)")
                    .Register(*registry);
    wait_ = &prometheus::BuildHistogram()
                 .Name("parlor_matchmaking_wait_seconds")
                 .Help("Time from enqueue to match of matched tickets, by game")
                 .Register(*registry);
    matches_ = &prometheus::BuildCounter()
                    .Name("parlor_matchmaking_matches_total")
                    .Help("Matches formed (queue and challenges), by game")
                    .Register(*registry);
    spread_family_ = &prometheus::BuildHistogram()
                          .Name("parlor_matchmaking_match_rating_spread")
                          .Help("Highest minus lowest ticket rating of each queue match")
                          .Register(*registry);
    spread_ = &spread_family_->Add(
        {}, prometheus::Histogram::BucketBoundaries{0, 25, 50, 100, 150, 200, 300, 500, 1000});
    oldest_ = &prometheus::BuildGauge()
                   .Name("parlor_matchmaking_oldest_waiting_seconds")
                   .Help(
                       "Age of the oldest ticket still waiting after this replica's last matcher "
                       "pass, by game and mode (0: none waiting; take the max over replicas)")
                   .Register(*registry);
    expired_ = &prometheus::BuildCounter()
                    .Name("parlor_matchmaking_tickets_expired_total")
                    .Help("Tickets that expired unmatched")
                    .Register(*registry)
                    .Add({});
    auto& pruned =
        prometheus::BuildCounter()
            .Name("parlor_matchmaking_pruned_total")
            .Help("Final tickets, challenges and matches deleted once older than the retention")
            .Register(*registry);
    pruned_tickets_ = &pruned.Add({{"kind", "ticket"}});
    pruned_challenges_ = &pruned.Add({{"kind", "challenge"}});
    pruned_matches_ = &pruned.Add({{"kind", "match"}});
    prune_failures_ = &prometheus::BuildCounter()
                           .Name("parlor_matchmaking_prune_failures_total")
                           .Help("Prune rounds that failed (the tables grow while they do)")
                           .Register(*registry)
                           .Add({});
  }

  // Sets the waiting gauges from one pass; pools that emptied since drop to zero.
  void SetWaiting(const std::map<std::pair<std::string, bool>, double>& waiting) {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& key : known_) {
      if (!waiting.contains(key)) Waiting(key.first, key.second).Set(0);
    }
    for (const auto& [key, value] : waiting) {
      Waiting(key.first, key.second).Set(value);
      known_.insert(key);
    }
  }
  // Sets the oldest-ticket ages from one pass; pools with none waiting drop to zero.
  void SetOldest(const std::map<std::pair<std::string, bool>, double>& oldest) {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& key : known_oldest_) {
      if (!oldest.contains(key)) Oldest(key).Set(0);
    }
    for (const auto& [key, value] : oldest) {
      Oldest(key).Set(value);
      known_oldest_.insert(key);
    }
  }
  void ObserveWait(const std::string& game, double seconds) {
    wait_
        ->Add({{"game", game}},
              prometheus::Histogram::BucketBoundaries{1, 10, 30, 60, 120, 300, 600, 1800, 3600,
                                                      14400, 86400})
        .Observe(seconds);
  }
  void CountMatch(const std::string& game) { matches_->Add({{"game", game}}).Increment(); }
  void ObserveSpread(double spread) { spread_->Observe(spread); }
  void CountExpired(int n) { expired_->Increment(n); }
  void CountPruned(const MatchmakingStore::PrunedRows& pruned) {
    pruned_tickets_->Increment(pruned.tickets);
    pruned_challenges_->Increment(pruned.challenges);
    pruned_matches_->Increment(pruned.matches);
  }
  void CountPruneFailure() { prune_failures_->Increment(); }

 private:
  prometheus::Gauge& Oldest(const std::pair<std::string, bool>& key) {
    return oldest_->Add({{"game", key.first}, {"ranked", key.second ? "true" : "false"}});
  }
  prometheus::Gauge& Waiting(const std::string& game, bool ranked) {
    return waiting_->Add({{"game", game}, {"ranked", ranked ? "true" : "false"}});
  }

  std::shared_ptr<prometheus::Registry> own_;
  std::mutex mu_;
  std::set<std::pair<std::string, bool>> known_;
  prometheus::Family<prometheus::Gauge>* waiting_;
  prometheus::Family<prometheus::Gauge>* oldest_;
  std::set<std::pair<std::string, bool>> known_oldest_;
  prometheus::Family<prometheus::Histogram>* wait_;
  prometheus::Family<prometheus::Counter>* matches_;
  prometheus::Family<prometheus::Histogram>* spread_family_;
  prometheus::Histogram* spread_;
  prometheus::Counter* expired_;
  prometheus::Counter* pruned_tickets_;
  prometheus::Counter* pruned_challenges_;
  prometheus::Counter* pruned_matches_;
  prometheus::Counter* prune_failures_;
};

namespace {

constexpr int kDefaultPageSize = 50;
constexpr int kMaxPageSize = 100;
constexpr int kMaxInvitees = 15;
constexpr int kCodeAttempts = 4;
// Ended tickets and challenges stay listed this long.
constexpr absl::Duration kListHistory = absl::Hours(24 * 7);
// Unambiguous characters only (no 0/O, 1/I).
constexpr char kCodeAlphabet[] = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";

std::string NewCode() {
  const std::string bytes = RandomBytes(8);
  std::string code;
  for (unsigned char b : bytes) code += kCodeAlphabet[b % (sizeof(kCodeAlphabet) - 1)];
  return code;
}

absl::Status ValidateCode(const std::string& field, const std::string& code) {
  bool ok = code.size() == 8;
  for (char c : code) {
    if (!((c >= 'A' && c <= 'Z') || (c >= '2' && c <= '9'))) ok = false;
  }
  if (!ok) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": must be the 8-character code (A-Z, 2-9) you were given"));
  }
  return absl::OkStatus();
}

int PageSize(int requested) {
  if (requested <= 0) return kDefaultPageSize;
  return std::min(requested, kMaxPageSize);
}

// page_size of the list RPCs: 1-100, 0 for the default.
absl::Status ValidatePageSize(int page_size) {
  if (page_size < 0 || page_size > kMaxPageSize) {
    return absl::InvalidArgumentError(absl::StrCat(
        "page_size: must be 1-", kMaxPageSize, " (0 for ", kDefaultPageSize, "), got ", page_size));
  }
  return absl::OkStatus();
}

int MaxTeamSize(const std::vector<int>& seat_teams) {
  std::map<int, int> sizes;
  int best = 0;
  for (int team : seat_teams) best = std::max(best, ++sizes[team]);
  return best;
}

}  // namespace

absl::Status ValidateUuid(const std::string& field, const std::string& value) {
  bool ok = value.size() == 36;
  for (size_t i = 0; ok && i < value.size(); ++i) {
    const char c = value[i];
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      ok = c == '-';
    } else {
      ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }
  }
  if (!ok) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ": must be a UUID as returned by this service, got \"", value.substr(0, 64), "\""));
  }
  return absl::OkStatus();
}

absl::Status ValidateAccountId(const std::string& field, const std::string& value) {
  bool ok = !value.empty() && value.size() <= 64;
  for (char c : value) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' ||
          c == '_')) {
      ok = false;
    }
  }
  if (!ok) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": must be an account id (a UUID), got \"", value.substr(0, 64), "\""));
  }
  return absl::OkStatus();
}

MatchmakingService::MatchmakingService(Deps deps, MatchmakingOptions options)
    : deps_(std::move(deps)),
      options_(std::move(options)),
      metrics_(std::make_unique<MatchmakingMetrics>(deps_.metrics)) {
  const std::string seed = RandomBytes(8);
  uint64_t value = 0;
  for (unsigned char c : seed) value = value << 8 | c;
  start_seed_ = value;
}

size_t MatchmakingService::NextStart() {
  // A Weyl sequence from a random start: well spread over passes, different on every replica.
  const uint64_t x = start_seed_.fetch_add(0x9e3779b97f4a7c15ULL);
  return static_cast<size_t>((x ^ (x >> 29)) * 0xbf58476d1ce4e5b9ULL >> 32);
}

MatchmakingService::~MatchmakingService() = default;

std::string LadderFor(const std::string& game, const std::map<int, std::vector<int>>& seat_teams) {
  static const engine::Registry* const kGames = new engine::Registry(engine::AllGames());
  static const GameCatalog* const kCatalog = new GameCatalog(kGames);
  return kCatalog->LadderFor(game, seat_teams);
}

// ---- Tickets ------------------------------------------------------------------------------------

absl::StatusOr<TicketRow> MatchmakingService::Enqueue(const std::string& caller,
                                                      const EnqueueInput& input) {
  if (absl::Status s = ValidateAccountId("caller", caller); !s.ok()) return s;
  absl::StatusOr<GameCatalog::Validated> game =
      deps_.catalog->Validate(input.game, input.options, input.player_counts);
  if (!game.ok()) return game.status();
  absl::StatusOr<const TimeControlChoice*> time_control = FindTimeControl(input.time_control);
  if (!time_control.ok()) return time_control.status();
  absl::StatusOr<std::string> visibility = VisibilityName(input.visibility);
  if (!visibility.ok()) return visibility.status();
  std::vector<std::string> members = {caller};
  if (!input.party_id.empty()) {
    if (absl::Status s = ValidateUuid("party_id", input.party_id); !s.ok()) return s;
    absl::StatusOr<PartyRow> party = deps_.store->GetParty(input.party_id);
    if (!party.ok()) return party.status();
    if (std::find(party->members.begin(), party->members.end(), caller) == party->members.end()) {
      return absl::NotFoundError(absl::StrCat("party ", input.party_id, " not found"));
    }
    if (party->leader_id != caller) {
      return absl::PermissionDeniedError("only the party leader can enqueue the party");
    }
    members = party->members;
    for (const auto& [count, teams] : game->seat_teams) {
      const int team_size = MaxTeamSize(teams);
      if (static_cast<int>(members.size()) > team_size) {
        return absl::FailedPreconditionError(absl::StrCat(
            "the party has ", members.size(), " players but ", input.game, " with ", count,
            " players and these options seats teams of at most ", team_size,
            "; a party is seated as one team (choose team options or other player_counts)"));
      }
    }
  }
  if (absl::Status s = ValidateProperties(input.properties); !s.ok()) return s;
  if (absl::Status s = ValidateRequirements(input.requirements, input.properties); !s.ok()) {
    return s;
  }
  // Blocks are read once, here, and kept on the ticket: a pass plans thousands of tables and
  // could not ask the accounts service about each of them.
  std::set<std::string> avoided;
  for (const std::string& member : members) {
    absl::StatusOr<std::set<std::string>> blocked = BlockedEitherWay(member);
    if (!blocked.ok()) return blocked.status();
    avoided.insert(blocked->begin(), blocked->end());
  }
  std::vector<std::string> avoid(avoided.begin(), avoided.end());  // sorted, each once
  if (input.ranked) {
    if (absl::Status s = CheckFinishRates(caller, members); !s.ok()) return s;
  }
  double rating = 0;
  if (input.ranked) {
    const std::string ladder = deps_.catalog->LadderFor(input.game, game->seat_teams);
    for (const std::string& member : members) {
      absl::StatusOr<double> r = deps_.ratings->Rating(member, ladder);
      if (!r.ok()) return r.status();
      rating += *r;
    }
    rating /= static_cast<double>(members.size());
  }
  const absl::Time now = deps_.clock();
  TicketRow ticket;
  ticket.owner_id = caller;
  ticket.game = input.game;
  ticket.options = game->canonical_options;
  ticket.ranked = input.ranked;
  ticket.player_counts = game->player_counts;
  ticket.party_id = input.party_id;
  ticket.members = members;
  ticket.rating = rating;
  ticket.create_time = now;
  ticket.expire_time = now + options_.ticket_ttl;
  ticket.properties = EncodeProperties(input.properties);
  ticket.requirements = EncodeRequirements(input.requirements);
  ticket.avoid = std::move(avoid);
  ticket.time_control = (*time_control)->name;
  ticket.visibility = *visibility;
  return deps_.store->InsertTicket(ticket);
}

absl::Status MatchmakingService::CheckFinishRates(const std::string& caller,
                                                  const std::vector<std::string>& members) {
  if (options_.ranked_min_finish_percent <= 0 || deps_.records == nullptr) {
    return absl::OkStatus();
  }
  for (const std::string& member : members) {
    absl::StatusOr<PlayerRecord> r = deps_.records->Record(member);
    if (!r.ok()) return r.status();
    const int64_t ended = r->finished + r->resigned + r->timed_out;
    if (ended < options_.ranked_min_games_for_finish_rate) continue;
    // finished / ended < percent / 100, in integers.
    if (r->finished * 100 >= options_.ranked_min_finish_percent * ended) continue;
    return absl::FailedPreconditionError(absl::StrCat(
        "ranked play needs a finish rate of at least ", options_.ranked_min_finish_percent,
        "% (games finished of games ended against people, once ",
        options_.ranked_min_games_for_finish_rate, " have ended); ",
        member == caller ? "you" : absl::StrCat("party member ", member), " finished ", r->finished,
        " of ", ended, " (", r->finished * 100 / ended, "%; ", r->resigned, " resigned, ",
        r->timed_out, " timed out): finish casual games to raise it"));
  }
  return absl::OkStatus();
}

absl::StatusOr<TicketRow> MatchmakingService::GetTicket(const std::string& caller,
                                                        const std::string& ticket_id) {
  if (absl::Status s = ValidateUuid("ticket_id", ticket_id); !s.ok()) return s;
  return deps_.store->GetTicket(ticket_id, caller);
}

absl::StatusOr<TicketRow> MatchmakingService::CancelTicket(const std::string& caller,
                                                           const std::string& ticket_id) {
  if (absl::Status s = ValidateUuid("ticket_id", ticket_id); !s.ok()) return s;
  return deps_.store->CancelTicket(ticket_id, caller, deps_.clock());
}

absl::StatusOr<std::vector<TicketRow>> MatchmakingService::ListMyTickets(const std::string& caller,
                                                                         int page_size) {
  if (absl::Status s = ValidatePageSize(page_size); !s.ok()) return s;
  return deps_.store->ListTickets(caller, deps_.clock() - kListHistory, PageSize(page_size));
}

absl::StatusOr<std::vector<WatchedTicket>> MatchmakingService::WatchTickets(
    const std::vector<TicketWatchQuery>& queries) {
  return deps_.store->WatchTickets(queries, kMaxPageSize);
}

// ---- Parties ------------------------------------------------------------------------------------

absl::StatusOr<PartyRow> MatchmakingService::CreateParty(const std::string& caller, int max_size) {
  if (max_size == 0) max_size = 2;
  if (max_size < 2 || max_size > 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_size: a party has 2 to 4 players, got ", max_size));
  }
  absl::Status last;
  for (int attempt = 0; attempt < kCodeAttempts; ++attempt) {
    absl::StatusOr<PartyRow> party =
        deps_.store->CreateParty(caller, max_size, NewCode(), deps_.clock());
    if (party.ok() || party.status().code() != absl::StatusCode::kAborted) return party;
    last = party.status();
  }
  return last;
}

absl::StatusOr<PartyRow> MatchmakingService::JoinParty(const std::string& caller,
                                                       const std::string& code) {
  if (absl::Status s = ValidateCode("code", code); !s.ok()) return s;
  absl::StatusOr<std::set<std::string>> blocked = BlockedEitherWay(caller);
  if (!blocked.ok()) return blocked.status();
  return deps_.store->JoinParty(code, caller, deps_.clock(), *blocked);
}

absl::StatusOr<std::set<std::string>> MatchmakingService::BlockedEitherWay(
    const std::string& account_id) const {
  if (deps_.blocks == nullptr) return std::set<std::string>();
  absl::StatusOr<std::vector<std::string>> blocked = deps_.blocks->BlockedEitherWay(account_id);
  if (!blocked.ok()) return blocked.status();
  return std::set<std::string>(blocked->begin(), blocked->end());
}

absl::Status MatchmakingService::LeaveParty(const std::string& caller) {
  return deps_.store->LeaveParty(caller, deps_.clock());
}

// ---- Challenges ---------------------------------------------------------------------------------

absl::StatusOr<ChallengeRow> MatchmakingService::Challenge(const std::string& caller,
                                                           const ChallengeInput& input) {
  if (input.invitees.empty() == !input.create_invite_code) {
    return absl::InvalidArgumentError(
        "set exactly one of invitee_account_ids and create_invite_code");
  }
  if (!input.create_invite_code && input.player_count != 0) {
    return absl::InvalidArgumentError(
        "player_count: only with create_invite_code (with invitees the table is you plus them)");
  }
  if (input.invitees.size() > kMaxInvitees) {
    return absl::InvalidArgumentError(absl::StrCat("invitee_account_ids: at most ", kMaxInvitees));
  }
  std::set<std::string> seen;
  for (const std::string& invitee : input.invitees) {
    // Account ids are UUIDs: anything else is a malformed request, not an unknown account.
    if (absl::Status s = ValidateAccountId("invitee_account_ids", invitee); !s.ok()) return s;
    if (!ValidateUuid("invitee_account_ids", invitee).ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "invitee_account_ids: must be an account id (a UUID), got \"", invitee, "\""));
    }
    if (invitee == caller) {
      return absl::InvalidArgumentError("invitee_account_ids: you cannot challenge yourself");
    }
    if (!seen.insert(invitee).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("invitee_account_ids: ", invitee, " is listed twice"));
    }
  }
  std::vector<int> counts;
  if (!input.create_invite_code) {
    counts.push_back(1 + static_cast<int>(input.invitees.size()));
  } else if (input.player_count != 0) {
    counts.push_back(input.player_count);
  }
  absl::StatusOr<GameCatalog::Validated> game =
      deps_.catalog->Validate(input.game, input.options, counts);
  if (!game.ok()) return game.status();
  absl::StatusOr<const TimeControlChoice*> time_control = FindTimeControl(input.time_control);
  if (!time_control.ok()) return time_control.status();
  absl::StatusOr<std::string> visibility = VisibilityName(input.visibility);
  if (!visibility.ok()) return visibility.status();
  if (!input.invitees.empty()) {
    absl::StatusOr<std::map<std::string, std::string>> known =
        deps_.accounts->Lookup(input.invitees);
    if (!known.ok()) return known.status();
    for (const std::string& invitee : input.invitees) {
      if (!known->contains(invitee)) {
        return absl::NotFoundError(
            absl::StrCat("invitee_account_ids: no account ", invitee, " exists"));
      }
    }
    if (absl::Status s = RefuseBlocked(caller, input.invitees); !s.ok()) return s;
  }
  const absl::Time now = deps_.clock();
  ChallengeRow challenge;
  challenge.challenger_id = caller;
  challenge.game = input.game;
  challenge.options = game->canonical_options;
  challenge.ranked = input.ranked;
  challenge.player_count = game->player_counts.front();
  challenge.players.push_back({caller, true});
  for (const std::string& invitee : input.invitees) challenge.players.push_back({invitee, false});
  challenge.create_time = now;
  challenge.expire_time = now + options_.challenge_ttl;
  challenge.time_control = (*time_control)->name;
  challenge.visibility = *visibility;
  absl::Status last;
  for (int attempt = 0; attempt < kCodeAttempts; ++attempt) {
    if (input.create_invite_code) challenge.invite_code = NewCode();
    absl::StatusOr<ChallengeRow> inserted = deps_.store->InsertChallenge(challenge);
    if (inserted.ok() || inserted.status().code() != absl::StatusCode::kAborted) return inserted;
    last = inserted.status();
  }
  return last;
}

absl::StatusOr<ChallengeRow> MatchmakingService::AcceptChallenge(const std::string& caller,
                                                                 const std::string& challenge_id,
                                                                 const std::string& invite_code) {
  if (challenge_id.empty() == invite_code.empty()) {
    return absl::InvalidArgumentError("set exactly one of challenge_id and invite_code");
  }
  if (!challenge_id.empty()) {
    if (absl::Status s = ValidateUuid("challenge_id", challenge_id); !s.ok()) return s;
  } else if (absl::Status s = ValidateCode("invite_code", invite_code); !s.ok()) {
    return s;
  }
  // A code holder joins only a table where nobody blocked them or was blocked by them.
  std::set<std::string> blocked;
  if (!invite_code.empty()) {
    absl::StatusOr<std::set<std::string>> either = BlockedEitherWay(caller);
    if (!either.ok()) return either.status();
    blocked = *std::move(either);
  }
  absl::StatusOr<ChallengeRow> accepted = deps_.store->AcceptChallenge(
      challenge_id, invite_code, caller, deps_.clock(),
      [this, &blocked](const ChallengeRow& c) -> absl::StatusOr<std::vector<int>> {
        for (const ChallengePlayer& p : c.players) {
          if (blocked.contains(p.account_id)) {
            return absl::FailedPreconditionError(
                "you cannot join this challenge: you and one of its players blocked the other");
          }
        }
        absl::StatusOr<std::map<int, std::vector<int>>> teams =
            deps_.catalog->SeatTeamsForPool(c.game, c.options);
        if (!teams.ok()) return teams.status();
        auto it = teams->find(c.player_count);
        if (it == teams->end()) {
          return absl::FailedPreconditionError("the game no longer allows this table size");
        }
        return it->second;
      });
  if (accepted.ok() && accepted->state == ChallengeState::kAccepted) {
    metrics_->CountMatch(accepted->game);
  }
  return accepted;
}

absl::Status MatchmakingService::RefuseBlocked(const std::string& caller,
                                               const std::vector<std::string>& invitees) {
  absl::StatusOr<std::set<std::string>> blocked = BlockedEitherWay(caller);
  if (!blocked.ok()) return blocked.status();
  for (const std::string& invitee : invitees) {
    if (blocked->contains(invitee)) {
      return absl::FailedPreconditionError(
          absl::StrCat("invitee_account_ids: you cannot challenge ", invitee,
                       ": one of you has blocked the other"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<ChallengeRow> MatchmakingService::DeclineChallenge(const std::string& caller,
                                                                  const std::string& challenge_id) {
  if (absl::Status s = ValidateUuid("challenge_id", challenge_id); !s.ok()) return s;
  return deps_.store->DeclineChallenge(challenge_id, caller, deps_.clock());
}

absl::StatusOr<std::vector<ChallengeRow>> MatchmakingService::ListMyChallenges(
    const std::string& caller, int page_size) {
  if (absl::Status s = ValidatePageSize(page_size); !s.ok()) return s;
  return deps_.store->ListChallenges(caller, deps_.clock() - kListHistory, PageSize(page_size));
}

// ---- Matcher ------------------------------------------------------------------------------------

absl::StatusOr<std::vector<PlannedMatch>> MatchmakingService::Plan(
    const PoolKey& key, const std::vector<TicketRow>& tickets, absl::Time now) {
  absl::StatusOr<std::map<int, std::vector<int>>> teams =
      deps_.catalog->SeatTeamsForPool(key.game, key.options);
  if (!teams.ok()) return teams.status();
  Pool pool;
  pool.ranked = key.ranked;
  pool.seat_teams = *std::move(teams);
  pool.tickets.reserve(tickets.size());
  for (const TicketRow& t : tickets) {
    PoolTicket& ticket = pool.tickets.emplace_back(PoolTicket{.players = t.members,
                                                              .rating = t.rating,
                                                              .enqueue_time = t.create_time,
                                                              .player_counts = t.player_counts});
    if (t.properties.empty() && t.requirements.empty()) {
      ticket.avoid = t.avoid;
      continue;
    }
    absl::StatusOr<TicketProperties> properties = ParseProperties(t.properties);
    absl::StatusOr<std::vector<Requirement>> requirements = ParseRequirements(t.requirements);
    if (!properties.ok() || !requirements.ok()) {
      // Never seated with requirements it cannot state: it waits until it expires.
      spdlog::warn("matchmaking: ticket {} left out of the pass: {} {}", t.ticket_id,
                   properties.status().ToString(), requirements.status().ToString());
      ticket.player_counts.clear();
      continue;
    }
    ticket.properties = *std::move(properties);
    ticket.requirements = *std::move(requirements);
    ticket.avoid = t.avoid;
  }
  std::vector<PlannedMatch> planned;
  for (Table& table : MatchPool(pool, now, options_.matcher)) {
    planned.push_back(PlannedMatch{.tickets = std::move(table.tickets),
                                   .seat_accounts = std::move(table.seat_accounts),
                                   .seat_teams = std::move(table.seat_teams),
                                   .rating_spread = table.rating_spread});
  }
  return planned;
}

absl::StatusOr<MatchmakingService::Pruned> MatchmakingService::PruneHistory() {
  const absl::Time before = deps_.clock() - options_.history_retention;
  Pruned total;
  for (int batch = 0; batch < kPruneBatchesPerCall; ++batch) {
    absl::StatusOr<MatchmakingStore::PrunedRows> pruned =
        deps_.store->PruneHistory(before, options_.batch_size);
    if (!pruned.ok()) {
      metrics_->CountPruneFailure();
      return pruned.status();
    }
    total.tickets += pruned->tickets;
    total.challenges += pruned->challenges;
    total.matches += pruned->matches;
    metrics_->CountPruned(*pruned);
    if (std::max({pruned->tickets, pruned->challenges, pruned->matches}) < options_.batch_size) {
      break;
    }
  }
  return total;
}

absl::StatusOr<PassStats> MatchmakingService::RunMatcherPass() {
  PassStats stats;
  const absl::Time now = deps_.clock();
  while (true) {
    absl::StatusOr<std::vector<TicketRow>> expired =
        deps_.store->ExpireDue(now, options_.batch_size);
    if (!expired.ok()) return expired.status();
    stats.tickets_expired += static_cast<int>(expired->size());
    if (static_cast<int>(expired->size()) < options_.batch_size) break;
  }
  metrics_->CountExpired(stats.tickets_expired);
  absl::StatusOr<std::vector<PoolKey>> pools = deps_.store->ListPools(now);
  if (!pools.ok()) return pools.status();
  std::map<std::pair<std::string, bool>, double> waiting;
  std::map<std::pair<std::string, bool>, double> oldest;  // age of the oldest left waiting
  // A pool read and planned; the next pool's is made while this one's matches are claimed (its
  // own connection and thread), so that a pass over many pools does not wait for each read.
  struct Prepared {
    absl::StatusOr<std::vector<TicketRow>> tickets = std::vector<TicketRow>();
    absl::StatusOr<std::vector<PlannedMatch>> planned = std::vector<PlannedMatch>();
    absl::Duration load_time;
    absl::Duration plan_time;
  };
  auto prepare = [this, now](const PoolKey& key) {
    Prepared p;
    const absl::Time t0 = absl::Now();
    p.tickets = deps_.store->LoadPool(key, now);
    const absl::Time t1 = absl::Now();
    p.load_time = t1 - t0;
    if (p.tickets.ok()) p.planned = Plan(key, *p.tickets, now);
    p.plan_time = absl::Now() - t1;
    return p;
  };
  std::future<Prepared> next;
  if (!pools->empty()) next = std::async(std::launch::async, prepare, pools->front());
  for (size_t pool_index = 0; pool_index < pools->size(); ++pool_index) {
    const PoolKey& key = (*pools)[pool_index];
    ++stats.pools;
    Prepared prepared = next.get();
    if (pool_index + 1 < pools->size()) {
      next = std::async(std::launch::async, prepare, (*pools)[pool_index + 1]);
    }
    stats.load_time += prepared.load_time;
    stats.plan_time += prepared.plan_time;
    if (!prepared.tickets.ok()) return prepared.tickets.status();  // `next` is waited for
    const std::vector<TicketRow>* tickets = &*prepared.tickets;
    absl::StatusOr<std::vector<PlannedMatch>>& planned = prepared.planned;
    if (!planned.ok()) {
      spdlog::warn("matchmaking: pool {} / {} skipped: {}", key.game, key.options,
                   planned.status().message());
      continue;
    }
    std::vector<bool> matched(tickets->size(), false);
    for (const PlannedMatch& m : *planned) {
      for (size_t i : m.tickets) matched[i] = true;
    }
    for (size_t i = 0; i < tickets->size(); ++i) {
      if (matched[i]) continue;
      double& age = oldest[{key.game, key.ranked}];
      age = std::max(age, absl::ToDoubleSeconds(now - (*tickets)[i].create_time));
    }
    // Batches of about claim_batch_tickets tickets, each claimed in its own short transaction.
    std::vector<std::vector<PlannedMatch>> batches;
    size_t in_batch = static_cast<size_t>(std::max(1, options_.claim_batch_tickets));
    for (PlannedMatch& m : *planned) {
      if (in_batch >= static_cast<size_t>(std::max(1, options_.claim_batch_tickets))) {
        batches.emplace_back();
        in_batch = 0;
      }
      in_batch += m.tickets.size();
      batches.back().push_back(std::move(m));
    }
    // Replicas working the same pool at once start at different batches, so that each claims
    // its own part of the plan instead of all racing for the first batch; within a replica,
    // claim_parallelism workers take the batches in turn.
    const absl::Time claim_start = absl::Now();
    const size_t first = batches.empty() ? 0 : NextStart() % batches.size();
    std::atomic<size_t> next{0};
    std::mutex mu;
    absl::Status claim_error;
    size_t matched_tickets = 0;
    auto claim_batches = [&] {
      for (size_t k = next++; k < batches.size(); k = next++) {
        const std::vector<PlannedMatch>& batch = batches[(first + k) % batches.size()];
        absl::StatusOr<ClaimResult> claim = deps_.store->ClaimMatches(key, *tickets, batch, now);
        std::lock_guard<std::mutex> lock(mu);
        if (!claim.ok()) {
          if (claim_error.ok()) claim_error = claim.status();
          next = batches.size();  // stop the other workers after their current batch
          return;
        }
        if (claim->skipped) {
          ++stats.batches_skipped;
          continue;
        }
        if (claim->careful) ++stats.batches_careful;
        for (size_t m = 0; m < claim->matches.size(); ++m) {
          const MatchRow& match = claim->matches[m];
          const PlannedMatch& plan = batch[claim->planned_index[m]];
          metrics_->CountMatch(match.game);
          metrics_->ObserveSpread(match.rating_spread);
          for (size_t i : plan.tickets) {
            metrics_->ObserveWait(match.game,
                                  absl::ToDoubleSeconds(now - (*tickets)[i].create_time));
          }
          matched_tickets += plan.tickets.size();
        }
        stats.matches += static_cast<int>(claim->matches.size());
      }
    };
    const size_t workers =
        std::min(batches.size(), static_cast<size_t>(std::max(1, options_.claim_parallelism)));
    std::vector<std::thread> threads;
    for (size_t w = 1; w < workers; ++w) threads.emplace_back(claim_batches);
    claim_batches();
    for (std::thread& t : threads) t.join();
    stats.claim_time += absl::Now() - claim_start;
    if (!claim_error.ok()) return claim_error;
    stats.tickets_matched += static_cast<int>(matched_tickets);
    waiting[{key.game, key.ranked}] += static_cast<double>(tickets->size() - matched_tickets);
  }
  // Pools another replica held this pass keep their last value here; those that emptied drop.
  for (const auto& [key, count] : last_waiting_) {
    if (!waiting.contains(key) &&
        std::find_if(pools->begin(), pools->end(), [&pool = key](const PoolKey& p) {
          return p.game == pool.first && p.ranked == pool.second;
        }) != pools->end()) {
      waiting[key] = count;
    }
  }
  last_waiting_ = waiting;
  metrics_->SetWaiting(waiting);
  metrics_->SetOldest(oldest);
  return stats;
}

absl::StatusOr<int> MatchmakingService::DeliverGames() {
  const absl::Time now = deps_.clock();
  absl::StatusOr<std::vector<MatchRow>> claimed =
      deps_.store->ClaimPendingMatches(now, options_.create_lease, options_.batch_size);
  if (!claimed.ok()) return claimed.status();
  // Each match is its own CreateGame round trip (plus an accounts lookup); a burst of matches
  // (every pair of a busy queue matched in one pass) delivered one after another would leave the
  // last ones waiting many seconds. Up to `delivery_parallelism` run at once, and a failure never
  // holds back the rest of the batch (it would otherwise sit out the whole claim lease).
  std::atomic<size_t> next{0};
  std::atomic<int> created{0};
  std::mutex mu;
  absl::Status first_error;
  auto deliver = [&] {
    for (size_t i = next++; i < claimed->size(); i = next++) {
      const MatchRow& match = (*claimed)[i];
      absl::Status status;
      absl::StatusOr<std::string> game_id = deps_.games->CreateGame(match);
      if (game_id.ok()) {
        status = deps_.store->MarkGameCreated(match.match_id, *game_id, deps_.clock());
        if (status.ok()) {
          ++created;
          if (game_created_) game_created_(match.seat_accounts);
          continue;
        }
        // The game exists; the next attempt (after the lease) finds it again (idempotent).
        spdlog::warn("matchmaking: recording game {} of match {} failed: {}", *game_id,
                     match.match_id, status.ToString());
      } else {
        const absl::Duration backoff =
            std::min(options_.max_create_backoff,
                     absl::Seconds(std::pow(2.0, std::min(match.attempts, 16))));
        spdlog::warn("matchmaking: creating the game of match {} failed (attempt {}): {}",
                     match.match_id, match.attempts, game_id.status().ToString());
        status = deps_.store->RecordCreateFailure(match.match_id, game_id.status().ToString(),
                                                  deps_.clock() + backoff);
        if (!status.ok()) {
          spdlog::warn("matchmaking: recording the failure of match {} failed: {}", match.match_id,
                       status.ToString());
        }
      }
      if (!status.ok()) {
        std::lock_guard<std::mutex> lock(mu);
        if (first_error.ok()) first_error = status;
      }
    }
  };
  const size_t workers =
      std::min(claimed->size(), static_cast<size_t>(std::max(1, options_.delivery_parallelism)));
  std::vector<std::thread> threads;
  for (size_t w = 1; w < workers; ++w) threads.emplace_back(deliver);
  deliver();
  for (std::thread& t : threads) t.join();
  if (!first_error.ok()) return first_error;
  return created.load();
}

}  // namespace parlor::matchmaking
