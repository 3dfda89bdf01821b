#include "services/common/core/token.h"

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/core/crypto.h"
#include "services/common/testing/status_matchers.h"

namespace parlor::auth {
namespace {

using ::parlor::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::Not;

const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);

class TokenTest : public ::testing::Test {
 protected:
  void SetUp() override {
    access_keys_ = GenerateKeyPair();
    service_keys_ = GenerateKeyPair();
  }
  TokenSigner Signer(TokenKind kind, const KeyPairBase64& keys) {
    return *TokenSigner::Create(kind, keys.private_key);
  }
  TokenVerifier Verifier(TokenKind kind, const KeyPairBase64& keys) {
    return *TokenVerifier::Create(kind, keys.public_key);
  }
  KeyPairBase64 access_keys_;
  KeyPairBase64 service_keys_;
};

TEST_F(TokenTest, SignedTokenVerifiesWithItsClaims) {
  std::string token = *Signer(TokenKind::kAccess, access_keys_)
                           .Sign("account-1", "family-1", kNow, absl::Minutes(15));
  absl::StatusOr<Claims> claims =
      Verifier(TokenKind::kAccess, access_keys_).Verify(token, kNow + absl::Minutes(14));
  ASSERT_TRUE(claims.ok()) << claims.status();
  EXPECT_EQ(claims->subject, "account-1");
  EXPECT_EQ(claims->session_id, "family-1");
  EXPECT_EQ(claims->expires_at, kNow + absl::Minutes(15));
  EXPECT_FALSE(claims->token_id.empty());
}

TEST_F(TokenTest, DeviceClaimTravelsInTheTokenAndOlderTokensLackIt) {
  const TokenSigner signer = Signer(TokenKind::kAccess, access_keys_);
  const TokenVerifier verifier = Verifier(TokenKind::kAccess, access_keys_);
  const std::string device = DeviceClaim("device-0123456789");
  absl::StatusOr<Claims> with =
      verifier.Verify(*signer.Sign("account-1", "family-1", kNow, absl::Minutes(15), device), kNow);
  ASSERT_TRUE(with.ok()) << with.status();
  EXPECT_EQ(with->device, device);
  absl::StatusOr<Claims> without =
      verifier.Verify(*signer.Sign("account-1", "family-1", kNow, absl::Minutes(15)), kNow);
  ASSERT_TRUE(without.ok()) << without.status();
  EXPECT_EQ(without->device, "");
}

TEST_F(TokenTest, DeviceClaimNeverRevealsTheDeviceId) {
  const std::string device_id = "device-0123456789";
  const std::string claim = DeviceClaim(device_id);
  EXPECT_EQ(claim, DeviceClaim(device_id));
  EXPECT_NE(claim, DeviceClaim("device-0123456780"));
  EXPECT_THAT(claim, Not(HasSubstr("0123456789")));
  EXPECT_EQ(claim.size(), 22u);
}

TEST_F(TokenTest, ExpiredTokenIsRejectedWithAHint) {
  std::string token =
      *Signer(TokenKind::kAccess, access_keys_).Sign("a", "f", kNow, absl::Minutes(15));
  EXPECT_THAT(Verifier(TokenKind::kAccess, access_keys_).Verify(token, kNow + absl::Minutes(16)),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("call RefreshSession")));
}

TEST_F(TokenTest, TokenFromAnotherKeyIsForged) {
  KeyPairBase64 attacker = GenerateKeyPair();
  std::string token = *Signer(TokenKind::kAccess, attacker).Sign("a", "f", kNow, absl::Minutes(15));
  EXPECT_THAT(Verifier(TokenKind::kAccess, access_keys_).Verify(token, kNow),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("signature is invalid")));
}

TEST_F(TokenTest, TamperedPayloadIsRejected) {
  std::string token =
      *Signer(TokenKind::kAccess, access_keys_).Sign("account-1", "f", kNow, absl::Minutes(15));
  std::vector<std::string> parts = absl::StrSplit(token, '.');
  std::string payload = *Base64UrlDecode(parts[1]);
  payload.replace(payload.find("account-1"), 9, "account-2");
  std::string tampered = parts[0] + "." + Base64UrlEncode(payload) + "." + parts[2];
  EXPECT_THAT(Verifier(TokenKind::kAccess, access_keys_).Verify(tampered, kNow),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("signature is invalid")));
}

