#include "services/common/core/flags.h"

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace parlor {

Flags::Flags(std::string program, Env env) : program_(std::move(program)), env_(std::move(env)) {}

Flags::Env Flags::ProcessEnv() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  };
}

std::string Flags::EnvName(absl::string_view flag) {
  return absl::StrCat("PARLOR_", absl::AsciiStrToUpper(flag));
}

void Flags::Add(std::string name, Setting setting) {
  settings_[std::move(name)] = std::move(setting);
}

void Flags::String(std::string name, std::string* target, std::string help, bool required) {
  Add(std::move(name), Setting{.help = std::move(help),
                               .default_text = *target,
                               .required = required,
                               .assign = [target](const std::string& value) {
                                 *target = value;
                                 return std::string();
                               }});
}

void Flags::Secret(std::string name, std::string* target, std::string help, bool required) {
  secret_targets_.push_back(target);
  Add(absl::StrCat(name, "_file"),
      Setting{.help = absl::StrCat("file holding --", name,
                                   " (preferred over the flag: keeps it out of the process list)"),
              .file_of = name,
              .assign = [target](const std::string& path) {
                std::ifstream file(path, std::ios::binary);
                std::ostringstream contents;
                contents << file.rdbuf();
                if (!file.good()) return absl::StrCat("cannot read the file \"", path, "\"");
                std::string value = contents.str();
                while (!value.empty() && (value.back() == '\n' || value.back() == '\r')) {
                  value.pop_back();
                }
                if (value.empty()) return absl::StrCat("the file \"", path, "\" is empty");
                *target = std::move(value);
                return std::string();
              }});
  Add(std::move(name), Setting{.help = std::move(help),
                               .default_text = target->empty() ? "" : "(set)",
                               .required = required,
                               .secret = true,
                               .assign = [target](const std::string& value) {
                                 *target = value;
                                 return std::string();
                               }});
}

void Flags::Int(std::string name, int* target, std::string help, IntRange range) {
  Add(std::move(name), Setting{.help = std::move(help),
                               .default_text = absl::StrCat(*target),
                               .assign = [target, range](const std::string& value) {
                                 long long parsed = 0;
                                 if (!absl::SimpleAtoi(value, &parsed)) {
                                   return absl::StrCat("\"", value, "\" is not an integer");
                                 }
                                 if (parsed < range.min || parsed > range.max) {
                                   return absl::StrCat(parsed, " is outside ", range.min, "..",
                                                       range.max);
                                 }
                                 *target = static_cast<int>(parsed);
                                 return std::string();
                               }});
}

void Flags::Bool(std::string name, bool* target, std::string help) {
  Add(std::move(name), Setting{.help = std::move(help),
                               .default_text = *target ? "true" : "false",
                               .is_bool = true,
                               .assign = [target](const std::string& value) {
                                 if (!absl::SimpleAtob(value, target)) {
                                   return absl::StrCat("\"", value, "\" is not true or false");
                                 }
                                 return std::string();
                               }});
}

void Flags::Duration(std::string name, absl::Duration* target, std::string help, absl::Duration min,
                     absl::Duration max) {
  Add(std::move(name),
      Setting{.help = std::move(help),
              .default_text = absl::FormatDuration(*target),
              .assign = [target, min, max](const std::string& value) {
                absl::Duration parsed;
                if (!absl::ParseDuration(value, &parsed)) {
                  return absl::StrCat("\"", value, "\" is not a duration (e.g. 30s, 15m, 1h)");
                }
                if (parsed < min || parsed > max) {
                  return absl::StrCat(absl::FormatDuration(parsed), " is outside ",
                                      absl::FormatDuration(min), "..", absl::FormatDuration(max));
                }
                *target = parsed;
                return std::string();
              }});
}

void Flags::Choice(std::string name, std::string* target, std::vector<std::string> choices,
                   std::string help) {
  std::string listed = absl::StrJoin(choices, "|");
  Add(std::move(name),
      Setting{.help = absl::StrCat(help, " (", listed, ")"),
              .default_text = *target,
              .assign = [target, choices = std::move(choices), listed](const std::string& value) {
                for (const std::string& choice : choices) {
                  if (choice == value) {
                    *target = value;
                    return std::string();
                  }
                }
                return absl::StrCat("\"", value, "\" is not one of ", listed);
              }});
}

