#ifndef PARLOR_SERVICES_NOTIFICATIONS_PUSH_JWT_H_
#define PARLOR_SERVICES_NOTIFICATIONS_PUSH_JWT_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace parlor::notifications {

// Signs JSON Web Tokens (RFC 7519, compact JWS) with a PEM private key (OpenSSL):
//   an EC P-256 key signs ES256 (APNs provider tokens; the signature is R || S, 64 bytes, as
//   RFC 7518 section 3.4 requires, not DER),
//   an RSA key signs RS256 (Google service-account assertions).
class JwtSigner {
 public:
  // `pem` holds a PKCS#8 ("BEGIN PRIVATE KEY", as Apple's .p8 files and Google's key files) or
  // traditional private key.
  static absl::StatusOr<JwtSigner> FromPem(absl::string_view pem);

  // "ES256" or "RS256".
  const std::string& algorithm() const { return algorithm_; }

  // base64url(header) "." base64url(claims) "." base64url(signature); `header_json` must name
  // algorithm() in "alg".
  absl::StatusOr<std::string> Sign(absl::string_view header_json,
                                   absl::string_view claims_json) const;

 private:
  JwtSigner(std::shared_ptr<void> key, std::string algorithm)
      : key_(std::move(key)), algorithm_(std::move(algorithm)) {}
  std::shared_ptr<void> key_;  // EVP_PKEY
  std::string algorithm_;
};

}  // namespace parlor::notifications

#endif  // PARLOR_SERVICES_NOTIFICATIONS_PUSH_JWT_H_
