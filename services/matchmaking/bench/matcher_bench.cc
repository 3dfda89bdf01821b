// matchmaking_bench: one matcher pass over many waiting tickets, timed.
//
//   parlor_matchmaking_bench [--tickets=100000] [--pools=20] [--passes=5] [--seed=1]
//
// Builds `tickets` waiting tickets spread over `pools` pools (half ranked with ratings drawn
// around 1500, half casual; 2-player, 3-4 player and 2v2-team pools with parties), with
// enqueue times spread over the last 15 minutes, then runs MatchPool over every pool `passes`
// times (each pass on fresh copies) and prints the pass time (min/p50/max) and the matches per
// second formed. This is the matcher alone; the real pass (reading, claiming and writing the
// matches in PostgreSQL) is timed by parlor-matchmaking-pass-bench.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "services/matchmaking/domain/matcher.h"

namespace {

using parlor::matchmaking::MatcherConfig;
using parlor::matchmaking::MatchPool;
using parlor::matchmaking::Pool;
using parlor::matchmaking::PoolTicket;

long Flag(int argc, char** argv, const char* name, long fallback) {
  const std::string prefix = absl::StrCat("--", name, "=");
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], prefix.c_str(), prefix.size()) == 0) {
      return std::strtol(argv[i] + prefix.size(), nullptr, 10);
    }
  }
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  const long tickets = Flag(argc, argv, "tickets", 100000);
  const long pools_count = Flag(argc, argv, "pools", 20);
  const long passes = Flag(argc, argv, "passes", 5);
  const long seed = Flag(argc, argv, "seed", 1);
  if (tickets < 1 || pools_count < 1 || passes < 1) {
    std::fprintf(stderr, "--tickets, --pools and --passes must be positive\n");
    return 2;
  }
  std::mt19937_64 rng(static_cast<uint64_t>(seed));
  std::normal_distribution<double> rating(1500, 300);
  std::uniform_int_distribution<int> age_seconds(0, 15 * 60);
  const absl::Time now = absl::FromUnixSeconds(1'800'000'000);

  std::vector<Pool> pools(static_cast<size_t>(pools_count));
  for (size_t p = 0; p < pools.size(); ++p) {
    Pool& pool = pools[p];
    pool.ranked = p % 2 == 0;
    switch (p % 3) {
      case 0:
        pool.seat_teams[2] = {0, 1};
        break;
      case 1:
        pool.seat_teams = {{2, {0, 1}}, {3, {0, 1, 2}}, {4, {0, 1, 2, 3}}};
        break;
      default:
        pool.seat_teams[4] = {0, 0, 1, 1};
        break;
    }
  }
  for (long i = 0; i < tickets; ++i) {
    Pool& pool = pools[static_cast<size_t>(i % pools_count)];
    PoolTicket t;
    t.players.push_back(absl::StrCat("p", i));
    const int kind = static_cast<int>((i / pools_count) % 10);
    if (pool.seat_teams.count(4) && pool.seat_teams.at(4)[1] == 0 && kind < 3) {
      t.players.push_back(absl::StrCat("q", i));  // a party of two in the doubles pools
    }
    t.rating = rating(rng);
    t.enqueue_time = now - absl::Seconds(age_seconds(rng));
    if (pool.seat_teams.size() == 3) {
      t.player_counts = kind < 5 ? std::vector<int>{2, 3, 4} : std::vector<int>{3, 4};
    } else {
      t.player_counts = {pool.seat_teams.begin()->first};
    }
    pool.tickets.push_back(std::move(t));
  }

  MatcherConfig config;
  std::vector<double> seconds;
  size_t matches = 0;
  size_t seated = 0;
  for (long pass = 0; pass < passes; ++pass) {
    matches = 0;
    seated = 0;
    const auto start = std::chrono::steady_clock::now();
    for (const Pool& pool : pools) {
      for (const auto& table : MatchPool(pool, now, config)) {
        ++matches;
        seated += table.tickets.size();
      }
    }
    seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(seconds.begin(), seconds.end());
  const double p50 = seconds[seconds.size() / 2];
  std::printf("matcher pass: %ld tickets in %ld pools, %ld passes\n", tickets, pools_count, passes);
  std::printf("pass time: min %.1f ms  p50 %.1f ms  max %.1f ms\n", seconds.front() * 1e3,
              p50 * 1e3, seconds.back() * 1e3);
  std::printf("matches per pass: %zu (%zu tickets seated, %zu left waiting)\n", matches, seated,
              static_cast<size_t>(tickets) - seated);
  std::printf("matches per second (p50 pass): %.0f\n", static_cast<double>(matches) / p50);
  std::printf(
      "(the in-memory matcher only, no PostgreSQL: the pass targets are measured by "
      "parlor-matchmaking-pass-bench)\n");
  return 0;
}
