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

absl::StatusOr<std::string> NormalizeEmail(absl::string_view email) {
  if (email.empty()) return absl::InvalidArgumentError("email is required");
  if (email.size() < 3 || email.size() > kMaxEmailLength) {
    return absl::InvalidArgumentError(absl::StrCat("email must be 3-", kMaxEmailLength,
                                                   " characters long; it has ", email.size()));
  }
  for (unsigned char c : email) {
    if (c <= 0x20 || c >= 0x7f ||
        absl::string_view("<>()[],;:\"\\").find(c) != absl::string_view::npos) {
      return absl::InvalidArgumentError(absl::StrCat(
          "email may contain only printable ASCII without spaces or <>()[],;:\"\\; found ",
          absl::ascii_isprint(c) ? absl::StrFormat("'%c'", c) : absl::StrFormat("byte 0x%02x", c)));
    }
  }
  const size_t at = email.find('@');
  if (at == absl::string_view::npos || email.find('@', at + 1) != absl::string_view::npos) {
    return absl::InvalidArgumentError("email must contain exactly one '@'");
  }
  const absl::string_view local = email.substr(0, at);
  const absl::string_view domain = email.substr(at + 1);
  if (local.empty() || local.size() > 64) {
    return absl::InvalidArgumentError("email must have 1-64 characters before the '@'");
  }
  if (domain.find('.') == absl::string_view::npos || domain.front() == '.' ||
      domain.back() == '.' || domain.find("..") != absl::string_view::npos) {
    return absl::InvalidArgumentError(
        "email must have a domain with a dot after the '@' (like example.com)");
  }
  return absl::AsciiStrToLower(email);
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
