#ifndef PARLOR_SERVICES_COMMON_CORE_PAGE_TOKEN_H_
#define PARLOR_SERVICES_COMMON_CORE_PAGE_TOKEN_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace parlor {

// Opaque page tokens for List RPCs (AIP-158). A token wraps a keyset cursor (e.g. the last
// row's sort key) together with a fingerprint of the request's filter, so a client cannot reuse
// a token with different parameters, and it is MAC'd so it cannot be forged to page from an
// arbitrary position. Services keep the cursor's meaning private; clients treat it as bytes.
class PageTokens {
 public:
  // `secret` keys the MAC; every replica of a service must use the same one.
  explicit PageTokens(std::string secret) : secret_(std::move(secret)) {}

  std::string Encode(absl::string_view cursor, absl::string_view request_fingerprint) const;

  // INVALID_ARGUMENT with a message for the client when the token is malformed, forged, or was
  // issued for different request parameters.
  absl::StatusOr<std::string> Decode(absl::string_view token,
                                     absl::string_view request_fingerprint) const;

 private:
  std::string Mac(absl::string_view cursor, absl::string_view request_fingerprint) const;
  std::string secret_;
};

}  // namespace parlor

#endif  // PARLOR_SERVICES_COMMON_CORE_PAGE_TOKEN_H_
