// The notifications API end to end over gRPC on a real PostgreSQL: devices, preferences, events
// accepted once, the inbox, the queue each event fills (badge, stale turns, mutes, quiet hours).
#include <algorithm>

#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/time_util.h"
#include "gtest/gtest.h"
#include "pqxx/pqxx"
#include "prometheus/registry.h"
#include "services/common/testing/status_matchers.h"
#include "services/notifications/api/notifications_api.h"
#include "services/notifications/store/pg_notifications_store.h"
#include "services/notifications/store/sql.h"
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
  v1::Event turn = GameEvent(ada, v1::EVENT_KIND_YOUR_TURN, game, 3);
  turn.mutable_last_move()->set_player_name("Tess");
  turn.mutable_last_move()->set_description("play the 9 of clubs");
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
  EXPECT_EQ(n.last_move().player_name(), "Tess");
  EXPECT_EQ(n.last_move().description(), "play the 9 of clubs");
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

// The badge of every push is counted from the games where it is the player's turn, not from every
// game they ever played: with 3,000 finished games behind them, counting it reads a few pages.
TEST_F(NotificationsApiPgTest, TheBadgeReadsTheGamesAwaitingThePlayerNotEveryGameTheyPlayed) {
  const std::string ada = NewUuid();
  Register(ada, v1::PLATFORM_APNS, testing::ApnsToken());
  ASSERT_TRUE(Accept({GameEvent(ada, v1::EVENT_KIND_YOUR_TURN, NewUuid(), 1),
                      GameEvent(ada, v1::EVENT_KIND_YOUR_TURN, NewUuid(), 4)})
                  .ok());
  pqxx::connection c(db_url());
  {
    pqxx::work txn(c);
    txn.exec_params0(
        "INSERT INTO notifications.turns (account_id, game_id, version, my_turn, expire_time) "
        "SELECT $1::uuid, 'finished-' || i, 40, false, NULL FROM generate_series(1, 3000) i",
        ada);
    txn.exec0("ANALYZE notifications.turns");
    txn.commit();
  }
  const std::string game = NewUuid();
  ASSERT_TRUE(Accept({GameEvent(ada, v1::EVENT_KIND_YOUR_TURN, game, 2)}).ok());
  EXPECT_EQ(Query(absl::StrCat("SELECT badge FROM notifications.deliveries WHERE game_id = '", game,
                               "'")),
            "3");
  const std::string plan = parlor::testing::ExplainAnalyze(db_url(), sql::kCountMyTurns, ada,
                                                           absl::ToUnixMicros(absl::Now()));
  EXPECT_THAT(parlor::testing::PagesReadByPlan(plan), ::testing::Optional(::testing::Le(10)))
      << plan;
}

