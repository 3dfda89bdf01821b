// parlor-notifications-load: events per second through notifications to the fake providers
// (TLS + HTTP/2: --fake=native, the default, is parlor-fake-push-provider, C++ over libnghttp2;
// --fake=python is services/notifications/testing/fake_push_server.py) with N registered devices,
// and the latency from each event's commit (its commit_time, set by this tool as the sender would)
// to the provider's acceptance (the fake's answer). Prints figures; not a test.
//
//   services/notifications/load/run_load.sh [BUILD_DIR] [--devices=100000 --rate=1000 ...]
//
// Phases: (1) a baseline on the same PostgreSQL: durable single-row INSERT commits per second
// from one client; then, twice on the same database and devices (--compare): "send", the
// default - before: sender threads that send one push at a time (--push_in_flight=1, the former
// way); after: the service as it is (up to --push_in_flight pushes in flight per sender, as
// concurrent streams of its HTTP/2 connection). "accept" - before: AcceptEvents one event at a
// time (some six statements each, the former way); after: set-based. "queue" - before: the former
// queue (a claim leased a push by moving its due_time, an entry in each index per claim;
// PostgreSQL planned full scans of a queue it saw empty; every sender thread woke for each
// batch); after: lease_time (an in-place HOT update), index scans only, one sender woken. "none":
// only the service as it is. Each: (2) open loop at --rate events/s for
// --seconds, each a "your turn" for a random device's account, sent in batches as a relay does
// (what fell due since the last call, at most 500): latency percentiles, backlog at the end;
// (3) saturation: batches of 200 as fast as AcceptEvents takes them for --saturation_seconds:
// events/s accepted and pushes/s the providers accepted. The load average is printed beside,
// and for the open loop (until its queue is empty) the CPU per push by part: the service (this
// process but its main thread), the tool (the main thread: the events, the gRPC client), the
// fake providers, PostgreSQL (--pg_pid: the postmaster and its backends), the rest of the machine
// (/proc/stat); and PostgreSQL's commits, rows written and WAL bytes per push.
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/util/time_util.h"
#include "parlor/notifications/v1/notifications.grpc.pb.h"
#include "pqxx/pqxx"
#include "services/common/core/flags.h"
#include "services/common/testing/test_server.h"
#include "services/notifications/notifications_server.h"
#include "services/notifications/testing/fake_providers.h"
#include "services/notifications/testing/ids.h"

