#ifndef PARLOR_SERVICES_COMMON_CORE_RETRY_DELAY_H_
#define PARLOR_SERVICES_COMMON_CORE_RETRY_DELAY_H_

#include <optional>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace parlor {

// The type URL of google.rpc.RetryInfo, also the absl::Status payload key of the delay. The
// transport (grpc_status.h) sends it to the client in the standard status details; domain code
// attaches it without depending on gRPC.
inline constexpr char kRetryInfoTypeUrl[] = "type.googleapis.com/google.rpc.RetryInfo";

// `status` with a hint that the same request may succeed after `delay` (for transient refusals:
// UNAVAILABLE, RESOURCE_EXHAUSTED, ABORTED). OK stays OK.
absl::Status WithRetryDelay(absl::Status status, absl::Duration delay);

// The delay attached by WithRetryDelay, if any.
std::optional<absl::Duration> RetryDelay(const absl::Status& status);

}  // namespace parlor

#endif  // PARLOR_SERVICES_COMMON_CORE_RETRY_DELAY_H_
