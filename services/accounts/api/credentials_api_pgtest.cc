// Linked credentials end to end: a real accounts server on a real PostgreSQL behind a real gRPC
// channel; codes travel by SMTP (libcurl) to a local SMTP server the test reads; ID tokens are
// signed by a test identity provider whose keys a local HTTP server publishes (fetched with
// libcurl). Covers linking, recovery on a new device, password reset, refusal to merge, unlinking,
// devices, metrics, and guessing attacks stopped by the attempt limits.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "parlor/accounts/v1/accounts.grpc.pb.h"
#include "pqxx/pqxx"
#include "services/accounts/accounts_server.h"
#include "services/accounts/credentials/testing/fake_identity_provider.h"
#include "services/accounts/credentials/testing/local_servers.h"
#include "services/accounts/testing/accounts_test_server.h"
#include "services/common/core/crypto.h"
#include "services/common/testing/test_server.h"
#include "tests/pg/pg_test_database.h"

namespace parlor::accounts {
namespace {

using ::parlor::accounts::testing::FakeIdentityProvider;
using ::parlor::accounts::testing::IdTokenClaims;
using ::parlor::accounts::testing::LocalHttpServer;
using ::parlor::accounts::testing::LocalSmtpServer;
using ::parlor::testing::Bearer;
using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr char kNonce[] = "nonce-0123456789abcdef";
constexpr char kPassword[] = "correct horse battery staple";

// A clock the test moves; it starts at the real time because the transport checks access
// tokens with the real clock.
struct TestClock {
  absl::Time now = absl::Now();
};

class CredentialsPgTest : public parlor::testing::PgTest {
 protected:
  void SetUp() override {
    PgTest::SetUp();
    google_.AddKey("google-1", "RS256");
    apple_.AddKey("apple-1", "ES256");
    google_keys_.Set("/oauth2/v3/certs", 200, google_.Jwks());
    apple_keys_.Set("/auth/keys", 200, apple_.Jwks());

    AccountsConfig config;
    config.smtp = {.url = smtp_.Url(),
                   .from = "no-reply@parlor.test",
                   .username = "",
                   .password = "",
                   .require_tls = false,
                   .timeout = absl::Seconds(5)};
    config.google_client_ids = "parlor-test-client";
    config.google_keys_url = google_keys_.Url("/oauth2/v3/certs");
    config.apple_client_ids = "com.parlor.test";
    config.apple_keys_url = apple_keys_.Url("/auth/keys");
    // Cheap hashes keep the test fast; the production cost is the flag default.
    config.credentials.password_hashing = {.memory_kib = 1024, .iterations = 1, .parallelism = 1};
    // The test client (127.0.0.1) is a trusted proxy, so X-Forwarded-For can play many clients.
    auto started = StartTestAccounts(
        db_url(), keys_, config, [clock = clock_] { return clock->now; },
        [](ServerConfig& server) { server.trusted_proxies = "127.0.0.1/32"; });
    ASSERT_TRUE(started.ok()) << started.status();
    server_ = *std::move(started);
    accounts_ = v1::AccountsService::NewStub(server_->channel());
    internal_ = v1::AccountsInternalService::NewStub(server_->channel());
  }

  std::unique_ptr<grpc::ClientContext> From(const std::string& address,
                                            const std::string& token = "") {
    auto context = Bearer(token);
    context->AddMetadata("x-forwarded-for", address);
    return context;
  }

