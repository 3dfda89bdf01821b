#ifndef PARLOR_SERVICES_COMMON_CORE_FLAGS_H_
#define PARLOR_SERVICES_COMMON_CORE_FLAGS_H_

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace parlor {

// Configuration from command-line flags and the environment.
//
// Each setting has one name, e.g. `db_url`: it is read from `--db_url=...` (or `--db_url ...`)
// and otherwise from the environment variable `PARLOR_DB_URL`, and otherwise keeps the default
// already stored in its target. A flag beats the environment so that a one-off run can override
// a deployment's settings. Parse() validates everything and reports every problem at once, each
// naming the flag and the variable, so an operator fixes a broken Deployment in one go.
//
//   ServerConfig config;            // defaults live in the struct
//   Flags flags("parlor-accounts");
//   flags.Int("grpc_port", &config.grpc_port, "gRPC listen port", {.min = 0, .max = 65535});
//   if (absl::Status s = flags.Parse(argc, argv); !s.ok()) { ... }
class Flags {
 public:
  using Env = std::function<std::optional<std::string>(const std::string& name)>;

  struct IntRange {
    long long min = 0;
    long long max = 1LL << 40;
  };

  explicit Flags(std::string program, Env env = ProcessEnv());

  void String(std::string name, std::string* target, std::string help, bool required = false);
  // A setting whose value must not show up in logs or usage (keys, passwords in URLs).
  void Secret(std::string name, std::string* target, std::string help, bool required = false);
  void Int(std::string name, int* target, std::string help, IntRange range);
  void Bool(std::string name, bool* target, std::string help);
  // Durations in absl form: "30s", "15m", "1h30m".
  void Duration(std::string name, absl::Duration* target, std::string help, absl::Duration min,
                absl::Duration max);
  // One of a fixed set of words.
  void Choice(std::string name, std::string* target, std::vector<std::string> choices,
              std::string help);

  // Parses argv (argv[0] is the program). Arguments not starting with "--" are returned in
  // `positional` (e.g. the `migrate` subcommand). `--help` yields a NotFound status whose message
  // is the usage text.
  absl::Status Parse(int argc, char** argv, std::vector<std::string>* positional = nullptr);

  std::string Usage() const;

  // Reads the real process environment.
  static Env ProcessEnv();

  // PARLOR_DB_URL for db_url.
  static std::string EnvName(absl::string_view flag);

 private:
  struct Setting {
    std::string help;
    std::string default_text;
    bool required = false;
    bool is_bool = false;
    // Returns an error text for a bad value, or an empty string.
    std::function<std::string(const std::string& value)> assign;
  };

  void Add(std::string name, Setting setting);

  std::string program_;
  Env env_;
  std::map<std::string, Setting> settings_;
};

}  // namespace parlor

#endif  // PARLOR_SERVICES_COMMON_CORE_FLAGS_H_
