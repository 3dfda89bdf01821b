#ifndef PARLOR_SERVICES_SESSIONS_API_MAPPING_H_
#define PARLOR_SERVICES_SESSIONS_API_MAPPING_H_

#include "absl/time/time.h"
#include "google/protobuf/duration.pb.h"
#include "google/protobuf/timestamp.pb.h"
#include "parlor/sessions/v1/sessions.pb.h"
#include "services/sessions/domain/records.h"

// The sessions API's messages to and from the domain's types (domain/sessions.h speaks no
// service proto): the transport maps a request to the domain call's arguments and its result to
// the response, and nothing else.
namespace parlor::sessions {

// Exact: seconds and nanos (a range check is the domain's).
absl::Duration FromProto(const google::protobuf::Duration& d);
// To the microsecond, as the store keeps times.
google::protobuf::Timestamp ToProto(absl::Time t);

void ToProto(const PlayerRecord& record, v1::PlayerRecord* out);

}  // namespace parlor::sessions

#endif  // PARLOR_SERVICES_SESSIONS_API_MAPPING_H_
