// parlor-sessions-load: throughput and latency of SubmitAction against a real parlor-sessions
// process and PostgreSQL, beside a raw PostgreSQL baseline measured in the same run, plus
// commit-to-stream delivery latency and the memory of idle WatchMyGames streams.
//
//   parlor-sessions-load --db_url="host=... port=... dbname=..."
//       --sessions_binary=build/services/sessions/parlor-sessions [--seconds=10] [--streams=10000]
//       [--games=1,8,32] [--baseline=false] [--baseline_after=false] [--mode=pvp
//       [--pvp_reads=mover]] [--client_threads=2]
//       [--server_workers=64] [--server_db_connections=16] [--pg_stats=false] [--statements]
// (services/sessions/load/run_load.sh [--durable] starts a PostgreSQL for it; scripts/dev bench
// runs it on a durable one in both modes.)
//
// Steps (all printed):
//   0. The cluster's durability settings (SHOW fsync, synchronous_commit, full_page_writes) and
//      the machine's busy share over 2 s before anything starts: above 15 % the ratios to the
//      baseline are not printed (another load shared the cores).
//   1. Starts parlor-sessions as a child process on free ports, with fresh signing keys, its
//      outbox dispatcher on (logging adapter, woken by LISTEN, at least every second).
//   2. For each count of concurrent games (1, 8 and 32): a pgbench run of one single-row UPDATE
//      plus one INSERT per transaction at that many clients (the baseline), then as many games
//      each playing the computer through SubmitAction (every answer carries the next
//      legal actions, so the timed loop is SubmitAction only; --mode=pvp plays two players and
//      reads the next mover's actions with untimed GetGame calls: 1.5 per move, or with
//      --pvp_reads=mover one, by the mover, as a phone does). --client_threads threads drive
//      the games, each its share through gRPC's completion queue, as pgbench's -j threads drive
//      its clients (0: one blocking thread per game). moves/s counts SubmitAction calls per
//      second of wall time; p50/p99 are SubmitAction latencies. Then pgbench again (unless
//      --baseline_after=false): the ratio is moves/s over the mean of the two baselines, so that
//      the machine's drift between the baseline and the moves does not lean one way.
//      After each run: the notification outbox (rows delivered during the run, rows still
//      pending and the age of the oldest), and the CPU time per transaction / per move of each
//      process (this tool or pgbench, the server, the PostgreSQL cluster) and of everything else
//      on the machine, which says where a move's time goes and how busy the shared machine was;
//      beside it, from PostgreSQL's statistics: statements (round trips), commits, WAL bytes,
//      WAL flushes and rows written per move and per pgbench transaction (--statements: each
//      statement's calls and times).
//   3. Commit-to-stream delivery: a WatchGame stream on another connection receives each move;
//      latency from sending SubmitAction to receiving the stream event.
//   4. N idle WatchMyGames streams (distinct players); the child's resident memory before and
//      after, per stream.
#include <dirent.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "engine/games/all_games.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/security/credentials.h"
#include "parlor/sessions/v1/sessions.grpc.pb.h"
#include "pqxx/pqxx"
#include "services/common/core/flags.h"
#include "services/common/core/token.h"
#include "services/sessions/load/async_players.h"
#include "services/sessions/load/free_ports.h"
#include "services/sessions/load/thread_cpu.h"

namespace parlor::sessions {
namespace {

using v1::SessionsInternalService;
using v1::SessionsService;

// What a signal must not leave behind: the server this tool started and its /tmp directory
// (set while they exist; read by OnSignal, so plain storage of fixed size).
volatile pid_t g_server = 0;
char g_temp_dir[64] = {};

// SIGINT / SIGTERM / SIGHUP: stop the server, remove the directory, exit. Only
// async-signal-safe calls (kill, fork, execv, waitpid, _exit).
extern "C" void OnSignal(int signal_number) {
  if (g_server > 0) {
    kill(g_server, SIGTERM);
    waitpid(g_server, nullptr, 0);
  }
  if (g_temp_dir[0] != '\0') {
    const pid_t rm = fork();
    if (rm == 0) {
      char rm_path[] = "/bin/rm";
      char rm_flags[] = "-rf";
      char* argv[] = {rm_path, rm_flags, g_temp_dir, nullptr};
      execv(rm_path, argv);
      _exit(127);
    }
    if (rm > 0) waitpid(rm, nullptr, 0);
  }
  _exit(128 + signal_number);
}

// A directory of its own under /tmp, removed with what is in it when it goes out of scope (and
// by OnSignal while it exists).
class TempDir {
 public:
  TempDir() {
    char path[] = "/tmp/parlor-load-XXXXXX";
    if (mkdtemp(path) == nullptr) return;
    path_ = path;
    std::snprintf(g_temp_dir, sizeof(g_temp_dir), "%s", path);
  }
  ~TempDir() {
    g_temp_dir[0] = '\0';
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  bool ok() const { return !path_.empty(); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The server child: stopped (SIGTERM, then waited for) on every return from Run.
class ServerProcess {
 public:
  explicit ServerProcess(pid_t pid) : pid_(pid) { g_server = pid; }
  ~ServerProcess() {
    g_server = 0;
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    waitpid(pid_, nullptr, 0);
  }
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

 private:
  const pid_t pid_;
};

struct Settings {
  std::string db_url;
  std::string sessions_binary;
  std::string pgbench = "/usr/lib/postgresql/15/bin/pgbench";
  std::string game;
  // "bot": each client plays the computer (CreateBotGame); every SubmitAction answer carries the
  // next legal actions, so the loop is SubmitAction only. "pvp": two players per game; the next
  // mover's legal actions come from GetGame calls (not timed, but sharing the server).
  std::string mode = "bot";
  // pvp only. "both": before each move the game's first player reads it to learn whose turn it
  // is, and when that is the other player, the mover reads it again (1.5 reads per move; the
  // workload of every earlier round). "mover": only the mover reads it, once, as a phone does when
  // told it is its turn (whose turn comes next is in the previous answer).
  std::string pvp_reads = "both";
  int seconds = 10;
  int streams = 10000;
  // Concurrent games per measured run, comma-separated.
  std::string games = "1,8,32";
  bool baseline = true;
  // A second pgbench run after the moves: the ratio is to the mean of the two, so that the
  // machine drifting between the baseline and the moves (up to a quarter here) weighs on both
  // sides of it alike.
  bool baseline_after = true;
  bool floors = true;
  // Threads of the tool's players, each driving its share of the games with gRPC's
  // completion-queue API (as pgbench's -j threads drive its clients); 0: one thread per game,
  // blocking on each call (every run before 2026-11-30).
  int client_threads = 2;
  int server_workers = 64;
  int server_db_connections = 16;
  // More parlor-sessions flags, space-separated (e.g. "--group_commit_threads=0").
  std::string server_args;
  // PostgreSQL's statistics per unit of work (11 s of waiting after each run for them to settle),
  // and the per-statement table (needs pg_stat_statements loaded).
  bool pg_stats = true;
  bool statements = false;
};

std::string AccountId(int i) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "00000000-0000-4000-8000-%012x", i);
  return buf;
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t i = std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())));
  return v[i];
}

long RssKiB(pid_t pid) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/status"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) {
      long kib = 0;
      std::istringstream(line.substr(6)) >> kib;
      return kib;
    }
  }
  return -1;
}

struct Result {
  double per_second = 0;
  double p50_ms = 0;
  double p99_ms = 0;
  long count = 0;
};

// CPU seconds used so far by each side of a run (user + system), to say where the time of one
// move goes: this tool, the parlor-sessions child, the PostgreSQL cluster (postmaster, its live
// children, and the children it has reaped), and the whole machine (other users included).
struct CpuUse {
  double client = 0;
  double children = 0;  // reaped children of this tool: pgbench
  double server = 0;
  double postgres = 0;
  double machine_busy = 0;
  double machine_total = 0;
};

// utime + stime (+ cutime + cstime with `reaped`) of one process, in seconds; and its parent.
bool ProcessCpu(pid_t pid, bool reaped, double* seconds, pid_t* parent) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/stat"));
  std::string stat;
  if (!std::getline(in, stat)) return false;
  const std::optional<load::StatLine> line = load::ParseStatLine(stat);
  if (!line) return false;
  const double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
  *seconds =
      static_cast<double>(line->utime + line->stime + (reaped ? line->cutime + line->cstime : 0)) /
      tick;
  *parent = static_cast<pid_t>(line->ppid);
  return true;
}

