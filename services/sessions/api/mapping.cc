#include "services/sessions/api/mapping.h"

#include "google/protobuf/util/time_util.h"

namespace parlor::sessions {

absl::Duration FromProto(const google::protobuf::Duration& d) {
  return absl::Seconds(d.seconds()) + absl::Nanoseconds(d.nanos());
}

google::protobuf::Timestamp ToProto(absl::Time t) {
  return google::protobuf::util::TimeUtil::MicrosecondsToTimestamp(absl::ToUnixMicros(t));
}

}  // namespace parlor::sessions
