#ifndef PARLOR_SERVICES_COMMON_TESTING_STATUS_MATCHERS_H_
#define PARLOR_SERVICES_COMMON_TESTING_STATUS_MATCHERS_H_

#include <ostream>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"

namespace parlor::testing {

inline const absl::Status& GetStatus(const absl::Status& status) { return status; }
template <typename T>
const absl::Status& GetStatus(const absl::StatusOr<T>& status_or) {
  return status_or.status();
}

// EXPECT_THAT(DoIt(), IsOk());
MATCHER(IsOk, "is OK") {
  const absl::Status& status = GetStatus(arg);
  if (!status.ok()) *result_listener << "status is " << status;
  return status.ok();
}

// EXPECT_THAT(DoIt(), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("display name")));
MATCHER_P2(StatusIs, code, message_matcher, "") {
  const absl::Status& status = GetStatus(arg);
  *result_listener << "status is " << status;
  return status.code() == code &&
         ::testing::ExplainMatchResult(message_matcher, std::string(status.message()),
                                       result_listener);
}

// EXPECT_THAT(ParseIt(), IsOkAndHolds(Eq(3)));
MATCHER_P(IsOkAndHolds, value_matcher, "") {
  if (!arg.ok()) {
    *result_listener << "status is " << arg.status();
    return false;
  }
  return ::testing::ExplainMatchResult(value_matcher, *arg, result_listener);
}

}  // namespace parlor::testing

#define PARLOR_ASSERT_OK_AND_ASSIGN(lhs, expr) \
  PARLOR_ASSERT_OK_AND_ASSIGN_IMPL(PARLOR_TEST_CONCAT(statusor_, __LINE__), lhs, expr)
#define PARLOR_TEST_CONCAT_INNER(a, b) a##b
#define PARLOR_TEST_CONCAT(a, b) PARLOR_TEST_CONCAT_INNER(a, b)
#define PARLOR_ASSERT_OK_AND_ASSIGN_IMPL(statusor, lhs, expr) \
  auto statusor = (expr);                                     \
  ASSERT_TRUE(statusor.ok()) << statusor.status();            \
  lhs = std::move(*statusor)

#endif  // PARLOR_SERVICES_COMMON_TESTING_STATUS_MATCHERS_H_
