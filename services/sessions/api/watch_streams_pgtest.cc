// The bounds on WatchGame / WatchMyGames, end to end: two sessions replicas and an accounts
// server on one fresh PostgreSQL database, called through real gRPC channels. Limits are set
// small here so that each bound is reached in a few calls.
#include <chrono>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "gtest/gtest.h"
#include "parlor/accounts/v1/accounts.grpc.pb.h"
#include "parlor/sessions/v1/sessions.grpc.pb.h"
#include "pqxx/pqxx"
#include "services/accounts/accounts_server.h"
#include "services/accounts/testing/accounts_test_server.h"
#include "services/common/testing/retry_info.h"
#include "services/common/testing/test_server.h"
#include "services/sessions/sessions_server.h"
#include "services/sessions/testing/sessions_test_server.h"
#include "tests/pg/pg_test_database.h"

namespace parlor::sessions {
namespace {

using parlor::testing::RetryDelayOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr char kAlice[] = "00000000-0000-4000-8000-00000000a11c";
constexpr char kBob[] = "00000000-0000-4000-8000-0000000000b0";
constexpr char kCarol[] = "00000000-0000-4000-8000-0000000ca201";
constexpr char kDan[] = "00000000-0000-4000-8000-000000000d0d";

// Small limits, so each is reached in a few calls.
StreamLimits TestLimits() {
  StreamLimits limits;
  limits.max_streams = 1000;
  limits.max_streams_per_account = 3;
  limits.opens_per_account = {.per_minute = 6, .burst = 6};
  limits.max_catching_up = 2;
  limits.page_size = 5;
  limits.stall_timeout = absl::Seconds(2);
  limits.check_interval = absl::Milliseconds(50);
  // The catch-up budgets have a test of their own (on a replica of its own).
  limits.catch_up_events_per_second = 0;
  limits.catch_up_events_per_second_per_account = 0;
  return limits;
}

// The value of a counter series in a /metrics text, 0 when absent.
double CounterValue(const std::string& metrics, const std::string& series) {
  for (absl::string_view line : absl::StrSplit(metrics, '\n')) {
    if (!absl::StartsWith(line, series + " ")) continue;
    double value = 0;
    if (absl::SimpleAtod(line.substr(series.size() + 1), &value)) return value;
  }
  return 0;
}

template <typename Response>
struct OpenStream {
  std::unique_ptr<grpc::ClientContext> context;
  std::unique_ptr<grpc::ClientReader<Response>> reader;
};

// Reads a stream to its end and returns its status, with the number of messages read before
// it. A client gets a stream's status only after the messages sent ahead of it: a stream whose
// server has queued a message (here, WatchMyGames hears of a game created just before it
// opened whenever the NOTIFY comes after its subscription) never shows its end to a client that
// calls Finish without reading (Finish then waits out the deadline).
template <typename Response>
grpc::Status ReadToEnd(OpenStream<Response>& stream, int* read = nullptr) {
  Response message;
  int n = 0;
  while (stream.reader->Read(&message)) ++n;
  if (read != nullptr) *read = n;
  return stream.reader->Finish();
}

class WatchStreamsPgTest : public parlor::testing::PgTest {
 protected:
  void SetUp() override {
    PgTest::SetUp();
    auto accounts = accounts::StartTestAccounts(db_url(), keys_);
    ASSERT_TRUE(accounts.ok()) << accounts.status();
    accounts_ = *std::move(accounts);
    for (auto& replica : replicas_) {
      auto started = StartReplica(TestLimits());
      ASSERT_TRUE(started.ok()) << started.status();
      replica = *std::move(started);
    }
  }

  absl::StatusOr<std::unique_ptr<parlor::testing::TestServer>> StartReplica(StreamLimits limits) {
    SessionsConfig config = TestSessionsConfig("watch-test-secret");
    config.streams = limits;
    config.accounts_address = accounts_->address();
    config.service_token_private_key = keys_.service().private_key;
    return parlor::testing::TestServer::Start(
        SessionsIdentity(), parlor::testing::TestServerConfig(db_url(), keys_),
        [&config](ServiceHost& host) { return InstallSessions(host, config); });
  }

