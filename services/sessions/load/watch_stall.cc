// parlor-watch-stall: the "stall" attack on the watch streams, measured. A finished public
// KA'DICE game of ~12,000 versions, then many WatchGame(after_version=0) streams opened at once,
// each reading as fast as it can, while another player calls GetGame on a game of its own. Prints
// that player's GetGame latency before and during the attack, what became of the streams
// (events received, how they ended), and the server's CPU time and resident memory (also after
// the streams closed). Run it by hand (services/sessions/load/run_watch_stall.sh).
//
//   parlor-watch-stall --db_url=... --sessions_binary=build/services/sessions/parlor-sessions
//       [--streams=300] [--attackers=1] [--seconds=30] [--max_rounds=500] [--server_args="..."]
//
// The long game is played through the API by the tool itself (four seats, all players of the
// tool, each move a random legal one, until KA'DICE's round limit ends it), so it does not
// depend on what Resign does.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "parlor/sessions/v1/sessions.grpc.pb.h"
#include "services/common/core/flags.h"
#include "services/common/core/token.h"
#include "services/sessions/load/free_ports.h"

namespace parlor::sessions {
namespace {

struct Settings {
  std::string db_url;
  std::string sessions_binary;
  std::string server_args;
  int streams = 300;
  int attackers = 1;
  int seconds = 30;
  int max_rounds = 500;
};

std::string AccountId(int i) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "00000000-0000-4000-8000-%012x", i);
  return buf;
}

// The server child, stopped by Die() so that an error never leaves it running.
pid_t g_child = 0;
[[noreturn]] void Die() {
  if (g_child > 0) {
    kill(g_child, SIGTERM);
    waitpid(g_child, nullptr, 0);
  }
  std::exit(1);
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

// CPU seconds (user + system) and resident MB of a process.
struct Usage {
  double cpu_s = 0;
  double rss_mb = 0;
};
Usage UsageOf(pid_t pid) {
  Usage u;
  std::ifstream stat(absl::StrCat("/proc/", pid, "/stat"));
  std::string line;
  std::getline(stat, line);
  std::vector<std::string> fields = absl::StrSplit(line.substr(line.rfind(')') + 2), ' ');
  double utime = 0;
  double stime = 0;
  if (fields.size() > 13 && absl::SimpleAtod(fields[11], &utime) &&
      absl::SimpleAtod(fields[12], &stime)) {
    u.cpu_s = (utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
  }
  std::ifstream status(absl::StrCat("/proc/", pid, "/status"));
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) {
      double kb = 0;
      std::vector<std::string> parts = absl::StrSplit(line, ' ', absl::SkipEmpty());
      if (parts.size() >= 2 && absl::SimpleAtod(parts[1], &kb)) u.rss_mb = kb / 1024.0;
    }
  }
  return u;
}

class Client {
 public:
  Client(const std::string& target, const auth::KeyPairBase64& access,
         const auth::KeyPairBase64& service)
      : access_(*auth::TokenSigner::Create(auth::TokenKind::kAccess, access.private_key)),
        service_(*auth::TokenSigner::Create(auth::TokenKind::kService, service.private_key)),
        channel_(grpc::CreateChannel(target, grpc::InsecureChannelCredentials())),
        sessions_(v1::SessionsService::NewStub(channel_)),
        internal_(v1::SessionsInternalService::NewStub(channel_)) {}

  std::string Token(const std::string& account) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = tokens_.find(account);
    if (it != tokens_.end()) return it->second;
    return tokens_[account] = *access_.Sign(account, "stall", absl::Now(), absl::Hours(2));
  }
  std::string ServiceToken() {
    return *service_.Sign("matchmaking", "", absl::Now(), absl::Hours(1));
  }
  static std::unique_ptr<grpc::ClientContext> Context(const std::string& token, int seconds = 30) {
    auto c = std::make_unique<grpc::ClientContext>();
    c->AddMetadata("authorization", absl::StrCat("Bearer ", token));
    c->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(seconds));
    return c;
  }
  v1::SessionsService::Stub& sessions() { return *sessions_; }
  v1::SessionsInternalService::Stub& internal() { return *internal_; }
  std::shared_ptr<grpc::Channel> channel() { return channel_; }

 private:
  auth::TokenSigner access_;
  auth::TokenSigner service_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::SessionsService::Stub> sessions_;
  std::unique_ptr<v1::SessionsInternalService::Stub> internal_;
  std::mutex mu_;
  std::map<std::string, std::string> tokens_;
};