pid_t PostmasterPid(const std::string& db_url) {
  pqxx::connection c(db_url);
  pqxx::nontransaction txn(c);
  const pid_t backend = txn.exec1("SELECT pg_backend_pid()")[0].as<int>();
  double ignored = 0;
  pid_t parent = -1;
  if (!ProcessCpu(backend, false, &ignored, &parent)) return -1;
  return parent;
}

// Clock ticks of the whole machine since boot (first line of /proc/stat): busy (user, nice,
// system, irq, softirq, steal) and in total (busy + idle + iowait).
struct MachineTicks {
  long busy = 0;
  long total = 0;
};

MachineTicks ReadMachineTicks() {
  std::ifstream stat("/proc/stat");
  std::string cpu;
  long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  stat >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal;
  MachineTicks t;
  t.busy = user + nice + system + irq + softirq + steal;
  t.total = t.busy + idle + iowait;
  return t;
}

CpuUse MeasureCpu(pid_t server, pid_t postmaster) {
  CpuUse use;
  rusage self{};
  getrusage(RUSAGE_SELF, &self);
  use.client = static_cast<double>(self.ru_utime.tv_sec + self.ru_stime.tv_sec) +
               static_cast<double>(self.ru_utime.tv_usec + self.ru_stime.tv_usec) / 1e6;
  rusage children{};
  getrusage(RUSAGE_CHILDREN, &children);
  use.children = static_cast<double>(children.ru_utime.tv_sec + children.ru_stime.tv_sec) +
                 static_cast<double>(children.ru_utime.tv_usec + children.ru_stime.tv_usec) / 1e6;
  pid_t parent = 0;
  ProcessCpu(server, false, &use.server, &parent);
  ProcessCpu(postmaster, true, &use.postgres, &parent);
  DIR* proc = opendir("/proc");
  if (proc != nullptr) {
    while (dirent* e = readdir(proc)) {
      int pid = 0;
      double seconds = 0;
      if (absl::SimpleAtoi(e->d_name, &pid) && ProcessCpu(pid, false, &seconds, &parent) &&
          parent == postmaster) {
        use.postgres += seconds;
      }
    }
    closedir(proc);
  }
  const MachineTicks machine = ReadMachineTicks();
  const double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
  use.machine_busy = static_cast<double>(machine.busy) / tick;
  use.machine_total = static_cast<double>(machine.total) / tick;
  return use;
}

// The share of the machine's CPU time (all cores) that was busy over about two seconds, in
// percent: measured before the run, so a ratio to the baseline is not printed when others were
// already using the machine.
double BusyShareBefore() {
  const MachineTicks a = ReadMachineTicks();
  std::this_thread::sleep_for(std::chrono::seconds(2));
  const MachineTicks b = ReadMachineTicks();
  if (b.total <= a.total) return 0;
  return 100.0 * static_cast<double>(b.busy - a.busy) / static_cast<double>(b.total - a.total);
}

// "0.52 0.40 0.33" (1, 5 and 15 minutes), from /proc/loadavg.
std::string LoadAverage() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  in >> one >> five >> fifteen;
  return absl::StrCat(one, " ", five, " ", fifteen);
}

// CPU time per unit of work, in microseconds: the server, the PostgreSQL cluster, the client (this
// tool, or with `pgbench` its reaped children: pgbench) and everything else on the machine; and
// how busy the machine was, in percent of all its cores. The baseline has no server.
struct CpuPer {
  double server = 0;
  double postgres = 0;
  double client = 0;
  double other = 0;
  double busy_percent = 0;
};

CpuPer CpuPerUnitFigures(const CpuUse& a, const CpuUse& b, long units, bool pgbench) {
  CpuPer per;
  const double n = static_cast<double>(std::max(1L, units)) / 1e6;
  const double busy = b.machine_busy - a.machine_busy;
  const double client = pgbench ? b.children - a.children : b.client - a.client;
  const double server = pgbench ? 0.0 : b.server - a.server;
  const double ours = client + server + (b.postgres - a.postgres);
  per.server = server / n;
  per.postgres = (b.postgres - a.postgres) / n;
  per.client = client / n;
  per.other = std::max(0.0, busy - ours) / n;
  per.busy_percent = 100.0 * busy / std::max(1e-9, b.machine_total - a.machine_total);
  return per;
}

// "server 412 us, postgres 530 us, client 120 us, other 300 us per move; machine 97 % busy"
std::string CpuPerUnit(const CpuUse& a, const CpuUse& b, long units, bool pgbench,
                       const char* unit = nullptr) {
  if (units <= 0) return "no units";
  const CpuPer per = CpuPerUnitFigures(a, b, units, pgbench);
  return absl::StrFormat(
      "server %4.0f us, postgres %4.0f us, client %4.0f us, everything else %4.0f us per %s; "
      "machine %3.0f %% busy",
      per.server, per.postgres, per.client, per.other,
      unit != nullptr ? unit : (pgbench ? "transaction" : "move"), per.busy_percent);
}

// pgbench: one single-row UPDATE + one INSERT per transaction, `clients` clients.
// The tables are made on `c` before the run, then `ready` is called (the statistics' first read).
// tools/peer/peer_bench.py runs the same baseline beside the peer: change both together.
Result Baseline(const Settings& s, int clients, pqxx::connection& c,
                const std::function<void()>& ready) {
  {
    pqxx::work txn(c);
    txn.exec0("DROP TABLE IF EXISTS load_rows, load_log");
    txn.exec0("CREATE TABLE load_rows (id integer PRIMARY KEY, version bigint NOT NULL)");
    txn.exec0("INSERT INTO load_rows SELECT g, 0 FROM generate_series(1, 1000) g");
    txn.exec0(
        "CREATE TABLE load_log (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, row_id integer "
        "NOT NULL, version bigint NOT NULL, created_at timestamptz NOT NULL DEFAULT now())");
    txn.commit();
  }
  ready();
  const TempDir temp;
  if (!temp.ok()) return {};
  const std::string& dir = temp.path();
  const std::string script = absl::StrCat(dir, "/txn.sql");
  {
    std::ofstream out(script);
    // Each client works on its own rows, as each game is its own row.
    out << "\\set id random(1, 1000)\n"
        << "BEGIN;\n"
        << "UPDATE load_rows SET version = version + 1 WHERE id = :id;\n"
        << "INSERT INTO load_log (row_id, version) VALUES (:id, 1);\n"
        << "END;\n";
  }
  const std::string command = absl::StrCat(
      "cd ", dir, " && ", s.pgbench, " -n -f txn.sql -c ", clients, " -j ", std::min(clients, 4),
      " -T ", s.seconds, " -l --log-prefix=tx \"", s.db_url, "\" > pgbench.out 2>&1");
  if (std::system(command.c_str()) != 0) {
    std::ifstream out(absl::StrCat(dir, "/pgbench.out"));
    std::fprintf(stderr, "pgbench failed:\n%s\n",
                 std::string(std::istreambuf_iterator<char>(out), {}).c_str());
    return {};
  }
  std::vector<double> latencies;
  // pgbench names its logs tx.<pid> and tx.<pid>.<thread>.
  const std::string list = absl::StrCat(dir, "/list");
  if (std::system(absl::StrCat("ls ", dir, "/tx.* > ", list).c_str()) != 0) return {};
  std::ifstream names(list);
  std::string name;
  while (std::getline(names, name)) {
    std::ifstream log(name);
    std::string line;
    while (std::getline(log, line)) {
      std::vector<std::string> f = absl::StrSplit(line, ' ');
      double us = 0;
      if (f.size() >= 3 && absl::SimpleAtod(f[2], &us)) latencies.push_back(us / 1000.0);
    }
  }
  Result r;
  r.count = static_cast<long>(latencies.size());
  r.per_second = static_cast<double>(r.count) / s.seconds;
  r.p50_ms = Percentile(latencies, 0.50);
  r.p99_ms = Percentile(latencies, 0.99);
  return r;
}

// The notification outbox as the dispatcher left it: rows still pending and the age of the
// oldest, and rows delivered so far.
// The outbox's pending rows (a delivered row leaves it, so what was delivered is the server's
// counter).
struct OutboxState {
  long pending = 0;
  double oldest_s = 0;
  long sent = 0;
};

double ScrapeValue(int metrics_port, const std::string& name);

