// Domain rules with a fake store (no database): validation happens before any storage call,
// tokens are minted and verifiable, refresh tokens are only ever handed to the store hashed, and
// rotation outcomes map to precise statuses.
#include "services/accounts/domain/accounts_service.h"

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/core/crypto.h"
#include "services/common/grpc_status.h"
#include "services/common/testing/status_matchers.h"

namespace parlor::accounts {
namespace {

using ::parlor::testing::IsOk;
using ::parlor::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;

const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);

class FakeStore : public AccountsStore {
 public:
  absl::StatusOr<DeviceSignIn> AuthenticateDevice(
      const std::string& device_id, const std::optional<std::string>& requested_name,
      const std::function<std::string()>& generate_name, const NewRefreshToken& token,
      absl::Time now, const std::function<absl::Status()>& admit_new_account) override {
    ++calls;
    last_device_id = device_id;
    last_token = token;
    const bool known = devices.contains(device_id);
    if (!known) {
      if (absl::Status admit = admit_new_account(); !admit.ok()) return admit;
      devices.insert(device_id);
    }
    DeviceSignIn result;
    result.account = {.account_id = "123e4567-e89b-12d3-a456-426614174000",
                      .display_name = requested_name.value_or(generate_name()),
                      .create_time = now,
                      .update_time = now};
    result.session_id = "session-1";
    result.created = !known;
    return result;
  }
  absl::StatusOr<Rotation> RotateRefreshToken(const std::string& presented_hash,
                                              const NewRefreshToken& replacement,
                                              absl::Time) override {
    ++calls;
    last_presented_hash = presented_hash;
    last_token = replacement;
    return rotation;
  }
  absl::Status RevokeSession(const std::string&, const std::string& session_id,
                             absl::Time) override {
    ++calls;
    revoked_session = session_id;
    return absl::OkStatus();
  }
  absl::Status RevokeAllSessions(const std::string& account_id, absl::Time) override {
    ++calls;
    revoked_all = account_id;
    return absl::OkStatus();
  }
  absl::StatusOr<Account> GetAccount(const std::string&, const std::string&) override {
    ++calls;
    return absl::NotFoundError("account not found");
  }
  absl::StatusOr<Account> UpdateDisplayName(const std::string& account_id, const std::string&,
                                            const std::string& name, absl::Time now) override {
    ++calls;
    return Account{
        .account_id = account_id, .display_name = name, .create_time = now, .update_time = now};
  }
  absl::StatusOr<std::vector<Account>> GetAccounts(const std::vector<std::string>&) override {
    ++calls;
    return std::vector<Account>();
  }

  int calls = 0;
  absl::flat_hash_set<std::string> devices;
  std::string last_device_id;
  std::string last_presented_hash;
  NewRefreshToken last_token;
  Rotation rotation;
  std::string revoked_session;
  std::string revoked_all;
};

class AccountsServiceTest : public ::testing::Test {
 protected:
  AccountsServiceTest()
      : keys_(auth::GenerateKeyPair()),
        service_(&store_, *auth::TokenSigner::Create(auth::TokenKind::kAccess, keys_.private_key),
                 [] { return kNow; }) {}

  auth::Claims Caller() {
    auth::Claims claims;
    claims.subject = "123e4567-e89b-12d3-a456-426614174000";
    claims.session_id = "session-1";
    return claims;
  }

  FakeStore store_;
  auth::KeyPairBase64 keys_;
  AccountsService service_;
};

TEST_F(AccountsServiceTest, SignInMintsVerifiableTokensAndStoresOnlyTheHash) {
  absl::StatusOr<AccountsService::SignIn> signed_in =
      service_.AuthenticateDevice("device-0001", std::nullopt);
  ASSERT_THAT(signed_in, IsOk());
  EXPECT_THAT(signed_in->account.display_name, MatchesRegex("Player-[A-Za-z0-9]{6}"));
  EXPECT_EQ(signed_in->tokens.access_token_expire_time, kNow + absl::Minutes(15));
  EXPECT_EQ(signed_in->tokens.refresh_token_expire_time, kNow + absl::Hours(24 * 30));
  EXPECT_EQ(signed_in->tokens.refresh_token.size(), 43u);
  EXPECT_EQ(store_.last_token.hash, Sha256(signed_in->tokens.refresh_token));
  EXPECT_NE(store_.last_token.hash, signed_in->tokens.refresh_token);

  auto verifier = *auth::TokenVerifier::Create(auth::TokenKind::kAccess, keys_.public_key);
  absl::StatusOr<auth::Claims> claims = verifier.Verify(signed_in->tokens.access_token, kNow);
  ASSERT_THAT(claims, IsOk());
  EXPECT_EQ(claims->subject, signed_in->account.account_id);
  EXPECT_EQ(claims->session_id, "session-1");
}

TEST_F(AccountsServiceTest, BadInputNeverReachesTheStore) {
  EXPECT_THAT(service_.AuthenticateDevice("", std::nullopt),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("device_id")));
  EXPECT_THAT(service_.AuthenticateDevice("device-0001", "x"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("display_name")));
  EXPECT_THAT(service_.RefreshSession(""),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("refresh_token is required")));
  EXPECT_THAT(service_.RefreshSession("x.y.z"),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("malformed")));
  EXPECT_THAT(service_.UpdateProfile(Caller(), "no!"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("found '!'")));
  EXPECT_THAT(service_.BatchGetAccounts({"nope"}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not an account id")));
  EXPECT_EQ(store_.calls, 0);
}

TEST_F(AccountsServiceTest, RotationOutcomesMapToPreciseStatuses) {
  const std::string presented = RandomToken(32);
  store_.rotation = {.outcome = AccountsStore::RotationOutcome::kRotated,
                     .account_id = "123e4567-e89b-12d3-a456-426614174000",
                     .session_id = "session-1",
                     .device_id = "device-0001"};
  absl::StatusOr<SessionTokens> tokens = service_.RefreshSession(presented);
  ASSERT_THAT(tokens, IsOk());
  EXPECT_EQ(store_.last_presented_hash, Sha256(presented));
  EXPECT_EQ(store_.last_token.hash, Sha256(tokens->refresh_token));
  // The refreshed access token still names the session's device (for per-device rate limits).
  absl::StatusOr<auth::Claims> refreshed =
      auth::TokenVerifier::Create(auth::TokenKind::kAccess, keys_.public_key)
          ->Verify(tokens->access_token, kNow);
  ASSERT_THAT(refreshed, IsOk());
  EXPECT_EQ(refreshed->device, auth::DeviceClaim("device-0001"));

  struct Case {
    AccountsStore::RotationOutcome outcome;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {AccountsStore::RotationOutcome::kReused, "already used"},
           {AccountsStore::RotationOutcome::kExpired, "has expired"},
           {AccountsStore::RotationOutcome::kRevoked, "signed out or revoked"},
           {AccountsStore::RotationOutcome::kUnknown, "is not valid"},
       }) {
    store_.rotation.outcome = c.outcome;
    EXPECT_THAT(service_.RefreshSession(presented),
                StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr(c.message)));
  }
}