  v1::AuthenticateDeviceResponse Device(const std::string& device_id) {
    v1::AuthenticateDeviceRequest request;
    request.set_device_id(device_id);
    v1::AuthenticateDeviceResponse response;
    grpc::Status status = accounts_->AuthenticateDevice(Bearer("").get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response;
  }

  grpc::Status SendLinkCode(const std::string& token, const std::string& email) {
    v1::SendLinkEmailCodeRequest request;
    request.set_email(email);
    v1::SendLinkEmailCodeResponse response;
    return accounts_->SendLinkEmailCode(Bearer(token).get(), request, &response);
  }

  grpc::Status LinkEmail(const std::string& token, const std::string& email,
                         const std::string& code, const std::string& password = kPassword,
                         v1::LinkEmailPasswordResponse* response = nullptr) {
    v1::LinkEmailPasswordRequest request;
    request.set_email(email);
    request.set_code(code);
    request.set_password(password);
    v1::LinkEmailPasswordResponse ignored;
    return accounts_->LinkEmailPassword(Bearer(token).get(), request,
                                        response != nullptr ? response : &ignored);
  }

  // Links `email` to the account of `token` the way an app does: code by mail, then the link.
  void LinkEmailByMail(const std::string& token, const std::string& email) {
    ASSERT_TRUE(SendLinkCode(token, email).ok());
    const std::string code = smtp_.LastCodeFor(email);
    ASSERT_EQ(code.size(), 6u);
    grpc::Status status = LinkEmail(token, email, code);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }

  grpc::Status EmailSignIn(const std::string& email, const std::string& password,
                           const std::string& device_id,
                           v1::AuthenticateEmailResponse* response = nullptr,
                           const std::string& address = "198.51.100.1") {
    v1::AuthenticateEmailRequest request;
    request.set_email(email);
    request.set_password(password);
    request.set_device_id(device_id);
    v1::AuthenticateEmailResponse ignored;
    return accounts_->AuthenticateEmail(From(address).get(), request,
                                        response != nullptr ? response : &ignored);
  }

  IdTokenClaims GoogleClaims(const std::string& sub) {
    IdTokenClaims claims;
    claims.sub = sub;
    claims.email = sub + "@gmail.test";
    claims.iat = clock_->now - absl::Seconds(5);
    claims.exp = clock_->now + absl::Hours(1);
    return claims;
  }

  // A fresh token each time (the clock moves a second, so iat differs).
  std::string GoogleToken(const std::string& sub, const std::string& kid = "google-1") {
    clock_->now += absl::Seconds(1);
    return google_.Sign(kid, GoogleClaims(sub));
  }

  grpc::Status IdSignIn(v1::CredentialKind provider, const std::string& id_token,
                        const std::string& device_id,
                        v1::AuthenticateIdTokenResponse* response = nullptr,
                        const std::string& nonce = kNonce) {
    v1::AuthenticateIdTokenRequest request;
    request.set_provider(provider);
    request.set_id_token(id_token);
    request.set_nonce(nonce);
    request.set_device_id(device_id);
    v1::AuthenticateIdTokenResponse ignored;
    return accounts_->AuthenticateIdToken(Bearer("").get(), request,
                                          response != nullptr ? response : &ignored);
  }

  grpc::Status LinkId(const std::string& token, v1::CredentialKind provider,
                      const std::string& id_token, const std::string& nonce = kNonce) {
    v1::LinkIdTokenRequest request;
    request.set_provider(provider);
    request.set_id_token(id_token);
    request.set_nonce(nonce);
    v1::LinkIdTokenResponse response;
    return accounts_->LinkIdToken(Bearer(token).get(), request, &response);
  }

  std::vector<v1::Credential> Credentials(const std::string& token) {
    v1::ListCredentialsResponse response;
    grpc::Status status = accounts_->ListCredentials(Bearer(token).get(), {}, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return {response.credentials().begin(), response.credentials().end()};
  }

  std::vector<v1::Device> Devices(const std::string& token) {
    v1::ListDevicesResponse response;
    grpc::Status status = accounts_->ListDevices(Bearer(token).get(), {}, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return {response.devices().begin(), response.devices().end()};
  }

  grpc::Status Refresh(const std::string& refresh_token) {
    v1::RefreshSessionRequest request;
    request.set_refresh_token(refresh_token);
    v1::RefreshSessionResponse response;
    return accounts_->RefreshSession(Bearer("").get(), request, &response);
  }

  std::string Checksum() {
    absl::StatusOr<std::string> checksum = parlor::testing::SchemaChecksum(db_url(), "accounts");
    EXPECT_TRUE(checksum.ok()) << checksum.status();
    return checksum.value_or("");
  }

  std::string Scrape() { return server_->host().metrics().Serialize(); }

  std::shared_ptr<TestClock> clock_ = std::make_shared<TestClock>();
  parlor::testing::TestKeys keys_;
  FakeIdentityProvider google_;
  FakeIdentityProvider apple_;
  LocalHttpServer google_keys_;
  LocalHttpServer apple_keys_;
  LocalSmtpServer smtp_;
  std::unique_ptr<parlor::testing::TestServer> server_;
  std::unique_ptr<v1::AccountsService::Stub> accounts_;
  std::unique_ptr<v1::AccountsInternalService::Stub> internal_;
};

TEST_F(CredentialsPgTest, EmailAndPasswordRecoverTheAccountOnANewPhone) {
  const v1::AuthenticateDeviceResponse old_phone = Device("old-phone-0001");
  const std::string token = old_phone.tokens().access_token();

  ASSERT_TRUE(SendLinkCode(token, "Ada@Example.COM").ok());
  const std::string code = smtp_.LastCodeFor("ada@example.com");
  ASSERT_EQ(code.size(), 6u) << "the code reaches the address by SMTP";
  // A wrong code is refused, and counted against the code.
  const std::string wrong = code == "000000" ? "111111" : "000000";
  grpc::Status status = LinkEmail(token, "ada@example.com", wrong);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(status.error_message(), HasSubstr("code is wrong; 4 attempts left"));
  v1::LinkEmailPasswordResponse linked;
  status = LinkEmail(token, "ADA@example.com", code, kPassword, &linked);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(linked.credential().kind(), v1::CREDENTIAL_KIND_EMAIL);
  EXPECT_EQ(linked.credential().email(), "ada@example.com");
  // The code is used up.
  status = LinkEmail(token, "ada@example.com", code);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);

  // The phone is lost; a new one signs in with email and password: the same account.
  v1::AuthenticateEmailResponse new_phone;
  status = EmailSignIn("ada@example.com", kPassword, "new-phone-0002", &new_phone);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(new_phone.account().account_id(), old_phone.account().account_id());
  v1::GetMeResponse me;
  ASSERT_TRUE(accounts_->GetMe(Bearer(new_phone.tokens().access_token()).get(), {}, &me).ok());
  EXPECT_EQ(me.account().display_name(), old_phone.account().display_name());
  // Its refresh token works like any other.
  EXPECT_TRUE(Refresh(new_phone.tokens().refresh_token()).ok());

  // Both devices are listed, the caller's marked; the secret device ids are not shown.
  std::vector<v1::Device> devices = Devices(new_phone.tokens().access_token());
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_NE(devices[0].current(), devices[1].current());
  for (const v1::Device& device : devices) {
    EXPECT_THAT(device.device_handle(), ::testing::MatchesRegex("[0-9a-f]{16}"));
    EXPECT_THAT(device.DebugString(), ::testing::Not(HasSubstr("phone")));
  }

  // A wrong password and an unknown email get the same answer.
  status = EmailSignIn("ada@example.com", "wrong password 123", "new-phone-0002");
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(status.error_message(),
            "email or password is wrong (forgot it? SendPasswordResetCode, then ResetPassword)");
  grpc::Status unknown = EmailSignIn("nobody@example.com", kPassword, "new-phone-0002");
  EXPECT_EQ(unknown.error_code(), status.error_code());
  EXPECT_EQ(unknown.error_message(), status.error_message());

  EXPECT_THAT(Scrape(),
              AllOf(HasSubstr("parlor_accounts_sign_ins_total{method=\"email\"} 1"),
                    HasSubstr("parlor_accounts_sign_ins_total{method=\"device\"} 1"),
                    HasSubstr("parlor_accounts_sign_in_failures_total{method=\"email\",reason="
                              "\"wrong_password\"} 1"),
                    HasSubstr("parlor_accounts_sign_in_failures_total{method=\"email\",reason="
                              "\"unknown_email\"} 1"),
                    HasSubstr("parlor_accounts_sign_ins_total{method=\"google\"} 0")));
}

TEST_F(CredentialsPgTest, PasswordResetEndsEveryOtherSession) {
  const v1::AuthenticateDeviceResponse phone = Device("phone-reset-01");
  LinkEmailByMail(phone.tokens().access_token(), "bob@example.com");
  v1::AuthenticateEmailResponse tablet;
  ASSERT_TRUE(EmailSignIn("bob@example.com", kPassword, "tablet-reset-02", &tablet).ok());

  // Forgot the password: a code by mail, then a new password from a third device.
  v1::SendPasswordResetCodeRequest send;
  send.set_email("bob@example.com");
  v1::SendPasswordResetCodeResponse sent;
  ASSERT_TRUE(accounts_->SendPasswordResetCode(Bearer("").get(), send, &sent).ok());
  const std::string code = smtp_.LastCodeFor("bob@example.com");
  ASSERT_EQ(code.size(), 6u);
  v1::ResetPasswordRequest reset;
  reset.set_email("bob@example.com");
  reset.set_code(code);
  reset.set_new_password("a brand new passphrase");
  reset.set_device_id("laptop-reset-03");
  v1::ResetPasswordResponse reset_done;
  grpc::Status status = accounts_->ResetPassword(Bearer("").get(), reset, &reset_done);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(reset_done.account().account_id(), phone.account().account_id());

  // Every other session is over (refresh tokens dead, published to other services); the new one
  // works; the old password does not, the new one does.
  for (const std::string& refresh :
       {phone.tokens().refresh_token(), tablet.tokens().refresh_token()}) {
    status = Refresh(refresh);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
    EXPECT_THAT(status.error_message(), HasSubstr("signed out or revoked"));
  }
  EXPECT_TRUE(Refresh(reset_done.tokens().refresh_token()).ok());
  v1::ListRevokedSessionsRequest revoked_request;
  revoked_request.mutable_revoked_since()->set_seconds(absl::ToUnixSeconds(absl::Now()) - 60);
  v1::ListRevokedSessionsResponse revoked;
  ASSERT_TRUE(
      internal_->ListRevokedSessions(Bearer(keys_.ServiceToken()).get(), revoked_request, &revoked)
          .ok());
  EXPECT_EQ(revoked.sessions_size(), 2);
  EXPECT_EQ(EmailSignIn("bob@example.com", kPassword, "laptop-reset-03").error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_TRUE(EmailSignIn("bob@example.com", "a brand new passphrase", "laptop-reset-03").ok());

  // An unknown email gets the same answer and no mail: the RPC tells nobody who plays here.
  const size_t mails = smtp_.messages().size();
  send.set_email("stranger@example.com");
  v1::SendPasswordResetCodeResponse unknown;
  const std::string before = Checksum();
  ASSERT_TRUE(accounts_->SendPasswordResetCode(Bearer("").get(), send, &unknown).ok());
  EXPECT_EQ(unknown.code_expire_time().seconds(), sent.code_expire_time().seconds());
  EXPECT_EQ(smtp_.messages().size(), mails);
  EXPECT_EQ(Checksum(), before);
  EXPECT_THAT(Scrape(), HasSubstr("parlor_accounts_sign_ins_total{method=\"password_reset\"} 1"));
}

TEST_F(CredentialsPgTest, AnExpiredOrExhaustedCodeNoLongerWorks) {
  const v1::AuthenticateDeviceResponse phone = Device("phone-codes-01");
  const std::string token = phone.tokens().access_token();
  ASSERT_TRUE(SendLinkCode(token, "cy@example.com").ok());
  const std::string code = smtp_.LastCodeFor("cy@example.com");
  clock_->now += absl::Minutes(16);
  grpc::Status status = LinkEmail(token, "cy@example.com", code);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(), HasSubstr("the code has expired"));
  // A code for one address does not link another.
  ASSERT_TRUE(SendLinkCode(token, "cy@example.com").ok());
  status = LinkEmail(token, "cy2@example.com", smtp_.LastCodeFor("cy@example.com"));
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(), HasSubstr("no code was sent to this email"));
  EXPECT_TRUE(Credentials(token).empty());
}

TEST_F(CredentialsPgTest, AppleAndGoogleSignInReturnTheLinkedAccount) {
  const v1::AuthenticateDeviceResponse phone = Device("phone-google-01");
  const std::string token = phone.tokens().access_token();
  ASSERT_TRUE(LinkId(token, v1::CREDENTIAL_KIND_GOOGLE, GoogleToken("g-ada")).ok());
  clock_->now += absl::Seconds(1);  // listed oldest first
  IdTokenClaims apple_claims = GoogleClaims("apple-ada");
  apple_claims.iss = "https://appleid.apple.com";
  apple_claims.aud = "com.parlor.test";
  apple_claims.nonce = Sha256Hex(kNonce);  // Apple carries the nonce's SHA-256
  ASSERT_TRUE(LinkId(token, v1::CREDENTIAL_KIND_APPLE, apple_.Sign("apple-1", apple_claims)).ok());
  std::vector<v1::Credential> credentials = Credentials(token);
  ASSERT_EQ(credentials.size(), 2u);
  EXPECT_EQ(credentials[0].kind(), v1::CREDENTIAL_KIND_GOOGLE);
  EXPECT_EQ(credentials[0].email(), "g-ada@gmail.test");
  EXPECT_EQ(credentials[1].kind(), v1::CREDENTIAL_KIND_APPLE);

  // A new device signs in with Google, then another with Apple: the same account each time.
  const std::string google_token = GoogleToken("g-ada");
  v1::AuthenticateIdTokenResponse by_google;
  grpc::Status status =
      IdSignIn(v1::CREDENTIAL_KIND_GOOGLE, google_token, "tablet-google-02", &by_google);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(by_google.account().account_id(), phone.account().account_id());
  apple_claims.iat += absl::Seconds(1);  // a fresh token
  v1::AuthenticateIdTokenResponse by_apple;
  status = IdSignIn(v1::CREDENTIAL_KIND_APPLE, apple_.Sign("apple-1", apple_claims),
                    "laptop-apple-03", &by_apple);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(by_apple.account().account_id(), phone.account().account_id());
  EXPECT_EQ(Devices(token).size(), 3u);

  // The same ID token again (stolen from a log, say) is refused.
  status = IdSignIn(v1::CREDENTIAL_KIND_GOOGLE, google_token, "thief-device-09");
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(status.error_message(), HasSubstr("already used"));
  // A valid token nobody linked.
  status = IdSignIn(v1::CREDENTIAL_KIND_GOOGLE, GoogleToken("g-stranger"), "stranger-dev-01");
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(status.error_message(), HasSubstr("then link it with LinkIdToken"));
  // The wrong nonce, and a token of the other provider.
  status = IdSignIn(v1::CREDENTIAL_KIND_GOOGLE, GoogleToken("g-ada"), "tablet-google-02", nullptr,
                    "a-different-nonce-123");
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(status.error_message(), HasSubstr("nonce does not match"));
  status = IdSignIn(v1::CREDENTIAL_KIND_APPLE, GoogleToken("g-ada"), "tablet-google-02");
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED);

