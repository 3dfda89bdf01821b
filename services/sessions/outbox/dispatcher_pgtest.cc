// The outbox dispatcher over a real PostgreSQL: notifications written by moves are delivered at
// least once (retried with backoff), results are reported or held, and the webhook adapter
// speaks HTTP to a real socket.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "engine/games/all_games.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "pqxx/pqxx"
#include "prometheus/registry.h"
#include "services/common/db/migrations.h"
#include "services/common/testing/status_matchers.h"
#include "services/sessions/api/calls.h"
#include "services/sessions/domain/sessions.h"
#include "services/sessions/outbox/dispatcher.h"
#include "services/sessions/outbox/ratings_reporter.h"
#include "services/sessions/store/change_listener.h"
#include "services/sessions/testing/metric_value.h"
#include "tests/pg/pg_test_database.h"

namespace parlor::sessions {
namespace {

using ::parlor::testing::IsOk;
using ::testing::HasSubstr;

constexpr char kAlice[] = "00000000-0000-4000-8000-00000000a11c";
constexpr char kBob[] = "00000000-0000-4000-8000-0000000000b0";

// Thread-safe: the DispatchLoop test sends from the loop's thread.
class RecordingPush final : public PushAdapter {
 public:
  absl::Status Send(const std::string&, const NotificationRow& n) override {
    std::lock_guard<std::mutex> lock(mu);
    if (fail_next > 0) {
      --fail_next;
      return absl::UnavailableError("gateway down");
    }
    sent.push_back(n);
    return absl::OkStatus();
  }
  absl::string_view Name() const override { return "recording"; }
  size_t SentCount() {
    std::lock_guard<std::mutex> lock(mu);
    return sent.size();
  }
  std::mutex mu;
  int fail_next = 0;
  std::vector<NotificationRow> sent;
};

class RecordingReporter final : public ResultReporter {
 public:
  absl::Status Report(const GameRow& game) override {
    auto request = BuildReportResult(game);
    if (!request.ok()) return request.status();
    reported.push_back(*request);
    return absl::OkStatus();
  }
  std::vector<ratings::v1::ReportResultRequest> reported;
};

class DispatcherPgTest : public parlor::testing::PgTest {
 protected:
  void SetUp() override {
    PgTest::SetUp();
    ASSERT_THAT(ApplyMigrations(db_url(), MigrationSet{"sessions", PARLOR_SESSIONS_MIGRATIONS_DIR}),
                IsOk());
    pool_ = std::make_unique<DbPool>(DbOptions{.url = db_url(), .max_connections = 2}, nullptr);
    store_ = std::make_unique<PgSessionsStore>(pool_.get());
    registry_ = std::make_unique<engine::Registry>(engine::AllGames());
    now_ = absl::FromUnixSeconds(1'800'000'000);
    sessions_ = std::make_unique<Sessions>(
        store_.get(), registry_.get(), [this] { return now_.load(); }, Sessions::Options{});
  }

  std::string CreateRankedGame(const std::string& match_id = "m") {
    const engine::Game& game = *registry_->games().front();
    v1::CreateGameRequest r;
    r.set_match_id(match_id);
    r.set_game(game.name());
    r.set_ranked(true);
    const char* players[] = {kAlice, kBob};
    for (int i = 0; i < 2; ++i) {
      v1::SeatSpec* seat = r.add_seats();
      seat->set_account_id(players[i]);
      seat->set_display_name(absl::StrCat("P", i));
    }
    r.mutable_time_control()->mutable_per_move()->mutable_limit()->set_seconds(3600);
    v1::CreateGameResponse out;
    EXPECT_THAT(calls::CreateGame(*sessions_, r, &out), IsOk());
    return out.game().game_id();
  }

  int64_t Count(const std::string& query) {
    pqxx::connection c(db_url());
    pqxx::read_transaction txn(c);
    return txn.exec1(query)[0].as<int64_t>();
  }

  std::unique_ptr<DbPool> pool_;
  std::unique_ptr<PgSessionsStore> store_;
  std::unique_ptr<engine::Registry> registry_;
  std::atomic<absl::Time> now_;
  std::unique_ptr<Sessions> sessions_;
};

TEST_F(DispatcherPgTest, NotificationsAreDeliveredAtLeastOnceWithBackoff) {
  CreateRankedGame();
  const int64_t pending = Count("SELECT count(*) FROM sessions.notification_outbox");
  ASSERT_GT(pending, 0);
  RecordingPush push;
  push.fail_next = 1;
  OutboxDispatcher dispatcher(store_.get(), &push, nullptr, [this] { return now_.load(); }, {});
  auto first = dispatcher.DrainOnce();
  ASSERT_THAT(first, IsOk());
  EXPECT_EQ(first->failed, 1);
  EXPECT_EQ(first->sent, pending - 1);
  // The failed one is not retried before its backoff, then is.
  auto again = dispatcher.DrainOnce();
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(again->sent + again->failed, 0);
  now_ = now_.load() + absl::Seconds(2);
  auto later = dispatcher.DrainOnce();
  ASSERT_THAT(later, IsOk());
  EXPECT_EQ(later->sent, 1);
  // Delivered rows leave the outbox in the transaction that delivered them.
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.notification_outbox"), 0);
  EXPECT_EQ(static_cast<int64_t>(push.sent.size()), pending);
  EXPECT_THAT(push.sent[0].dedupe_key, HasSubstr("turn:"));
}

TEST_F(DispatcherPgTest, AFailedDeliveryCountsItsAttemptAndKeepsTheError) {
  CreateRankedGame();
  RecordingPush push;
  push.fail_next = 1;
  OutboxDispatcher dispatcher(store_.get(), &push, nullptr, [this] { return now_.load(); }, {});
  ASSERT_THAT(dispatcher.DrainOnce(), IsOk());
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.notification_outbox WHERE attempts = 1 AND "
                  "last_error LIKE '%gateway down%'"),
            1);
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.notification_outbox"), 1);
}

// The store hands a batch over oldest due first, and a receiver that names one row twice (or a
// row of no batch) has that row put back once.
TEST_F(DispatcherPgTest, ABatchComesOldestFirstAndAFailureNamedTwiceIsPutBackOnce) {
  CreateRankedGame("m1");
  CreateRankedGame("m2");
  const int64_t pending = Count("SELECT count(*) FROM sessions.notification_outbox");
  ASSERT_GE(pending, 2);
  OutboxStore outbox(pool_.get());
  std::vector<int64_t> ids;
  absl::StatusOr<OutboxStore::Delivery> delivery = outbox.DeliverNotifications(
      now_.load(), 100, [&](const std::vector<OutboxStore::PendingNotification>& batch) {
        for (const auto& n : batch) ids.push_back(n.id);
        const OutboxStore::Failure failure{
            .id = batch[0].id, .retry_at = now_.load() + absl::Seconds(1), .error = "busy"};
        OutboxStore::Failure stranger = failure;
        stranger.id = -1;
        return std::vector<OutboxStore::Failure>{failure, failure, stranger};
      });
  ASSERT_THAT(delivery, IsOk());
  EXPECT_EQ(delivery->taken, pending);
  EXPECT_EQ(delivery->failed, 1);
  // Rows of one creation are due at once: oldest first is then the order they were written.
  EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end()));
  EXPECT_EQ(Count(absl::StrCat("SELECT count(*) FROM sessions.notification_outbox WHERE id = ",
                               ids[0], " AND attempts = 1 AND last_error = 'busy'")),
            1);
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.notification_outbox"), 1);
}

