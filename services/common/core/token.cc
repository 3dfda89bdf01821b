#include "services/common/core/token.h"

#include <openssl/evp.h>

#include <array>
#include <atomic>
#include <optional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "services/common/core/crypto.h"

namespace parlor::auth {
namespace {

constexpr absl::string_view kAlgorithm = "EdDSA";
constexpr size_t kEd25519KeyBytes = 32;
constexpr size_t kEd25519SignatureBytes = 64;

struct KindPolicy {
  absl::string_view typ;
  absl::string_view issuer;
  absl::string_view audience;
  absl::string_view what;  // for messages
};

KindPolicy PolicyFor(TokenKind kind) {
  switch (kind) {
    case TokenKind::kAccess:
      return {"access", "parlor/accounts", "parlor/api", "access token"};
    case TokenKind::kService:
      return {"service", "parlor/internal", "parlor/internal", "service credential"};
  }
  return {"", "", "", ""};
}

struct PkeyDeleter {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyDeleter>;

struct MdCtxDeleter {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};

absl::StatusOr<std::string> DecodeKey(absl::string_view base64, absl::string_view what) {
  absl::StatusOr<std::string> raw = Base64Decode(base64);
  if (!raw.ok() || raw->size() != kEd25519KeyBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat(what,
                     " must be the base64 of a raw 32-byte Ed25519 key (generate one with "
                     "`parlor-accounts keygen`)"));
  }
  return *raw;
}

absl::StatusOr<google::protobuf::Struct> ParseJsonObject(absl::string_view json) {
  google::protobuf::Struct object;
  google::protobuf::util::JsonParseOptions options;
  if (!google::protobuf::util::JsonStringToMessage(std::string(json), &object, options).ok()) {
    return absl::InvalidArgumentError("not a JSON object");
  }
  return object;
}

std::string StringField(const google::protobuf::Struct& object, const std::string& name) {
  auto it = object.fields().find(name);
  if (it == object.fields().end() || !it->second.has_string_value()) return "";
  return it->second.string_value();
}

bool NumberField(const google::protobuf::Struct& object, const std::string& name, double* out) {
  auto it = object.fields().find(name);
  if (it == object.fields().end() || !it->second.has_number_value()) return false;
  *out = it->second.number_value();
  return true;
}

absl::Status Unauthenticated(absl::string_view what, absl::string_view problem) {
  return absl::UnauthenticatedError(absl::StrCat(what, " ", problem));
}

}  // namespace

absl::string_view TokenKindName(TokenKind kind) { return PolicyFor(kind).typ; }

struct TokenSigner::Key {
  PkeyPtr pkey;
};
struct TokenVerifier::Key {
  PkeyPtr pkey;
};

KeyPairBase64 GenerateKeyPair() {
  std::string seed = RandomBytes(kEd25519KeyBytes);
  KeyPairBase64 pair;
  pair.private_key = Base64Encode(seed);
  pair.public_key = *PublicKeyFor(pair.private_key);
  return pair;
}

std::string DeviceClaim(absl::string_view device_id) {
  // 128 bits of SHA-256 tell devices apart and keep the claim short.
  return Base64UrlEncode(Sha256(absl::StrCat("parlor-device:", device_id)).substr(0, 16));
}

absl::StatusOr<std::string> PublicKeyFor(absl::string_view private_key_base64) {
  absl::StatusOr<std::string> seed = DecodeKey(private_key_base64, "private key");
  if (!seed.ok()) return seed.status();
  PkeyPtr pkey(EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nullptr,
                                            reinterpret_cast<const unsigned char*>(seed->data()),
                                            seed->size()));
  if (pkey == nullptr) return absl::InvalidArgumentError("private key is not a valid Ed25519 key");
  std::string public_key(kEd25519KeyBytes, '\0');
  size_t length = public_key.size();
  if (EVP_PKEY_get_raw_public_key(pkey.get(), reinterpret_cast<unsigned char*>(public_key.data()),
                                  &length) != 1) {
    return absl::InternalError("could not derive the Ed25519 public key");
  }
  return Base64Encode(public_key);
}

absl::StatusOr<TokenSigner> TokenSigner::Create(TokenKind kind,
                                                absl::string_view private_key_base64) {
  absl::StatusOr<std::string> seed =
      DecodeKey(private_key_base64, absl::StrCat(PolicyFor(kind).what, " private key"));
  if (!seed.ok()) return seed.status();
  auto key = std::make_shared<Key>();
  key->pkey.reset(EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nullptr,
                                               reinterpret_cast<const unsigned char*>(seed->data()),
                                               seed->size()));
  if (key->pkey == nullptr) return absl::InvalidArgumentError("not a valid Ed25519 private key");
  return TokenSigner(kind, std::move(key));
}

