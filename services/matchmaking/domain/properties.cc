#include "services/matchmaking/domain/properties.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace parlor::matchmaking {
namespace {

constexpr char kRegion[] = "region";
constexpr char kLanguage[] = "language";

bool ValidKey(const std::string& key) {
  if (key.empty() || key.size() > 32 || !(key[0] >= 'a' && key[0] <= 'z')) return false;
  return std::all_of(key.begin(), key.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

bool ValidValue(const std::string& value) {
  if (value.empty() || value.size() > 64) return false;
  return std::all_of(value.begin(), value.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == ':' || c == '-';
  });
}

bool ValidRegion(const std::string& value) {
  if (value.empty() || value.size() > 32) return false;
  return std::all_of(value.begin(), value.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
}

// A BCP 47 tag as a client sends it: subtags of 1-8 letters or digits joined by '-', the first
// 2-3 letters ("en", "pt-BR", "zh-Hant-TW").
bool ValidLanguage(const std::string& value) {
  if (value.size() < 2 || value.size() > 35) return false;
  std::vector<std::string> parts = absl::StrSplit(value, '-');
  for (size_t i = 0; i < parts.size(); ++i) {
    const std::string& p = parts[i];
    if (p.empty() || p.size() > 8) return false;
    for (char c : p) {
      const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
      if (!letter && !(i > 0 && c >= '0' && c <= '9')) return false;
    }
    if (i == 0 && (p.size() < 2 || p.size() > 3)) return false;
  }
  return true;
}

absl::Status CheckString(const std::string& key, const std::string& value, const std::string& at) {
  if (key == kRegion && !ValidRegion(value)) {
    return absl::InvalidArgumentError(absl::StrCat(
        at, ": a region is 1-32 characters of a-z, 0-9 and '-', e.g. \"eu-west\"; got \"",
        value.substr(0, 64), "\""));
  }
  if (key == kLanguage && !ValidLanguage(value)) {
    return absl::InvalidArgumentError(
        absl::StrCat(at, ": a language is a BCP 47 tag such as \"en\" or \"pt-BR\"; got \"",
                     value.substr(0, 64), "\""));
  }
  if (!ValidValue(value)) {
    return absl::InvalidArgumentError(
        absl::StrCat(at, ": a value is 1-64 characters of letters, digits and \"_.:-\"; got \"",
                     value.substr(0, 64), "\""));
  }
  return absl::OkStatus();
}

std::string Number(double v) { return absl::StrFormat("%.17g", v); }

}  // namespace

absl::Status ValidateProperties(const TicketProperties& properties) {
  if (properties.strings.size() + properties.numbers.size() > kMaxProperties) {
    return absl::InvalidArgumentError(
        absl::StrCat("a ticket has at most ", kMaxProperties,
                     " properties in all (region, language, string_properties and "
                     "number_properties), got ",
                     properties.strings.size() + properties.numbers.size()));
  }
  for (const auto& [key, value] : properties.strings) {
    const std::string at = key == kRegion || key == kLanguage
                               ? key
                               : absl::StrCat("string_properties[\"", key.substr(0, 64), "\"]");
    if (!ValidKey(key)) {
      return absl::InvalidArgumentError(absl::StrCat(
          at, ": a property name is 1-32 characters of a-z, 0-9 and '_', starting with a letter"));
    }
    if (absl::Status s = CheckString(key, value, at); !s.ok()) return s;
  }
  for (const auto& [key, value] : properties.numbers) {
    const std::string at = absl::StrCat("number_properties[\"", key.substr(0, 64), "\"]");
    if (!ValidKey(key)) {
      return absl::InvalidArgumentError(absl::StrCat(
          at, ": a property name is 1-32 characters of a-z, 0-9 and '_', starting with a letter"));
    }
    if (key == kRegion || key == kLanguage) {
      return absl::InvalidArgumentError(
          absl::StrCat(at, ": ", key, " is a string; set the request's own ", key, " field"));
    }
    if (properties.strings.contains(key)) {
      return absl::InvalidArgumentError(
          absl::StrCat(at, ": ", key, " is also a string property; a name is one or the other"));
    }
    if (!std::isfinite(value)) {
      return absl::InvalidArgumentError(absl::StrCat(at, ": must be a finite number"));
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateRequirements(const std::vector<Requirement>& requirements,
                                  const TicketProperties& own) {
  if (requirements.size() > kMaxRequirements) {
    return absl::InvalidArgumentError(
        absl::StrCat("requirements: at most ", kMaxRequirements, ", got ", requirements.size()));
  }
  for (size_t i = 0; i < requirements.size(); ++i) {
    const Requirement& r = requirements[i];
    const std::string at = absl::StrCat("requirements[", i, "]");
    if (!ValidKey(r.property)) {
      return absl::InvalidArgumentError(absl::StrCat(
          at,
          ".property: name a property (\"region\", \"language\" or a key of "
          "string_properties / number_properties), 1-32 characters of a-z, 0-9 and '_'"));
    }
    switch (r.kind) {
      case Requirement::Kind::kSame:
        if (!own.strings.contains(r.property) && !own.numbers.contains(r.property)) {
          return absl::InvalidArgumentError(
              absl::StrCat(at, ".same: this ticket has no ", r.property,
                           " property to compare with; set it, or use one_of / range"));
        }
        break;
      case Requirement::Kind::kIn: {
        if (r.values.empty() || static_cast<int>(r.values.size()) > kMaxRequirementValues) {
          return absl::InvalidArgumentError(absl::StrCat(
              at, ".one_of: give 1-", kMaxRequirementValues, " values, got ", r.values.size()));
        }
        for (size_t v = 0; v < r.values.size(); ++v) {
          if (absl::Status s =
                  CheckString(r.property, r.values[v], absl::StrCat(at, ".one_of.values[", v, "]"));
              !s.ok()) {
            return s;
          }
        }
        break;
      }
      case Requirement::Kind::kRange:
        if (!std::isfinite(r.min) || !std::isfinite(r.max) || r.min > r.max) {
          return absl::InvalidArgumentError(
              absl::StrCat(at, ".range: min and max must be finite with min <= max, got [",
                           Number(r.min), ", ", Number(r.max), "]"));
        }
        break;
    }
  }
  return absl::OkStatus();
}

bool Satisfies(const std::vector<Requirement>& requirements, const TicketProperties& own,
               const TicketProperties& other) {
  for (const Requirement& r : requirements) {
    switch (r.kind) {
      case Requirement::Kind::kSame: {
        if (auto mine = own.strings.find(r.property); mine != own.strings.end()) {
          auto theirs = other.strings.find(r.property);
          if (theirs == other.strings.end() || theirs->second != mine->second) return false;
        } else if (auto n = own.numbers.find(r.property); n != own.numbers.end()) {
          auto theirs = other.numbers.find(r.property);
          if (theirs == other.numbers.end() || theirs->second != n->second) return false;
        } else {
          return false;
        }
        break;
      }
      case Requirement::Kind::kIn: {
        auto theirs = other.strings.find(r.property);
        if (theirs == other.strings.end() ||
            std::find(r.values.begin(), r.values.end(), theirs->second) == r.values.end()) {
          return false;
        }
        break;
      }
      case Requirement::Kind::kRange: {
        auto theirs = other.numbers.find(r.property);
        if (theirs == other.numbers.end() || theirs->second < r.min || theirs->second > r.max) {
          return false;
        }
        break;
      }
    }
  }
  return true;
}

std::string EncodeProperties(const TicketProperties& properties) {
  std::vector<std::string> parts;
  for (const auto& [key, value] : properties.strings)
    parts.push_back(absl::StrCat("s:", key, "=", value));
  for (const auto& [key, value] : properties.numbers) {
    parts.push_back(absl::StrCat("n:", key, "=", Number(value)));
  }
  return absl::StrJoin(parts, ";");
}

std::string EncodeRequirements(const std::vector<Requirement>& requirements) {
  std::vector<std::string> parts;
  for (const Requirement& r : requirements) {
    switch (r.kind) {
      case Requirement::Kind::kSame:
        parts.push_back(absl::StrCat(r.property, ":same"));
        break;
      case Requirement::Kind::kIn:
        parts.push_back(absl::StrCat(r.property, ":in=", absl::StrJoin(r.values, "|")));
        break;
      case Requirement::Kind::kRange:
        parts.push_back(absl::StrCat(r.property, ":range=", Number(r.min), "|", Number(r.max)));
        break;
    }
  }
  return absl::StrJoin(parts, ";");
}

absl::StatusOr<TicketProperties> ParseProperties(const std::string& text) {
  TicketProperties out;
  if (text.empty()) return out;
  for (absl::string_view part : absl::StrSplit(text, ';')) {
    const size_t eq = part.find('=');
    if (part.size() < 4 || part[1] != ':' || eq == absl::string_view::npos) {
      return absl::DataLossError(absl::StrCat("stored ticket properties are malformed: ", text));
    }
    const std::string key(part.substr(2, eq - 2));
    const std::string value(part.substr(eq + 1));
    if (part[0] == 's') {
      out.strings[key] = value;
    } else {
      double v = 0;
      if (part[0] != 'n' || !absl::SimpleAtod(value, &v)) {
        return absl::DataLossError(absl::StrCat("stored ticket properties are malformed: ", text));
      }
      out.numbers[key] = v;
    }
  }
  return out;
}

absl::StatusOr<std::vector<Requirement>> ParseRequirements(const std::string& text) {
  std::vector<Requirement> out;
  if (text.empty()) return out;
  const auto malformed = [&] {
    return absl::DataLossError(absl::StrCat("stored ticket requirements are malformed: ", text));
  };
  for (absl::string_view part : absl::StrSplit(text, ';')) {
    const size_t colon = part.find(':');
    if (colon == absl::string_view::npos) return malformed();
    Requirement r;
    r.property = std::string(part.substr(0, colon));
    const absl::string_view rule = part.substr(colon + 1);
    if (rule == "same") {
      r.kind = Requirement::Kind::kSame;
    } else if (absl::StartsWith(rule, "in=")) {
      r.kind = Requirement::Kind::kIn;
      std::vector<std::string> values = absl::StrSplit(rule.substr(3), '|');
      r.values = std::move(values);
    } else if (absl::StartsWith(rule, "range=")) {
      r.kind = Requirement::Kind::kRange;
      std::vector<std::string> bounds = absl::StrSplit(rule.substr(6), '|');
      if (bounds.size() != 2 || !absl::SimpleAtod(bounds[0], &r.min) ||
          !absl::SimpleAtod(bounds[1], &r.max)) {
        return malformed();
      }
    } else {
      return malformed();
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace parlor::matchmaking
