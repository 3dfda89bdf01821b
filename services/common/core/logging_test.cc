#include "services/common/core/logging.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/testing/status_matchers.h"

namespace parlor {
namespace {

using ::parlor::testing::IsOk;
using ::parlor::testing::StatusIs;
using ::testing::HasSubstr;

TEST(LoggingTest, EscapesJson) {
  EXPECT_EQ(JsonEscape("a\"b\\c\nd\x01"), "a\\\"b\\\\c\\nd\\u0001");
}

TEST(LoggingTest, RequestIdIsScopedToTheThread) {
  EXPECT_EQ(CurrentRequestId(), "");
  {
    ScopedRequestId outer("r1");
    EXPECT_EQ(CurrentRequestId(), "r1");
    {
      ScopedRequestId inner("r2");
      EXPECT_EQ(CurrentRequestId(), "r2");
    }
    EXPECT_EQ(CurrentRequestId(), "r1");
  }
  EXPECT_EQ(CurrentRequestId(), "");
}

TEST(LoggingTest, RejectsUnknownFormatAndLevel) {
  EXPECT_THAT(InitLogging("svc", "xml", "info"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("text|json")));
  EXPECT_THAT(InitLogging("svc", "json", "loud"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("trace|debug")));
  EXPECT_THAT(InitLogging("svc", "json", "info"), IsOk());
  ::testing::internal::CaptureStderr();
  {
    ScopedRequestId id("req-7");
    spdlog::info("hello \"world\"");
  }
  std::string out = ::testing::internal::GetCapturedStderr();
  EXPECT_THAT(out, HasSubstr("\"level\":\"info\",\"service\":\"svc\",\"request_id\":\"req-7\","
                             "\"msg\":\"hello \\\"world\\\"\"}"));
}

TEST(LoggingTest, EscapesJsonControlAndNonUtf8Bytes) {
  EXPECT_EQ(JsonEscape("del\x7f"), "del\\u007f");
  EXPECT_EQ(JsonEscape("caf\xc3\xa9 \xff\xc3"), "caf\xc3\xa9 \\ufffd\\ufffd");
}

TEST(LoggingTest, EscapesText) {
  EXPECT_EQ(TextEscape("plain text, caf\xc3\xa9"), "plain text, caf\xc3\xa9");
  EXPECT_EQ(TextEscape("a\nb\rc\td\\e\x01\x7f"), "a\\nb\\rc\\td\\\\e\\x01\\x7f");
  EXPECT_EQ(TextEscape("x\xe2\x80\xa8y\xc2\x85z\xff"), "x\\u2028y\\u0085z\\xff");
}

// A client sends a token whose header holds a newline followed by a fake log line: in either
// format every record stays one line, and the fake line never starts a line of its own.
TEST(LoggingTest, ClientTextCannotForgeALogLine) {
  const std::string forged =
      "{\"alg\":\"EdDSA\n2026-11-23T05:40:01.123Z I accounts created account admin\"}";
  for (const char* format : {"text", "json"}) {
    ASSERT_THAT(InitLogging("svc", format, "info"), IsOk());
    ::testing::internal::CaptureStderr();
    {
      ScopedRequestId id("req\r\nforged");
      spdlog::info("request refused: malformed token header {}", forged);
    }
    const std::string out = ::testing::internal::GetCapturedStderr();
    SCOPED_TRACE(format);
    ASSERT_FALSE(out.empty());
    EXPECT_EQ(out.find('\n'), out.size() - 1) << out;  // exactly one line
    EXPECT_EQ(out.find('\r'), std::string::npos) << out;
    EXPECT_THAT(out, HasSubstr("EdDSA\\n2026-11-23T05:40:01.123Z I accounts created account"));
  }
}

TEST(LoggingTest, RegisteredSecretsAreRedactedLongestFirst) {
  RedactInLogs("hunter2-secret");
  RedactInLogs("postgresql://parlor:hunter2-secret@[::1/db");
  RedactInLogs("short");  // too short to blank safely: ignored
  EXPECT_EQ(Redacted("bad URI: \"postgresql://parlor:hunter2-secret@[::1/db\""),
            "bad URI: \"[redacted]\"");
  EXPECT_EQ(Redacted("password hunter2-secret rejected, short answer"),
            "password [redacted] rejected, short answer");
}

}  // namespace
}  // namespace parlor
