#ifndef PARLOR_SERVICES_NOTIFICATIONS_TESTING_IDS_H_
#define PARLOR_SERVICES_NOTIFICATIONS_TESTING_IDS_H_

#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "services/common/core/crypto.h"

// Random ids and push tokens for tests and the load tool.
namespace parlor::notifications::testing {

inline std::string NewUuid() {
  const std::string b = absl::BytesToHexString(RandomBytes(16));
  return absl::StrCat(b.substr(0, 8), "-", b.substr(8, 4), "-4", b.substr(13, 3), "-8",
                      b.substr(17, 3), "-", b.substr(20, 12));
}

// An APNs device token (64 hex digits) starting with `prefix` (hex).
inline std::string ApnsToken(const std::string& prefix = "") {
  std::string token = prefix + absl::BytesToHexString(RandomBytes(32));
  return token.substr(0, 64);
}

// An FCM registration token starting with `prefix`.
inline std::string FcmToken(const std::string& prefix = "") {
  return absl::StrCat(prefix, "fcm:", RandomToken(40));
}

}  // namespace parlor::notifications::testing

#endif  // PARLOR_SERVICES_NOTIFICATIONS_TESTING_IDS_H_
