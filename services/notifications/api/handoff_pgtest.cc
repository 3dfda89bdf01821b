// The hand-off from the sessions outbox: its NotificationsPushAdapter (what the dispatcher calls
// for every outbox row) against a real notifications server, over gRPC with a service credential.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/notifications/testing/notifications_fixture.h"
#include "services/sessions/outbox/notifications_adapter.h"

namespace parlor::notifications {
namespace {

using ::parlor::testing::Bearer;
using ::testing::ElementsAre;
using testing::NewUuid;

class HandoffPgTest : public testing::NotificationsPgTest {};

TEST_F(HandoffPgTest, SessionsOutboxRowsBecomeEventsOnceEach) {
  auto signer = auth::TokenSigner::Create(auth::TokenKind::kService, keys_.service().private_key);
  ASSERT_TRUE(signer.ok());
  sessions::NotificationsPushAdapter adapter(server_->channel(), *std::move(signer),
                                             absl::Seconds(10));
  const std::string ada = NewUuid();
  const std::string game = NewUuid();
  Register(ada, v1::PLATFORM_APNS, testing::ApnsToken());
  sessions::NotificationRow row;
  row.account_id = ada;
  row.kind = "your_turn";
  row.version = 6;
  row.dedupe_key = absl::StrCat("turn:", game, ":6:1");
  row.payload_json = absl::StrCat(R"({"game_id":")", game,
                                  R"(","game":"pescado","version":6,"seat":1,"text":"x"})");
  ASSERT_TRUE(adapter.Send(game, row).ok());
  // The dispatcher delivers at least once: a second Send is a duplicate.
  ASSERT_TRUE(adapter.Send(game, row).ok());
  v1::ListNotificationsResponse inbox;
  ASSERT_TRUE(api_->ListNotifications(Bearer(Player(ada)).get(), {}, &inbox).ok());
  ASSERT_EQ(inbox.notifications_size(), 1);
  EXPECT_EQ(inbox.notifications(0).kind(), v1::EVENT_KIND_YOUR_TURN);
  EXPECT_EQ(inbox.notifications(0).game(), "pescado");
  EXPECT_EQ(inbox.notifications(0).version(), 6);
  EXPECT_THAT(inbox.notifications(0).loc_args(), ElementsAre("Pescado"));
  EXPECT_EQ(Query("SELECT count(*) FROM notifications.deliveries"), "1");

  // A game over later in the same game drops the pending "your turn".
  row.kind = "game_over";
  row.version = 9;
  row.dedupe_key = absl::StrCat("over:", game, ":1");
  ASSERT_TRUE(adapter.Send(game, row).ok());
  EXPECT_EQ(Query("SELECT string_agg(kind::text, ',') FROM notifications.deliveries"), "4");

  // A kind notifications has no event for is acknowledged without a call.
  row.kind = "something_new";
  EXPECT_TRUE(adapter.Send(game, row).ok());
}

// Whatever a sessions outbox row carries besides the game's name (its text, a player's hand, the
// seat) never reaches a push or the inbox: notifications builds both from the event's own
// fields. For every game, each kind of row with secrets in its payload.
TEST_F(HandoffPgTest, NoHiddenInformationReachesAPushInAnyGame) {
  auto signer = auth::TokenSigner::Create(auth::TokenKind::kService, keys_.service().private_key);
  ASSERT_TRUE(signer.ok());
  sessions::NotificationsPushAdapter adapter(server_->channel(), *std::move(signer),
                                             absl::Seconds(10));
  const std::string ada = NewUuid();
  Register(ada, v1::PLATFORM_APNS, testing::ApnsToken());
  Register(ada, v1::PLATFORM_FCM, testing::FcmToken());
  for (const std::string game_name : {"picadice", "pico", "pescado", "pict", "kadice"}) {
    const std::string game = NewUuid();
    int version = 1;
    for (const std::string kind : {"your_turn", "reminder", "timeout", "game_over"}) {
      sessions::NotificationRow row;
      row.account_id = ada;
      row.kind = kind;
      row.version = version++;
      row.dedupe_key = absl::StrCat(kind, ":", game, ":", row.version);
      row.payload_json =
          absl::StrCat(R"({"game_id":")", game, R"(","game":")", game_name,
                       R"(","version":1,"seat":1,"text":"SECRET-text","hand":["SECRET-card-7"],)"
                       R"("dice":"SECRET-dice-66"})");
      ASSERT_TRUE(adapter.Send(game, row).ok()) << game_name << " " << kind;
    }
  }
  EXPECT_EQ(Query("SELECT count(*) FROM notifications.events"), "20");
  EXPECT_EQ(Query("SELECT count(*) FROM notifications.events e "
                  "WHERE row_to_json(e)::text LIKE '%SECRET%'"),
            "0");
  EXPECT_EQ(Query("SELECT count(*) FROM notifications.deliveries d "
                  "WHERE row_to_json(d)::text LIKE '%SECRET%'"),
            "0");
  v1::ListNotificationsRequest request;
  request.set_page_size(100);
  v1::ListNotificationsResponse inbox;
  ASSERT_TRUE(api_->ListNotifications(Bearer(Player(ada)).get(), request, &inbox).ok());
  ASSERT_EQ(inbox.notifications_size(), 20);
  EXPECT_EQ(inbox.DebugString().find("SECRET"), std::string::npos);
}

}  // namespace
}  // namespace parlor::notifications
