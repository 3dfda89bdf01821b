// parlor-ratings-bench: throughput and latency of the ratings service through its real gRPC
// transport, on a real PostgreSQL.
//
//   bash tests/pg/pg_test_server.sh start /tmp/ratings-bench-pg
//   build/services/ratings/parlor-ratings-bench --db_url="$(cat /tmp/ratings-bench-pg/conninfo)"
//   bash tests/pg/pg_test_server.sh stop /tmp/ratings-bench-pg
//
// It creates (and finally drops) its own database on that server, starts the ratings service in
// process on 127.0.0.1, and prints:
//   1. ReportResult: results/s and latency from --clients concurrent clients (--results results:
//      3 in 4 two-player pico games, 1 in 4 four-player pescado games, among --report_players).
//   2. A ladder ("kadice") of --players established players bulk-loaded with generate_series, and
//      the time to build its leaderboard snapshot.
//   3. GetLeaderboard (top page of 50; the page after it through a page token; random pages
//      anywhere in the board, not cached) and GetLeaderboardAroundMe (5 above, 5 below: random
//      players each reading once, i.e. the service's first read of their window; then 512
//      players reading again and again): reads/s with --clients in flight, and p50/p99/max
//      latency with 1 and with --clients.
//   Every line also gives the CPU time per call of the client threads, of the service (the rest
//   of this process) and of PostgreSQL (read from /proc when the server runs on this machine),
//   and the load average: client, service and server share the machine's cores, and other work
//   on it shows up in the tail latencies.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "parlor/ratings/v1/ratings.grpc.pb.h"
#include "pqxx/pqxx"
#include "services/common/core/flags.h"
#include "services/common/core/logging.h"
#include "services/common/core/page_token.h"
#include "services/common/core/token.h"
#include "services/ratings/ratings_server.h"

namespace parlor::ratings {
namespace {

using Clock = std::chrono::steady_clock;

std::string Account(int64_t i) { return absl::StrFormat("00000000-0000-4000-8000-%012d", i); }

struct Figures {
  double per_second = 0;
  double p50_ms = 0;
  double p99_ms = 0;
  double max_ms = 0;
  int errors = 0;
  // CPU time per call, in ms: the client threads, the service (the rest of this process: gRPC,
  // workers) and PostgreSQL (every process of the server). -1 when unknown.
  double client_cpu_ms = -1;
  double service_cpu_ms = -1;
  double pg_cpu_ms = -1;
};

double CpuSeconds(const rusage& u) {
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// The PostgreSQL server's process id (the parent of a backend), when it runs on this machine.
int postmaster_pid = 0;

// utime + stime of a process from /proc/PID/stat, in seconds (with `children`, also cutime +
// cstime: the children it has reaped); also its parent's pid.
bool ProcCpu(int pid, double* seconds, int* ppid, bool children = false) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/stat"));
  std::string line;
  if (!std::getline(in, line)) return false;
  const size_t close = line.rfind(')');  // the command name may contain spaces
  if (close == std::string::npos) return false;
  std::istringstream rest(line.substr(close + 2));
  std::string field;
  std::vector<std::string> fields;
  while (rest >> field) fields.push_back(field);
  if (fields.size() < 15) return false;  // fields[0] is the state (stat field 3)
  *ppid = std::stoi(fields[1]);
  double ticks = std::stod(fields[11]) + std::stod(fields[12]);
  if (children) ticks += std::stod(fields[13]) + std::stod(fields[14]);
  *seconds = ticks / sysconf(_SC_CLK_TCK);
  return true;
}

// CPU seconds used so far by the PostgreSQL server and its children (live ones, and exited ones
// it has reaped); -1 if unknown.
double PostgresCpuSeconds() {
  if (postmaster_pid <= 0) return -1;
  double total = 0;
  int ppid = 0;
  double s = 0;
  if (!ProcCpu(postmaster_pid, &s, &ppid, /*children=*/true)) return -1;
  total += s;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    int pid = 0;
    if (!absl::SimpleAtoi(entry.path().filename().string(), &pid)) continue;
    if (ProcCpu(pid, &s, &ppid) && ppid == postmaster_pid) total += s;
  }
  return total;
}

// Runs `calls` calls of `call(i)` from `clients` threads; returns throughput and latency.
Figures Measure(int calls, int clients, const std::function<bool(int)>& call) {
  std::vector<std::vector<double>> lat(clients);
  std::vector<double> client_cpu(clients, 0);
  std::atomic<int> next{0};
  std::atomic<int> errors{0};
  rusage self0{};
  getrusage(RUSAGE_SELF, &self0);
  const double pg0 = PostgresCpuSeconds();
  const auto start = Clock::now();
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&, c] {
      rusage t0u{};
      getrusage(RUSAGE_THREAD, &t0u);
      for (int i = next++; i < calls; i = next++) {
        const auto t0 = Clock::now();
        if (!call(i)) ++errors;
        lat[c].push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
      }
      rusage t1u{};
      getrusage(RUSAGE_THREAD, &t1u);
      client_cpu[c] = CpuSeconds(t1u) - CpuSeconds(t0u);
    });
  }
  for (std::thread& t : threads) t.join();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  rusage self1{};
  getrusage(RUSAGE_SELF, &self1);
  const double pg1 = PostgresCpuSeconds();
  std::vector<double> all;
  for (auto& v : lat) all.insert(all.end(), v.begin(), v.end());
  std::sort(all.begin(), all.end());
  Figures f;
  f.per_second = calls / seconds;
  f.p50_ms = all[all.size() / 2];
  f.p99_ms = all[std::min(all.size() - 1, all.size() * 99 / 100)];
  f.max_ms = all.back();
  f.errors = errors;
  double client = 0;
  for (double c : client_cpu) client += c;
  f.client_cpu_ms = 1000 * client / calls;
  f.service_cpu_ms = 1000 * (CpuSeconds(self1) - CpuSeconds(self0) - client) / calls;
  if (pg0 >= 0 && pg1 >= 0) f.pg_cpu_ms = 1000 * (pg1 - pg0) / calls;
  return f;
}

