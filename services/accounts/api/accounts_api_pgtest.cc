// End to end through the real transport: an in-process gRPC server (ServiceHost + accounts) on a
// fresh PostgreSQL database, called through a real gRPC client channel.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "gtest/gtest.h"
#include "parlor/accounts/v1/accounts.grpc.pb.h"
#include "services/accounts/accounts_server.h"
#include "services/accounts/testing/accounts_test_server.h"
#include "services/common/core/crypto.h"
#include "services/common/testing/grpc_health.h"
#include "services/common/testing/retry_info.h"
#include "tests/pg/pg_test_database.h"

namespace parlor::accounts {
namespace {

using parlor::testing::RetryDelayOf;
using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr int kServing = 1;
using v1::AccountsInternalService;
using v1::AccountsService;

// A clock the test can move, shared with the server.
struct TestClock {
  absl::Time now = absl::Now();
};

class AccountsApiPgTest : public parlor::testing::PgTest {
 protected:
  void SetUp() override {
    PgTest::SetUp();
    AccountsConfig config;
    ConfigureAccounts(config);
    auto started = StartTestAccounts(
        db_url(), keys_, config, [clock = clock_] { return clock->now; },
        [this](ServerConfig& server) { Configure(server); });
    ASSERT_TRUE(started.ok()) << started.status();
    server_ = *std::move(started);
    accounts_ = AccountsService::NewStub(server_->channel());
    internal_ = AccountsInternalService::NewStub(server_->channel());
  }

  // Lets a derived fixture change the server settings.
  virtual void Configure(ServerConfig& server) { (void)server; }
  virtual void ConfigureAccounts(AccountsConfig& config) { (void)config; }

  void TearDown() override { server_.reset(); }

  static std::unique_ptr<grpc::ClientContext> WithToken(const std::string& token) {
    auto context = std::make_unique<grpc::ClientContext>();
    if (!token.empty()) context->AddMetadata("authorization", absl::StrCat("Bearer ", token));
    context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    return context;
  }

