#include "services/accounts/credentials/id_token.h"

#include <curl/curl.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "services/common/core/crypto.h"
#include "spdlog/spdlog.h"

namespace parlor::accounts {

// A verification key and the one algorithm it may be used with.
struct JwksCache::Key {
  std::string alg;  // "RS256" or "ES256"
  std::shared_ptr<EVP_PKEY> pkey;
};

namespace {

using google::protobuf::Struct;
using google::protobuf::Value;

constexpr size_t kMaxBodyBytes = 1 << 20;

absl::StatusOr<Struct> ParseJson(absl::string_view json) {
  Struct object;
  if (!google::protobuf::util::JsonStringToMessage(std::string(json), &object).ok()) {
    return absl::InvalidArgumentError("not a JSON object");
  }
  return object;
}

std::string StringField(const Struct& object, const std::string& name) {
  auto it = object.fields().find(name);
  if (it == object.fields().end() || it->second.kind_case() != Value::kStringValue) return "";
  return it->second.string_value();
}

using BnPtr = std::unique_ptr<BIGNUM, decltype(&BN_free)>;
using ParamBuildPtr = std::unique_ptr<OSSL_PARAM_BLD, decltype(&OSSL_PARAM_BLD_free)>;
using ParamPtr = std::unique_ptr<OSSL_PARAM, decltype(&OSSL_PARAM_free)>;
using PkeyCtxPtr = std::unique_ptr<EVP_PKEY_CTX, decltype(&EVP_PKEY_CTX_free)>;

std::shared_ptr<EVP_PKEY> FromData(const char* type, OSSL_PARAM* params) {
  PkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_name(nullptr, type, nullptr), &EVP_PKEY_CTX_free);
  EVP_PKEY* pkey = nullptr;
  if (ctx == nullptr || EVP_PKEY_fromdata_init(ctx.get()) != 1 ||
      EVP_PKEY_fromdata(ctx.get(), &pkey, EVP_PKEY_PUBLIC_KEY, params) != 1) {
    return nullptr;
  }
  return std::shared_ptr<EVP_PKEY>(pkey, &EVP_PKEY_free);
}

std::shared_ptr<EVP_PKEY> RsaKey(const std::string& n, const std::string& e) {
  BnPtr bn_n(BN_bin2bn(reinterpret_cast<const unsigned char*>(n.data()), n.size(), nullptr),
             &BN_free);
  BnPtr bn_e(BN_bin2bn(reinterpret_cast<const unsigned char*>(e.data()), e.size(), nullptr),
             &BN_free);
  ParamBuildPtr build(OSSL_PARAM_BLD_new(), &OSSL_PARAM_BLD_free);
  if (!bn_n || !bn_e || !build ||
      OSSL_PARAM_BLD_push_BN(build.get(), OSSL_PKEY_PARAM_RSA_N, bn_n.get()) != 1 ||
      OSSL_PARAM_BLD_push_BN(build.get(), OSSL_PKEY_PARAM_RSA_E, bn_e.get()) != 1) {
    return nullptr;
  }
  ParamPtr params(OSSL_PARAM_BLD_to_param(build.get()), &OSSL_PARAM_free);
  if (!params) return nullptr;
  std::shared_ptr<EVP_PKEY> key = FromData("RSA", params.get());
  if (key != nullptr && EVP_PKEY_get_bits(key.get()) < 2048) return nullptr;
  return key;
}

std::shared_ptr<EVP_PKEY> P256Key(const std::string& x, const std::string& y) {
  if (x.size() != 32 || y.size() != 32) return nullptr;
  const std::string point = absl::StrCat("\x04", x, y);
  ParamBuildPtr build(OSSL_PARAM_BLD_new(), &OSSL_PARAM_BLD_free);
  if (!build ||
      OSSL_PARAM_BLD_push_utf8_string(build.get(), OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) !=
          1 ||
      OSSL_PARAM_BLD_push_octet_string(build.get(), OSSL_PKEY_PARAM_PUB_KEY, point.data(),
                                       point.size()) != 1) {
    return nullptr;
  }
  ParamPtr params(OSSL_PARAM_BLD_to_param(build.get()), &OSSL_PARAM_free);
  if (!params) return nullptr;
  return FromData("EC", params.get());
}

// The keys of a JWKS document by kid; keys of other types, curves or uses are skipped.
absl::StatusOr<absl::flat_hash_map<std::string, std::shared_ptr<const JwksCache::Key>>> ParseJwks(
    absl::string_view body) {
  absl::StatusOr<Struct> document = ParseJson(body);
  if (!document.ok()) return absl::UnavailableError("the provider's keys are not JSON");
  auto keys_field = document->fields().find("keys");
  if (keys_field == document->fields().end() ||
      keys_field->second.kind_case() != Value::kListValue) {
    return absl::UnavailableError("the provider's key document has no \"keys\" list");
  }
  absl::flat_hash_map<std::string, std::shared_ptr<const JwksCache::Key>> keys;
  for (const Value& entry : keys_field->second.list_value().values()) {
    if (entry.kind_case() != Value::kStructValue) continue;
    const Struct& jwk = entry.struct_value();
    const std::string kid = StringField(jwk, "kid");
    const std::string kty = StringField(jwk, "kty");
    const std::string use = StringField(jwk, "use");
    const std::string alg = StringField(jwk, "alg");
    if (kid.empty() || (!use.empty() && use != "sig")) continue;
    auto key = std::make_shared<JwksCache::Key>();
    if (kty == "RSA" && (alg.empty() || alg == "RS256")) {
      absl::StatusOr<std::string> n = Base64UrlDecode(StringField(jwk, "n"));
      absl::StatusOr<std::string> e = Base64UrlDecode(StringField(jwk, "e"));
      if (!n.ok() || !e.ok()) continue;
      key->alg = "RS256";
      key->pkey = RsaKey(*n, *e);
    } else if (kty == "EC" && StringField(jwk, "crv") == "P-256" &&
               (alg.empty() || alg == "ES256")) {
      absl::StatusOr<std::string> x = Base64UrlDecode(StringField(jwk, "x"));
      absl::StatusOr<std::string> y = Base64UrlDecode(StringField(jwk, "y"));
      if (!x.ok() || !y.ok()) continue;
      key->alg = "ES256";
      key->pkey = P256Key(*x, *y);
    }
    if (key->pkey != nullptr) keys[kid] = std::move(key);
  }
  return keys;
}

// JWS ES256 signatures are r||s (32 bytes each); OpenSSL verifies DER.
std::string EcdsaRawToDer(absl::string_view raw) {
  std::unique_ptr<ECDSA_SIG, decltype(&ECDSA_SIG_free)> sig(ECDSA_SIG_new(), &ECDSA_SIG_free);
  BIGNUM* r = BN_bin2bn(reinterpret_cast<const unsigned char*>(raw.data()), 32, nullptr);
  BIGNUM* s = BN_bin2bn(reinterpret_cast<const unsigned char*>(raw.data()) + 32, 32, nullptr);
  if (!sig || r == nullptr || s == nullptr || ECDSA_SIG_set0(sig.get(), r, s) != 1) {
    BN_free(r);
    BN_free(s);
    return "";
  }
  unsigned char* der = nullptr;
  const int length = i2d_ECDSA_SIG(sig.get(), &der);
  if (length <= 0) return "";
  std::string out(reinterpret_cast<char*>(der), length);
  OPENSSL_free(der);
  return out;
}

bool VerifySignature(const JwksCache::Key& key, absl::string_view signed_part,
                     absl::string_view signature) {
  std::string sig(signature);
  if (key.alg == "ES256") {
    if (signature.size() != 64) return false;
    sig = EcdsaRawToDer(signature);
    if (sig.empty()) return false;
  }
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  return ctx != nullptr &&
         EVP_DigestVerifyInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key.pkey.get()) == 1 &&
         EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(sig.data()), sig.size(),
                          reinterpret_cast<const unsigned char*>(signed_part.data()),
                          signed_part.size()) == 1;
}

