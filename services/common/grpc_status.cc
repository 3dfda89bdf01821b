#include "services/common/grpc_status.h"

#include <vector>

#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/any.pb.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "services/common/core/logging.h"

namespace parlor {
namespace {

// google.rpc.Status is written field by field (its wire format is fixed by googleapis:
// Status{int32 code = 1; string message = 2; repeated Any details = 3}), so no googleapis protos
// are needed at build time.
constexpr uint32_t kVarintField = 0;
constexpr uint32_t kBytesField = 2;
constexpr uint32_t Tag(uint32_t field, uint32_t wire_type) { return (field << 3) | wire_type; }

std::string RpcStatusBytes(int code, const std::string& message,
                           const std::vector<google::protobuf::Any>& details) {
  std::string out;
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.WriteTag(Tag(1, kVarintField));
    coded.WriteVarint32(static_cast<uint32_t>(code));
    coded.WriteTag(Tag(2, kBytesField));
    coded.WriteVarint32(static_cast<uint32_t>(message.size()));
    coded.WriteString(message);
    for (const google::protobuf::Any& detail : details) {
      coded.WriteTag(Tag(3, kBytesField));
      coded.WriteVarint32(static_cast<uint32_t>(detail.ByteSizeLong()));
      detail.SerializeToCodedStream(&coded);
    }
  }
  return out;
}

}  // namespace

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  const auto code = static_cast<grpc::StatusCode>(status.code());
  switch (status.code()) {
    case absl::StatusCode::kInternal:
    case absl::StatusCode::kUnknown:
    case absl::StatusCode::kDataLoss: {
      const std::string& request_id = CurrentRequestId();
      return grpc::Status(code, request_id.empty()
                                    ? std::string("internal error")
                                    : absl::StrCat("internal error (request id ", request_id, ")"));
    }
    default: {
      std::string message(status.message());
      std::vector<google::protobuf::Any> details;
      status.ForEachPayload([&details](absl::string_view type_url, const absl::Cord& value) {
        if (!absl::StartsWith(type_url, kDetailTypeUrlPrefix)) return;
        google::protobuf::Any& detail = details.emplace_back();
        detail.set_type_url(std::string(type_url));
        detail.set_value(std::string(value));
      });
      if (details.empty()) return grpc::Status(code, std::move(message));
      std::string bytes = RpcStatusBytes(static_cast<int>(code), message, details);
      return grpc::Status(code, std::move(message), std::move(bytes));
    }
  }
}

const char* GrpcCodeName(grpc::StatusCode code) {
  switch (code) {
    case grpc::StatusCode::OK:
      return "OK";
    case grpc::StatusCode::CANCELLED:
      return "CANCELLED";
    case grpc::StatusCode::UNKNOWN:
      return "UNKNOWN";
    case grpc::StatusCode::INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND:
      return "NOT_FOUND";
    case grpc::StatusCode::ALREADY_EXISTS:
      return "ALREADY_EXISTS";
    case grpc::StatusCode::PERMISSION_DENIED:
      return "PERMISSION_DENIED";
    case grpc::StatusCode::UNAUTHENTICATED:
      return "UNAUTHENTICATED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION:
      return "FAILED_PRECONDITION";
    case grpc::StatusCode::ABORTED:
      return "ABORTED";
    case grpc::StatusCode::OUT_OF_RANGE:
      return "OUT_OF_RANGE";
    case grpc::StatusCode::UNIMPLEMENTED:
      return "UNIMPLEMENTED";
    case grpc::StatusCode::INTERNAL:
      return "INTERNAL";
    case grpc::StatusCode::UNAVAILABLE:
      return "UNAVAILABLE";
    case grpc::StatusCode::DATA_LOSS:
      return "DATA_LOSS";
    default:
      return "UNKNOWN";
  }
}

}  // namespace parlor