OutboxState ReadOutbox(const std::string& db_url, int metrics_port) {
  OutboxState o;
  try {
    pqxx::connection c(db_url);
    pqxx::nontransaction txn(c);
    pqxx::row r = txn.exec1(
        "SELECT count(*), coalesce(extract(epoch from now() - min(created_at)), 0) "
        "FROM sessions.notification_outbox WHERE sent_at IS NULL");
    o.pending = r[0].as<long>();
    o.oldest_s = r[1].as<double>();
    o.sent = static_cast<long>(
        ScrapeValue(metrics_port, "parlor_sessions_notifications_delivered_total"));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cannot read the outbox: %s\n", e.what());
  }
  return o;
}

// PostgreSQL's own account of a run: deltas of its cumulative statistics between two reads.
// Statement calls come from pg_stat_statements (top-level statements of this database, the
// tool's own reads of pg_stat_* left out); commits from pg_stat_database; WAL from pg_stat_wal
// (the whole cluster); rows written from pg_stat_user_tables (this database). PostgreSQL 15
// updates pg_stat_statements at the end of each statement but the other views only when a
// backend flushes its pending counts (at most once a second while busy, after 10 s when idle,
// and when it exits), so Settle waits for that before the read that ends a run.
struct StatementStats {
  std::string query;
  double calls = 0;
  double total_ms = 0;
  double rows = 0;
  double wal_bytes = 0;
};

struct TableWrites {
  double inserted = 0;
  double updated = 0;
  double hot_updated = 0;
  double deleted = 0;
};

struct DbStats {
  bool ok = false;
  double commits = 0;
  double rollbacks = 0;
  double wal_records = 0;
  double wal_fpi = 0;
  double wal_bytes = 0;
  double wal_syncs = 0;
  std::map<std::string, TableWrites> tables;
  bool statements = false;
  std::map<std::string, StatementStats> by_query;  // by queryid
};

// What the cluster is: its durability settings, and whether pg_stat_statements can be read (then
// its view is created in this database, as the extension needs).
struct ClusterInfo {
  std::string version;
  std::string fsync;
  std::string synchronous_commit;
  std::string full_page_writes;
  bool statements = false;
};

ClusterInfo DescribeCluster(const std::string& db_url) {
  ClusterInfo info;
  try {
    pqxx::connection c(db_url);
    pqxx::nontransaction txn(c);
    pqxx::row r = txn.exec1(
        "SELECT current_setting('server_version'), current_setting('fsync'), "
        "current_setting('synchronous_commit'), current_setting('full_page_writes'), "
        "current_setting('shared_preload_libraries') LIKE '%pg_stat_statements%'");
    info.version = r[0].as<std::string>();
    info.fsync = r[1].as<std::string>();
    info.synchronous_commit = r[2].as<std::string>();
    info.full_page_writes = r[3].as<std::string>();
    info.statements = r[4].as<bool>();
    if (info.statements) txn.exec0("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cannot read the cluster's settings: %s\n", e.what());
  }
  return info;
}

// Reads every figure in three statements outside any transaction block (no BEGIN / COMMIT of
// its own among the counted statements; its own statements name pg_stat_ and are left out).
DbStats ReadDbStats(pqxx::connection& c, bool statements) {
  DbStats d;
  try {
    pqxx::nontransaction txn(c);
    // This connection's own counts (the baseline's tables are made on it) are flushed as this
    // statement ends, before the reads below.
    txn.exec("SELECT pg_stat_force_next_flush()");
    pqxx::row r = txn.exec1(
        "SELECT d.xact_commit, d.xact_rollback, w.wal_records, w.wal_fpi, w.wal_bytes, "
        "w.wal_sync FROM pg_stat_database d, pg_stat_wal w WHERE d.datname = current_database()");
    d.commits = r[0].as<double>();
    d.rollbacks = r[1].as<double>();
    d.wal_records = r[2].as<double>();
    d.wal_fpi = r[3].as<double>();
    d.wal_bytes = r[4].as<double>();
    d.wal_syncs = r[5].as<double>();
    for (const pqxx::row& t :
         txn.exec("SELECT schemaname || '.' || relname, n_tup_ins, n_tup_upd, n_tup_hot_upd, "
                  "n_tup_del FROM pg_stat_user_tables")) {
      d.tables[t[0].as<std::string>()] = {t[1].as<double>(), t[2].as<double>(), t[3].as<double>(),
                                          t[4].as<double>()};
    }
    if (statements) {
      for (const pqxx::row& q :
           txn.exec("SELECT queryid::text, calls, total_exec_time, rows, wal_bytes, query "
                    "FROM pg_stat_statements WHERE toplevel AND queryid IS NOT NULL AND dbid = "
                    "(SELECT oid FROM pg_database WHERE datname = current_database()) "
                    "AND query NOT LIKE '%pg_stat%'")) {
        d.by_query[q[0].as<std::string>()] = {q[5].as<std::string>(), q[1].as<double>(),
                                              q[2].as<double>(), q[3].as<double>(),
                                              q[4].as<double>()};
      }
      d.statements = true;
    }
    d.ok = true;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cannot read PostgreSQL's statistics: %s\n", e.what());
  }
  return d;
}

// Waits until `idle_since` + 11 s, so that every backend idle since then has flushed its pending
// counts (PostgreSQL 15 flushes an idle backend's after 10 s).
void Settle(absl::Time idle_since) {
  const absl::Duration left = idle_since + absl::Seconds(11) - absl::Now();
  if (left > absl::ZeroDuration()) absl::SleepFor(left);
}

