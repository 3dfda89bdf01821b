#include "services/common/testing/retry_info.h"

#include <memory>

#include "google/protobuf/any.pb.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/descriptor.pb.h"
#include "google/protobuf/duration.pb.h"
#include "google/protobuf/dynamic_message.h"
#include "google/protobuf/text_format.h"

namespace parlor::testing {

std::optional<absl::Duration> RetryDelayOf(const grpc::Status& status) {
  google::protobuf::FileDescriptorProto file;
  const bool parsed = google::protobuf::TextFormat::ParseFromString(
      R"pb(
        name: "parlor_test/google_rpc.proto"
        package: "google.rpc"
        dependency: "google/protobuf/any.proto"
        dependency: "google/protobuf/duration.proto"
        message_type {
          name: "Status"
          field { name: "code" number: 1 label: LABEL_OPTIONAL type: TYPE_INT32 }
          field { name: "message" number: 2 label: LABEL_OPTIONAL type: TYPE_STRING }
          field {
            name: "details"
            number: 3
            label: LABEL_REPEATED
            type: TYPE_MESSAGE
            type_name: ".google.protobuf.Any"
          }
        }
        message_type {
          name: "RetryInfo"
          field {
            name: "retry_delay"
            number: 1
            label: LABEL_OPTIONAL
            type: TYPE_MESSAGE
            type_name: ".google.protobuf.Duration"
          }
        }
      )pb",
      &file);
  if (!parsed) return std::nullopt;
  google::protobuf::DescriptorPool pool(google::protobuf::DescriptorPool::generated_pool());
  if (pool.BuildFile(file) == nullptr) return std::nullopt;
  google::protobuf::DynamicMessageFactory factory(&pool);
  std::unique_ptr<google::protobuf::Message> rpc_status(
      factory.GetPrototype(pool.FindMessageTypeByName("google.rpc.Status"))->New());
  if (!rpc_status->ParseFromString(status.error_details())) return std::nullopt;
  const google::protobuf::Reflection* reflection = rpc_status->GetReflection();
  const google::protobuf::Descriptor* descriptor = rpc_status->GetDescriptor();
  if (reflection->GetInt32(*rpc_status, descriptor->FindFieldByName("code")) !=
      status.error_code()) {
    return std::nullopt;
  }
  const google::protobuf::FieldDescriptor* details = descriptor->FindFieldByName("details");
  for (int i = 0; i < reflection->FieldSize(*rpc_status, details); ++i) {
    google::protobuf::Any any;
    any.CopyFrom(reflection->GetRepeatedMessage(*rpc_status, details, i));
    if (any.type_url() != "type.googleapis.com/google.rpc.RetryInfo") continue;
    std::unique_ptr<google::protobuf::Message> retry(
        factory.GetPrototype(pool.FindMessageTypeByName("google.rpc.RetryInfo"))->New());
    if (!retry->ParseFromString(any.value())) return std::nullopt;
    google::protobuf::Duration delay;
    delay.CopyFrom(retry->GetReflection()->GetMessage(
        *retry, retry->GetDescriptor()->FindFieldByName("retry_delay")));
    return absl::Seconds(delay.seconds()) + absl::Nanoseconds(delay.nanos());
  }
  return std::nullopt;
}

}  // namespace parlor::testing
