#ifndef PARLOR_SERVICES_ACCOUNTS_DOMAIN_VALIDATION_H_
#define PARLOR_SERVICES_ACCOUNTS_DOMAIN_VALIDATION_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace parlor::accounts {

inline constexpr size_t kMinDisplayNameLength = 3;
inline constexpr size_t kMaxDisplayNameLength = 24;
inline constexpr size_t kMinDeviceIdLength = 8;
inline constexpr size_t kMaxDeviceIdLength = 128;

// Display names: 3-24 characters of ASCII letters, digits, space, '_' and '-', not starting or
// ending with a space (so "Ada" and "Ada " cannot both exist). The database enforces the same
// rule with a CHECK constraint; this check gives the client a precise message first.
absl::Status ValidateDisplayName(absl::string_view name);

// Device ids: 8-128 printable ASCII characters without spaces.
absl::Status ValidateDeviceId(absl::string_view device_id);

inline constexpr size_t kMaxEmailLength = 254;

// Email addresses: 3-254 characters, one '@' with 1-64 characters before it and a domain with a
// dot after it, printable ASCII without spaces or any of <>()[],;:"\. Returns the address
// lower-cased (addresses are compared ignoring case).
absl::StatusOr<std::string> NormalizeEmail(absl::string_view email);

// Account ids are lower-case UUIDs.
bool IsAccountId(absl::string_view id);

}  // namespace parlor::accounts

#endif  // PARLOR_SERVICES_ACCOUNTS_DOMAIN_VALIDATION_H_
