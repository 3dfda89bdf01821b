#include "services/common/grpc_status.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/core/logging.h"

namespace parlor {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(GrpcStatusTest, CodesMapOneToOneWithTheirMessage) {
  for (absl::StatusCode code :
       {absl::StatusCode::kInvalidArgument, absl::StatusCode::kNotFound,
        absl::StatusCode::kAlreadyExists, absl::StatusCode::kPermissionDenied,
        absl::StatusCode::kFailedPrecondition, absl::StatusCode::kAborted,
        absl::StatusCode::kUnauthenticated, absl::StatusCode::kUnavailable,
        absl::StatusCode::kResourceExhausted, absl::StatusCode::kDeadlineExceeded}) {
    grpc::Status status = ToGrpcStatus(absl::Status(code, "what to fix"));
    EXPECT_EQ(static_cast<int>(status.error_code()), static_cast<int>(code));
    EXPECT_EQ(status.error_message(), "what to fix");
  }
  EXPECT_TRUE(ToGrpcStatus(absl::OkStatus()).ok());
}

TEST(GrpcStatusTest, InternalNeverCarriesItsDetail) {
  ScopedRequestId request_id("req-42");
  for (absl::StatusCode code :
       {absl::StatusCode::kInternal, absl::StatusCode::kUnknown, absl::StatusCode::kDataLoss}) {
    grpc::Status status =
        ToGrpcStatus(absl::Status(code, "ERROR: relation \"accounts.x\" at pool.cc:42"));
    EXPECT_EQ(static_cast<int>(status.error_code()), static_cast<int>(code));
    EXPECT_THAT(status.error_message(), Not(HasSubstr("relation")));
    EXPECT_EQ(status.error_message(), "internal error (request id req-42)");
  }
}

TEST(GrpcStatusTest, CodeNames) {
  EXPECT_STREQ(GrpcCodeName(grpc::StatusCode::OK), "OK");
  EXPECT_STREQ(GrpcCodeName(grpc::StatusCode::UNAUTHENTICATED), "UNAUTHENTICATED");
  EXPECT_STREQ(GrpcCodeName(grpc::StatusCode::DATA_LOSS), "DATA_LOSS");
}

}  // namespace
}  // namespace parlor