size_t CollectBody(char* data, size_t size, size_t count, void* user) {
  auto* body = static_cast<std::string*>(user);
  if (body->size() + size * count > kMaxBodyBytes) return 0;  // aborts the transfer
  body->append(data, size * count);
  return size * count;
}

bool IsLoopbackHost(absl::string_view rest) {
  return absl::StartsWith(rest, "127.0.0.1:") || absl::StartsWith(rest, "127.0.0.1/") ||
         absl::StartsWith(rest, "localhost:") || absl::StartsWith(rest, "localhost/") ||
         absl::StartsWith(rest, "[::1]:") || absl::StartsWith(rest, "[::1]/");
}

}  // namespace

absl::Status ValidateKeysUrl(absl::string_view url) {
  if (absl::StartsWith(url, "https://") && url.size() > 8) return absl::OkStatus();
  if (absl::StartsWith(url, "http://") && IsLoopbackHost(url.substr(7))) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("key URL \"", url,
                   "\" must be https:// (plain http:// only to 127.0.0.1, localhost, [::1])"));
}

absl::StatusOr<std::string> CurlHttpGet(const std::string& url) {
  if (absl::Status valid = ValidateKeysUrl(url); !valid.ok()) return valid;
  static const CURLcode kInit = curl_global_init(CURL_GLOBAL_DEFAULT);
  if (kInit != CURLE_OK) return absl::InternalError("libcurl did not initialize");
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), &curl_easy_cleanup);
  if (!curl) return absl::InternalError("libcurl: no handle");
  std::string body;
  curl_easy_setopt(curl.get(), CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_PROTOCOLS_STR, "https,http");
  curl_easy_setopt(curl.get(), CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(curl.get(), CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl.get(), CURLOPT_CONNECTTIMEOUT_MS, 3000L);
  curl_easy_setopt(curl.get(), CURLOPT_TIMEOUT_MS, 5000L);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEFUNCTION, &CollectBody);
  curl_easy_setopt(curl.get(), CURLOPT_WRITEDATA, &body);
  const CURLcode rc = curl_easy_perform(curl.get());
  if (rc != CURLE_OK) {
    return absl::UnavailableError(absl::StrCat("GET ", url, ": ", curl_easy_strerror(rc)));
  }
  long status = 0;
  curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &status);
  if (status != 200) return absl::UnavailableError(absl::StrCat("GET ", url, ": HTTP ", status));
  return body;
}

