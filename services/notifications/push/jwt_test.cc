#include "services/notifications/push/jwt.h"

#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "openssl/ec.h"
#include "openssl/ecdsa.h"
#include "openssl/evp.h"
#include "openssl/pem.h"
#include "openssl/rsa.h"
#include "services/common/core/crypto.h"
#include "services/notifications/push/apns.h"
#include "services/notifications/push/http2_client.h"

namespace parlor::notifications {
namespace {

// A fresh key as PEM (PKCS#8), and its public half for verifying.
struct TestKey {
  std::string private_pem;
  EVP_PKEY* key = nullptr;
  ~TestKey() { EVP_PKEY_free(key); }
};

void Generate(TestKey& out, bool ec) {
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_id(ec ? EVP_PKEY_EC : EVP_PKEY_RSA, nullptr);
  ASSERT_EQ(EVP_PKEY_keygen_init(ctx), 1);
  if (ec) {
    ASSERT_EQ(EVP_PKEY_CTX_set_ec_paramgen_curve_nid(ctx, NID_X9_62_prime256v1), 1);
  } else {
    ASSERT_EQ(EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, 2048), 1);
  }
  ASSERT_EQ(EVP_PKEY_keygen(ctx, &out.key), 1);
  EVP_PKEY_CTX_free(ctx);
  BIO* bio = BIO_new(BIO_s_mem());
  ASSERT_EQ(PEM_write_bio_PKCS8PrivateKey(bio, out.key, nullptr, nullptr, 0, nullptr, nullptr), 1);
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio, &data);
  out.private_pem.assign(data, size);
  BIO_free(bio);
}

bool Verify(EVP_PKEY* key, const std::string& input, std::string signature) {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  bool ok = EVP_DigestVerifyInit(ctx, nullptr, EVP_sha256(), nullptr, key) == 1 &&
            EVP_DigestVerify(ctx, reinterpret_cast<const unsigned char*>(signature.data()),
                             signature.size(), reinterpret_cast<const unsigned char*>(input.data()),
                             input.size()) == 1;
  EVP_MD_CTX_free(ctx);
  return ok;
}

std::string RawToDer(const std::string& raw) {
  ECDSA_SIG* sig = ECDSA_SIG_new();
  const auto* bytes = reinterpret_cast<const unsigned char*>(raw.data());
  ECDSA_SIG_set0(sig, BN_bin2bn(bytes, 32, nullptr), BN_bin2bn(bytes + 32, 32, nullptr));
  unsigned char* der = nullptr;
  const int size = i2d_ECDSA_SIG(sig, &der);
  std::string out(reinterpret_cast<char*>(der), size);
  OPENSSL_free(der);
  ECDSA_SIG_free(sig);
  return out;
}

TEST(JwtTest, Es256TokensCarryA64ByteRawSignatureThatVerifies) {
  TestKey key;
  Generate(key, /*ec=*/true);
  absl::StatusOr<JwtSigner> signer = JwtSigner::FromPem(key.private_pem);
  ASSERT_TRUE(signer.ok()) << signer.status();
  EXPECT_EQ(signer->algorithm(), "ES256");
  absl::StatusOr<std::string> jwt =
      signer->Sign(R"({"alg":"ES256","kid":"ABC123DEFG"})", R"({"iss":"TEAM","iat":1})");
  ASSERT_TRUE(jwt.ok());
  std::vector<std::string> parts = absl::StrSplit(*jwt, '.');
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(*Base64UrlDecode(parts[0]), R"({"alg":"ES256","kid":"ABC123DEFG"})");
  const std::string raw = *Base64UrlDecode(parts[2]);
  ASSERT_EQ(raw.size(), 64u);  // R || S, not DER
  EXPECT_TRUE(Verify(key.key, parts[0] + "." + parts[1], RawToDer(raw)));
  EXPECT_FALSE(Verify(key.key, parts[0] + "." + parts[1] + "x", RawToDer(raw)));
}

TEST(JwtTest, Rs256TokensVerifyWithTheRsaKey) {
  TestKey key;
  Generate(key, /*ec=*/false);
  absl::StatusOr<JwtSigner> signer = JwtSigner::FromPem(key.private_pem);
  ASSERT_TRUE(signer.ok()) << signer.status();
  EXPECT_EQ(signer->algorithm(), "RS256");
  absl::StatusOr<std::string> jwt = signer->Sign(R"({"alg":"RS256","typ":"JWT"})", "{}");
  ASSERT_TRUE(jwt.ok());
  std::vector<std::string> parts = absl::StrSplit(*jwt, '.');
  EXPECT_TRUE(Verify(key.key, parts[0] + "." + parts[1], *Base64UrlDecode(parts[2])));
}

TEST(JwtTest, NotAKeyIsRefused) {
  EXPECT_FALSE(JwtSigner::FromPem("-----BEGIN PRIVATE KEY-----\nAAAA\n").ok());
}

TEST(ApnsTokensTest, TheProviderTokenIsReusedThenRenewedWithinTheHour) {
  TestKey key;
  Generate(key, /*ec=*/true);
  ApnsConfig config;
  config.key_id = "ABC123DEFG";
  config.team_id = "DEF123GHIJ";
  config.private_key_pem = key.private_pem;
  absl::Time now = absl::FromUnixSeconds(1'800'000'000);
  auto tokens = ApnsTokens::Create(config, [&now] { return now; });
  ASSERT_TRUE(tokens.ok()) << tokens.status();
  const std::string first = *(*tokens)->Get();
  auto claims = [](const std::string& jwt) {
    std::vector<std::string> parts = absl::StrSplit(jwt, '.');
    return *Base64UrlDecode(parts[1]);
  };
  EXPECT_EQ(claims(first), R"({"iss":"DEF123GHIJ","iat":1800000000})");
  // Apple refuses tokens renewed more often than every 20 minutes: the same one for 49 minutes.
  now += absl::Minutes(49);
  EXPECT_EQ(*(*tokens)->Get(), first);
  // And tokens older than an hour: renewed at 50 minutes.
  now += absl::Minutes(1);
  const std::string second = *(*tokens)->Get();
  EXPECT_NE(second, first);
  EXPECT_EQ(claims(second), R"({"iss":"DEF123GHIJ","iat":1800003000})");
  // APNs answered ExpiredProviderToken: a new one at once.
  now += absl::Seconds(1);
  (*tokens)->Invalidate(second);
  EXPECT_NE(*(*tokens)->Get(), second);
  // An RSA key is not an APNs key.
  TestKey rsa;
  Generate(rsa, /*ec=*/false);
  config.private_key_pem = rsa.private_pem;
  EXPECT_FALSE(ApnsTokens::Create(config, [&now] { return now; }).ok());
}

TEST(RetryAfterTest, SecondsAndHttpDates) {
  const absl::Time now = absl::FromUnixSeconds(1'700'000'000);
  EXPECT_EQ(ParseRetryAfter("3", now), absl::Seconds(3));
  EXPECT_EQ(ParseRetryAfter(absl::FormatTime("%a, %d %b %Y %H:%M:%S GMT", now + absl::Seconds(90),
                                             absl::UTCTimeZone()),
                            now),
            absl::Seconds(90));
  EXPECT_EQ(ParseRetryAfter("soon", now), std::nullopt);
  EXPECT_EQ(FormEscape("a b&c=d/e:"), "a%20b%26c%3Dd%2Fe%3A");
}

}  // namespace
}  // namespace parlor::notifications
