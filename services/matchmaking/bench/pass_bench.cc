// parlor-matchmaking-pass-bench: the real matcher pass (MatchmakingService::RunMatcherPass, its
// store and SQL) over many waiting tickets on a real PostgreSQL, timed, with players enqueueing
// and cancelling while it runs.
//
//   bash tests/pg/pg_test_server.sh start /tmp/mm-bench-pg durable
//   B=build/services/matchmaking/parlor-matchmaking-pass-bench
//   $B --db_url="$(cat /tmp/mm-bench-pg/conninfo)" --tickets=100000 --pools=1
//   $B --db_url="$(cat /tmp/mm-bench-pg/conninfo)" --tickets=1000000 --pools=20
//   bash tests/pg/pg_test_server.sh stop /tmp/mm-bench-pg
//
// It creates (and finally drops) its own database on that server, applies the matchmaking
// migrations, and bulk-loads --tickets waiting solo tickets over --pools pools (pool 0: ranked
// pico; then casual pico, and ranked/casual KA'DICE! pools of 3-4 seats, half of their tickets
// also accepting 2) with ratings drawn around 1500 (sd 300) and enqueue times spread over the
// last 15 minutes. Then --replicas matchmaking replicas (each its own connection pool) run one
// matcher pass each, all at once, while --clients players keep calling Enqueue (a new ticket in
// pool 0), CancelTicket on that ticket, and CancelTicket on a random loaded ticket (the ones the
// pass is matching), one call every --probe_interval_ms each. It prints the pass's wall time,
// what it matched, the latency of those calls during the pass, checks that no ticket and no
// player was seated twice, and compares with the targets: a pass over 100,000 tickets in one
// pool <= 2 s, over 1,000,000 in 20 pools <= 20 s, Enqueue/CancelTicket p99 <= 50 ms.
//
// Beside the wall time it prints the CPU the pass cost (the PostgreSQL server's processes, when
// the server runs on this machine, and its own) and the WAL written meanwhile, figures a machine
// busy with other work blurs less.
// --claim=lock_first runs the claim as it was before 2026-11-29 (lock the batch's rows, then seat
// them) to compare with the one-statement claim on the same server.
//
// The calls go through the domain (MatchmakingService, as the gRPC handlers call it), not the
// gRPC transport: what is measured is the database work and its contention with the pass.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "engine/games/all_games.h"
#include "pqxx/pqxx"
#include "services/common/core/flags.h"
#include "services/common/core/logging.h"
#include "services/common/db/migrations.h"
#include "services/common/db/pool.h"
#include "services/matchmaking/domain/matchmaking_service.h"
#include "services/matchmaking/store/pg_matchmaking_store.h"