// Holds a batch inside SendBatch until released, as a slow receiver would.
class BlockingPush final : public PushAdapter {
 public:
  absl::Status Send(const std::string&, const NotificationRow&) override {
    return absl::OkStatus();
  }
  std::vector<absl::Status> SendBatch(
      const std::vector<OutboxStore::PendingNotification>& batch) override {
    std::unique_lock<std::mutex> lock(mu_);
    taken_ += static_cast<int>(batch.size());
    inside_ = true;
    cv_.notify_all();
    cv_.wait(lock, [this] { return released_; });
    return std::vector<absl::Status>(batch.size(), absl::OkStatus());
  }
  absl::string_view Name() const override { return "blocking"; }
  void WaitUntilInside() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return inside_; });
  }
  void Release() {
    std::lock_guard<std::mutex> lock(mu_);
    released_ = true;
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool inside_ = false;
  bool released_ = false;
  int taken_ = 0;
};

// Two replicas' dispatchers never hand the same row out at once: a batch being delivered is
// locked until its transaction ends, and the other dispatcher skips it.
TEST_F(DispatcherPgTest, ABatchBeingDeliveredIsSkippedByAnotherDispatcher) {
  CreateRankedGame();
  const int64_t pending = Count("SELECT count(*) FROM sessions.notification_outbox");
  ASSERT_GT(pending, 0);
  BlockingPush slow;
  OutboxDispatcher first(store_.get(), &slow, nullptr, [this] { return now_.load(); }, {});
  absl::StatusOr<OutboxDispatcher::Drained> first_drained;
  std::thread delivering([&] { first_drained = first.DrainOnce(); });
  slow.WaitUntilInside();
  RecordingPush other;
  OutboxDispatcher second(store_.get(), &other, nullptr, [this] { return now_.load(); }, {});
  absl::StatusOr<OutboxDispatcher::Drained> second_drained = second.DrainOnce();
  slow.Release();
  delivering.join();
  ASSERT_THAT(second_drained, IsOk());
  EXPECT_EQ(second_drained->sent + second_drained->failed, 0);
  EXPECT_TRUE(other.sent.empty());
  ASSERT_THAT(first_drained, IsOk());
  EXPECT_EQ(first_drained->sent, pending);
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.notification_outbox"), 0);
}