// The turn state of a game stays after its end, so that a late event of an older version cannot
// bring the turn back, until its game-over event is older than the retention and a day: events
// committed before the retention are no longer stored, so none can change it. Games in progress
// keep theirs however old.
TEST_F(NotificationsApiPgTest, TheTurnStateOfAGameOverIsPrunedOnceNoEventCanChangeIt) {
  const std::string ada = NewUuid();
  Register(ada, v1::PLATFORM_APNS, testing::ApnsToken());
  const std::string over = NewUuid();         // over long ago: pruned
  const std::string lately_over = NewUuid();  // over within the retention and its day: kept
  const std::string my_turn = NewUuid();      // in progress, Ada to move
  const std::string waiting = NewUuid();      // in progress, the opponent to move
  const std::string same_move = NewUuid();    // ended by a move that also ended Ada's turn
  ASSERT_TRUE(Accept({GameEvent(ada, v1::EVENT_KIND_YOUR_TURN, over, 1),
                      GameEvent(ada, v1::EVENT_KIND_GAME_OVER, over, 2),
                      GameEvent(ada, v1::EVENT_KIND_GAME_OVER, lately_over, 6),
                      GameEvent(ada, v1::EVENT_KIND_YOUR_TURN, my_turn, 3),
                      GameEvent(ada, v1::EVENT_KIND_TURN_OVER, waiting, 1),
                      GameEvent(ada, v1::EVENT_KIND_GAME_OVER, same_move, 4),
                      GameEvent(ada, v1::EVENT_KIND_TURN_OVER, same_move, 4)})
                  .ok());
  // The same move's events may also come in separate calls, the game-over first.
  const std::string split_move = NewUuid();
  ASSERT_TRUE(Accept({GameEvent(ada, v1::EVENT_KIND_GAME_OVER, split_move, 9)}).ok());
  ASSERT_TRUE(Accept({GameEvent(ada, v1::EVENT_KIND_TURN_OVER, split_move, 9)}).ok());
  const auto over_games = [&] {
    return Query(
        absl::StrCat("SELECT string_agg(game_id, ',' ORDER BY game_id) FROM notifications.turns "
                     "WHERE account_id = '",
                     ada, "' AND over_time IS NOT NULL"));
  };
  std::vector<std::string> expected = {over, lately_over, same_move, split_move};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(over_games(), absl::StrJoin(expected, ","));

  // 91 days and a minute later for `over` and everything in progress; 90 days for `lately_over`.
  Query(absl::StrCat(
      "UPDATE notifications.turns SET over_time = over_time - CASE WHEN game_id = '", lately_over,
      "' THEN interval '90 days' ELSE interval '91 days 1 minute' END WHERE game_id IN ('", over,
      "', '", lately_over, "')"));
  absl::StatusOr<NotificationsService::Pruned> pruned = PruneNow(server_->installed());
  ASSERT_THAT(pruned, ::parlor::testing::IsOk());
  EXPECT_EQ(pruned->turns, 1);
  EXPECT_EQ(Query(absl::StrCat("SELECT count(*) FROM notifications.turns WHERE account_id = '", ada,
                               "'")),
            "5");
  EXPECT_EQ(
      Query(absl::StrCat("SELECT count(*) FROM notifications.turns WHERE game_id = '", over, "'")),
      "0");

  // A sender retries the game's first "your turn", committed before the retention: acknowledged,
  // not stored, and the finished game does not count in the badge.
  v1::Event late = GameEvent(ada, v1::EVENT_KIND_YOUR_TURN, over, 1);
  *late.mutable_commit_time() = google::protobuf::util::TimeUtil::SecondsToTimestamp(
      absl::ToUnixSeconds(absl::Now() - absl::Hours(24 * 91)));
  const std::string next = NewUuid();
  ASSERT_TRUE(Accept({late, GameEvent(ada, v1::EVENT_KIND_YOUR_TURN, next, 1)}).ok());
  EXPECT_EQ(
      Query(absl::StrCat("SELECT count(*) FROM notifications.turns WHERE game_id = '", over, "'")),
      "0");
  EXPECT_EQ(Query(absl::StrCat("SELECT badge FROM notifications.deliveries WHERE game_id = '", next,
                               "'")),
            "2");  // my_turn and next

  // Twenty thousand games over today: a prune with nothing old to delete reads a few pages.
  Query(
      "INSERT INTO notifications.turns (account_id, game_id, version, my_turn, over_time) "
      "SELECT gen_random_uuid(), 'today-' || i, 10, false, now() "
      "FROM generate_series(1, 20000) i");
  Query("ANALYZE notifications.turns");
  const std::string plan = parlor::testing::ExplainAnalyze(
      db_url(), sql::kPruneTurns,
      absl::ToUnixMicros(absl::Now() - NotificationsService::kDefaultRetention), 1000);
  EXPECT_THAT(parlor::testing::PagesReadByPlan(plan), ::testing::Optional(::testing::Le(10)))
      << plan;
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

// Events are kept for the retention (90 days by default). Older inbox entries are deleted with
// their queued pushes; the unread count and the inbox no longer show them. A sender that retries
// an event committed before the retention is told it was seen and nothing is stored again.
TEST_F(NotificationsApiPgTest, EventsOlderThanTheRetentionArePrunedAndNotStoredAgain) {
  const std::string ada = NewUuid();
  Register(ada, v1::PLATFORM_APNS, testing::ApnsToken());
  std::vector<v1::Event> events;
  for (int i = 1; i <= 3; ++i) {
    events.push_back(GameEvent(ada, v1::EVENT_KIND_GAME_OVER, NewUuid(), i));
  }
  const v1::Event old_turn = GameEvent(ada, v1::EVENT_KIND_YOUR_TURN, NewUuid(), 2);
  events.push_back(old_turn);
  ASSERT_TRUE(Accept(events).ok());
  ASSERT_EQ(Inbox(ada).unread_count(), 4);
  ASSERT_EQ(Query("SELECT count(*) FROM notifications.deliveries"), "4");
  // Versions 1 and 2 (the your-turn among them) were created 91 days ago.
  Query(
      "UPDATE notifications.events SET create_time = create_time - interval '91 days' "
      "WHERE version <= 2");

  absl::StatusOr<NotificationsService::Pruned> pruned = PruneNow(server_->installed());
  ASSERT_THAT(pruned, ::parlor::testing::IsOk());
  EXPECT_EQ(pruned->events, 3);
  v1::ListNotificationsResponse inbox = Inbox(ada);
  ASSERT_EQ(inbox.notifications_size(), 1);
  EXPECT_EQ(inbox.notifications(0).version(), 3);
  EXPECT_EQ(inbox.unread_count(), 1);
  EXPECT_EQ(Query("SELECT count(*) FROM notifications.deliveries"), "1");
  // Nothing older is left: a second prune deletes nothing.
  pruned = PruneNow(server_->installed());
  ASSERT_THAT(pruned, ::parlor::testing::IsOk());
  EXPECT_EQ(pruned->events, 0);

  // The sender retries the your-turn it committed 91 days ago, and hands over a new event.
  v1::Event retried = old_turn;
  *retried.mutable_commit_time() = google::protobuf::util::TimeUtil::SecondsToTimestamp(
      absl::ToUnixSeconds(absl::Now() - absl::Hours(24 * 91)));
  const v1::Event fresh = GameEvent(ada, v1::EVENT_KIND_YOUR_TURN, NewUuid(), 7);
  v1::AcceptEventsResponse accepted;
  ASSERT_TRUE(Accept({retried, fresh}, &accepted).ok());
  EXPECT_EQ(accepted.accepted(), 1);
  EXPECT_EQ(accepted.duplicates(), 1);
  inbox = Inbox(ada);
  ASSERT_EQ(inbox.notifications_size(), 2);
  EXPECT_EQ(inbox.notifications(0).game_id(), fresh.game_id());
  EXPECT_EQ(Query("SELECT count(*) FROM notifications.deliveries"), "2");
}

// The queue gauges the alerts read: depth counts every queued push, the oldest age (from the
// event's commit) only those due - a reminder held back by quiet hours is queued but not late.
double GaugeValue(prometheus::Registry& registry, const std::string& name) {
  for (const prometheus::MetricFamily& family : registry.Collect()) {
    if (family.name == name && !family.metric.empty()) return family.metric[0].gauge.value;
  }
  return -1;
}

TEST_F(NotificationsApiPgTest, QueueGaugesCountEveryQueuedPushAndAgeOnlyTheDueOnes) {
  const std::string ada = NewUuid();
  Register(ada, v1::PLATFORM_APNS, testing::ApnsToken());
  // Quiet hours around the current minute, in UTC.
  const int minute = static_cast<int>(absl::ToInt64Minutes(absl::Now() - absl::UnixEpoch()) % 1440);
  v1::UpdatePreferencesRequest quiet;
  quiet.mutable_preferences()->mutable_quiet_hours()->set_start_minute((minute + 1380) % 1440);
  quiet.mutable_preferences()->mutable_quiet_hours()->set_end_minute((minute + 60) % 1440);
  v1::UpdatePreferencesResponse updated;
  ASSERT_TRUE(api_->UpdatePreferences(Bearer(Player(ada)).get(), quiet, &updated).ok());
  const absl::Time now = absl::Now();
  v1::Event turn = GameEvent(ada, v1::EVENT_KIND_YOUR_TURN, NewUuid(), 4);
  *turn.mutable_commit_time() = google::protobuf::util::TimeUtil::MicrosecondsToTimestamp(
      absl::ToUnixMicros(now - absl::Seconds(90)));
  v1::Event reminder = GameEvent(ada, v1::EVENT_KIND_REMINDER, NewUuid(), 2);
  *reminder.mutable_commit_time() = google::protobuf::util::TimeUtil::MicrosecondsToTimestamp(
      absl::ToUnixMicros(now - absl::Seconds(600)));
  ASSERT_TRUE(Accept({turn, reminder}).ok());

  prometheus::Registry& registry = server_->host().metrics().registry();
  ASSERT_TRUE(UpdateQueueGaugesNow(server_->installed()).ok());
  EXPECT_EQ(GaugeValue(registry, "parlor_notifications_queue_depth"), 2);
  const double age = GaugeValue(registry, "parlor_notifications_queue_oldest_age_seconds");
  EXPECT_GE(age, 90);
  EXPECT_LT(age, 150);  // the your-turn's age, not the held-back reminder's 600 s

  // The due push goes (no provider is configured here: dropped as "unconfigured"); the
  // reminder still waits, and nothing due is late.
  ASSERT_TRUE(DeliverNow(server_->installed()).ok());
  ASSERT_TRUE(UpdateQueueGaugesNow(server_->installed()).ok());
  EXPECT_EQ(GaugeValue(registry, "parlor_notifications_queue_depth"), 1);
  EXPECT_EQ(GaugeValue(registry, "parlor_notifications_queue_oldest_age_seconds"), 0);
}

// AcceptEvents writes a batch set-based (five statements); the former one-event-at-a-time writes
// are kept for the load tool's baseline. Both store the same inbox, turn states and queue for a
// batch in order (badges aside: set-based counts them as the whole batch left the turns).
class AcceptModesPgTest : public NotificationsApiPgTest {
 protected:
  std::string Snapshot() {
    return Query(
        "SELECT string_agg(x, E'\\n' ORDER BY x) FROM ("
        "SELECT 'event ' || dedupe_key || ' ' || kind || ' ' || loc_args::text || ' ' || in_inbox "
        "FROM notifications.events UNION ALL "
        "SELECT 'turn ' || account_id || ' ' || game_id || ' ' || version || ' ' || my_turn "
        "FROM notifications.turns UNION ALL "
        "SELECT 'push ' || e.dedupe_key || ' ' || d.device_id || ' ' || d.kind || ' ' || d.version "
        "FROM notifications.deliveries d JOIN notifications.events e USING (notification_id)) "
        "AS s(x)");
  }
  absl::StatusOr<NotificationsStore::Accepted> AcceptWith(PgNotificationsStore::AcceptMode mode,
                                                          const std::vector<v1::Event>& batch) {
    DbPool pool(DbOptions{.url = db_url(), .max_connections = 1}, nullptr);
    PgNotificationsStore store(&pool, mode);
    NotificationsService service(&store, [] { return absl::Now(); }, nullptr, {});
    std::vector<Event> events;
    for (const v1::Event& e : batch) events.push_back(FromProto(e));
    return service.AcceptEvents(events);
  }
};

TEST_F(AcceptModesPgTest, SetBasedStoresWhatOneEventAtATimeStored) {
  const std::string ada = NewUuid();
  const std::string bob = NewUuid();
  Register(ada, v1::PLATFORM_APNS, testing::ApnsToken());
  Register(ada, v1::PLATFORM_FCM, testing::FcmToken());
  Register(bob, v1::PLATFORM_APNS, testing::ApnsToken());
  const std::string g1 = NewUuid(), g2 = NewUuid(), g3 = NewUuid(), g4 = NewUuid();
  v1::Event expired = GameEvent(bob, v1::EVENT_KIND_YOUR_TURN, g4, 1);
  *expired.mutable_expire_time() = google::protobuf::util::TimeUtil::MicrosecondsToTimestamp(
      absl::ToUnixMicros(absl::Now() - absl::Minutes(1)));
  const std::vector<v1::Event> batch = {
      GameEvent(ada, v1::EVENT_KIND_YOUR_TURN, g1, 1),
      GameEvent(ada, v1::EVENT_KIND_TURN_OVER, g1, 2),  // drops the push above
      GameEvent(ada, v1::EVENT_KIND_YOUR_TURN, g2, 3),
      GameEvent(ada, v1::EVENT_KIND_YOUR_TURN, g2, 3),  // the same key again: a duplicate
      GameEvent(ada, v1::EVENT_KIND_REMINDER, g2, 3),   // keeps the your-turn of its version
      GameEvent(bob, v1::EVENT_KIND_YOUR_TURN, g3, 4),
      GameEvent(bob, v1::EVENT_KIND_GAME_OVER, g3, 5),  // drops bob's your-turn
      expired,                                          // its turn is over: no push
  };
  absl::StatusOr<NotificationsStore::Accepted> before =
      AcceptWith(PgNotificationsStore::AcceptMode::kOneByOne, batch);
  ASSERT_TRUE(before.ok()) << before.status();
  const std::string one_by_one = Snapshot();
  Query("TRUNCATE notifications.deliveries, notifications.events, notifications.turns");
  absl::StatusOr<NotificationsStore::Accepted> after =
      AcceptWith(PgNotificationsStore::AcceptMode::kSetBased, batch);
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(Snapshot(), one_by_one);
  EXPECT_EQ(after->accepted, 7);
  EXPECT_EQ(after->duplicates, 1);
  EXPECT_EQ(after->accepted, before->accepted);
  EXPECT_EQ(after->duplicates, before->duplicates);
  // Left queued: ada's g2 your-turn and reminder on both devices, bob's game over.
  EXPECT_EQ(Query("SELECT count(*) FROM notifications.deliveries"), "5");
  // The badge as the batch left the turns: ada's turn in g2 (g1's is over).
  EXPECT_EQ(Query(absl::StrCat("SELECT string_agg(DISTINCT badge::text, ',') FROM "
                               "notifications.deliveries WHERE account_id = '",
                               ada, "'")),
            "1");
}

// Set-based, a batch's own stale pushes go too, whatever their order in it: a retried old
// "your turn" after the game's end is not queued.
TEST_F(AcceptModesPgTest, AnOlderYourTurnLaterInTheBatchIsNotQueued) {
  const std::string bob = NewUuid();
  Register(bob, v1::PLATFORM_APNS, testing::ApnsToken());
  const std::string game = NewUuid();
  ASSERT_TRUE(AcceptWith(PgNotificationsStore::AcceptMode::kSetBased,
                         {GameEvent(bob, v1::EVENT_KIND_GAME_OVER, game, 5),
                          GameEvent(bob, v1::EVENT_KIND_YOUR_TURN, game, 4)})
                  .ok());
  EXPECT_EQ(Query("SELECT string_agg(kind::text, ',') FROM notifications.deliveries"), "4");
  EXPECT_EQ(Query("SELECT my_turn::text FROM notifications.turns"), "false");
}

// WatchNotifications: an open app sees its inbox change without a push. The first message is
// the unread count; then each new entry of the caller (never another player's), and a message
// when MarkRead changes the count.
TEST_F(NotificationsApiPgTest, AnOpenStreamSeesNewEntriesAndUnreadChangesOfItsPlayerOnly) {
  const std::string ada = NewUuid();
  const std::string bob = NewUuid();
  ASSERT_TRUE(Accept({GameEvent(ada, v1::EVENT_KIND_YOUR_TURN, NewUuid(), 1)}).ok());
  auto context = Bearer(Player(ada), absl::Seconds(30));
  auto reader = api_->WatchNotifications(context.get(), {});
  v1::WatchNotificationsResponse message;
  ASSERT_TRUE(reader->Read(&message));
  EXPECT_EQ(message.notifications_size(), 0);
  EXPECT_EQ(message.unread_count(), 1);

  const std::string game = NewUuid();
  ASSERT_TRUE(Accept({GameEvent(bob, v1::EVENT_KIND_GAME_OVER, NewUuid(), 3)}).ok());
  ASSERT_TRUE(Accept({GameEvent(ada, v1::EVENT_KIND_GAME_OVER, game, 9)}).ok());
  ASSERT_TRUE(reader->Read(&message));
  ASSERT_EQ(message.notifications_size(), 1);
  EXPECT_EQ(message.notifications(0).kind(), v1::EVENT_KIND_GAME_OVER);
  EXPECT_EQ(message.notifications(0).game_id(), game);
  EXPECT_EQ(message.unread_count(), 2);

  v1::MarkReadRequest mark;
  mark.set_up_to_notification_id(message.notifications(0).notification_id());
  v1::MarkReadResponse marked;
  ASSERT_TRUE(api_->MarkRead(Bearer(Player(ada)).get(), mark, &marked).ok());
  ASSERT_TRUE(reader->Read(&message));
  EXPECT_EQ(message.notifications_size(), 0);
  EXPECT_EQ(message.unread_count(), 0);
  context->TryCancel();
  while (reader->Read(&message)) {
  }
  EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::CANCELLED);
}