  v1::AuthenticateDeviceResponse SignIn(const std::string& device_id,
                                        std::optional<std::string> name = std::nullopt) {
    v1::AuthenticateDeviceRequest request;
    request.set_device_id(device_id);
    if (name.has_value()) request.set_display_name(*name);
    v1::AuthenticateDeviceResponse response;
    grpc::Status status = accounts_->AuthenticateDevice(WithToken("").get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response;
  }

  std::string ServiceToken() { return keys_.ServiceToken("matchmaking", clock_->now); }

  std::string Digest() {
    absl::StatusOr<std::string> digest = parlor::testing::SchemaContentDigest(db_url(), "accounts");
    EXPECT_TRUE(digest.ok()) << digest.status();
    return digest.value_or("");
  }

  std::shared_ptr<TestClock> clock_ = std::make_shared<TestClock>();
  parlor::testing::TestKeys keys_;
  std::unique_ptr<parlor::testing::TestServer> server_;
  std::unique_ptr<AccountsService::Stub> accounts_;
  std::unique_ptr<AccountsInternalService::Stub> internal_;
};

TEST_F(AccountsApiPgTest, SignInReadUpdateRefreshSignOut) {
  v1::AuthenticateDeviceResponse first = SignIn("device-0001", "Ada");
  EXPECT_TRUE(first.created());
  EXPECT_EQ(first.account().display_name(), "Ada");
  EXPECT_FALSE(first.tokens().access_token().empty());
  EXPECT_FALSE(first.tokens().refresh_token().empty());
  EXPECT_EQ(first.tokens().access_token_expire_time().seconds() - absl::ToUnixSeconds(clock_->now),
            15 * 60);

  // The same device finds the same account; the requested name is ignored.
  v1::AuthenticateDeviceResponse again = SignIn("device-0001", "Other");
  EXPECT_FALSE(again.created());
  EXPECT_EQ(again.account().account_id(), first.account().account_id());
  EXPECT_EQ(again.account().display_name(), "Ada");

  // A device without a requested name gets a generated one.
  v1::AuthenticateDeviceResponse anonymous = SignIn("device-0002");
  EXPECT_THAT(anonymous.account().display_name(), ::testing::StartsWith("Player-"));

  v1::GetMeResponse me;
  ASSERT_TRUE(accounts_->GetMe(WithToken(first.tokens().access_token()).get(), {}, &me).ok());
  EXPECT_EQ(me.account().account_id(), first.account().account_id());

  v1::UpdateProfileRequest update;
  update.set_display_name("Ada Lovelace");
  v1::UpdateProfileResponse updated;
  clock_->now += absl::Seconds(3);
  grpc::Status status =
      accounts_->UpdateProfile(WithToken(first.tokens().access_token()).get(), update, &updated);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(updated.account().display_name(), "Ada Lovelace");
  EXPECT_GT(updated.account().update_time().seconds(), updated.account().create_time().seconds());

  v1::RefreshSessionRequest refresh;
  refresh.set_refresh_token(first.tokens().refresh_token());
  v1::RefreshSessionResponse refreshed;
  status = accounts_->RefreshSession(WithToken("").get(), refresh, &refreshed);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_NE(refreshed.tokens().refresh_token(), first.tokens().refresh_token());
  ASSERT_TRUE(accounts_->GetMe(WithToken(refreshed.tokens().access_token()).get(), {}, &me).ok());
  EXPECT_EQ(me.account().display_name(), "Ada Lovelace");

  // Internal lookup with a service credential.
  v1::BatchGetAccountsRequest batch;
  batch.add_account_ids(anonymous.account().account_id());
  batch.add_account_ids(first.account().account_id());
  batch.add_account_ids("00000000-0000-0000-0000-000000000000");
  v1::BatchGetAccountsResponse found;
  status = internal_->BatchGetAccounts(WithToken(ServiceToken()).get(), batch, &found);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(found.accounts_size(), 2);
  EXPECT_EQ(found.accounts(0).account_id(), anonymous.account().account_id());
  EXPECT_EQ(found.accounts(1).display_name(), "Ada Lovelace");

  // Signing out kills the session's refresh token and, in accounts, its access token.
  v1::SignOutResponse signed_out;
  ASSERT_TRUE(
      accounts_->SignOut(WithToken(refreshed.tokens().access_token()).get(), {}, &signed_out).ok());
  refresh.set_refresh_token(refreshed.tokens().refresh_token());
  status = accounts_->RefreshSession(WithToken("").get(), refresh, &refreshed);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(status.error_message(), HasSubstr("signed out or revoked"));
  status = accounts_->GetMe(WithToken(refreshed.tokens().access_token()).get(), {}, &me);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  // The other session of the same account is unaffected.
  EXPECT_TRUE(accounts_->GetMe(WithToken(again.tokens().access_token()).get(), {}, &me).ok());
}

TEST_F(AccountsApiPgTest, RequestIdIsEchoedAndMetricsAreRecorded) {
  grpc::ClientContext context;
  context.AddMetadata("x-request-id", "test-req-1");
  v1::AuthenticateDeviceRequest request;
  request.set_device_id("device-metrics");
  v1::AuthenticateDeviceResponse response;
  ASSERT_TRUE(accounts_->AuthenticateDevice(&context, request, &response).ok());
  auto echoed = context.GetServerInitialMetadata().find("x-request-id");
  ASSERT_NE(echoed, context.GetServerInitialMetadata().end());
  EXPECT_EQ(std::string(echoed->second.data(), echoed->second.size()), "test-req-1");

  v1::GetMeResponse me;
  EXPECT_FALSE(accounts_->GetMe(WithToken("").get(), {}, &me).ok());
  const std::string scrape = server_->host().metrics().Serialize();
  EXPECT_THAT(scrape,
              HasSubstr("parlor_rpc_requests_total{code=\"OK\",method=\"AuthenticateDevice\","
                        "service=\"parlor.accounts.v1.AccountsService\"} 1"));
  EXPECT_THAT(scrape,
              HasSubstr("parlor_rpc_requests_total{code=\"UNAUTHENTICATED\",method=\"GetMe\""));
  EXPECT_THAT(scrape,
              HasSubstr("parlor_rpc_duration_seconds_bucket{method=\"AuthenticateDevice\""));
  EXPECT_THAT(scrape, HasSubstr("parlor_db_transactions_total{outcome=\"committed\","
                                "transaction=\"authenticate_device\"} 1"));
  EXPECT_THAT(scrape, HasSubstr("parlor_db_connections{state=\"idle\"}"));
  EXPECT_THAT(scrape, HasSubstr("parlor_build_info{service=\"accounts\""));
}

// Bad input on every RPC: accounts_bad_input_pgtest.cc.

TEST_F(AccountsApiPgTest, ExpiredRefreshTokenIsRefused) {
  v1::AuthenticateDeviceResponse ada = SignIn("device-ada-01", "Ada");
  clock_->now += absl::Hours(24 * 31);
  const std::string before = Digest();
  v1::RefreshSessionRequest request;
  request.set_refresh_token(ada.tokens().refresh_token());
  v1::RefreshSessionResponse response;
  grpc::Status status = accounts_->RefreshSession(WithToken("").get(), request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(status.error_message(), HasSubstr("has expired"));
  EXPECT_EQ(Digest(), before);
}

TEST_F(AccountsApiPgTest, HealthTurnsServingOnceMigratedAndConnected) {
  auto channel = grpc::CreateChannel(server_->address(), grpc::InsecureChannelCredentials());
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (parlor::testing::HealthCheck(channel, "") != kServing && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(50));
  }
  EXPECT_EQ(parlor::testing::HealthCheck(channel, ""), kServing);
  EXPECT_EQ(parlor::testing::HealthCheck(channel, "parlor.accounts.v1.AccountsService"), kServing);
  EXPECT_EQ(parlor::testing::HealthCheck(channel, "parlor.accounts.v1.AccountsInternalService"),
            kServing);
  EXPECT_EQ(parlor::testing::HealthCheck(channel, "no.such.Service"), -1);
}

// Per-caller rate limits, seen by a real gRPC client.
class AccountsRateLimitPgTest : public AccountsApiPgTest {
 protected:
  void Configure(ServerConfig& server) override {
    // Refills of one call a minute: nothing refills during the test.
    server.rate_limits = {.account = {.per_minute = 1, .burst = 5},
                          .device = {.per_minute = 1, .burst = 2},
                          .peer = {.per_minute = 1, .burst = 3}};
  }

