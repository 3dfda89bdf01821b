#include "services/common/grpc_status.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/any.pb.h"
#include "google/protobuf/duration.pb.h"
#include "google/protobuf/unknown_field_set.h"
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

TEST(GrpcStatusTest, RetryDelayTravelsAsGoogleRpcRetryInfo) {
  absl::Status refused = WithRetryDelay(absl::ResourceExhaustedError("pool full; retry later"),
                                        absl::Milliseconds(1500));
  EXPECT_EQ(RetryDelay(refused), absl::Milliseconds(1500));
  grpc::Status status = ToGrpcStatus(refused);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(status.error_message(), "pool full; retry later");

  // google.rpc.Status{code = 1, message = 2, details = 3 (Any)}, read without its proto.
  google::protobuf::UnknownFieldSet rpc_status;
  ASSERT_TRUE(rpc_status.ParseFromString(status.error_details()));
  ASSERT_EQ(rpc_status.field_count(), 3);
  EXPECT_EQ(rpc_status.field(0).number(), 1);
  EXPECT_EQ(rpc_status.field(0).varint(), 8u);  // RESOURCE_EXHAUSTED
  EXPECT_EQ(rpc_status.field(1).length_delimited(), "pool full; retry later");
  google::protobuf::Any detail;
  ASSERT_TRUE(detail.ParseFromString(rpc_status.field(2).length_delimited()));
  EXPECT_EQ(detail.type_url(), "type.googleapis.com/google.rpc.RetryInfo");
  google::protobuf::UnknownFieldSet retry_info;  // RetryInfo{Duration retry_delay = 1}
  ASSERT_TRUE(retry_info.ParseFromString(detail.value()));
  ASSERT_EQ(retry_info.field_count(), 1);
  google::protobuf::Duration delay;
  ASSERT_TRUE(delay.ParseFromString(retry_info.field(0).length_delimited()));
  EXPECT_EQ(delay.seconds(), 1);
  EXPECT_EQ(delay.nanos(), 500000000);
}

TEST(GrpcStatusTest, NoRetryDelayMeansNoDetails) {
  EXPECT_EQ(RetryDelay(absl::UnavailableError("x")), std::nullopt);
  EXPECT_TRUE(ToGrpcStatus(absl::UnavailableError("x")).error_details().empty());
  EXPECT_TRUE(WithRetryDelay(absl::OkStatus(), absl::Seconds(1)).ok());
  // INTERNAL stays generic even if something attached a delay.
  EXPECT_TRUE(ToGrpcStatus(WithRetryDelay(absl::InternalError("SELECT"), absl::Seconds(1)))
                  .error_details()
                  .empty());
}

TEST(GrpcStatusTest, EveryTypeUrlPayloadBecomesADetailOthersStayOnTheServer) {
  google::protobuf::Duration typed;
  typed.set_seconds(7);
  absl::Status aborted = absl::AbortedError("stale");
  aborted.SetPayload("type.googleapis.com/google.protobuf.Duration",
                     absl::Cord(typed.SerializeAsString()));
  aborted.SetPayload("server-only-note", absl::Cord("not for clients"));
  aborted = WithRetryDelay(aborted, absl::Seconds(1));
  grpc::Status status = ToGrpcStatus(aborted);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::ABORTED);
  google::protobuf::UnknownFieldSet rpc_status;
  ASSERT_TRUE(rpc_status.ParseFromString(status.error_details()));
  std::vector<std::string> type_urls;
  for (int i = 0; i < rpc_status.field_count(); ++i) {
    if (rpc_status.field(i).number() != 3) continue;
    google::protobuf::Any detail;
    ASSERT_TRUE(detail.ParseFromString(rpc_status.field(i).length_delimited()));
    type_urls.push_back(detail.type_url());
    if (detail.Is<google::protobuf::Duration>()) {
      google::protobuf::Duration back;
      ASSERT_TRUE(detail.UnpackTo(&back));
      EXPECT_EQ(back.seconds(), 7);
    }
  }
  EXPECT_THAT(type_urls,
              ::testing::UnorderedElementsAre("type.googleapis.com/google.protobuf.Duration",
                                              "type.googleapis.com/google.rpc.RetryInfo"));
  EXPECT_THAT(status.error_details(), Not(HasSubstr("not for clients")));
}

TEST(GrpcStatusTest, CodeNames) {
  EXPECT_STREQ(GrpcCodeName(grpc::StatusCode::OK), "OK");
  EXPECT_STREQ(GrpcCodeName(grpc::StatusCode::UNAUTHENTICATED), "UNAUTHENTICATED");
  EXPECT_STREQ(GrpcCodeName(grpc::StatusCode::DATA_LOSS), "DATA_LOSS");
}

}  // namespace
}  // namespace parlor