// Until pgbench's backends have gone (a backend flushes its counts as it exits, a little after
// pgbench itself has exited), at most 10 s.
void WaitForPgbenchBackends(pqxx::connection& c) {
  for (int i = 0; i < 100; ++i) {
    try {
      pqxx::nontransaction txn(c);
      if (txn.exec1("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'pgbench'")[0]
              .as<long>() == 0) {
        return;
      }
    } catch (const std::exception&) {
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

// The statement calls between two reads, summed.
double StatementCalls(const DbStats& a, const DbStats& b) {
  double calls = 0;
  for (const auto& [id, q] : b.by_query) {
    auto it = a.by_query.find(id);
    calls += q.calls - (it == a.by_query.end() ? 0.0 : it->second.calls);
  }
  return calls;
}

// Rows written per unit, by table (tables with none left out):
// "sessions.games 1.00 upd (0.97 HOT), sessions.actions 2.00 ins".
std::string RowsByTable(const DbStats& a, const DbStats& b, double units) {
  std::vector<std::string> parts;
  for (const auto& [name, t] : b.tables) {
    TableWrites before;
    if (auto it = a.tables.find(name); it != a.tables.end()) before = it->second;
    const double ins = (t.inserted - before.inserted) / units;
    const double upd = (t.updated - before.updated) / units;
    const double hot = (t.hot_updated - before.hot_updated) / units;
    const double del = (t.deleted - before.deleted) / units;
    if (ins + upd + del < 0.005) continue;
    std::vector<std::string> kinds;
    if (ins >= 0.005) kinds.push_back(absl::StrFormat("%.2f ins", ins));
    if (upd >= 0.005) kinds.push_back(absl::StrFormat("%.2f upd (%.2f HOT)", upd, hot));
    if (del >= 0.005) kinds.push_back(absl::StrFormat("%.2f del", del));
    parts.push_back(absl::StrCat(name, " ", absl::StrJoin(kinds, ", ")));
  }
  return parts.empty() ? std::string("none") : absl::StrJoin(parts, "; ");
}

double RowsWritten(const DbStats& a, const DbStats& b) {
  double rows = 0;
  for (const auto& [name, t] : b.tables) {
    TableWrites before;
    if (auto it = a.tables.find(name); it != a.tables.end()) before = it->second;
    rows += (t.inserted - before.inserted) + (t.updated - before.updated) +
            (t.deleted - before.deleted);
  }
  return rows;
}

// The statements of a run by total time, most first, at most `limit`: calls per unit, mean and
// total time, rows and WAL bytes per call, and the statement's text (whitespace folded).
std::string StatementTable(const DbStats& a, const DbStats& b, double units, size_t limit) {
  struct Line {
    double calls, total_ms, rows, wal_bytes;
    std::string query;
  };
  std::vector<Line> lines;
  for (const auto& [id, q] : b.by_query) {
    StatementStats before;
    if (auto it = a.by_query.find(id); it != a.by_query.end()) before = it->second;
    const double calls = q.calls - before.calls;
    if (calls <= 0) continue;
    // The statement without its leading comment lines (the SQL names its parameters there).
    std::vector<std::string> sql;
    for (absl::string_view line : absl::StrSplit(q.query, '\n')) {
      if (!sql.empty() || !absl::StartsWith(absl::StripLeadingAsciiWhitespace(line), "--")) {
        sql.emplace_back(line);
      }
    }
    std::string text = absl::StrJoin(
        absl::StrSplit(absl::StrJoin(sql, " "), absl::ByAnyChar(" \t\r"), absl::SkipEmpty()), " ");
    if (text.size() > 90) text = absl::StrCat(text.substr(0, 87), "...");
    lines.push_back({calls, q.total_ms - before.total_ms, q.rows - before.rows,
                     q.wal_bytes - before.wal_bytes, text});
  }
  std::sort(lines.begin(), lines.end(),
            [](const Line& x, const Line& y) { return x.total_ms > y.total_ms; });
  if (lines.size() > limit) lines.resize(limit);
  std::vector<std::string> out;
  for (const Line& l : lines) {
    out.push_back(absl::StrFormat("       | %8.0f %6.2f %8.1f %9.1f %8.1f %8.0f | %s", l.calls,
                                  l.calls / units, 1000.0 * l.total_ms / l.calls, l.total_ms,
                                  l.rows / l.calls, l.wal_bytes / l.calls, l.query));
  }
  return absl::StrJoin(out, "\n");
}

class Client {
 public:
  Client(const std::string& target, const auth::KeyPairBase64& access,
         const auth::KeyPairBase64& service)
      : access_(*auth::TokenSigner::Create(auth::TokenKind::kAccess, access.private_key)),
        matchmaking_(*auth::TokenSigner::Create(auth::TokenKind::kService, service.private_key),
                     "matchmaking") {
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    // No retry bookkeeping on each call (a failed call counts as an error): the tool's CPU is
    // taken from the machine the server runs on.
    args.SetInt(GRPC_ARG_ENABLE_RETRIES, 0);
    channel_ = grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), args);
    sessions_ = SessionsService::NewStub(channel_);
    internal_ = SessionsInternalService::NewStub(channel_);
  }

  std::string Token(const std::string& account) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = tokens_.find(account);
    if (it != tokens_.end()) return it->second;
    return tokens_[account] = *access_.Sign(account, "load", absl::Now(), absl::Hours(2));
  }
  std::unique_ptr<grpc::ClientContext> Context(const std::string& token) {
    auto c = std::make_unique<grpc::ClientContext>();
    c->AddMetadata("authorization", absl::StrCat("Bearer ", token));
    c->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    return c;
  }
  // A two-player game between `first_player` and the next, as matchmaking creates it.
  static v1::CreateGameRequest NewGameRequest(const std::string& game, const std::string& match,
                                              int first_player) {
    v1::CreateGameRequest r;
    r.set_match_id(match);
    r.set_game(game);
    for (int i = 0; i < 2; ++i) {
      v1::SeatSpec* seat = r.add_seats();
      seat->set_account_id(AccountId(first_player + i));
      seat->set_display_name(absl::StrCat("Load ", first_player + i));
    }
    r.mutable_time_control()->mutable_per_move()->mutable_limit()->set_seconds(7 * 86400);
    return r;
  }
  // The credential matchmaking sends, minted once and reused as matchmaking does (a new one per
  // call would cost the server a signature verification on every game); empty if it cannot sign.
  std::string ServiceCredential() {
    absl::StatusOr<std::string> credential = matchmaking_.Token(absl::Now());
    return credential.ok() ? *credential : std::string();
  }
  grpc::Status CreateGame(const std::string& game, const std::string& match, int first_player,
                          v1::Game* out) {
    const std::string credential = ServiceCredential();
    if (credential.empty()) return grpc::Status(grpc::StatusCode::INTERNAL, "cannot sign");
    v1::CreateGameResponse response;
    grpc::Status status = internal_->CreateGame(
        Context(credential).get(), NewGameRequest(game, match, first_player), &response);
    *out = response.game();
    return status;
  }
  SessionsService::Stub& sessions() { return *sessions_; }
  SessionsInternalService::Stub& internal() { return *internal_; }
  std::shared_ptr<grpc::Channel> channel() { return channel_; }

 private:
  auth::TokenSigner access_;
  auth::ServiceTokenSource matchmaking_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<SessionsService::Stub> sessions_;
  std::unique_ptr<SessionsInternalService::Stub> internal_;
  std::mutex mu_;
  std::map<std::string, std::string> tokens_;
};

// One client thread playing the computer: SubmitAction after SubmitAction.
void BotLoop(Client& client, const std::string& game, int player, std::atomic<bool>& stop,
             std::vector<double>* latencies, std::atomic<long>* errors) {
  std::mt19937_64 rng(player);
  const std::string account = AccountId(player);
  const std::string token = client.Token(account);
  while (!stop) {
    v1::CreateBotGameRequest create;
    create.set_request_id(absl::StrCat("load-", rng()));
    create.set_game(game);
    create.set_num_players(2);
    create.set_bot("random");
    v1::CreateBotGameResponse created;
    if (!client.sessions().CreateBotGame(client.Context(token).get(), create, &created).ok()) {
      ++*errors;
      return;
    }
    v1::GetGameRequest get;
    get.set_game_id(created.game().game_id());
    v1::GetGameResponse state;
    if (!client.sessions().GetGame(client.Context(token).get(), get, &state).ok()) {
      ++*errors;
      return;
    }
    v1::Game current = state.game();
    google::protobuf::RepeatedPtrField<google::protobuf::Any> legal = state.legal_actions();
    while (!stop && current.status() != v1::GAME_STATUS_FINISHED && !legal.empty()) {
      v1::SubmitActionRequest submit;
      submit.set_game_id(current.game_id());
      submit.set_expected_version(current.version());
      submit.set_idempotency_key(absl::StrCat("k", rng()));
      *submit.mutable_action() = legal[static_cast<int>(rng() % legal.size())];
      v1::SubmitActionResponse response;
      const absl::Time start = absl::Now();
      grpc::Status status =
          client.sessions().SubmitAction(client.Context(token).get(), submit, &response);
      const double ms = absl::ToDoubleMilliseconds(absl::Now() - start);
      if (!status.ok()) {
        ++*errors;
        break;
      }
      if (!stop) latencies->push_back(ms);
      current = response.game();
      legal = response.legal_actions();
    }
  }
}

// One client thread: plays games one after another until `stop`; records SubmitAction latency.
// `only_mover_reads`: Settings::pvp_reads is "mover".
void PlayLoop(Client& client, const std::string& game, bool only_mover_reads, int player_base,
              std::atomic<bool>& stop, std::vector<double>* latencies, std::atomic<long>* errors) {
  std::mt19937_64 rng(player_base);
  int match = 0;
  while (!stop) {
    v1::Game created;
    if (!client
             .CreateGame(game, absl::StrCat("load-", player_base, "-", match++, "-", rng()),
                         player_base, &created)
             .ok()) {
      ++*errors;
      return;
    }
    v1::GetGameRequest get;
    get.set_game_id(created.game_id());
    // The game as the last answer left it: who moves next.
    v1::Game last = created;
    while (!stop) {
      v1::GetGameResponse state;
      const std::string any = AccountId(player_base);
      if (!only_mover_reads) {
        if (!client.sessions().GetGame(client.Context(client.Token(any)).get(), get, &state).ok()) {
          ++*errors;
          break;
        }
        last = state.game();
      }
      if (last.status() == v1::GAME_STATUS_FINISHED) break;
      const std::string actor = last.seats(last.acting_seats(0)).account_id();
      if ((only_mover_reads || actor != any) &&
          !client.sessions().GetGame(client.Context(client.Token(actor)).get(), get, &state).ok()) {
        ++*errors;
        break;
      }
      v1::SubmitActionRequest submit;
      submit.set_game_id(created.game_id());
      submit.set_expected_version(state.game().version());
      submit.set_idempotency_key(absl::StrCat("k", rng()));
      *submit.mutable_action() = state.legal_actions(rng() % state.legal_actions_size());
      v1::SubmitActionResponse response;
      auto context = client.Context(client.Token(actor));
      const absl::Time start = absl::Now();
      grpc::Status status = client.sessions().SubmitAction(context.get(), submit, &response);
      const double ms = absl::ToDoubleMilliseconds(absl::Now() - start);
      if (!status.ok()) {
        ++*errors;
        // Read the game again to learn where it stands.
        if (only_mover_reads &&
            !client.sessions().GetGame(client.Context(client.Token(any)).get(), get, &state).ok()) {
          break;
        }
        last = state.game();
        continue;
      }
      last = response.game();
      if (!stop) latencies->push_back(ms);
    }
  }
}

