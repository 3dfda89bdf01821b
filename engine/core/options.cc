#include "engine/core/options.h"

#include <algorithm>
#include <set>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace parlor::engine {
namespace {

std::string Accepted(const OptionSpec& spec) {
  switch (spec.type) {
    case OptionSpec::Type::kInt:
      return absl::StrCat("an integer from ", spec.min_value, " to ", spec.max_value);
    case OptionSpec::Type::kBool:
      return "true or false";
    case OptionSpec::Type::kChoice:
      return absl::StrCat("one of ", absl::StrJoin(spec.choices, ", "));
  }
  return "";
}

absl::Status OutOfRange(const OptionSpec& spec, absl::string_view got) {
  if (!spec.refusal.empty()) return absl::InvalidArgumentError(spec.refusal);
  return absl::InvalidArgumentError(
      absl::StrCat("option ", spec.name, " must be ", Accepted(spec), "; got \"", got, "\""));
}

bool InRange(const OptionSpec& spec, int64_t v) {
  switch (spec.type) {
    case OptionSpec::Type::kInt:
      return v >= spec.min_value && v <= spec.max_value &&
             (spec.allowed_values.empty() ||
              std::find(spec.allowed_values.begin(), spec.allowed_values.end(), v) !=
                  spec.allowed_values.end());
    case OptionSpec::Type::kBool:
      return v == 0 || v == 1;
    case OptionSpec::Type::kChoice:
      return v >= 0 && v < static_cast<int64_t>(spec.choices.size());
  }
  return false;
}

absl::Status UnknownOption(const std::vector<OptionSpec>& specs, absl::string_view name) {
  std::vector<std::string> names;
  for (const auto& s : specs) names.push_back(s.name);
  return absl::InvalidArgumentError(
      absl::StrCat("unknown option \"", name, "\"; this game's options are: ",
                   names.empty() ? std::string("(none)") : absl::StrJoin(names, ", ")));
}

}  // namespace

OptionSpec OptionSpec::Int(std::string name, std::string description, int64_t default_value,
                           int64_t min_value, int64_t max_value) {
  OptionSpec spec;
  spec.name = std::move(name);
  spec.description = std::move(description);
  spec.type = Type::kInt;
  spec.default_value = default_value;
  spec.min_value = min_value;
  spec.max_value = max_value;
  return spec;
}

OptionSpec OptionSpec::IntOneOf(std::string name, std::string description, int64_t default_value,
                                std::vector<int64_t> allowed_values, std::string refusal) {
  const auto [lo, hi] = std::minmax_element(allowed_values.begin(), allowed_values.end());
  OptionSpec spec = Int(std::move(name), std::move(description), default_value,
                        lo == allowed_values.end() ? default_value : *lo,
                        hi == allowed_values.end() ? default_value : *hi);
  spec.allowed_values = std::move(allowed_values);
  spec.refusal = std::move(refusal);
  return spec;
}

OptionSpec OptionSpec::Bool(std::string name, std::string description, bool default_value) {
  OptionSpec spec;
  spec.name = std::move(name);
  spec.description = std::move(description);
  spec.type = Type::kBool;
  spec.default_value = default_value ? 1 : 0;
  spec.max_value = 1;
  return spec;
}

OptionSpec OptionSpec::Choice(std::string name, std::string description,
                              std::vector<std::string> choices, int default_index) {
  OptionSpec spec;
  spec.name = std::move(name);
  spec.description = std::move(description);
  spec.type = Type::kChoice;
  spec.default_value = default_index;
  spec.choices = std::move(choices);
  return spec;
}

int64_t Options::Get(absl::string_view name) const {
  auto it = values_.find(std::string(name));
  return it == values_.end() ? 0 : it->second;
}

absl::StatusOr<Options> ParseOptions(const std::vector<OptionSpec>& specs,
                                     const std::map<std::string, std::string>& raw) {
  std::map<std::string, int64_t> values;
  for (const auto& [name, text] : raw) {
    const OptionSpec* spec = nullptr;
    for (const auto& s : specs) {
      if (s.name == name) spec = &s;
    }
    if (spec == nullptr) return UnknownOption(specs, name);
    int64_t v = 0;
    switch (spec->type) {
      case OptionSpec::Type::kInt:
        if (!absl::SimpleAtoi(text, &v)) return OutOfRange(*spec, text);
        break;
      case OptionSpec::Type::kBool:
        if (text == "true" || text == "1") {
          v = 1;
        } else if (text == "false" || text == "0") {
          v = 0;
        } else {
          return OutOfRange(*spec, text);
        }
        break;
      case OptionSpec::Type::kChoice: {
        v = -1;
        for (size_t i = 0; i < spec->choices.size(); ++i) {
          if (spec->choices[i] == text) v = static_cast<int64_t>(i);
        }
        if (v < 0) return OutOfRange(*spec, text);
        break;
      }
    }
    if (!InRange(*spec, v)) return OutOfRange(*spec, text);
    values[name] = v;
  }
  for (const auto& s : specs) values.try_emplace(s.name, s.default_value);
  return Options(std::move(values));
}

absl::StatusOr<Options> ValidateOptions(const std::vector<OptionSpec>& specs,
                                        const std::map<std::string, int64_t>& given) {
  std::map<std::string, int64_t> values;
  for (const auto& [name, v] : given) {
    const OptionSpec* spec = nullptr;
    for (const auto& s : specs) {
      if (s.name == name) spec = &s;
    }
    if (spec == nullptr) return UnknownOption(specs, name);
    if (!InRange(*spec, v)) return OutOfRange(*spec, absl::StrCat(v));
    values[name] = v;
  }
  for (const auto& s : specs) values.try_emplace(s.name, s.default_value);
  return Options(std::move(values));
}

std::string FormatOptionValue(const OptionSpec& spec, int64_t value) {
  switch (spec.type) {
    case OptionSpec::Type::kInt:
      return absl::StrCat(value);
    case OptionSpec::Type::kBool:
      return value != 0 ? "true" : "false";
    case OptionSpec::Type::kChoice:
      if (value >= 0 && value < static_cast<int64_t>(spec.choices.size())) {
        return spec.choices[value];
      }
      return absl::StrCat(value);
  }
  return "";
}

}  // namespace parlor::engine
