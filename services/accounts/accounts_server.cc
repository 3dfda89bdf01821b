#include "services/accounts/accounts_server.h"

#include <tuple>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "services/accounts/api/accounts_api.h"
#include "services/accounts/domain/revocations.h"
#include "services/accounts/store/deletion_store.h"
#include "services/accounts/store/pg_accounts_store.h"
#include "services/accounts/store/pg_credentials_store.h"
#include "services/accounts/store/pg_friends_store.h"
#include "services/accounts/store/revocations_store.h"

namespace parlor::accounts {
namespace {

// Everything one accounts server owns, destroyed together.
struct Installed {
  std::unique_ptr<PgAccountsStore> store;
  std::unique_ptr<AccountsService> domain;
  std::unique_ptr<PgCredentialsStore> credentials_store;
  std::unique_ptr<MailSender> mail;
  std::unique_ptr<CredentialsService> credentials;
  std::unique_ptr<PgFriendsStore> friends_store;
  std::unique_ptr<FriendsService> friends;
  std::unique_ptr<DeletionStore> deletion_store;
  std::unique_ptr<DeletionService> deletion;
  std::unique_ptr<ExportSources> exports;
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
  flags.String("sessions_address", &config->sessions_address,
               "sessions gRPC host:port, where ExportMyData gathers the caller's games (empty: "
               "games are left out of exports)");
  flags.String("ratings_address", &config->ratings_address,
               "ratings gRPC host:port, where ExportMyData gathers the caller's ratings (empty: "
               "ratings are left out of exports)");
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