absl::StatusOr<std::string> TokenSigner::Sign(absl::string_view subject,
                                              absl::string_view session_id, absl::Time now,
                                              absl::Duration ttl, absl::string_view device) const {
  const KindPolicy policy = PolicyFor(kind_);
  google::protobuf::Struct payload;
  auto& fields = *payload.mutable_fields();
  fields["iss"].set_string_value(std::string(policy.issuer));
  fields["aud"].set_string_value(std::string(policy.audience));
  fields["typ"].set_string_value(std::string(policy.typ));
  fields["sub"].set_string_value(std::string(subject));
  if (!session_id.empty()) fields["sid"].set_string_value(std::string(session_id));
  if (!device.empty()) fields["did"].set_string_value(std::string(device));
  fields["jti"].set_string_value(RandomToken(12));
  fields["iat"].set_number_value(static_cast<double>(absl::ToUnixSeconds(now)));
  fields["exp"].set_number_value(static_cast<double>(absl::ToUnixSeconds(now + ttl)));
  std::string payload_json;
  if (!google::protobuf::util::MessageToJsonString(payload, &payload_json).ok()) {
    return absl::InternalError("could not encode token claims");
  }
  const std::string signing_input = absl::StrCat(Base64UrlEncode(R"({"alg":"EdDSA","typ":"JWT"})"),
                                                 ".", Base64UrlEncode(payload_json));

  std::unique_ptr<EVP_MD_CTX, MdCtxDeleter> ctx(EVP_MD_CTX_new());
  std::string signature(kEd25519SignatureBytes, '\0');
  size_t signature_length = signature.size();
  if (ctx == nullptr ||
      EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, key_->pkey.get()) != 1 ||
      EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(signature.data()),
                     &signature_length,
                     reinterpret_cast<const unsigned char*>(signing_input.data()),
                     signing_input.size()) != 1) {
    return absl::InternalError("could not sign token");
  }
  signature.resize(signature_length);
  return absl::StrCat(signing_input, ".", Base64UrlEncode(signature));
}

absl::StatusOr<TokenVerifier> TokenVerifier::Create(TokenKind kind,
                                                    absl::string_view public_key_base64,
                                                    absl::Duration leeway) {
  absl::StatusOr<std::string> raw =
      DecodeKey(public_key_base64, absl::StrCat(PolicyFor(kind).what, " public key"));
  if (!raw.ok()) return raw.status();
  auto key = std::make_shared<Key>();
  key->pkey.reset(EVP_PKEY_new_raw_public_key(
      EVP_PKEY_ED25519, nullptr, reinterpret_cast<const unsigned char*>(raw->data()), raw->size()));
  if (key->pkey == nullptr) return absl::InvalidArgumentError("not a valid Ed25519 public key");
  return TokenVerifier(kind, std::move(key), leeway);
}

class TokenVerifier::VerifiedCache {
 public:
  std::optional<Claims> Find(absl::string_view token) {
    Shard& shard = ShardFor(token);
    std::lock_guard<std::mutex> lock(shard.mu);
    auto it = shard.claims.find(token);
    if (it == shard.claims.end()) return std::nullopt;
    hits_.fetch_add(1, std::memory_order_relaxed);
    return it->second;
  }

  void Insert(absl::string_view token, const Claims& claims) {
    Shard& shard = ShardFor(token);
    std::lock_guard<std::mutex> lock(shard.mu);
    // A full shard starts over: simpler than LRU, and a hot token is re-verified only once.
    if (shard.claims.size() >= kCacheEntriesPerShard) shard.claims.clear();
    shard.claims.insert_or_assign(std::string(token), claims);
  }

  void Erase(absl::string_view token) {
    Shard& shard = ShardFor(token);
    std::lock_guard<std::mutex> lock(shard.mu);
    shard.claims.erase(token);
  }

  uint64_t hits() const { return hits_.load(std::memory_order_relaxed); }

 private:
  struct Shard {
    std::mutex mu;
    absl::flat_hash_map<std::string, Claims> claims;
  };
  Shard& ShardFor(absl::string_view token) {
    return shards_[absl::Hash<absl::string_view>{}(token) % kCacheShards];
  }

  std::array<Shard, kCacheShards> shards_;
  std::atomic<uint64_t> hits_{0};
};

TokenVerifier::TokenVerifier(TokenKind kind, std::shared_ptr<const Key> key, absl::Duration leeway)
    : kind_(kind),
      key_(std::move(key)),
      leeway_(leeway),
      cache_(std::make_shared<VerifiedCache>()) {}

uint64_t TokenVerifier::cache_hits() const { return cache_->hits(); }

bool TokenVerifier::TimeValid(const Claims& claims, absl::Time now) const {
  return now < claims.expires_at + leeway_ && claims.issued_at <= now + leeway_;
}

