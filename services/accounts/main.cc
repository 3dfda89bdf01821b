// parlor-accounts: device sign-in, sessions and profiles.
//
//   parlor-accounts [serve] --db_url=... --access_token_private_key=...   run the service
//   parlor-accounts migrate --db_url=...                                  apply migrations, exit
//   parlor-accounts keygen                                                print a new key pair
//
// Every flag can also come from the environment (PARLOR_<FLAG>); see --help.
#include <cstdio>
#include <cstring>

#include "services/accounts/accounts_server.h"
#include "services/common/core/token.h"

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "keygen") == 0) {
    // For development and for creating the Kubernetes Secret; the private key signs player tokens.
    const parlor::auth::KeyPairBase64 keys = parlor::auth::GenerateKeyPair();
    std::printf("PARLOR_ACCESS_TOKEN_PRIVATE_KEY=%s\nPARLOR_ACCESS_TOKEN_PUBLIC_KEY=%s\n",
                keys.private_key.c_str(), keys.public_key.c_str());
    return 0;
  }
  parlor::accounts::AccountsConfig accounts_config;
  // In `migrate` mode the signing key is irrelevant; do not make the Job carry it.
  const bool migrate = argc >= 2 && std::strcmp(argv[1], "migrate") == 0;
  return parlor::RunServiceMain(
      argc, argv,
      parlor::ServiceMain{
          .identity = parlor::accounts::AccountsIdentity(),
          .add_flags =
              [&](parlor::Flags& flags) {
                if (!migrate) parlor::accounts::AddAccountsFlags(flags, &accounts_config);
              },
          .server_defaults = nullptr,
          .finalize_config =
              [&](parlor::ServerConfig& server) {
                if (migrate) return absl::OkStatus();
                return parlor::accounts::FinalizeAccountsConfig(accounts_config, server);
              },
          .make_services =
              [&](parlor::ServiceHost& host) {
                return parlor::accounts::InstallAccounts(host, accounts_config);
              },
      });
}