absl::Status Flags::Parse(int argc, char** argv, std::vector<std::string>* positional) {
  std::map<std::string, std::string> from_flags;
  std::vector<std::string> errors;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") return absl::NotFoundError(Usage());
    if (arg.rfind("--", 0) != 0) {
      if (positional != nullptr) {
        positional->push_back(arg);
      } else {
        errors.push_back(absl::StrCat("unexpected argument \"", arg, "\""));
      }
      continue;
    }
    std::string name = arg.substr(2);
    std::optional<std::string> value;
    if (size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.resize(eq);
    }
    auto it = settings_.find(name);
    if (it == settings_.end()) {
      errors.push_back(absl::StrCat("unknown flag --", name, " (see --help)"));
      continue;
    }
    if (!value.has_value()) {
      if (it->second.is_bool) {
        value = "true";
      } else if (i + 1 < argc) {
        value = argv[++i];
      } else {
        errors.push_back(absl::StrCat("flag --", name, " needs a value"));
        continue;
      }
    }
    from_flags[name] = *value;
  }

  auto provided = [&](const std::string& name) {
    return from_flags.count(name) > 0 || env_(EnvName(name)).has_value();
  };
  secrets_on_command_line_.clear();
  for (auto& [name, setting] : settings_) {
    std::optional<std::string> value;
    std::string source;
    if (auto it = from_flags.find(name); it != from_flags.end()) {
      value = it->second;
      source = absl::StrCat("--", name);
      if (setting.secret) secrets_on_command_line_.push_back(name);
    } else if (std::optional<std::string> env = env_(EnvName(name)); env.has_value()) {
      value = *env;
      source = EnvName(name);
    }
    if (!setting.file_of.empty() && value.has_value() && provided(setting.file_of)) {
      errors.push_back(absl::StrCat("set --", setting.file_of, " or --", name, " (",
                                    EnvName(setting.file_of), " or ", EnvName(name),
                                    "), not both"));
      continue;
    }
    if (!value.has_value()) {
      if (setting.required && !provided(absl::StrCat(name, "_file"))) {
        errors.push_back(absl::StrCat("missing required setting: pass --", name, " or set ",
                                      EnvName(name), " (", setting.help, ")"));
      }
      continue;
    }
    if (setting.required && value->empty()) {
      errors.push_back(absl::StrCat(source, " must not be empty (", setting.help, ")"));
      continue;
    }
    if (std::string error = setting.assign(*value); !error.empty()) {
      errors.push_back(absl::StrCat(source, ": ", error));
    }
  }
  if (!errors.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(program_, ": invalid configuration:\n  ", absl::StrJoin(errors, "\n  ")));
  }
  return absl::OkStatus();
}

namespace {

// The password of a libpq connection string, keyword form (password=x, password='x y') or URI
// form (postgresql://user:x@host, ...?password=x); empty if there is none.
std::vector<std::string> ConninfoPasswords(absl::string_view conninfo) {
  std::vector<std::string> found;
  for (size_t at = conninfo.find("password="); at != absl::string_view::npos;
       at = conninfo.find("password=", at + 1)) {
    absl::string_view rest = conninfo.substr(at + 9);
    if (!rest.empty() && rest.front() == '\'') {
      rest.remove_prefix(1);
      found.emplace_back(rest.substr(0, rest.find('\'')));
    } else {
      found.emplace_back(rest.substr(0, rest.find_first_of(" \t&")));
    }
  }
  if (size_t scheme = conninfo.find("://"); scheme != absl::string_view::npos) {
    absl::string_view authority = conninfo.substr(scheme + 3);
    authority = authority.substr(
        0, authority.find('@') == absl::string_view::npos ? 0 : authority.find('@'));
    if (size_t colon = authority.find(':'); colon != absl::string_view::npos) {
      found.emplace_back(authority.substr(colon + 1));
    }
  }
  return found;
}

}  // namespace

std::vector<std::string> Flags::SecretValues() const {
  std::vector<std::string> values;
  for (const std::string* target : secret_targets_) {
    if (target->empty()) continue;
    values.push_back(*target);
    for (std::string& password : ConninfoPasswords(*target)) {
      if (!password.empty()) values.push_back(std::move(password));
    }
  }
  return values;
}

std::string Flags::Usage() const {
  std::string out = absl::StrCat("usage: ", program_, " [flags]\n\nEvery flag --x can also be set ",
                                 "through the environment variable PARLOR_X.\n\n");
  for (const auto& [name, setting] : settings_) {
    absl::StrAppend(&out, "  --", name, " (", EnvName(name), ")",
                    setting.required ? " required" : "", "\n      ", setting.help);
    if (!setting.default_text.empty())
      absl::StrAppend(&out, " [default: ", setting.default_text, "]");
    absl::StrAppend(&out, "\n");
  }
  return out;
}

}  // namespace parlor
