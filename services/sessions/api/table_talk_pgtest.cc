// Table talk over gRPC, with an injected clock (nothing sleeps for time to pass): chat (seated
// players write, spectators of a public game read, a private game's chat is its players' only,
// the rate limit, reports), chat with a block set through the real accounts service (the blocker
// never sees the blocked player's messages, in lists or streams), rematch offers (rotation, link,
// expiry, decline, idempotent accept), nudges (pushed once per period) and the inbox (MarkSeen,
// seen and unseen versions in ListMyGames).
#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "parlor/accounts/v1/accounts.grpc.pb.h"
#include "parlor/sessions/v1/sessions.grpc.pb.h"
#include "pqxx/pqxx"
#include "services/accounts/accounts_server.h"
#include "services/accounts/testing/accounts_test_server.h"
#include "services/common/testing/test_server.h"
#include "services/sessions/outbox/notifications_adapter.h"
#include "services/sessions/sessions_server.h"
#include "services/sessions/store/table_sql.h"
#include "services/sessions/testing/sessions_test_server.h"
#include "tests/pg/pg_test_database.h"

namespace parlor::sessions {
namespace {

using grpc::StatusCode;
using ::parlor::testing::Bearer;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Starts at the real time: the access tokens the real accounts service mints are checked
// against the real clock.
using TestClock = ::parlor::testing::ManualClock;

struct Player {
  std::string id;
  std::string token;
};

// Collects the messages of one server stream on its own thread until stopped.
template <typename Response>
class Recorder {
 public:
  template <typename Open>
  Recorder(const std::string& token, Open open) : context_(Bearer(token, absl::Minutes(5))) {
    reader_ = open(context_.get());
    thread_ = std::thread([this] {
      Response r;
      while (reader_->Read(&r)) {
        std::lock_guard<std::mutex> lock(mu_);
        received_.push_back(r);
      }
    });
  }
  ~Recorder() { Stop(); }
  void Stop() {
    if (!thread_.joinable()) return;
    context_->TryCancel();
    thread_.join();
    reader_->Finish();
  }
  std::vector<Response> received() {
    std::lock_guard<std::mutex> lock(mu_);
    return received_;
  }
  // Waits (real time, for delivery only) until `done` holds for what was received.
  template <typename Done>
  bool WaitFor(Done done) {
    const absl::Time deadline = absl::Now() + absl::Seconds(10);
    while (absl::Now() < deadline) {
      if (done(received())) return true;
      absl::SleepFor(absl::Milliseconds(20));
    }
    return false;
  }

 private:
  std::unique_ptr<grpc::ClientContext> context_;
  std::unique_ptr<grpc::ClientReader<Response>> reader_;
  std::thread thread_;
  std::mutex mu_;
  std::vector<Response> received_;
};

std::vector<std::string> ChatTexts(const v1::ListChatMessagesResponse& r) {
  std::vector<std::string> out;
  for (const v1::ChatMessage& m : r.messages()) out.push_back(m.text());
  return out;
}

class TableTalkPgTest : public SessionsServerPgTest {
 protected:
  void SetUp() override {
    PgTest::SetUp();
    auto accounts = accounts::StartTestAccounts(db_url(), keys_);
    ASSERT_TRUE(accounts.ok()) << accounts.status();
    accounts_ = *std::move(accounts);
    accounts_stub_ = accounts::v1::AccountsService::NewStub(accounts_->channel());

    SessionsConfig config = TestSessionsConfig("table-talk-page-secret");
    // The real accounts service answers CheckBlocks for the chat.
    config.accounts_address = accounts_->address();
    config.service_token_private_key = keys_.service().private_key;
    StartSessions(config, [clock = &clock_] { return clock->Now(); });
    alice_ = SignIn("device-alice");
    bob_ = SignIn("device-bob");
    carol_ = SignIn("device-carol");
  }

  void TearDown() override {
    server_.reset();
    accounts_.reset();
  }