  // Reads `stream` from after_version 0 to `version`; false if an event is missing or out of
  // order, or the stream ended first.
  static bool ReadEveryVersion(OpenStream<v1::WatchGameResponse>& stream, int64_t version) {
    v1::WatchGameResponse event;
    for (int64_t expected = 1; expected <= version; ++expected) {
      if (!stream.reader->Read(&event) || event.event().version() != expected) return false;
    }
    return true;
  }

  v1::SessionsService::Stub Sessions(int replica, int window_bytes = 0) {
    if (window_bytes == 0) return v1::SessionsService::Stub(replicas_[replica]->channel());
    // A client that reads slowly: a small HTTP/2 receive window, so what it has not read stays
    // on the server.
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES, window_bytes);
    args.SetInt(GRPC_ARG_HTTP2_BDP_PROBE, 0);
    return v1::SessionsService::Stub(grpc::CreateCustomChannel(
        replicas_[replica]->address(), grpc::InsecureChannelCredentials(), args));
  }

  std::string Metrics(int replica) { return replicas_[replica]->host().metrics().Serialize(); }

  v1::Game CreateGame(const std::string& game, const std::string& match_id,
                      std::vector<std::string> players) {
    v1::CreateGameRequest request;
    request.set_match_id(match_id);
    request.set_game(game);
    for (size_t i = 0; i < players.size(); ++i) {
      v1::SeatSpec* seat = request.add_seats();
      seat->set_account_id(players[i]);
      seat->set_display_name(absl::StrCat("P", i));
    }
    request.mutable_time_control()->mutable_per_move()->mutable_limit()->set_seconds(86400);
    v1::CreateGameResponse response;
    auto internal = v1::SessionsInternalService::NewStub(replicas_[0]->channel());
    grpc::Status s = internal->CreateGame(
        parlor::testing::Bearer(keys_.ServiceToken("matchmaking")).get(), request, &response);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return response.game();
  }

  // Plays random legal moves until the game has `versions` versions or has ended; its version.
  int64_t Play(const std::string& game_id, int64_t versions) {
    std::mt19937_64 rng(7);
    v1::SessionsService::Stub stub(replicas_[0]->channel());
    v1::GetGameRequest get;
    get.set_game_id(game_id);
    for (;;) {
      v1::GetGameResponse any;
      EXPECT_TRUE(
          stub.GetGame(parlor::testing::Bearer(keys_.PlayerToken(kAlice)).get(), get, &any).ok());
      if (any.game().version() >= versions || any.game().status() == v1::GAME_STATUS_FINISHED) {
        return any.game().version();
      }
      const std::string account = any.game().seats(any.game().acting_seats(0)).account_id();
      v1::GetGameResponse mine;
      EXPECT_TRUE(
          stub.GetGame(parlor::testing::Bearer(keys_.PlayerToken(account)).get(), get, &mine).ok());
      v1::SubmitActionRequest submit;
      submit.set_game_id(game_id);
      submit.set_expected_version(mine.game().version());
      submit.set_idempotency_key(absl::StrCat("k", mine.game().version()));
      *submit.mutable_action() = mine.legal_actions(rng() % mine.legal_actions_size());
      v1::SubmitActionResponse response;
      grpc::Status s = stub.SubmitAction(parlor::testing::Bearer(keys_.PlayerToken(account)).get(),
                                         submit, &response);
      EXPECT_TRUE(s.ok()) << s.error_message();
      if (!s.ok()) return -1;
    }
  }

  OpenStream<v1::WatchGameResponse> WatchGame(v1::SessionsService::Stub& stub,
                                              const std::string& token, const std::string& game_id,
                                              int64_t after_version) {
    OpenStream<v1::WatchGameResponse> out;
    out.context = parlor::testing::Bearer(token, absl::Seconds(30));
    v1::WatchGameRequest request;
    request.set_game_id(game_id);
    request.set_after_version(after_version);
    out.reader = stub.WatchGame(out.context.get(), request);
    return out;
  }