TEST_F(TokenTest, AlgorithmIsPinned) {
  std::string token =
      *Signer(TokenKind::kAccess, access_keys_).Sign("a", "f", kNow, absl::Minutes(15));
  std::vector<std::string> parts = absl::StrSplit(token, '.');
  std::string none = Base64UrlEncode(R"({"alg":"none","typ":"JWT"})") + "." + parts[1] + ".";
  EXPECT_THAT(Verifier(TokenKind::kAccess, access_keys_).Verify(none, kNow),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("only EdDSA")));
  std::string hs = Base64UrlEncode(R"({"alg":"HS256"})") + "." + parts[1] + "." + parts[2];
  EXPECT_THAT(Verifier(TokenKind::kAccess, access_keys_).Verify(hs, kNow),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("only EdDSA")));
}

TEST_F(TokenTest, PlayerTokenNeverSatisfiesServiceVerifier) {
  std::string player =
      *Signer(TokenKind::kAccess, access_keys_).Sign("a", "f", kNow, absl::Minutes(15));
  EXPECT_THAT(Verifier(TokenKind::kService, service_keys_).Verify(player, kNow),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("service credential")));
  // Even if an operator mistakenly configured one key pair for both kinds, typ/iss/aud differ.
  EXPECT_THAT(Verifier(TokenKind::kService, access_keys_).Verify(player, kNow),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("not a service credential")));
  std::string service =
      *Signer(TokenKind::kService, service_keys_).Sign("matchmaking", "", kNow, absl::Hours(1));
  EXPECT_TRUE(Verifier(TokenKind::kService, service_keys_).Verify(service, kNow).ok());
}

TEST_F(TokenTest, ServiceTokenSourceCachesAndRenews) {
  ServiceTokenSource source(Signer(TokenKind::kService, service_keys_), "matchmaking",
                            absl::Minutes(10));
  std::string first = *source.Token(kNow);
  EXPECT_EQ(*source.Token(kNow + absl::Minutes(4)), first);
  std::string renewed = *source.Token(kNow + absl::Minutes(6));
  EXPECT_NE(renewed, first);
  absl::StatusOr<Claims> claims =
      Verifier(TokenKind::kService, service_keys_).Verify(renewed, kNow + absl::Minutes(6));
  ASSERT_TRUE(claims.ok()) << claims.status();
  EXPECT_EQ(claims->subject, "matchmaking");
}

TEST_F(TokenTest, MalformedTokensAreRejected) {
  TokenVerifier verifier = Verifier(TokenKind::kAccess, access_keys_);
  for (std::string bad : {std::string(""), std::string("abc"), std::string("a.b.c"),
                          std::string("a.b"), std::string(5000, 'a')}) {
    EXPECT_THAT(verifier.Verify(bad, kNow),
                StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("access token")))
        << bad;
  }
}

TEST_F(TokenTest, BadKeysAreRejectedWithAHint) {
  EXPECT_THAT(TokenSigner::Create(TokenKind::kAccess, "short").status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("32-byte Ed25519")));
  EXPECT_THAT(TokenVerifier::Create(TokenKind::kService, "!!").status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("service credential")));
  EXPECT_EQ(*PublicKeyFor(access_keys_.private_key), access_keys_.public_key);
}

// The cache only saves work: a cached token is still refused once it expires, with the same
// hint, and a token differing in any byte is verified afresh.
TEST_F(TokenTest, VerifiedTokensAreCachedUntilTheyExpire) {
  const TokenVerifier verifier = Verifier(TokenKind::kAccess, access_keys_);
  const std::string token =
      *Signer(TokenKind::kAccess, access_keys_).Sign("account-1", "f", kNow, absl::Minutes(15));
  ASSERT_TRUE(verifier.Verify(token, kNow).ok());
  EXPECT_EQ(verifier.cache_hits(), 0u);
  absl::StatusOr<Claims> again = verifier.Verify(token, kNow + absl::Minutes(1));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->subject, "account-1");
  EXPECT_EQ(verifier.cache_hits(), 1u);

  EXPECT_THAT(verifier.Verify(token, kNow + absl::Minutes(16)),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("RefreshSession")));

  std::string forged = token;
  forged.back() = forged.back() == 'A' ? 'B' : 'A';
  EXPECT_THAT(verifier.Verify(forged, kNow),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("")));
}

}  // namespace
}  // namespace parlor::auth