  // Google rotates its keys: the next token's kid is unknown, the keys are fetched again.
  const int fetches = google_keys_.requests();
  google_.AddKey("google-2", "RS256");
  google_keys_.Set("/oauth2/v3/certs", 200, google_.Jwks());
  clock_->now += absl::Seconds(31);
  status =
      IdSignIn(v1::CREDENTIAL_KIND_GOOGLE, GoogleToken("g-ada", "google-2"), "tablet-google-02");
  EXPECT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(google_keys_.requests(), fetches + 1);

  EXPECT_THAT(Scrape(), AllOf(HasSubstr("parlor_accounts_sign_ins_total{method=\"google\"} 2"),
                              HasSubstr("parlor_accounts_sign_ins_total{method=\"apple\"} 1"),
                              HasSubstr("{method=\"google\",reason=\"token_reused\"} 1"),
                              HasSubstr("{method=\"google\",reason=\"not_linked\"} 1"),
                              HasSubstr("{method=\"google\",reason=\"invalid_token\"} 1"),
                              HasSubstr("{method=\"apple\",reason=\"invalid_token\"} 1")));
}

TEST_F(CredentialsPgTest, ACredentialOfAnotherAccountIsRefusedNeverMerged) {
  const v1::AuthenticateDeviceResponse ada = Device("ada-device-01");
  const v1::AuthenticateDeviceResponse eve = Device("eve-device-01");
  LinkEmailByMail(ada.tokens().access_token(), "ada@example.com");
  ASSERT_TRUE(
      LinkId(ada.tokens().access_token(), v1::CREDENTIAL_KIND_GOOGLE, GoogleToken("g-ada")).ok());

  // Eve cannot take Ada's email or Google account into her account.
  grpc::Status status = SendLinkCode(eve.tokens().access_token(), "ADA@example.com");
  EXPECT_EQ(status.error_code(), grpc::StatusCode::ALREADY_EXISTS);
  EXPECT_THAT(status.error_message(), HasSubstr("already linked to another account"));
  status = LinkId(eve.tokens().access_token(), v1::CREDENTIAL_KIND_GOOGLE, GoogleToken("g-ada"));
  EXPECT_EQ(status.error_code(), grpc::StatusCode::ALREADY_EXISTS);
  EXPECT_THAT(status.error_message(),
              HasSubstr("this Google account is already linked to another account"));
  // Ada cannot link a second Google account, nor a second email.
  status = LinkId(ada.tokens().access_token(), v1::CREDENTIAL_KIND_GOOGLE, GoogleToken("g-ada-2"));
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(), HasSubstr("already has a Google account linked"));
  status = SendLinkCode(ada.tokens().access_token(), "ada2@example.com");
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(), HasSubstr("already has an email address linked"));

