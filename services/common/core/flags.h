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
  // A setting whose value must not show up in logs or usage (keys, passwords in URLs). Besides
  // --name / PARLOR_NAME it can be read from a file named by --name_file / PARLOR_NAME_FILE (a
  // mounted Kubernetes Secret; trailing newlines are dropped), which keeps it out of `ps` and
  // /proc/<pid>/cmdline; setting both is an error.
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

  // After Parse: the values of every secret setting that is set, plus the password inside any
  // that is a PostgreSQL connection string (libpq quotes parts of a bad one in its errors), for
  // RedactInLogs.
  std::vector<std::string> SecretValues() const;

  // After Parse: secret settings given as --name on the command line, where every local user can
  // read them (ps); the caller warns.
  const std::vector<std::string>& secrets_on_command_line() const {
    return secrets_on_command_line_;
  }

  // Reads the real process environment.
  static Env ProcessEnv();

  // PARLOR_DB_URL for db_url.
  static std::string EnvName(absl::string_view flag);

 private:
  struct Setting {
    std::string help;
    std::string default_text = {};
    bool required = false;
    bool is_bool = false;
    bool secret = false;
    // For --x_file settings: the secret setting "x" they supply.
    std::string file_of = {};
    // Returns an error text for a bad value, or an empty string.
    std::function<std::string(const std::string& value)> assign;
  };

  void Add(std::string name, Setting setting);

  std::string program_;
  Env env_;
  std::map<std::string, Setting> settings_;
  std::vector<std::string*> secret_targets_;
  std::vector<std::string> secrets_on_command_line_;
};

}  // namespace parlor

#endif  // PARLOR_SERVICES_COMMON_CORE_FLAGS_H_