namespace parlor::notifications {
namespace {

using google::protobuf::util::TimeUtil;

struct Options {
  std::string db_url;
  std::string fake = "native";
  std::string fake_binary;
  std::string fake_script;
  int pg_pid = 0;
  bool statements = false;
  int devices = 100000;
  int rate = 1000;
  int seconds = 20;
  int saturation_seconds = 10;
  int push_threads = 4;
  int push_in_flight = 100;
  std::string compare = "send";
};

// One measured configuration of the service.
struct Mode {
  const char* name;
  bool accept_one_by_one = false;
  bool former_queue = false;
  int in_flight = 1;
};

std::string Percentiles(std::vector<double> ms) {
  if (ms.empty()) return "no samples";
  std::sort(ms.begin(), ms.end());
  auto at = [&](double q) {
    return ms[std::min(ms.size() - 1, static_cast<size_t>(q * ms.size()))];
  };
  return absl::StrFormat("p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms (%zu pushes)", at(0.5),
                         at(0.9), at(0.99), ms.back(), ms.size());
}

double Baseline(const std::string& db_url) {
  pqxx::connection c(db_url);
  pqxx::nontransaction(c).exec0("CREATE TABLE IF NOT EXISTS load_baseline (id BIGSERIAL, v TEXT)");
  const absl::Time end = absl::Now() + absl::Seconds(3);
  int commits = 0;
  while (absl::Now() < end) {
    pqxx::work txn(c);
    txn.exec0("INSERT INTO load_baseline (v) VALUES ('x')");
    txn.commit();
    ++commits;
  }
  pqxx::nontransaction(c).exec0("DROP TABLE load_baseline");
  return commits / 3.0;
}

// CPU seconds used so far, by part.
struct Cpu {
  double tool = 0;
  double service = 0;
  double fake = 0;
  double postgres = 0;
  double machine = 0;  // every process on the machine (busy time of all cores)
};

double ThreadCpu(clockid_t clock) {
  timespec t{};
  clock_gettime(clock, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

// utime + stime (+ cutime + cstime: children it reaped) of a process, and its parent, from
// /proc/<pid>/stat.
struct ProcStat {
  double own = 0;
  double reaped = 0;
  int ppid = 0;
};
std::optional<ProcStat> ReadProcStat(const std::string& path) {
  std::ifstream file(path);
  std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const size_t close = text.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::vector<std::string> f = absl::StrSplit(text.substr(close + 2), ' ');
  // After the name: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14).
  if (f.size() < 15) return std::nullopt;
  const double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
  ProcStat stat;
  stat.ppid = std::atoi(f[1].c_str());
  stat.own = (std::atof(f[11].c_str()) + std::atof(f[12].c_str())) / tick;
  stat.reaped = (std::atof(f[13].c_str()) + std::atof(f[14].c_str())) / tick;
  return stat;
}

// The postmaster's CPU with the backends it reaped, plus its live children's.
double PostgresCpu(int pg_pid) {
  if (pg_pid <= 0) return 0;
  std::optional<ProcStat> postmaster = ReadProcStat(absl::StrCat("/proc/", pg_pid, "/stat"));
  if (!postmaster.has_value()) return 0;
  double total = postmaster->own + postmaster->reaped;
  std::error_code ignored;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ignored)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || !absl::ascii_isdigit(name[0])) continue;
    std::optional<ProcStat> child = ReadProcStat(entry.path().string() + "/stat");
    if (child.has_value() && child->ppid == pg_pid) total += child->own;
  }
  return total;
}

// Busy time of all cores (user, nice, system, irq, softirq, steal), from /proc/stat.
double MachineBusy() {
  std::ifstream file("/proc/stat");
  std::string cpu;
  double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  file >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal;
  return (user + nice + system + irq + softirq + steal) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// PostgreSQL's own counters of the load database: commits, rows written, WAL bytes.
struct PgCounters {
  double statements = 0;  // pg_stat_statements' calls, when it is loaded (else 0)
  double commits = 0;
  double rows = 0;
  double wal_bytes = 0;
};

PgCounters ReadPgCounters(const std::string& db_url) {
  pqxx::connection c(db_url);
  pqxx::nontransaction txn(c);
  txn.exec("SELECT pg_stat_clear_snapshot()");
  const pqxx::row row = txn.exec1(
      "SELECT xact_commit, tup_inserted + tup_updated + tup_deleted, "
      "(SELECT wal_bytes FROM pg_stat_wal) FROM pg_stat_database WHERE datname = "
      "current_database()");
  PgCounters counters{0, row[0].as<double>(), row[1].as<double>(), row[2].as<double>()};
  if (txn.exec1("SELECT count(*) FROM pg_extension WHERE extname = 'pg_stat_statements'")[0]
          .as<int>() > 0) {
    counters.statements =
        txn.exec1(
               "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements s JOIN pg_database d "
               "ON d.oid = s.dbid WHERE d.datname = current_database()")[0]
            .as<double>();
  }
  return counters;
}

struct Figures {
  double offered = 0;
  int64_t sent = 0;
  int64_t delivered = 0;
  int64_t backlog = 0;
  std::vector<double> latencies_ms;
  double saturation_events = 0;
  double saturation_pushes = 0;
  Cpu cpu;  // used during the open loop and its drain
  PgCounters pg;
  std::string statements;  // --statements: the open loop's statements by total time
};

class LoadRun {
 public:
  LoadRun(const Options& o, testing::FakeProviders* fake) : o_(o), fake_(fake) {}

  // One service in `mode`: the open-loop phase, then saturation.
  absl::StatusOr<Figures> Measure(const Mode& mode) {
    NotificationsConfig config;
    fake_->Configure(config);
    config.delivery.threads = o_.push_threads;
    config.delivery.poll_interval = absl::Milliseconds(100);
    config.delivery.in_flight = mode.in_flight;
    config.accept_one_by_one = mode.accept_one_by_one;
    config.former_queue = mode.former_queue;
    config.delivery.wake_all = mode.former_queue;
    if (absl::Status s = FinalizeNotificationsConfig(config); !s.ok()) return s;
    ServerConfig server_config = parlor::testing::TestServerConfig(o_.db_url, keys_);
    server_config.db_max_connections = 16;
    auto server = parlor::testing::TestServer::Start(
        NotificationsIdentity(), server_config,
        [&config](ServiceHost& host) { return InstallNotifications(host, config); });
    if (!server.ok()) return server.status();
    if (accounts_.empty()) RegisterDevices();
    stub_ = v1::NotificationsInternalService::NewStub((*server)->channel());
    Figures f;
    if (o_.statements) ResetStatements();
    const Cpu cpu_before = CpuNow();
    const PgCounters pg_before = ReadPgCounters(o_.db_url);
    // Open loop at --rate.
    const double phase2_start = absl::ToDoubleSeconds(absl::Now() - absl::UnixEpoch());
    const absl::Time start = absl::Now();
    const absl::Time end = start + absl::Seconds(o_.seconds);
    int64_t sent = 0;
    while (absl::Now() < end) {
      const int64_t due =
          static_cast<int64_t>(absl::ToDoubleSeconds(absl::Now() - start) * o_.rate) - sent;
      if (due > 0) {
        const int count = static_cast<int>(std::min<int64_t>(due, 500));
        if (!Send(count)) return absl::InternalError("AcceptEvents failed");
        sent += count;
      } else {
        absl::SleepFor(absl::Milliseconds(2));
      }
    }
    f.sent = sent;
    f.offered = sent / absl::ToDoubleSeconds(absl::Now() - start);
    f.backlog = QueueDepth();
    WaitForEmptyQueue(absl::Seconds(60));
    const Cpu cpu_after = CpuNow();
    f.cpu = {cpu_after.tool - cpu_before.tool, cpu_after.service - cpu_before.service,
             cpu_after.fake - cpu_before.fake, cpu_after.postgres - cpu_before.postgres,
             cpu_after.machine - cpu_before.machine};
    // An idle backend reports its counters within 10 s (PostgreSQL 15).
    absl::SleepFor(absl::Seconds(11));
    const PgCounters pg_after = ReadPgCounters(o_.db_url);
    f.pg = {pg_after.statements - pg_before.statements, pg_after.commits - pg_before.commits,
            pg_after.rows - pg_before.rows, pg_after.wal_bytes - pg_before.wal_bytes};
    f.delivered = DeliveredSince(phase2_start, &f.latencies_ms);
    if (o_.statements) f.statements = Statements(f.delivered);
    // Saturation.
    const double phase3_start = absl::ToDoubleSeconds(absl::Now() - absl::UnixEpoch());
    const absl::Time sat_start = absl::Now();
    int64_t accepted = 0;
    while (absl::Now() < sat_start + absl::Seconds(o_.saturation_seconds)) {
      if (!Send(200)) return absl::InternalError("AcceptEvents failed");
      accepted += 200;
    }
    const double sat_seconds = absl::ToDoubleSeconds(absl::Now() - sat_start);
    WaitForEmptyQueue(absl::Seconds(120));
    const double drained_seconds = absl::ToDoubleSeconds(absl::Now() - sat_start);
    if (sat_seconds > 0) {
      f.saturation_events = accepted / sat_seconds;
      f.saturation_pushes = DeliveredSince(phase3_start, nullptr) / drained_seconds;
    }
    stub_.reset();
    server->reset();
    // The next service starts from an empty inbox and queue (the devices stay).
    pqxx::connection c(o_.db_url);
    pqxx::nontransaction(c).exec0(
        "TRUNCATE notifications.deliveries, notifications.events, notifications.turns");
    Warm();
    return f;
  }

 private:
  void ResetStatements() {
    pqxx::connection c(o_.db_url);
    pqxx::nontransaction(c).exec("SELECT pg_stat_statements_reset()");
  }

  // PostgreSQL's time per statement of the open loop (pg_stat_statements), biggest first.
  std::string Statements(int64_t pushes) {
    pqxx::connection c(o_.db_url);
    std::string out = "    calls   rows  total ms  mean us  us/push  statement\n";
    for (const pqxx::row& row : pqxx::nontransaction(c).exec(
             "SELECT calls, rows, total_exec_time, mean_exec_time * 1000, "
             "left(regexp_replace(query, '\\s+', ' ', 'g'), 90) FROM pg_stat_statements s "
             "JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = current_database() "
             "ORDER BY total_exec_time DESC LIMIT 12")) {
      absl::StrAppendFormat(&out, "  %7d %6d %9.1f %8.1f %8.1f  %s\n", row[0].as<int64_t>(),
                            row[1].as<int64_t>(), row[2].as<double>(), row[3].as<double>(),
                            row[2].as<double>() * 1000 / std::max<int64_t>(1, pushes),
                            row[4].c_str());
    }
    return out;
  }

  Cpu CpuNow() const {
    Cpu cpu;
    cpu.tool = ThreadCpu(CLOCK_THREAD_CPUTIME_ID);
    cpu.service = ThreadCpu(CLOCK_PROCESS_CPUTIME_ID) - cpu.tool;
    if (std::optional<ProcStat> fake = ReadProcStat(absl::StrCat("/proc/", fake_->pid(), "/stat"));
        fake.has_value()) {
      cpu.fake = fake->own;
    }
    cpu.postgres = PostgresCpu(o_.pg_pid);
    cpu.machine = MachineBusy();
    return cpu;
  }

  void RegisterDevices() {
    // N devices, half APNs, half FCM, one per account.
    pqxx::connection c(o_.db_url);
    pqxx::work txn(c);
    txn.exec_params0(
        "INSERT INTO notifications.devices (account_id, platform, token, locale, time_zone, "
        "app_id, sandbox, create_time, update_time) "
        "SELECT gen_random_uuid(), 1 + i % 2, CASE WHEN i % 2 = 0 THEN "
        "  md5(i::text) || md5((i + 1)::text) ELSE 'fcm:load-' || i || '-' || md5(i::text) END, "
        "'en', 'UTC', 'com.parlor.app', false, now(), now() FROM generate_series(1, $1) i",
        o_.devices);
    for (const pqxx::row& row : txn.exec("SELECT account_id::text FROM notifications.devices")) {
      accounts_.push_back(row[0].as<std::string>());
    }
    txn.commit();
    std::printf("devices: %zu registered (half APNs, half FCM)\n", accounts_.size());
    Warm();
  }

  // A running service's tables, not empty ones: every account has a turn state (a game where it
  // is the other player's turn) and a read entry in its inbox, and the tables have statistics.
  // From empty tables PostgreSQL plans the fan-out's badge count (turns of the account) and the
  // queue's foreign-key check of each push's event as scans of the whole, empty, table; those
  // plans stay cached on each pooled connection until autovacuum analyzes the table (a minute
  // or more) while the tables grow by a row per event: the fan-out took some 50 ms per batch of
  // 50 events at 20,000 rows, and PostgreSQL's CPU per push doubled over a 20 s run.
  void Warm() {
    pqxx::connection c(o_.db_url);
    pqxx::nontransaction txn(c);
    txn.exec0(
        "INSERT INTO notifications.turns (account_id, game_id, version, my_turn) "
        "SELECT account_id, 'warm-' || device_id, 1, false FROM notifications.devices "
        "ON CONFLICT DO NOTHING");
    txn.exec0(
        "INSERT INTO notifications.events (dedupe_key, account_id, kind, game_id, game, version, "
        "title_loc_key, loc_key, loc_args, deep_link, commit_time, create_time, in_inbox, "
        "read_time) SELECT 'warm:' || device_id, account_id, 4, 'warm-' || device_id, 'pico', 1, "
        "'game_over.title', 'game_over.body', '{Tess}', 'parlor://home', now(), now(), true, "
        "now() FROM notifications.devices ON CONFLICT DO NOTHING");
    txn.exec0(
        "ANALYZE notifications.devices, notifications.turns, notifications.events, "
        "notifications.deliveries");
  }

  bool Send(int count) {
    v1::AcceptEventsRequest request;
    const absl::Time now = absl::Now();
    for (int i = 0; i < count; ++i) {
      v1::Event* e = request.add_events();
      const std::string game = testing::NewUuid();
      e->set_dedupe_key(absl::StrCat("load:", game));
      e->set_account_id(accounts_[random_() % accounts_.size()]);
      e->set_kind(v1::EVENT_KIND_YOUR_TURN);
      e->set_game_id(game);
      e->set_game("pico");
      e->set_version(1);
      e->add_opponent_names("Tess");
      *e->mutable_commit_time() = TimeUtil::MicrosecondsToTimestamp(absl::ToUnixMicros(now));
      committed_[game] = now;
    }
    v1::AcceptEventsResponse response;
    const grpc::Status status =
        stub_->AcceptEvents(parlor::testing::Bearer(credential_).get(), request, &response);
    if (!status.ok()) {
      std::fprintf(stderr, "AcceptEvents: %s\n", status.error_message().c_str());
      return false;
    }
    return true;
  }

  int64_t DeliveredSince(double since, std::vector<double>* latencies_ms) {
    int64_t count = 0;
    for (const testing::FakeProviders::Answer& a : fake_->Answers()) {
      const double t = a.time;
      if (t < since || a.status != 200) continue;
      auto found = committed_.find(a.game_id);
      if (found == committed_.end()) continue;
      ++count;
      if (latencies_ms != nullptr) {
        latencies_ms->push_back((t - absl::ToDoubleSeconds(found->second - absl::UnixEpoch())) *
                                1000);
      }
    }
    return count;
  }

  int64_t QueueDepth() {
    pqxx::connection c(o_.db_url);
    return pqxx::nontransaction(c)
        .exec1("SELECT count(*) FROM notifications.deliveries")[0]
        .as<int64_t>();
  }

  void WaitForEmptyQueue(absl::Duration limit) {
    const absl::Time deadline = absl::Now() + limit;
    while (QueueDepth() > 0 && absl::Now() < deadline) absl::SleepFor(absl::Milliseconds(100));
  }

  const Options& o_;
  testing::FakeProviders* fake_;
  parlor::testing::TestKeys keys_;
  const std::string credential_ = keys_.ServiceToken("sessions");
  std::vector<std::string> accounts_;
  std::unique_ptr<v1::NotificationsInternalService::Stub> stub_;
  std::mt19937_64 random_{42};
  std::map<std::string, absl::Time> committed_;  // game id -> commit time
};

void Print(const char* name, const Options& o, const Figures& f) {
  std::printf(
      "%s: open loop %ld events in %d s (%.0f events/s offered of %d asked), %ld pushes accepted "
      "by the providers, queue %ld at the end of sending\n",
      name, static_cast<long>(f.sent), o.seconds, f.offered, o.rate, static_cast<long>(f.delivered),
      static_cast<long>(f.backlog));
  std::printf("  commit -> provider acceptance: %s\n", Percentiles(f.latencies_ms).c_str());
  const double n = static_cast<double>(std::max<int64_t>(1, f.delivered));
  const Cpu& c = f.cpu;
  const double ours = c.tool + c.service + c.fake + c.postgres;
  std::printf(
      "  CPU per push (open loop until its queue was empty): service %.3f ms, PostgreSQL %.3f ms, "
      "fake providers %.3f ms, tool %.3f ms = %.3f ms; the rest of the machine used %.1f CPU-s "
      "meanwhile\n",
      c.service / n * 1000, o.pg_pid > 0 ? c.postgres / n * 1000 : -1, c.fake / n * 1000,
      c.tool / n * 1000, ours / n * 1000, std::max(0.0, c.machine - ours));
  std::printf(
      "  PostgreSQL per push: %.2f statements (pg_stat_statements calls%s), %.2f commits, %.2f "
      "rows written, %.0f WAL bytes\n",
      f.pg.statements / n, f.pg.statements > 0 ? "" : ": not loaded", f.pg.commits / n,
      f.pg.rows / n, f.pg.wal_bytes / n);
  if (!f.statements.empty()) std::printf("%s", f.statements.c_str());
  std::printf("  saturation: %.0f events/s accepted (batches of 200), %.0f pushes/s delivered\n",
              f.saturation_events, f.saturation_pushes);
}

double LoadAverage() {
  double load[1] = {0};
  return getloadavg(load, 1) == 1 ? load[0] : -1;
}

int Run(const Options& o) {
  std::printf("PostgreSQL: %s\n", o.db_url.c_str());
  {
    pqxx::connection c(o.db_url);
    pqxx::nontransaction txn(c);
    std::printf("PostgreSQL durability: fsync %s, synchronous_commit %s, full_page_writes %s\n",
                txn.exec1("SHOW fsync")[0].c_str(), txn.exec1("SHOW synchronous_commit")[0].c_str(),
                txn.exec1("SHOW full_page_writes")[0].c_str());
  }
  cpu_set_t cores;
  CPU_ZERO(&cores);
  sched_getaffinity(0, sizeof(cores), &cores);
  std::printf("cores this tool may use: %d of %ld; fake providers: %s\n", CPU_COUNT(&cores),
              sysconf(_SC_NPROCESSORS_ONLN), o.fake.c_str());
  std::printf("load average (1 min) at start: %.2f\n", LoadAverage());
  std::printf("baseline: %.0f durable single-row INSERT commits/s (1 client, same server)\n",
              Baseline(o.db_url));
  auto fake = o.fake == "native" ? testing::FakeProviders::Start(o.fake_binary)
                                 : testing::FakeProviders::Start(o.fake_script);
  if (!fake.ok()) {
    std::fprintf(stderr, "fake providers: %s\n", fake.status().ToString().c_str());
    return 1;
  }
  LoadRun run(o, fake->get());
  // Before then after, on the same database and devices.
  std::vector<Mode> modes;
  if (o.compare == "send") {
    modes.push_back({.name = "before: one push at a time per sender thread", .in_flight = 1});
  } else if (o.compare == "queue") {
    modes.push_back({.name =
                         "before: the former queue (a claim moves due_time, plans as PostgreSQL "
                         "likes, every sender woken per batch)",
                     .former_queue = true,
                     .in_flight = o.push_in_flight});
  } else if (o.compare == "accept") {
    modes.push_back({.name = "before: AcceptEvents one event at a time",
                     .accept_one_by_one = true,
                     .in_flight = o.push_in_flight});
  }
  const std::string after = absl::StrFormat(
      "after: set-based AcceptEvents, claims in lease_time (HOT), index scans only, one "
      "sender woken per batch, up to %d pushes in flight per sender thread",
      o.push_in_flight);
  modes.push_back({.name = after.c_str(), .in_flight = o.push_in_flight});
  for (const Mode& mode : modes) {
    absl::StatusOr<Figures> figures = run.Measure(mode);
    if (!figures.ok()) {
      std::fprintf(stderr, "%s\n", figures.status().ToString().c_str());
      return 1;
    }
    Print(mode.name, o, *figures);
    std::printf("  load average (1 min): %.2f\n", LoadAverage());
  }
  return 0;
}

}  // namespace
}  // namespace parlor::notifications

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each line as it comes, also into a file
  parlor::notifications::Options o;
  parlor::Flags flags("parlor-notifications-load");
  flags.String("db_url", &o.db_url, "PostgreSQL to use (a throw-away database)", true);
  flags.String("fake", &o.fake,
               "fake providers: native (parlor-fake-push-provider) or python "
               "(fake_push_server.py)");
  flags.String("fake_binary", &o.fake_binary, "path of parlor-fake-push-provider (--fake=native)");
  flags.String("fake_script", &o.fake_script, "path of fake_push_server.py (--fake=python)");
  flags.Bool("statements", &o.statements,
             "print PostgreSQL's time per statement of each open loop (pg_stat_statements)");
  flags.Int("pg_pid", &o.pg_pid, "PostgreSQL's postmaster pid, for its CPU (0: not measured)",
            {.min = 0, .max = 1 << 30});
  flags.Int("devices", &o.devices, "devices to register (one per account)",
            {.min = 1, .max = 10'000'000});
  flags.Int("rate", &o.rate, "events per second in the open-loop phase", {.min = 1, .max = 100000});
  flags.Int("seconds", &o.seconds, "length of the open-loop phase", {.min = 1, .max = 3600});
  flags.Int("saturation_seconds", &o.saturation_seconds, "length of the saturation phase",
            {.min = 0, .max = 3600});
  flags.Int("push_threads", &o.push_threads, "the service's sender threads", {.min = 1, .max = 64});
  flags.Int("push_in_flight", &o.push_in_flight,
            "pushes a sender thread has in flight at once (HTTP/2 streams)",
            {.min = 1, .max = 1000});
  flags.String("compare", &o.compare,
               "what to measure first, before the service as it is: send (one push at a time per "
               "sender thread), accept (AcceptEvents one event at a time), queue (the former "
               "queue: a claim moves due_time, plans as PostgreSQL likes, every sender woken), "
               "none");
  if (absl::Status parsed = flags.Parse(argc, argv); !parsed.ok()) {
    std::fprintf(stderr, "%s\n", std::string(parsed.message()).c_str());
    return parsed.code() == absl::StatusCode::kNotFound ? 0 : 2;
  }
  if (o.fake != "native" && o.fake != "python") {
    std::fprintf(stderr, "--fake must be native or python; got \"%s\"\n", o.fake.c_str());
    return 2;
  }
  if ((o.fake == "native" ? o.fake_binary : o.fake_script).empty()) {
    std::fprintf(stderr, "--fake=%s needs --fake_%s\n", o.fake.c_str(),
                 o.fake == "native" ? "binary" : "script");
    return 2;
  }
  if (o.compare != "send" && o.compare != "accept" && o.compare != "queue" && o.compare != "none") {
    std::fprintf(stderr, "--compare must be send, accept, queue or none; got \"%s\"\n",
                 o.compare.c_str());
    return 2;
  }
  return parlor::notifications::Run(o);
}
