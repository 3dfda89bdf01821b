#ifndef PARLOR_SERVICES_COMMON_GRPC_STATUS_H_
#define PARLOR_SERVICES_COMMON_GRPC_STATUS_H_

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "grpcpp/support/status.h"
#include "services/common/core/retry_delay.h"

namespace parlor {

// The one mapping from absl::Status (what domain and store code return) to the status a client
// sees. Codes map one to one. INTERNAL, UNKNOWN and DATA_LOSS never carry their original text
// (it may hold SQL, hostnames or stack details): the client gets a generic message with the
// request id to quote to support, and the detail goes to the server log instead.
//
// A status carrying a retry delay (WithRetryDelay) is sent with a google.rpc.Status in the
// `grpc-status-details-bin` trailer whose details hold one google.rpc.RetryInfo: the standard
// place gRPC clients look for "retry after". Its code and message equal the gRPC status's.
// Likewise every payload keyed by a type URL ("type.googleapis.com/<message full name>", the
// value being that message's bytes) becomes one detail of that google.rpc.Status, e.g.
// parlor.sessions.v1.VersionConflict on SubmitAction's ABORTED.
grpc::Status ToGrpcStatus(const absl::Status& status);

// Payloads whose key starts with this are sent to the client as status details.
inline constexpr char kDetailTypeUrlPrefix[] = "type.googleapis.com/";

// "OK", "INVALID_ARGUMENT", ... as used in metric labels and logs.
const char* GrpcCodeName(grpc::StatusCode code);

}  // namespace parlor

#endif  // PARLOR_SERVICES_COMMON_GRPC_STATUS_H_
