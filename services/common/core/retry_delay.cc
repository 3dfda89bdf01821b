#include "services/common/core/retry_delay.h"

#include <string>

#include "absl/strings/cord.h"
#include "google/protobuf/duration.pb.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"

namespace parlor {
namespace {

// google.rpc.RetryInfo{Duration retry_delay = 1}, written field by field (its wire format is
// fixed by googleapis), so no googleapis protos are needed at build time.
constexpr uint32_t kRetryDelayTag = (1 << 3) | 2;  // field 1, length-delimited

std::string RetryInfoBytes(absl::Duration delay) {
  google::protobuf::Duration duration;
  const int64_t seconds = absl::IDivDuration(delay, absl::Seconds(1), &delay);
  duration.set_seconds(seconds);
  duration.set_nanos(static_cast<int32_t>(absl::ToInt64Nanoseconds(delay)));
  std::string out;
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.WriteTag(kRetryDelayTag);
    coded.WriteVarint32(static_cast<uint32_t>(duration.ByteSizeLong()));
    duration.SerializeToCodedStream(&coded);
  }
  return out;
}

}  // namespace

absl::Status WithRetryDelay(absl::Status status, absl::Duration delay) {
  if (status.ok()) return status;
  status.SetPayload(kRetryInfoTypeUrl, absl::Cord(RetryInfoBytes(delay)));
  return status;
}

std::optional<absl::Duration> RetryDelay(const absl::Status& status) {
  auto payload = status.GetPayload(kRetryInfoTypeUrl);
  if (!payload.has_value()) return std::nullopt;
  const std::string bytes(*payload);
  google::protobuf::io::CodedInputStream coded(reinterpret_cast<const uint8_t*>(bytes.data()),
                                               static_cast<int>(bytes.size()));
  uint32_t length = 0;
  google::protobuf::Duration duration;
  if (coded.ReadTag() != kRetryDelayTag || !coded.ReadVarint32(&length)) return std::nullopt;
  std::string inner;
  if (!coded.ReadString(&inner, static_cast<int>(length)) || !duration.ParseFromString(inner)) {
    return std::nullopt;
  }
  return absl::Seconds(duration.seconds()) + absl::Nanoseconds(duration.nanos());
}

}  // namespace parlor