TEST_F(NotificationsApiPgTest, AStreamResumesAfterTheLastEntryTheAppHasOldestFirst) {
  const std::string ada = NewUuid();
  for (int version = 1; version <= 3; ++version) {
    ASSERT_TRUE(Accept({GameEvent(ada, v1::EVENT_KIND_GAME_OVER, NewUuid(), version)}).ok());
  }
  const v1::ListNotificationsResponse inbox = Inbox(ada);
  ASSERT_EQ(inbox.notifications_size(), 3);
  v1::WatchNotificationsRequest request;
  request.set_after_notification_id(inbox.notifications(2).notification_id());  // the oldest
  auto context = Bearer(Player(ada), absl::Seconds(30));
  auto reader = api_->WatchNotifications(context.get(), request);
  v1::WatchNotificationsResponse message;
  ASSERT_TRUE(reader->Read(&message));
  ASSERT_EQ(message.notifications_size(), 2);
  EXPECT_EQ(message.notifications(0).notification_id(), inbox.notifications(1).notification_id());
  EXPECT_EQ(message.notifications(1).notification_id(), inbox.notifications(0).notification_id());
  EXPECT_EQ(message.unread_count(), 3);
  context->TryCancel();
  while (reader->Read(&message)) {
  }
}

// Streams are bounded per player (like sessions' streams): beyond the per-account limit an open
// is refused with a retry delay, another player is not affected, and a closed stream frees its
// slot. A stream ends UNAUTHENTICATED when its access token expires.
class BoundedWatchPgTest : public NotificationsApiPgTest {
 protected:
  void Configure(NotificationsConfig& config) override {
    NotificationsApiPgTest::Configure(config);
    config.watch.max_streams_per_account = 2;
    config.watch.poll_interval = absl::Milliseconds(100);
  }
  struct Stream {
    std::unique_ptr<grpc::ClientContext> context;
    std::unique_ptr<grpc::ClientReader<v1::WatchNotificationsResponse>> reader;
    v1::WatchNotificationsResponse first;
    bool opened = false;
    grpc::Status Close() {
      context->TryCancel();
      v1::WatchNotificationsResponse ignored;
      while (reader->Read(&ignored)) {
      }
      return reader->Finish();
    }
  };
  Stream Open(const std::string& token) {
    Stream s;
    s.context = Bearer(token, absl::Seconds(30));
    s.reader = api_->WatchNotifications(s.context.get(), {});
    s.opened = s.reader->Read(&s.first);
    return s;
  }
};

