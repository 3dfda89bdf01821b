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