  // Ada's password on Eve's device: the device belongs to Eve's account, so nothing moves.
  status = EmailSignIn("ada@example.com", kPassword, "eve-device-01");
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(), HasSubstr("already belongs to another account"));
  // Nothing moved: Eve has no credential, Ada both of hers.
  EXPECT_EQ(Credentials(eve.tokens().access_token()).size(), 0u);
  EXPECT_EQ(Credentials(ada.tokens().access_token()).size(), 2u);
  EXPECT_THAT(Scrape(), HasSubstr("{method=\"email\",reason=\"device_refused\"} 1"));
}

TEST_F(CredentialsPgTest, TheLastCredentialIsNeverUnlinked) {
  const v1::AuthenticateDeviceResponse phone = Device("phone-unlink-01");
  const std::string token = phone.tokens().access_token();
  LinkEmailByMail(token, "dee@example.com");
  std::vector<v1::Credential> credentials = Credentials(token);
  ASSERT_EQ(credentials.size(), 1u);
  v1::UnlinkCredentialRequest unlink;
  unlink.set_credential_id(credentials[0].credential_id());
  v1::UnlinkCredentialResponse unlinked;
  grpc::Status status = accounts_->UnlinkCredential(Bearer(token).get(), unlink, &unlinked);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(), HasSubstr("last linked credential"));
  // With a second one linked, the first can go; then the second is the last.
  ASSERT_TRUE(LinkId(token, v1::CREDENTIAL_KIND_GOOGLE, GoogleToken("g-dee")).ok());
  status = accounts_->UnlinkCredential(Bearer(token).get(), unlink, &unlinked);
  ASSERT_TRUE(status.ok()) << status.error_message();
  credentials = Credentials(token);
  ASSERT_EQ(credentials.size(), 1u);
  EXPECT_EQ(credentials[0].kind(), v1::CREDENTIAL_KIND_GOOGLE);
  EXPECT_EQ(EmailSignIn("dee@example.com", kPassword, "phone-unlink-02").error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  unlink.set_credential_id(credentials[0].credential_id());
  EXPECT_EQ(accounts_->UnlinkCredential(Bearer(token).get(), unlink, &unlinked).error_code(),
            grpc::StatusCode::FAILED_PRECONDITION);
  // Someone else's credential id is not found for this caller.
  const v1::AuthenticateDeviceResponse other = Device("phone-unlink-09");
  EXPECT_EQ(
      accounts_->UnlinkCredential(Bearer(other.tokens().access_token()).get(), unlink, &unlinked)
          .error_code(),
      grpc::StatusCode::NOT_FOUND);
}

