#ifndef PARLOR_SERVICES_ACCOUNTS_ACCOUNTS_SERVER_H_
#define PARLOR_SERVICES_ACCOUNTS_ACCOUNTS_SERVER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "services/accounts/credentials/id_token.h"
#include "services/accounts/credentials/mail.h"
#include "services/accounts/domain/accounts_service.h"
#include "services/accounts/domain/credentials_service.h"
#include "services/common/server.h"

namespace parlor::accounts {

// Settings only accounts has.
struct AccountsConfig {
  // Ed25519 private key (base64 of the 32-byte seed) that signs players' access tokens.
  std::string access_token_private_key;
  AccountsOptions options;
  CredentialsOptions credentials;
  // Where one-time codes go: empty smtp_url means the logging sender (development).
  SmtpOptions smtp;
  // Sign in with Apple / Google Sign-In: this app's client ids (comma-separated; empty disables
  // the provider) and the provider's key set URL.
  std::string apple_client_ids;
  std::string apple_keys_url = "https://appleid.apple.com/auth/keys";
  std::string google_client_ids;
  std::string google_keys_url = "https://www.googleapis.com/oauth2/v3/certs";
  // How the key sets are fetched; tests pass their own.
  HttpGet http_get = &CurlHttpGet;
  // Where ExportMyData gathers the caller's games and ratings; empty: left out of the export.
  std::string sessions_address;
  std::string ratings_address;
};

ServiceHost::Identity AccountsIdentity();
void AddAccountsFlags(Flags& flags, AccountsConfig* config);
// Derives the access-token public key for local verification from the private key.
absl::Status FinalizeAccountsConfig(const AccountsConfig& config, ServerConfig& server);

// Builds store → domain → API on `host` and registers the gRPC services. The returned holder
// keeps them alive; destroy it after the host has shut down.
absl::StatusOr<std::shared_ptr<void>> InstallAccounts(
    ServiceHost& host, const AccountsConfig& config,
    AccountsService::Clock clock = [] { return absl::Now(); });

}  // namespace parlor::accounts

#endif  // PARLOR_SERVICES_ACCOUNTS_ACCOUNTS_SERVER_H_
