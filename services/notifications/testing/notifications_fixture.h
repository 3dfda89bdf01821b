#ifndef PARLOR_SERVICES_NOTIFICATIONS_TESTING_NOTIFICATIONS_FIXTURE_H_
#define PARLOR_SERVICES_NOTIFICATIONS_TESTING_NOTIFICATIONS_FIXTURE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gtest/gtest.h"
#include "parlor/notifications/v1/notifications.grpc.pb.h"
#include "pqxx/pqxx"
#include "services/common/core/crypto.h"
#include "services/common/testing/test_server.h"
#include "services/notifications/notifications_server.h"
#include "services/notifications/testing/ids.h"
#include "tests/pg/pg_test_database.h"

// The notifications service on a fresh database behind a real gRPC channel, with helpers to
// register devices and hand events over as the other services do.
namespace parlor::notifications::testing {

class NotificationsPgTest : public parlor::testing::PgTest {
 protected:
  // Override to configure the providers before the server starts.
  virtual void Configure(NotificationsConfig& config) { config.delivery.threads = 0; }

  void SetUp() override {
    PgTest::SetUp();
    Configure(config_);
    ASSERT_TRUE(FinalizeNotificationsConfig(config_).ok());
    auto started = parlor::testing::TestServer::Start(
        NotificationsIdentity(), parlor::testing::TestServerConfig(db_url(), keys_),
        [this](ServiceHost& host) { return InstallNotifications(host, config_); });
    ASSERT_TRUE(started.ok()) << started.status();
    server_ = *std::move(started);
    api_ = v1::NotificationsService::NewStub(server_->channel());
    internal_ = v1::NotificationsInternalService::NewStub(server_->channel());
  }
  void TearDown() override { server_.reset(); }

  std::string Player(const std::string& account_id) { return keys_.PlayerToken(account_id); }

  v1::RegisterDeviceResponse Register(const std::string& account_id, v1::Platform platform,
                                      const std::string& token, bool sandbox = false) {
    v1::RegisterDeviceRequest request;
    request.set_platform(platform);
    request.set_token(token);
    request.set_locale("en-GB");
    request.set_time_zone("Europe/London");
    request.set_app_id("com.parlor.app");
    request.set_sandbox(sandbox);
    v1::RegisterDeviceResponse response;
    const grpc::Status status =
        api_->RegisterDevice(parlor::testing::Bearer(Player(account_id)).get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response;
  }

  static v1::Event GameEvent(const std::string& account_id, v1::EventKind kind,
                             const std::string& game_id, int64_t version,
                             const std::string& game = "pico") {
    v1::Event event;
    event.set_dedupe_key(
        absl::StrCat(v1::EventKind_Name(kind), ":", game_id, ":", version, ":", account_id));
    event.set_account_id(account_id);
    event.set_kind(kind);
    event.set_game_id(game_id);
    event.set_game(game);
    event.set_version(version);
    event.add_opponent_names("Tess");
    return event;
  }

  grpc::Status Accept(const std::vector<v1::Event>& events,
                      v1::AcceptEventsResponse* response = nullptr) {
    v1::AcceptEventsRequest request;
    for (const v1::Event& e : events) *request.add_events() = e;
    v1::AcceptEventsResponse ignored;
    return internal_->AcceptEvents(parlor::testing::Bearer(keys_.ServiceToken("sessions")).get(),
                                   request, response != nullptr ? response : &ignored);
  }

  // The first column of the first row of `sql` as text ("" when no row).
  std::string Query(const std::string& sql) {
    pqxx::connection connection(db_url());
    pqxx::nontransaction txn(connection);
    pqxx::result result = txn.exec(sql);
    if (result.empty() || result[0][0].is_null()) return "";
    return result[0][0].as<std::string>();
  }

  parlor::testing::TestKeys keys_;
  NotificationsConfig config_;
  std::unique_ptr<parlor::testing::TestServer> server_;
  std::unique_ptr<v1::NotificationsService::Stub> api_;
  std::unique_ptr<v1::NotificationsInternalService::Stub> internal_;
};

}  // namespace parlor::notifications::testing

#endif  // PARLOR_SERVICES_NOTIFICATIONS_TESTING_NOTIFICATIONS_FIXTURE_H_