TEST_F(BoundedWatchPgTest, APlayerHoldsAtMostTheLimitOfStreamsAndOthersAreNotAffected) {
  const std::string ada = NewUuid();
  Stream one = Open(Player(ada));
  Stream two = Open(Player(ada));
  ASSERT_TRUE(one.opened);
  ASSERT_TRUE(two.opened);
  Stream three = Open(Player(ada));
  EXPECT_FALSE(three.opened);
  const grpc::Status refused = three.reader->Finish();
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(refused.error_message(),
              ::testing::HasSubstr("you have 2 notification streams open on this server"));
  Stream bobs = Open(Player(NewUuid()));
  EXPECT_TRUE(bobs.opened);
  EXPECT_EQ(one.Close().error_code(), grpc::StatusCode::CANCELLED);
  // The slot is free once the server has seen the stream end.
  bool reopened = false;
  for (int i = 0; i < 50 && !reopened; ++i) {
    Stream again = Open(Player(ada));
    reopened = again.opened;
    if (reopened) {
      again.Close();
    } else {
      again.reader->Finish();
      absl::SleepFor(absl::Milliseconds(100));
    }
  }
  EXPECT_TRUE(reopened);
  two.Close();
  bobs.Close();
}

TEST_F(BoundedWatchPgTest, AStreamEndsWhenItsAccessTokenExpires) {
  const std::string ada = NewUuid();
  // Issued so that it expires two seconds from now.
  Stream s = Open(keys_.PlayerToken(ada, absl::Now() - absl::Minutes(15) + absl::Seconds(2)));
  ASSERT_TRUE(s.opened);
  v1::WatchNotificationsResponse more;
  while (s.reader->Read(&more)) {
  }
  const grpc::Status ended = s.reader->Finish();
  EXPECT_EQ(ended.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(ended.error_message(), ::testing::HasSubstr("the access token expired"));
}

}  // namespace
}  // namespace parlor::notifications
