// Delivery over the wire: the service's real APNs and FCM senders (libcurl, HTTP/2, TLS) against
// local fake providers that check what Apple and Google check (provider-token and OAuth JWT
// signatures, headers, payloads) and answer success, dead token, 429 with Retry-After, 5xx and
// bad request. Checks what each provider received, the retries, token removal and the metrics.
#include <cstdlib>
#include <map>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/notifications/testing/fake_providers.h"
#include "services/notifications/testing/notifications_fixture.h"

namespace parlor::notifications {
namespace {

using ::parlor::testing::Bearer;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::NewUuid;

using Request = google::protobuf::Struct;

double Number(const Request& r, const std::string& key) {
  auto found = r.fields().find(key);
  return found == r.fields().end() ? 0 : found->second.number_value();
}

std::string Header(const Request& r, const std::string& name) {
  return json::String(json::Object(r, "headers"), name);
}

class PushE2ePgTest : public testing::NotificationsPgTest {
 protected:
  void Configure(NotificationsConfig& config) override {
    // The Python fake is the reference checker. PARLOR_FAKE_PUSH_PROVIDER (the path of
    // parlor-fake-push-provider) runs the same test against the load tool's native fake instead,
    // to check that it answers and checks alike.
    const char* native = std::getenv("PARLOR_FAKE_PUSH_PROVIDER");
    auto fake = native != nullptr && *native != '\0'
                    ? testing::FakeProviders::Start(native, {"--log_requests"})
                    : testing::FakeProviders::Start(PARLOR_SOURCE_DIR
                                                    "/services/notifications/testing/"
                                                    "fake_push_server.py");
    ASSERT_TRUE(fake.ok()) << fake.status();
    fake_ = *std::move(fake);
    fake_->Configure(config);
    config.delivery.threads = 2;
    config.delivery.poll_interval = absl::Milliseconds(50);
    config.delivery.backoff_base = absl::Milliseconds(100);
    config.delivery.backoff_cap = absl::Milliseconds(400);
    config.delivery.rejected_attempts = 3;
  }
  void TearDown() override {
    NotificationsPgTest::TearDown();  // the senders stop before the fake does
    fake_.reset();
  }

  // Requests about one device token (APNs: in the path; FCM: in the message).
  std::vector<Request> For(const std::string& token) {
    std::vector<Request> found;
    for (Request& r : fake_->Requests()) {
      if (absl::StrContains(json::String(r, "path"), token) ||
          absl::StrContains(json::String(r, "body"), token)) {
        found.push_back(std::move(r));
      }
    }
    return found;
  }

  bool WaitFor(const std::function<bool()>& done, absl::Duration timeout = absl::Seconds(30)) {
    const absl::Time deadline = absl::Now() + timeout;
    while (!done()) {
      if (absl::Now() > deadline) return false;
      absl::SleepFor(absl::Milliseconds(50));
    }
    return true;
  }

  int QueueDepth() { return std::stoi(Query("SELECT count(*) FROM notifications.deliveries")); }

  // The value of one sample line of the server's /metrics text, e.g.
  // parlor_notifications_deliveries_total{platform="apns",result="delivered"}.
  double Metric(const std::string& series) {
    const std::string text = server_->host().metrics().Serialize();
    for (absl::string_view line : absl::StrSplit(text, '\n')) {
      if (absl::StartsWith(line, series + " ")) {
        double value = 0;
        if (absl::SimpleAtod(line.substr(series.size() + 1), &value)) return value;
      }
    }
    return -1;
  }

