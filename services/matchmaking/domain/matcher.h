#ifndef PARLOR_SERVICES_MATCHMAKING_DOMAIN_MATCHER_H_
#define PARLOR_SERVICES_MATCHMAKING_DOMAIN_MATCHER_H_

#include <map>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "services/matchmaking/domain/properties.h"

namespace parlor::matchmaking {

// How the matcher trades match quality for waiting time.
struct MatcherConfig {
  // Ranked: a ticket accepts opponents within ±(initial_window + widen_per_minute × minutes
  // waited) rating points of its own rating; after unbounded_after it accepts any rating.
  double initial_window = 100;
  double widen_per_minute = 50;
  absl::Duration unbounded_after = absl::Minutes(10);
  // A ticket accepting several table sizes is first offered only its largest; once it has waited
  // full_table_wait, the largest table that can be filled now (and that every seated ticket
  // accepts) is formed instead of waiting for a full one. Zero: always the largest fillable.
  absl::Duration full_table_wait = absl::Minutes(1);
  // Bounds the work per ticket per pass (candidates looked at for one table size).
  int max_candidates_scanned = 256;
};

// One waiting ticket of a pool, as the matcher sees it.
struct PoolTicket {
  std::vector<std::string> players;  // one account, or a party (seated as one team)
  double rating = 0;                 // the ticket's rating (a party's mean)
  absl::Time enqueue_time;
  std::vector<int> player_counts;  // table sizes accepted, ascending
  // What the ticket says about its players, and requires of every other ticket at its table.
  TicketProperties properties = {};
  std::vector<Requirement> requirements = {};
  // Accounts its players blocked or were blocked by, sorted: never at one table with them.
  std::vector<std::string> avoid = {};
};

// Whether two tickets may sit at one table: each one's requirements accept the other's
// properties, and neither has a player the other's avoid list names.
bool Compatible(const PoolTicket& a, const PoolTicket& b);

// A pool: tickets sharing game, options and mode.
struct Pool {
  bool ranked = false;
  // For each table size the game allows with the pool's options: the team of each seat (seat
  // order). A game without teams has one team per seat (0, 1, 2, ...).
  std::map<int, std::vector<int>> seat_teams;
  std::vector<PoolTicket> tickets;
};

// One table formed by the matcher.
struct Table {
  std::vector<size_t> tickets;             // indices into Pool::tickets; [0] is the anchor
  std::vector<std::string> seat_accounts;  // seat order
  std::vector<int> seat_teams;             // team of each seat
  std::vector<double> seat_ratings;        // rating of each seat's ticket
  double rating_spread = 0;                // max − min ticket rating
};

// The rating window (half-width) of a ticket that has waited `waited`; +infinity once unbounded.
double RatingWindow(const MatcherConfig& config, absl::Duration waited);

// One matching pass over a pool at time `now`. Pure: no I/O, deterministic for its inputs.
//
// Tickets are served oldest first: each unmatched ticket in turn anchors a table, for the largest
// table size it accepts (all sizes once it has waited full_table_wait), filled with the
// candidates nearest in rating (ranked) or oldest (casual) that accept that size, share no player
// with the table, and fit the game's teams; ranked, every pair of tickets at the table is within
// both tickets' rating windows (so a table's rating spread never exceeds its narrowest window),
// which keeps 3-4 seat tables from forming around an anchor with players on either side. Every
// pair of tickets at a table is Compatible (requirements both ways, no blocks). A party
// ticket occupies seats of one team, never split. Solo players are then spread over the teams so
// that team rating totals are as even as a greedy assignment makes them. Every ticket is in at
// most one table.
std::vector<Table> MatchPool(const Pool& pool, absl::Time now, const MatcherConfig& config);

}  // namespace parlor::matchmaking

#endif  // PARLOR_SERVICES_MATCHMAKING_DOMAIN_MATCHER_H_
