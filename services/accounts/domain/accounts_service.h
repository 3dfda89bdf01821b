#ifndef PARLOR_SERVICES_ACCOUNTS_DOMAIN_ACCOUNTS_SERVICE_H_
#define PARLOR_SERVICES_ACCOUNTS_DOMAIN_ACCOUNTS_SERVICE_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "services/accounts/domain/account.h"
#include "services/accounts/store/accounts_store.h"
#include "services/common/core/token.h"

namespace parlor::accounts {

struct AccountsOptions {
  absl::Duration access_token_ttl = absl::Minutes(15);
  absl::Duration refresh_token_ttl = absl::Hours(24 * 30);
};

struct SessionTokens {
  std::string access_token;
  absl::Time access_token_expire_time;
  std::string refresh_token;
  absl::Time refresh_token_expire_time;
};

// The accounts domain: input rules, token minting, refresh rotation and reuse detection. It knows
// nothing of gRPC (the api layer translates) nor of SQL (the store persists). Every method
// returns a precise absl::Status for bad input and changes nothing in that case.
class AccountsService {
 public:
  using Clock = std::function<absl::Time()>;

  AccountsService(AccountsStore* store, auth::TokenSigner access_signer, Clock clock,
                  AccountsOptions options = {});

  struct SignIn {
    Account account;
    SessionTokens tokens;
    bool created = false;
  };
  absl::StatusOr<SignIn> AuthenticateDevice(const std::string& device_id,
                                            const std::optional<std::string>& display_name);
  absl::StatusOr<SessionTokens> RefreshSession(const std::string& refresh_token);
  // `caller` are the verified claims of the access token.
  absl::Status SignOut(const auth::Claims& caller, bool all_devices);
  absl::StatusOr<Account> GetMe(const auth::Claims& caller);
  absl::StatusOr<Account> UpdateProfile(const auth::Claims& caller,
                                        const std::string& display_name);
  absl::StatusOr<std::vector<Account>> BatchGetAccounts(
      const std::vector<std::string>& account_ids);

  static constexpr size_t kMaxBatchGet = 100;

 private:
  // A new refresh token (returned to the client) and what the store keeps of it.
  std::pair<std::string, NewRefreshToken> MintRefreshToken(absl::Time now) const;
  absl::StatusOr<SessionTokens> Tokens(const std::string& account_id, const std::string& session_id,
                                       const std::string& device_id,
                                       const std::string& refresh_token,
                                       const NewRefreshToken& stored, absl::Time now) const;

  AccountsStore* store_;
  auth::TokenSigner access_signer_;
  Clock clock_;
  AccountsOptions options_;
};

// "Player-" and six random letters/digits.
std::string GenerateDisplayName();

}  // namespace parlor::accounts

#endif  // PARLOR_SERVICES_ACCOUNTS_DOMAIN_ACCOUNTS_SERVICE_H_
