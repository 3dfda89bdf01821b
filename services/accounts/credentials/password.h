#ifndef PARLOR_SERVICES_ACCOUNTS_CREDENTIALS_PASSWORD_H_
#define PARLOR_SERVICES_ACCOUNTS_CREDENTIALS_PASSWORD_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace parlor::accounts {

// argon2id cost. The defaults are OWASP's minimum for argon2id (19 MiB, 2 passes, 1 lane): about
// 30 ms of one core here, which is what a guesser pays per attempt on a stolen hash.
struct PasswordHashing {
  int memory_kib = 19 * 1024;
  int iterations = 2;
  int parallelism = 1;
};

inline constexpr size_t kMinPasswordLength = 10;
inline constexpr size_t kMaxPasswordLength = 128;

// 10-128 bytes of UTF-8 (any character but NUL), and not the email address itself.
absl::Status ValidateNewPassword(absl::string_view password, absl::string_view email);

// argon2id with a fresh 16-byte random salt, as a PHC string ("$argon2id$v=19$m=...").
absl::StatusOr<std::string> HashPassword(absl::string_view password, const PasswordHashing& cost);

// True when `password` matches `encoded` (constant time in the comparison; the parameters come
// from `encoded`, so hashes made with older costs keep working).
bool VerifyPassword(absl::string_view password, const std::string& encoded);

}  // namespace parlor::accounts

#endif  // PARLOR_SERVICES_ACCOUNTS_CREDENTIALS_PASSWORD_H_