// Sends a batch, then cuts every other connection to the database (the dispatcher's among them)
// before the dispatcher can delete what it sent, once.
class SendThenCutConnections final : public PushAdapter {
 public:
  explicit SendThenCutConnections(std::string db_url) : db_url_(std::move(db_url)) {}
  absl::Status Send(const std::string&, const NotificationRow& n) override {
    sent.push_back(n.dedupe_key);
    return absl::OkStatus();
  }
  std::vector<absl::Status> SendBatch(
      const std::vector<OutboxStore::PendingNotification>& batch) override {
    std::vector<absl::Status> answers = PushAdapter::SendBatch(batch);
    if (!cut_) {
      cut_ = true;
      pqxx::connection c(db_url_);
      pqxx::nontransaction txn(c);
      txn.exec(
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
          "WHERE datname = current_database() AND pid <> pg_backend_pid()");
    }
    return answers;
  }
  absl::string_view Name() const override { return "cutting"; }
  std::vector<std::string> sent;

 private:
  std::string db_url_;
  bool cut_ = false;
};

// Nothing sent is lost when the transaction that would delete it dies: the rows come back and
// are delivered again (at least once; the receiver drops the repeated dedupe keys).
TEST_F(DispatcherPgTest, ABatchWhoseTransactionDiesAfterSendingIsDeliveredAgain) {
  CreateRankedGame();
  const int64_t pending = Count("SELECT count(*) FROM sessions.notification_outbox");
  ASSERT_GT(pending, 0);
  std::set<std::string> written;
  {
    pqxx::connection c(db_url());
    pqxx::read_transaction txn(c);
    for (const pqxx::row& r : txn.exec("SELECT dedupe_key FROM sessions.notification_outbox")) {
      written.insert(r[0].as<std::string>());
    }
  }
  SendThenCutConnections push(db_url());
  OutboxDispatcher dispatcher(store_.get(), &push, nullptr, [this] { return now_.load(); }, {});
  // The first drain may fail (its connection is gone) or retry on a new one; either way the
  // rows it sent stay until a drain deletes them.
  (void)dispatcher.DrainOnce();
  for (int i = 0; i < 3 && Count("SELECT count(*) FROM sessions.notification_outbox") > 0; ++i) {
    ASSERT_THAT(dispatcher.DrainOnce(), IsOk());
  }
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.notification_outbox"), 0);
  EXPECT_EQ(std::set<std::string>(push.sent.begin(), push.sent.end()), written);
  EXPECT_EQ(static_cast<int64_t>(push.sent.size()), 2 * pending);
}