// The machine's 1/5/15-minute load averages: figures taken on a busy machine say so.
std::string LoadAverage() {
  std::ifstream in("/proc/loadavg");
  double one = 0, five = 0, fifteen = 0;
  if (!(in >> one >> five >> fifteen)) return "unknown";
  return absl::StrFormat("%.2f %.2f %.2f", one, five, fifteen);
}

// One line per measurement: throughput, latency, CPU per call (client / service / PostgreSQL)
// and the 1-minute load average at its end.
void Print(const char* what, int clients, const Figures& f, const char* unit) {
  std::printf(
      "%-44s clients=%-2d %9.0f %s  p50 %7.3f ms  p99 %7.3f ms  max %7.2f ms  errors %d  "
      "cpu/call client %.3f service %.3f pg %.3f ms  load %s\n",
      what, clients, f.per_second, unit, f.p50_ms, f.p99_ms, f.max_ms, f.errors, f.client_cpu_ms,
      f.service_cpu_ms, f.pg_cpu_ms, LoadAverage().c_str());
  std::fflush(stdout);
}

int Run(int argc, char** argv) {
  std::string db_url;
  int results = 4000;
  int clients = 8;
  int players = 1000000;
  int report_players = 20000;
  int reads = 20000;
  Flags flags("parlor-ratings-bench");
  flags.String("db_url", &db_url, "libpq conninfo of a PostgreSQL server (a database is created)",
               true);
  flags.Int("results", &results, "ReportResult calls", {.min = 10, .max = 10000000});
  flags.Int("clients", &clients, "concurrent clients", {.min = 1, .max = 256});
  flags.Int("players", &players, "players bulk-loaded into the leaderboard ladder",
            {.min = 100, .max = 100000000});
  flags.Int("report_players", &report_players, "player pool of the ReportResult phase",
            {.min = 10, .max = 10000000});
  flags.Int("reads", &reads, "calls per leaderboard measurement", {.min = 100, .max = 10000000});
  if (absl::Status s = flags.Parse(argc, argv); !s.ok()) {
    std::fprintf(stderr, "%s\n", std::string(s.message()).c_str());
    return s.code() == absl::StatusCode::kNotFound ? 0 : 2;
  }
  (void)InitLogging("ratings-bench", "text", "warn");

  const std::string dbname = "parlor_ratings_bench";
  {
    pqxx::connection admin(db_url);
    pqxx::nontransaction n(admin);
    n.exec0("DROP DATABASE IF EXISTS " + dbname);
    n.exec0("CREATE DATABASE " + dbname);
  }
  const std::string url = absl::StrCat(db_url, " dbname=", dbname);
  {
    // PostgreSQL's CPU time per call is read from /proc when the server runs on this machine.
    pqxx::connection c(url);
    pqxx::nontransaction n(c);
    double unused = 0;
    int parent = 0;
    if (ProcCpu(n.exec1("SELECT pg_backend_pid()")[0].as<int>(), &unused, &parent)) {
      postmaster_pid = parent;
    }
  }

  const auth::KeyPairBase64 access = auth::GenerateKeyPair();
  const auth::KeyPairBase64 service = auth::GenerateKeyPair();
  ServerConfig server;
  server.listen_host = "127.0.0.1";
  server.grpc_port = 0;
  server.metrics_port = 0;
  server.db_url = url;
  server.db_max_connections = 16;
  server.worker_threads = 16;
  server.access_token_public_key = access.public_key;
  server.service_token_public_key = service.public_key;
  server.migrations_dir = PARLOR_SOURCE_DIR "/migrations";
  auto host = ServiceHost::Create(RatingsIdentity(), server);
  if (!host.ok()) {
    std::fprintf(stderr, "%s\n", host.status().ToString().c_str());
    return 1;
  }
  RatingsConfig config;
  config.refresh_boards = false;
  config.page_token_secret = "bench";
  const model::LadderRegistry ladders = ConfiguredLadders(config);
  RatingsService* domain = nullptr;
  auto installed = InstallRatings(
      **host, config, &ladders, [] { return absl::Now(); }, &domain);
  if (!installed.ok() || !(*host)->Start().ok()) {
    std::fprintf(stderr, "could not start the service\n");
    return 1;
  }
  auto channel = grpc::CreateChannel(absl::StrCat("127.0.0.1:", (*host)->grpc_port()),
                                     grpc::InsecureChannelCredentials());
  auto ratings = v1::RatingsService::NewStub(channel);
  auto internal = v1::RatingsInternalService::NewStub(channel);
  const std::string service_token =
      *(*auth::TokenSigner::Create(auth::TokenKind::kService, service.private_key))
           .Sign("sessions", "", absl::Now(), absl::Hours(1));
  auto player_signer = *auth::TokenSigner::Create(auth::TokenKind::kAccess, access.private_key);
  auto with = [](const std::string& token) {
    auto c = std::make_unique<grpc::ClientContext>();
    c->AddMetadata("authorization", absl::StrCat("Bearer ", token));
    return c;
  };

  std::printf("parlor-ratings-bench: %d hardware threads, PostgreSQL %s; load average %s\n",
              std::thread::hardware_concurrency(), db_url.c_str(), LoadAverage().c_str());

  // 1. ReportResult.
  std::vector<v1::ReportResultRequest> reports(results);
  std::mt19937_64 rng(42);
  for (int i = 0; i < results; ++i) {
    v1::ReportResultRequest& r = reports[i];
    r.set_game_id(absl::StrCat("bench-", i));
    r.set_ranked(true);
    r.mutable_finish_time()->set_seconds(absl::ToUnixSeconds(absl::Now()) - 60);
    const int seats = i % 4 == 3 ? 4 : 2;
    r.set_game(seats == 4 ? "pescado" : "pico");
    std::vector<int64_t> ps;
    while (static_cast<int>(ps.size()) < seats) {
      const int64_t p = 1 + static_cast<int64_t>(rng() % report_players);
      if (std::find(ps.begin(), ps.end(), p) == ps.end()) ps.push_back(p);
    }
    for (int s = 0; s < seats; ++s) {
      auto* seat = r.add_seats();
      seat->set_seat(s);
      seat->set_account_id(Account(ps[s]));
      seat->set_team(s);
      auto* p = r.add_placements();
      p->set_account_id(Account(ps[s]));
      p->set_rank(1 + (s + i) % seats);
    }
  }
  Figures report = Measure(results, clients, [&](int i) {
    v1::ReportResultResponse out;
    return internal->ReportResult(with(service_token).get(), reports[i], &out).ok();
  });
  Print("ReportResult (new games)", clients, report, "results/s");
  Figures replay = Measure(std::min(results, 2000), clients, [&](int i) {
    v1::ReportResultResponse out;
    return internal->ReportResult(with(service_token).get(), reports[i], &out).ok();
  });
  Print("ReportResult (replays of processed games)", clients, replay, "results/s");

  // 2. A ladder of `players` established players.
  {
    const auto t0 = Clock::now();
    pqxx::connection c(url);
    pqxx::work txn(c);
    txn.exec_params0(
        "INSERT INTO ratings.ratings (ladder, season_id, account_id, rating, deviation, "
        "volatility, conservative, games, season_games, provisional, last_game_time) "
        "SELECT 'kadice', 's1', ('00000000-0000-4000-8000-' || lpad(i::text, 12, '0'))::uuid, r, "
        "s, 0, r - 3 * s, 40, 40, false, now() FROM (SELECT i, 15 + (abs(hashint4(i)) % 1000000) / "
        "40000.0 AS r, 1.5 + (abs(hashint4(i * 7)) % 1000) / 500.0 AS s "
        "FROM generate_series(1, $1) AS i) g",
        players);
    txn.exec0(
        "INSERT INTO ratings.board_changes (ladder, season_id, shard, changes) "
        "VALUES ('kadice', 's1', 0, 1)");
    txn.commit();
    pqxx::nontransaction n(c);
    // A ladder that grew to a million players over months has long been vacuumed; a freshly
    // bulk-loaded one would otherwise be vacuumed by autovacuum in the middle of the reads.
    n.exec0("VACUUM (ANALYZE) ratings.ratings");
    std::printf("%-44s %d players in %.1f s\n", "bulk load (generate_series)", players,
                std::chrono::duration<double>(Clock::now() - t0).count());
    const auto t1 = Clock::now();
    absl::StatusOr<int> built = domain->RefreshBoards();
    std::printf(
        "%-44s %s in %.1f s\n", "leaderboard snapshot build (all ladders)",
        built.ok() ? absl::StrCat(*built, " snapshots").c_str() : built.status().ToString().c_str(),
        std::chrono::duration<double>(Clock::now() - t1).count());
    if (!built.ok()) return 1;
  }

  // 3. Leaderboard reads.
  std::vector<std::string> tokens;
  std::vector<int64_t> token_player;
  for (int i = 0; i < 512; ++i) {
    const int64_t p = 1 + static_cast<int64_t>(rng() % players);
    token_player.push_back(p);
    tokens.push_back(*player_signer.Sign(Account(p), "s", absl::Now(), absl::Hours(1)));
  }
  v1::GetLeaderboardRequest top;
  top.set_ladder("kadice");
  top.set_page_size(50);
  auto top_call = [&](int i) {
    v1::GetLeaderboardResponse out;
    grpc::Status s = ratings->GetLeaderboard(with(tokens[i % tokens.size()]).get(), top, &out);
    return s.ok() && out.entries_size() == 50;
  };
  // A page deep in the board, reached with a real page token.
  std::string deep_token;
  {
    v1::GetLeaderboardAroundMeRequest q;
    q.set_ladder("kadice");
    v1::GetLeaderboardAroundMeResponse out;
    ratings->GetLeaderboardAroundMe(with(tokens[0]).get(), q, &out);
    std::printf("%-44s %lld players on the board; player %lld at position %lld\n", "snapshot",
                static_cast<long long>(out.total_players()),
                static_cast<long long>(token_player[0]), static_cast<long long>(out.my_position()));
    v1::GetLeaderboardResponse first;
    ratings->GetLeaderboard(with(tokens[0]).get(), top, &first);
    deep_token = first.next_page_token();
  }
  // What PostgreSQL itself spends on a page of the 1M-row snapshot (the rest is transport, token
  // checks and scheduling).
  {
    pqxx::connection c(url);
    pqxx::nontransaction n(c);
    const int64_t id = n.exec1(
                            "SELECT max(snapshot_id) FROM ratings.board_snapshots "
                            "WHERE ladder = 'kadice'")[0]
                           .as<int64_t>();
    const std::string table = absl::StrCat("ratings.board_", id);
    auto explain = [&](const char* what, const std::string& query) {
      std::string plan;
      double ms = 0;
      for (int i = 0; i < 5; ++i) {  // the last of a few runs: warm cache
        plan.clear();
        for (const pqxx::row& row : n.exec("EXPLAIN (ANALYZE, TIMING OFF) " + query)) {
          const std::string line = row[0].as<std::string>();
          if (line.rfind("Execution Time: ", 0) == 0) ms = std::stod(line.substr(16));
          if (plan.empty()) plan = line.substr(0, 60);
        }
      }
      std::printf("%-44s %.3f ms in PostgreSQL  (%s)\n", what, ms, plan.c_str());
    };
    explain("  SQL: top page", absl::StrCat("SELECT * FROM ", table,
                                            " WHERE position BETWEEN 1 AND 50 ORDER BY position"));
    explain("  SQL: around me", absl::StrCat("WITH me AS (SELECT position AS p FROM ", table,
                                             " WHERE account_id = '", Account(token_player[0]),
                                             "') SELECT b.* FROM me LEFT JOIN LATERAL (SELECT * "
                                             "FROM ",
                                             table,
                                             " WHERE position BETWEEN me.p - 5 AND me.p + 5) b ON "
                                             "true"));
  }
  v1::GetLeaderboardRequest second = top;
  second.set_page_token(deep_token);
  auto next_call = [&](int i) {
    v1::GetLeaderboardResponse out;
    grpc::Status s = ratings->GetLeaderboard(with(tokens[i % tokens.size()]).get(), second, &out);
    return s.ok() && out.entries_size() == 50;
  };
  // Pages anywhere in the board, each first read from PostgreSQL (a snapshot's pages are cached
  // once read; 1,000,000 players are 20,000 pages of 50, far more than the cache holds). The
  // tokens are what the service itself would hand out (same secret and cursor format).
  const PageTokens page_tokens(config.page_token_secret);
  int64_t snapshot_id = 0;
  {
    pqxx::connection c(url);
    pqxx::nontransaction n(c);
    snapshot_id = n.exec1(
                       "SELECT max(snapshot_id) FROM ratings.board_snapshots "
                       "WHERE ladder = 'kadice' AND ready")[0]
                      .as<int64_t>();
  }
  std::vector<std::string> random_page_tokens;
  for (int i = 0; i < 4096; ++i) {
    const int64_t after = 50 * static_cast<int64_t>(rng() % (players / 50 - 1));
    random_page_tokens.push_back(
        page_tokens.Encode(absl::StrCat(snapshot_id, ":", after), "board/kadice/"));
  }
  auto random_page_call = [&](int i) {
    v1::GetLeaderboardRequest q = top;
    q.set_page_token(random_page_tokens[i % random_page_tokens.size()]);
    v1::GetLeaderboardResponse out;
    grpc::Status s = ratings->GetLeaderboard(with(tokens[i % tokens.size()]).get(), q, &out);
    return s.ok() && out.entries_size() == 50;
  };
  v1::GetLeaderboardAroundMeRequest around;
  around.set_ladder("kadice");
  around.set_before(5);
  around.set_after(5);
  auto around_call = [&](int i) {
    v1::GetLeaderboardAroundMeResponse out;
    grpc::Status s =
        ratings->GetLeaderboardAroundMe(with(tokens[i % tokens.size()]).get(), around, &out);
    return s.ok() && out.my_position() > 0 && out.entries_size() == 11;
  };
  // Around me for players who have not read this snapshot yet (each read once): the service's
  // first read of a player's window, from PostgreSQL. The players above are read again and again
  // (their windows cached after the first read; the live row is still read every time).
  const int cold_one = std::min(reads / 4, 2000);
  const int cold_many = std::min(reads, 8000);
  std::vector<std::string> cold_tokens;
  {
    std::vector<int64_t> used(token_player);
    std::sort(used.begin(), used.end());
    while (static_cast<int>(cold_tokens.size()) < cold_one + cold_many) {
      const int64_t p = 1 + static_cast<int64_t>(rng() % players);
      auto at = std::lower_bound(used.begin(), used.end(), p);
      if (at != used.end() && *at == p) continue;
      used.insert(at, p);
      cold_tokens.push_back(*player_signer.Sign(Account(p), "s", absl::Now(), absl::Hours(1)));
    }
  }
  auto cold_around_call = [&](int offset) {
    return [&, offset](int i) {
      v1::GetLeaderboardAroundMeResponse out;
      grpc::Status s =
          ratings->GetLeaderboardAroundMe(with(cold_tokens[offset + i]).get(), around, &out);
      return s.ok() && out.my_position() > 0 && out.entries_size() == 11;
    };
  };
  // The floor under the same load: an RPC with the same token check and no database work.
  auto floor_call = [&](int i) {
    v1::ListLaddersResponse out;
    return ratings->ListLadders(with(tokens[i % tokens.size()]).get(), {}, &out).ok();
  };
  Measure(std::min(reads, 1000), clients, top_call);  // warm-up
  // The cold around-me players' tokens are verified (and cached by the service) once here, as a
  // player's token would be by their earlier calls: the first-read figures are the board's.
  Measure(static_cast<int>(cold_tokens.size()), clients, [&](int i) {
    v1::ListLaddersResponse out;
    return ratings->ListLadders(with(cold_tokens[i]).get(), {}, &out).ok();
  });
  Print("reference: ListLadders (no database)", 1, Measure(reads / 4, 1, floor_call), "calls/s  ");
  {
    // ... and a bare PostgreSQL round trip (one client, one connection).
    pqxx::connection c(url);
    pqxx::nontransaction n(c);
    auto select1 = [&](int) { return n.exec("SELECT 1").size() == 1; };
    Print("reference: SELECT 1 (PostgreSQL round trip)", 1, Measure(reads / 4, 1, select1),
          "calls/s  ");
  }
  Print("GetLeaderboard top page (50)", 1, Measure(reads / 4, 1, top_call), "reads/s  ");
  Print("GetLeaderboard top page (50)", clients, Measure(reads, clients, top_call), "reads/s  ");
  Print("GetLeaderboard second page (page token)", clients, Measure(reads, clients, next_call),
        "reads/s  ");
  Print("GetLeaderboard random page (not cached)", clients,
        Measure(std::min(reads, 4096), clients, random_page_call), "reads/s  ");
  Print("GetLeaderboardAroundMe (5+5), first read", 1, Measure(cold_one, 1, cold_around_call(0)),
        "reads/s  ");
  Print("GetLeaderboardAroundMe (5+5), first read", clients,
        Measure(cold_many, clients, cold_around_call(cold_one)), "reads/s  ");
  Print("GetLeaderboardAroundMe (5+5)", 1, Measure(reads / 4, 1, around_call), "reads/s  ");
  Print("GetLeaderboardAroundMe (5+5)", clients, Measure(reads, clients, around_call), "reads/s  ");

  std::printf("load average at the end: %s\n", LoadAverage().c_str());
  (*host)->Shutdown();
  installed->reset();
  host->reset();
  {
    pqxx::connection admin(db_url);
    pqxx::nontransaction n(admin);
    n.exec0("DROP DATABASE IF EXISTS " + dbname);
  }
  return 0;
}

}  // namespace
}  // namespace parlor::ratings

int main(int argc, char** argv) { return parlor::ratings::Run(argc, argv); }
