// ID-token verification with the provider's own keys: every check a forged, stolen or misdirected
// token must fail, and key rotation picked up from the key set.
#include "services/accounts/credentials/id_token.h"

#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/accounts/credentials/testing/fake_identity_provider.h"
#include "services/common/core/crypto.h"
#include "services/common/testing/status_matchers.h"

namespace parlor::accounts {
namespace {

using ::parlor::accounts::testing::FakeIdentityProvider;
using ::parlor::accounts::testing::IdTokenClaims;
using ::parlor::testing::IsOk;
using ::parlor::testing::StatusIs;
using ::testing::HasSubstr;

const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);

IdTokenClaims Claims() {
  IdTokenClaims claims;
  claims.iat = kNow - absl::Minutes(1);
  claims.exp = kNow + absl::Minutes(59);
  claims.email = "Ada@Example.com";
  return claims;
}

class IdTokenTest : public ::testing::Test {
 protected:
  IdTokenTest() {
    provider_.AddKey("rsa-1", "RS256");
    provider_.AddKey("ec-1", "ES256");
    keys_ = std::make_shared<JwksCache>(
        "https://keys.test/jwks",
        [this](const std::string&) -> absl::StatusOr<std::string> {
          ++gets_;
          if (!serving_) return absl::UnavailableError("GET failed: HTTP 503");
          return provider_.Jwks();
        },
        [this] { return now_; }, JwksCache::Options{});
    verifier_ = std::make_unique<IdTokenVerifier>(GoogleProvider({"parlor-test-client"}), keys_);
  }

  absl::StatusOr<VerifiedIdToken> Verify(const std::string& token,
                                         const std::string& nonce = "nonce-0123456789abcdef") {
    return verifier_->Verify(token, nonce, now_);
  }

  FakeIdentityProvider provider_;
  absl::Time now_ = kNow;
  bool serving_ = true;
  int gets_ = 0;
  std::shared_ptr<JwksCache> keys_;
  std::unique_ptr<IdTokenVerifier> verifier_;
};

TEST_F(IdTokenTest, Rs256AndEs256TokensOfTheProviderVerify) {
  absl::StatusOr<VerifiedIdToken> rsa = Verify(provider_.Sign("rsa-1", Claims()));
  ASSERT_THAT(rsa, IsOk());
  EXPECT_EQ(rsa->subject, "google-user-1");
  EXPECT_EQ(rsa->email, "ada@example.com");  // verified email, lower-cased
  EXPECT_EQ(rsa->expires_at, absl::FromUnixSeconds(absl::ToUnixSeconds(kNow + absl::Minutes(59))));
  EXPECT_THAT(Verify(provider_.Sign("ec-1", Claims())), IsOk());
  // An unverified email is not taken.
  IdTokenClaims unverified = Claims();
  unverified.email_verified = false;
  absl::StatusOr<VerifiedIdToken> without_email = Verify(provider_.Sign("rsa-1", unverified));
  ASSERT_THAT(without_email, IsOk());
  EXPECT_EQ(without_email->email, "");
  // aud may be a list naming us.
  IdTokenClaims list = Claims();
  list.raw_aud_json = R"("aud":["someone-else","parlor-test-client"])";
  EXPECT_THAT(Verify(provider_.Sign("rsa-1", list)), IsOk());
  EXPECT_EQ(gets_, 1);  // one fetch, keys cached
}

TEST_F(IdTokenTest, ForgedOrTamperedTokensAreRefused) {
  // Signed by a key the provider does not publish, under a kid it does publish.
  FakeIdentityProvider attacker;
  attacker.AddKey("rsa-1", "RS256");
  EXPECT_THAT(Verify(attacker.Sign("rsa-1", Claims())),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("signature is invalid")));
  attacker.AddKey("ec-1", "ES256");
  EXPECT_THAT(Verify(attacker.Sign("ec-1", Claims())),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("signature is invalid")));
  // The payload changed after signing (another user's sub).
  const std::string good = provider_.Sign("rsa-1", Claims());
  IdTokenClaims other = Claims();
  other.sub = "google-user-2";
  const std::string evil = provider_.Sign("rsa-1", other);
  const std::string spliced = good.substr(0, good.find('.')) +
                              evil.substr(evil.find('.'), evil.rfind('.') - evil.find('.')) +
                              good.substr(good.rfind('.'));
  EXPECT_THAT(Verify(spliced),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("signature is invalid")));
  // Algorithm games: none, HMAC, and an EC header on an RSA key.
  EXPECT_THAT(Verify(Base64UrlEncode(R"({"alg":"none","kid":"rsa-1"})") + "." +
                     good.substr(good.find('.') + 1, good.rfind('.') - good.find('.'))),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("only RS256 and ES256")));
  EXPECT_THAT(Verify(provider_.Sign("rsa-1", Claims(), "HS256")),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("\"HS256\"")));
  EXPECT_THAT(Verify(provider_.Sign("rsa-1", Claims(), "ES256")),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("does not match its key")));
  EXPECT_THAT(Verify("a.b"), StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("three")));
  EXPECT_THAT(Verify("!!.??.**"),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("not base64url")));
  EXPECT_THAT(Verify(std::string(kMaxIdTokenBytes + 1, 'a')),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("too long")));
}