// Calls per second of wall time and latency percentiles, over every thread's latencies.
Result Summarize(const std::vector<std::vector<double>>& latencies, double elapsed_s) {
  std::vector<double> all;
  for (const auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
  Result r;
  r.count = static_cast<long>(all.size());
  r.per_second = static_cast<double>(all.size()) / elapsed_s;
  r.p50_ms = Percentile(all, 0.50);
  r.p99_ms = Percentile(all, 0.99);
  return r;
}

Result Sessions(Client& client, const Settings& s, int games, std::atomic<long>* errors) {
  std::atomic<bool> stop{false};
  std::vector<std::vector<double>> latencies(games);
  const auto first_player = [games](int g) { return 100000 + games * 1000 + 2 * g; };
  std::vector<std::thread> threads;
  AsyncPlay play;
  const absl::Time start = absl::Now();
  if (s.client_threads > 0) {
    play.sessions = &client.sessions();
    play.internal = &client.internal();
    play.game = s.game;
    play.first_player = first_player;
    play.account_id = AccountId;
    play.token = [&client](const std::string& account) { return client.Token(account); };
    play.service_credential = [&client] { return client.ServiceCredential(); };
    play.create_request = [&s](int player, const std::string& match) {
      return Client::NewGameRequest(s.game, match, player);
    };
    play.pvp = s.mode == "pvp";
    play.only_mover_reads = s.pvp_reads == "mover";
    play.threads = s.client_threads;
    threads.emplace_back([&] { PlayAsync(play, games, stop, latencies, *errors); });
  } else {
    for (int g = 0; g < games; ++g) {
      threads.emplace_back([&, g] {
        if (s.mode == "pvp") {
          PlayLoop(client, s.game, s.pvp_reads == "mover", first_player(g), stop, &latencies[g],
                   errors);
        } else {
          BotLoop(client, s.game, first_player(g), stop, &latencies[g], errors);
        }
      });
    }
  }
  std::this_thread::sleep_for(std::chrono::seconds(s.seconds));
  stop = true;
  const double elapsed = absl::ToDoubleSeconds(absl::Now() - start);
  for (auto& t : threads) t.join();
  return Summarize(latencies, elapsed);
}

// The ceiling any RPC of this server can reach here: `clients` threads of this tool calling, for
// s.seconds, `call` in a closed loop on the same channel as SubmitAction. With the health check no
// service code runs (gRPC alone); with a refused ListMyGames the call is authenticated, queued
// on the service's workers and refused by validation, without the database. SubmitAction cannot
// beat these on the same two cores.
Result Floor(const Settings& s, int clients, const std::function<bool()>& call) {
  std::atomic<bool> stop{false};
  std::vector<std::vector<double>> latencies(clients);
  std::vector<std::thread> threads;
  const absl::Time start = absl::Now();
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&, c] {
      while (!stop) {
        const absl::Time t0 = absl::Now();
        if (!call()) return;
        latencies[c].push_back(absl::ToDoubleMilliseconds(absl::Now() - t0));
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::seconds(s.seconds));
  stop = true;
  const double elapsed = absl::ToDoubleSeconds(absl::Now() - start);
  for (auto& t : threads) t.join();
  return Summarize(latencies, elapsed);
}

// Submit-to-stream delivery: milliseconds per move; the first acknowledged move whose stream
// event never came (empty when every one came); why the measurement stopped early, if a stream
// ended with an error (empty otherwise).
struct Delivery {
  std::vector<double> ms;
  std::string missed;
  std::string stopped;
};
constexpr auto kStreamWait = std::chrono::seconds(30);

// Submit-to-stream latency over `moves` moves of games watched on a second connection.
Delivery StreamDelivery(Client& mover, Client& watcher, const std::string& game, int moves) {
  Delivery delivery;
  std::vector<double>& out = delivery.ms;
  std::mt19937_64 rng(5);
  // Two new players per game: one player opening a watch per game would meet the server's limit
  // on streams opened per minute (a run watches ~30 Pico games).
  for (int first_player = 900000; static_cast<int>(out.size()) < moves; first_player += 2) {
    v1::Game created;
    if (!mover.CreateGame(game, absl::StrCat("stream-", rng()), first_player, &created).ok()) {
      break;
    }
    const std::string watcher_account = AccountId(first_player);
    v1::WatchGameRequest watch;
    watch.set_game_id(created.game_id());
    watch.set_after_version(created.version());
    grpc::ClientContext context;
    context.AddMetadata("authorization", absl::StrCat("Bearer ", watcher.Token(watcher_account)));
    // A game takes well under a second here: a stream still open after kStreamWait has lost an
    // event, and the tool says so instead of waiting forever.
    context.set_deadline(std::chrono::system_clock::now() + kStreamWait);
    auto reader = watcher.sessions().WatchGame(&context, watch);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    v1::GetGameRequest get;
    get.set_game_id(created.game_id());
    for (;;) {
      v1::GetGameResponse state;
      mover.sessions().GetGame(mover.Context(mover.Token(watcher_account)).get(), get, &state);
      if (state.game().status() == v1::GAME_STATUS_FINISHED) break;
      const std::string actor = state.game().seats(state.game().acting_seats(0)).account_id();
      mover.sessions().GetGame(mover.Context(mover.Token(actor)).get(), get, &state);
      v1::SubmitActionRequest submit;
      submit.set_game_id(created.game_id());
      submit.set_expected_version(state.game().version());
      submit.set_idempotency_key(absl::StrCat("s", rng()));
      *submit.mutable_action() = state.legal_actions(rng() % state.legal_actions_size());
      v1::SubmitActionResponse response;
      const absl::Time start = absl::Now();
      if (!mover.sessions()
               .SubmitAction(mover.Context(mover.Token(actor)).get(), submit, &response)
               .ok()) {
        break;
      }
      // Read until the event of this version (bots may add none here: two players).
      v1::WatchGameResponse event;
      bool got = false;
      while (reader->Read(&event)) {
        if (event.event().version() >= response.game().version()) {
          got = true;
          break;
        }
      }
      if (!got) {
        const grpc::Status ended = reader->Finish();
        if (ended.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
          delivery.missed =
              absl::StrCat("game ", created.game_id(), " version ", response.game().version(),
                           " within ", kStreamWait.count(), " s of the stream's start");
        } else {
          delivery.stopped = absl::StrCat("the stream of game ", created.game_id(),
                                          " ended: ", ended.error_message());
        }
        return delivery;
      }
      out.push_back(absl::ToDoubleMilliseconds(absl::Now() - start));
      if (static_cast<int>(out.size()) >= moves) break;
    }
    context.TryCancel();
    reader->Finish();
  }
  return delivery;
}

// A client-side idle WatchMyGames stream (callback API, so thousands cost little here too).
class IdleStream final : public grpc::ClientReadReactor<v1::WatchMyGamesResponse> {
 public:
  IdleStream(SessionsService::Stub* stub, const std::string& token) {
    context_.AddMetadata("authorization", absl::StrCat("Bearer ", token));
    stub->async()->WatchMyGames(&context_, &request_, this);
    StartRead(&response_);
    StartCall();
  }
  void OnReadDone(bool ok) override {
    if (ok) StartRead(&response_);
  }
  void OnDone(const grpc::Status&) override { done_ = true; }
  void Cancel() { context_.TryCancel(); }
  bool done() const { return done_; }

 private:
  grpc::ClientContext context_;
  v1::WatchMyGamesRequest request_;
  v1::WatchMyGamesResponse response_;
  std::atomic<bool> done_{false};
};

// The server's /metrics text, straight from curl (no file left behind); empty when unreadable.
std::string MetricsText(int metrics_port) {
  FILE* pipe =
      popen(absl::StrCat("curl -s http://127.0.0.1:", metrics_port, "/metrics").c_str(), "r");
  if (pipe == nullptr) return "";
  std::string text;
  char buffer[4096];
  for (size_t n; (n = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0;) text.append(buffer, n);
  if (pclose(pipe) != 0) return "";
  return text;
}

// The value of the first sample of `name` in a /metrics text (a gauge, or a histogram's _sum /
// _count), or -1.
double SampleValue(const std::string& text, const std::string& name) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(name, 0) == 0 && line.size() > name.size() &&
        (line[name.size()] == ' ' || line[name.size()] == '{')) {
      double v = 0;
      if (absl::SimpleAtod(line.substr(line.rfind(' ') + 1), &v)) return v;
    }
  }
  return -1;
}

double ScrapeValue(int metrics_port, const std::string& name) {
  return SampleValue(MetricsText(metrics_port), name);
}

