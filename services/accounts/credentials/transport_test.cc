// The service's own libcurl clients against local servers speaking the real protocols: SMTP for
// the one-time codes, HTTP for the providers' key sets.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/accounts/credentials/id_token.h"
#include "services/accounts/credentials/mail.h"
#include "services/accounts/credentials/password.h"
#include "services/accounts/credentials/testing/local_servers.h"
#include "services/common/testing/status_matchers.h"

namespace parlor::accounts {
namespace {

using ::parlor::accounts::testing::LocalHttpServer;
using ::parlor::accounts::testing::LocalSmtpServer;
using ::parlor::testing::IsOk;
using ::parlor::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

SmtpOptions Options(const LocalSmtpServer& server) {
  return {.url = server.Url(),
          .from = "no-reply@parlor.test",
          .username = "",
          .password = "",
          .require_tls = false,
          .timeout = absl::Seconds(5)};
}

TEST(SmtpMailSenderTest, DeliversTheMailOverSmtp) {
  LocalSmtpServer server;
  SmtpMailSender sender(Options(server));
  ASSERT_THAT(sender.Send({.to = "ada@example.com",
                           .subject = "Your Parlor code",
                           .body = "Your code is 123456.\n.a line starting with a dot\nBye"}),
              IsOk());
  std::vector<LocalSmtpServer::Message> messages = server.messages();
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0].mail_from, "<no-reply@parlor.test>");
  EXPECT_THAT(messages[0].recipients, ElementsAre("<ada@example.com>"));
  EXPECT_THAT(messages[0].data, HasSubstr("From: no-reply@parlor.test\r\n"));
  EXPECT_THAT(messages[0].data, HasSubstr("To: ada@example.com\r\n"));
  EXPECT_THAT(messages[0].data, HasSubstr("Subject: Your Parlor code\r\n"));
  // The body survives SMTP's dot-stuffing both ways.
  EXPECT_THAT(messages[0].data,
              HasSubstr("\r\n\r\nYour code is 123456.\r\n.a line starting with a dot\r\nBye\r\n"));
  EXPECT_EQ(server.LastCodeFor("ada@example.com"), "123456");
}

TEST(SmtpMailSenderTest, RefusalsAndOutagesHavePreciseStatuses) {
  LocalSmtpServer server;
  SmtpMailSender sender(Options(server));
  server.RefuseRecipient("nobody@example.com");
  EXPECT_THAT(sender.Send({.to = "nobody@example.com", .subject = "s", .body = "b"}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("refused the address nobody@example.com (SMTP 550)")));
  server.RefuseConnections(true);
  EXPECT_THAT(sender.Send({.to = "ada@example.com", .subject = "s", .body = "b"}),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("retry")));
  server.RefuseConnections(false);
  // A server that offers no STARTTLS gets nothing when TLS is required.
  SmtpOptions tls = Options(server);
  tls.require_tls = true;
  EXPECT_THAT(SmtpMailSender(tls).Send({.to = "ada@example.com", .subject = "s", .body = "b"}),
              StatusIs(absl::StatusCode::kUnavailable, ::testing::_));
  EXPECT_TRUE(server.messages().empty());
  // Nobody listening.
  SmtpOptions closed = Options(server);
  closed.url = "smtp://127.0.0.1:1";
  EXPECT_THAT(SmtpMailSender(closed).Send({.to = "ada@example.com", .subject = "s", .body = "b"}),
              StatusIs(absl::StatusCode::kUnavailable, ::testing::_));
}

TEST(CurlHttpGetTest, FetchesKeySetsOverHttpAndRefusesWhatItShouldNot) {
  LocalHttpServer server;
  server.Set("/keys", 200, R"({"keys":[]})");
  EXPECT_THAT(CurlHttpGet(server.Url("/keys")),
              ::parlor::testing::IsOkAndHolds(::testing::Eq(R"({"keys":[]})")));
  EXPECT_THAT(CurlHttpGet(server.Url("/other")),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("HTTP 404")));
  server.Set("/keys", 200, std::string((1 << 20) + 1, 'x'));
  EXPECT_THAT(CurlHttpGet(server.Url("/keys")),
              StatusIs(absl::StatusCode::kUnavailable, ::testing::_));
  EXPECT_EQ(server.requests(), 3);
  // Plain http only to loopback; no other schemes.
  EXPECT_THAT(CurlHttpGet("http://keys.example.com/jwks"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("must be https://")));
  EXPECT_THAT(CurlHttpGet("file:///etc/passwd"),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_));
  EXPECT_THAT(ValidateKeysUrl("https://appleid.apple.com/auth/keys"), IsOk());
}

TEST(PasswordTest, Argon2idHashesVerifyOnlyTheirPassword) {
  const PasswordHashing cheap{.memory_kib = 1024, .iterations = 1, .parallelism = 1};
  absl::StatusOr<std::string> hash = HashPassword("correct horse battery", cheap);
  ASSERT_THAT(hash, IsOk());
  EXPECT_THAT(*hash, ::testing::StartsWith("$argon2id$v=19$m=1024,t=1,p=1$"));
  EXPECT_TRUE(VerifyPassword("correct horse battery", *hash));
  EXPECT_FALSE(VerifyPassword("correct horse batterY", *hash));
  EXPECT_FALSE(VerifyPassword("", *hash));
  // A fresh salt each time: the same password never gives the same hash.
  EXPECT_NE(*HashPassword("correct horse battery", cheap), *hash);
  EXPECT_FALSE(VerifyPassword("x", "not a hash"));

  EXPECT_THAT(
      ValidateNewPassword("short", "a@b.c"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("10-128 bytes long; it has 5")));
  EXPECT_THAT(ValidateNewPassword(std::string(129, 'p'), "a@b.c"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("it has 129")));
  EXPECT_THAT(ValidateNewPassword("Ada@Example.com", "ada@example.com"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not be the email")));
  EXPECT_THAT(ValidateNewPassword(std::string("0123456789\0x", 12), "a@b.c"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("NUL")));
  EXPECT_THAT(ValidateNewPassword("ünïcødé pässwörd", "a@b.c"), IsOk());
}

}  // namespace
}  // namespace parlor::accounts
