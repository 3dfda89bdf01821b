#ifndef PARLOR_SERVICES_SESSIONS_TESTING_SESSIONS_TEST_SERVER_H_
#define PARLOR_SERVICES_SESSIONS_TESTING_SESSIONS_TEST_SERVER_H_

#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "parlor/sessions/v1/sessions.grpc.pb.h"
#include "services/common/testing/test_server.h"
#include "services/sessions/sessions_server.h"
#include "tests/pg/pg_test_database.h"

namespace parlor::sessions {

// The settings the sessions in-process tests share: no sweeper and no outbox dispatcher (a test
// that needs them drives them), page tokens keyed by `page_token_secret`.
inline SessionsConfig TestSessionsConfig(const std::string& page_token_secret) {
  SessionsConfig config;
  config.page_token_secret = page_token_secret;
  config.sweep_interval = absl::ZeroDuration();
  config.dispatch_interval = absl::ZeroDuration();
  return config;
}

// The fixture of the sessions tests that call one server through gRPC: the keys, the server (the
// shared TestServer on the test's fresh database) and its two stubs. A test's SetUp calls
// PgTest::SetUp and then StartSessions.
class SessionsServerPgTest : public parlor::testing::PgTest {
 protected:
  // Starts the server with `config` and `clock`; a failure fails the test.
  void StartSessions(
      const SessionsConfig& config,
      std::function<absl::Time()> clock = [] { return absl::Now(); }) {
    auto server = parlor::testing::TestServer::Start(
        SessionsIdentity(), parlor::testing::TestServerConfig(db_url(), keys_),
        [&config, &clock](ServiceHost& host) { return InstallSessions(host, config, clock); });
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    sessions_ = v1::SessionsService::NewStub(server_->channel());
    internal_ = v1::SessionsInternalService::NewStub(server_->channel());
  }

  parlor::testing::TestKeys keys_;
  std::unique_ptr<parlor::testing::TestServer> server_;
  std::unique_ptr<v1::SessionsService::Stub> sessions_;
  std::unique_ptr<v1::SessionsInternalService::Stub> internal_;
};

}  // namespace parlor::sessions

#endif  // PARLOR_SERVICES_SESSIONS_TESTING_SESSIONS_TEST_SERVER_H_