TEST_F(AccountsServiceTest, SignOutRevokesTheCallersSessionOrAll) {
  ASSERT_THAT(service_.SignOut(Caller(), /*all_devices=*/false), IsOk());
  EXPECT_EQ(store_.revoked_session, "session-1");
  ASSERT_THAT(service_.SignOut(Caller(), /*all_devices=*/true), IsOk());
  EXPECT_EQ(store_.revoked_all, "123e4567-e89b-12d3-a456-426614174000");
}

// New accounts have a budget per client address and in total; a device that already has an
// account signs in whatever the budget says.
TEST(SignUpBudgetTest, NewAccountsAreBoundedPerAddressAndInTotal) {
  FakeStore store;
  absl::Time now = kNow;
  const auth::KeyPairBase64 keys = auth::GenerateKeyPair();
  prometheus::Registry registry;
  AccountsService service(
      &store, *auth::TokenSigner::Create(auth::TokenKind::kAccess, keys.private_key),
      [&now] { return now; },
      {.signups_per_address = {.per_minute = 6, .burst = 3},
       .signups_total = {.per_minute = 60, .burst = 6}},
      &registry);
  int device = 0;
  const auto sign_up = [&](const std::string& address) {
    return service.AuthenticateDevice(absl::StrCat("device-", ++device, "-abcdef"), std::nullopt,
                                      address);
  };
  for (int i = 0; i < 3; ++i) ASSERT_THAT(sign_up("198.51.100.7"), IsOk());
  absl::StatusOr<AccountsService::SignIn> flood = sign_up("198.51.100.7");
  EXPECT_THAT(flood, StatusIs(absl::StatusCode::kResourceExhausted,
                              HasSubstr("too many new accounts from this network address")));
  const std::optional<absl::Duration> delay = RetryDelay(flood.status());
  ASSERT_TRUE(delay.has_value());
  EXPECT_NEAR(absl::ToDoubleSeconds(*delay), 10, 0.01);  // 6 a minute: one every 10 s
  EXPECT_EQ(store.devices.size(), 3u);                   // nothing created
  // The same /64 of IPv6 is one address; another address has its own budget.
  for (int i = 0; i < 3; ++i) ASSERT_THAT(sign_up("2001:db8:1:2::a"), IsOk());
  EXPECT_THAT(sign_up("2001:db8:1:2::b"),
              StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("too many new accounts")));
  // 3 + 3 created: the total burst of 6 is spent, whoever asks.
  EXPECT_THAT(sign_up("203.0.113.1"),
              StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("on this server")));
  // Existing devices still sign in.
  EXPECT_THAT(service.AuthenticateDevice("device-1-abcdef", std::nullopt, "198.51.100.7"), IsOk());
  // The budget refills.
  now += absl::Seconds(11);
  EXPECT_THAT(sign_up("198.51.100.7"), IsOk());
  EXPECT_THAT(sign_up("198.51.100.7"),
              StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("too many new accounts")));
  const std::string metrics = [&] {
    std::string out;
    for (const auto& family : registry.Collect()) {
      for (const auto& metric : family.metric) {
        out += family.name;
        for (const auto& label : metric.label) out += " " + label.name + "=" + label.value;
        out += " " + std::to_string(static_cast<int>(metric.counter.value)) + "\n";
      }
    }
    return out;
  }();
  EXPECT_THAT(metrics, HasSubstr("parlor_accounts_signups_total 7\n"));
  EXPECT_THAT(metrics, HasSubstr("parlor_accounts_signups_refused_total scope=address 3\n"));
  EXPECT_THAT(metrics, HasSubstr("parlor_accounts_signups_refused_total scope=total 1\n"));
}

}  // namespace
}  // namespace parlor::accounts
