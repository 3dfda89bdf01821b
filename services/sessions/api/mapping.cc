#include "services/sessions/api/mapping.h"

#include "google/protobuf/util/time_util.h"

namespace parlor::sessions {

absl::Duration FromProto(const google::protobuf::Duration& d) {
  return absl::Seconds(d.seconds()) + absl::Nanoseconds(d.nanos());
}

google::protobuf::Timestamp ToProto(absl::Time t) {
  return google::protobuf::util::TimeUtil::MicrosecondsToTimestamp(absl::ToUnixMicros(t));
}

void ToProto(const PlayerRecord& record, v1::PlayerRecord* out) {
  out->set_account_id(record.account_id);
  out->set_finished(static_cast<int32_t>(record.finished));
  out->set_resigned(static_cast<int32_t>(record.resigned));
  out->set_timed_out(static_cast<int32_t>(record.timed_out));
  out->set_finish_rate(record.finish_rate);
}

}  // namespace parlor::sessions
