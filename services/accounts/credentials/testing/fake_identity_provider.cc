#include "services/accounts/credentials/testing/fake_identity_provider.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>

#include <stdexcept>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "services/common/core/crypto.h"

namespace parlor::accounts::testing {

struct FakeIdentityProvider::Key {
  std::string alg;
  std::shared_ptr<EVP_PKEY> pkey;
};

namespace {

std::string BigNumParam(EVP_PKEY* pkey, const char* name, int pad_to = 0) {
  BIGNUM* bn = nullptr;
  if (EVP_PKEY_get_bn_param(pkey, name, &bn) != 1) throw std::runtime_error(name);
  const int size = std::max(pad_to, BN_num_bytes(bn));
  std::string out(size, '\0');
  BN_bn2binpad(bn, reinterpret_cast<unsigned char*>(out.data()), size);
  BN_free(bn);
  return out;
}

}  // namespace

FakeIdentityProvider::FakeIdentityProvider() = default;
FakeIdentityProvider::~FakeIdentityProvider() = default;

void FakeIdentityProvider::AddKey(const std::string& kid, const std::string& alg, int bits) {
  EVP_PKEY* pkey = alg == "RS256"
                       ? EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", static_cast<size_t>(bits))
                       : EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256");
  if (pkey == nullptr) throw std::runtime_error("keygen failed");
  keys_[kid] = std::make_shared<Key>(Key{alg, std::shared_ptr<EVP_PKEY>(pkey, &EVP_PKEY_free)});
}

void FakeIdentityProvider::RemoveKey(const std::string& kid) { keys_.erase(kid); }

std::string FakeIdentityProvider::Jwks() const {
  std::vector<std::string> entries;
  for (const auto& [kid, key] : keys_) {
    if (key->alg == "RS256") {
      entries.push_back(absl::StrCat(
          R"({"kty":"RSA","use":"sig","alg":"RS256","kid":")", kid, R"(","n":")",
          Base64UrlEncode(BigNumParam(key->pkey.get(), OSSL_PKEY_PARAM_RSA_N)), R"(","e":")",
          Base64UrlEncode(BigNumParam(key->pkey.get(), OSSL_PKEY_PARAM_RSA_E)), R"("})"));
    } else {
      entries.push_back(absl::StrCat(
          R"({"kty":"EC","use":"sig","crv":"P-256","kid":")", kid, R"(","x":")",
          Base64UrlEncode(BigNumParam(key->pkey.get(), OSSL_PKEY_PARAM_EC_PUB_X, 32)), R"(","y":")",
          Base64UrlEncode(BigNumParam(key->pkey.get(), OSSL_PKEY_PARAM_EC_PUB_Y, 32)), R"("})"));
    }
  }
  return absl::StrCat(R"({"keys":[)", absl::StrJoin(entries, ","), "]}");
}

std::string FakeIdentityProvider::SignRaw(const std::string& kid, const std::string& header_json,
                                          const std::string& payload_json) const {
  const Key& key = *keys_.at(kid);
  const std::string signed_part =
      absl::StrCat(Base64UrlEncode(header_json), ".", Base64UrlEncode(payload_json));
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  size_t length = 0;
  if (EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key.pkey.get()) != 1 ||
      EVP_DigestSign(ctx.get(), nullptr, &length,
                     reinterpret_cast<const unsigned char*>(signed_part.data()),
                     signed_part.size()) != 1) {
    throw std::runtime_error("sign failed");
  }
  std::string signature(length, '\0');
  EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(signature.data()), &length,
                 reinterpret_cast<const unsigned char*>(signed_part.data()), signed_part.size());
  signature.resize(length);
  if (key.alg == "ES256") {
    // DER → r||s, as JWS wants.
    const unsigned char* der = reinterpret_cast<const unsigned char*>(signature.data());
    ECDSA_SIG* sig = d2i_ECDSA_SIG(nullptr, &der, static_cast<long>(signature.size()));
    std::string raw(64, '\0');
    BN_bn2binpad(ECDSA_SIG_get0_r(sig), reinterpret_cast<unsigned char*>(raw.data()), 32);
    BN_bn2binpad(ECDSA_SIG_get0_s(sig), reinterpret_cast<unsigned char*>(raw.data()) + 32, 32);
    ECDSA_SIG_free(sig);
    signature = raw;
  }
  return absl::StrCat(signed_part, ".", Base64UrlEncode(signature));
}

std::string FakeIdentityProvider::Sign(const std::string& kid, const IdTokenClaims& claims,
                                       const std::string& alg) const {
  const std::string header = absl::StrCat(R"({"alg":")", alg.empty() ? keys_.at(kid)->alg : alg,
                                          R"(","kid":")", kid, R"(","typ":"JWT"})");
  std::string payload =
      absl::StrCat(R"({"iss":")", claims.iss, R"(",)",
                   claims.raw_aud_json.empty() ? absl::StrCat(R"("aud":")", claims.aud, R"(")")
                                               : claims.raw_aud_json,
                   R"(,"sub":")", claims.sub, R"(","iat":)", absl::ToUnixSeconds(claims.iat),
                   R"(,"exp":)", absl::ToUnixSeconds(claims.exp));
  if (!claims.nonce.empty()) absl::StrAppend(&payload, R"(,"nonce":")", claims.nonce, R"(")");
  if (!claims.email.empty()) {
    absl::StrAppend(&payload, R"(,"email":")", claims.email, R"(","email_verified":)",
                    claims.email_verified ? "true" : "false");
  }
  absl::StrAppend(&payload, "}");
  return SignRaw(kid, header, payload);
}

}  // namespace parlor::accounts::testing