namespace parlor::matchmaking {
namespace {

using SteadyClock = std::chrono::steady_clock;

double Ms(SteadyClock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

struct PoolSpec {
  std::string game;
  std::map<std::string, std::string> options;
  bool ranked = false;
  std::vector<int> counts;
};

// Pool 0 is ranked pico; the rest alternate casual/ranked over pico and KA'DICE! settings.
PoolSpec PoolAt(int p) {
  if (p == 0) return {"pico", {{"rounds", "2"}}, true, {2}};
  if (p < 6)
    return {"pico", {{"rounds", p / 2 == 0 ? "2" : p / 2 == 1 ? "4" : "6"}}, p % 2 == 0, {2}};
  return {"kadice", {{"max_rounds", absl::StrCat(30 + 10 * (p / 2))}}, p % 2 == 0, {2, 3, 4}};
}

struct Latencies {
  std::mutex mu;
  std::vector<double> enqueue, cancel_own, cancel_loaded;
  int errors = 0;
  std::string first_error;
};

void PrintLatency(const char* what, std::vector<double> ms) {
  if (ms.empty()) {
    std::printf("  %-34s no calls during the pass\n", what);
    return;
  }
  std::sort(ms.begin(), ms.end());
  auto at = [&](double q) {
    return ms[std::min(ms.size() - 1, static_cast<size_t>(q * ms.size()))];
  };
  std::printf("  %-34s p50 %7.1f ms  p99 %7.1f ms  max %7.1f ms  (n=%zu)\n", what, at(0.5),
              at(0.99), ms.back(), ms.size());
}

double P99(std::vector<double> ms) {
  if (ms.empty()) return 0;
  std::sort(ms.begin(), ms.end());
  return ms[std::min(ms.size() - 1, static_cast<size_t>(0.99 * ms.size()))];
}

// The machine's 1/5/15-minute load averages: the figures are only comparable at a similar load.
std::string LoadAverage() {
  std::FILE* f = std::fopen("/proc/loadavg", "r");
  if (f == nullptr) return "unknown";
  double one = 0, five = 0, fifteen = 0;
  const int fields = std::fscanf(f, "%lf %lf %lf", &one, &five, &fifteen);
  std::fclose(f);
  if (fields != 3) return "unknown";
  return absl::StrFormat("%.2f %.2f %.2f", one, five, fifteen);
}

// CPU seconds used so far by the PostgreSQL server whose postmaster is `postmaster` (it and its
// live children), from /proc: on a shared machine the CPU a pass costs is steadier than its wall
// time. Processes that exit meanwhile are not counted (the pass's connections stay open).
double ServerCpuSeconds(long postmaster) {
  double ticks = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "stat");
    std::string stat;
    if (!std::getline(in, stat)) continue;
    const size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    // Fields after the command: state is field 3, the parent 4, utime and stime 14 and 15.
    std::istringstream rest(stat.substr(close + 2));
    std::string field;
    long parent = 0;
    double utime = 0, stime = 0;
    for (int f = 3; f <= 15 && rest >> field; ++f) {
      if (f == 4) parent = std::strtol(field.c_str(), nullptr, 10);
      if (f == 14) utime = std::strtod(field.c_str(), nullptr);
      if (f == 15) stime = std::strtod(field.c_str(), nullptr);
    }
    if (parent == postmaster || std::strtol(name.c_str(), nullptr, 10) == postmaster) {
      ticks += utime + stime;
    }
  }
  return ticks / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

// The postmaster of the server behind `url` (the parent of a backend), 0 if not on this machine.
long Postmaster(const std::string& url) {
  pqxx::connection c(url);
  pqxx::nontransaction txn(c);
  const std::string backend = txn.exec1("SELECT pg_backend_pid()")[0].as<std::string>();
  std::ifstream in("/proc/" + backend + "/stat");
  std::string stat;
  if (!std::getline(in, stat) || stat.rfind(')') == std::string::npos) return 0;
  std::istringstream rest(stat.substr(stat.rfind(')') + 2));
  std::string state, parent;
  rest >> state >> parent;
  return std::strtol(parent.c_str(), nullptr, 10);
}

double SelfCpuSeconds() {
  struct rusage usage {};
  ::getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

int64_t Scalar(const std::string& url, const std::string& query) {
  pqxx::connection c(url);
  pqxx::nontransaction txn(c);
  return txn.exec1(query)[0].as<int64_t>();
}

int Run(int argc, char** argv) {
  std::string server_url;
  int tickets = 100000;
  int pools = 1;
  int replicas = 1;
  int clients = 2;
  int probe_interval_ms = 10;
  int seed = 1;
  // A "before" binary built from an older commit is run against that commit's migrations (a
  // copy of its migrations/matchmaking), so that before and after run on one server.
  std::string migrations = PARLOR_SOURCE_DIR "/migrations/matchmaking";
  MatchmakingOptions pass_options;
  std::string claim = "one_statement";
  Flags flags("parlor-matchmaking-pass-bench");
  flags.String("db_url", &server_url,
               "libpq connection string of a PostgreSQL server (a database is created on it and "
               "dropped at the end)",
               /*required=*/true);
  flags.String("migrations", &migrations, "directory of the matchmaking migrations to apply");
  flags.Int("tickets", &tickets, "waiting tickets to load", {.min = 2, .max = 10000000});
  flags.Int("pools", &pools, "pools to spread them over", {.min = 1, .max = 100});
  flags.Int("replicas", &replicas, "replicas running a pass at the same time",
            {.min = 1, .max = 8});
  flags.Int("clients", &clients, "players calling Enqueue/CancelTicket during the pass",
            {.min = 0, .max = 64});
  flags.Int("probe_interval_ms", &probe_interval_ms, "pause between one player's calls",
            {.min = 0, .max = 10000});
  flags.Int("seed", &seed, "seed of the loaded ratings and ages", {.min = 0, .max = 1000000});
  flags.Int("claim_batch_tickets", &pass_options.claim_batch_tickets,
            "tickets per claim transaction (the service's default unless set)",
            {.min = 2, .max = 100000});
  flags.Int("claim_parallelism", &pass_options.claim_parallelism,
            "claim transactions of one pool at once per replica (the service's default unless set)",
            {.min = 1, .max = 16});
  flags.String("claim", &claim,
               "one_statement (the service's claim) or lock_first (the claim before 2026-11-29: "
               "lock the batch's rows, then seat them)");
  if (absl::Status s = flags.Parse(argc, argv); !s.ok()) {
    std::fprintf(stderr, "%s\n", std::string(s.message()).c_str());
    return 2;
  }
  if (claim != "one_statement" && claim != "lock_first") {
    std::fprintf(stderr, "--claim must be one_statement or lock_first\n");
    return 2;
  }
  (void)InitLogging("matchmaking-pass-bench", "text", "warn");

  const std::string db_name = absl::StrFormat("parlor_mm_pass_bench_%d", ::getpid());
  {
    pqxx::connection c(server_url);
    pqxx::nontransaction txn(c);
    txn.exec0("CREATE DATABASE " + db_name);
  }
  const std::string url = absl::StrCat(server_url, " dbname=", db_name);
  int exit_code = 0;
  {
    absl::StatusOr<MigrationResult> migrated =
        ApplyMigrations(url, MigrationSet{.schema = "matchmaking", .directory = migrations});
    if (!migrated.ok()) {
      std::fprintf(stderr, "migrations: %s\n", migrated.status().ToString().c_str());
      exit_code = 1;
    }
    engine::Registry registry = engine::AllGames();
    GameCatalog catalog(&registry);
    std::vector<PoolSpec> specs;
    std::vector<std::string> canonical;
    for (int p = 0; exit_code == 0 && p < pools; ++p) {
      specs.push_back(PoolAt(p));
      absl::StatusOr<GameCatalog::Validated> v =
          catalog.Validate(specs.back().game, specs.back().options, specs.back().counts);
      if (!v.ok()) {
        std::fprintf(stderr, "pool %d: %s\n", p, v.status().ToString().c_str());
        exit_code = 1;
        break;
      }
      canonical.push_back(v->canonical_options);
    }
    if (exit_code == 0) {
      // Bulk load: ticket i goes to pool i % pools.
      const auto load_start = SteadyClock::now();
      pqxx::connection c(url);
      pqxx::work txn(c);
      txn.exec_params("SELECT setseed($1)", (seed % 1000) / 1000.0);
      for (int p = 0; p < pools; ++p) {
        const bool multi = specs[p].counts.size() > 1;
        txn.exec_params(
            "INSERT INTO matchmaking.tickets (owner_id, game, options, ranked, player_counts, "
            "members, rating, state, create_time, expire_time, update_time) "
            "SELECT 'bench-' || i, $1, $2, $3, CASE WHEN $5 AND i % 2 = 0 THEN '{3,4}'::int[] "
            "WHEN $5 THEN '{2,3,4}'::int[] ELSE '{2}'::int[] END, ARRAY['bench-' || i], "
            "CASE WHEN $3 THEN 1500 + 300 * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()) "
            "ELSE 0 END, 'waiting', t, t + interval '1 day', t "
            "FROM (SELECT i, now() - random() * interval '15 minutes' AS t "
            "FROM generate_series($4::int, $6::int - 1, $7::int) i) s",
            specs[p].game, canonical[p], specs[p].ranked, p, multi, tickets, pools);
      }
      txn.exec0(
          "INSERT INTO matchmaking.ticket_players (ticket_id, account_id, game, ranked, waiting) "
          "SELECT ticket_id, owner_id, game, ranked, true FROM matchmaking.tickets");
      txn.commit();
      pqxx::nontransaction n(c);
      n.exec0("VACUUM ANALYZE matchmaking.tickets");
      n.exec0("VACUUM ANALYZE matchmaking.ticket_players");
      std::printf("loaded %d waiting tickets over %d pool(s) in %.1f s\n", tickets, pools,
                  Ms(SteadyClock::now() - load_start) / 1000);
    }
    if (exit_code == 0) {
      std::vector<std::pair<std::string, std::string>> loaded;  // (ticket, owner) to cancel
      {
        pqxx::connection c(url);
        pqxx::nontransaction n(c);
        for (const pqxx::row& r :
             n.exec("SELECT ticket_id::text, owner_id FROM matchmaking.tickets ORDER BY random() "
                    "LIMIT 20000")) {
          loaded.emplace_back(r[0].as<std::string>(), r[1].as<std::string>());
        }
      }
      DefaultRatingSource ratings;
      auto clock = [] { return absl::Now(); };
      struct Replica {
        std::unique_ptr<DbPool> db;
        std::unique_ptr<MatchmakingStore> store;
        std::unique_ptr<MatchmakingService> service;
      };
      auto make = [&](const std::string& name) {
        Replica r;
        r.db = std::make_unique<DbPool>(
            DbOptions{.url = url,
                      .max_connections = std::max(4, pass_options.claim_parallelism + 1),
                      .application_name = name},
            nullptr);
        auto store = std::make_unique<PgMatchmakingStore>(r.db.get());
        store->set_claim_in_one_statement(claim == "one_statement");
        r.store = std::move(store);
        r.service =
            std::make_unique<MatchmakingService>(MatchmakingService::Deps{.store = r.store.get(),
                                                                          .catalog = &catalog,
                                                                          .ratings = &ratings,
                                                                          .accounts = nullptr,
                                                                          .games = nullptr,
                                                                          .metrics = nullptr,
                                                                          .clock = clock,
                                                                          .blocks = nullptr},
                                                 pass_options);
        return r;
      };
      std::vector<Replica> passes;
      for (int i = 0; i < replicas; ++i) passes.push_back(make(absl::StrCat("pass-", i)));
      Replica front = make("front");

      Latencies lat;
      std::atomic<bool> stop{false};
      std::atomic<bool> in_pass{false};
      std::vector<std::thread> probes;
      for (int c = 0; c < clients; ++c) {
        probes.emplace_back([&, c] {
          std::mt19937 rng(static_cast<unsigned>(seed * 100 + c));
          EnqueueInput input;
          input.game = specs[0].game;
          input.options = specs[0].options;
          input.ranked = specs[0].ranked;
          input.player_counts = specs[0].counts;
          for (int n = 0; !stop; ++n) {
            const std::string player = absl::StrCat("probe-", c, "-", n);
            auto timed = [&](std::vector<double> Latencies::*into, auto call) {
              const bool counted = in_pass;
              const auto t0 = SteadyClock::now();
              absl::Status s = call();
              const double ms = Ms(SteadyClock::now() - t0);
              std::lock_guard<std::mutex> lock(lat.mu);
              // A ticket matched (or cancelled) before the cancel arrives is an answer too.
              if (!s.ok() && s.code() != absl::StatusCode::kFailedPrecondition) {
                ++lat.errors;
                if (lat.first_error.empty()) lat.first_error = s.ToString();
              }
              if (counted && in_pass) (lat.*into).push_back(ms);
              return s;
            };
            std::string ticket_id;
            (void)timed(&Latencies::enqueue, [&] {
              absl::StatusOr<TicketRow> t = front.service->Enqueue(player, input);
              if (t.ok()) ticket_id = t->ticket_id;
              return t.status();
            });
            if (!ticket_id.empty()) {
              (void)timed(&Latencies::cancel_own,
                          [&] { return front.service->CancelTicket(player, ticket_id).status(); });
            }
            const auto& [loaded_ticket, owner] = loaded[rng() % loaded.size()];
            (void)timed(&Latencies::cancel_loaded,
                        [&, &loaded_ticket = loaded_ticket, &owner = owner] {
                          return front.service->CancelTicket(owner, loaded_ticket).status();
                        });
            std::this_thread::sleep_for(std::chrono::milliseconds(probe_interval_ms));
          }
        });
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(300));  // probes warmed up
      const int64_t waiting_before =
          Scalar(url, "SELECT count(*) FROM matchmaking.tickets WHERE state = 'waiting'");
      std::vector<absl::StatusOr<PassStats>> results(passes.size(), absl::UnknownError(""));
      std::vector<double> replica_ms(passes.size());
      const std::string load_before = LoadAverage();
      // WAL written on the whole server during the pass (the probes' calls included): the
      // figure a busy machine does not blur.
      const int64_t lsn_before =
          Scalar(url, "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint");
      const long postmaster = Postmaster(url);
      const double pg_cpu_before = ServerCpuSeconds(postmaster);
      const double self_cpu_before = SelfCpuSeconds();
      in_pass = true;
      const auto start = SteadyClock::now();
      {
        std::vector<std::thread> threads;
        for (size_t i = 0; i < passes.size(); ++i) {
          threads.emplace_back([&, i] {
            results[i] = passes[i].service->RunMatcherPass();
            replica_ms[i] = Ms(SteadyClock::now() - start);
          });
        }
        for (std::thread& t : threads) t.join();
      }
      const double wall_ms = Ms(SteadyClock::now() - start);
      const std::string load_after = LoadAverage();
      const double pg_cpu = ServerCpuSeconds(postmaster) - pg_cpu_before;
      const double self_cpu = SelfCpuSeconds() - self_cpu_before;
      const int64_t wal_bytes =
          Scalar(url, "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint") - lsn_before;
      in_pass = false;
      stop = true;
      for (std::thread& t : probes) t.join();

      std::printf(
          "\n== matcher pass: %d tickets in %d pool(s), %d replica(s) at once, %d "
          "player(s) calling meanwhile; claims (%s) of %d tickets, %d at once per replica\n",
          tickets, pools, replicas, clients, claim.c_str(), pass_options.claim_batch_tickets,
          pass_options.claim_parallelism);
      int matches = 0;
      int matched = 0;
      for (size_t i = 0; i < results.size(); ++i) {
        if (!results[i].ok()) {
          std::printf("  replica %zu: pass FAILED: %s\n", i,
                      results[i].status().ToString().c_str());
          exit_code = 1;
          continue;
        }
        std::printf(
            "  replica %zu: %.0f ms (reading pools %.0f ms, planning %.0f ms, claiming %.0f ms), "
            "%d pools, %d matches, %d tickets, %d batches left to another replica, %d claimed the "
            "careful way\n",
            i, replica_ms[i], absl::ToDoubleMilliseconds(results[i]->load_time),
            absl::ToDoubleMilliseconds(results[i]->plan_time),
            absl::ToDoubleMilliseconds(results[i]->claim_time), results[i]->pools,
            results[i]->matches, results[i]->tickets_matched, results[i]->batches_skipped,
            results[i]->batches_careful);
        matches += results[i]->matches;
        matched += results[i]->tickets_matched;
      }
      const int64_t waiting_after =
          Scalar(url, "SELECT count(*) FROM matchmaking.tickets WHERE state = 'waiting'");
      std::printf("  pass wall time %.0f ms: %d matches seating %d tickets; waiting %lld -> %lld\n",
                  wall_ms, matches, matched, static_cast<long long>(waiting_before),
                  static_cast<long long>(waiting_after));
      std::printf("  machine load average (1/5/15 min): %s before the pass, %s after\n",
                  load_before.c_str(), load_after.c_str());
      std::printf(
          "  CPU during the pass: PostgreSQL %.2f s, this process (pass and calling players) %.2f "
          "s\n",
          pg_cpu, self_cpu);
      std::printf("  WAL written during the pass: %.1f MB (%.0f bytes per seated ticket)\n",
                  static_cast<double>(wal_bytes) / 1e6,
                  matched > 0 ? static_cast<double>(wal_bytes) / matched : 0.0);
      std::printf("during the pass:\n");
      PrintLatency("Enqueue", lat.enqueue);
      PrintLatency("CancelTicket (own new ticket)", lat.cancel_own);
      PrintLatency("CancelTicket (a loaded ticket)", lat.cancel_loaded);
      std::printf("  call errors (whole run): %d%s%s\n", lat.errors,
                  lat.first_error.empty() ? "" : ", first: ", lat.first_error.c_str());
      const int64_t twice = Scalar(
          url,
          "SELECT (SELECT count(*) FROM (SELECT a FROM matchmaking.matches, unnest(seat_accounts) "
          "a GROUP BY a HAVING count(*) > 1) d) + (SELECT count(*) FROM matchmaking.tickets t "
          "JOIN matchmaking.matches m USING (match_id) WHERE NOT t.owner_id = "
          "ANY(m.seat_accounts)) + (SELECT abs((SELECT count(*) FROM matchmaking.tickets WHERE "
          "state = 'matched') - (SELECT coalesce(sum(cardinality(seat_accounts)), 0) FROM "
          "matchmaking.matches)))");
      std::printf("seated twice or inconsistent: %lld%s\n", static_cast<long long>(twice),
                  twice == 0 ? "" : "  <- WRONG");
      if (twice != 0) exit_code = 1;
      const double worst_p99 =
          std::max({P99(lat.enqueue), P99(lat.cancel_own), P99(lat.cancel_loaded)});
      if (tickets == 100000 && pools == 1) {
        std::printf("target: pass over 100,000 tickets in one pool <= 2 s: %s\n",
                    wall_ms <= 2000 ? "met" : "MISSED");
      } else if (tickets == 1000000 && pools == 20) {
        std::printf("target: pass over 1,000,000 tickets in 20 pools <= 20 s: %s\n",
                    wall_ms <= 20000 ? "met" : "MISSED");
      } else {
        std::printf("target: the pass targets are for 100,000 in 1 pool and 1,000,000 in 20\n");
      }
      if (clients > 0) {
        std::printf("target: Enqueue/CancelTicket p99 during the pass <= 50 ms: %s\n",
                    worst_p99 <= 50 ? "met" : "MISSED");
      }
    }
  }
  {
    pqxx::connection c(server_url);
    pqxx::nontransaction txn(c);
    txn.exec0("DROP DATABASE IF EXISTS " + db_name + " WITH (FORCE)");
  }
  return exit_code;
}

}  // namespace
}  // namespace parlor::matchmaking

int main(int argc, char** argv) { return parlor::matchmaking::Run(argc, argv); }
