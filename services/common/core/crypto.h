#ifndef PARLOR_SERVICES_COMMON_CORE_CRYPTO_H_
#define PARLOR_SERVICES_COMMON_CORE_CRYPTO_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace parlor {

// Cryptographic building blocks shared by tokens, refresh-token hashing and migration checksums.
// All of them use OpenSSL; nothing here keeps state.

// `size` bytes from the operating system's CSPRNG.
std::string RandomBytes(size_t size);

// A random opaque string of `bytes` bytes of entropy, base64url-encoded without padding.
std::string RandomToken(size_t bytes);

// Raw 32-byte SHA-256 digest.
std::string Sha256(absl::string_view data);

// Lower-case hex SHA-256 digest (used for checksums people read in error messages).
std::string Sha256Hex(absl::string_view data);

// base64url without padding (RFC 4648 section 5), as JWTs use it.
std::string Base64UrlEncode(absl::string_view data);
absl::StatusOr<std::string> Base64UrlDecode(absl::string_view encoded);

// Standard base64 with padding (how key material is passed in configuration).
absl::StatusOr<std::string> Base64Decode(absl::string_view encoded);
std::string Base64Encode(absl::string_view data);

// Constant-time comparison, so a verifier does not leak how many bytes matched.
bool ConstantTimeEquals(absl::string_view a, absl::string_view b);

}  // namespace parlor

#endif  // PARLOR_SERVICES_COMMON_CORE_CRYPTO_H_
