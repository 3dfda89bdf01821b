#ifndef PARLOR_SERVICES_COMMON_CORE_TOKEN_H_
#define PARLOR_SERVICES_COMMON_CORE_TOKEN_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace parlor::auth {

// Bearer tokens are JWTs signed with Ed25519 (JWS alg "EdDSA"). Only accounts holds the private
// key for player tokens; every other service holds the public key and verifies tokens locally,
// without calling accounts per request.
//
// Two kinds of token exist, each with its own key pair, issuer and audience, so a player's token
// can never satisfy an internal RPC (its signature does not verify against the service key, and
// its `typ`, `iss` and `aud` differ as a second line of defence):
//   - kAccess:  a player's short-lived access token (sub = account id, sid = session family,
//               did = DeviceClaim of the signed-in device; tokens minted before `did` existed
//               lack it).
//   - kService: a service credential for internal RPCs (sub = calling service's name).
enum class TokenKind { kAccess, kService };

absl::string_view TokenKindName(TokenKind kind);

struct Claims {
  TokenKind kind = TokenKind::kAccess;
  std::string subject;     // account id (kAccess) or service name (kService)
  std::string session_id;  // refresh-token family (kAccess only); lets SignOut find the session
  std::string token_id;    // random jti, for log correlation
  std::string device;      // DeviceClaim of the device (kAccess; empty in older tokens)
  absl::Time issued_at;
  absl::Time expires_at;
};

// An Ed25519 key pair as passed in configuration: base64 (standard alphabet) of the raw 32-byte
// private seed and of the raw 32-byte public key.
struct KeyPairBase64 {
  std::string private_key;
  std::string public_key;
};
KeyPairBase64 GenerateKeyPair();

// What an access token says about its device: a digest, never the device id itself, because the
// device id is what AuthenticateDevice accepts as the credential and a token's claims are
// readable by anyone who sees the token.
std::string DeviceClaim(absl::string_view device_id);
// The public key belonging to a private seed.
absl::StatusOr<std::string> PublicKeyFor(absl::string_view private_key_base64);

class TokenSigner {
 public:
  static absl::StatusOr<TokenSigner> Create(TokenKind kind, absl::string_view private_key_base64);

  // Signs a token for `subject` valid from `now` for `ttl`; `device` (a DeviceClaim) is
  // optional.
  absl::StatusOr<std::string> Sign(absl::string_view subject, absl::string_view session_id,
                                   absl::Time now, absl::Duration ttl,
                                   absl::string_view device = "") const;

  TokenKind kind() const { return kind_; }

 private:
  struct Key;
  TokenSigner(TokenKind kind, std::shared_ptr<const Key> key) : kind_(kind), key_(std::move(key)) {}
  TokenKind kind_;
  std::shared_ptr<const Key> key_;
};

class TokenVerifier {
 public:
  // Verified tokens are remembered (by their exact bytes, so the same signature) until they
  // expire: a player's phone sends the same access token on every call for up to 15 minutes, and
  // an Ed25519 verification plus two JSON parses is most of a cheap RPC's CPU. Bounded memory.
  static constexpr size_t kCacheShards = 16;
  static constexpr size_t kCacheEntriesPerShard = 2048;

  // `leeway` tolerates clock skew between replicas for exp/iat.
  static absl::StatusOr<TokenVerifier> Create(TokenKind kind, absl::string_view public_key_base64,
                                              absl::Duration leeway = absl::Seconds(30));

  // Verifies signature (alg pinned to EdDSA), typ, iss, aud, exp and iat. Every failure is
  // UNAUTHENTICATED with a message a client developer can act on; none reveals key material.
  absl::StatusOr<Claims> Verify(absl::string_view token, absl::Time now) const;

  TokenKind kind() const { return kind_; }

  // How many verifications the cache answered (for tests and benchmarks).
  uint64_t cache_hits() const;

 private:
  struct Key;
  class VerifiedCache;
  TokenVerifier(TokenKind kind, std::shared_ptr<const Key> key, absl::Duration leeway);
  absl::StatusOr<Claims> VerifyUncached(absl::string_view token, absl::Time now) const;
  bool TimeValid(const Claims& claims, absl::Time now) const;

  TokenKind kind_;
  std::shared_ptr<const Key> key_;
  absl::Duration leeway_;
  // Shared by copies of this verifier; thread-safe.
  std::shared_ptr<VerifiedCache> cache_;
};

// Mints and caches the service credential a service sends on its internal calls (e.g.
// matchmaking → sessions.CreateGame), re-minting when less than half its lifetime is left.
// Thread-safe.
class ServiceTokenSource {
 public:
  ServiceTokenSource(TokenSigner signer, std::string service_name,
                     absl::Duration ttl = absl::Minutes(10))
      : signer_(std::move(signer)), service_name_(std::move(service_name)), ttl_(ttl) {}

  // "Bearer <token>" is what goes into `authorization` metadata.
  absl::StatusOr<std::string> Token(absl::Time now);

 private:
  TokenSigner signer_;
  std::string service_name_;
  absl::Duration ttl_;
  std::mutex mu_;
  std::string token_;
  absl::Time refresh_after_ = absl::InfinitePast();
};

// Upper bound on an encoded token; anything longer is rejected before any parsing.
inline constexpr size_t kMaxTokenBytes = 4096;

}  // namespace parlor::auth

#endif  // PARLOR_SERVICES_COMMON_CORE_TOKEN_H_
