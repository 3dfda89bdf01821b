#ifndef PARLOR_SERVICES_NOTIFICATIONS_TESTING_FAKE_PROVIDERS_H_
#define PARLOR_SERVICES_NOTIFICATIONS_TESTING_FAKE_PROVIDERS_H_

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "services/notifications/notifications_server.h"
#include "services/notifications/push/json.h"

extern char** environ;

// Runs the fake providers (fake APNs + FCM + OAuth over TLS and HTTP/2) in a temporary directory,
// points a NotificationsConfig at it, and reads back what it received. The directory and the
// process go away with the object. Two fakes keep one contract (--dir, ready.json, the key files,
// the device-token prefixes): services/notifications/testing/fake_push_server.py (Python, the
// reference checker of the tests, logs every request) and parlor-fake-push-provider
// (testing/fake_push_provider.cc, C++ over libnghttp2, for the load tool; logs each answer and,
// with --log_requests, every request).
namespace parlor::notifications::testing {

inline std::string ReadWholeFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream contents;
  contents << file.rdbuf();
  return contents.str();
}

class FakeProviders {
 public:
  // `program`: the path of fake_push_server.py (run with python3) or of
  // parlor-fake-push-provider; `extra_args` go to it.
  static absl::StatusOr<std::unique_ptr<FakeProviders>> Start(
      const std::string& program, const std::vector<std::string>& extra_args = {}) {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "parlor-fake-push-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) return absl::InternalError("mkdtemp failed");
    std::unique_ptr<FakeProviders> fake(new FakeProviders(pattern));
    std::vector<std::string> args;
    if (absl::EndsWith(program, ".py")) args.push_back("/usr/bin/python3");
    args.insert(args.end(), {program, "--dir", fake->dir_});
    args.insert(args.end(), extra_args.begin(), extra_args.end());
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    if (posix_spawn(&fake->pid_, argv[0], nullptr, nullptr, argv.data(), environ) != 0) {
      return absl::InternalError("cannot start the fake providers");
    }
    const std::string ready = fake->dir_ + "/ready.json";
    const absl::Time deadline = absl::Now() + absl::Seconds(90);
    while (!std::filesystem::exists(ready)) {
      int status = 0;
      if (waitpid(fake->pid_, &status, WNOHANG) == fake->pid_) {
        fake->pid_ = 0;
        return absl::InternalError("the fake providers exited at start");
      }
      if (absl::Now() > deadline) return absl::DeadlineExceededError("fake providers not ready");
      absl::SleepFor(absl::Milliseconds(50));
    }
    absl::StatusOr<google::protobuf::Struct> info = json::ParseObject(ReadWholeFile(ready));
    if (!info.ok()) return info.status();
    fake->info_ = *std::move(info);
    return fake;
  }

  ~FakeProviders() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      int status = 0;
      waitpid(pid_, &status, 0);
    }
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  std::string Get(const std::string& key) const { return json::String(info_, key); }
  pid_t pid() const { return pid_; }
  std::string url() const { return Get("url"); }

  // Both providers on, pointing here; fast retries for tests.
  void Configure(NotificationsConfig& config) const {
    config.apns.url = url();
    config.apns.sandbox_url = url();
    config.apns.key_id = Get("apns_key_id");
    config.apns.team_id = Get("apns_team_id");
    config.apns.private_key_pem = ReadWholeFile(Get("apns_key_file"));
    config.fcm.url = url();
    config.fcm_service_account = ReadWholeFile(Get("service_account_file"));
    config.push_ca_file = Get("ca_file");
  }

  // Every request received so far, oldest first (one JSON object each: time, path, headers,
  // body, status, answer, problems).
  std::vector<google::protobuf::Struct> Requests() const {
    std::vector<google::protobuf::Struct> requests;
    for (absl::string_view line :
         absl::StrSplit(ReadWholeFile(Get("log_file")), '\n', absl::SkipEmpty())) {
      absl::StatusOr<google::protobuf::Struct> request = json::ParseObject(line);
      if (request.ok()) requests.push_back(*std::move(request));
    }
    return requests;
  }

  // Every answer so far, oldest first: when (UNIX seconds), its status, and the game id of the
  // push ("-" for none). From the native fake's answers log, else from the request log.
  struct Answer {
    double time = 0;
    int status = 0;
    std::string game_id;
  };
  std::vector<Answer> Answers() const {
    std::vector<Answer> answers;
    if (!Get("answers_file").empty()) {
      for (absl::string_view line :
           absl::StrSplit(ReadWholeFile(Get("answers_file")), '\n', absl::SkipEmpty())) {
        std::vector<absl::string_view> fields = absl::StrSplit(line, ' ');
        Answer a;
        if (fields.size() != 3 || !absl::SimpleAtod(fields[0], &a.time) ||
            !absl::SimpleAtoi(fields[1], &a.status)) {
          continue;
        }
        a.game_id = std::string(fields[2]);
        answers.push_back(std::move(a));
      }
      return answers;
    }
    for (const google::protobuf::Struct& r : Requests()) {
      Answer a;
      a.time = r.fields().at("time").number_value();
      a.status = static_cast<int>(r.fields().at("status").number_value());
      const std::string body = json::String(r, "body");
      const size_t at = body.find("\"game_id\":\"");
      const size_t end = at == std::string::npos ? at : body.find('"', at + 11);
      a.game_id = end == std::string::npos ? "-" : body.substr(at + 11, end - at - 11);
      answers.push_back(std::move(a));
    }
    return answers;
  }

 private:
  explicit FakeProviders(std::string dir) : dir_(std::move(dir)) {}
  std::string dir_;
  pid_t pid_ = 0;
  google::protobuf::Struct info_;
};

}  // namespace parlor::notifications::testing

#endif  // PARLOR_SERVICES_NOTIFICATIONS_TESTING_FAKE_PROVIDERS_H_
