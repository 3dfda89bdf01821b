#include "services/matchmaking/domain/matcher.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>

namespace parlor::matchmaking {
namespace {

// The first position >= p not yet removed (n when none), with path compression.
class NextFree {
 public:
  explicit NextFree(size_t n) : parent_(n + 1) { std::iota(parent_.begin(), parent_.end(), 0); }
  size_t Find(size_t p) {
    size_t root = p;
    while (parent_[root] != root) root = parent_[root];
    while (parent_[p] != root) p = std::exchange(parent_[p], root);
    return root;
  }
  void Remove(size_t p) { parent_[p] = p + 1; }

 private:
  std::vector<size_t> parent_;
};

// The last position <= p not yet removed (-1 when none). Position p is stored at p + 1.
class PrevFree {
 public:
  explicit PrevFree(size_t n) : parent_(n + 1) { std::iota(parent_.begin(), parent_.end(), 0); }
  long long Find(long long p) {
    size_t root = static_cast<size_t>(p + 1);
    while (parent_[root] != root) root = parent_[root];
    size_t x = static_cast<size_t>(p + 1);
    while (parent_[x] != root) x = std::exchange(parent_[x], root);
    return static_cast<long long>(root) - 1;
  }
  void Remove(long long p) { parent_[static_cast<size_t>(p + 1)] = static_cast<size_t>(p); }

 private:
  std::vector<size_t> parent_;
};

// Seats of one table size grouped by team.
struct TeamShape {
  std::vector<int> team_ids;            // distinct teams, in order of first seat
  std::vector<int> capacity;            // seats per team (same order)
  std::vector<std::vector<int>> seats;  // the seats of each team, ascending
};

TeamShape ShapeOf(const std::vector<int>& seat_teams) {
  TeamShape shape;
  for (size_t seat = 0; seat < seat_teams.size(); ++seat) {
    auto it = std::find(shape.team_ids.begin(), shape.team_ids.end(), seat_teams[seat]);
    size_t t = static_cast<size_t>(it - shape.team_ids.begin());
    if (it == shape.team_ids.end()) {
      shape.team_ids.push_back(seat_teams[seat]);
      shape.capacity.push_back(0);
      shape.seats.emplace_back();
    }
    shape.capacity[t]++;
    shape.seats[t].push_back(static_cast<int>(seat));
  }
  return shape;
}

// The tickets chosen for one table so far, and whether another one still fits the teams.
class Filling {
 public:
  Filling(const Pool& pool, const TeamShape& shape, int size)
      : pool_(pool), free_for_parties_(shape.capacity), size_(size) {}

  bool TryAdd(size_t ticket) {
    const PoolTicket& t = pool_.tickets[ticket];
    const int players = static_cast<int>(t.players.size());
    if (used_ + players > size_) return false;
    for (const std::string& player : t.players) {
      if (std::find(players_.begin(), players_.end(), player) != players_.end()) return false;
    }
    if (players > 1) {
      // A party takes seats of one team only.
      size_t team = 0;
      while (team < free_for_parties_.size() && free_for_parties_[team] < players) ++team;
      if (team == free_for_parties_.size()) return false;
      free_for_parties_[team] -= players;
      parties_.push_back({ticket, team});
    } else {
      solos_.push_back(ticket);
    }
    used_ += players;
    tickets_.push_back(ticket);
    players_.insert(players_.end(), t.players.begin(), t.players.end());
    return true;
  }

  bool full() const { return used_ == size_; }
  const std::vector<size_t>& tickets() const { return tickets_; }
  const std::vector<std::pair<size_t, size_t>>& parties() const { return parties_; }
  const std::vector<size_t>& solos() const { return solos_; }

