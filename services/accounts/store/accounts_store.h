#ifndef PARLOR_SERVICES_ACCOUNTS_STORE_ACCOUNTS_STORE_H_
#define PARLOR_SERVICES_ACCOUNTS_STORE_ACCOUNTS_STORE_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "services/accounts/domain/account.h"

namespace parlor::accounts {

// A refresh token to store: only its hash is ever kept.
struct NewRefreshToken {
  std::string hash;  // 32-byte SHA-256 of the token
  absl::Time issue_time;
  absl::Time expire_time;
};

// Persistence for accounts. Each method that changes state is one transaction. Implementations
// return absl::Status only (no exceptions), with these codes:
//   NOT_FOUND       the account does not exist
//   ALREADY_EXISTS  display name taken (case-insensitively)
//   UNAUTHENTICATED the session is revoked or does not belong to the account
//   UNAVAILABLE     database unreachable
//   INTERNAL        anything else (details logged, not returned)
class AccountsStore {
 public:
  virtual ~AccountsStore() = default;

  struct DeviceSignIn {
    Account account;
    std::string session_id;
    bool created = false;
  };
  // Finds the device's account or creates one named `requested_name` (or, if absent, the first
  // free name `generate_name` makes), opens a new session, and stores its first refresh token.
  // Before creating an account it asks `admit_new_account` (the sign-up budget): an error from
  // it is returned as is, and nothing is stored. A known device never asks.
  virtual absl::StatusOr<DeviceSignIn> AuthenticateDevice(
      const std::string& device_id, const std::optional<std::string>& requested_name,
      const std::function<std::string()>& generate_name, const NewRefreshToken& token,
      absl::Time now, const std::function<absl::Status()>& admit_new_account) = 0;

  enum class RotationOutcome {
    kRotated,  // the token was live: it is now used, `replacement` is stored
    kReused,   // the token was already used: the session is now revoked (committed)
    kUnknown,  // no such token
    kExpired,  // past its expiry
    kRevoked,  // its session was revoked earlier
  };
  struct Rotation {
    RotationOutcome outcome = RotationOutcome::kUnknown;
    std::string account_id;
    std::string session_id;
    std::string device_id;  // the device the session was opened on
  };
  virtual absl::StatusOr<Rotation> RotateRefreshToken(const std::string& presented_hash,
                                                      const NewRefreshToken& replacement,
                                                      absl::Time now) = 0;

  // Revokes one session (SignOut) or all of the account's sessions.
  virtual absl::Status RevokeSession(const std::string& account_id, const std::string& session_id,
                                     absl::Time now) = 0;
  virtual absl::Status RevokeAllSessions(const std::string& account_id, absl::Time now) = 0;

  // The account, provided `session_id` is a live session of it.
  virtual absl::StatusOr<Account> GetAccount(const std::string& account_id,
                                             const std::string& session_id) = 0;
  virtual absl::StatusOr<Account> UpdateDisplayName(const std::string& account_id,
                                                    const std::string& session_id,
                                                    const std::string& display_name,
                                                    absl::Time now) = 0;

  // Accounts by id, in the order given; unknown ids are skipped.
  virtual absl::StatusOr<std::vector<Account>> GetAccounts(
      const std::vector<std::string>& account_ids) = 0;
};

}  // namespace parlor::accounts

#endif  // PARLOR_SERVICES_ACCOUNTS_STORE_ACCOUNTS_STORE_H_
