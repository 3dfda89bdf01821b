#ifndef PARLOR_SERVICES_COMMON_GRPC_STATUS_H_
#define PARLOR_SERVICES_COMMON_GRPC_STATUS_H_

#include <string>

#include "absl/status/status.h"
#include "grpcpp/support/status.h"

namespace parlor {

// The one mapping from absl::Status (what domain and store code return) to the status a client
// sees. Codes map one to one. INTERNAL, UNKNOWN and DATA_LOSS never carry their original text
// (it may hold SQL, hostnames or stack details): the client gets a generic message with the
// request id to quote to support, and the detail goes to the server log instead.
grpc::Status ToGrpcStatus(const absl::Status& status);

// "OK", "INVALID_ARGUMENT", ... as used in metric labels and logs.
const char* GrpcCodeName(grpc::StatusCode code);

}  // namespace parlor

#endif  // PARLOR_SERVICES_COMMON_GRPC_STATUS_H_
