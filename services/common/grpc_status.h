#ifndef PARLOR_SERVICES_COMMON_GRPC_STATUS_H_
#define PARLOR_SERVICES_COMMON_GRPC_STATUS_H_

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "grpcpp/support/status.h"

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

// The type URL of google.rpc.RetryInfo, also the absl::Status payload key of the delay.
inline constexpr char kRetryInfoTypeUrl[] = "type.googleapis.com/google.rpc.RetryInfo";

// `status` with a hint that the same request may succeed after `delay` (for transient refusals:
// UNAVAILABLE, RESOURCE_EXHAUSTED, ABORTED). OK stays OK.
absl::Status WithRetryDelay(absl::Status status, absl::Duration delay);

// The delay attached by WithRetryDelay, if any.
std::optional<absl::Duration> RetryDelay(const absl::Status& status);

// "OK", "INVALID_ARGUMENT", ... as used in metric labels and logs.
const char* GrpcCodeName(grpc::StatusCode code);

}  // namespace parlor

#endif  // PARLOR_SERVICES_COMMON_GRPC_STATUS_H_
