#include "services/accounts/domain/validation.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace parlor::accounts {

absl::Status ValidateDisplayName(absl::string_view name) {
  if (name.size() < kMinDisplayNameLength || name.size() > kMaxDisplayNameLength) {
    return absl::InvalidArgumentError(absl::StrCat("display_name must be ", kMinDisplayNameLength,
                                                   "-", kMaxDisplayNameLength,
                                                   " characters long; it has ", name.size()));
  }
  for (unsigned char c : name) {
    if (!absl::ascii_isalnum(c) && c != ' ' && c != '_' && c != '-') {
      return absl::InvalidArgumentError(absl::StrCat(
          "display_name may contain only letters A-Z/a-z, digits, space, '_' and '-'; found ",
          absl::ascii_isprint(c) ? absl::StrFormat("'%c'", c) : absl::StrFormat("byte 0x%02x", c)));
    }
  }
  if (name.front() == ' ' || name.back() == ' ') {
    return absl::InvalidArgumentError("display_name must not start or end with a space");
  }
  return absl::OkStatus();
}

absl::Status ValidateDeviceId(absl::string_view device_id) {
  if (device_id.empty()) {
    return absl::InvalidArgumentError(
        "device_id is required: send a stable random id generated once per app install");
  }
  if (device_id.size() < kMinDeviceIdLength || device_id.size() > kMaxDeviceIdLength) {
    return absl::InvalidArgumentError(absl::StrCat("device_id must be ", kMinDeviceIdLength, "-",
                                                   kMaxDeviceIdLength, " characters long; it has ",
                                                   device_id.size()));
  }
  for (unsigned char c : device_id) {
    if (c <= 0x20 || c >= 0x7f) {
      return absl::InvalidArgumentError(
          "device_id may contain only printable ASCII characters without spaces");
    }
  }
  return absl::OkStatus();
}

bool IsAccountId(absl::string_view id) {
  if (id.size() != 36) return false;
  for (size_t i = 0; i < id.size(); ++i) {
    const char c = id[i];
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (c != '-') return false;
    } else if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
      return false;
    }
  }
  return true;
}

}  // namespace parlor::accounts
