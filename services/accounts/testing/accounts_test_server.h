#ifndef PARLOR_SERVICES_ACCOUNTS_TESTING_ACCOUNTS_TEST_SERVER_H_
#define PARLOR_SERVICES_ACCOUNTS_TESTING_ACCOUNTS_TEST_SERVER_H_

#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/time/clock.h"
#include "services/accounts/accounts_server.h"
#include "services/common/testing/test_server.h"

namespace parlor::accounts {

// The real accounts service in process, on the shared TestServer: what every test that needs
// real sign-ins, blocks or friends starts (accounts' own API tests, and the sessions,
// matchmaking and notifications tests that talk to it). Access tokens are minted with `keys`;
// `config` carries a test's own settings (identity providers, cheap password hashing) and
// `adjust_server` its server settings (trusted proxies, rate limits).
inline absl::StatusOr<std::unique_ptr<parlor::testing::TestServer>> StartTestAccounts(
    const std::string& db_url, const parlor::testing::TestKeys& keys,
    const AccountsConfig& test_config = AccountsConfig(),
    AccountsService::Clock clock = [] { return absl::Now(); },
    const std::function<void(ServerConfig&)>& adjust_server = nullptr) {
  AccountsConfig config = test_config;
  config.access_token_private_key = keys.access().private_key;
  ServerConfig server = parlor::testing::TestServerConfig(db_url, keys);
  if (adjust_server) adjust_server(server);
  if (absl::Status finalized = FinalizeAccountsConfig(config, server); !finalized.ok()) {
    return finalized;
  }
  return parlor::testing::TestServer::Start(
      AccountsIdentity(), std::move(server),
      [&config, &clock](ServiceHost& host) { return InstallAccounts(host, config, clock); });
}

}  // namespace parlor::accounts

#endif  // PARLOR_SERVICES_ACCOUNTS_TESTING_ACCOUNTS_TEST_SERVER_H_