  std::string Scrape() { return server_->host().metrics().Serialize(); }
};

TEST_F(AccountsRateLimitPgTest, SignInsBeyondTheAddressBurstAreRefusedWithRetryInfo) {
  for (int i = 1; i <= 3; ++i) SignIn(absl::StrCat("device-rate-", i));
  const std::string before = Digest();
  v1::AuthenticateDeviceRequest request;
  request.set_device_id("device-rate-4");
  v1::AuthenticateDeviceResponse response;
  const grpc::Status refused =
      accounts_->AuthenticateDevice(WithToken("").get(), request, &response);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(refused.error_message(),
              AllOf(HasSubstr("rate limit of this peer exceeded (1 calls a minute, bursts of 3)"),
                    HasSubstr("nothing was done, retry after")));
  const std::optional<absl::Duration> delay = RetryDelayOf(refused);
  ASSERT_TRUE(delay.has_value()) << "no google.rpc.RetryInfo in grpc-status-details-bin";
  EXPECT_GT(*delay, absl::Seconds(50));
  EXPECT_LE(*delay, absl::Seconds(60));
  EXPECT_EQ(Digest(), before) << "a refused sign-in must create nothing";
  EXPECT_THAT(Scrape(),
              HasSubstr("parlor_rate_limited_total{method=\"AuthenticateDevice\","
                        "scope=\"peer\",service=\"parlor.accounts.v1.AccountsService\"} 1"));
}

TEST_F(AccountsRateLimitPgTest, PlayerCallsBeyondTheDeviceBurstAreRefusedAndChangeNothing) {
  const v1::AuthenticateDeviceResponse ada = SignIn("device-rate-ada", "Ada");
  const std::string token = ada.tokens().access_token();
  // The token names its device (a digest of the id, not the id).
  absl::StatusOr<auth::Claims> claims =
      auth::TokenVerifier::Create(auth::TokenKind::kAccess, keys_.access().public_key)
          ->Verify(token, absl::Now());
  ASSERT_TRUE(claims.ok()) << claims.status();
  EXPECT_EQ(claims->device, auth::DeviceClaim("device-rate-ada"));

  v1::GetMeResponse me;
  ASSERT_TRUE(accounts_->GetMe(WithToken(token).get(), {}, &me).ok());
  ASSERT_TRUE(accounts_->GetMe(WithToken(token).get(), {}, &me).ok());
  const std::string before = Digest();
  v1::UpdateProfileRequest update;
  update.set_display_name("Countess");
  v1::UpdateProfileResponse updated;
  const grpc::Status refused = accounts_->UpdateProfile(WithToken(token).get(), update, &updated);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(refused.error_message(), HasSubstr("rate limit of this device exceeded"));
  EXPECT_TRUE(RetryDelayOf(refused).has_value());
  EXPECT_EQ(Digest(), before) << "a refused UpdateProfile must change nothing";

  // Internal calls (service credentials) are not subject to the players' limits.
  v1::BatchGetAccountsRequest batch;
  batch.add_account_ids(ada.account().account_id());
  for (int i = 0; i < 10; ++i) {
    v1::BatchGetAccountsResponse found;
    const grpc::Status status =
        internal_->BatchGetAccounts(WithToken(ServiceToken()).get(), batch, &found);
    ASSERT_TRUE(status.ok()) << i << ": " << status.error_message();
  }
  EXPECT_THAT(Scrape(),
              HasSubstr("parlor_rate_limited_total{method=\"UpdateProfile\","
                        "scope=\"device\",service=\"parlor.accounts.v1.AccountsService\"} 1"));
}

// New accounts have their own budget per client address. Behind the Gateway the address is the
// one the trusted proxy names in X-Forwarded-For; from anyone else the header is ignored.
class AccountsSignUpBudgetPgTest : public AccountsRateLimitPgTest {
 protected:
  virtual std::string TrustedProxyList() const = 0;
  void Configure(ServerConfig& server) override { server.trusted_proxies = TrustedProxyList(); }
  void ConfigureAccounts(AccountsConfig& config) override {
    // Refills of one a minute: nothing refills during the test.
    config.options.signups_per_address = {.per_minute = 1, .burst = 3};
  }