TEST_F(CredentialsPgTest, ALostPhoneIsRemovedAndCannotComeBack) {
  const v1::AuthenticateDeviceResponse lost = Device("lost-phone-0001");
  LinkEmailByMail(lost.tokens().access_token(), "eli@example.com");
  v1::AuthenticateEmailResponse replacement;
  ASSERT_TRUE(EmailSignIn("eli@example.com", kPassword, "new-phone-0002", &replacement).ok());
  const std::string token = replacement.tokens().access_token();
  std::vector<v1::Device> devices = Devices(token);
  ASSERT_EQ(devices.size(), 2u);
  const v1::Device& lost_device = devices[0].current() ? devices[1] : devices[0];

  v1::RemoveDeviceRequest remove;
  remove.set_device_handle(lost_device.device_handle());
  v1::RemoveDeviceResponse removed;
  grpc::Status status = accounts_->RemoveDevice(Bearer(token).get(), remove, &removed);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(Devices(token).size(), 1u);
  // Whoever holds the lost phone: its refresh token, access token (in accounts) and device id
  // are all dead.
  EXPECT_EQ(Refresh(lost.tokens().refresh_token()).error_code(), grpc::StatusCode::UNAUTHENTICATED);
  v1::GetMeResponse me;
  EXPECT_EQ(accounts_->GetMe(Bearer(lost.tokens().access_token()).get(), {}, &me).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  v1::AuthenticateDeviceRequest again;
  again.set_device_id("lost-phone-0001");
  v1::AuthenticateDeviceResponse again_response;
  status = accounts_->AuthenticateDevice(Bearer("").get(), again, &again_response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(), HasSubstr("was removed from its account"));
  // Other services learn that its session ended.
  v1::ListRevokedSessionsRequest revoked_request;
  revoked_request.mutable_revoked_since()->set_seconds(absl::ToUnixSeconds(absl::Now()) - 60);
  v1::ListRevokedSessionsResponse revoked;
  ASSERT_TRUE(
      internal_->ListRevokedSessions(Bearer(keys_.ServiceToken()).get(), revoked_request, &revoked)
          .ok());
  ASSERT_EQ(revoked.sessions_size(), 1);
  EXPECT_EQ(revoked.sessions(0).account_id(), lost.account().account_id());
  // Removing it again: not found.
  EXPECT_EQ(accounts_->RemoveDevice(Bearer(token).get(), remove, &removed).error_code(),
            grpc::StatusCode::NOT_FOUND);

  // An account with one device and no credential cannot remove that device (it would be lost).
  const v1::AuthenticateDeviceResponse single = Device("single-phone-01");
  remove.set_device_handle(Devices(single.tokens().access_token())[0].device_handle());
  status = accounts_->RemoveDevice(Bearer(single.tokens().access_token()).get(), remove, &removed);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(), HasSubstr("would lose the account"));
}