 private:
  const Pool& pool_;
  std::vector<int> free_for_parties_;
  int size_;
  int used_ = 0;
  std::vector<size_t> tickets_;
  std::vector<std::string> players_;
  std::vector<std::pair<size_t, size_t>> parties_;  // ticket, team index
  std::vector<size_t> solos_;
};

// Seats the chosen tickets: parties in their team, solo players spread to even out team rating
// totals (strongest first, each to the weakest team with a free seat).
Table Seat(const Pool& pool, const TeamShape& shape, const std::vector<int>& seat_teams,
           const Filling& filling) {
  const size_t teams = shape.team_ids.size();
  std::vector<std::vector<size_t>> members(teams);  // ticket per player, per team
  std::vector<std::vector<std::string>> accounts(teams);
  std::vector<double> total(teams, 0);
  for (const auto& [ticket, team] : filling.parties()) {
    for (const std::string& player : pool.tickets[ticket].players) {
      members[team].push_back(ticket);
      accounts[team].push_back(player);
      total[team] += pool.tickets[ticket].rating;
    }
  }
  std::vector<size_t> solos = filling.solos();
  const bool one_seat_teams =
      std::all_of(shape.capacity.begin(), shape.capacity.end(), [](int c) { return c == 1; });
  if (!one_seat_teams) {
    std::stable_sort(solos.begin(), solos.end(), [&](size_t a, size_t b) {
      return pool.tickets[a].rating > pool.tickets[b].rating;
    });
  }
  for (size_t ticket : solos) {
    size_t best = teams;
    for (size_t t = 0; t < teams; ++t) {
      if (static_cast<int>(members[t].size()) >= shape.capacity[t]) continue;
      // The team with the lowest rating total so far.
      if (best == teams) {
        best = t;
      } else if (!one_seat_teams && total[t] < total[best]) {
        best = t;
      }
    }
    members[best].push_back(ticket);
    accounts[best].push_back(pool.tickets[ticket].players[0]);
    total[best] += pool.tickets[ticket].rating;
  }
  Table table;
  table.tickets = filling.tickets();
  table.seat_accounts.resize(seat_teams.size());
  table.seat_ratings.resize(seat_teams.size());
  table.seat_teams = seat_teams;
  for (size_t t = 0; t < teams; ++t) {
    for (size_t k = 0; k < shape.seats[t].size(); ++k) {
      const size_t seat = static_cast<size_t>(shape.seats[t][k]);
      table.seat_accounts[seat] = accounts[t][k];
      table.seat_ratings[seat] = pool.tickets[members[t][k]].rating;
    }
  }
  double low = std::numeric_limits<double>::infinity();
  double high = -low;
  for (size_t ticket : table.tickets) {
    low = std::min(low, pool.tickets[ticket].rating);
    high = std::max(high, pool.tickets[ticket].rating);
  }
  table.rating_spread = high - low;
  return table;
}

bool Accepts(const PoolTicket& ticket, int size) {
  return std::binary_search(ticket.player_counts.begin(), ticket.player_counts.end(), size);
}

// Whether `ticket`'s avoid list names a player of `other`.
bool Avoids(const PoolTicket& ticket, const PoolTicket& other) {
  if (ticket.avoid.empty()) return false;
  return std::any_of(other.players.begin(), other.players.end(), [&](const std::string& p) {
    return std::binary_search(ticket.avoid.begin(), ticket.avoid.end(), p);
  });
}

}  // namespace

bool Compatible(const PoolTicket& a, const PoolTicket& b) {
  return !Avoids(a, b) && !Avoids(b, a) && Satisfies(a.requirements, a.properties, b.properties) &&
         Satisfies(b.requirements, b.properties, a.properties);
}

double RatingWindow(const MatcherConfig& config, absl::Duration waited) {
  if (waited >= config.unbounded_after) return std::numeric_limits<double>::infinity();
  const double minutes = std::max(0.0, absl::ToDoubleMinutes(waited));
  return config.initial_window + config.widen_per_minute * minutes;
}

std::vector<Table> MatchPool(const Pool& pool, absl::Time now, const MatcherConfig& config) {
  const size_t n = pool.tickets.size();
  std::vector<Table> tables;
  if (n < 1 || pool.seat_teams.empty()) return tables;

  // Oldest first (ties by input order).
  std::vector<size_t> by_time(n);
  std::iota(by_time.begin(), by_time.end(), 0);
  std::stable_sort(by_time.begin(), by_time.end(), [&](size_t a, size_t b) {
    return pool.tickets[a].enqueue_time < pool.tickets[b].enqueue_time;
  });
  std::vector<size_t> time_pos(n);
  for (size_t p = 0; p < n; ++p) time_pos[by_time[p]] = p;
  NextFree time_free(n);

  std::vector<double> window(n);
  for (size_t i = 0; i < n; ++i) {
    window[i] = RatingWindow(config, now - pool.tickets[i].enqueue_time);
  }
  std::vector<size_t> by_rating;
  std::vector<size_t> rating_pos;
  if (pool.ranked) {
    by_rating = by_time;
    std::stable_sort(by_rating.begin(), by_rating.end(), [&](size_t a, size_t b) {
      return pool.tickets[a].rating < pool.tickets[b].rating;
    });
    rating_pos.resize(n);
    for (size_t p = 0; p < n; ++p) rating_pos[by_rating[p]] = p;
  }
  NextFree rating_right(pool.ranked ? n : 0);
  PrevFree rating_left(pool.ranked ? n : 0);

  std::map<int, TeamShape> shapes;
  for (const auto& [size, teams] : pool.seat_teams) shapes.emplace(size, ShapeOf(teams));

  auto remove = [&](size_t ticket) {
    time_free.Remove(time_pos[ticket]);
    if (pool.ranked) {
      rating_right.Remove(rating_pos[ticket]);
      rating_left.Remove(static_cast<long long>(rating_pos[ticket]));
    }
  };

  for (size_t p = time_free.Find(0); p < n; p = time_free.Find(p + 1)) {
    const size_t anchor = by_time[p];
    const PoolTicket& a = pool.tickets[anchor];
    if (a.player_counts.empty()) continue;
    std::vector<int> sizes;
    if (now - a.enqueue_time >= config.full_table_wait) {
      sizes.assign(a.player_counts.rbegin(), a.player_counts.rend());
    } else {
      sizes.push_back(a.player_counts.back());
    }
    for (int size : sizes) {
      auto shape_it = shapes.find(size);
      if (shape_it == shapes.end()) continue;
      Filling filling(pool, shape_it->second, size);
      if (!filling.TryAdd(anchor)) continue;
      int scanned = 0;
      auto consider = [&](size_t c) {
        ++scanned;
        const PoolTicket& t = pool.tickets[c];
        if (!Accepts(t, size)) return;
        for (size_t seated : filling.tickets()) {
          if (!Compatible(t, pool.tickets[seated])) return;
        }
        if (pool.ranked) {
          // Every pair at the table within both players' windows, not only each candidate and
          // the anchor: two candidates on either side of the anchor could be twice a window
          // apart.
          for (size_t seated : filling.tickets()) {
            const double gap = std::abs(t.rating - pool.tickets[seated].rating);
            if (gap > window[c] || gap > window[seated]) return;
          }
        }
        filling.TryAdd(c);
      };
      if (pool.ranked) {
        const size_t ap = rating_pos[anchor];
        long long left = rating_left.Find(static_cast<long long>(ap) - 1);
        size_t right = rating_right.Find(ap + 1);
        while (!filling.full() && scanned < config.max_candidates_scanned) {
          if (left < 0 && right >= n) break;
          double dl = std::numeric_limits<double>::infinity();
          double dr = dl;
          if (left >= 0) dl = a.rating - pool.tickets[by_rating[static_cast<size_t>(left)]].rating;
          if (right < n) dr = pool.tickets[by_rating[right]].rating - a.rating;
          if (dl > window[anchor] && dr > window[anchor]) break;
          if (left >= 0 && dl <= dr) {
            consider(by_rating[static_cast<size_t>(left)]);
            left = rating_left.Find(left - 1);
          } else {
            consider(by_rating[right]);
            right = rating_right.Find(right + 1);
          }
        }
      } else {
        for (size_t q = time_free.Find(p + 1);
             q < n && !filling.full() && scanned < config.max_candidates_scanned;
             q = time_free.Find(q + 1)) {
          consider(by_time[q]);
        }
      }
      if (!filling.full()) continue;
      tables.push_back(Seat(pool, shape_it->second, pool.seat_teams.at(size), filling));
      for (size_t ticket : filling.tickets()) remove(ticket);
      break;
    }
  }
  return tables;
}

}  // namespace parlor::matchmaking