v1::Game CreateGame(Client& client, const std::string& match, const std::vector<int>& players,
                    int max_rounds, bool is_public) {
  v1::CreateGameRequest r;
  r.set_match_id(match);
  r.set_game("kadice");
  (*r.mutable_options())["max_rounds"] = absl::StrCat(max_rounds);
  if (is_public) r.set_visibility(v1::VISIBILITY_PUBLIC);
  for (int p : players) {
    v1::SeatSpec* seat = r.add_seats();
    seat->set_account_id(AccountId(p));
    seat->set_display_name(absl::StrCat("Stall ", p));
  }
  r.mutable_time_control()->mutable_per_move()->mutable_limit()->set_seconds(7 * 86400);
  v1::CreateGameResponse response;
  grpc::Status s =
      client.internal().CreateGame(Client::Context(client.ServiceToken()).get(), r, &response);
  if (!s.ok()) {
    std::fprintf(stderr, "CreateGame: %s\n", s.error_message().c_str());
    Die();
  }
  return response.game();
}

// Plays random legal moves (each by the seat that must act) until the game ends.
int64_t PlayOut(Client& client, const std::string& game_id) {
  std::mt19937_64 rng(11);
  v1::GetGameRequest get;
  get.set_game_id(game_id);
  v1::GetGameResponse state;
  std::string account = AccountId(1);
  for (;;) {
    grpc::Status s =
        client.sessions().GetGame(Client::Context(client.Token(account)).get(), get, &state);
    if (!s.ok()) {
      std::fprintf(stderr, "GetGame: %s\n", s.error_message().c_str());
      Die();
    }
    if (state.game().status() == v1::GAME_STATUS_FINISHED) return state.game().version();
    const std::string acting = state.game().seats(state.game().acting_seats(0)).account_id();
    if (acting != account || state.legal_actions_size() == 0) {
      account = acting;
      continue;
    }
    v1::SubmitActionRequest submit;
    submit.set_game_id(game_id);
    submit.set_expected_version(state.game().version());
    submit.set_idempotency_key(absl::StrCat("m", state.game().version()));
    *submit.mutable_action() = state.legal_actions(rng() % state.legal_actions_size());
    v1::SubmitActionResponse response;
    s = client.sessions().SubmitAction(Client::Context(client.Token(account)).get(), submit,
                                       &response);
    if (!s.ok()) {
      std::fprintf(stderr, "SubmitAction: %s\n", s.error_message().c_str());
      Die();
    }
    if (state.game().version() % 2000 == 0) {
      std::printf("  ... version %ld\n", static_cast<long>(state.game().version()));
      std::fflush(stdout);
    }
  }
}

// One attacking stream, reading as fast as it can.
class Watcher final : public grpc::ClientReadReactor<v1::WatchGameResponse> {
 public:
  Watcher(v1::SessionsService::Stub& stub, const std::string& token, const std::string& game_id,
          int seconds) {
    context_.AddMetadata("authorization", absl::StrCat("Bearer ", token));
    context_.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(seconds + 60));
    request_.set_game_id(game_id);
    request_.set_after_version(0);
    stub.async()->WatchGame(&context_, &request_, this);
    StartRead(&response_);
    StartCall();
  }
  void OnReadDone(bool ok) override {
    if (!ok) return;
    events_.fetch_add(1);
    StartRead(&response_);
  }
  void OnDone(const grpc::Status& s) override {
    std::lock_guard<std::mutex> lock(mu_);
    status_ = s;
    done_ = true;
  }
  void Cancel() { context_.TryCancel(); }
  long events() const { return events_.load(); }
  bool done() {
    std::lock_guard<std::mutex> lock(mu_);
    return done_;
  }
  grpc::Status status() {
    std::lock_guard<std::mutex> lock(mu_);
    return status_;
  }

 private:
  grpc::ClientContext context_;
  v1::WatchGameRequest request_;
  v1::WatchGameResponse response_;
  std::atomic<long> events_{0};
  std::mutex mu_;
  bool done_ = false;
  grpc::Status status_;
};