long ScrapeGauge(int metrics_port, const std::string& name) {
  return static_cast<long>(ScrapeValue(metrics_port, name));
}

// The server's counters of its change feed and watch streams.
struct StreamCounters {
  double changes = 0;
  double resyncs = 0;
  double pages = 0;
  double open = 0;
};
StreamCounters ReadStreamCounters(int metrics_port) {
  const std::string text = MetricsText(metrics_port);
  return {.changes = SampleValue(text, "parlor_sessions_watch_changes_total"),
          .resyncs = SampleValue(text, "parlor_sessions_watch_feed_resyncs_total"),
          .pages = SampleValue(text, "parlor_sessions_watch_pages_read_total"),
          .open = SampleValue(text, "parlor_sessions_watch_streams")};
}

// The busiest the machine may be before the run (percent of all cores) for a ratio to the
// baseline to be printed: above it, other work shares the cores with the two measured loads.
constexpr double kMaxBusyPercentForRatio = 15;

// "57 % of pgbench", or "no ratio" when the machine was busy before the run.
std::string PercentOf(double rate, double baseline, bool ratios) {
  if (!ratios) return "no ratio";
  if (baseline <= 0) return "no baseline";
  return absl::StrFormat("%.0f %% of pgbench", 100.0 * rate / baseline);
}

// A run's line: the baseline before the moves (tps, p50, p99), the moves, the ratio of moves/s to
// the baseline (to the mean of the runs before and after the moves, when there is one after),
// then the run after.
std::string RunLine(int games, const Result& before, const Result& after, const Result& moves,
                    bool ratios) {
  const double baseline =
      after.count > 0 ? (before.per_second + after.per_second) / 2 : before.per_second;
  const auto percent = [&](double tps) {
    return absl::StrFormat("%.1f %%", 100.0 * moves.per_second / tps);
  };
  std::string ratio = "no ratio";
  if (ratios) ratio = before.count > 0 ? percent(baseline) : std::string("(no baseline)");
  std::string line = absl::StrFormat(
      "%-6d | %9.0f tps  p50 %6.2f ms  p99 %6.2f ms | %9.0f /s   p50 %6.2f ms  p99 %6.2f ms | "
      "%7s",
      games, before.per_second, before.p50_ms, before.p99_ms, moves.per_second, moves.p50_ms,
      moves.p99_ms, ratio);
  if (after.count > 0) {
    absl::StrAppendFormat(&line, " | %9.0f tps  p50 %6.2f ms  p99 %6.2f ms", after.per_second,
                          after.p50_ms, after.p99_ms);
    if (ratios && before.count > 0) {
      absl::StrAppend(&line, "  (", percent(before.per_second), " of the one before, ",
                      percent(after.per_second), " of the one after)");
    }
  }
  return line;
}

// One row of the table per unit of work (a move, or a pgbench transaction): CPU by process, then
// PostgreSQL's statistics over the same run, then the load average at its end.
std::string PerUnitRow(int games, const char* unit, const CpuPer& cpu, const DbStats& d0,
                       const DbStats& d1, long units, double batch_size) {
  if (units <= 0) return absl::StrFormat("%-6d | %-7s | no units", games, unit);
  const double n = static_cast<double>(units);
  std::string db = "(no statistics)";
  if (d0.ok && d1.ok) {
    const double commits = d1.commits - d0.commits;
    const double syncs = d1.wal_syncs - d0.wal_syncs;
    db = absl::StrFormat(
        "%10s %10s %9s %12s %9.0f %6.2f %6.2f",
        d0.statements && d1.statements ? absl::StrFormat("%.2f", StatementCalls(d0, d1) / n)
                                       : std::string("-"),
        commits > 0 ? absl::StrFormat("%.2f", n / commits) : std::string("-"),
        batch_size > 0 ? absl::StrFormat("%.1f", batch_size) : std::string("-"),
        syncs > 0 ? absl::StrFormat("%.2f", n / syncs) : std::string("-"),
        (d1.wal_bytes - d0.wal_bytes) / n, (d1.wal_fpi - d0.wal_fpi) / n, RowsWritten(d0, d1) / n);
  }
  return absl::StrFormat("%-6d | %-7s | %6.0f %8.0f %6.0f %6.0f %4.0f%% | %s | %s", games, unit,
                         cpu.server, cpu.postgres, cpu.client, cpu.other, cpu.busy_percent, db,
                         LoadAverage());
}

void PrintPerUnit(const std::vector<std::string>& rows, const std::vector<std::string>& tables,
                  const std::vector<std::string>& statements, bool pg_stats) {
  std::printf(
      "per unit of work (a move, or a pgbench transaction), over each run (for each count of\n"
      "  games: pgbench, the moves, and pgbench again after them):\n"
      "  CPU (user + system, us) of the server, the PostgreSQL cluster, the client (this tool or\n"
      "  pgbench) and every other process; busy: the machine's busy share during the run.\n"
      "  statements: pg_stat_statements calls (top level, this database; each is a round trip\n"
      "  unless sent with others: one query string, or pipelined, as a batch's locked read\n"
      "  and write are); per commit: units per committed transaction\n"
      "  (pg_stat_database.xact_commit, reads too); per batch: moves per group-commit\n"
      "  transaction (parlor_sessions_group_commit_batch_size); per WAL sync: units per WAL\n"
      "  flush to disk (pg_stat_wal.wal_sync; none with fsync off); WAL bytes and full-page\n"
      "  images (pg_stat_wal.wal_bytes, wal_fpi; the cluster); rows: inserted + updated +\n"
      "  deleted (pg_stat_user_tables, this database). A move's figures hold all the server did\n"
      "  meanwhile: game creation, GetGame in pvp, the outbox dispatcher (until its counts were\n"
      "  flushed, 11 s after the run).%s\n",
      pg_stats ? "" : " --pg_stats=false: no PostgreSQL statistics.");
  std::printf("%-6s | %-7s | %6s %8s %6s %6s %5s | %10s %10s %9s %12s %9s %6s %6s | %s\n", "games",
              "unit", "server", "postgres", "client", "else", "busy", "statements", "per commit",
              "per batch", "per WAL sync", "WAL bytes", "FPIs", "rows", "load average after");
  std::printf("%s\n\n", absl::StrJoin(rows, "\n").c_str());
  if (!tables.empty()) {
    std::printf(
        "rows written per unit, by table (pg_stat_user_tables; HOT: of the updates):\n%s\n\n",
        absl::StrJoin(tables, "\n").c_str());
  }
  if (!statements.empty()) {
    std::printf(
        "statements of the moves' runs (pg_stat_statements, top level, this database; by total "
        "time):\n"
        "games  |    calls   /move  mean us  total ms rows/call WAL B/call | statement\n%s\n\n",
        absl::StrJoin(statements, "\n").c_str());
  }
}