// Guessing attacks, with the shipped limits (5 password attempts per email at once, then 1 a
// minute; 20 per client address at once, then 10 a minute; 5 wrong codes kill a code). The
// test clock does not move, so nothing refills.
TEST_F(CredentialsPgTest, GuessingAttacksAreStopped) {
  const v1::AuthenticateDeviceResponse victim = Device("victim-phone-01");
  LinkEmailByMail(victim.tokens().access_token(), "victim@example.com");

  // One attacker, one address, a dictionary of 100 passwords with the right one at 50: only the
  // first 5 are even checked; the right one is refused unchecked.
  int checked = 0;
  int refused = 0;
  for (int i = 0; i < 100; ++i) {
    const std::string guess = i == 50 ? kPassword : absl::StrCat("guess number ", i);
    grpc::Status status =
        EmailSignIn("victim@example.com", guess, "attacker-dev-01", nullptr, "203.0.113.66");
    ASSERT_NE(status.error_code(), grpc::StatusCode::OK) << "guess " << i << " got in";
    if (status.error_code() == grpc::StatusCode::UNAUTHENTICATED) ++checked;
    if (status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) {
      ++refused;
      EXPECT_THAT(status.error_message(), HasSubstr("too many password attempts"));
    }
  }
  EXPECT_EQ(checked, 5);
  EXPECT_EQ(refused, 95);

  // A botnet: 100 addresses against the same email. The per-account limit is already spent.
  for (int i = 0; i < 100; ++i) {
    grpc::Status status = EmailSignIn("victim@example.com", kPassword, "attacker-dev-01", nullptr,
                                      absl::StrCat("198.18.0.", i + 1));
    ASSERT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << i;
    EXPECT_THAT(status.error_message(), HasSubstr("for this account"));
  }
  // Credential stuffing from one address across many emails: the per-address limit stops it.
  int stuffed = 0;
  for (int i = 0; i < 50; ++i) {
    grpc::Status status = EmailSignIn(absl::StrCat("user", i, "@example.com"), "password123!",
                                      "attacker-dev-01", nullptr, "192.0.2.99");
    if (status.error_code() == grpc::StatusCode::UNAUTHENTICATED) ++stuffed;
    if (i >= 20) {
      EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << i;
      EXPECT_THAT(status.error_message(), HasSubstr("for this network address"));
    }
  }
  EXPECT_EQ(stuffed, 20);

  // Guessing a reset code: 5 wrong codes kill the code, so even the right one then fails.
  v1::SendPasswordResetCodeRequest send;
  send.set_email("victim@example.com");
  v1::SendPasswordResetCodeResponse sent;
  ASSERT_TRUE(accounts_->SendPasswordResetCode(From("198.51.100.9").get(), send, &sent).ok());
  const std::string code = smtp_.LastCodeFor("victim@example.com");
  v1::ResetPasswordRequest reset;
  reset.set_email("victim@example.com");
  reset.set_new_password("attacker's new password");
  reset.set_device_id("attacker-dev-01");
  v1::ResetPasswordResponse response;
  int wrong = 0;
  for (int guess = 0; wrong < 5; ++guess) {
    const std::string candidate = absl::StrFormat("%06d", guess);
    if (candidate == code) continue;
    reset.set_code(candidate);
    grpc::Status status = accounts_->ResetPassword(From(absl::StrCat("198.18.1.", guess + 1)).get(),
                                                   reset, &response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED) << status.error_message();
    ++wrong;
  }
  // The per-account limit now refuses even to check; a minute later the code itself is dead.
  reset.set_code(code);
  EXPECT_EQ(accounts_->ResetPassword(From("198.18.2.1").get(), reset, &response).error_code(),
            grpc::StatusCode::RESOURCE_EXHAUSTED);
  clock_->now += absl::Minutes(1);
  grpc::Status status = accounts_->ResetPassword(From("198.18.2.2").get(), reset, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(), HasSubstr("too many wrong codes"));

  // The victim's password still works (from their own address, once the minute has passed).
  EXPECT_TRUE(
      EmailSignIn("victim@example.com", kPassword, "victim-phone-01", nullptr, "198.51.100.200")
          .ok());
  EXPECT_THAT(Scrape(),
              AllOf(HasSubstr("{method=\"email\",reason=\"wrong_password\"} 5"),
                    HasSubstr("{method=\"email\",reason=\"rate_limited\"} 225"),
                    HasSubstr("{method=\"email\",reason=\"unknown_email\"} 20"),
                    HasSubstr("{method=\"password_reset\",reason=\"wrong_code\"} 5"),
                    HasSubstr("{method=\"password_reset\",reason=\"rate_limited\"} 1"),
                    HasSubstr("{method=\"password_reset\",reason=\"code_exhausted\"} 1")));
}

