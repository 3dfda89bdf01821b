#include "services/notifications/push/jwt.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "openssl/bio.h"
#include "openssl/ec.h"
#include "openssl/ecdsa.h"
#include "openssl/evp.h"
#include "openssl/pem.h"
#include "services/common/core/crypto.h"

namespace parlor::notifications {
namespace {

EVP_PKEY* Key(const std::shared_ptr<void>& key) { return static_cast<EVP_PKEY*>(key.get()); }

// DER ECDSA-Sig-Value -> fixed-width R || S.
absl::StatusOr<std::string> DerToRaw(const std::string& der, int width) {
  const unsigned char* p = reinterpret_cast<const unsigned char*>(der.data());
  ECDSA_SIG* sig = d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(der.size()));
  if (sig == nullptr) return absl::InternalError("ES256: malformed signature");
  const BIGNUM* r = nullptr;
  const BIGNUM* s = nullptr;
  ECDSA_SIG_get0(sig, &r, &s);
  std::string raw(2 * width, '\0');
  auto* out = reinterpret_cast<unsigned char*>(raw.data());
  const bool ok =
      BN_bn2binpad(r, out, width) == width && BN_bn2binpad(s, out + width, width) == width;
  ECDSA_SIG_free(sig);
  if (!ok) return absl::InternalError("ES256: signature does not fit");
  return raw;
}

}  // namespace

absl::StatusOr<JwtSigner> JwtSigner::FromPem(absl::string_view pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  if (bio == nullptr) return absl::InternalError("out of memory");
  EVP_PKEY* key = PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  if (key == nullptr) {
    return absl::InvalidArgumentError("not a PEM private key (expected BEGIN PRIVATE KEY)");
  }
  std::shared_ptr<void> owned(key, [](void* k) { EVP_PKEY_free(static_cast<EVP_PKEY*>(k)); });
  switch (EVP_PKEY_get_base_id(key)) {
    case EVP_PKEY_EC:
      if (EVP_PKEY_get_bits(key) != 256) {
        return absl::InvalidArgumentError("an EC key for ES256 must be on P-256");
      }
      return JwtSigner(std::move(owned), "ES256");
    case EVP_PKEY_RSA:
      if (EVP_PKEY_get_bits(key) < 2048) {
        return absl::InvalidArgumentError("an RSA key for RS256 must have at least 2048 bits");
      }
      return JwtSigner(std::move(owned), "RS256");
    default:
      return absl::InvalidArgumentError("the key is neither EC P-256 (ES256) nor RSA (RS256)");
  }
}

absl::StatusOr<std::string> JwtSigner::Sign(absl::string_view header_json,
                                            absl::string_view claims_json) const {
  const std::string input =
      absl::StrCat(Base64UrlEncode(header_json), ".", Base64UrlEncode(claims_json));
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  if (ctx == nullptr) return absl::InternalError("out of memory");
  size_t size = 0;
  std::string signature;
  bool ok = EVP_DigestSignInit(ctx, nullptr, EVP_sha256(), nullptr, Key(key_)) == 1 &&
            EVP_DigestSign(ctx, nullptr, &size,
                           reinterpret_cast<const unsigned char*>(input.data()), input.size()) == 1;
  if (ok) {
    signature.resize(size);
    ok = EVP_DigestSign(ctx, reinterpret_cast<unsigned char*>(signature.data()), &size,
                        reinterpret_cast<const unsigned char*>(input.data()), input.size()) == 1;
    signature.resize(size);
  }
  EVP_MD_CTX_free(ctx);
  if (!ok) return absl::InternalError(absl::StrCat(algorithm_, ": signing failed"));
  if (algorithm_ == "ES256") {
    absl::StatusOr<std::string> raw = DerToRaw(signature, 32);
    if (!raw.ok()) return raw.status();
    signature = *std::move(raw);
  }
  return absl::StrCat(input, ".", Base64UrlEncode(signature));
}

}  // namespace parlor::notifications
