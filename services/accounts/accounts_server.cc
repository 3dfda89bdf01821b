#include "services/accounts/accounts_server.h"

#include "absl/strings/str_cat.h"
#include "services/accounts/api/accounts_api.h"
#include "services/accounts/domain/revocations.h"
#include "services/accounts/store/pg_accounts_store.h"
#include "services/accounts/store/revocations_store.h"

namespace parlor::accounts {
namespace {

// Everything one accounts server owns, destroyed together.
struct Installed {
  std::unique_ptr<PgAccountsStore> store;
  std::unique_ptr<AccountsService> domain;
  std::unique_ptr<RevocationsStore> revocations_store;
  std::unique_ptr<Revocations> revocations;
  std::unique_ptr<AccountsApi> api;
  std::unique_ptr<AccountsInternalApi> internal_api;
};

}  // namespace

ServiceHost::Identity AccountsIdentity() {
  return {.name = "accounts", .version = PARLOR_VERSION, .schema = "accounts"};
}

void AddAccountsFlags(Flags& flags, AccountsConfig* config) {
  flags.Secret("access_token_private_key", &config->access_token_private_key,
               "Ed25519 private key (base64 32-byte seed) signing access tokens; make one with "
               "`parlor-accounts keygen`",
               /*required=*/true);
  flags.Duration("access_token_ttl", &config->options.access_token_ttl,
                 "lifetime of an access token", absl::Minutes(1), absl::Hours(1));
  flags.Duration("refresh_token_ttl", &config->options.refresh_token_ttl,
                 "lifetime of an unused refresh token", absl::Hours(1), absl::Hours(24 * 365));
  // The sign-up budget: new accounts per client address (see --trusted_proxies) and in total.
  const auto signup_flags = [&flags](absl::string_view scope, absl::string_view what,
                                     RateLimit* limit) {
    flags.Int(absl::StrCat("signup_", scope, "_per_minute"), &limit->per_minute,
              absl::StrCat("new accounts a minute allowed ", what,
                           ", beyond a burst; RESOURCE_EXHAUSTED with RetryInfo past it (0 "
                           "disables)"),
              {.min = 0, .max = 1'000'000});
    flags.Int(absl::StrCat("signup_", scope, "_burst"), &limit->burst,
              absl::StrCat("new accounts allowed at once ", what, " (0 disables)"),
              {.min = 0, .max = 1'000'000});
  };
  signup_flags("address", "per client address (an IPv6 client per /64), per replica",
               &config->options.signups_per_address);
  signup_flags("total", "in total, per replica", &config->options.signups_total);
}

absl::Status FinalizeAccountsConfig(const AccountsConfig& config, ServerConfig& server) {
  absl::StatusOr<std::string> public_key = auth::PublicKeyFor(config.access_token_private_key);
  if (!public_key.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--access_token_private_key: ", public_key.status().message()));
  }
  if (!server.access_token_public_key.empty() && server.access_token_public_key != *public_key) {
    return absl::InvalidArgumentError(
        "--access_token_public_key does not belong to --access_token_private_key");
  }
  server.access_token_public_key = *public_key;
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<void>> InstallAccounts(ServiceHost& host,
                                                      const AccountsConfig& config,
                                                      AccountsService::Clock clock) {
  absl::StatusOr<auth::TokenSigner> signer =
      auth::TokenSigner::Create(auth::TokenKind::kAccess, config.access_token_private_key);
  if (!signer.ok()) return signer.status();
  auto installed = std::make_shared<Installed>();
  installed->store = std::make_unique<PgAccountsStore>(&host.db());
  installed->revocations_store = std::make_unique<RevocationsStore>(&host.db());
  installed->revocations = std::make_unique<Revocations>(installed->revocations_store.get(), clock);
  installed->domain = std::make_unique<AccountsService>(installed->store.get(), *std::move(signer),
                                                        std::move(clock), config.options,
                                                        &host.metrics().registry());
  installed->api = std::make_unique<AccountsApi>(installed->domain.get(), &host.rpc());
  installed->internal_api = std::make_unique<AccountsInternalApi>(
      installed->domain.get(), installed->revocations.get(), &host.rpc());
  host.AddService(installed->api.get(), "parlor.accounts.v1.AccountsService");
  host.AddService(installed->internal_api.get(), "parlor.accounts.v1.AccountsInternalService");
  return std::shared_ptr<void>(installed);
}

}  // namespace parlor::accounts