  std::unique_ptr<testing::FakeProviders> fake_;
};

TEST_F(PushE2ePgTest, EveryProviderAnswerIsHandledAsDocumented) {
  struct Phone {
    std::string account = NewUuid();
    std::string game = NewUuid();
    std::string apns;
    std::string fcm;
  };
  // Each player's tokens script the fakes' answers (see fake_push_server.py).
  std::map<std::string, Phone> players;
  for (const std::string prefix : {"", "dead", "bad0", "c429", "c500", "c400"}) {
    Phone p;
    p.apns = testing::ApnsToken(prefix);
    p.fcm = testing::FcmToken(prefix);
    Register(p.account, v1::PLATFORM_APNS, p.apns, /*sandbox=*/prefix.empty());
    Register(p.account, v1::PLATFORM_FCM, p.fcm);
    players[prefix.empty() ? "ok" : prefix] = p;
  }
  std::vector<v1::Event> events;
  for (const auto& [name, p] : players) {
    events.push_back(GameEvent(p.account, v1::EVENT_KIND_YOUR_TURN, p.game, 7));
    events.back().mutable_last_move()->set_player_name("Tess");
    events.back().mutable_last_move()->set_description("play the 7 of \"cups\" \u2660");
  }
  const absl::Time accepted = absl::Now();
  ASSERT_TRUE(Accept(events).ok());
  ASSERT_TRUE(WaitFor([&] { return QueueDepth() == 0; })) << QueueDepth() << " still queued";

  // Nothing a real provider would have refused was ever sent.
  for (const Request& r : fake_->Requests()) {
    EXPECT_EQ(r.fields().at("problems").list_value().values_size(), 0)
        << json::String(r, "path") << ": " << r.fields().at("problems").DebugString();
  }

  // Success: what APNs received.
  const Phone& ok = players["ok"];
  std::vector<Request> apns = For(ok.apns);
  ASSERT_EQ(apns.size(), 1u);
  EXPECT_EQ(json::String(apns[0], "path"), "/3/device/" + ok.apns);
  EXPECT_EQ(Number(apns[0], "status"), 200);
  EXPECT_EQ(Header(apns[0], "apns-topic"), "com.parlor.app");
  EXPECT_EQ(Header(apns[0], "apns-push-type"), "alert");
  EXPECT_EQ(Header(apns[0], "apns-priority"), "10");
  EXPECT_EQ(Header(apns[0], "apns-collapse-id"), ok.game);
  int64_t expiration = 0;
  ASSERT_TRUE(absl::SimpleAtoi(Header(apns[0], "apns-expiration"), &expiration));
  EXPECT_GT(expiration, absl::ToUnixSeconds(accepted));
  EXPECT_TRUE(absl::StartsWith(Header(apns[0], "authorization"), "bearer ey"));
  absl::StatusOr<Request> payload = json::ParseObject(json::String(apns[0], "body"));
  ASSERT_TRUE(payload.ok());
  const Request& aps = json::Object(*payload, "aps");
  EXPECT_EQ(json::String(json::Object(aps, "alert"), "loc-key"), "your_turn.body");
  EXPECT_EQ(json::String(json::Object(aps, "alert"), "title-loc-key"), "your_turn.title");
  EXPECT_EQ(json::Object(aps, "alert").fields().at("loc-args").DebugString(),
            json::ParseObject(R"({"a":["Pico","Tess"]})")->fields().at("a").DebugString());
  // The last move: the alert's subtitle, and data for the app.
  EXPECT_EQ(json::String(json::Object(aps, "alert"), "subtitle"),
            "Tess: play the 7 of \"cups\" \u2660");
  EXPECT_EQ(json::String(*payload, "last_move_player"), "Tess");
  EXPECT_EQ(Number(aps, "badge"), 1);
  EXPECT_EQ(json::String(aps, "thread-id"), ok.game);
  EXPECT_EQ(json::String(*payload, "deep_link"),
            absl::StrCat("parlor://game/", ok.game, "?version=7"));

  // Success: what FCM received, with one OAuth exchange for all the messages.
  std::vector<Request> fcm = For(ok.fcm);
  ASSERT_EQ(fcm.size(), 1u);
  EXPECT_EQ(json::String(fcm[0], "path"), "/v1/projects/parlor-test/messages:send");
  EXPECT_TRUE(absl::StartsWith(Header(fcm[0], "authorization"), "Bearer ya29.fake-"));
  absl::StatusOr<Request> message = json::ParseObject(json::String(fcm[0], "body"));
  ASSERT_TRUE(message.ok());
  const Request& m = json::Object(*message, "message");
  EXPECT_EQ(json::String(m, "token"), ok.fcm);
  EXPECT_EQ(json::String(json::Object(m, "android"), "collapse_key"), ok.game);
  EXPECT_EQ(json::String(json::Object(json::Object(m, "android"), "notification"), "body_loc_key"),
            "your_turn.body");
  EXPECT_EQ(json::String(json::Object(m, "data"), "deep_link"),
            absl::StrCat("parlor://game/", ok.game, "?version=7"));
  EXPECT_EQ(json::String(json::Object(m, "data"), "last_move"), "play the 7 of \"cups\" \u2660");
  EXPECT_EQ(json::String(json::Object(m, "data"), "last_move_player"), "Tess");
  int oauth = 0;
  for (const Request& r : fake_->Requests()) oauth += json::String(r, "path") == "/token";
  EXPECT_EQ(oauth, 1);

  // Dead tokens (410 Unregistered / 400 BadDeviceToken; FCM UNREGISTERED / invalid token): one
  // attempt, then the devices are gone.
  for (const std::string name : {"dead", "bad0"}) {
    const Phone& p = players[name];
    EXPECT_EQ(For(p.apns).size(), 1u) << name;
    EXPECT_EQ(For(p.fcm).size(), 1u) << name;
    v1::ListMyDevicesResponse devices;
    ASSERT_TRUE(api_->ListMyDevices(Bearer(Player(p.account)).get(), {}, &devices).ok());
    EXPECT_EQ(devices.devices_size(), 0) << name;
  }
  EXPECT_EQ(Number(For(players["dead"].apns)[0], "status"), 410);
  EXPECT_EQ(Number(For(players["dead"].fcm)[0], "status"), 404);

  // 429 with Retry-After: 1: the retry waited at least that second (the backoff alone would
  // have been 100 ms), then succeeded.
  for (const std::string& token : {players["c429"].apns, players["c429"].fcm}) {
    std::vector<Request> tries = For(token);
    ASSERT_EQ(tries.size(), 2u);
    EXPECT_EQ(Number(tries[0], "status"), 429);
    EXPECT_EQ(Number(tries[1], "status"), 200);
    EXPECT_GE(Number(tries[1], "time") - Number(tries[0], "time"), 0.95);
  }
  // 503: retried after the backoff, then succeeded.
  for (const std::string& token : {players["c500"].apns, players["c500"].fcm}) {
    std::vector<Request> tries = For(token);
    ASSERT_EQ(tries.size(), 2u);
    EXPECT_EQ(Number(tries[0], "status"), 503);
    EXPECT_EQ(Number(tries[1], "status"), 200);
    EXPECT_GE(Number(tries[1], "time") - Number(tries[0], "time"), 0.09);
  }
  // Another 400: three attempts, then given up for good; the device stays.
  EXPECT_EQ(For(players["c400"].apns).size(), 3u);
  EXPECT_EQ(For(players["c400"].fcm).size(), 3u);

  // Every outcome counted.
  for (const std::string platform : {"apns", "fcm"}) {
    auto series = [&](const std::string& result) {
      return absl::StrCat("parlor_notifications_deliveries_total{platform=\"", platform,
                          "\",result=\"", result, "\"}");
    };
    EXPECT_EQ(Metric(series("delivered")), 3) << platform;   // ok, c429, c500
    EXPECT_EQ(Metric(series("dead_token")), 2) << platform;  // dead, bad0
    EXPECT_EQ(Metric(series("retry")), 4) << platform;       // c429, c500, c400 twice
    EXPECT_EQ(Metric(series("rejected")), 1) << platform;    // c400
    EXPECT_EQ(
        Metric(absl::StrCat("parlor_notifications_dead_tokens_total{platform=\"", platform, "\"}")),
        2);
    EXPECT_EQ(
        Metric(absl::StrCat("parlor_notifications_commit_to_acceptance_seconds_count{platform=\"",
                            platform, "\"}")),
        3);
  }
  EXPECT_EQ(Metric("parlor_notifications_events_total{outcome=\"accepted\"}"), 6);
}

TEST_F(PushE2ePgTest, AYourTurnIsNeverDeliveredOnceItsTurnIsOver) {
  const std::string ada = NewUuid();
  // The provider asks to come back in a second; the turn is over before then.
  const std::string token = testing::ApnsToken("c429");
  Register(ada, v1::PLATFORM_APNS, token);
  v1::Event turn = GameEvent(ada, v1::EVENT_KIND_YOUR_TURN, NewUuid(), 4);
  const absl::Time expiry = absl::Now() + absl::Milliseconds(500);
  turn.mutable_expire_time()->set_seconds(absl::ToUnixSeconds(expiry));
  turn.mutable_expire_time()->set_nanos(
      static_cast<int>(absl::ToUnixNanos(expiry) % 1'000'000'000));
  ASSERT_TRUE(Accept({turn}).ok());
  ASSERT_TRUE(WaitFor([&] { return QueueDepth() == 0; }));
  std::vector<Request> tries = For(token);
  ASSERT_EQ(tries.size(), 1u);
  EXPECT_EQ(Number(tries[0], "status"), 429);
  // The APNs expiration header carried the turn's end too.
  EXPECT_EQ(Header(tries[0], "apns-expiration"), absl::StrCat(absl::ToUnixSeconds(expiry)));
  EXPECT_EQ(Metric("parlor_notifications_deliveries_total{platform=\"apns\",result=\"expired\"}"),
            1);
}

}  // namespace
}  // namespace parlor::notifications
