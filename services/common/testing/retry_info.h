#ifndef PARLOR_SERVICES_COMMON_TESTING_RETRY_INFO_H_
#define PARLOR_SERVICES_COMMON_TESTING_RETRY_INFO_H_

#include <optional>

#include "absl/time/time.h"
#include "grpcpp/support/status.h"

namespace parlor::testing {

// The google.rpc.RetryInfo delay inside a refused call's grpc-status-details-bin, as a client
// reads it: decoded with descriptors built from the published googleapis field numbers, not
// with the server's own code, so a test of it checks what goes over the wire. nullopt when the
// details are missing, do not parse, carry another code than the status, or hold no RetryInfo.
std::optional<absl::Duration> RetryDelayOf(const grpc::Status& status);

}  // namespace parlor::testing

#endif  // PARLOR_SERVICES_COMMON_TESTING_RETRY_INFO_H_
