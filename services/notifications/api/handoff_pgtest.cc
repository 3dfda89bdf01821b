// The hand-off from the sessions outbox: its NotificationsPushAdapter (what the dispatcher calls
// for every outbox row) against a real notifications server, over gRPC with a service credential.
#include <random>

#include "engine/games/all_games.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/db/migrations.h"
#include "services/notifications/testing/notifications_fixture.h"
#include "services/sessions/api/calls.h"
#include "services/sessions/domain/sessions.h"
#include "services/sessions/outbox/notifications_adapter.h"

namespace parlor::notifications {
namespace {

using ::parlor::testing::Bearer;
using ::testing::AnyOf;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::Eq;
using testing::NewUuid;
using ::testing::Not;

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

// Real games of all five, played by the sessions domain on the same PostgreSQL, their outbox rows
// drained by the real dispatcher through the adapter: every row becomes one event carrying the
// opponents' names, the row's commit time and (your turn) the turn's deadline; a move ends its
// player's turn with a TURN_OVER that drops their queued "your turn" and leaves the badge's turn
// state equal to sessions' own; and an outbox row carries nothing but the game, version, seat,
// a fixed text, the opponents and the deadline (no hand, no dice, no secret of any game).
TEST_F(HandoffPgTest, RealGamesOfAllFiveReachNotificationsWithWhatAPushNeedsAndNoSecret) {
  ASSERT_TRUE(
      ApplyMigrations(db_url(), MigrationSet{"sessions", PARLOR_SESSIONS_MIGRATIONS_DIR}).ok());
  DbPool pool(DbOptions{.url = db_url(), .max_connections = 2}, nullptr);
  sessions::PgSessionsStore store(&pool);
  engine::Registry registry(engine::AllGames());
  absl::Time now = absl::Now();
  sessions::Sessions games(&store, &registry, [&now] { return now; }, {});
  const std::vector<std::pair<std::string, std::string>> people = {
      {NewUuid(), "Ada"}, {NewUuid(), "Tess"}, {NewUuid(), "Cy"}, {NewUuid(), "Dee"}};
  for (const auto& [account, name] : people)
    Register(account, v1::PLATFORM_APNS, testing::ApnsToken());
  std::mt19937_64 rng(7);
  int played = 0;
  for (const auto& game : registry.games()) {
    sessions::v1::CreateGameRequest create;
    create.set_match_id(absl::StrCat("handoff-", game->name()));
    create.set_game(game->name());
    for (int i = 0; i < game->info().min_players; ++i) {
      sessions::v1::SeatSpec* seat = create.add_seats();
      seat->set_account_id(people[i].first);
      seat->set_display_name(people[i].second);
    }
    create.mutable_time_control()->mutable_per_move()->mutable_limit()->set_seconds(86400);
    sessions::v1::CreateGameResponse created;
    ASSERT_TRUE(sessions::calls::CreateGame(games, create, &created).ok()) << game->name();
    const std::string game_id = created.game().game_id();
    for (int move = 0; move < 6; ++move) {
      now += absl::Minutes(1);
      sessions::v1::GetGameRequest get;
      get.set_game_id(game_id);
      sessions::v1::GetGameResponse any;
      ASSERT_TRUE(sessions::calls::GetGame(games, people[0].first, get, &any).ok());
      if (any.game().acting_seats().empty()) break;  // over
      const std::string account = any.game().seats(any.game().acting_seats(0)).account_id();
      sessions::v1::GetGameResponse mine;
      ASSERT_TRUE(sessions::calls::GetGame(games, account, get, &mine).ok());
      ASSERT_FALSE(mine.legal_actions().empty()) << game->name();
      sessions::v1::SubmitActionRequest submit;
      submit.set_game_id(game_id);
      submit.set_expected_version(mine.game().version());
      submit.set_idempotency_key(absl::StrCat("k", move));
      *submit.mutable_action() = mine.legal_actions(rng() % mine.legal_actions_size());
      sessions::v1::SubmitActionResponse moved;
      ASSERT_TRUE(sessions::calls::SubmitAction(games, account, submit, &moved).ok())
          << game->name();
      ++played;
    }
  }
  ASSERT_GE(played, 5);

  auto signer = auth::TokenSigner::Create(auth::TokenKind::kService, keys_.service().private_key);
  ASSERT_TRUE(signer.ok());
  sessions::NotificationsPushAdapter adapter(server_->channel(), *std::move(signer),
                                             absl::Seconds(10));
  sessions::OutboxDispatcher dispatcher(&store, &adapter, nullptr, [&now] { return now; },
                                        {.batch = 500});
  // The outbox deletes a row once notifications accepted it: what it held, kept to compare.
  Query(
      "DROP TABLE IF EXISTS public.handed_over; "
      "CREATE TABLE public.handed_over AS SELECT * FROM sessions.notification_outbox");
  absl::StatusOr<sessions::OutboxDispatcher::Drained> drained = dispatcher.Drain();
  ASSERT_TRUE(drained.ok()) << drained.status();
  EXPECT_EQ(drained->failed, 0);
  EXPECT_EQ(Query("SELECT count(*) FROM sessions.notification_outbox"), "0");
  const std::string rows = Query("SELECT count(*) FROM public.handed_over");
  EXPECT_EQ(std::to_string(drained->sent), rows);
  EXPECT_GT(std::stoi(Query("SELECT count(*) FROM public.handed_over WHERE kind = 'turn_over'")),
            0);

  // An outbox row holds only these keys.
  EXPECT_EQ(Query("SELECT string_agg(DISTINCT k, ',') FROM public.handed_over o, "
                  "jsonb_object_keys(o.payload) k WHERE k NOT IN ('game_id', 'game', 'version', "
                  "'seat', 'text', 'opponents', 'expires_at_us', 'last_mover', 'last_move')"),
            "");
  // Each row became one event: commit time = the row's, your turn expiring at the deadline.
  EXPECT_EQ(Query("SELECT count(*) FROM notifications.events"), rows);
  EXPECT_EQ(Query("SELECT count(*) FROM public.handed_over o "
                  "JOIN notifications.events e ON e.dedupe_key = 'sessions:' || o.dedupe_key "
                  "WHERE abs(extract(epoch FROM e.commit_time - o.created_at)) < 0.001"),
            rows);
  EXPECT_EQ(Query("SELECT count(*) FROM notifications.events WHERE kind = 1 AND "
                  "(expire_time IS NULL OR abs(extract(epoch FROM expire_time - commit_time) - "
                  "86400) > 0.001)"),
            "0");
  // A turn that is over has no "your turn" or reminder queued, and the badge's turn state is
  // sessions' own.
  EXPECT_EQ(Query("SELECT count(*) FROM notifications.deliveries d JOIN sessions.seats s "
                  "ON s.game_id::text = d.game_id AND s.account_id = d.account_id "
                  "WHERE d.kind IN (1, 2) AND NOT s.my_turn"),
            "0");
  EXPECT_EQ(Query("SELECT count(*) FROM sessions.seats s JOIN notifications.turns t "
                  "ON t.game_id = s.game_id::text AND t.account_id = s.account_id "
                  "WHERE t.my_turn <> s.my_turn"),
            "0");
  // The text names the other side, never the player; the last move is what the player's own
  // history shows for it (the game's words only when that seat may know the move).
  int with_last_move = 0;
  for (const auto& [account, name] : people) {
    v1::ListNotificationsRequest request;
    request.set_page_size(100);
    v1::ListNotificationsResponse inbox;
    ASSERT_TRUE(api_->ListNotifications(Bearer(Player(account)).get(), request, &inbox).ok());
    for (const v1::Notification& n : inbox.notifications()) {
      if (n.kind() != v1::EVENT_KIND_YOUR_TURN) continue;
      EXPECT_THAT(n.loc_args(), Not(Contains(name))) << n.DebugString();
      EXPECT_GE(n.loc_args_size(), 2) << n.DebugString();
      if (!n.has_last_move()) continue;
      ++with_last_move;
      sessions::v1::GetHistoryRequest get;
      get.set_game_id(n.game_id());
      get.set_from_version(n.version());
      get.set_page_size(1);
      sessions::v1::GetHistoryResponse history;
      ASSERT_TRUE(sessions::calls::GetHistory(games, account, get, &history).ok());
      ASSERT_EQ(history.events_size(), 1) << n.DebugString();
      const sessions::v1::HistoryEvent& event = history.events(0);
      if (event.has_action()) {
        EXPECT_EQ(n.last_move().description(), event.description()) << n.DebugString();
      } else {
        EXPECT_THAT(n.last_move().description(), AnyOf(Eq("made a hidden choice"), Eq("forfeited")))
            << n.DebugString() << event.DebugString();
      }
      EXPECT_EQ(n.last_move().player_name(), people[event.seat()].second) << n.DebugString();
    }
  }
  EXPECT_GE(with_last_move, 5);
}

}  // namespace
}  // namespace parlor::notifications