// Another player's GetGame calls, one after another, for `seconds`.
struct Latencies {
  std::vector<double> ms;
  int failed = 0;
  std::string first_error;
};
Latencies Victim(Client& client, const std::string& game_id, const std::string& account,
                 absl::Duration d) {
  Latencies out;
  v1::GetGameRequest get;
  get.set_game_id(game_id);
  const absl::Time end = absl::Now() + d;
  while (absl::Now() < end) {
    v1::GetGameResponse response;
    const absl::Time start = absl::Now();
    grpc::Status s =
        client.sessions().GetGame(Client::Context(client.Token(account)).get(), get, &response);
    const double ms = absl::ToDoubleMilliseconds(absl::Now() - start);
    if (s.ok()) {
      out.ms.push_back(ms);
    } else {
      ++out.failed;
      if (out.first_error.empty()) out.first_error = s.error_message();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return out;
}

void PrintLatencies(const char* label, const Latencies& l) {
  std::printf("%s: %zu GetGame calls, p50 %.2f ms, p99 %.2f ms, max %.2f ms, %d failed%s%s\n",
              label, l.ms.size(), Percentile(l.ms, 0.5), Percentile(l.ms, 0.99),
              l.ms.empty() ? 0.0 : *std::max_element(l.ms.begin(), l.ms.end()), l.failed,
              l.first_error.empty() ? "" : " — first: ", l.first_error.c_str());
}

int Run(const Settings& s) {
  const auth::KeyPairBase64 access = auth::GenerateKeyPair();
  const auth::KeyPairBase64 service = auth::GenerateKeyPair();
  const std::optional<ChildServerPorts> ports = PortsForChildServer();
  if (!ports.has_value()) return 1;
  const int grpc_port = ports->grpc;
  const int metrics_port = ports->metrics;
  const pid_t child = fork();
  g_child = child;
  if (child == 0) {
    std::vector<std::string> args = {
        s.sessions_binary,
        "serve",
        absl::StrCat("--db_url=", s.db_url),
        absl::StrCat("--grpc_port=", grpc_port),
        absl::StrCat("--metrics_port=", metrics_port),
        absl::StrCat("--access_token_public_key=", access.public_key),
        absl::StrCat("--service_token_public_key=", service.public_key),
        "--page_token_secret=stall",
        "--log_level=warn",
        "--listen_host=127.0.0.1",
        "--sweep_interval=0s",
        "--dispatch_interval=0s"};
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
  Client client(absl::StrCat("127.0.0.1:", grpc_port), access, service);
  for (int i = 0;; ++i) {
    v1::ListMyGamesResponse out;
    if (client.sessions()
            .ListMyGames(Client::Context(client.Token(AccountId(1))).get(), {}, &out)
            .ok()) {
      break;
    }
    if (i > 300) {
      std::fprintf(stderr, "parlor-sessions did not start\n");
      kill(child, SIGTERM);
      return 1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::printf("parlor-sessions pid %d; %d streams from %d attacking account(s); %d s\n", child,
              s.streams, s.attackers, s.seconds);
  const absl::Time build_start = absl::Now();
  const v1::Game long_game = CreateGame(client, "stall-long", {1, 2, 3, 4}, s.max_rounds, true);
  const int64_t versions = PlayOut(client, long_game.game_id());
  std::printf(
      "long game: KA'DICE, 4 seats, max_rounds=%d, finished at version %ld (played "
      "through the API in %.1f s)\n",
      s.max_rounds, static_cast<long>(versions), absl::ToDoubleSeconds(absl::Now() - build_start));
  // The other player's own small game.
  const v1::Game small = CreateGame(client, "stall-victim", {900, 901}, 30, false);
  const std::string victim = AccountId(900);

  Latencies quiet = Victim(client, small.game_id(), victim, absl::Seconds(5));
  const Usage before = UsageOf(child);
  PrintLatencies("quiet", quiet);
  std::printf("server before the attack: RSS %.1f MB\n", before.rss_mb);

  // The attack: every stream opened at once, on channels of their own (like many phones).
  std::vector<std::unique_ptr<Client>> attackers;
  for (int a = 0; a < s.attackers; ++a) {
    attackers.push_back(
        std::make_unique<Client>(absl::StrCat("127.0.0.1:", grpc_port), access, service));
  }
  std::vector<std::unique_ptr<Watcher>> watchers;
  const absl::Time open_start = absl::Now();
  for (int i = 0; i < s.streams; ++i) {
    Client& c = *attackers[i % s.attackers];
    watchers.push_back(std::make_unique<Watcher>(
        c.sessions(), c.Token(AccountId(1000 + i % s.attackers)), long_game.game_id(), s.seconds));
  }
  std::printf("opened %d streams in %.2f s\n", s.streams,
              absl::ToDoubleSeconds(absl::Now() - open_start));
  Latencies attacked = Victim(client, small.game_id(), victim, absl::Seconds(s.seconds));
  const Usage during = UsageOf(child);
  long events = 0;
  std::map<std::string, int> endings;
  for (auto& w : watchers) {
    events += w->events();
    if (w->done()) {
      grpc::Status st = w->status();
      ++endings[absl::StrCat(st.error_code(), " ", st.error_message().substr(0, 60))];
    } else {
      ++endings["(still open)"];
    }
  }
  PrintLatencies("during the attack", attacked);
  std::printf("server during the attack: %.1f CPU-s in %d s, RSS %.1f MB (peak sample)\n",
              during.cpu_s - before.cpu_s, s.seconds, during.rss_mb);
  std::printf("streams: %ld events received in all (%.0f per stream); endings:\n", events,
              static_cast<double>(events) / s.streams);
  for (const auto& [k, n] : endings) std::printf("  %4d  %s\n", n, k.c_str());
  for (auto& w : watchers) w->Cancel();
  for (int i = 0; i < 100; ++i) {
    bool all = true;
    for (auto& w : watchers) all = all && w->done();
    if (all) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::this_thread::sleep_for(std::chrono::seconds(2));
  const Usage after = UsageOf(child);
  std::printf("server 2 s after the streams closed: RSS %.1f MB\n", after.rss_mb);
  watchers.clear();
  kill(child, SIGTERM);
  int status = 0;
  waitpid(child, &status, 0);
  return 0;
}

}  // namespace
}  // namespace parlor::sessions

int main(int argc, char** argv) {
  parlor::sessions::Settings s;
  parlor::Flags flags("parlor-watch-stall");
  flags.String("db_url", &s.db_url, "libpq connection string of an empty database");
  flags.String("sessions_binary", &s.sessions_binary, "the parlor-sessions binary");
  flags.String("server_args", &s.server_args, "extra flags for parlor-sessions");
  flags.Int("streams", &s.streams, "WatchGame streams opened at once", {.min = 1, .max = 100000});
  flags.Int("attackers", &s.attackers, "accounts the streams are spread over",
            {.min = 1, .max = 100000});
  flags.Int("seconds", &s.seconds, "how long the streams run", {.min = 1, .max = 3600});
  flags.Int("max_rounds", &s.max_rounds, "KA'DICE max_rounds of the long game",
            {.min = 1, .max = 1000});
  if (absl::Status status = flags.Parse(argc, argv); !status.ok()) {
    std::fprintf(stderr, "%s\n", status.ToString().c_str());
    return 2;
  }
  return parlor::sessions::Run(s);
}
