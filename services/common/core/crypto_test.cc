#include "services/common/core/crypto.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/testing/status_matchers.h"

namespace parlor {
namespace {

using ::parlor::testing::IsOkAndHolds;
using ::testing::Eq;

TEST(CryptoTest, Base64UrlRoundTripsAllBytes) {
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  std::string encoded = Base64UrlEncode(all);
  EXPECT_EQ(encoded.find_first_of("+/="), std::string::npos);
  EXPECT_THAT(Base64UrlDecode(encoded), IsOkAndHolds(Eq(all)));
}

TEST(CryptoTest, Base64UrlRejectsPaddingAndStandardAlphabet) {
  EXPECT_FALSE(Base64UrlDecode("YQ==").ok());
  EXPECT_FALSE(Base64UrlDecode("a+b/").ok());
  EXPECT_FALSE(Base64UrlDecode("a b").ok());
}

TEST(CryptoTest, Base64UrlRejectsNonCanonicalTrailingBits) {
  // "YR" and "YQ" both decode to "a" in lenient decoders; only the canonical spelling is valid.
  EXPECT_THAT(Base64UrlDecode("YQ"), IsOkAndHolds(Eq("a")));
  EXPECT_FALSE(Base64UrlDecode("YR").ok());
}

TEST(CryptoTest, Sha256MatchesKnownVector) {
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Sha256("abc").size(), 32u);
}

TEST(CryptoTest, RandomTokensDiffer) {
  EXPECT_NE(RandomToken(32), RandomToken(32));
  EXPECT_EQ(RandomBytes(17).size(), 17u);
}

TEST(CryptoTest, ConstantTimeEquals) {
  EXPECT_TRUE(ConstantTimeEquals("abc", "abc"));
  EXPECT_FALSE(ConstantTimeEquals("abc", "abd"));
  EXPECT_FALSE(ConstantTimeEquals("abc", "abcd"));
}

}  // namespace
}  // namespace parlor
