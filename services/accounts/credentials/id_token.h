#ifndef PARLOR_SERVICES_ACCOUNTS_CREDENTIALS_ID_TOKEN_H_
#define PARLOR_SERVICES_ACCOUNTS_CREDENTIALS_ID_TOKEN_H_

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace parlor::accounts {

// Sign in with Apple and Google Sign-In: the app obtains an ID token (a JWT signed by the
// provider) and sends it; the server checks it against the provider's published signing keys
// (a JWKS document at a URL), then issuer, audience, expiry and nonce.

// GET `url` and return the body (HTTP 200 only). Blocking.
using HttpGet = std::function<absl::StatusOr<std::string>(const std::string& url)>;

// HttpGet through libcurl: https, or plain http to a loopback address (tests, development); 5 s
// timeout; bodies over 1 MiB refused.
absl::StatusOr<std::string> CurlHttpGet(const std::string& url);
// OK when CurlHttpGet would accept `url` (checked at start-up for the configured JWKS URLs).
absl::Status ValidateKeysUrl(absl::string_view url);

// The provider's signing keys, fetched from its JWKS URL and kept for `max_age`. A token naming
// a key id the cache does not hold makes it fetch again at once (providers rotate keys), but at
// most once per `min_refetch_interval`, so tokens with made-up key ids cannot make the server
// hammer the provider. When a fetch fails the keys already held keep working. Thread-safe.
class JwksCache {
 public:
  struct Options {
    absl::Duration max_age = absl::Hours(1);
    absl::Duration min_refetch_interval = absl::Seconds(30);
  };
  JwksCache(std::string url, HttpGet get, std::function<absl::Time()> clock, Options options);
  ~JwksCache();

  struct Key;
  // The key `kid`; UNAUTHENTICATED when the provider does not publish it, UNAVAILABLE when the
  // keys could not be fetched and none are held.
  absl::StatusOr<std::shared_ptr<const Key>> Find(const std::string& kid);

  // Fetches made so far (for tests).
  int fetches() const;

 private:
  absl::Status Refresh(absl::Time now);  // requires mu_

  const std::string url_;
  const HttpGet get_;
  const std::function<absl::Time()> clock_;
  const Options options_;
  mutable std::mutex mu_;
  absl::flat_hash_map<std::string, std::shared_ptr<const Key>> keys_;
  absl::Time fetched_at_ = absl::InfinitePast();
  absl::Time last_attempt_ = absl::InfinitePast();
  int fetches_ = 0;
};

// One provider's rules.
struct IdTokenProvider {
  std::string name;                    // "apple", "google"
  std::vector<std::string> issuers;    // accepted `iss` values
  std::vector<std::string> audiences;  // this app's client ids; `aud` must name one
  // Apple puts SHA-256(nonce) (lower-case hex) in the token; Google the nonce itself.
  bool nonce_is_sha256 = false;
};

IdTokenProvider AppleProvider(std::vector<std::string> client_ids);
IdTokenProvider GoogleProvider(std::vector<std::string> client_ids);

struct VerifiedIdToken {
  std::string subject;  // the provider's stable user id (`sub`)
  std::string email;    // when the provider reported a verified one, else empty
  absl::Time expires_at;
};

inline constexpr size_t kMaxIdTokenBytes = 8192;
inline constexpr size_t kMinNonceLength = 16;
inline constexpr size_t kMaxNonceLength = 128;

class IdTokenVerifier {
 public:
  IdTokenVerifier(IdTokenProvider provider, std::shared_ptr<JwksCache> keys,
                  absl::Duration leeway = absl::Seconds(60))
      : provider_(std::move(provider)), keys_(std::move(keys)), leeway_(leeway) {}

  // Signature (RS256 with a key of at least 2048 bits, or ES256 on P-256; the algorithm must
  // match the key), iss, aud, exp, iat and nonce. Failures are UNAUTHENTICATED naming the check
  // (UNAVAILABLE when the keys cannot be fetched).
  absl::StatusOr<VerifiedIdToken> Verify(absl::string_view token, absl::string_view nonce,
                                         absl::Time now) const;

  const IdTokenProvider& provider() const { return provider_; }

 private:
  IdTokenProvider provider_;
  std::shared_ptr<JwksCache> keys_;
  absl::Duration leeway_;
};

}  // namespace parlor::accounts

#endif  // PARLOR_SERVICES_ACCOUNTS_CREDENTIALS_ID_TOKEN_H_