// Hidden information: what one player can read never holds another's credentials, devices or
// blocks, and even the owner never reads back a secret (device id, password hash, provider sub,
// refresh token).
TEST_F(CredentialsPgTest, NoReadHoldsAnotherPlayersOrAnySecret) {
  const v1::AuthenticateDeviceResponse ada = Device("ada-secret-device-1");
  const std::string ada_token = ada.tokens().access_token();
  LinkEmailByMail(ada_token, "ada.secret@example.com");
  ASSERT_TRUE(LinkId(ada_token, v1::CREDENTIAL_KIND_GOOGLE, GoogleToken("google-sub-of-ada")).ok());
  ASSERT_TRUE(EmailSignIn("ada.secret@example.com", kPassword, "ada-secret-device-2").ok());
  const v1::AuthenticateDeviceResponse eve = Device("eve-device-0001");
  const std::string eve_token = eve.tokens().access_token();
  v1::BlockPlayerRequest block;
  block.set_account_id(eve.account().account_id());
  v1::BlockPlayerResponse blocked;
  ASSERT_TRUE(accounts_->BlockPlayer(Bearer(ada_token).get(), block, &blocked).ok());
  std::vector<std::string> ada_handles;
  for (const v1::Device& device : Devices(ada_token)) ada_handles.push_back(device.device_handle());
  ASSERT_EQ(ada_handles.size(), 2u);
  std::vector<std::string> ada_credential_ids;
  for (const v1::Credential& c : Credentials(ada_token))
    ada_credential_ids.push_back(c.credential_id());

  // Everything Eve can read.
  std::string eve_sees;
  v1::GetMeResponse me;
  ASSERT_TRUE(accounts_->GetMe(Bearer(eve_token).get(), {}, &me).ok());
  eve_sees += me.DebugString();
  v1::ListCredentialsResponse credentials;
  ASSERT_TRUE(accounts_->ListCredentials(Bearer(eve_token).get(), {}, &credentials).ok());
  EXPECT_EQ(credentials.credentials_size(), 0);
  v1::ListDevicesResponse devices;
  ASSERT_TRUE(accounts_->ListDevices(Bearer(eve_token).get(), {}, &devices).ok());
  EXPECT_EQ(devices.devices_size(), 1);
  eve_sees += devices.DebugString();
  v1::ListFriendsResponse friends;
  ASSERT_TRUE(accounts_->ListFriends(Bearer(eve_token).get(), {}, &friends).ok());
  eve_sees += friends.DebugString();
  v1::ListBlockedPlayersResponse eve_blocks;
  ASSERT_TRUE(accounts_->ListBlockedPlayers(Bearer(eve_token).get(), {}, &eve_blocks).ok());
  EXPECT_EQ(eve_blocks.players_size(), 0) << "Eve must not learn that Ada blocked her";
  v1::ExportMyDataResponse eve_export;
  ASSERT_TRUE(accounts_->ExportMyData(Bearer(eve_token).get(), {}, &eve_export).ok());
  eve_sees += eve_export.json();
  // Someone else's credential or device cannot even be named.
  v1::UnlinkCredentialRequest unlink;
  unlink.set_credential_id(ada_credential_ids[0]);
  v1::UnlinkCredentialResponse unlinked;
  EXPECT_EQ(accounts_->UnlinkCredential(Bearer(eve_token).get(), unlink, &unlinked).error_code(),
            grpc::StatusCode::NOT_FOUND);
  v1::RemoveDeviceRequest remove;
  remove.set_device_handle(ada_handles[0]);
  v1::RemoveDeviceResponse removed;
  EXPECT_EQ(accounts_->RemoveDevice(Bearer(eve_token).get(), remove, &removed).error_code(),
            grpc::StatusCode::NOT_FOUND);
  for (const std::string& secret :
       {std::string("ada.secret@example.com"), std::string("google-sub-of-ada"),
        std::string("ada-secret-device"), ada_handles[0], ada_handles[1], ada_credential_ids[0],
        ada_credential_ids[1], ada.account().account_id()}) {
    EXPECT_THAT(eve_sees, ::testing::Not(HasSubstr(secret))) << secret;
  }

  // Ada's own export holds her data but none of the secrets behind it.
  v1::ExportMyDataResponse ada_export;
  ASSERT_TRUE(accounts_->ExportMyData(Bearer(ada_token).get(), {}, &ada_export).ok());
  EXPECT_THAT(ada_export.json(), HasSubstr("ada.secret@example.com"));
  // (The provider's email is hers to see; the provider's subject itself is not shown.)
  for (const char* secret : {"ada-secret-device", "\"google-sub-of-ada\"", "$argon2id$"}) {
    EXPECT_THAT(ada_export.json(), ::testing::Not(HasSubstr(secret))) << secret;
  }
  EXPECT_THAT(ada_export.json(), ::testing::Not(HasSubstr(ada.tokens().refresh_token())));
}