TEST_F(DispatcherPgTest, DrainSettlesWholeBatchesAndCountsFailuresByAdapter) {
  for (int i = 0; i < 4; ++i) CreateRankedGame(absl::StrCat("m", i));
  const int64_t pending = Count("SELECT count(*) FROM sessions.notification_outbox");
  ASSERT_GE(pending, 4);
  RecordingPush push;
  push.fail_next = 2;
  prometheus::Registry registry;
  SessionsMetrics metrics(&registry);
  OutboxDispatcher dispatcher(store_.get(), &push, nullptr, [this] { return now_.load(); },
                              {.batch = 3, .metrics = &metrics});
  EXPECT_EQ(parlor::testing::MetricValue(registry, "parlor_sessions_notifications_failed_total",
                                         {{"adapter", "recording"}}),
            0);
  auto drained = dispatcher.Drain();
  ASSERT_THAT(drained, IsOk());
  EXPECT_EQ(drained->sent, pending - 2);
  EXPECT_EQ(drained->failed, 2);
  EXPECT_FALSE(drained->more);
  EXPECT_EQ(parlor::testing::MetricValue(registry, "parlor_sessions_notifications_failed_total",
                                         {{"adapter", "recording"}}),
            2);
  EXPECT_EQ(parlor::testing::MetricValue(registry, "parlor_sessions_notifications_delivered_total",
                                         {{"adapter", "recording"}}),
            pending - 2);
  // Each delivered once; the two failures wait for their retry, with the error kept.
  std::set<std::string> keys;
  for (const NotificationRow& n : push.sent) keys.insert(n.dedupe_key);
  EXPECT_EQ(static_cast<int64_t>(keys.size()), pending - 2);
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.notification_outbox WHERE sent_at IS NULL AND "
                  "last_error LIKE '%gateway down%'"),
            2);
  absl::StatusOr<OutboxStore::Health> health = OutboxStore(pool_.get()).GetHealth();
  ASSERT_THAT(health, IsOk());
  EXPECT_EQ(health->notifications.pending, 2);
  EXPECT_EQ(health->notifications.oldest, now_.load());  // written at the test clock's now
  EXPECT_EQ(health->results.pending, 0);
  now_ = now_.load() + absl::Seconds(2);
  drained = dispatcher.Drain();
  ASSERT_THAT(drained, IsOk());
  EXPECT_EQ(drained->sent, 2);
  EXPECT_EQ(static_cast<int64_t>(push.sent.size()), pending);
  health = OutboxStore(pool_.get()).GetHealth();
  ASSERT_THAT(health, IsOk());
  EXPECT_EQ(health->notifications.pending, 0);
  EXPECT_EQ(health->notifications.oldest, absl::InfiniteFuture());
}

TEST_F(DispatcherPgTest, TheLoopDeliversWhenAChangeIsAnnouncedWithoutWaitingForItsInterval) {
  RecordingPush push;
  OutboxDispatcher dispatcher(store_.get(), &push, nullptr, [this] { return now_.load(); }, {});
  DispatchLoop loop(&dispatcher, std::make_unique<PgChangeFeed>(db_url(), "parlor-dispatcher-test"),
                    /*interval=*/absl::Hours(1), /*coalesce=*/absl::Milliseconds(10));
  // The loop listens once it is running; announcements before that would be missed, so keep
  // creating games (each announces itself) until one is delivered.
  const absl::Time give_up = absl::Now() + absl::Seconds(20);
  for (int i = 0; push.SentCount() == 0 && absl::Now() < give_up; ++i) {
    CreateRankedGame(absl::StrCat("loop", i));
    for (int j = 0; j < 20 && push.SentCount() == 0; ++j) absl::SleepFor(absl::Milliseconds(25));
  }
  EXPECT_GT(push.SentCount(), 0u);
}

