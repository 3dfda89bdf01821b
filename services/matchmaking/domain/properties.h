#ifndef PARLOR_SERVICES_MATCHMAKING_DOMAIN_PROPERTIES_H_
#define PARLOR_SERVICES_MATCHMAKING_DOMAIN_PROPERTIES_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace parlor::matchmaking {

// What a ticket says about its players (region, language and a few custom properties), and what
// it requires of every other ticket at its table.
//
// Properties: string ones (the built-in "region" and "language", and custom keys) and number
// ones. Keys are 1-32 characters of a-z, 0-9 and '_', starting with a letter; a key is either a
// string or a number property, not both; at most kMaxProperties in all. String values are 1-64
// characters of letters, digits and "_.:-" ("region": a-z, 0-9 and '-'; "language": a BCP 47 tag
// such as "en" or "pt-BR", compared exactly). Numbers are finite.
//
// Requirements (at most kMaxRequirements, all must hold for every other ticket at the table):
//   same:  the other ticket has the property with the value this ticket has (this ticket must
//          have it itself);
//   in:    the other ticket's string property is one of 1-16 values;
//   range: the other ticket's number property is within [min, max] (min <= max, both finite).
// A ticket without the property a requirement names never satisfies it.
struct TicketProperties {
  std::map<std::string, std::string> strings;
  std::map<std::string, double> numbers;
  friend bool operator==(const TicketProperties&, const TicketProperties&) = default;
};

struct Requirement {
  enum class Kind { kSame, kIn, kRange };
  std::string property;
  Kind kind = Kind::kSame;
  std::vector<std::string> values = {};  // kIn
  double min = 0;                        // kRange
  double max = 0;
  friend bool operator==(const Requirement&, const Requirement&) = default;
};

inline constexpr int kMaxProperties = 8;
inline constexpr int kMaxRequirements = 8;
inline constexpr int kMaxRequirementValues = 16;

// INVALID_ARGUMENT naming the field (e.g. "string_properties[\"mode\"]", "requirements[2].range")
// for anything outside the rules above.
absl::Status ValidateProperties(const TicketProperties& properties);
absl::Status ValidateRequirements(const std::vector<Requirement>& requirements,
                                  const TicketProperties& own);

// Whether `other` satisfies every requirement of a ticket with `own` properties.
bool Satisfies(const std::vector<Requirement>& requirements, const TicketProperties& own,
               const TicketProperties& other);

// Canonical text forms, as stored (one TEXT column each); Parse* undo Encode* exactly.
//   properties:   "s:language=en;s:region=eu-west;n:tier=3" (strings, then numbers, by key)
//   requirements: "region:same;language:in=en|fr;tier:range=1|5" (in request order)
// Values never contain ';', '=', '|' or ':' in a key, so no escaping is needed.
std::string EncodeProperties(const TicketProperties& properties);
std::string EncodeRequirements(const std::vector<Requirement>& requirements);
absl::StatusOr<TicketProperties> ParseProperties(const std::string& text);
absl::StatusOr<std::vector<Requirement>> ParseRequirements(const std::string& text);

}  // namespace parlor::matchmaking

#endif  // PARLOR_SERVICES_MATCHMAKING_DOMAIN_PROPERTIES_H_