JwksCache::JwksCache(std::string url, HttpGet get, std::function<absl::Time()> clock,
                     Options options)
    : url_(std::move(url)), get_(std::move(get)), clock_(std::move(clock)), options_(options) {}

JwksCache::~JwksCache() = default;

absl::Status JwksCache::Refresh(absl::Time now) {
  last_attempt_ = now;
  ++fetches_;
  absl::StatusOr<std::string> body = get_(url_);
  absl::StatusOr<absl::flat_hash_map<std::string, std::shared_ptr<const Key>>> keys =
      body.ok() ? ParseJwks(*body) : body.status();
  if (!keys.ok()) {
    spdlog::warn("fetching signing keys from {} failed: {}", url_, keys.status().ToString());
    return keys.status();
  }
  keys_ = *std::move(keys);
  fetched_at_ = now;
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<const JwksCache::Key>> JwksCache::Find(const std::string& kid) {
  std::lock_guard<std::mutex> lock(mu_);
  const absl::Time now = clock_();
  const bool may_fetch = now - last_attempt_ >= options_.min_refetch_interval;
  absl::Status fetched = absl::OkStatus();
  if (now - fetched_at_ >= options_.max_age && may_fetch) fetched = Refresh(now);
  auto it = keys_.find(kid);
  if (it == keys_.end() && fetched.ok() && last_attempt_ != now && may_fetch) {
    // An unknown key id: the provider may have rotated its keys since the last fetch.
    fetched = Refresh(now);
    it = keys_.find(kid);
  }
  if (it != keys_.end()) return it->second;
  if (keys_.empty() && !fetched.ok()) {
    return absl::UnavailableError(
        "the identity provider's signing keys could not be fetched; retry in a minute");
  }
  return absl::UnauthenticatedError(
      absl::StrCat("ID token is signed with key \"", kid.substr(0, 64),
                   "\", which the identity provider does not publish"));
}

int JwksCache::fetches() const {
  std::lock_guard<std::mutex> lock(mu_);
  return fetches_;
}

IdTokenProvider AppleProvider(std::vector<std::string> client_ids) {
  return {.name = "apple",
          .issuers = {"https://appleid.apple.com"},
          .audiences = std::move(client_ids),
          .nonce_is_sha256 = true};
}

IdTokenProvider GoogleProvider(std::vector<std::string> client_ids) {
  return {.name = "google",
          .issuers = {"https://accounts.google.com", "accounts.google.com"},
          .audiences = std::move(client_ids),
          .nonce_is_sha256 = false};
}

absl::StatusOr<VerifiedIdToken> IdTokenVerifier::Verify(absl::string_view token,
                                                        absl::string_view nonce,
                                                        absl::Time now) const {
  const auto refuse = [](absl::string_view why) {
    return absl::UnauthenticatedError(absl::StrCat("ID token ", why));
  };
  if (token.size() > kMaxIdTokenBytes) return refuse("is too long");
  std::vector<absl::string_view> parts = absl::StrSplit(token, '.');
  if (parts.size() != 3) return refuse("is malformed: a JWT has three dot-separated parts");
  absl::StatusOr<std::string> header_json = Base64UrlDecode(parts[0]);
  absl::StatusOr<std::string> payload_json = Base64UrlDecode(parts[1]);
  absl::StatusOr<std::string> signature = Base64UrlDecode(parts[2]);
  if (!header_json.ok() || !payload_json.ok() || !signature.ok()) {
    return refuse("is malformed: a part is not base64url");
  }
  absl::StatusOr<Struct> header = ParseJson(*header_json);
  absl::StatusOr<Struct> payload = ParseJson(*payload_json);
  if (!header.ok() || !payload.ok()) return refuse("is malformed: a part is not a JSON object");
  const std::string alg = StringField(*header, "alg");
  if (alg != "RS256" && alg != "ES256") {
    return refuse(absl::StrCat("uses algorithm \"", alg.substr(0, 16),
                               "\"; only RS256 and ES256 are accepted"));
  }
  absl::StatusOr<std::shared_ptr<const JwksCache::Key>> key =
      keys_->Find(StringField(*header, "kid"));
  if (!key.ok()) return key.status();
  if ((*key)->alg != alg) return refuse("algorithm does not match its key");
  const size_t signed_length = parts[0].size() + 1 + parts[1].size();
  if (!VerifySignature(**key, token.substr(0, signed_length), *signature)) {
    return refuse(absl::StrCat("signature is invalid (not signed by ", provider_.name, ")"));
  }

  const std::string iss = StringField(*payload, "iss");
  if (std::find(provider_.issuers.begin(), provider_.issuers.end(), iss) ==
      provider_.issuers.end()) {
    return refuse(
        absl::StrCat("was issued by \"", iss.substr(0, 64), "\", not ", provider_.issuers.front()));
  }
  bool audience_ok = false;
  auto aud = payload->fields().find("aud");
  if (aud != payload->fields().end()) {
    const auto ours = [this](const std::string& value) {
      return std::find(provider_.audiences.begin(), provider_.audiences.end(), value) !=
             provider_.audiences.end();
    };
    if (aud->second.kind_case() == Value::kStringValue) {
      audience_ok = ours(aud->second.string_value());
    } else if (aud->second.kind_case() == Value::kListValue) {
      for (const Value& v : aud->second.list_value().values()) {
        audience_ok =
            audience_ok || (v.kind_case() == Value::kStringValue && ours(v.string_value()));
      }
    }
  }
  if (!audience_ok) return refuse("was issued for another app (its aud is not our client id)");
  const auto number = [&](const char* name) -> std::optional<double> {
    auto it = payload->fields().find(name);
    if (it == payload->fields().end() || it->second.kind_case() != Value::kNumberValue ||
        !std::isfinite(it->second.number_value())) {
      return std::nullopt;
    }
    return it->second.number_value();
  };
  const std::optional<double> exp = number("exp");
  const std::optional<double> iat = number("iat");
  if (!exp.has_value() || !iat.has_value()) return refuse("lacks exp or iat");
  const absl::Time expires_at = absl::FromUnixSeconds(static_cast<int64_t>(*exp));
  if (expires_at + leeway_ <= now) {
    return refuse(absl::StrCat("expired at ", absl::FormatTime(expires_at, absl::UTCTimeZone()),
                               "; get a fresh one from the provider's SDK"));
  }
  if (absl::FromUnixSeconds(static_cast<int64_t>(*iat)) > now + leeway_) {
    return refuse("is issued in the future (check the device clock)");
  }
  const std::string expected_nonce =
      provider_.nonce_is_sha256 ? Sha256Hex(nonce) : std::string(nonce);
  const std::string token_nonce = StringField(*payload, "nonce");
  if (token_nonce.empty()) return refuse("carries no nonce; pass the nonce to the provider's SDK");
  if (!ConstantTimeEquals(token_nonce, expected_nonce)) {
    return refuse(provider_.nonce_is_sha256
                      ? "nonce does not match (Apple's token must carry SHA-256 hex of the nonce)"
                      : "nonce does not match the nonce sent");
  }
  VerifiedIdToken verified;
  verified.subject = StringField(*payload, "sub");
  if (verified.subject.empty() || verified.subject.size() > 255) {
    return refuse("has no usable subject (sub)");
  }
  verified.expires_at = expires_at;
  // Apple sends email_verified as a string, Google as a boolean.
  auto email_verified = payload->fields().find("email_verified");
  const bool verified_email =
      email_verified != payload->fields().end() &&
      (email_verified->second.bool_value() || email_verified->second.string_value() == "true");
  const std::string email = StringField(*payload, "email");
  if (verified_email && email.size() <= 254) verified.email = absl::AsciiStrToLower(email);
  return verified;
}

}  // namespace parlor::accounts
