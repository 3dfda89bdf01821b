// parlor-notifications-load: events per second through notifications to the fake providers
// (services/notifications/testing/fake_push_server.py, TLS + HTTP/2) with N registered devices,
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
// time (some six statements each, the former way); after: set-based. "none": only the service as
// it is. Each: (2) open loop at --rate events/s for
// --seconds, each a "your turn" for a random device's account, sent in batches as a relay does
// (what fell due since the last call, at most 500): latency percentiles, backlog at the end;
// (3) saturation: batches of 200 as fast as AcceptEvents takes them for --saturation_seconds:
// events/s accepted and pushes/s the providers accepted. The load average is printed beside.
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

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
  std::string fake_script;
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

struct Figures {
  double offered = 0;
  int64_t sent = 0;
  int64_t delivered = 0;
  int64_t backlog = 0;
  std::vector<double> latencies_ms;
  double saturation_events = 0;
  double saturation_pushes = 0;
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
    f.delivered = DeliveredSince(phase2_start, &f.latencies_ms);
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
    return f;
  }

 private:
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
    for (const google::protobuf::Struct& r : fake_->Requests()) {
      const double t = r.fields().at("time").number_value();
      if (t < since || r.fields().at("status").number_value() != 200) continue;
      const std::string body = json::String(r, "body");
      const size_t at = body.find("\"game_id\":\"");
      if (at == std::string::npos) continue;
      auto found = committed_.find(body.substr(at + 11, 36));
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
  std::printf("  saturation: %.0f events/s accepted (batches of 200), %.0f pushes/s delivered\n",
              f.saturation_events, f.saturation_pushes);
}

double LoadAverage() {
  double load[1] = {0};
  return getloadavg(load, 1) == 1 ? load[0] : -1;
}

int Run(const Options& o) {
  std::printf("PostgreSQL: %s\n", o.db_url.c_str());
  std::printf("load average (1 min) at start: %.2f\n", LoadAverage());
  std::printf("baseline: %.0f durable single-row INSERT commits/s (1 client, same server)\n",
              Baseline(o.db_url));
  auto fake = testing::FakeProviders::Start(o.fake_script);
  if (!fake.ok()) {
    std::fprintf(stderr, "fake providers: %s\n", fake.status().ToString().c_str());
    return 1;
  }
  LoadRun run(o, fake->get());
  // Before then after, on the same database and devices.
  std::vector<Mode> modes;
  if (o.compare == "send") {
    modes.push_back({.name = "before: one push at a time per sender thread", .in_flight = 1});
  } else if (o.compare == "accept") {
    modes.push_back({.name = "before: AcceptEvents one event at a time",
                     .accept_one_by_one = true,
                     .in_flight = o.push_in_flight});
  }
  const std::string after =
      absl::StrFormat("after: set-based AcceptEvents, up to %d pushes in flight per sender thread",
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
  parlor::notifications::Options o;
  parlor::Flags flags("parlor-notifications-load");
  flags.String("db_url", &o.db_url, "PostgreSQL to use (a throw-away database)", true);
  flags.String("fake_script", &o.fake_script, "path of fake_push_server.py", true);
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
               "sender thread), accept (AcceptEvents one event at a time), none");
  if (absl::Status parsed = flags.Parse(argc, argv); !parsed.ok()) {
    std::fprintf(stderr, "%s\n", std::string(parsed.message()).c_str());
    return parsed.code() == absl::StatusCode::kNotFound ? 0 : 2;
  }
  if (o.compare != "send" && o.compare != "accept" && o.compare != "none") {
    std::fprintf(stderr, "--compare must be send, accept or none; got \"%s\"\n", o.compare.c_str());
    return 2;
  }
  return parlor::notifications::Run(o);
}
