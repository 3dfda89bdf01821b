#include "services/accounts/credentials/password.h"

#include <argon2.h>

#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "services/common/core/crypto.h"

namespace parlor::accounts {
namespace {

constexpr size_t kSaltBytes = 16;
constexpr size_t kHashBytes = 32;

}  // namespace

absl::Status ValidateNewPassword(absl::string_view password, absl::string_view email) {
  if (password.size() < kMinPasswordLength || password.size() > kMaxPasswordLength) {
    return absl::InvalidArgumentError(absl::StrCat("password must be ", kMinPasswordLength, "-",
                                                   kMaxPasswordLength, " bytes long; it has ",
                                                   password.size()));
  }
  if (password.find('\0') != absl::string_view::npos) {
    return absl::InvalidArgumentError("password must not contain a NUL byte");
  }
  if (!email.empty() && absl::EqualsIgnoreCase(password, email)) {
    return absl::InvalidArgumentError("password must not be the email address");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> HashPassword(absl::string_view password, const PasswordHashing& cost) {
  const std::string salt = RandomBytes(kSaltBytes);
  const auto t = static_cast<uint32_t>(cost.iterations);
  const auto m = static_cast<uint32_t>(cost.memory_kib);
  const auto p = static_cast<uint32_t>(cost.parallelism);
  const size_t encoded_length = argon2_encodedlen(t, m, p, kSaltBytes, kHashBytes, Argon2_id);
  std::vector<char> encoded(encoded_length);
  const int rc = argon2id_hash_encoded(t, m, p, password.data(), password.size(), salt.data(),
                                       salt.size(), kHashBytes, encoded.data(), encoded.size());
  if (rc != ARGON2_OK) {
    return absl::InternalError(absl::StrCat("argon2id failed: ", argon2_error_message(rc)));
  }
  return std::string(encoded.data());
}

bool VerifyPassword(absl::string_view password, const std::string& encoded) {
  return argon2id_verify(encoded.c_str(), password.data(), password.size()) == ARGON2_OK;
}

}  // namespace parlor::accounts