  // Linked credentials.
  const auto attempt_flags = [&flags](absl::string_view name, absl::string_view what,
                                      RateLimit* limit) {
    flags.Int(absl::StrCat(name, "_per_minute"), &limit->per_minute,
              absl::StrCat(what,
                           " a minute allowed beyond a burst, per replica; "
                           "RESOURCE_EXHAUSTED with RetryInfo past it (0 disables)"),
              {.min = 0, .max = 1'000'000});
    flags.Int(absl::StrCat(name, "_burst"), &limit->burst,
              absl::StrCat(what, " allowed at once (0 disables)"), {.min = 0, .max = 1'000'000});
  };
  CredentialsOptions& credentials = config->credentials;
  attempt_flags("password_attempts_account", "password attempts per email address",
                &credentials.password_attempts_per_account);
  attempt_flags("password_attempts_address", "password attempts per client address",
                &credentials.password_attempts_per_address);
  attempt_flags("code_attempts_account", "emailed-code attempts per account",
                &credentials.code_attempts_per_account);
  attempt_flags("code_attempts_address", "emailed-code attempts per client address",
                &credentials.code_attempts_per_address);
  attempt_flags("code_sends_account", "codes mailed per email address",
                &credentials.code_sends_per_account);
  attempt_flags("code_sends_address", "codes mailed per client address",
                &credentials.code_sends_per_address);
  flags.Int("password_memory_kib", &credentials.password_hashing.memory_kib,
            "argon2id memory per password hash, KiB (OWASP minimum 19456)",
            {.min = 8, .max = 4 * 1024 * 1024});
  flags.Int("password_iterations", &credentials.password_hashing.iterations,
            "argon2id passes per password hash", {.min = 1, .max = 100});
  flags.Duration("email_code_ttl", &credentials.code_ttl, "how long an emailed code works",
                 absl::Minutes(1), absl::Hours(24));
  flags.String(
      "smtp_url", &config->smtp.url,
      "SMTP server for one-time codes (smtp://host:587 with STARTTLS, or smtps://host:465); "
      "empty: codes are written to the log (development only)");
  flags.String("smtp_from", &config->smtp.from, "sender address of the code mails");
  flags.String("smtp_username", &config->smtp.username, "SMTP AUTH user (empty: no AUTH)");
  flags.Secret("smtp_password", &config->smtp.password, "SMTP AUTH password");
  flags.Bool("smtp_require_tls", &config->smtp.require_tls,
             "refuse to send codes over an unencrypted SMTP connection");
  flags.String(
      "apple_client_ids", &config->apple_client_ids,
      "Sign in with Apple: this app's client ids (bundle / services ids), comma-separated; "
      "empty disables it");
  flags.String("apple_keys_url", &config->apple_keys_url, "Apple's ID-token key set (JWKS) URL");
  flags.String("google_client_ids", &config->google_client_ids,
               "Google Sign-In: this app's OAuth client ids, comma-separated; empty disables it");
  flags.String("google_keys_url", &config->google_keys_url, "Google's ID-token key set (JWKS) URL");
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
  if (!config.smtp.url.empty() && config.smtp.from.find('@') == std::string::npos) {
    return absl::InvalidArgumentError(
        "--smtp_from must be a sender address when --smtp_url is set");
  }
  if (!config.smtp.url.empty() && !absl::StartsWith(config.smtp.url, "smtp://") &&
      !absl::StartsWith(config.smtp.url, "smtps://")) {
    return absl::InvalidArgumentError("--smtp_url must start with smtp:// or smtps://");
  }
  for (const auto& [ids, url, flag] :
       {std::tuple(config.apple_client_ids, config.apple_keys_url, "--apple_keys_url"),
        std::tuple(config.google_client_ids, config.google_keys_url, "--google_keys_url")}) {
    if (ids.empty()) continue;
    if (absl::Status valid = ValidateKeysUrl(url); !valid.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(flag, ": ", valid.message()));
    }
  }
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
  installed->domain =
      std::make_unique<AccountsService>(installed->store.get(), *std::move(signer), clock,
                                        config.options, &host.metrics().registry());
  installed->credentials_store = std::make_unique<PgCredentialsStore>(&host.db());
  if (config.smtp.url.empty()) {
    installed->mail = std::make_unique<LoggingMailSender>();
  } else {
    installed->mail = std::make_unique<SmtpMailSender>(config.smtp);
  }
  const auto verifier = [&](const std::string& ids, const std::string& url,
                            IdTokenProvider (*provider)(
                                std::vector<std::string>)) -> std::unique_ptr<IdTokenVerifier> {
    std::vector<std::string> client_ids = absl::StrSplit(ids, ',', absl::SkipWhitespace());
    if (client_ids.empty()) return nullptr;
    auto keys = std::make_shared<JwksCache>(url, config.http_get, clock, JwksCache::Options{});
    return std::make_unique<IdTokenVerifier>(provider(std::move(client_ids)), std::move(keys));
  };
  installed->credentials = std::make_unique<CredentialsService>(
      installed->credentials_store.get(), installed->domain.get(), installed->mail.get(),
      verifier(config.apple_client_ids, config.apple_keys_url, &AppleProvider),
      verifier(config.google_client_ids, config.google_keys_url, &GoogleProvider), clock,
      config.credentials);
  installed->friends_store = std::make_unique<PgFriendsStore>(&host.db());
  installed->friends = std::make_unique<FriendsService>(installed->friends_store.get(), clock);
  installed->deletion_store = std::make_unique<DeletionStore>(&host.db());
  installed->deletion = std::make_unique<DeletionService>(installed->deletion_store.get(), clock);
  installed->exports = std::make_unique<ExportSources>(
      config.sessions_address.empty() ? nullptr : host.InternalChannel(config.sessions_address),
      config.ratings_address.empty() ? nullptr : host.InternalChannel(config.ratings_address));
  installed->api = std::make_unique<AccountsApi>(
      installed->domain.get(), installed->credentials.get(), installed->friends.get(),
      installed->deletion.get(), &host.rpc(), installed->exports.get());
  installed->internal_api = std::make_unique<AccountsInternalApi>(
      installed->domain.get(), installed->revocations.get(), installed->friends.get(),
      installed->deletion.get(), &host.rpc());
  host.AddService(installed->api.get(), "parlor.accounts.v1.AccountsService");
  host.AddService(installed->internal_api.get(), "parlor.accounts.v1.AccountsInternalService");
  return std::shared_ptr<void>(installed);
}

}  // namespace parlor::accounts
