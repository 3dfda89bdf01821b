#include "services/common/core/page_token.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/testing/status_matchers.h"

namespace parlor {
namespace {

using ::parlor::testing::IsOkAndHolds;
using ::parlor::testing::StatusIs;
using ::testing::Eq;
using ::testing::HasSubstr;

TEST(PageTokensTest, RoundTripsForTheSameRequest) {
  PageTokens tokens("secret");
  std::string token = tokens.Encode("2026-01-01|42", "game=pico");
  EXPECT_THAT(tokens.Decode(token, "game=pico"), IsOkAndHolds(Eq("2026-01-01|42")));
}

TEST(PageTokensTest, RejectsOtherRequestsForgeriesAndGarbage) {
  PageTokens tokens("secret");
  std::string token = tokens.Encode("cursor", "game=pico");
  EXPECT_THAT(tokens.Decode(token, "game=pict"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("does not match")));
  EXPECT_THAT(PageTokens("other").Decode(token, "game=pico"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("does not match")));
  EXPECT_THAT(tokens.Decode("!!", "game=pico"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("malformed")));
}

}  // namespace
}  // namespace parlor
