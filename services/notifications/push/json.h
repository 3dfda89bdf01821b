#ifndef PARLOR_SERVICES_NOTIFICATIONS_PUSH_JSON_H_
#define PARLOR_SERVICES_NOTIFICATIONS_PUSH_JSON_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/struct.pb.h"

// Small JSON helpers for the providers' bodies: building strings, and parsing answers with
// protobuf's JSON parser into google.protobuf.Struct.
namespace parlor::notifications::json {

// "text" with JSON escapes.
std::string Quote(absl::string_view text);
// ["a","b"]
std::string Array(const std::vector<std::string>& values);
absl::StatusOr<google::protobuf::Struct> ParseObject(absl::string_view text);
// The string at `key` of `object` ("" when absent or not a string).
std::string String(const google::protobuf::Struct& object, const std::string& key);
// The object at `key` (empty when absent or not an object).
const google::protobuf::Struct& Object(const google::protobuf::Struct& object,
                                       const std::string& key);

}  // namespace parlor::notifications::json

#endif  // PARLOR_SERVICES_NOTIFICATIONS_PUSH_JSON_H_