TEST_F(DispatcherPgTest, ResultsAreHeldWithoutAReporterAndReportedOnceWithOne) {
  const std::string game_id = CreateRankedGame();
  v1::ResignRequest resign;
  resign.set_game_id(game_id);
  v1::ResignResponse resigned;
  ASSERT_THAT(calls::Resign(*sessions_, kAlice, resign, &resigned), IsOk());
  RecordingPush push;
  OutboxDispatcher held(store_.get(), &push, nullptr, [this] { return now_.load(); }, {});
  ASSERT_THAT(held.DrainOnce(), IsOk());
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.result_outbox WHERE acked_at IS NULL"), 1);
  RecordingReporter reporter;
  OutboxDispatcher sender(store_.get(), &push, &reporter, [this] { return now_.load(); }, {});
  auto drained = sender.DrainOnce();
  ASSERT_THAT(drained, IsOk());
  EXPECT_EQ(drained->results_acked, 1);
  ASSERT_EQ(reporter.reported.size(), 1u);
  const ratings::v1::ReportResultRequest& report = reporter.reported[0];
  EXPECT_EQ(report.game_id(), game_id);
  EXPECT_TRUE(report.ranked());
  ASSERT_EQ(report.placements_size(), 2);
  EXPECT_EQ(report.placements(0).account_id(), kAlice);
  EXPECT_EQ(report.placements(0).rank(), 2);  // resigned
  EXPECT_EQ(report.placements(1).rank(), 1);
  now_ = now_.load() + absl::Hours(2);
  ASSERT_THAT(sender.DrainOnce(), IsOk());
  EXPECT_EQ(reporter.reported.size(), 1u);  // acknowledged: never again
}

// A one-connection-at-a-time HTTP server answering with the given status codes in turn.
class TinyHttpServer {
 public:
  explicit TinyHttpServer(std::vector<int> codes) : codes_(std::move(codes)) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    socklen_t len = sizeof(addr);
    getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    listen(fd_, 4);
    thread_ = std::thread([this] { Serve(); });
  }
  ~TinyHttpServer() {
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    thread_.join();
  }
  int port() const { return port_; }
  std::vector<std::string> requests;

 private:
  void Serve() {
    for (int code : codes_) {
      int c = accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      std::string request;
      char buf[4096];
      // Read headers and the body (Content-Length).
      for (;;) {
        ssize_t n = read(c, buf, sizeof(buf));
        if (n <= 0) break;
        request.append(buf, static_cast<size_t>(n));
        size_t end = request.find("\r\n\r\n");
        if (end == std::string::npos) continue;
        size_t cl = request.find("Content-Length: ");
        size_t length = cl == std::string::npos ? 0 : std::stoul(request.substr(cl + 16));
        if (request.size() >= end + 4 + length) break;
      }
      requests.push_back(request);
      const std::string answer =
          absl::StrCat("HTTP/1.1 ", code, " X\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
      (void)write(c, answer.data(), answer.size());
      close(c);
    }
  }
  std::vector<int> codes_;
  int fd_;
  int port_;
  std::thread thread_;
};

TEST(WebhookPushAdapterTest, PostsJsonWithTheDedupeKeyAndClassifiesAnswers) {
  TinyHttpServer server({200, 503, 400});
  WebhookPushAdapter push(absl::StrCat("http://127.0.0.1:", server.port(), "/push"),
                          absl::Seconds(5));
  NotificationRow n;
  n.account_id = kAlice;
  n.kind = "your_turn";
  n.version = 3;
  n.dedupe_key = "turn:g:3:0";
  n.payload_json = "{\"text\":\"It is your turn\"}";
  EXPECT_THAT(push.Send("g", n), IsOk());
  EXPECT_THAT(push.Send("g", n),
              parlor::testing::StatusIs(absl::StatusCode::kUnavailable, HasSubstr("503")));
  EXPECT_THAT(push.Send("g", n),
              parlor::testing::StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("400")));
  ASSERT_GE(server.requests.size(), 1u);
  EXPECT_THAT(server.requests[0], HasSubstr("POST /push"));
  EXPECT_THAT(server.requests[0], HasSubstr("Idempotency-Key: turn:g:3:0"));
  EXPECT_THAT(server.requests[0], HasSubstr("\"kind\":\"your_turn\""));
  EXPECT_THAT(server.requests[0], HasSubstr("\"payload\":{\"text\":\"It is your turn\"}"));
}

TEST(BuildReportResultTest, GamesWithComputerSeatsAreNotReported) {
  GameRow game;
  game.finished = true;
  game.seats.resize(2);
  game.seats[0].account_id = kAlice;
  game.seats[1].seat = 1;
  game.seats[1].bot = "random";
  game.ranks = {1, 2};
  EXPECT_THAT(BuildReportResult(game),
              parlor::testing::StatusIs(absl::StatusCode::kCancelled, HasSubstr("computer")));
}

}  // namespace
}  // namespace parlor::sessions
