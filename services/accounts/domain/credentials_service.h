#ifndef PARLOR_SERVICES_ACCOUNTS_DOMAIN_CREDENTIALS_SERVICE_H_
#define PARLOR_SERVICES_ACCOUNTS_DOMAIN_CREDENTIALS_SERVICE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "services/accounts/credentials/id_token.h"
#include "services/accounts/credentials/mail.h"
#include "services/accounts/credentials/password.h"
#include "services/accounts/domain/accounts_service.h"
#include "services/accounts/store/credentials_store.h"
#include "services/common/core/rate_limit.h"
#include "services/common/core/token.h"

namespace parlor::accounts {

struct CredentialsOptions {
  PasswordHashing password_hashing;
  // How long an emailed code works, and how many wrong codes kill it.
  absl::Duration code_ttl = absl::Minutes(15);
  int max_code_failures = 5;
  // Password guesses (AuthenticateEmail), per email address and per client address (an IPv6
  // client by its /64), per replica. A rate of 0 disables.
  RateLimit password_attempts_per_account = {.per_minute = 1, .burst = 5};
  RateLimit password_attempts_per_address = {.per_minute = 10, .burst = 20};
  // Code guesses (LinkEmailPassword, ResetPassword), per account / email and per address.
  RateLimit code_attempts_per_account = {.per_minute = 1, .burst = 5};
  RateLimit code_attempts_per_address = {.per_minute = 10, .burst = 20};
  // Codes mailed (SendLinkEmailCode, SendPasswordResetCode), per email and per address: nobody
  // can make the server bomb an inbox.
  RateLimit code_sends_per_account = {.per_minute = 1, .burst = 3};
  RateLimit code_sends_per_address = {.per_minute = 5, .burst = 10};
};

// A device as the player sees it.
struct DeviceInfo {
  std::string device_handle;  // DeviceHandle(device_id)
  absl::Time create_time;
  absl::Time last_seen_time;
  bool current = false;
};

// 16 hex characters of SHA-256 of the device id: names a device without revealing its secret id.
std::string DeviceHandle(absl::string_view device_id);

// Linked credentials (email + password with emailed codes, Sign in with Apple, Google Sign-In),
// recovery on a new device, and device management. Input is checked before anything else, so bad
// input changes nothing and spends no attempt.
class CredentialsService {
 public:
  using Clock = std::function<absl::Time()>;
  // `apple` / `google` may be null (provider not configured). `sessions` mints the tokens and
  // counts sign-ins.
  CredentialsService(CredentialsStore* store, AccountsService* sessions, MailSender* mail,
                     std::unique_ptr<IdTokenVerifier> apple,
                     std::unique_ptr<IdTokenVerifier> google, Clock clock,
                     CredentialsOptions options = {});

  absl::StatusOr<absl::Time> SendLinkEmailCode(const auth::Claims& caller, const std::string& email,
                                               const std::string& client_address);
  absl::StatusOr<CredentialRow> LinkEmailPassword(const auth::Claims& caller,
                                                  const std::string& email, const std::string& code,
                                                  const std::string& password,
                                                  const std::string& client_address);
  absl::StatusOr<AccountsService::SignIn> AuthenticateEmail(const std::string& email,
                                                            const std::string& password,
                                                            const std::string& device_id,
                                                            const std::string& client_address);
  absl::StatusOr<absl::Time> SendPasswordResetCode(const std::string& email,
                                                   const std::string& client_address);
  absl::StatusOr<AccountsService::SignIn> ResetPassword(const std::string& email,
                                                        const std::string& code,
                                                        const std::string& new_password,
                                                        const std::string& device_id,
                                                        const std::string& client_address);
  // `provider` is "apple" or "google".
  absl::StatusOr<AccountsService::SignIn> AuthenticateIdToken(const std::string& provider,
                                                              const std::string& id_token,
                                                              const std::string& nonce,
                                                              const std::string& device_id);
  absl::StatusOr<CredentialRow> LinkIdToken(const auth::Claims& caller, const std::string& provider,
                                            const std::string& id_token, const std::string& nonce);
  absl::StatusOr<std::vector<CredentialRow>> ListCredentials(const auth::Claims& caller);
  absl::Status UnlinkCredential(const auth::Claims& caller, const std::string& credential_id);
  absl::StatusOr<std::vector<DeviceInfo>> ListDevices(const auth::Claims& caller);
  absl::Status RemoveDevice(const auth::Claims& caller, const std::string& device_handle);

 private:
  // RESOURCE_EXHAUSTED (with a retry delay) when `key` or `client_address` is over its limit.
  absl::Status Admit(absl::string_view what, RateLimiter& per_account, const std::string& key,
                     RateLimiter& per_address, const std::string& client_address, absl::Time now);
  absl::StatusOr<absl::Time> SendCode(const std::string& email, const std::string& purpose,
                                      const std::string& code, absl::Time now);
  absl::Status CodeRefusal(const std::string& method, CodeCheck check, int failed_attempts);
  // The verifier of a provider named in a request, or why there is none.
  absl::StatusOr<const IdTokenVerifier*> Verifier(const std::string& provider) const;
  absl::StatusOr<AccountsService::SignIn> FinishSignIn(const CredentialRow& credential,
                                                       const std::string& method,
                                                       const std::string& device_id,
                                                       const std::optional<UsedIdToken>& used,
                                                       absl::Time now);

  CredentialsStore* store_;
  AccountsService* sessions_;
  MailSender* mail_;
  std::unique_ptr<IdTokenVerifier> apple_;
  std::unique_ptr<IdTokenVerifier> google_;
  Clock clock_;
  CredentialsOptions options_;
  // Verified against when the email is unknown, so that the answer takes as long either way.
  std::string decoy_hash_;
  RateLimiter password_by_account_;
  RateLimiter password_by_address_;
  RateLimiter codes_by_account_;
  RateLimiter codes_by_address_;
  RateLimiter sends_by_account_;
  RateLimiter sends_by_address_;
};

// The 6-digit code mailed, and the hash the store keeps of it.
std::string GenerateEmailCode();
std::string EmailCodeHash(absl::string_view purpose, absl::string_view email,
                          absl::string_view code);

}  // namespace parlor::accounts

#endif  // PARLOR_SERVICES_ACCOUNTS_DOMAIN_CREDENTIALS_SERVICE_H_
