#ifndef PARLOR_SERVICES_ACCOUNTS_STORE_CREDENTIALS_STORE_H_
#define PARLOR_SERVICES_ACCOUNTS_STORE_CREDENTIALS_STORE_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "services/accounts/domain/account.h"
#include "services/accounts/store/accounts_store.h"

namespace parlor::accounts {

// A linked credential as stored. `kind` is "email", "apple" or "google".
struct CredentialRow {
  std::string credential_id;
  std::string account_id;
  std::string kind;
  std::string email;
  absl::Time create_time;
  absl::Time last_used_time;
  std::string password_hash;  // FindCredential only, email credentials only
};

struct DeviceRow {
  std::string device_id;  // secret: never leaves the service
  absl::Time create_time;
  absl::Time last_seen_time;
};

// How a one-time code compared with the one stored.
enum class CodeCheck {
  kAccepted,   // matched: the code is used up and the change is committed
  kMissing,    // no code for this account, purpose and email
  kExpired,    // past its expiry
  kExhausted,  // too many wrong codes were tried against it
  kWrong,      // wrong code: one more failed attempt is committed
};

// A sign-in by credential on a device: what the caller needs to mint tokens.
struct CredentialSignIn {
  Account account;
  std::string session_id;
};

// An ID token to record as used, so that it is accepted once.
struct UsedIdToken {
  std::string token_hash;  // SHA-256 of the token
  std::string provider;
  absl::Time expire_time;
};

// Persistence of linked credentials, one-time codes and devices. Each state change is one
// transaction; every `session_id` is checked to be a live session of `account_id` (UNAUTHENTICATED
// otherwise). Errors: ALREADY_EXISTS when a credential belongs to another account;
// FAILED_PRECONDITION for refusals the message explains; NOT_FOUND; UNAVAILABLE; INTERNAL.
class CredentialsStore {
 public:
  virtual ~CredentialsStore() = default;

  // The credential of `kind` with `subject` (lower-cased email, or the provider's sub).
  virtual absl::StatusOr<std::optional<CredentialRow>> FindCredential(
      const std::string& kind, const std::string& subject) = 0;
  virtual absl::StatusOr<std::vector<CredentialRow>> ListCredentials(
      const std::string& account_id, const std::string& session_id) = 0;

  // Stores the code for linking `email` to the account, replacing an older one. Refuses when the
  // email is linked to any account or the account already has an email.
  virtual absl::Status StoreLinkCode(const std::string& account_id, const std::string& session_id,
                                     const std::string& email, const std::string& code_hash,
                                     absl::Time now, absl::Time expire_time) = 0;
  // Stores a password-reset code for the account `email` is linked to; false when none is.
  virtual absl::StatusOr<bool> StoreResetCode(const std::string& email,
                                              const std::string& code_hash, absl::Time now,
                                              absl::Time expire_time) = 0;

  struct CodeResult {
    CodeCheck check = CodeCheck::kMissing;
    int failed_attempts = 0;   // after this attempt
    CredentialRow credential;  // kAccepted, LinkEmail
    CredentialSignIn sign_in;  // kAccepted, ResetPassword
  };
  // Checks the link code and, when it matches, links email + password.
  virtual absl::StatusOr<CodeResult> LinkEmail(const std::string& account_id,
                                               const std::string& session_id,
                                               const std::string& email,
                                               const std::string& code_hash,
                                               const std::string& password_hash, absl::Time now,
                                               int max_failed_attempts) = 0;
  // Checks the reset code and, when it matches, sets the password, revokes every session of the
  // account and signs `device_id` in with `token`.
  virtual absl::StatusOr<CodeResult> ResetPassword(const std::string& email,
                                                   const std::string& code_hash,
                                                   const std::string& password_hash,
                                                   const std::string& device_id,
                                                   const NewRefreshToken& token, absl::Time now,
                                                   int max_failed_attempts) = 0;

  // Signs `device_id` in to the credential's account: adds the device (refused when it belongs
  // to another account or was removed), opens a session with `token`, notes the credential's
  // use and, if given, records `used` (UNAUTHENTICATED when that token was used before).
  virtual absl::StatusOr<CredentialSignIn> SignInWithCredential(
      const CredentialRow& credential, const std::string& device_id, const NewRefreshToken& token,
      const std::optional<UsedIdToken>& used, absl::Time now) = 0;

  // Links an Apple or Google credential; records `used`.
  virtual absl::StatusOr<CredentialRow> LinkIdCredential(
      const std::string& account_id, const std::string& session_id, const std::string& kind,
      const std::string& subject, const std::string& email, const UsedIdToken& used,
      absl::Time now) = 0;

  // Refuses to unlink the account's last credential.
  virtual absl::Status UnlinkCredential(const std::string& account_id,
                                        const std::string& session_id,
                                        const std::string& credential_id) = 0;

  virtual absl::StatusOr<std::vector<DeviceRow>> ListDevices(const std::string& account_id,
                                                             const std::string& session_id) = 0;
  // Marks the device removed and revokes its sessions; refuses to remove the last device of an
  // account without credentials.
  virtual absl::Status RemoveDevice(const std::string& account_id, const std::string& session_id,
                                    const std::string& device_id, absl::Time now) = 0;
};

}  // namespace parlor::accounts

#endif  // PARLOR_SERVICES_ACCOUNTS_STORE_CREDENTIALS_STORE_H_