  OpenStream<v1::WatchMyGamesResponse> WatchMyGames(v1::SessionsService::Stub& stub,
                                                    const std::string& token) {
    OpenStream<v1::WatchMyGamesResponse> out;
    out.context = parlor::testing::Bearer(token, absl::Seconds(30));
    out.reader = stub.WatchMyGames(out.context.get(), v1::WatchMyGamesRequest());
    return out;
  }

  parlor::testing::TestKeys keys_;
  std::unique_ptr<parlor::testing::TestServer> accounts_;
  std::unique_ptr<parlor::testing::TestServer> replicas_[2];
};

TEST_F(WatchStreamsPgTest, APlayerBeyondItsOpenStreamsIsRefusedWithRetryInfo) {
  v1::SessionsService::Stub stub = Sessions(0);
  const std::string token = keys_.PlayerToken(kAlice);
  std::vector<OpenStream<v1::WatchMyGamesResponse>> open;
  for (int i = 0; i < 3; ++i) {
    open.push_back(WatchMyGames(stub, token));
    open.back().reader->WaitForInitialMetadata();  // admitted
  }
  OpenStream<v1::WatchMyGamesResponse> fourth = WatchMyGames(stub, token);
  grpc::Status refused = fourth.reader->Finish();
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(refused.error_message(), HasSubstr("at most 3 watch streams per player at once"));
  const std::optional<absl::Duration> delay = RetryDelayOf(refused);
  ASSERT_TRUE(delay.has_value()) << "no google.rpc.RetryInfo";
  EXPECT_GT(*delay, absl::ZeroDuration());
  // Another player is not affected, and neither is this one on another replica.
  OpenStream<v1::WatchMyGamesResponse> bob = WatchMyGames(stub, keys_.PlayerToken(kBob));
  bob.reader->WaitForInitialMetadata();
  v1::SessionsService::Stub other = Sessions(1);
  OpenStream<v1::WatchMyGamesResponse> elsewhere = WatchMyGames(other, token);
  elsewhere.reader->WaitForInitialMetadata();
  EXPECT_GE(
      CounterValue(Metrics(0), "parlor_sessions_watch_refused_total{reason=\"account_streams\"}"),
      1);
  // Closing one frees its place, once the server has let go of it (a moment after the client
  // sees CANCELLED): here 3 streams are left on replica 0 (two of Alice's and Bob's).
  open[0].context->TryCancel();
  EXPECT_EQ(open[0].reader->Finish().error_code(), grpc::StatusCode::CANCELLED);
  for (int wait = 0; wait < 250 && CounterValue(Metrics(0), "parlor_sessions_watch_streams") > 3;
       ++wait) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const double refused_before =
      CounterValue(Metrics(0), "parlor_sessions_watch_refused_total{reason=\"account_streams\"}");
  OpenStream<v1::WatchMyGamesResponse> again = WatchMyGames(stub, token);
  // Initial metadata comes with an admission and with a refusal, which is counted before.
  again.reader->WaitForInitialMetadata();
  EXPECT_EQ(
      CounterValue(Metrics(0), "parlor_sessions_watch_refused_total{reason=\"account_streams\"}"),
      refused_before)
      << "the place closing a stream freed was not given to the next open";
  again.context->TryCancel();
  again.reader->Finish();
  for (auto& s : open) s.context->TryCancel();
  bob.context->TryCancel();
  elsewhere.context->TryCancel();
}

TEST_F(WatchStreamsPgTest, APlayerOpeningStreamsFasterThanItsRateIsRefusedWithRetryInfo) {
  v1::SessionsService::Stub stub = Sessions(0);
  const std::string token = keys_.PlayerToken(kCarol);
  // Six at once (the burst), each closed at once: the open rate, not the open count, refuses.
  // The client sees CANCELLED at once; the server lets go of a stream (and its place among the
  // player's 3 open ones) a moment later, so each open waits for that: otherwise an open could
  // be refused for the count (which takes no token from the rate) and still look CANCELLED to a
  // client that cancelled it before its refusal arrived.
  for (int i = 0; i < 6; ++i) {
    OpenStream<v1::WatchMyGamesResponse> s = WatchMyGames(stub, token);
    s.reader->WaitForInitialMetadata();
    s.context->TryCancel();
    ASSERT_EQ(s.reader->Finish().error_code(), grpc::StatusCode::CANCELLED) << i;
    for (int wait = 0; wait < 250 && CounterValue(Metrics(0), "parlor_sessions_watch_streams") > 0;
         ++wait) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ASSERT_EQ(CounterValue(Metrics(0), "parlor_sessions_watch_streams"), 0) << i;
  }
  ASSERT_EQ(
      CounterValue(Metrics(0), "parlor_sessions_watch_refused_total{reason=\"account_streams\"}"),
      0);
  OpenStream<v1::WatchMyGamesResponse> seventh = WatchMyGames(stub, token);
  grpc::Status refused = seventh.reader->Finish();
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(refused.error_message(),
              HasSubstr("at most 6 watch streams opened per minute per player; retry in"));
  const std::optional<absl::Duration> delay = RetryDelayOf(refused);
  ASSERT_TRUE(delay.has_value());
  EXPECT_GE(*delay, absl::Seconds(1));
  EXPECT_LE(*delay, absl::Seconds(10));
  EXPECT_EQ(
      CounterValue(Metrics(0), "parlor_sessions_watch_refused_total{reason=\"account_opens\"}"), 1);
}

TEST_F(WatchStreamsPgTest, CatchingUpIsCappedPerReplicaAndGoesOnlyAsFastAsTheClientReads) {
  const v1::Game game = CreateGame("kadice", "long", {kAlice, kBob});
  const int64_t version = Play(game.game_id(), 60);
  ASSERT_GE(version, 60);
  // Two slow readers (a 1 KiB window) catch up from the start and read one message each.
  v1::SessionsService::Stub slow = Sessions(0, 1024);
  auto first = WatchGame(slow, keys_.PlayerToken(kAlice), game.game_id(), 0);
  auto second = WatchGame(slow, keys_.PlayerToken(kBob), game.game_id(), 0);
  v1::WatchGameResponse event;
  ASSERT_TRUE(first.reader->Read(&event));
  EXPECT_EQ(event.event().version(), 1);
  ASSERT_TRUE(second.reader->Read(&event));
  // A third stream that needs history is refused while both catch up (the cap is 2)...
  v1::SessionsService::Stub stub = Sessions(0);
  auto alice_again = WatchGame(stub, keys_.PlayerToken(kAlice), game.game_id(), 10);
  grpc::Status refused = alice_again.reader->Finish();
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(refused.error_message(), HasSubstr("too many streams are catching up"));
  EXPECT_TRUE(RetryDelayOf(refused).has_value());
  // ...while one that starts at the current version is not.
  auto live = WatchGame(stub, keys_.PlayerToken(kAlice), game.game_id(), -1);
  ASSERT_TRUE(live.reader->Read(&event));
  EXPECT_EQ(event.event().version(), version);
  // The slow readers' streams have read a few pages, not the whole game: the server reads the
  // next page only once the client has taken the previous one.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const double pages = CounterValue(Metrics(0), "parlor_sessions_watch_pages_read_total");
  EXPECT_LT(pages, 2.0 * (static_cast<double>(version) / 5.0))
      << "two streams of " << version << " versions, 5 per page";
  // A client that reads everything gets every version once, in order.
  int64_t expected = 2;
  while (expected <= version && first.reader->Read(&event)) {
    ASSERT_EQ(event.event().version(), expected);
    ++expected;
  }
  EXPECT_EQ(expected, version + 1);
  first.context->TryCancel();
  second.context->TryCancel();
  live.context->TryCancel();
  first.reader->Finish();
  second.reader->Finish();
  live.reader->Finish();
}

TEST_F(WatchStreamsPgTest, CatchingUpIsPacedByThePlayersAndTheReplicasBudgetsNeverRefused) {
  const v1::Game game = CreateGame("kadice", "paced", {kAlice, kBob});
  const int64_t version = Play(game.game_id(), 30);
  ASSERT_GE(version, 30);
  // Budgets of 20 history events a second; a page is 5 events. Two streams catching up on 30
  // versions each send 60 events: at most 20 at once (a full budget), then 20 a second, and a
  // budget goes below zero by at most one page per stream, so they need at least
  // (60 - 20 - 2 * 5) / 20 = 1.5 s; each gets every version, in order, and neither is refused.
  const absl::Duration least = absl::Seconds((2.0 * static_cast<double>(version) - 20 - 10) / 20);
  StreamLimits per_player = TestLimits();
  per_player.catch_up_events_per_second_per_account = 20;
  StreamLimits per_replica = TestLimits();
  per_replica.catch_up_events_per_second = 20;
  for (const auto& [budget, limits] :
       {std::pair{"the player's", per_player}, std::pair{"the replica's", per_replica}}) {
    SCOPED_TRACE(budget);
    auto replica = StartReplica(limits);
    ASSERT_TRUE(replica.ok()) << replica.status();
    v1::SessionsService::Stub stub((*replica)->channel());
    // Under the player's budget one player's two streams share it; under the replica's, two
    // players' streams do.
    const bool shared_by_one_player = limits.catch_up_events_per_second_per_account > 0;
    const absl::Time start = absl::Now();
    auto first = WatchGame(stub, keys_.PlayerToken(kAlice), game.game_id(), 0);
    auto second =
        WatchGame(stub, keys_.PlayerToken(shared_by_one_player ? kAlice : kBob), game.game_id(), 0);
    std::thread other([&] { EXPECT_TRUE(ReadEveryVersion(second, version)); });
    EXPECT_TRUE(ReadEveryVersion(first, version));
    other.join();
    const absl::Duration took = absl::Now() - start;
    EXPECT_GE(took, least) << "60 history events within a budget of 20 a second";
    for (auto* stream : {&first, &second}) {
      stream->context->TryCancel();
      EXPECT_EQ(stream->reader->Finish().error_code(), grpc::StatusCode::CANCELLED);
    }
  }
}

TEST_F(WatchStreamsPgTest, AStreamThatFallsBehindEndsNamingTheVersionToResumeFrom) {
  const v1::Game game = CreateGame("kadice", "behind", {kAlice, kBob});
  const int64_t version = Play(game.game_id(), 60);
  ASSERT_GE(version, 60);
  v1::SessionsService::Stub slow = Sessions(1, 1024);
  auto stream = WatchGame(slow, keys_.PlayerToken(kAlice), game.game_id(), 0);
  v1::WatchGameResponse event;
  ASSERT_TRUE(stream.reader->Read(&event));
  // The client stops reading for longer than the stall timeout (2 s here), but not so long that
  // the server gives up on delivering the status (one more stall timeout).
  std::this_thread::sleep_for(std::chrono::milliseconds(3000));
  int64_t last = event.event().version();
  while (stream.reader->Read(&event)) last = event.event().version();
  grpc::Status ended = stream.reader->Finish();
  EXPECT_EQ(ended.error_code(), grpc::StatusCode::ABORTED);
  EXPECT_THAT(ended.error_message(), StartsWith("the stream fell behind: no message was taken"));
  EXPECT_THAT(ended.error_message(),
              HasSubstr(absl::StrCat("reconnect with after_version=", last)));
  EXPECT_LT(last, version);
  // Reconnecting as told continues exactly after it.
  v1::SessionsService::Stub stub = Sessions(1);
  auto resumed = WatchGame(stub, keys_.PlayerToken(kAlice), game.game_id(), last);
  ASSERT_TRUE(resumed.reader->Read(&event));
  EXPECT_EQ(event.event().version(), last + 1);
  resumed.context->TryCancel();
  resumed.reader->Finish();
  EXPECT_EQ(CounterValue(Metrics(1), "parlor_sessions_watch_ended_total{reason=\"fell_behind\"}"),
            1);
}

TEST_F(WatchStreamsPgTest, CaughtUpEventsCarryTheSummaryAsOfTheirVersion) {
  const v1::Game game = CreateGame("kadice", "as-of", {kAlice, kBob});
  const int64_t version = Play(game.game_id(), 12);
  ASSERT_GE(version, 12);
  v1::SessionsService::Stub stub = Sessions(0);
  auto stream = WatchGame(stub, keys_.PlayerToken(kAlice), game.game_id(), 0);
  v1::GetHistoryRequest history_request;
  history_request.set_game_id(game.game_id());
  history_request.set_from_version(1);
  history_request.set_page_size(200);
  v1::GetHistoryResponse history;
  ASSERT_TRUE(stub.GetHistory(parlor::testing::Bearer(keys_.PlayerToken(kAlice)).get(),
                              history_request, &history)
                  .ok());
  for (int64_t v = 1; v <= version; ++v) {
    v1::WatchGameResponse event;
    ASSERT_TRUE(stream.reader->Read(&event));
    SCOPED_TRACE(v);
    ASSERT_EQ(event.event().version(), v);
    // Once: every event came with the current summary (version 12, whoever acts now).
    EXPECT_EQ(event.game().version(), v);
    EXPECT_EQ(event.game().update_time().seconds(), event.event().time().seconds());
    EXPECT_EQ(event.game().update_time().nanos(), event.event().time().nanos());
    // Who acts at v is who made move v + 1 (or, at the newest version, who acts now).
    if (v < version) {
      const int next_seat = history.events(static_cast<int>(v)).seat();
      EXPECT_THAT(event.game().acting_seats(), ::testing::Contains(next_seat));
      EXPECT_EQ(event.game().my_turn(), next_seat == event.game().my_seat());
      EXPECT_FALSE(event.game().has_deadline());
    } else {
      EXPECT_TRUE(event.game().has_deadline());
    }
    EXPECT_EQ(event.event().view().SerializeAsString(),
              history.events(static_cast<int>(v - 1)).view().SerializeAsString());
    EXPECT_EQ(event.event().description(), history.events(static_cast<int>(v - 1)).description());
  }
  stream.context->TryCancel();
  stream.reader->Finish();
}

TEST_F(WatchStreamsPgTest, AStreamEndsUnauthenticatedWhenItsTokenExpires) {
  const v1::Game game = CreateGame("kadice", "expiry", {kAlice, kBob});
  // A token with two seconds left (its own expiry, not the verifier's clock-skew leeway).
  const std::string token =
      keys_.PlayerToken(kAlice, absl::Now() - absl::Minutes(15) + absl::Seconds(2));
  v1::SessionsService::Stub stub = Sessions(0);
  auto game_stream = WatchGame(stub, token, game.game_id(), -1);
  auto my_games = WatchMyGames(stub, token);
  v1::WatchGameResponse event;
  ASSERT_TRUE(game_stream.reader->Read(&event));
  my_games.reader->WaitForInitialMetadata();
  const absl::Time start = absl::Now();
  grpc::Status ended = ReadToEnd(game_stream);
  EXPECT_EQ(ended.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(ended.error_message(), HasSubstr("has expired"));
  int summaries = 0;
  grpc::Status ended_too = ReadToEnd(my_games, &summaries);
  EXPECT_EQ(ended_too.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(ended_too.error_message(), HasSubstr("has expired"));
  EXPECT_LE(summaries, 1) << "at most the game created just before the stream opened";
  EXPECT_LT(absl::Now() - start, absl::Seconds(4));
  // Counted by the guard's thread right after it ended them.
  double ended_count = 0;
  for (int i = 0; i < 50 && ended_count < 2; ++i) {
    ended_count =
        CounterValue(Metrics(0), "parlor_sessions_watch_ended_total{reason=\"token_expired\"}");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(ended_count, 2);
}

TEST_F(WatchStreamsPgTest, SignOutOnAccountsEndsTheSessionsStreamsOnEveryReplicaWithinASecond) {
  auto accounts = accounts::v1::AccountsService::NewStub(accounts_->channel());
  accounts::v1::AuthenticateDeviceRequest sign_in;
  sign_in.set_device_id("device-watch-01");
  sign_in.set_display_name("Watcher");
  accounts::v1::AuthenticateDeviceResponse signed_in;
  ASSERT_TRUE(
      accounts->AuthenticateDevice(parlor::testing::Bearer("").get(), sign_in, &signed_in).ok());
  const std::string token = signed_in.tokens().access_token();
  const std::string account = signed_in.account().account_id();
  const v1::Game game = CreateGame("kadice", "sign-out", {account, kDan});
  // The same session watches on both replicas; another session of the same player (a second
  // device) must keep its stream.
  v1::SessionsService::Stub on_a = Sessions(0);
  v1::SessionsService::Stub on_b = Sessions(1);
  auto game_on_a = WatchGame(on_a, token, game.game_id(), -1);
  auto mine_on_b = WatchMyGames(on_b, token);
  v1::WatchGameResponse event;
  ASSERT_TRUE(game_on_a.reader->Read(&event));
  mine_on_b.reader->WaitForInitialMetadata();
  const std::string other_device = keys_.PlayerToken(account);
  auto other = WatchMyGames(on_b, other_device);
  other.reader->WaitForInitialMetadata();

  accounts::v1::SignOutResponse signed_out;
  ASSERT_TRUE(accounts->SignOut(parlor::testing::Bearer(token).get(), {}, &signed_out).ok());
  const absl::Time start = absl::Now();
  grpc::Status a = ReadToEnd(game_on_a);
  int summaries = 0;
  grpc::Status b = ReadToEnd(mine_on_b, &summaries);
  const absl::Duration took = absl::Now() - start;
  EXPECT_EQ(a.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(a.error_message(), HasSubstr("signed out"));
  EXPECT_EQ(b.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(b.error_message(), HasSubstr("signed out"));
  EXPECT_LE(summaries, 1) << "at most the game created just before the stream opened";
  EXPECT_LT(took, absl::Seconds(1)) << "streams ended " << took << " after SignOut";
  // The signed-out token cannot open a new stream either.
  auto again = WatchMyGames(on_a, token);
  grpc::Status refused = again.reader->Finish();
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  // The other session's stream is still open.
  other.context->TryCancel();
  EXPECT_EQ(other.reader->Finish().error_code(), grpc::StatusCode::CANCELLED);
}

TEST_F(WatchStreamsPgTest, AStreamOpenedAsAMoveCommitsStillDeliversThatMove) {
  // The stream subscribes to the replica's change feed before its first read, so a move that
  // commits while the stream opens is either in that read or wakes the next one. Each round
  // opens a stream from the game's first version while the move is submitted 0 to 4 ms later, on
  // the same replica or the other one.
  std::mt19937_64 rng(11);
  v1::SessionsService::Stub mover(replicas_[0]->channel());
  for (int round = 0; round < 150; ++round) {
    // New players each round: a player may open only a few streams a minute.
    const std::string first = absl::StrFormat("00000000-0000-4000-8000-%012d", 1000 + 2 * round);
    const std::string second = absl::StrFormat("00000000-0000-4000-8000-%012d", 1001 + 2 * round);
    const v1::Game game = CreateGame("pico", absl::StrCat("race-", round), {first, second});
    const std::string actor = game.seats(game.acting_seats(0)).account_id();
    v1::GetGameRequest get;
    get.set_game_id(game.game_id());
    v1::GetGameResponse mine;
    ASSERT_TRUE(
        mover.GetGame(parlor::testing::Bearer(keys_.PlayerToken(actor)).get(), get, &mine).ok());
    v1::SubmitActionRequest submit;
    submit.set_game_id(game.game_id());
    submit.set_expected_version(mine.game().version());
    submit.set_idempotency_key("race");
    *submit.mutable_action() = mine.legal_actions(0);
    const auto delay = std::chrono::microseconds(rng() % 4000);
    v1::SubmitActionResponse moved;
    std::thread move([&] {
      std::this_thread::sleep_for(delay);
      grpc::Status s = mover.SubmitAction(parlor::testing::Bearer(keys_.PlayerToken(actor)).get(),
                                          submit, &moved);
      EXPECT_TRUE(s.ok()) << s.error_message();
    });
    v1::SessionsService::Stub watcher = Sessions(round % 2);
    auto stream = WatchGame(watcher, keys_.PlayerToken(first), game.game_id(), game.version());
    move.join();
    v1::WatchGameResponse event;
    bool delivered = false;
    while (!delivered && stream.reader->Read(&event)) {
      delivered = event.event().version() >= moved.game().version();
    }
    ASSERT_TRUE(delivered) << "round " << round << " (stream on replica " << round % 2
                           << ", move after " << delay.count() << " us): version "
                           << moved.game().version() << " never came; the stream ended with "
                           << stream.reader->Finish().error_message();
    stream.context->TryCancel();
    stream.reader->Finish();
  }
}

TEST_F(WatchStreamsPgTest, AMoveCommittedWhileTheChangeFeedIsDisconnectedIsStillDelivered) {
  const v1::Game game = CreateGame("pico", "feed-lost", {kAlice, kBob});
  v1::SessionsService::Stub stub = Sessions(1);
  auto stream = WatchGame(stub, keys_.PlayerToken(kAlice), game.game_id(), game.version());
  // The stream's first read is done (else, on a busy machine, it could run after the move below
  // and deliver it without any feed).
  for (int wait = 0;
       wait < 500 && CounterValue(Metrics(1), "parlor_sessions_watch_pages_read_total") < 1;
       ++wait) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_GE(CounterValue(Metrics(1), "parlor_sessions_watch_pages_read_total"), 1);
  // The replicas' change feeds lose their connections; the move commits before they listen
  // again (a feed waits half a second before it reconnects), so no replica hears of it.
  pqxx::connection admin(db_url());
  auto feeds_of_this_database = [&admin](const char* what) {
    pqxx::nontransaction txn(admin);
    return txn
        .exec1(absl::StrCat("SELECT count(", what,
                            ") FROM pg_stat_activity WHERE datname = current_database() "
                            "AND application_name = 'parlor-sessions-watch-feed'"))[0]
        .as<int>();
  };
  ASSERT_EQ(feeds_of_this_database("pg_terminate_backend(pid)"), 2);
  for (int wait = 0; wait < 200 && feeds_of_this_database("*") > 0; ++wait) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_EQ(feeds_of_this_database("*"), 0);
  const double heard_before = CounterValue(Metrics(1), "parlor_sessions_watch_changes_total");
  const int64_t version = Play(game.game_id(), game.version() + 1);
  ASSERT_EQ(version, game.version() + 1);
  // Once the feed is back it resyncs: the open stream reads again and delivers the move.
  v1::WatchGameResponse event;
  ASSERT_TRUE(stream.reader->Read(&event))
      << "the stream never delivered the move committed while the feed was disconnected";
  EXPECT_EQ(event.event().version(), version);
  // The counters are set as the feed works, not before the stream's delivery: wait for them.
  const auto counter_reaches = [this](const char* name, auto done) {
    for (int wait = 0; wait < 500; ++wait) {
      if (done(CounterValue(Metrics(1), name))) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  };
  EXPECT_TRUE(counter_reaches("parlor_sessions_watch_feed_resyncs_total",
                              [](double resyncs) { return resyncs == 1; }));
  EXPECT_EQ(CounterValue(Metrics(1), "parlor_sessions_watch_changes_total"), heard_before)
      << "the feed heard of the move: it was delivered by the change, not by the resync";
  // Changes committed after the feed is back are heard again.
  ASSERT_EQ(Play(game.game_id(), version + 1), version + 1);
  ASSERT_TRUE(stream.reader->Read(&event));
  EXPECT_EQ(event.event().version(), version + 1);
  EXPECT_TRUE(counter_reaches("parlor_sessions_watch_changes_total",
                              [heard_before](double heard) { return heard > heard_before; }));
  stream.context->TryCancel();
  stream.reader->Finish();
}

}  // namespace
}  // namespace parlor::sessions
