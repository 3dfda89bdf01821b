// The notifications API end to end over gRPC on a real PostgreSQL: devices, preferences, events
// accepted once, the inbox, the queue each event fills (badge, stale turns, mutes, quiet hours).
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/notifications/testing/notifications_fixture.h"

namespace parlor::notifications {
namespace {

using ::parlor::testing::Bearer;
using ::testing::ElementsAre;
using testing::NewUuid;

class NotificationsApiPgTest : public testing::NotificationsPgTest {
 protected:
  std::vector<v1::Device> Devices(const std::string& account) {
    v1::ListMyDevicesResponse response;
    EXPECT_TRUE(api_->ListMyDevices(Bearer(Player(account)).get(), {}, &response).ok());
    return {response.devices().begin(), response.devices().end()};
  }
  v1::ListNotificationsResponse Inbox(const std::string& account, int page_size = 0,
                                      const std::string& page_token = "") {
    v1::ListNotificationsRequest request;
    request.set_page_size(page_size);
    request.set_page_token(page_token);
    v1::ListNotificationsResponse response;
    const grpc::Status status =
        api_->ListNotifications(Bearer(Player(account)).get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response;
  }
  int Queued(const std::string& account) {
    return std::stoi(Query(absl::StrCat(
        "SELECT count(*) FROM notifications.deliveries WHERE account_id = '", account, "'")));
  }
};

TEST_F(NotificationsApiPgTest, ATokenBelongsToTheAccountThatRegisteredItLast) {
  const std::string ada = NewUuid();
  const std::string bob = NewUuid();
  const std::string token = testing::ApnsToken();
  v1::RegisterDeviceResponse first = Register(ada, v1::PLATFORM_APNS, token);
  EXPECT_FALSE(first.moved());
  EXPECT_EQ(first.device().locale(), "en-GB");
  EXPECT_EQ(first.device().time_zone(), "Europe/London");
  // The phone changes hands: Bob signs in on it and registers the same token.
  v1::RegisterDeviceResponse moved = Register(bob, v1::PLATFORM_APNS, token);
  EXPECT_TRUE(moved.moved());
  EXPECT_EQ(moved.device().device_id(), first.device().device_id());
  EXPECT_TRUE(Devices(ada).empty());
  ASSERT_EQ(Devices(bob).size(), 1u);
  // Registering again refreshes it without moving anything.
  EXPECT_FALSE(Register(bob, v1::PLATFORM_APNS, token).moved());
  // Ada can no longer remove it; Bob can.
  v1::UnregisterDeviceRequest by_token;
  by_token.set_token(token);
  v1::UnregisterDeviceResponse ignored;
  EXPECT_EQ(api_->UnregisterDevice(Bearer(Player(ada)).get(), by_token, &ignored).error_code(),
            grpc::StatusCode::NOT_FOUND);
  v1::UnregisterDeviceRequest by_id;
  by_id.set_device_id(first.device().device_id());
  EXPECT_TRUE(api_->UnregisterDevice(Bearer(Player(bob)).get(), by_id, &ignored).ok());
  EXPECT_TRUE(Devices(bob).empty());
}

TEST_F(NotificationsApiPgTest, PreferencesRoundTripAndDefaultToEverythingOn) {
  const std::string ada = NewUuid();
  v1::GetPreferencesResponse defaults;
  ASSERT_TRUE(api_->GetPreferences(Bearer(Player(ada)).get(), {}, &defaults).ok());
  EXPECT_EQ(defaults.preferences().time_zone(), "UTC");
  EXPECT_FALSE(defaults.preferences().has_quiet_hours());
  EXPECT_EQ(defaults.preferences().muted_game_ids_size(), 0);

  v1::UpdatePreferencesRequest update;
  const std::string game = NewUuid();
  update.mutable_preferences()->add_muted_game_ids(game);
  update.mutable_preferences()->add_disabled_kinds(v1::EVENT_KIND_REMINDER);
  update.mutable_preferences()->mutable_quiet_hours()->set_start_minute(22 * 60);
  update.mutable_preferences()->mutable_quiet_hours()->set_end_minute(7 * 60);
  update.mutable_preferences()->set_time_zone("Europe/Paris");
  v1::UpdatePreferencesResponse updated;
  ASSERT_TRUE(api_->UpdatePreferences(Bearer(Player(ada)).get(), update, &updated).ok());
  v1::GetPreferencesResponse read;
  ASSERT_TRUE(api_->GetPreferences(Bearer(Player(ada)).get(), {}, &read).ok());
  EXPECT_THAT(read.preferences().muted_game_ids(), ElementsAre(game));
  EXPECT_THAT(read.preferences().disabled_kinds(), ElementsAre(v1::EVENT_KIND_REMINDER));
  EXPECT_EQ(read.preferences().quiet_hours().start_minute(), 22 * 60);
  EXPECT_EQ(read.preferences().quiet_hours().end_minute(), 7 * 60);
  EXPECT_EQ(read.preferences().time_zone(), "Europe/Paris");
}

TEST_F(NotificationsApiPgTest, AnEventIsAcceptedOnceAndFansOutToEveryDevice) {
  const std::string ada = NewUuid();
  Register(ada, v1::PLATFORM_APNS, testing::ApnsToken());
  Register(ada, v1::PLATFORM_FCM, testing::FcmToken());
  const std::string game = NewUuid();
  const v1::Event turn = GameEvent(ada, v1::EVENT_KIND_YOUR_TURN, game, 3);
  v1::AcceptEventsResponse response;
  ASSERT_TRUE(Accept({turn}, &response).ok());
  EXPECT_EQ(response.accepted(), 1);
  // The sender's outbox delivers at least once: the same event again changes nothing.
  ASSERT_TRUE(Accept({turn, turn}, &response).ok());
  EXPECT_EQ(response.accepted(), 0);
  EXPECT_EQ(response.duplicates(), 2);
  EXPECT_EQ(Queued(ada), 2);  // one push per device
  v1::ListNotificationsResponse inbox = Inbox(ada);
  ASSERT_EQ(inbox.notifications_size(), 1);
  const v1::Notification& n = inbox.notifications(0);
  EXPECT_EQ(n.kind(), v1::EVENT_KIND_YOUR_TURN);
  EXPECT_EQ(n.loc_key(), "your_turn.body");
  EXPECT_THAT(n.loc_args(), ElementsAre("Pico", "Tess"));
  EXPECT_EQ(n.deep_link(), absl::StrCat("parlor://game/", game, "?version=3"));
  EXPECT_EQ(inbox.unread_count(), 1);
}

TEST_F(NotificationsApiPgTest, TheBadgeCountsGamesWhereItIsThePlayersTurn) {
  const std::string ada = NewUuid();
  Register(ada, v1::PLATFORM_APNS, testing::ApnsToken());
  const std::string g1 = NewUuid();
  const std::string g2 = NewUuid();
  const std::string g3 = NewUuid();
  const std::string badge_sql =
      absl::StrCat("SELECT badge FROM notifications.deliveries WHERE account_id = '", ada,
                   "' ORDER BY delivery_id DESC LIMIT 1");
  ASSERT_TRUE(Accept({GameEvent(ada, v1::EVENT_KIND_YOUR_TURN, g1, 1)}).ok());
  EXPECT_EQ(Query(badge_sql), "1");
  ASSERT_TRUE(Accept({GameEvent(ada, v1::EVENT_KIND_YOUR_TURN, g2, 4)}).ok());
  EXPECT_EQ(Query(badge_sql), "2");
  // Ada moves in g1: her turn there is over (and its pending push is stale).
  ASSERT_TRUE(Accept({GameEvent(ada, v1::EVENT_KIND_TURN_OVER, g1, 1)}).ok());
  ASSERT_TRUE(Accept({GameEvent(ada, v1::EVENT_KIND_YOUR_TURN, g3, 2)}).ok());
  EXPECT_EQ(Query(badge_sql), "2");  // g2 and g3
  // The "your turn" of g1 was dropped before it went out; turn_over is not in the inbox.
  EXPECT_EQ(Query(absl::StrCat("SELECT count(*) FROM notifications.deliveries WHERE game_id = '",
                               g1, "'")),
            "0");
  EXPECT_EQ(Inbox(ada).notifications_size(), 3);
}

TEST_F(NotificationsApiPgTest, ALaterEventOfTheGameMakesAPendingYourTurnStale) {
  const std::string ada = NewUuid();
  Register(ada, v1::PLATFORM_APNS, testing::ApnsToken());
  const std::string game = NewUuid();
  ASSERT_TRUE(Accept({GameEvent(ada, v1::EVENT_KIND_YOUR_TURN, game, 2)}).ok());
  ASSERT_TRUE(Accept({GameEvent(ada, v1::EVENT_KIND_YOUR_TURN, game, 5)}).ok());
  EXPECT_EQ(Query(absl::StrCat("SELECT string_agg(version::text, ',') FROM "
                               "notifications.deliveries WHERE game_id = '",
                               game, "'")),
            "5");
  ASSERT_TRUE(Accept({GameEvent(ada, v1::EVENT_KIND_GAME_OVER, game, 9)}).ok());
  EXPECT_EQ(Query(absl::StrCat("SELECT string_agg(kind::text, ',') FROM "
                               "notifications.deliveries WHERE game_id = '",
                               game, "'")),
            "4");
}

TEST_F(NotificationsApiPgTest, AYourTurnWhoseTurnIsAlreadyOverIsNeverQueued) {
  const std::string ada = NewUuid();
  Register(ada, v1::PLATFORM_FCM, testing::FcmToken());
  v1::Event turn = GameEvent(ada, v1::EVENT_KIND_YOUR_TURN, NewUuid(), 1);
  turn.mutable_expire_time()->set_seconds(absl::ToUnixSeconds(absl::Now()) - 60);
  ASSERT_TRUE(Accept({turn}).ok());
  EXPECT_EQ(Queued(ada), 0);
  EXPECT_EQ(Inbox(ada).notifications_size(), 1);  // the inbox still tells
}

TEST_F(NotificationsApiPgTest, MutedGamesAndDisabledKindsReachOnlyTheInbox) {
  const std::string ada = NewUuid();
  Register(ada, v1::PLATFORM_APNS, testing::ApnsToken());
  const std::string muted = NewUuid();
  v1::UpdatePreferencesRequest update;
  update.mutable_preferences()->add_muted_game_ids(muted);
  update.mutable_preferences()->add_disabled_kinds(v1::EVENT_KIND_GAME_OVER);
  v1::UpdatePreferencesResponse ignored;
  ASSERT_TRUE(api_->UpdatePreferences(Bearer(Player(ada)).get(), update, &ignored).ok());
  ASSERT_TRUE(Accept({GameEvent(ada, v1::EVENT_KIND_YOUR_TURN, muted, 1),
                      GameEvent(ada, v1::EVENT_KIND_GAME_OVER, NewUuid(), 7)})
                  .ok());
  EXPECT_EQ(Queued(ada), 0);
  EXPECT_EQ(Inbox(ada).notifications_size(), 2);
  ASSERT_TRUE(Accept({GameEvent(ada, v1::EVENT_KIND_YOUR_TURN, NewUuid(), 1)}).ok());
  EXPECT_EQ(Queued(ada), 1);
}

TEST_F(NotificationsApiPgTest, AReminderDuringQuietHoursWaitsForTheirEnd) {
  const std::string ada = NewUuid();
  Register(ada, v1::PLATFORM_APNS, testing::ApnsToken());
  // Quiet hours from an hour ago to an hour from now, in UTC.
  const absl::CivilMinute now = absl::ToCivilMinute(absl::Now(), absl::UTCTimeZone());
  const int minute = now.hour() * 60 + now.minute();
  v1::UpdatePreferencesRequest update;
  update.mutable_preferences()->mutable_quiet_hours()->set_start_minute((minute + 1380) % 1440);
  update.mutable_preferences()->mutable_quiet_hours()->set_end_minute((minute + 60) % 1440);
  v1::UpdatePreferencesResponse ignored;
  ASSERT_TRUE(api_->UpdatePreferences(Bearer(Player(ada)).get(), update, &ignored).ok());
  const std::string game = NewUuid();
  ASSERT_TRUE(Accept({GameEvent(ada, v1::EVENT_KIND_REMINDER, game, 3),
                      GameEvent(ada, v1::EVENT_KIND_GAME_OVER, NewUuid(), 3)})
                  .ok());
  // The reminder waits about an hour; the game over (not a reminder) goes now.
  const std::string wait = Query(absl::StrCat(
      "SELECT round(extract(epoch FROM due_time - now()) / 60) FROM notifications.deliveries "
      "WHERE kind = 2 AND account_id = '",
      ada, "'"));
  EXPECT_GE(std::stoi(wait), 55);
  EXPECT_LE(std::stoi(wait), 60);
  EXPECT_EQ(Query(absl::StrCat("SELECT count(*) FROM notifications.deliveries WHERE kind = 4 "
                               "AND due_time <= now() AND account_id = '",
                               ada, "'")),
            "1");
}

TEST_F(NotificationsApiPgTest, TheInboxPagesNewestFirstAndCountsUnread) {
  const std::string ada = NewUuid();
  std::vector<v1::Event> events;
  for (int i = 1; i <= 5; ++i) {
    events.push_back(GameEvent(ada, v1::EVENT_KIND_GAME_OVER, NewUuid(), i));
  }
  ASSERT_TRUE(Accept(events).ok());
  v1::ListNotificationsResponse first = Inbox(ada, 2);
  ASSERT_EQ(first.notifications_size(), 2);
  EXPECT_EQ(first.notifications(0).version(), 5);
  EXPECT_EQ(first.notifications(1).version(), 4);
  EXPECT_EQ(first.unread_count(), 5);
  ASSERT_FALSE(first.next_page_token().empty());
  v1::ListNotificationsResponse second = Inbox(ada, 2, first.next_page_token());
  ASSERT_EQ(second.notifications_size(), 2);
  EXPECT_EQ(second.notifications(0).version(), 3);
  v1::ListNotificationsResponse last = Inbox(ada, 2, second.next_page_token());
  ASSERT_EQ(last.notifications_size(), 1);
  EXPECT_TRUE(last.next_page_token().empty());

  v1::MarkReadRequest mark;
  mark.add_notification_ids(first.notifications(0).notification_id());
  v1::MarkReadResponse marked;
  ASSERT_TRUE(api_->MarkRead(Bearer(Player(ada)).get(), mark, &marked).ok());
  EXPECT_EQ(marked.unread_count(), 4);
  mark.Clear();
  mark.set_up_to_notification_id(second.notifications(0).notification_id());
  ASSERT_TRUE(api_->MarkRead(Bearer(Player(ada)).get(), mark, &marked).ok());
  EXPECT_EQ(marked.unread_count(), 1);  // versions 1-3 and 5 read, 4 left
  EXPECT_TRUE(Inbox(ada).notifications(0).read());
  // Someone else's inbox is untouched and invisible.
  EXPECT_EQ(Inbox(NewUuid()).notifications_size(), 0);
}

}  // namespace
}  // namespace parlor::notifications