absl::StatusOr<Claims> TokenVerifier::Verify(absl::string_view token, absl::Time now) const {
  if (token.size() <= kMaxTokenBytes) {
    if (std::optional<Claims> cached = cache_->Find(token); cached.has_value()) {
      if (TimeValid(*cached, now)) return *std::move(cached);
      // Expired (or not yet valid at this clock): the full check gives the precise refusal.
      cache_->Erase(token);
    }
  }
  absl::StatusOr<Claims> claims = VerifyUncached(token, now);
  if (claims.ok()) cache_->Insert(token, *claims);
  return claims;
}

absl::StatusOr<Claims> TokenVerifier::VerifyUncached(absl::string_view token,
                                                     absl::Time now) const {
  const KindPolicy policy = PolicyFor(kind_);
  const absl::string_view what = policy.what;
  if (token.empty()) return Unauthenticated(what, "is empty");
  if (token.size() > kMaxTokenBytes) return Unauthenticated(what, "is too long");
  std::vector<absl::string_view> parts = absl::StrSplit(token, '.');
  if (parts.size() != 3) {
    return Unauthenticated(what, "is malformed: expected a JWT (header.payload.signature)");
  }

  absl::StatusOr<std::string> header_json = Base64UrlDecode(parts[0]);
  if (!header_json.ok()) return Unauthenticated(what, "is malformed: header is not base64url");
  absl::StatusOr<google::protobuf::Struct> header = ParseJsonObject(*header_json);
  if (!header.ok()) return Unauthenticated(what, "is malformed: header is not JSON");
  // The algorithm is pinned: the header cannot talk us into "none" or an HMAC keyed with our
  // public key.
  if (StringField(*header, "alg") != kAlgorithm) {
    return Unauthenticated(what, absl::StrCat("uses algorithm \"", StringField(*header, "alg"),
                                              "\"; only EdDSA is accepted"));
  }

  absl::StatusOr<std::string> signature = Base64UrlDecode(parts[2]);
  if (!signature.ok() || signature->size() != kEd25519SignatureBytes) {
    return Unauthenticated(what, "has a malformed signature");
  }
  const absl::string_view signing_input = token.substr(0, parts[0].size() + 1 + parts[1].size());
  std::unique_ptr<EVP_MD_CTX, MdCtxDeleter> ctx(EVP_MD_CTX_new());
  if (ctx == nullptr ||
      EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, key_->pkey.get()) != 1 ||
      EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(signature->data()),
                       signature->size(),
                       reinterpret_cast<const unsigned char*>(signing_input.data()),
                       signing_input.size()) != 1) {
    return Unauthenticated(what, "signature is invalid (forged, tampered or for another key)");
  }

  // Only a correctly signed payload is parsed further.
  absl::StatusOr<std::string> payload_json = Base64UrlDecode(parts[1]);
  if (!payload_json.ok()) return Unauthenticated(what, "is malformed: payload is not base64url");
  absl::StatusOr<google::protobuf::Struct> payload = ParseJsonObject(*payload_json);
  if (!payload.ok()) return Unauthenticated(what, "is malformed: payload is not JSON");

  if (StringField(*payload, "typ") != policy.typ || StringField(*payload, "iss") != policy.issuer ||
      StringField(*payload, "aud") != policy.audience) {
    return Unauthenticated(
        what, absl::StrCat("is a \"", StringField(*payload, "typ"), "\" token, not a ", what));
  }
  double exp = 0;
  double iat = 0;
  if (!NumberField(*payload, "exp", &exp) || !NumberField(*payload, "iat", &iat)) {
    return Unauthenticated(what, "lacks exp or iat");
  }
  Claims claims;
  claims.kind = kind_;
  claims.subject = StringField(*payload, "sub");
  claims.session_id = StringField(*payload, "sid");
  claims.token_id = StringField(*payload, "jti");
  claims.device = StringField(*payload, "did");
  claims.issued_at = absl::FromUnixSeconds(static_cast<int64_t>(iat));
  claims.expires_at = absl::FromUnixSeconds(static_cast<int64_t>(exp));
  if (claims.subject.empty()) return Unauthenticated(what, "has no subject");
  if (now >= claims.expires_at + leeway_) {
    return Unauthenticated(
        what,
        absl::StrCat("expired at ",
                     absl::FormatTime(absl::RFC3339_sec, claims.expires_at, absl::UTCTimeZone()),
                     kind_ == TokenKind::kAccess ? "; call RefreshSession for a new one"
                                                 : "; mint a new service credential"));
  }
  if (claims.issued_at > now + leeway_) return Unauthenticated(what, "is not valid yet");
  return claims;
}

absl::StatusOr<std::string> ServiceTokenSource::Token(absl::Time now) {
  std::lock_guard<std::mutex> lock(mu_);
  if (token_.empty() || now >= refresh_after_) {
    absl::StatusOr<std::string> token = signer_.Sign(service_name_, "", now, ttl_);
    if (!token.ok()) return token.status();
    token_ = *std::move(token);
    refresh_after_ = now + ttl_ / 2;
  }
  return token_;
}

}  // namespace parlor::auth
