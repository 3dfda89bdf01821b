#include "services/common/rpc.h"

#include <optional>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "prometheus/registry.h"
#include "prometheus/text_serializer.h"
#include "services/common/testing/status_matchers.h"

namespace parlor {
namespace {

using ::parlor::testing::IsOk;
using ::parlor::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::Optional;

const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);
const MethodName kGetMe{"parlor.accounts.v1.AccountsService", "GetMe"};

auth::Claims Player(const std::string& account, const std::string& device,
                    const std::string& session = "session-1") {
  auth::Claims claims;
  claims.subject = account;
  claims.device = device;
  claims.session_id = session;
  return claims;
}

std::string Scrape(prometheus::Registry& registry) {
  return prometheus::TextSerializer().Serialize(registry.Collect());
}

TEST(RequestIdTest, NewIdsAreTwelveUrlSafeCharactersAndDoNotRepeat) {
  absl::flat_hash_set<std::string> seen;
  for (int i = 0; i < 10000; ++i) {
    const std::string id = NewRequestId();
    ASSERT_EQ(id.size(), 12u) << id;
    for (char c : id) {
      EXPECT_TRUE(absl::ascii_isalnum(c) || c == '-' || c == '_') << id;
    }
    EXPECT_TRUE(seen.insert(id).second) << "repeated: " << id;
  }
}

TEST(CallLimiterTest, PlayerCallsAreLimitedPerDeviceAndPerAccount) {
  prometheus::Registry registry;
  CallLimiter limiter(
      {.account = {.per_minute = 60, .burst = 3}, .device = {.per_minute = 60, .burst = 2}},
      &registry);
  // Device A of account 1 spends its own burst of 2...
  EXPECT_THAT(limiter.Admit(kGetMe, Access::kPlayer, Player("acc-1", "dev-a"), "", kNow), IsOk());
  EXPECT_THAT(limiter.Admit(kGetMe, Access::kPlayer, Player("acc-1", "dev-a"), "", kNow), IsOk());
  const absl::Status device_refused =
      limiter.Admit(kGetMe, Access::kPlayer, Player("acc-1", "dev-a"), "", kNow);
  EXPECT_THAT(device_refused,
              StatusIs(absl::StatusCode::kResourceExhausted,
                       HasSubstr("rate limit of this device exceeded (60 calls a minute, bursts "
                                 "of 2); nothing was done, retry after 1.000 s")));
  EXPECT_THAT(RetryDelay(device_refused), Optional(absl::Seconds(1)));
  // ...device B of the same account gets one more call before the account's burst of 3 is gone.
  EXPECT_THAT(limiter.Admit(kGetMe, Access::kPlayer, Player("acc-1", "dev-b"), "", kNow), IsOk());
  EXPECT_THAT(limiter.Admit(kGetMe, Access::kPlayer, Player("acc-1", "dev-b"), "", kNow),
              StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("of this account")));
  // Another account is unaffected; a second later account 1 may call again.
  EXPECT_THAT(limiter.Admit(kGetMe, Access::kPlayer, Player("acc-2", "dev-c"), "", kNow), IsOk());
  EXPECT_THAT(
      limiter.Admit(kGetMe, Access::kPlayer, Player("acc-1", "dev-b"), "", kNow + absl::Seconds(1)),
      IsOk());
  const std::string metrics = Scrape(registry);
  EXPECT_THAT(metrics, HasSubstr("parlor_rate_limited_total{method=\"GetMe\",scope=\"device\","
                                 "service=\"parlor.accounts.v1.AccountsService\"} 1"));
  EXPECT_THAT(metrics, HasSubstr("parlor_rate_limited_total{method=\"GetMe\",scope=\"account\","
                                 "service=\"parlor.accounts.v1.AccountsService\"} 1"));
}

TEST(CallLimiterTest, TokensWithoutADeviceClaimAreLimitedPerSession) {
  CallLimiter limiter({.device = {.per_minute = 60, .burst = 1}}, nullptr);
  EXPECT_THAT(limiter.Admit(kGetMe, Access::kPlayer, Player("acc-1", "", "s1"), "", kNow), IsOk());
  EXPECT_THAT(limiter.Admit(kGetMe, Access::kPlayer, Player("acc-1", "", "s1"), "", kNow),
              StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("of this device")));
  // Sessions are told apart per account: another account's session of the same name is separate.
  EXPECT_THAT(limiter.Admit(kGetMe, Access::kPlayer, Player("acc-2", "", "s1"), "", kNow), IsOk());
  EXPECT_THAT(limiter.Admit(kGetMe, Access::kPlayer, Player("acc-1", "", "s2"), "", kNow), IsOk());
}

TEST(CallLimiterTest, PublicCallsAreLimitedPerClientAddress) {
  prometheus::Registry registry;
  CallLimiter limiter({.peer = {.per_minute = 6, .burst = 1}}, &registry);
  const MethodName sign_in{"parlor.accounts.v1.AccountsService", "AuthenticateDevice"};
  EXPECT_THAT(limiter.Admit(sign_in, Access::kPublic, std::nullopt, "ipv4:10.0.0.1:5000", kNow),
              IsOk());
  // Another connection from the same address shares the bucket.
  const absl::Status refused =
      limiter.Admit(sign_in, Access::kPublic, std::nullopt, "ipv4:10.0.0.1:5001", kNow);
  EXPECT_THAT(refused, StatusIs(absl::StatusCode::kResourceExhausted,
                                HasSubstr("rate limit of this peer exceeded")));
  EXPECT_THAT(RetryDelay(refused), Optional(absl::Seconds(10)));
  EXPECT_THAT(limiter.Admit(sign_in, Access::kPublic, std::nullopt, "ipv4:10.0.0.2:5000", kNow),
              IsOk());
  EXPECT_THAT(Scrape(registry), HasSubstr("scope=\"peer\""));
}

TEST(CallLimiterTest, InternalCallsAndDisabledLimitsAreNeverRefused) {
  CallLimiter limited({.account = {.per_minute = 1, .burst = 1},
                       .device = {.per_minute = 1, .burst = 1},
                       .peer = {.per_minute = 1, .burst = 1}},
                      nullptr);
  auth::Claims matchmaking;
  matchmaking.kind = auth::TokenKind::kService;
  matchmaking.subject = "matchmaking";
  CallLimiter unlimited({}, nullptr);
  for (int i = 0; i < 100; ++i) {
    ASSERT_THAT(limited.Admit(kGetMe, Access::kService, matchmaking, "ipv4:10.0.0.1:1", kNow),
                IsOk());
    ASSERT_THAT(unlimited.Admit(kGetMe, Access::kPlayer, Player("acc-1", "dev-a"), "", kNow),
                IsOk());
    ASSERT_THAT(unlimited.Admit(kGetMe, Access::kPublic, std::nullopt, "ipv4:10.0.0.1:1", kNow),
                IsOk());
  }
}

TEST(CallLimiterTest, PeerAddressDropsThePort) {
  EXPECT_EQ(CallLimiter::PeerAddress("ipv4:203.0.113.7:40000"), "203.0.113.7");
  EXPECT_EQ(CallLimiter::PeerAddress("ipv6:[2001:db8::1]:40000"), "2001:db8::1");
  EXPECT_EQ(CallLimiter::PeerAddress("ipv6:%5B::1%5D:40000"), "ipv6:%5B::1%5D:40000");
  EXPECT_EQ(CallLimiter::PeerAddress("unix:/tmp/socket"), "unix:/tmp/socket");
}

}  // namespace
}  // namespace parlor
