#ifndef PARLOR_ENGINE_CORE_OPTIONS_H_
#define PARLOR_ENGINE_CORE_OPTIONS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace parlor::engine {

// One option a game declares: its name, meaning, type, default and allowed values.
struct OptionSpec {
  enum class Type { kInt, kBool, kChoice };

  std::string name;         // snake_case, e.g. "rounds"
  std::string description;  // one sentence for players and client developers
  Type type = Type::kInt;
  int64_t default_value = 0;            // for kChoice: the index into `choices`; for kBool: 0 or 1
  int64_t min_value = 0;                // kInt only, inclusive
  int64_t max_value = 0;                // kInt only, inclusive
  std::vector<std::string> choices;     // kChoice only: the names, e.g. {"none", "empty_palette"}
  std::vector<int64_t> allowed_values;  // kInt only: when not empty, the only values accepted
  // When not empty, the exact INVALID_ARGUMENT message for any value the option refuses (a rules
  // doc may prescribe it, e.g. "rounds must be 2, 4 or 6").
  std::string refusal;

  static OptionSpec Int(std::string name, std::string description, int64_t default_value,
                        int64_t min_value, int64_t max_value);
  // An integer option that takes only `allowed_values`, refused with `refusal` otherwise.
  static OptionSpec IntOneOf(std::string name, std::string description, int64_t default_value,
                             std::vector<int64_t> allowed_values, std::string refusal);
  static OptionSpec Bool(std::string name, std::string description, bool default_value);
  static OptionSpec Choice(std::string name, std::string description,
                           std::vector<std::string> choices, int default_index);
};

// A complete, validated set of option values: every declared option is present (defaults filled
// in). Choices are stored as their index, booleans as 0/1.
class Options {
 public:
  Options() = default;
  explicit Options(std::map<std::string, int64_t> values) : values_(std::move(values)) {}

  // The value of a declared option. Asking for an undeclared name is a programming error and
  // returns 0.
  int64_t Get(absl::string_view name) const;
  bool GetBool(absl::string_view name) const { return Get(name) != 0; }
  const std::map<std::string, int64_t>& values() const { return values_; }

  friend bool operator==(const Options&, const Options&) = default;

 private:
  std::map<std::string, int64_t> values_;
};

// Parses user-supplied option strings ("4", "true", "empty_palette") against the specs: unknown
// names, malformed or out-of-range values are INVALID_ARGUMENT naming the option and what it
// accepts. Missing options take their defaults.
absl::StatusOr<Options> ParseOptions(const std::vector<OptionSpec>& specs,
                                     const std::map<std::string, std::string>& raw);

// Validates already-typed values (e.g. from a stored record) the same way.
absl::StatusOr<Options> ValidateOptions(const std::vector<OptionSpec>& specs,
                                        const std::map<std::string, int64_t>& values);

// The readable form of a value: "4", "true", "empty_palette".
std::string FormatOptionValue(const OptionSpec& spec, int64_t value);

}  // namespace parlor::engine

#endif  // PARLOR_ENGINE_CORE_OPTIONS_H_