  Player SignIn(const std::string& device) {
    accounts::v1::AuthenticateDeviceRequest request;
    request.set_device_id(device);
    accounts::v1::AuthenticateDeviceResponse response;
    grpc::Status status = accounts_stub_->AuthenticateDevice(Bearer("").get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return {response.account().account_id(), response.tokens().access_token()};
  }

  // A game of Picadice (one seat acts at a time) between the players, in seat order, created as
  // matchmaking would.
  v1::Game NewGame(const std::vector<Player>& players, bool is_public) {
    v1::CreateGameRequest create;
    create.set_match_id(absl::StrCat("table-", ++games_));
    create.set_game("picadice");
    for (size_t i = 0; i < players.size(); ++i) {
      v1::SeatSpec* seat = create.add_seats();
      seat->set_account_id(players[i].id);
      seat->set_display_name(absl::StrCat("P", i));
    }
    create.mutable_time_control()->mutable_per_move()->mutable_limit()->set_seconds(86400);
    create.set_visibility(is_public ? v1::VISIBILITY_PUBLIC : v1::VISIBILITY_PRIVATE);
    v1::CreateGameResponse created;
    grpc::Status status =
        internal_->CreateGame(Bearer(keys_.ServiceToken()).get(), create, &created);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return created.game();
  }

  v1::Game Finished(const std::vector<Player>& players) {
    const v1::Game game = NewGame(players, false);
    v1::ResignRequest resign;
    resign.set_game_id(game.game_id());
    v1::ResignResponse resigned;
    grpc::Status status = sessions_->Resign(Bearer(players[0].token).get(), resign, &resigned);
    EXPECT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(resigned.game().status(), v1::GAME_STATUS_FINISHED);
    return resigned.game();
  }

  // Every game of `p` in the my-turn-first order, page by page.
  std::vector<std::string> MyTurnFirst(const Player& p, v1::GameFilter filter, int page_size) {
    v1::ListMyGamesRequest request;
    request.set_order(v1::GAME_ORDER_MY_TURN_FIRST);
    request.set_filter(filter);
    request.set_page_size(page_size);
    std::vector<std::string> ids;
    for (int page = 0; page < 100; ++page) {
      v1::ListMyGamesResponse listed;
      grpc::Status status = sessions_->ListMyGames(Bearer(p.token).get(), request, &listed);
      EXPECT_TRUE(status.ok()) << status.error_message();
      for (const v1::Game& g : listed.games()) ids.push_back(g.game_id());
      if (!status.ok() || listed.next_page_token().empty()) break;
      request.set_page_token(listed.next_page_token());
    }
    return ids;
  }

  grpc::Status Send(const Player& p, const std::string& game_id, const std::string& text,
                    v1::SendChatMessageResponse* sent = nullptr) {
    v1::SendChatMessageRequest request;
    request.set_game_id(game_id);
    request.set_text(text);
    v1::SendChatMessageResponse ignored;
    return sessions_->SendChatMessage(Bearer(p.token).get(), request,
                                      sent != nullptr ? sent : &ignored);
  }

  v1::ListChatMessagesResponse List(const Player& p, const std::string& game_id,
                                    grpc::Status* status_out = nullptr, int page_size = 0,
                                    int64_t before = 0) {
    v1::ListChatMessagesRequest request;
    request.set_game_id(game_id);
    request.set_page_size(page_size);
    request.set_before_message_id(before);
    v1::ListChatMessagesResponse response;
    grpc::Status status = sessions_->ListChatMessages(Bearer(p.token).get(), request, &response);
    if (status_out != nullptr) {
      *status_out = status;
    } else {
      EXPECT_TRUE(status.ok()) << status.error_message();
    }
    return response;
  }

  // The outbox rows of a game: (kind, account id), in order.
  std::vector<std::pair<std::string, std::string>> Pushes(const std::string& game_id,
                                                          const std::string& kind) {
    pqxx::connection c(db_url());
    pqxx::read_transaction txn(c);
    std::vector<std::pair<std::string, std::string>> out;
    for (const pqxx::row& r :
         txn.exec_params("SELECT kind, account_id::text FROM sessions.notification_outbox "
                         "WHERE game_id = $1::uuid AND kind = $2 ORDER BY id",
                         game_id, kind)) {
      out.emplace_back(r[0].as<std::string>(), r[1].as<std::string>());
    }
    return out;
  }

  int64_t Count(const std::string& sql) {
    pqxx::connection c(db_url());
    pqxx::read_transaction txn(c);
    return txn.exec1(sql)[0].as<int64_t>();
  }

  TestClock clock_;
  std::unique_ptr<parlor::testing::TestServer> accounts_;
  std::unique_ptr<accounts::v1::AccountsService::Stub> accounts_stub_;
  Player alice_, bob_, carol_;
  int games_ = 0;
};

TEST_F(TableTalkPgTest, SeatedPlayersChatSpectatorsOfAPublicGameReadAndAPrivateChatStaysPrivate) {
  const v1::Game open = NewGame({alice_, bob_}, /*is_public=*/true);
  const v1::Game closed = NewGame({alice_, bob_}, /*is_public=*/false);
  v1::SendChatMessageResponse sent;
  ASSERT_TRUE(Send(alice_, open.game_id(), "good luck!", &sent).ok());
  EXPECT_EQ(sent.message().seat(), 0);
  EXPECT_EQ(sent.message().account_id(), alice_.id);
  EXPECT_EQ(sent.message().game_version(), 0);
  EXPECT_EQ(absl::FromUnixSeconds(sent.message().create_time().seconds()),
            absl::FromUnixSeconds(absl::ToUnixSeconds(clock_.Now())));
  ASSERT_TRUE(Send(bob_, open.game_id(), "you too\nhave fun").ok());
  ASSERT_TRUE(Send(bob_, closed.game_id(), "just us").ok());

  // Newest first, for both players and for a spectator of the public game.
  EXPECT_THAT(ChatTexts(List(alice_, open.game_id())),
              ElementsAre("you too\nhave fun", "good luck!"));
  EXPECT_THAT(ChatTexts(List(carol_, open.game_id())),
              ElementsAre("you too\nhave fun", "good luck!"));
  // Paged: one message a page, the older one on the next.
  const v1::ListChatMessagesResponse first = List(alice_, open.game_id(), nullptr, 1);
  EXPECT_THAT(ChatTexts(first), ElementsAre("you too\nhave fun"));
  ASSERT_GT(first.next_before_message_id(), 0);
  const v1::ListChatMessagesResponse second =
      List(alice_, open.game_id(), nullptr, 1, first.next_before_message_id());
  EXPECT_THAT(ChatTexts(second), ElementsAre("good luck!"));
  EXPECT_EQ(second.next_before_message_id(), 0);

  // A spectator reads only.
  grpc::Status status = Send(carol_, open.game_id(), "hello from the rail");
  EXPECT_EQ(status.error_code(), StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(status.error_message(), HasSubstr("spectators read it"));
  // A private game's chat is for its players only.
  EXPECT_THAT(ChatTexts(List(alice_, closed.game_id())), ElementsAre("just us"));
  List(carol_, closed.game_id(), &status);
  EXPECT_EQ(status.error_code(), StatusCode::PERMISSION_DENIED);
  status = Send(carol_, closed.game_id(), "let me in");
  EXPECT_EQ(status.error_code(), StatusCode::PERMISSION_DENIED);

  // Ten messages a minute per player and game: the eleventh waits until the first leaves it.
  for (int i = 0; i < 9; ++i) ASSERT_TRUE(Send(alice_, open.game_id(), "spam").ok());
  status = Send(alice_, open.game_id(), "one more");
  EXPECT_EQ(status.error_code(), StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(), HasSubstr("at most 10 chat messages per 1m"));
  EXPECT_TRUE(Send(bob_, open.game_id(), "bob is not limited by alice").ok());
  clock_.Advance(absl::Seconds(61));
  EXPECT_TRUE(Send(alice_, open.game_id(), "one more").ok());

  // A report is stored once per reader and message; one's own message cannot be reported.
  v1::ReportChatMessageRequest report;
  report.set_game_id(open.game_id());
  report.set_message_id(sent.message().message_id());
  report.set_reason("rude");
  v1::ReportChatMessageResponse reported;
  status = sessions_->ReportChatMessage(Bearer(bob_.token).get(), report, &reported);
  EXPECT_TRUE(status.ok()) << status.error_message();
  status = sessions_->ReportChatMessage(Bearer(bob_.token).get(), report, &reported);
  EXPECT_TRUE(status.ok()) << status.error_message();
  status = sessions_->ReportChatMessage(Bearer(carol_.token).get(), report, &reported);
  EXPECT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.chat_reports"), 2);
  status = sessions_->ReportChatMessage(Bearer(alice_.token).get(), report, &reported);
  EXPECT_EQ(status.error_code(), StatusCode::INVALID_ARGUMENT);
}

TEST_F(TableTalkPgTest, ABlockedPlayersMessagesNeverReachTheBlocker) {
  const v1::Game game = NewGame({alice_, bob_, carol_}, /*is_public=*/false);
  // bob blocks alice through the real accounts service.
  accounts::v1::BlockPlayerRequest block;
  block.set_account_id(alice_.id);
  accounts::v1::BlockPlayerResponse blocked;
  grpc::Status status = accounts_stub_->BlockPlayer(Bearer(bob_.token).get(), block, &blocked);
  ASSERT_TRUE(status.ok()) << status.error_message();

  v1::WatchGameRequest watch;
  watch.set_game_id(game.game_id());
  watch.set_after_version(-1);
  watch.set_chat_after_message_id(0);
  Recorder<v1::WatchGameResponse> bob_watch(
      bob_.token, [&](grpc::ClientContext* c) { return sessions_->WatchGame(c, watch); });
  Recorder<v1::WatchGameResponse> carol_watch(
      carol_.token, [&](grpc::ClientContext* c) { return sessions_->WatchGame(c, watch); });
  Recorder<v1::WatchMyGamesResponse> bob_games(bob_.token, [&](grpc::ClientContext* c) {
    return sessions_->WatchMyGames(c, v1::WatchMyGamesRequest());
  });
  // Let the streams open (WatchMyGames sends what is sent after it opened).
  absl::SleepFor(absl::Milliseconds(300));

  v1::SendChatMessageResponse from_alice;
  // alice is not told that bob blocked her: her message is stored and shown to the others.
  ASSERT_TRUE(Send(alice_, game.game_id(), "hi bob", &from_alice).ok());
  ASSERT_TRUE(Send(carol_, game.game_id(), "hi all").ok());
  EXPECT_THAT(ChatTexts(List(alice_, game.game_id())), ElementsAre("hi all", "hi bob"));
  EXPECT_THAT(ChatTexts(List(carol_, game.game_id())), ElementsAre("hi all", "hi bob"));
  EXPECT_THAT(ChatTexts(List(bob_, game.game_id())), ElementsAre("hi all"));

  auto chat_of = [](const auto& received) {
    std::vector<std::string> texts;
    for (const auto& r : received) {
      if (r.has_chat()) texts.push_back(r.chat().text());
    }
    return texts;
  };
  ASSERT_TRUE(carol_watch.WaitFor([&](const auto& got) { return chat_of(got).size() == 2; }));
  EXPECT_THAT(chat_of(carol_watch.received()), ElementsAre("hi bob", "hi all"));
  ASSERT_TRUE(bob_watch.WaitFor([&](const auto& got) { return !chat_of(got).empty(); }));
  ASSERT_TRUE(bob_games.WaitFor([&](const auto& got) { return !chat_of(got).empty(); }));
  // A message after both shows that nothing more was coming to bob.
  ASSERT_TRUE(Send(carol_, game.game_id(), "last").ok());
  ASSERT_TRUE(bob_watch.WaitFor([&](const auto& got) { return chat_of(got).size() >= 2; }));
  ASSERT_TRUE(bob_games.WaitFor([&](const auto& got) { return chat_of(got).size() >= 2; }));
  EXPECT_THAT(chat_of(bob_watch.received()), ElementsAre("hi all", "last"));
  EXPECT_THAT(chat_of(bob_games.received()), ElementsAre("hi all", "last"));
  for (const v1::WatchMyGamesResponse& r : bob_games.received()) {
    if (r.has_chat()) {
      EXPECT_EQ(r.game().game_id(), game.game_id());
    }
  }

  // bob cannot report what he never saw; carol can.
  v1::ReportChatMessageRequest report;
  report.set_game_id(game.game_id());
  report.set_message_id(from_alice.message().message_id());
  v1::ReportChatMessageResponse reported;
  status = sessions_->ReportChatMessage(Bearer(bob_.token).get(), report, &reported);
  EXPECT_EQ(status.error_code(), StatusCode::NOT_FOUND);
  status = sessions_->ReportChatMessage(Bearer(carol_.token).get(), report, &reported);
  EXPECT_TRUE(status.ok()) << status.error_message();

  // Unblocked, alice's messages show again.
  accounts::v1::UnblockPlayerRequest unblock;
  unblock.set_account_id(alice_.id);
  accounts::v1::UnblockPlayerResponse unblocked;
  status = accounts_stub_->UnblockPlayer(Bearer(bob_.token).get(), unblock, &unblocked);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_THAT(ChatTexts(List(bob_, game.game_id())), ElementsAre("last", "hi all", "hi bob"));
}

TEST_F(TableTalkPgTest, ARematchRotatesTheFirstSeatLinksTheGamesAndExpires) {
  const v1::Game running = NewGame({alice_, bob_}, false);
  v1::OfferRematchRequest offer;
  offer.set_game_id(running.game_id());
  v1::OfferRematchResponse offered;
  grpc::Status status = sessions_->OfferRematch(Bearer(alice_.token).get(), offer, &offered);
  EXPECT_EQ(status.error_code(), StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(), HasSubstr("has not ended"));

  const v1::Game done = Finished({alice_, bob_});
  offer.set_game_id(done.game_id());
  status = sessions_->OfferRematch(Bearer(alice_.token).get(), offer, &offered);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_TRUE(offered.rematch().pending());
  EXPECT_EQ(offered.rematch().offered_by_account_id(), alice_.id);
  EXPECT_FALSE(offered.has_game());
  EXPECT_EQ(absl::FromUnixSeconds(offered.rematch().expire_time().seconds()),
            absl::FromUnixSeconds(absl::ToUnixSeconds(clock_.Now() + absl::Hours(72))));
  // bob is pushed a "challenge received"; alice is not.
  const auto pushes = Pushes(done.game_id(), "rematch_offer");
  ASSERT_EQ(pushes.size(), 1u);
  EXPECT_EQ(pushes[0].second, bob_.id);
  {
    NotificationRow row;
    pqxx::connection c(db_url());
    pqxx::read_transaction txn(c);
    const pqxx::row r = txn.exec_params1(
        "SELECT kind, dedupe_key, payload::text FROM sessions.notification_outbox "
        "WHERE game_id = $1::uuid AND kind = 'rematch_offer'",
        done.game_id());
    row.account_id = bob_.id;
    row.kind = r[0].as<std::string>();
    row.dedupe_key = r[1].as<std::string>();
    row.payload_json = r[2].as<std::string>();
    absl::StatusOr<notifications::v1::Event> event = BuildNotificationEvent(done.game_id(), row);
    ASSERT_TRUE(event.ok()) << event.status();
    EXPECT_EQ(event->kind(), notifications::v1::EVENT_KIND_CHALLENGE_RECEIVED);
    EXPECT_EQ(event->from_name(), "P0");
    EXPECT_EQ(event->game(), "picadice");
  }
  // Offering again is a retry: nothing changes, nobody is pushed twice.
  status = sessions_->OfferRematch(Bearer(alice_.token).get(), offer, &offered);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(Pushes(done.game_id(), "rematch_offer").size(), 1u);
  // A spectator or stranger has no rematch to see.
  v1::GetRematchRequest get;
  get.set_game_id(done.game_id());
  v1::GetRematchResponse got;
  status = sessions_->GetRematch(Bearer(carol_.token).get(), get, &got);
  EXPECT_EQ(status.error_code(), StatusCode::NOT_FOUND);
  status = sessions_->GetRematch(Bearer(bob_.token).get(), get, &got);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_TRUE(got.rematch().pending());

  // bob accepts: the rematch is created, bob (seat 1 before) starts at seat 0.
  v1::AcceptRematchRequest accept;
  accept.set_game_id(done.game_id());
  v1::AcceptRematchResponse accepted;
  status = sessions_->AcceptRematch(Bearer(bob_.token).get(), accept, &accepted);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_TRUE(accepted.has_game());
  // A copy: the calls below parse their answers into `accepted` again.
  const v1::Game rematch = accepted.game();
  EXPECT_EQ(rematch.rematch_of(), done.game_id());
  EXPECT_EQ(accepted.rematch().new_game_id(), rematch.game_id());
  EXPECT_FALSE(accepted.rematch().pending());
  ASSERT_EQ(rematch.seats_size(), 2);
  EXPECT_EQ(rematch.seats(0).account_id(), bob_.id);
  EXPECT_EQ(rematch.seats(1).account_id(), alice_.id);
  EXPECT_EQ(rematch.my_seat(), 0);
  EXPECT_EQ(rematch.game(), done.game());
  EXPECT_EQ(rematch.ranked(), done.ranked());
  EXPECT_EQ(rematch.time_control().per_move().limit().seconds(), 86400);
  EXPECT_EQ(rematch.status(), v1::GAME_STATUS_ACTIVE);
  // Accepting again, or alice offering again, gives the same game: it is created once.
  status = sessions_->AcceptRematch(Bearer(bob_.token).get(), accept, &accepted);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(accepted.game().game_id(), rematch.game_id());
  status = sessions_->OfferRematch(Bearer(alice_.token).get(), offer, &offered);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(offered.game().game_id(), rematch.game_id());
  EXPECT_EQ(offered.game().my_seat(), 1);
  v1::DeclineRematchRequest decline;
  decline.set_game_id(done.game_id());
  v1::DeclineRematchResponse declined;
  status = sessions_->DeclineRematch(Bearer(alice_.token).get(), decline, &declined);
  EXPECT_EQ(status.error_code(), StatusCode::FAILED_PRECONDITION);

  // An offer expires after 72 hours; a declined one is over; a new one may be made after either.
  const v1::Game other = Finished({alice_, bob_});
  offer.set_game_id(other.game_id());
  accept.set_game_id(other.game_id());
  decline.set_game_id(other.game_id());
  ASSERT_TRUE(sessions_->OfferRematch(Bearer(alice_.token).get(), offer, &offered).ok());
  clock_.Advance(absl::Hours(72) + absl::Seconds(1));
  status = sessions_->AcceptRematch(Bearer(bob_.token).get(), accept, &accepted);
  EXPECT_EQ(status.error_code(), StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(), HasSubstr("expired"));
  ASSERT_TRUE(sessions_->OfferRematch(Bearer(bob_.token).get(), offer, &offered).ok());
  EXPECT_EQ(offered.rematch().offered_by_account_id(), bob_.id);
  EXPECT_EQ(Pushes(other.game_id(), "rematch_offer").size(), 2u);
  status = sessions_->DeclineRematch(Bearer(alice_.token).get(), decline, &declined);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_TRUE(declined.rematch().declined());
  EXPECT_FALSE(declined.rematch().pending());
  status = sessions_->AcceptRematch(Bearer(alice_.token).get(), accept, &accepted);
  EXPECT_EQ(status.error_code(), StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(Count(absl::StrCat("SELECT count(*) FROM sessions.games WHERE match_id = 'rematch:",
                               other.game_id(), "'")),
            0);
}

TEST_F(TableTalkPgTest, AWaitingPlayerNudgesTheOneToMoveOncePerPeriod) {
  const v1::Game game = NewGame({alice_, bob_}, false);
  ASSERT_EQ(game.acting_seats_size(), 1);
  const Player& mover = game.acting_seats(0) == 0 ? alice_ : bob_;
  const Player& waiter = game.acting_seats(0) == 0 ? bob_ : alice_;
  v1::NudgeRequest nudge;
  nudge.set_game_id(game.game_id());
  v1::NudgeResponse nudged;
  grpc::Status status = sessions_->Nudge(Bearer(mover.token).get(), nudge, &nudged);
  EXPECT_EQ(status.error_code(), StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(), HasSubstr("your turn"));
  status = sessions_->Nudge(Bearer(carol_.token).get(), nudge, &nudged);
  EXPECT_EQ(status.error_code(), StatusCode::NOT_FOUND);

  status = sessions_->Nudge(Bearer(waiter.token).get(), nudge, &nudged);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(absl::FromUnixSeconds(nudged.next_nudge_time().seconds()),
            absl::FromUnixSeconds(absl::ToUnixSeconds(clock_.Now() + absl::Hours(24))));
  auto pushes = Pushes(game.game_id(), "nudge");
  ASSERT_EQ(pushes.size(), 1u);
  EXPECT_EQ(pushes[0].second, mover.id);

  // Within the period: refused, nothing pushed; after it, pushed again.
  clock_.Advance(absl::Hours(23));
  status = sessions_->Nudge(Bearer(waiter.token).get(), nudge, &nudged);
  EXPECT_EQ(status.error_code(), StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(), HasSubstr("next nudge is possible at"));
  EXPECT_EQ(Pushes(game.game_id(), "nudge").size(), 1u);
  clock_.Advance(absl::Hours(1));
  status = sessions_->Nudge(Bearer(waiter.token).get(), nudge, &nudged);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(Pushes(game.game_id(), "nudge").size(), 2u);

  // The push goes to notifications as a reminder naming who nudged.
  pqxx::connection c(db_url());
  pqxx::read_transaction txn(c);
  const pqxx::row r = txn.exec_params1(
      "SELECT kind, dedupe_key, payload::text FROM sessions.notification_outbox "
      "WHERE game_id = $1::uuid AND kind = 'nudge' ORDER BY id LIMIT 1",
      game.game_id());
  NotificationRow row;
  row.account_id = mover.id;
  row.kind = r[0].as<std::string>();
  row.dedupe_key = r[1].as<std::string>();
  row.payload_json = r[2].as<std::string>();
  absl::StatusOr<notifications::v1::Event> event = BuildNotificationEvent(game.game_id(), row);
  ASSERT_TRUE(event.ok()) << event.status();
  EXPECT_EQ(event->kind(), notifications::v1::EVENT_KIND_REMINDER);
  EXPECT_EQ(event->from_name(), &waiter == &alice_ ? "P0" : "P1");
  EXPECT_THAT(event->opponent_names(), ElementsAre(&waiter == &alice_ ? "P0" : "P1"));
}

TEST_F(TableTalkPgTest, MarkSeenKeepsTheNewestSeenVersionAndListMyGamesCountsTheUnseen) {
  const v1::Game game = NewGame({alice_, bob_}, false);
  v1::ListMyGamesResponse listed;
  grpc::Status status =
      sessions_->ListMyGames(Bearer(alice_.token).get(), v1::ListMyGamesRequest(), &listed);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(listed.games_size(), 1);
  EXPECT_EQ(listed.games(0).seen_version(), -1);
  EXPECT_EQ(listed.games(0).unseen_versions(), 1);

  // The mover moves; the other player has not seen the move yet.
  const Player& mover = game.acting_seats(0) == 0 ? alice_ : bob_;
  const Player& other = game.acting_seats(0) == 0 ? bob_ : alice_;
  v1::GetGameRequest get;
  get.set_game_id(game.game_id());
  v1::GetGameResponse state;
  ASSERT_TRUE(sessions_->GetGame(Bearer(mover.token).get(), get, &state).ok());
  v1::SubmitActionRequest submit;
  submit.set_game_id(game.game_id());
  submit.set_expected_version(0);
  submit.set_idempotency_key("move-1");
  *submit.mutable_action() = state.legal_actions(0);
  v1::SubmitActionResponse moved;
  status = sessions_->SubmitAction(Bearer(mover.token).get(), submit, &moved);
  ASSERT_TRUE(status.ok()) << status.error_message();
  const int64_t version = moved.game().version();

  // The inbox's summary of the last move, when asked for: as GetHistory tells it, without a view.
  v1::ListMyGamesRequest with_last_move;
  with_last_move.set_with_last_move(true);
  ASSERT_TRUE(sessions_->ListMyGames(Bearer(other.token).get(), with_last_move, &listed).ok());
  ASSERT_EQ(listed.games_size(), 1);
  const v1::HistoryEvent& last = listed.games(0).last_move();
  EXPECT_EQ(last.version(), version);
  EXPECT_EQ(last.seat(), game.acting_seats(0));
  EXPECT_EQ(last.kind(), v1::EVENT_KIND_ACTION);
  EXPECT_EQ(last.cause(), v1::EVENT_CAUSE_PLAYER);
  EXPECT_FALSE(last.description().empty());
  EXPECT_EQ(last.action().SerializeAsString(), state.legal_actions(0).SerializeAsString());
  EXPECT_FALSE(last.has_view());
  ASSERT_TRUE(
      sessions_->ListMyGames(Bearer(other.token).get(), v1::ListMyGamesRequest(), &listed).ok());
  EXPECT_FALSE(listed.games(0).has_last_move());

  v1::MarkSeenRequest seen;
  seen.set_game_id(game.game_id());
  seen.set_version(0);
  v1::MarkSeenResponse marked;
  ASSERT_TRUE(sessions_->MarkSeen(Bearer(other.token).get(), seen, &marked).ok());
  ASSERT_TRUE(
      sessions_->ListMyGames(Bearer(other.token).get(), v1::ListMyGamesRequest(), &listed).ok());
  EXPECT_EQ(listed.games(0).seen_version(), 0);
  EXPECT_EQ(listed.games(0).unseen_versions(), version);
  seen.set_version(version);
  ASSERT_TRUE(sessions_->MarkSeen(Bearer(other.token).get(), seen, &marked).ok());
  // Never lowered.
  seen.set_version(0);
  ASSERT_TRUE(sessions_->MarkSeen(Bearer(other.token).get(), seen, &marked).ok());
  v1::GetGameResponse looked;
  ASSERT_TRUE(sessions_->GetGame(Bearer(other.token).get(), get, &looked).ok());
  EXPECT_EQ(looked.game().seen_version(), version);
  EXPECT_EQ(looked.game().unseen_versions(), 0);
  // Each player's own: the mover has marked nothing.
  ASSERT_TRUE(sessions_->GetGame(Bearer(mover.token).get(), get, &looked).ok());
  EXPECT_EQ(looked.game().seen_version(), -1);

  seen.set_version(version + 1);
  status = sessions_->MarkSeen(Bearer(other.token).get(), seen, &marked);
  EXPECT_EQ(status.error_code(), StatusCode::OUT_OF_RANGE);
  seen.set_version(0);
  status = sessions_->MarkSeen(Bearer(carol_.token).get(), seen, &marked);
  EXPECT_EQ(status.error_code(), StatusCode::NOT_FOUND);
}

TEST_F(TableTalkPgTest, ListMyGamesPutsMyTurnFirstThenTheSoonestDeadline) {
  // Five games an hour apart (each move has a day, so the first made has the soonest deadline);
  // the last one ends at once.
  std::vector<v1::Game> games;
  for (int i = 0; i < 5; ++i) {
    games.push_back(NewGame({alice_, bob_}, false));
    clock_.Advance(absl::Hours(1));
  }
  v1::ResignRequest resign;
  resign.set_game_id(games.back().game_id());
  v1::ResignResponse resigned;
  ASSERT_TRUE(sessions_->Resign(Bearer(bob_.token).get(), resign, &resigned).ok());
  std::vector<std::string> mine, waiting;
  for (int i = 0; i < 4; ++i) {
    (games[i].acting_seats(0) == 0 ? mine : waiting).push_back(games[i].game_id());
  }
  std::vector<std::string> want = mine;
  want.insert(want.end(), waiting.begin(), waiting.end());
  want.push_back(games.back().game_id());

  v1::ListMyGamesRequest request;
  request.set_order(v1::GAME_ORDER_MY_TURN_FIRST);
  v1::ListMyGamesResponse listed;
  grpc::Status status = sessions_->ListMyGames(Bearer(alice_.token).get(), request, &listed);
  ASSERT_TRUE(status.ok()) << status.error_message();
  std::vector<std::string> got;
  for (const v1::Game& g : listed.games()) got.push_back(g.game_id());
  EXPECT_EQ(got, want);
  EXPECT_TRUE(listed.next_page_token().empty());
  ASSERT_EQ(listed.games_size(), 5);
  for (size_t i = 0; i < mine.size(); ++i) EXPECT_TRUE(listed.games(static_cast<int>(i)).my_turn());

  // Page by page (two a page) gives the same order.
  got.clear();
  request.set_page_size(2);
  for (int page = 0; page < 5; ++page) {
    ASSERT_TRUE(sessions_->ListMyGames(Bearer(alice_.token).get(), request, &listed).ok());
    for (const v1::Game& g : listed.games()) got.push_back(g.game_id());
    if (listed.next_page_token().empty()) break;
    request.set_page_token(listed.next_page_token());
  }
  EXPECT_EQ(got, want);
  // A token of one order does not continue the other.
  v1::ListMyGamesRequest other;
  other.set_page_size(2);
  other.set_page_token(request.page_token());
  status = sessions_->ListMyGames(Bearer(alice_.token).get(), other, &listed);
  EXPECT_EQ(status.error_code(), StatusCode::INVALID_ARGUMENT);

  // The filter still applies: my turn only.
  request.Clear();
  request.set_order(v1::GAME_ORDER_MY_TURN_FIRST);
  request.set_filter(v1::GAME_FILTER_MY_TURN);
  ASSERT_TRUE(sessions_->ListMyGames(Bearer(alice_.token).get(), request, &listed).ok());
  got.clear();
  for (const v1::Game& g : listed.games()) got.push_back(g.game_id());
  EXPECT_EQ(got, mine);
}

// After the games in progress come the finished ones, the one that ended last first and, of games
// that ended at the same moment, the greater game id first; pages of every size give that order.
TEST_F(TableTalkPgTest, MyTurnFirstListsFinishedGamesLatestEndedFirstPageByPage) {
  const v1::Game running = NewGame({alice_, bob_}, false);
  std::vector<std::vector<std::string>> ended_together(3);  // earliest end first
  for (std::vector<std::string>& moment : ended_together) {
    clock_.Advance(absl::Minutes(1));
    for (int i = 0; i < 3; ++i) moment.push_back(Finished({alice_, bob_}).game_id());
    std::sort(moment.rbegin(), moment.rend());
  }
  std::vector<std::string> finished;
  for (auto moment = ended_together.rbegin(); moment != ended_together.rend(); ++moment) {
    finished.insert(finished.end(), moment->begin(), moment->end());
  }
  std::vector<std::string> all = {running.game_id()};
  all.insert(all.end(), finished.begin(), finished.end());
  for (const int page_size : {1, 2, 4, 100}) {
    SCOPED_TRACE(page_size);
    EXPECT_EQ(MyTurnFirst(alice_, v1::GAME_FILTER_UNSPECIFIED, page_size), all);
    EXPECT_EQ(MyTurnFirst(alice_, v1::GAME_FILTER_FINISHED, page_size), finished);
  }
  EXPECT_EQ(MyTurnFirst(bob_, v1::GAME_FILTER_FINISHED, 2), finished);
}

// A page in the my-turn-first order reads the player's games in progress and about a page of
// finished ones, not every game the player ever finished: counted in index entries read, with
// the plans of a large table (no sequential scans), on the first page and on a later one.
TEST_F(TableTalkPgTest, MyTurnFirstReadsAPageOfFinishedGamesNotEveryOne) {
  NewGame({alice_, bob_}, false);
  for (int i = 0; i < 30; ++i) {
    clock_.Advance(absl::Seconds(1));
    Finished({alice_, bob_});
  }
  pqxx::connection connection(db_url());
  const std::string seat_entries_read =
      "SELECT sum(pg_stat_get_xact_tuples_returned(indexrelid))::bigint FROM pg_index "
      "WHERE indrelid = 'sessions.seats'::regclass";
  constexpr int kPage = 3;
  // The most seat index entries either page read.
  auto most_entries_a_page_reads = [&]() -> int64_t {
    pqxx::work txn(connection);
    txn.exec0("SET LOCAL enable_seqscan = off");
    int64_t most = 0;
    std::pair<int64_t, std::string> cursor;
    for (const bool first_page : {true, false}) {
      const int64_t before = txn.exec1(seat_entries_read)[0].as<int64_t>();
      const pqxx::result page = txn.exec_params(
          table_sql::kListMyGamesByTurn, alice_.id, 0, !first_page, cursor.first,
          first_page ? std::string("00000000-0000-0000-0000-000000000000") : cursor.second, kPage);
      EXPECT_EQ(page.size(), static_cast<size_t>(kPage));
      if (page.size() != static_cast<size_t>(kPage)) return -1;
      most = std::max(most, txn.exec1(seat_entries_read)[0].as<int64_t>() - before);
      cursor = {page.back()[0].as<int64_t>(), page.back()[1].as<std::string>()};
    }
    return most;
  };
  // The seats of games that ended left dead entries in the index of games in progress, which
  // VACUUM (autovacuum, in a running system) removes. A VACUUM passes over a heap page that
  // another backend has pinned at that moment (the service's own background reads), leaving its
  // dead rows' entries for the next one, so it may take more than one.
  int64_t most = -1;
  for (int vacuums = 0; vacuums < 5; ++vacuums) {
    pqxx::nontransaction(connection).exec0("VACUUM sessions.seats");
    most = most_entries_a_page_reads();
    // One game in progress, a page of finished ones, and the entry that shows the page is full.
    if (most >= 0 && most <= 1 + kPage + 2) break;
  }
  EXPECT_GE(most, 0);
  EXPECT_LE(most, 1 + kPage + 2);
}

}  // namespace
}  // namespace parlor::sessions