int Run(const Settings& s) {
  // Before anything of this run uses the machine.
  const double busy_before = BusyShareBefore();
  const std::string load_before = LoadAverage();
  const ClusterInfo cluster = DescribeCluster(s.db_url);
  const auth::KeyPairBase64 access = auth::GenerateKeyPair();
  const auth::KeyPairBase64 service = auth::GenerateKeyPair();
  const std::optional<ChildServerPorts> ports = PortsForChildServer();
  if (!ports.has_value()) return 1;
  const int grpc_port = ports->grpc;
  const int metrics_port = ports->metrics;
  const pid_t child = fork();
  if (child == 0) {
    const std::string a1 = absl::StrCat("--db_url=", s.db_url);
    const std::string a2 = absl::StrCat("--grpc_port=", grpc_port);
    const std::string a3 = absl::StrCat("--metrics_port=", metrics_port);
    const std::string a4 = absl::StrCat("--access_token_public_key=", access.public_key);
    const std::string a5 = absl::StrCat("--service_token_public_key=", service.public_key);
    const std::string a6 = absl::StrCat("--worker_threads=", s.server_workers);
    const std::string a7 = absl::StrCat("--db_max_connections=", s.server_db_connections);
    std::vector<std::string> args = {s.sessions_binary,
                                     "serve",
                                     a1,
                                     a2,
                                     a3,
                                     a4,
                                     a5,
                                     "--page_token_secret=load",
                                     "--log_level=warn",
                                     "--listen_host=127.0.0.1",
                                     "--sweep_interval=0s",
                                     "--dispatch_interval=1s",
                                     a6,
                                     a7,
                                     "--max_receive_message_bytes=1048576"};
    // Each client starts game after game as one account: the load measures moves, not the
    // per-account quotas.
    for (const char* no_quota :
         {"--max_active_games=0", "--max_bot_games_per_hour=0", "--max_actions_per_day=0"}) {
      args.emplace_back(no_quota);
    }
    for (absl::string_view extra : absl::StrSplit(s.server_args, ' ', absl::SkipEmpty())) {
      args.emplace_back(extra);
    }
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(s.sessions_binary.c_str(), argv.data());
    std::perror("exec parlor-sessions");
    _exit(127);
  }
  const ServerProcess server(child);
  for (int signal_number : {SIGINT, SIGTERM, SIGHUP}) std::signal(signal_number, OnSignal);
  const std::string target = absl::StrCat("127.0.0.1:", grpc_port);
  Client client(target, access, service);
  // Wait until it serves.
  for (int i = 0;; ++i) {
    v1::ListMyGamesRequest r;
    v1::ListMyGamesResponse out;
    if (client.sessions()
            .ListMyGames(client.Context(client.Token(AccountId(1))).get(), r, &out)
            .ok()) {
      break;
    }
    if (i > 300) {
      std::fprintf(stderr, "parlor-sessions did not start\n");
      return 1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::printf(
      "game: %s; mode: %s%s; %d s per run; server: parlor-sessions pid %d (%d workers, %d "
      "DB connections), client and server on this machine\n",
      s.game.c_str(), s.mode.c_str(),
      s.mode == "pvp" ? absl::StrCat(" (reads: ", s.pvp_reads, ")").c_str() : "", s.seconds, child,
      s.server_workers, s.server_db_connections);
  const bool durable = cluster.fsync == "on" && cluster.synchronous_commit == "on" &&
                       cluster.full_page_writes == "on";
  std::printf(
      "PostgreSQL %s: fsync=%s synchronous_commit=%s full_page_writes=%s (%s); "
      "pg_stat_statements %s\n",
      cluster.version.c_str(), cluster.fsync.c_str(), cluster.synchronous_commit.c_str(),
      cluster.full_page_writes.c_str(),
      durable ? "PostgreSQL's default durability"
              : "NOT durable: a crash of PostgreSQL loses acknowledged moves",
      cluster.statements ? "loaded" : "not loaded (no statement counts)");
  // The ratio to the baseline means something only when the two had the machine to themselves.
  const bool ratios = busy_before <= kMaxBusyPercentForRatio;
  std::printf(
      "machine before the run: %.0f %% busy over 2 s (all %ld cores), load average %s\n%s\n",
      busy_before, sysconf(_SC_NPROCESSORS_ONLN), load_before.c_str(),
      ratios ? ""
             : absl::StrFormat("machine busy (%.0f %%) before the run: no ratio\n", busy_before)
                   .c_str());
  std::printf("%-6s | %-38s | %-38s | %-7s%s\n", "games", "pgbench UPDATE+INSERT (tps, p50, p99)",
              "SubmitAction (moves/s, p50, p99)", "ratio",
              s.baseline && s.baseline_after
                  ? " | pgbench again, after the moves (the ratio is to the mean of the two)"
                  : "");
  std::atomic<long> errors{0};
  const pid_t postmaster = PostmasterPid(s.db_url);
  std::vector<std::string> per_unit_lines;
  std::vector<std::string> table_lines;
  std::vector<std::string> thread_lines;
  std::vector<std::string> statement_lines;
  std::vector<std::string> outbox_lines;
  std::vector<std::string> floor_lines;
  OutboxState outbox_after = ReadOutbox(s.db_url, metrics_port);
  // The statistics' reads, on a connection of their own (the baseline's tables are made on it).
  pqxx::connection stats(s.db_url);
  absl::Time idle_since = absl::Now();
  for (absl::string_view part : absl::StrSplit(s.games, ',')) {
    int games = 0;
    if (!absl::SimpleAtoi(part, &games) || games < 1 || games > 1000) {
      std::fprintf(stderr, "--games: '%s' is not a count from 1 to 1000\n",
                   std::string(part).c_str());
      return 2;
    }
    // Every count of the previous run (or of the server's start) flushed before the first read.
    if (s.pg_stats) Settle(idle_since);
    DbStats base0;
    const auto read = [&] {
      return s.pg_stats ? ReadDbStats(stats, cluster.statements) : DbStats{};
    };
    const auto read_base0 = [&] { base0 = read(); };
    const CpuUse cpu0 = MeasureCpu(child, postmaster);
    Result base = Result{};
    if (s.baseline) {
      base = Baseline(s, games, stats, read_base0);
      WaitForPgbenchBackends(stats);
    } else {
      read_base0();
    }
    const CpuUse cpu1 = MeasureCpu(child, postmaster);
    const DbStats base1 = s.baseline ? read() : base0;
    const double batches0 =
        ScrapeValue(metrics_port, "parlor_sessions_group_commit_batch_size_count");
    const double batched0 =
        ScrapeValue(metrics_port, "parlor_sessions_group_commit_batch_size_sum");
    const load::ThreadUses threads0 = load::ThreadsOf(child);
    Result mine = Sessions(client, s, games, &errors);
    const load::ThreadUses threads1 = load::ThreadsOf(child);
    const CpuUse cpu2 = MeasureCpu(child, postmaster);
    thread_lines.push_back(
        absl::StrFormat("%-6d | %s", games, load::ThreadsPerUnit(threads0, threads1, mine.count)));
    idle_since = absl::Now();
    const double batches =
        ScrapeValue(metrics_port, "parlor_sessions_group_commit_batch_size_count") - batches0;
    const double batched =
        ScrapeValue(metrics_port, "parlor_sessions_group_commit_batch_size_sum") - batched0;
    const OutboxState outbox_before = outbox_after;
    outbox_after = ReadOutbox(s.db_url, metrics_port);
    outbox_lines.push_back(absl::StrFormat(
        "%-6d | %ld delivered during the run, %ld pending at its end (oldest %.1f s)", games,
        outbox_after.sent - outbox_before.sent, outbox_after.pending, outbox_after.oldest_s));
    if (s.baseline) {
      per_unit_lines.push_back(PerUnitRow(games, "pgbench",
                                          CpuPerUnitFigures(cpu0, cpu1, base.count, true), base0,
                                          base1, base.count, 0));
    }
    if (s.floors) {
      grpc::GenericStub generic(client.channel());
      Result health = Floor(s, games, [&] {
        grpc::ClientContext context;
        // An empty HealthCheckRequest (whole server), as one empty slice: gRPC refuses to send
        // a ByteBuffer with no slice at all.
        grpc::Slice empty("");
        grpc::ByteBuffer request(&empty, 1);
        grpc::ByteBuffer response;
        std::promise<bool> done;
        generic.UnaryCall(&context, "/grpc.health.v1.Health/Check", grpc::StubOptions(), &request,
                          &response, [&done](grpc::Status status) { done.set_value(status.ok()); });
        return done.get_future().get();
      });
      const CpuUse cpu3 = MeasureCpu(child, postmaster);
      const std::string token = client.Token(AccountId(7));
      Result refused = Floor(s, games, [&] {
        v1::ListMyGamesRequest r;
        r.set_page_size(-1);
        v1::ListMyGamesResponse out;
        return client.sessions().ListMyGames(client.Context(token).get(), r, &out).error_code() ==
               grpc::StatusCode::INVALID_ARGUMENT;
      });
      const CpuUse cpu4 = MeasureCpu(child, postmaster);
      floor_lines.push_back(absl::StrFormat(
          "%-6d | gRPC health Check: %9.0f /s  p50 %6.2f ms  p99 %6.2f ms  (%s)\n"
          "       | authenticated call refused before the database: %9.0f /s  p50 %6.2f ms  p99 "
          "%6.2f ms  (%s)\n"
          "       | CPU per health Check: %s\n"
          "       | CPU per refused call: %s",
          games, health.per_second, health.p50_ms, health.p99_ms,
          PercentOf(health.per_second, base.per_second, ratios), refused.per_second, refused.p50_ms,
          refused.p99_ms, PercentOf(refused.per_second, base.per_second, ratios),
          CpuPerUnit(cpu2, cpu3, health.count, false, "call"),
          CpuPerUnit(cpu3, cpu4, refused.count, false, "call")));
    }
    // The moves' figures: after the floors (which use no database), once the server's counts
    // have been flushed; the notification outbox's work after the run is the moves' too.
    if (s.pg_stats) Settle(idle_since);
    const DbStats mine1 = read();
    idle_since = absl::Now();
    per_unit_lines.push_back(PerUnitRow(games, "move",
                                        CpuPerUnitFigures(cpu1, cpu2, mine.count, false), base1,
                                        mine1, mine.count, batches > 0 ? batched / batches : 0));
    // The second baseline, once the moves' counts are read; its own counts for its row.
    Result base_after = Result{};
    std::string base_after_row;
    if (s.baseline && s.baseline_after) {
      DbStats after0;
      const CpuUse cpu5 = MeasureCpu(child, postmaster);
      base_after = Baseline(s, games, stats, [&] { after0 = read(); });
      WaitForPgbenchBackends(stats);
      const CpuUse cpu6 = MeasureCpu(child, postmaster);
      // PostgreSQL 15 flushes a backend's counts when it exits: pgbench's are in.
      const DbStats after1 = read();
      idle_since = absl::Now();
      base_after_row =
          PerUnitRow(games, "pgbench", CpuPerUnitFigures(cpu5, cpu6, base_after.count, true),
                     after0, after1, base_after.count, 0);
    }
    std::printf("%s\n", RunLine(games, base, base_after, mine, ratios).c_str());
    if (!base_after_row.empty()) per_unit_lines.push_back(base_after_row);
    if (mine.count > 0 && base1.ok && mine1.ok) {
      table_lines.push_back(
          absl::StrFormat("%-6d | move    | %s", games,
                          RowsByTable(base1, mine1, static_cast<double>(mine.count))));
      if (s.statements && mine1.statements) {
        statement_lines.push_back(
            absl::StrFormat("%-6d | %.0f moves\n%s", games, static_cast<double>(mine.count),
                            StatementTable(base1, mine1, static_cast<double>(mine.count), 15)));
      }
    }
    if (base.count > 0 && base0.ok && base1.ok) {
      table_lines.push_back(
          absl::StrFormat("%-6d | pgbench | %s", games,
                          RowsByTable(base0, base1, static_cast<double>(base.count))));
    }
    std::fflush(stdout);
  }
  std::printf(
      "SubmitAction errors: %ld\n\nnotification outbox (dispatcher with the logging adapter, "
      "woken by LISTEN):\n%s\n\n",
      errors.load(), absl::StrJoin(outbox_lines, "\n").c_str());
  PrintPerUnit(per_unit_lines, table_lines, statement_lines, s.pg_stats);
  std::printf(
      "the server's CPU per move by thread (name (threads) CPU, context switches; gRPC's own\n"
      "  are nexting_thread and default-executo), over the moves' run:\n%s\n\n",
      absl::StrJoin(thread_lines, "\n").c_str());
  if (!floor_lines.empty()) {
    std::printf(
        "ceilings on this machine (the same client, channel and concurrency; no game, no "
        "database):\n%s\n\n",
        absl::StrJoin(floor_lines, "\n").c_str());
  }

  Client watcher(target, access, service);
  const StreamCounters streams_before = ReadStreamCounters(metrics_port);
  const Delivery delivery = StreamDelivery(client, watcher, s.game, 300);
  std::printf(
      "submit-to-stream delivery (WatchGame on a second connection), %zu moves: p50 %.2f "
      "ms  p99 %.2f ms\n",
      delivery.ms.size(), Percentile(delivery.ms, 0.5), Percentile(delivery.ms, 0.99));
  if (!delivery.stopped.empty()) {
    std::printf("submit-to-stream delivery stopped early: %s\n", delivery.stopped.c_str());
  }
  if (!delivery.missed.empty()) {
    std::printf(
        "submit-to-stream delivery: LOST EVENT: the stream had no event of %s, although the "
        "move was acknowledged\n",
        delivery.missed.c_str());
    // Where the event stopped: at the database's NOTIFY, the replica's feed, or its stream.
    const StreamCounters after = ReadStreamCounters(metrics_port);
    std::printf(
        "  the server's metrics over the stream measurement (%zu moves delivered before it): "
        "its change feed received %.0f changes and reconnected %.0f times; its streams read "
        "%.0f pages; %.0f streams open now\n",
        delivery.ms.size(), after.changes - streams_before.changes,
        after.resyncs - streams_before.resyncs, after.pages - streams_before.pages, after.open);
  }
  // A lost event fails the run (after the rest of the report).
  const int exit_status = delivery.missed.empty() ? 0 : 1;

  // Idle streams (none asked for: nothing to print).
  if (s.streams == 0) return exit_status;
  const long before = RssKiB(child);
  std::vector<std::unique_ptr<Client>> channels;
  std::vector<std::unique_ptr<IdleStream>> streams;
  const int per_channel = 500;
  for (int i = 0; i < s.streams; ++i) {
    if (i % per_channel == 0) channels.push_back(std::make_unique<Client>(target, access, service));
    Client& c = *channels.back();
    streams.push_back(std::make_unique<IdleStream>(&c.sessions(), c.Token(AccountId(2000000 + i))));
  }
  long open = 0;
  for (int i = 0; i < 600; ++i) {
    open = ScrapeGauge(metrics_port, "parlor_sessions_watch_streams");
    if (open >= s.streams) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::this_thread::sleep_for(std::chrono::seconds(2));
  const long after = RssKiB(child);
  std::printf(
      "idle WatchMyGames streams: %ld open (server gauge); server RSS %ld KiB -> %ld KiB: "
      "%.1f KiB per stream\n",
      open, before, after,
      open > 0 ? static_cast<double>(after - before) / static_cast<double>(open) : 0.0);
  for (auto& st : streams) st->Cancel();
  for (int i = 0; i < 100; ++i) {
    bool all = true;
    for (auto& st : streams) all = all && st->done();
    if (all) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  streams.clear();
  channels.clear();
  return exit_status;
}

}  // namespace
}  // namespace parlor::sessions

int main(int argc, char** argv) {
  // As in the servers: abseil's deadlock detection (a graph of every lock order, in every
  // debug-less build of Debian's abseil) was ~3 % of this tool's CPU under load.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  parlor::sessions::Settings s;
  parlor::Flags flags("parlor-sessions-load");
  flags.String("db_url", &s.db_url, "libpq connection string of a PostgreSQL to use", true);
  flags.String("sessions_binary", &s.sessions_binary, "path to parlor-sessions", true);
  flags.String("pgbench", &s.pgbench, "path to pgbench");
  flags.String("game", &s.game, "game to play (default: the first registered)");
  flags.Choice("mode", &s.mode, {"bot", "pvp"},
               "bot: each client plays the computer; pvp: two players per game (plus GetGame)");
  flags.Choice("pvp_reads", &s.pvp_reads, {"both", "mover"},
               "pvp: both: the first player reads the game before every move to learn whose turn "
               "it is, and the mover reads it when that is the other (1.5 GetGame per move); "
               "mover: only the mover reads it, once per move, as a phone does");
  flags.Int("seconds", &s.seconds, "seconds per measured run", {.min = 1, .max = 600});
  flags.String("games", &s.games, "concurrent games of each measured run, comma-separated");
  flags.String("server_args", &s.server_args,
               "more parlor-sessions flags, space-separated (e.g. --group_commit_threads=2)");
  flags.Bool("baseline", &s.baseline, "run the pgbench baseline beside each run");
  flags.Bool("baseline_after", &s.baseline_after,
             "run pgbench again after the moves; the ratio is then to the mean of the two");
  flags.Bool("floors", &s.floors,
             "after each run, measure the ceilings: gRPC health checks and authenticated calls "
             "refused before the database, at the same concurrency");
  flags.Bool("pg_stats", &s.pg_stats,
             "per unit of work: statements, commits, WAL and rows written from PostgreSQL's "
             "statistics (waits 11 s after each run for them to be flushed)");
  flags.Bool("statements", &s.statements,
             "print each run's statements (pg_stat_statements: calls, mean and total time)");
  flags.Int("client_threads", &s.client_threads,
            "threads of the tool's players, each driving its share of the games without blocking "
            "(0: one blocking thread per game)",
            {.min = 0, .max = 64});
  flags.Int("server_workers", &s.server_workers, "--worker_threads of the server",
            {.min = 1, .max = 256});
  flags.Int("server_db_connections", &s.server_db_connections, "--db_max_connections of the server",
            {.min = 1, .max = 256});
  flags.Int("streams", &s.streams, "idle WatchMyGames streams to open", {.min = 0, .max = 100000});
  if (absl::Status status = flags.Parse(argc, argv); !status.ok()) {
    std::fprintf(stderr, "%s\n", std::string(status.message()).c_str());
    return 2;
  }
  if (s.game.empty()) s.game = parlor::engine::AllGames().games().front()->name();
  return parlor::sessions::Run(s);
}