// DeleteAccount erases what accounts holds about a player, everywhere in its schema, and tells the
// other services through the deletion outbox; ExportMyData hands the player their data first.
TEST_F(CredentialsPgTest, DeleteAccountErasesThePlayerFromEveryTableAfterAnExport) {
  v1::AuthenticateDeviceRequest sign_up;
  sign_up.set_device_id("adelheid-phone-1");
  sign_up.set_display_name("Adelheid");
  v1::AuthenticateDeviceResponse adelheid;
  ASSERT_TRUE(accounts_->AuthenticateDevice(Bearer("").get(), sign_up, &adelheid).ok());
  const std::string token = adelheid.tokens().access_token();
  const std::string id = adelheid.account().account_id();
  LinkEmailByMail(token, "adelheid@example.com");
  ASSERT_TRUE(EmailSignIn("adelheid@example.com", kPassword, "adelheid-tablet-2").ok());
  ASSERT_TRUE(LinkId(token, v1::CREDENTIAL_KIND_GOOGLE, GoogleToken("g-adelheid")).ok());
  const v1::AuthenticateDeviceResponse bob = Device("bob-phone-0001");
  const v1::AuthenticateDeviceResponse cyd = Device("cyd-phone-0001");
  v1::SendFriendRequestRequest ask;
  ask.set_account_id(bob.account().account_id());
  v1::SendFriendRequestResponse asked;
  ASSERT_TRUE(accounts_->SendFriendRequest(Bearer(token).get(), ask, &asked).ok());
  v1::AcceptFriendRequestRequest accept;
  accept.set_account_id(id);
  v1::AcceptFriendRequestResponse accepted;
  ASSERT_TRUE(
      accounts_->AcceptFriendRequest(Bearer(bob.tokens().access_token()).get(), accept, &accepted)
          .ok());
  v1::BlockPlayerRequest block;
  block.set_account_id(cyd.account().account_id());
  v1::BlockPlayerResponse blocked;
  ASSERT_TRUE(accounts_->BlockPlayer(Bearer(token).get(), block, &blocked).ok());

  // The export holds all of it.
  v1::ExportMyDataResponse exported;
  ASSERT_TRUE(accounts_->ExportMyData(Bearer(token).get(), {}, &exported).ok());
  EXPECT_EQ(exported.data().account().display_name(), "Adelheid");
  EXPECT_EQ(exported.data().credentials_size(), 2);
  EXPECT_EQ(exported.data().devices_size(), 2);
  ASSERT_EQ(exported.data().friends_size(), 1);
  EXPECT_EQ(exported.data().friends(0).account_id(), bob.account().account_id());
  ASSERT_EQ(exported.data().blocked_players_size(), 1);
  EXPECT_THAT(exported.json(),
              AllOf(HasSubstr("\"displayName\": \"Adelheid\""), HasSubstr("adelheid@example.com"),
                    HasSubstr("g-adelheid@gmail.test"), HasSubstr("\"blockedPlayers\"")));

  // Deleting needs the exact current name.
  v1::DeleteAccountRequest remove;
  remove.set_confirm_display_name("adelheid");
  v1::DeleteAccountResponse removed;
  grpc::Status status = accounts_->DeleteAccount(Bearer(token).get(), remove, &removed);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(), HasSubstr("\"Adelheid\" exactly; nothing was deleted"));
  remove.set_confirm_display_name("Adelheid");
  status = accounts_->DeleteAccount(Bearer(token).get(), remove, &removed);
  ASSERT_TRUE(status.ok()) << status.error_message();

  // Nothing of hers is left in any table of the schema: no row mentions her name or addresses,
  // except the deletion outbox, which keeps her former name for the other services (they replace
  // it where they copied it) until it is erased 30 days on (below).
  const std::string mentions_her =
      " t WHERE t::text ILIKE ANY (ARRAY['%adelheid%', '%g-adelheid%'])";
  {
    pqxx::connection db(db_url());
    pqxx::nontransaction txn(db);
    int tables = 0;
    for (const pqxx::row& table :
         txn.exec("SELECT quote_ident(relname) FROM pg_class c JOIN pg_namespace n "
                  "ON n.oid = c.relnamespace WHERE n.nspname = 'accounts' AND c.relkind = 'r'")) {
      const std::string name = "accounts." + table[0].as<std::string>();
      ++tables;
      EXPECT_EQ(txn.exec_params1("SELECT count(*) FROM " + name + mentions_her)[0].as<int64_t>(),
                name == "accounts.account_deletions" ? 1 : 0)
          << name << " mentions her";
    }
    EXPECT_GE(tables, 12);
    // What is left of her: the anonymized account row, removed devices, revoked sessions.
    EXPECT_EQ(txn.exec_params1("SELECT count(*) FROM accounts.devices WHERE account_id = $1::uuid "
                               "AND removed_time IS NULL",
                               id)[0]
                  .as<int64_t>(),
              0);
    EXPECT_EQ(txn.exec_params1("SELECT count(*) FROM accounts.sessions WHERE account_id = "
                               "$1::uuid AND revoke_time IS NULL",
                               id)[0]
                  .as<int64_t>(),
              0);
  }
  // Her sessions are over, her devices and credentials cannot sign in.
  EXPECT_EQ(Refresh(adelheid.tokens().refresh_token()).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  // The same phone can start afresh: a new, empty account.
  v1::AuthenticateDeviceResponse again;
  sign_up.clear_display_name();
  ASSERT_TRUE(accounts_->AuthenticateDevice(Bearer("").get(), sign_up, &again).ok());
  EXPECT_TRUE(again.created());
  EXPECT_NE(again.account().account_id(), id);
  EXPECT_EQ(EmailSignIn("adelheid@example.com", kPassword, "adelheid-phone-9").error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(IdSignIn(v1::CREDENTIAL_KIND_GOOGLE, GoogleToken("g-adelheid"), "adelheid-phone-9")
                .error_code(),
            grpc::StatusCode::NOT_FOUND);
  // Bob's friend list and Cyd's blocks no longer hold her; her seat in finished games shows the
  // replacement name.
  v1::ListFriendsResponse bob_friends;
  ASSERT_TRUE(
      accounts_->ListFriends(Bearer(bob.tokens().access_token()).get(), {}, &bob_friends).ok());
  EXPECT_EQ(bob_friends.friends_size(), 0);
  v1::BatchGetAccountsRequest batch;
  batch.add_account_ids(id);
  v1::BatchGetAccountsResponse found;
  ASSERT_TRUE(internal_->BatchGetAccounts(Bearer(keys_.ServiceToken()).get(), batch, &found).ok());
  ASSERT_EQ(found.accounts_size(), 1);
  EXPECT_THAT(found.accounts(0).display_name(), ::testing::MatchesRegex("Deleted-[A-Za-z0-9]{12}"));
  // The other services read the deletion from the outbox, and her sessions' end from the
  // revocation feed.
  v1::ListDeletedAccountsRequest outbox;
  v1::ListDeletedAccountsResponse deletions;
  ASSERT_TRUE(
      internal_->ListDeletedAccounts(Bearer(keys_.ServiceToken()).get(), outbox, &deletions).ok());
  ASSERT_EQ(deletions.deletions_size(), 1);
  EXPECT_EQ(deletions.deletions(0).account_id(), id);
  EXPECT_EQ(deletions.deletions(0).display_name(), found.accounts(0).display_name());
  EXPECT_EQ(deletions.deletions(0).former_display_name(), "Adelheid");
  outbox.set_after_sequence(deletions.deletions(0).sequence());
  ASSERT_TRUE(
      internal_->ListDeletedAccounts(Bearer(keys_.ServiceToken()).get(), outbox, &deletions).ok());
  EXPECT_EQ(deletions.deletions_size(), 0);
  v1::ListRevokedSessionsRequest revoked_request;
  revoked_request.mutable_revoked_since()->set_seconds(absl::ToUnixSeconds(absl::Now()) - 60);
  v1::ListRevokedSessionsResponse revoked;
  ASSERT_TRUE(
      internal_->ListRevokedSessions(Bearer(keys_.ServiceToken()).get(), revoked_request, &revoked)
          .ok());
  EXPECT_EQ(revoked.sessions_size(), 2);

  // 30 days on, the outbox forgets her former name too: no row of the schema mentions her.
  clock_->now += absl::Hours(24 * 31);
  outbox.set_after_sequence(0);
  ASSERT_TRUE(
      internal_->ListDeletedAccounts(Bearer(keys_.ServiceToken()).get(), outbox, &deletions).ok());
  ASSERT_EQ(deletions.deletions_size(), 1);
  EXPECT_EQ(deletions.deletions(0).former_display_name(), "");
  pqxx::connection db(db_url());
  pqxx::nontransaction txn(db);
  EXPECT_EQ(txn.exec_params1("SELECT count(*) FROM accounts.account_deletions" + mentions_her)[0]
                .as<int64_t>(),
            0);
}

}  // namespace
}  // namespace parlor::accounts
