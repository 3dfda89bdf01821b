#ifndef PARLOR_SERVICES_ACCOUNTS_DOMAIN_ACCOUNTS_SERVICE_H_
#define PARLOR_SERVICES_ACCOUNTS_DOMAIN_ACCOUNTS_SERVICE_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/registry.h"
#include "services/accounts/domain/account.h"
#include "services/accounts/domain/sign_in_metrics.h"
#include "services/accounts/store/accounts_store.h"
#include "services/common/core/rate_limit.h"
#include "services/common/core/token.h"

namespace parlor::accounts {

struct AccountsOptions {
  absl::Duration access_token_ttl = absl::Minutes(15);
  absl::Duration refresh_token_ttl = absl::Hours(24 * 30);
  // New accounts (the first sign-in of a device), per replica: per client address (an IPv6
  // client by its /64) and in total. Beyond them AuthenticateDevice of an unknown device answers
  // RESOURCE_EXHAUSTED with a retry delay and creates nothing; known devices still sign in.
  // A rate of 0 disables.
  RateLimit signups_per_address = {};
  RateLimit signups_total = {};
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

  // `registry` may be null (no metrics).
  AccountsService(AccountsStore* store, auth::TokenSigner access_signer, Clock clock,
                  AccountsOptions options = {}, prometheus::Registry* registry = nullptr);

  struct SignIn {
    Account account;
    SessionTokens tokens;
    bool created = false;
  };
  // `client_address` is where the call came from (CallContext::client_address): what the
  // per-address sign-up budget counts.
  absl::StatusOr<SignIn> AuthenticateDevice(const std::string& device_id,
                                            const std::optional<std::string>& display_name,
                                            const std::string& client_address = "");
  absl::StatusOr<SessionTokens> RefreshSession(const std::string& refresh_token);
  // `caller` are the verified claims of the access token.
  absl::Status SignOut(const auth::Claims& caller, bool all_devices);
  absl::StatusOr<Account> GetMe(const auth::Claims& caller);
  absl::StatusOr<Account> UpdateProfile(const auth::Claims& caller,
                                        const std::string& display_name);
  absl::StatusOr<std::vector<Account>> BatchGetAccounts(
      const std::vector<std::string>& account_ids);

  static constexpr size_t kMaxBatchGet = 100;

  // Session minting, shared with the other ways of signing in (CredentialsService).
  // A new refresh token (returned to the client) and what the store keeps of it.
  std::pair<std::string, NewRefreshToken> MintRefreshToken(absl::Time now) const;
  absl::StatusOr<SessionTokens> Tokens(const std::string& account_id, const std::string& session_id,
                                       const std::string& device_id,
                                       const std::string& refresh_token,
                                       const NewRefreshToken& stored, absl::Time now) const;
  SignInMetrics& sign_in_metrics() { return sign_in_metrics_; }

 private:
  // OK when one more account may be created for `client_address` now (and counts it).
  absl::Status AdmitSignUp(const std::string& client_address, absl::Time now);

  AccountsStore* store_;
  auth::TokenSigner access_signer_;
  Clock clock_;
  AccountsOptions options_;
  RateLimiter signups_by_address_;
  RateLimiter signups_total_;
  SignInMetrics sign_in_metrics_;
  prometheus::Counter* signups_created_ = nullptr;
  prometheus::Family<prometheus::Counter>* signups_refused_ = nullptr;
};

// "Player-" and six random letters/digits.
std::string GenerateDisplayName();

}  // namespace parlor::accounts

#endif  // PARLOR_SERVICES_ACCOUNTS_DOMAIN_ACCOUNTS_SERVICE_H_
