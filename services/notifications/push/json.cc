#include "services/notifications/push/json.h"

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"
#include "services/common/core/logging.h"

namespace parlor::notifications::json {

std::string Quote(absl::string_view text) { return absl::StrCat("\"", JsonEscape(text), "\""); }

std::string Array(const std::vector<std::string>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ",";
    out += Quote(values[i]);
  }
  return out + "]";
}

absl::StatusOr<google::protobuf::Struct> ParseObject(absl::string_view text) {
  google::protobuf::Struct object;
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;
  const auto status =
      google::protobuf::util::JsonStringToMessage(std::string(text), &object, options);
  if (!status.ok()) return absl::InvalidArgumentError("not a JSON object");
  return object;
}

std::string String(const google::protobuf::Struct& object, const std::string& key) {
  auto found = object.fields().find(key);
  if (found == object.fields().end() || !found->second.has_string_value()) return "";
  return found->second.string_value();
}

const google::protobuf::Struct& Object(const google::protobuf::Struct& object,
                                       const std::string& key) {
  auto found = object.fields().find(key);
  if (found == object.fields().end() || !found->second.has_struct_value()) {
    return google::protobuf::Struct::default_instance();
  }
  return found->second.struct_value();
}

}  // namespace parlor::notifications::json
