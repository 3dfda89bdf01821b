#include "services/common/core/crypto.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include <cstdlib>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"

namespace parlor {

std::string RandomBytes(size_t size) {
  std::string out(size, '\0');
  if (size > 0 &&
      RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(size)) != 1) {
    // Without a working CSPRNG no token we could mint would be safe; there is no sane fallback.
    std::abort();
  }
  return out;
}

std::string RandomToken(size_t bytes) { return Base64UrlEncode(RandomBytes(bytes)); }

std::string Sha256(absl::string_view data) {
  std::string digest(SHA256_DIGEST_LENGTH, '\0');
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(),
         reinterpret_cast<unsigned char*>(digest.data()));
  return digest;
}

std::string Sha256Hex(absl::string_view data) { return absl::BytesToHexString(Sha256(data)); }

std::string Base64UrlEncode(absl::string_view data) { return absl::WebSafeBase64Escape(data); }

absl::StatusOr<std::string> Base64UrlDecode(absl::string_view encoded) {
  // Reject padding and the standard alphabet explicitly: a token must have exactly one spelling,
  // otherwise "tampered but still valid" variants exist.
  for (char c : encoded) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_';
    if (!ok) return absl::InvalidArgumentError("not base64url");
  }
  std::string out;
  if (!absl::WebSafeBase64Unescape(encoded, &out)) {
    return absl::InvalidArgumentError("not base64url");
  }
  if (Base64UrlEncode(out) != encoded) return absl::InvalidArgumentError("not canonical base64url");
  return out;
}

absl::StatusOr<std::string> Base64Decode(absl::string_view encoded) {
  std::string out;
  if (!absl::Base64Unescape(encoded, &out)) return absl::InvalidArgumentError("not base64");
  return out;
}

std::string Base64Encode(absl::string_view data) { return absl::Base64Escape(data); }

bool ConstantTimeEquals(absl::string_view a, absl::string_view b) {
  if (a.size() != b.size()) return false;
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace parlor
