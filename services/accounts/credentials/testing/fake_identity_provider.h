#ifndef PARLOR_SERVICES_ACCOUNTS_CREDENTIALS_TESTING_FAKE_IDENTITY_PROVIDER_H_
#define PARLOR_SERVICES_ACCOUNTS_CREDENTIALS_TESTING_FAKE_IDENTITY_PROVIDER_H_

#include <map>
#include <memory>
#include <string>

#include "absl/time/clock.h"
#include "absl/time/time.h"

// Test-only: an identity provider with its own keys (RSA 2048 and EC P-256, made with OpenSSL at
// test time) that publishes them as a JWKS document and signs ID tokens with them, the way Apple
// and Google do.
namespace parlor::accounts::testing {

struct IdTokenClaims {
  std::string iss = "https://accounts.google.com";
  std::string aud = "parlor-test-client";
  std::string sub = "google-user-1";
  std::string nonce = "nonce-0123456789abcdef";
  std::string email;
  bool email_verified = true;
  absl::Time iat = absl::Now();
  absl::Time exp = absl::Now() + absl::Hours(1);
  // Extra raw JSON members appended to the payload (e.g. R"("aud":["a","b"])" replaces aud).
  std::string raw_aud_json;
};

class FakeIdentityProvider {
 public:
  FakeIdentityProvider();
  ~FakeIdentityProvider();

  // Adds a key: "RS256" (RSA of `bits`) or "ES256" (P-256).
  void AddKey(const std::string& kid, const std::string& alg, int bits = 2048);
  void RemoveKey(const std::string& kid);
  // The JWKS document with every key added and not removed.
  std::string Jwks() const;
  // A token signed by key `kid` with header alg `alg` (defaults to the key's).
  std::string Sign(const std::string& kid, const IdTokenClaims& claims,
                   const std::string& alg = "") const;
  // A token with any header and payload JSON, signed by `kid`'s key.
  std::string SignRaw(const std::string& kid, const std::string& header_json,
                      const std::string& payload_json) const;

 private:
  struct Key;
  std::map<std::string, std::shared_ptr<Key>> keys_;
};

}  // namespace parlor::accounts::testing

#endif  // PARLOR_SERVICES_ACCOUNTS_CREDENTIALS_TESTING_FAKE_IDENTITY_PROVIDER_H_
