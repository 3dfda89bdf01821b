#ifndef PARLOR_SERVICES_ACCOUNTS_STORE_PG_ACCOUNTS_STORE_H_
#define PARLOR_SERVICES_ACCOUNTS_STORE_PG_ACCOUNTS_STORE_H_

#include "services/accounts/store/accounts_store.h"
#include "services/common/db/pool.h"

namespace parlor::accounts {

// AccountsStore on PostgreSQL (schema `accounts`, see migrations/accounts/). Blocking: call it
// from a worker pool.
class PgAccountsStore : public AccountsStore {
 public:
  explicit PgAccountsStore(DbPool* db) : db_(db) {}

  absl::StatusOr<DeviceSignIn> AuthenticateDevice(
      const std::string& device_id, const std::optional<std::string>& requested_name,
      const std::function<std::string()>& generate_name, const NewRefreshToken& token,
      absl::Time now, const std::function<absl::Status()>& admit_new_account) override;
  absl::StatusOr<Rotation> RotateRefreshToken(const std::string& presented_hash,
                                              const NewRefreshToken& replacement,
                                              absl::Time now) override;
  absl::Status RevokeSession(const std::string& account_id, const std::string& session_id,
                             absl::Time now) override;
  absl::Status RevokeAllSessions(const std::string& account_id, absl::Time now) override;
  absl::StatusOr<Account> GetAccount(const std::string& account_id,
                                     const std::string& session_id) override;
  absl::StatusOr<Account> UpdateDisplayName(const std::string& account_id,
                                            const std::string& session_id,
                                            const std::string& display_name,
                                            absl::Time now) override;
  absl::StatusOr<std::vector<Account>> GetAccounts(
      const std::vector<std::string>& account_ids) override;

 private:
  DbPool* db_;
};

}  // namespace parlor::accounts

#endif  // PARLOR_SERVICES_ACCOUNTS_STORE_PG_ACCOUNTS_STORE_H_