TEST_F(IdTokenTest, IssuerAudienceExpiryAndNonceAreChecked) {
  IdTokenClaims claims = Claims();
  claims.iss = "https://evil.example";
  EXPECT_THAT(Verify(provider_.Sign("rsa-1", claims)),
              StatusIs(absl::StatusCode::kUnauthenticated,
                       HasSubstr("issued by \"https://evil.example\"")));
  claims = Claims();
  claims.aud = "another-app";
  EXPECT_THAT(Verify(provider_.Sign("rsa-1", claims)),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("issued for another app")));
  // Expired: beyond the 60 s leeway refused, within it accepted.
  claims = Claims();
  claims.exp = kNow - absl::Seconds(61);
  EXPECT_THAT(Verify(provider_.Sign("rsa-1", claims)),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("expired at")));
  claims.exp = kNow - absl::Seconds(59);
  EXPECT_THAT(Verify(provider_.Sign("rsa-1", claims)), IsOk());
  claims = Claims();
  claims.iat = kNow + absl::Minutes(5);
  EXPECT_THAT(Verify(provider_.Sign("rsa-1", claims)),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("in the future")));
  // Nonce: missing, or not the one this sign-in sent (a token captured elsewhere).
  claims = Claims();
  claims.nonce = "";
  EXPECT_THAT(Verify(provider_.Sign("rsa-1", claims)),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("carries no nonce")));
  EXPECT_THAT(Verify(provider_.Sign("rsa-1", Claims()), "another-nonce-0123456"),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("nonce does not match")));
}

TEST_F(IdTokenTest, AppleTokensCarryTheNoncesSha256) {
  IdTokenVerifier apple(AppleProvider({"com.parlor.app"}), keys_);
  IdTokenClaims claims = Claims();
  claims.iss = "https://appleid.apple.com";
  claims.aud = "com.parlor.app";
  claims.nonce = Sha256Hex("raw-nonce-0123456789");
  EXPECT_THAT(apple.Verify(provider_.Sign("rsa-1", claims), "raw-nonce-0123456789", now_), IsOk());
  // The raw nonce in the token (the app forgot to hash it) does not match.
  claims.nonce = "raw-nonce-0123456789";
  EXPECT_THAT(apple.Verify(provider_.Sign("rsa-1", claims), "raw-nonce-0123456789", now_),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("SHA-256")));
  // A Google-issued token is no Apple token.
  claims = Claims();
  claims.aud = "com.parlor.app";
  EXPECT_THAT(apple.Verify(provider_.Sign("rsa-1", claims), "nonce-0123456789abcdef", now_),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("not https://appleid")));
}

TEST_F(IdTokenTest, RotatedKeysAreFetchedButUnknownKidsCannotHammerTheProvider) {
  ASSERT_THAT(Verify(provider_.Sign("rsa-1", Claims())), IsOk());
  EXPECT_EQ(gets_, 1);
  // The provider rotates: a new key appears, the old one goes.
  provider_.AddKey("rsa-2", "RS256");
  provider_.RemoveKey("rsa-1");
  now_ += absl::Seconds(31);
  EXPECT_THAT(Verify(provider_.Sign("rsa-2", Claims())), IsOk());
  EXPECT_EQ(gets_, 2);  // fetched again for the unknown kid
  // Made-up kids within the refetch interval cost no fetch.
  const std::string payload = R"({"iss":"https://accounts.google.com","sub":"x"})";
  for (int i = 0; i < 50; ++i) {
    const std::string header = R"({"alg":"ES256","kid":"made-up-)" + std::to_string(i) + R"("})";
    EXPECT_THAT(Verify(provider_.SignRaw("ec-1", header, payload)),
                StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("does not publish")));
  }
  EXPECT_EQ(gets_, 2);
  // The provider is down: keys held keep working; after max_age they are still used.
  serving_ = false;
  now_ += absl::Hours(2);
  IdTokenClaims later = Claims();
  later.iat = now_ - absl::Minutes(1);
  later.exp = now_ + absl::Minutes(59);
  EXPECT_THAT(Verify(provider_.Sign("rsa-2", later)), IsOk());
  EXPECT_EQ(gets_, 3);
}

TEST_F(IdTokenTest, NoKeysAtAllIsUnavailableAndSmallRsaKeysAreNotTrusted) {
  serving_ = false;
  EXPECT_THAT(Verify(provider_.Sign("rsa-1", Claims())),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("could not be fetched")));
  serving_ = true;
  now_ += absl::Seconds(31);
  provider_.AddKey("rsa-1024", "RS256", 1024);
  EXPECT_THAT(Verify(provider_.Sign("rsa-1024", Claims())),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("does not publish")));
  EXPECT_THAT(Verify(provider_.Sign("rsa-1", Claims())), IsOk());
}

}  // namespace
}  // namespace parlor::accounts