  grpc::Status SignUpFrom(const std::string& device_id, const std::string& forwarded_for) {
    auto context = WithToken("");
    if (!forwarded_for.empty()) context->AddMetadata("x-forwarded-for", forwarded_for);
    v1::AuthenticateDeviceRequest request;
    request.set_device_id(device_id);
    v1::AuthenticateDeviceResponse response;
    return accounts_->AuthenticateDevice(context.get(), request, &response);
  }
};

// The test client connects from 127.0.0.1, which is the trusted proxy here.
class SignUpsBehindATrustedProxyPgTest : public AccountsSignUpBudgetPgTest {
  std::string TrustedProxyList() const override { return "127.0.0.1/32, 10.0.0.0/8"; }
};

TEST_F(SignUpsBehindATrustedProxyPgTest, TheProxysHeaderNamesTheClient) {
  for (int i = 1; i <= 3; ++i) {
    ASSERT_TRUE(SignUpFrom(absl::StrCat("device-budget-", i), "198.51.100.7").ok());
  }
  const std::string before = Digest();
  // The fourth new account from 198.51.100.7, also when the client put its own guesses to the
  // left of what the proxies appended (10.1.1.1 is a trusted proxy in the chain).
  for (const char* header : {"198.51.100.7", "203.0.113.1, 198.51.100.7, 10.1.1.1"}) {
    const grpc::Status refused = SignUpFrom("device-budget-4", header);
    EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << header;
    EXPECT_THAT(refused.error_message(),
                AllOf(HasSubstr("too many new accounts from this network address (1 a minute, "
                                "bursts of 3); nothing was created, retry after"),
                      HasSubstr("signing in an existing device is not limited")));
    const std::optional<absl::Duration> delay = RetryDelayOf(refused);
    ASSERT_TRUE(delay.has_value()) << "no google.rpc.RetryInfo in grpc-status-details-bin";
    EXPECT_GT(*delay, absl::Seconds(50));
  }
  EXPECT_EQ(Digest(), before) << "a refused sign-up must create nothing";
  // Another client behind the same proxy has its own budget; a known device still signs in.
  EXPECT_TRUE(SignUpFrom("device-budget-5", "198.51.100.8").ok());
  EXPECT_TRUE(SignUpFrom("device-budget-1", "198.51.100.7").ok());
  EXPECT_THAT(Scrape(),
              AllOf(HasSubstr("parlor_accounts_signups_refused_total{scope=\"address\"} 2"),
                    HasSubstr("parlor_accounts_signups_total 4")));
}

// Here the test client (127.0.0.1) is not a trusted proxy: whatever it writes in
// X-Forwarded-For, every sign-up counts against 127.0.0.1.
class SignUpsFromAnUntrustedPeerPgTest : public AccountsSignUpBudgetPgTest {
  std::string TrustedProxyList() const override { return "10.0.0.0/8"; }
};

TEST_F(SignUpsFromAnUntrustedPeerPgTest, AForgedHeaderIsIgnoredAndAFloodIsStopped) {
  int created = 0;
  int refused = 0;
  for (int i = 0; i < 50; ++i) {
    const grpc::Status status =
        SignUpFrom(absl::StrCat("device-flood-", i), absl::StrCat("198.51.100.", i));
    if (status.ok()) {
      ++created;
    } else {
      EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED)
          << status.error_message();
      ++refused;
    }
  }
  EXPECT_EQ(created, 3);
  EXPECT_EQ(refused, 47);
  EXPECT_THAT(Scrape(), HasSubstr("parlor_accounts_signups_refused_total{scope=\"address\"} 47"));
}

}  // namespace
}  // namespace parlor::accounts
