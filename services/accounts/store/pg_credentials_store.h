#ifndef PARLOR_SERVICES_ACCOUNTS_STORE_PG_CREDENTIALS_STORE_H_
#define PARLOR_SERVICES_ACCOUNTS_STORE_PG_CREDENTIALS_STORE_H_

#include "services/accounts/store/credentials_store.h"
#include "services/common/db/pool.h"

namespace parlor::accounts {

// CredentialsStore on PostgreSQL (tables credentials, email_codes, used_id_tokens, devices,
// sessions). Blocking: call it from a worker pool.
class PgCredentialsStore : public CredentialsStore {
 public:
  explicit PgCredentialsStore(DbPool* db) : db_(db) {}

  absl::StatusOr<std::optional<CredentialRow>> FindCredential(const std::string& kind,
                                                              const std::string& subject) override;
  absl::StatusOr<std::vector<CredentialRow>> ListCredentials(
      const std::string& account_id, const std::string& session_id) override;
  absl::Status StoreLinkCode(const std::string& account_id, const std::string& session_id,
                             const std::string& email, const std::string& code_hash, absl::Time now,
                             absl::Time expire_time) override;
  absl::StatusOr<bool> StoreResetCode(const std::string& email, const std::string& code_hash,
                                      absl::Time now, absl::Time expire_time) override;
  absl::StatusOr<CodeResult> LinkEmail(const std::string& account_id, const std::string& session_id,
                                       const std::string& email, const std::string& code_hash,
                                       const std::string& password_hash, absl::Time now,
                                       int max_failed_attempts) override;
  absl::StatusOr<CodeResult> ResetPassword(const std::string& email, const std::string& code_hash,
                                           const std::string& password_hash,
                                           const std::string& device_id,
                                           const NewRefreshToken& token, absl::Time now,
                                           int max_failed_attempts) override;
  absl::StatusOr<CredentialSignIn> SignInWithCredential(const CredentialRow& credential,
                                                        const std::string& device_id,
                                                        const NewRefreshToken& token,
                                                        const std::optional<UsedIdToken>& used,
                                                        absl::Time now) override;
  absl::StatusOr<CredentialRow> LinkIdCredential(const std::string& account_id,
                                                 const std::string& session_id,
                                                 const std::string& kind,
                                                 const std::string& subject,
                                                 const std::string& email, const UsedIdToken& used,
                                                 absl::Time now) override;
  absl::Status UnlinkCredential(const std::string& account_id, const std::string& session_id,
                                const std::string& credential_id) override;
  absl::StatusOr<std::vector<DeviceRow>> ListDevices(const std::string& account_id,
                                                     const std::string& session_id) override;
  absl::Status RemoveDevice(const std::string& account_id, const std::string& session_id,
                            const std::string& device_id, absl::Time now) override;

 private:
  DbPool* db_;
};

}  // namespace parlor::accounts

#endif  // PARLOR_SERVICES_ACCOUNTS_STORE_PG_CREDENTIALS_STORE_H_
