// The sessions service end to end through the real transport: two replicas (the shared
// TestServer running sessions) on one fresh PostgreSQL database, called through real gRPC
// channels.
#include <atomic>
#include <chrono>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "engine/core/rng.h"
#include "engine/games/all_games.h"
#include "gmock/gmock.h"
#include "google/protobuf/unknown_field_set.h"
#include "gtest/gtest.h"
#include "parlor/sessions/v1/sessions.grpc.pb.h"
#include "services/common/core/token.h"
#include "services/common/testing/test_server.h"
#include "services/sessions/domain/engine_glue.h"
#include "services/sessions/sessions_server.h"
#include "services/sessions/testing/stored_record.h"
#include "tests/pg/pg_test_database.h"

namespace parlor::sessions {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using v1::SessionsInternalService;
using v1::SessionsService;

constexpr char kAlice[] = "00000000-0000-4000-8000-00000000a11c";
constexpr char kBob[] = "00000000-0000-4000-8000-0000000000b0";
const char* const kPlayers[] = {kAlice, kBob, "00000000-0000-4000-8000-0000000ca201",
                                "00000000-0000-4000-8000-000000000d0d"};

struct TestClock {
  std::atomic<absl::Time> now{absl::Now()};
};

struct Replica {
  std::unique_ptr<parlor::testing::TestServer> server;
  std::unique_ptr<SessionsService::Stub> sessions;
  std::unique_ptr<SessionsInternalService::Stub> internal;
};

class SessionsApiPgTest : public parlor::testing::PgTest {
 protected:
  void SetUp() override {
    PgTest::SetUp();
    for (int i = 0; i < 2; ++i) StartReplica(&replicas_[i]);
  }

  void StartReplica(Replica* r) {
    SessionsConfig config;
    config.page_token_secret = "test-secret";
    config.sweep_interval = absl::ZeroDuration();  // swept explicitly with the test clock
    config.gauge_interval = absl::Seconds(1);
    // The outboxes stay as the moves left them (the bad-input test compares the database
    // before and after); the dispatcher has its own test.
    config.dispatch_interval = absl::ZeroDuration();
    auto server = parlor::testing::TestServer::Start(
        SessionsIdentity(), parlor::testing::TestServerConfig(db_url(), keys_),
        [&config, clock = clock_](ServiceHost& host) {
          return InstallSessions(host, config, [clock] { return clock->now.load(); });
        });
    ASSERT_TRUE(server.ok()) << server.status();
    r->server = *std::move(server);
    r->sessions = SessionsService::NewStub(r->server->channel());
    r->internal = SessionsInternalService::NewStub(r->server->channel());
  }

  void TearDown() override {
    for (Replica& r : replicas_) r.server.reset();
  }

  std::string PlayerToken(const std::string& account) { return keys_.PlayerToken(account); }
  std::string ServiceToken() { return keys_.ServiceToken(); }
  static std::unique_ptr<grpc::ClientContext> With(const std::string& token, int seconds = 20) {
    return parlor::testing::Bearer(token, absl::Seconds(seconds));
  }

  std::string Digest() {
    auto digest = parlor::testing::SchemaContentDigest(db_url(), "sessions");
    EXPECT_TRUE(digest.ok()) << digest.status();
    return digest.value_or("");
  }

  v1::Game CreateGame(const engine::Game& game, const std::string& match_id, Replica& r,
                      v1::Visibility visibility = v1::VISIBILITY_UNSPECIFIED) {
    v1::CreateGameRequest request;
    request.set_visibility(visibility);
    request.set_match_id(match_id);
    request.set_game(game.name());
    for (int i = 0; i < game.info().min_players; ++i) {
      v1::SeatSpec* seat = request.add_seats();
      seat->set_account_id(kPlayers[i]);
      seat->set_display_name(absl::StrCat("P", i));
    }
    request.mutable_time_control()->mutable_per_move()->mutable_limit()->set_seconds(86400);
    v1::CreateGameResponse response;
    grpc::Status s = r.internal->CreateGame(With(ServiceToken()).get(), request, &response);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return response.game();
  }

  // One random legal move, made by an acting seat through replica `r`.
  grpc::Status RandomMove(const std::string& game_id, Replica& r, std::mt19937_64& rng,
                          v1::SubmitActionResponse* out = nullptr) {
    v1::GetGameRequest get;
    get.set_game_id(game_id);
    v1::GetGameResponse any;
    grpc::Status s = r.sessions->GetGame(With(PlayerToken(kAlice)).get(), get, &any);
    if (!s.ok()) return s;
    const std::string account = any.game().seats(any.game().acting_seats(0)).account_id();
    v1::GetGameResponse mine;
    s = r.sessions->GetGame(With(PlayerToken(account)).get(), get, &mine);
    if (!s.ok()) return s;
    v1::SubmitActionRequest submit;
    submit.set_game_id(game_id);
    submit.set_expected_version(mine.game().version());
    submit.set_idempotency_key(absl::StrCat("k", mine.game().version(), "-", rng()));
    *submit.mutable_action() = mine.legal_actions(rng() % mine.legal_actions_size());
    v1::SubmitActionResponse response;
    s = r.sessions->SubmitAction(With(PlayerToken(account)).get(), submit, &response);
    if (out != nullptr) *out = response;
    return s;
  }

  std::shared_ptr<TestClock> clock_ = std::make_shared<TestClock>();
  parlor::testing::TestKeys keys_;
  Replica replicas_[2];
  engine::Registry registry_ = engine::AllGames();
};

TEST_F(SessionsApiPgTest, AFullGameOfEveryRegisteredGameOverGrpc) {
  std::mt19937_64 rng(9);
  for (const engine::Game* game : registry_.games()) {
    SCOPED_TRACE(game->name());
    v1::Game created = CreateGame(*game, absl::StrCat("match-", game->name()), replicas_[0]);
    v1::GetGameRequest get;
    get.set_game_id(created.game_id());
    v1::GetGameResponse state;
    int moves = 0;
    for (;;) {
      // Alternate replicas: any replica serves any request.
      Replica& r = replicas_[moves % 2];
      ASSERT_TRUE(r.sessions->GetGame(With(PlayerToken(kAlice)).get(), get, &state).ok());
      if (state.game().status() == v1::GAME_STATUS_FINISHED) break;
      ASSERT_LT(moves, 100000);
      grpc::Status s = RandomMove(created.game_id(), r, rng);
      ASSERT_TRUE(s.ok()) << s.error_message();
      ++moves;
    }
    EXPECT_EQ(state.game().version(), moves);
    auto seed = engine::Seed::FromHex(state.game().seed());
    ASSERT_TRUE(seed.ok());
    EXPECT_EQ(engine::SeedCommitment(*seed), state.game().seed_commitment());
  }
}

TEST_F(SessionsApiPgTest, AWatcherOnReplicaBSeesAMoveCommittedOnReplicaA) {
  std::mt19937_64 rng(1);
  const engine::Game& game = *registry_.games().front();
  v1::Game created = CreateGame(game, "m", replicas_[0]);
  v1::WatchGameRequest watch;
  watch.set_game_id(created.game_id());
  watch.set_after_version(0);
  auto context = With(PlayerToken(kBob));
  auto reader = replicas_[1].sessions->WatchGame(context.get(), watch);
  // Give the stream a moment to subscribe, then move on replica A.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  v1::SubmitActionResponse moved;
  ASSERT_TRUE(RandomMove(created.game_id(), replicas_[0], rng, &moved).ok());
  v1::WatchGameResponse event;
  ASSERT_TRUE(reader->Read(&event));
  EXPECT_EQ(event.event().version(), 1);
  EXPECT_EQ(event.event().kind(), v1::EVENT_KIND_ACTION);
  EXPECT_EQ(event.game().my_seat(), 1);
  EXPECT_GE(event.game().version(), 1);
  EXPECT_FALSE(event.event().view().type_url().empty());
  context->TryCancel();
  reader->Finish();
}

TEST_F(SessionsApiPgTest, ReconnectingWithTheLastVersionMissesNothing) {
  std::mt19937_64 rng(2);
  const engine::Game& game = *registry_.games().front();
  v1::Game created = CreateGame(game, "m", replicas_[0]);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(RandomMove(created.game_id(), replicas_[0], rng).ok());
  v1::WatchGameRequest watch;
  watch.set_game_id(created.game_id());
  watch.set_after_version(1);
  auto context = With(PlayerToken(kAlice));
  auto reader = replicas_[1].sessions->WatchGame(context.get(), watch);
  std::vector<int64_t> versions;
  v1::WatchGameResponse event;
  while (versions.size() < 3 && reader->Read(&event)) versions.push_back(event.event().version());
  EXPECT_THAT(versions, ::testing::ElementsAre(2, 3, 4));
  // And the next live move follows in order.
  ASSERT_TRUE(RandomMove(created.game_id(), replicas_[0], rng).ok());
  ASSERT_TRUE(reader->Read(&event));
  EXPECT_EQ(event.event().version(), 5);
  context->TryCancel();
  reader->Finish();
}

TEST_F(SessionsApiPgTest, WatchMyGamesSaysWhenItIsMyTurn) {
  std::mt19937_64 rng(3);
  const engine::Game& game = *registry_.games().front();
  v1::Game created = CreateGame(game, "m", replicas_[0]);
  const std::string first = created.seats(created.acting_seats(0)).account_id();
  const std::string other = first == kAlice ? kBob : kAlice;
  v1::WatchMyGamesRequest request;
  auto context = With(PlayerToken(other));
  auto reader = replicas_[1].sessions->WatchMyGames(context.get(), request);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  ASSERT_TRUE(RandomMove(created.game_id(), replicas_[0], rng).ok());
  // The game's creation may be announced first (its NOTIFY can reach this replica after the
  // stream subscribed); the move follows.
  v1::WatchMyGamesResponse update;
  do {
    ASSERT_TRUE(reader->Read(&update));
    EXPECT_EQ(update.game().game_id(), created.game_id());
  } while (update.game().version() < 1);
  EXPECT_EQ(update.game().version(), 1);
  EXPECT_EQ(update.game().seats(update.game().my_seat()).account_id(), other);
  context->TryCancel();
  reader->Finish();
}

TEST_F(SessionsApiPgTest, BadInputOverGrpcGetsAPreciseCodeAndChangesNothing) {
  const engine::Game& game = *registry_.games().front();
  v1::Game created = CreateGame(game, "m", replicas_[0]);
  const std::string actor = created.seats(created.acting_seats(0)).account_id();
  v1::GetGameRequest get;
  get.set_game_id(created.game_id());
  v1::GetGameResponse state;
  ASSERT_TRUE(replicas_[0].sessions->GetGame(With(PlayerToken(actor)).get(), get, &state).ok());
  const std::string digest = Digest();
  SessionsService::Stub& stub = *replicas_[0].sessions;

  struct Case {
    std::string name;
    grpc::Status status;
    grpc::StatusCode code;
    std::string message;
  };
  std::vector<Case> cases;
  auto submit = [&](const std::string& token, auto mutate) {
    v1::SubmitActionRequest r;
    r.set_game_id(created.game_id());
    r.set_expected_version(0);
    r.set_idempotency_key("k");
    *r.mutable_action() = state.legal_actions(0);
    mutate(r);
    v1::SubmitActionResponse out;
    return stub.SubmitAction(With(token).get(), r, &out);
  };
  using R = v1::SubmitActionRequest;
  cases.push_back({"missing token", submit("", [](R&) {}), grpc::StatusCode::UNAUTHENTICATED, ""});
  cases.push_back(
      {"garbage token", submit("not.a.jwt", [](R&) {}), grpc::StatusCode::UNAUTHENTICATED, ""});
  cases.push_back({"service token on a player RPC", submit(ServiceToken(), [](R&) {}),
                   grpc::StatusCode::UNAUTHENTICATED, ""});
  cases.push_back({"unknown game",
                   submit(PlayerToken(actor),
                          [](R& r) { r.set_game_id("00000000-0000-4000-8000-000000000000"); }),
                   grpc::StatusCode::NOT_FOUND, "no game"});
  cases.push_back({"someone else's game",
                   submit(PlayerToken("00000000-0000-4000-8000-00000000dead"), [](R&) {}),
                   grpc::StatusCode::NOT_FOUND, "no game"});
  cases.push_back({"wrong game's action",
                   submit(PlayerToken(actor), [&](R& r) { *r.mutable_action() = state.view(); }),
                   grpc::StatusCode::INVALID_ARGUMENT, ""});
  cases.push_back({"garbage fields",
                   submit(PlayerToken(actor), [](R& r) { r.set_game_id("x'; DROP TABLE"); }),
                   grpc::StatusCode::INVALID_ARGUMENT, "game_id"});
  cases.push_back({"oversized payload",
                   submit(PlayerToken(actor),
                          [](R& r) { r.mutable_action()->set_value(std::string(2 << 20, 'x')); }),
                   grpc::StatusCode::RESOURCE_EXHAUSTED, ""});
  cases.push_back({"stale version",
                   submit(PlayerToken(actor), [](R& r) { r.set_expected_version(7); }),
                   grpc::StatusCode::ABORTED, "version 0"});
  {
    v1::CreateGameRequest r;
    r.set_match_id("x");
    v1::CreateGameResponse out;
    cases.push_back({"player token on CreateGame",
                     replicas_[0].internal->CreateGame(With(PlayerToken(actor)).get(), r, &out),
                     grpc::StatusCode::PERMISSION_DENIED, ""});
    r.set_game("no-such-game");
    cases.push_back({"CreateGame unknown game",
                     replicas_[0].internal->CreateGame(With(ServiceToken()).get(), r, &out),
                     grpc::StatusCode::INVALID_ARGUMENT, "no-such-game"});
  }
  {
    v1::GetHistoryRequest r;
    r.set_game_id(created.game_id());
    r.set_page_size(100000);
    v1::GetHistoryResponse out;
    cases.push_back({"GetHistory page_size",
                     stub.GetHistory(With(PlayerToken(actor)).get(), r, &out),
                     grpc::StatusCode::INVALID_ARGUMENT, "page_size"});
  }
  {
    v1::ResignRequest r;
    v1::ResignResponse out;
    cases.push_back({"Resign without game id", stub.Resign(With(PlayerToken(actor)).get(), r, &out),
                     grpc::StatusCode::INVALID_ARGUMENT, "game_id"});
  }
  {
    v1::StartVacationRequest r;
    r.mutable_duration()->set_seconds(60);
    v1::StartVacationResponse out;
    cases.push_back({"StartVacation too short",
                     stub.StartVacation(With(PlayerToken(actor)).get(), r, &out),
                     grpc::StatusCode::INVALID_ARGUMENT, "duration"});
    v1::EndVacationRequest e;
    v1::EndVacationResponse eout;
    cases.push_back({"EndVacation none running",
                     stub.EndVacation(With(PlayerToken(actor)).get(), e, &eout),
                     grpc::StatusCode::FAILED_PRECONDITION, "no vacation"});
  }
  {
    v1::ListMyGamesRequest r;
    r.set_page_token("AAAA");
    v1::ListMyGamesResponse out;
    cases.push_back({"ListMyGames forged token",
                     stub.ListMyGames(With(PlayerToken(actor)).get(), r, &out),
                     grpc::StatusCode::INVALID_ARGUMENT, ""});
  }
  {
    v1::WatchGameRequest r;
    r.set_game_id("garbage");
    auto context = With(PlayerToken(actor));
    auto reader = stub.WatchGame(context.get(), r);
    v1::WatchGameResponse ignored;
    while (reader->Read(&ignored)) {
    }
    cases.push_back(
        {"WatchGame garbage id", reader->Finish(), grpc::StatusCode::INVALID_ARGUMENT, "game_id"});
    r.set_game_id(created.game_id());
    auto context2 = With(PlayerToken("00000000-0000-4000-8000-00000000dead"));
    auto reader2 = stub.WatchGame(context2.get(), r);
    while (reader2->Read(&ignored)) {
    }
    cases.push_back({"WatchGame someone else's private game", reader2->Finish(),
                     grpc::StatusCode::PERMISSION_DENIED, "private"});
    v1::WatchMyGamesRequest m;
    auto context3 = With("");
    auto reader3 = stub.WatchMyGames(context3.get(), m);
    v1::WatchMyGamesResponse ignored3;
    while (reader3->Read(&ignored3)) {
    }
    cases.push_back(
        {"WatchMyGames missing token", reader3->Finish(), grpc::StatusCode::UNAUTHENTICATED, ""});
  }
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(c.status.error_code(), c.code) << c.status.error_message();
    EXPECT_THAT(c.status.error_message(), HasSubstr(c.message));
  }
  EXPECT_EQ(Digest(), digest);
}

// A spectator (signed in, not seated) watches a public game on replica B while its players move
// on replica A: every message carries the spectator view of its version (exactly what the engine
// shows a spectator) and no seed until the end; a private game refuses the same spectator.
TEST_F(SessionsApiPgTest, ASpectatorWatchesAPublicGameWithTheSpectatorView) {
  std::mt19937_64 rng(5);
  const engine::Game& game = *registry_.games().front();
  v1::Game open = CreateGame(game, "public", replicas_[0], v1::VISIBILITY_PUBLIC);
  EXPECT_EQ(open.visibility(), v1::VISIBILITY_PUBLIC);
  const std::string spectator = "00000000-0000-4000-8000-00000000dead";

  v1::ListPublicGamesRequest list;
  v1::ListPublicGamesResponse listed;
  ASSERT_TRUE(replicas_[1]
                  .sessions->ListPublicGames(With(PlayerToken(spectator)).get(), list, &listed)
                  .ok());
  ASSERT_EQ(listed.games_size(), 1);
  EXPECT_EQ(listed.games(0).game_id(), open.game_id());
  EXPECT_EQ(listed.games(0).my_seat(), -1);

  v1::WatchGameRequest watch;
  watch.set_game_id(open.game_id());
  watch.set_after_version(-1);
  auto context = With(PlayerToken(spectator));
  auto reader = replicas_[1].sessions->WatchGame(context.get(), watch);
  std::vector<v1::WatchGameResponse> seen(1);
  ASSERT_TRUE(reader->Read(&seen[0]));  // the current version
  EXPECT_EQ(seen[0].event().version(), 0);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(RandomMove(open.game_id(), replicas_[0], rng).ok());
    v1::WatchGameResponse event;
    ASSERT_TRUE(reader->Read(&event));
    seen.push_back(event);
  }
  context->TryCancel();
  reader->Finish();

  // The engine's spectator view of each version, rebuilt from the stored record.
  absl::StatusOr<parlor::testing::StoredGameRecord> stored =
      parlor::testing::ReadStoredGameRecord(db_url(), open.game_id());
  ASSERT_TRUE(stored.ok()) << stored.status();
  auto states = StatesBetween(game, stored->whole, 0, static_cast<int64_t>(seen.size()) - 1);
  ASSERT_TRUE(states.ok()) << states.status();
  for (size_t v = 0; v < seen.size(); ++v) {
    SCOPED_TRACE(v);
    EXPECT_EQ(seen[v].event().version(), static_cast<int64_t>(v));
    EXPECT_EQ(seen[v].event().view().SerializeAsString(),
              ViewAny(*(*states)[v], engine::Viewer::Spectator()).SerializeAsString());
    EXPECT_EQ(seen[v].game().my_seat(), -1);
    EXPECT_FALSE(seen[v].game().my_turn());
    EXPECT_TRUE(seen[v].game().seed().empty());
  }

  // A private game is refused to the same spectator on every way of looking at it.
  v1::Game closed = CreateGame(game, "private", replicas_[0]);
  v1::GetGameRequest get;
  get.set_game_id(closed.game_id());
  v1::GetGameResponse state;
  grpc::Status refused =
      replicas_[1].sessions->GetGame(With(PlayerToken(spectator)).get(), get, &state);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(refused.error_message(), HasSubstr("private"));
  v1::GetHistoryRequest history;
  history.set_game_id(closed.game_id());
  v1::GetHistoryResponse events;
  EXPECT_EQ(replicas_[1]
                .sessions->GetHistory(With(PlayerToken(spectator)).get(), history, &events)
                .error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
}

// A stale expected_version is ABORTED with a parlor.sessions.v1.VersionConflict in the standard
// status details (grpc-status-details-bin holds a google.rpc.Status), read here as a client does.
TEST_F(SessionsApiPgTest, AStaleVersionCarriesTheCurrentVersionAsAStatusDetail) {
  std::mt19937_64 rng(6);
  const engine::Game& game = *registry_.games().front();
  v1::Game created = CreateGame(game, "m", replicas_[0]);
  ASSERT_TRUE(RandomMove(created.game_id(), replicas_[0], rng).ok());
  ASSERT_TRUE(RandomMove(created.game_id(), replicas_[0], rng).ok());
  v1::GetGameRequest get;
  get.set_game_id(created.game_id());
  v1::GetGameResponse any;
  ASSERT_TRUE(replicas_[1].sessions->GetGame(With(PlayerToken(kAlice)).get(), get, &any).ok());
  const std::string account = any.game().seats(any.game().acting_seats(0)).account_id();
  v1::GetGameResponse mine;
  ASSERT_TRUE(replicas_[1].sessions->GetGame(With(PlayerToken(account)).get(), get, &mine).ok());
  v1::SubmitActionRequest submit;
  submit.set_game_id(created.game_id());
  submit.set_expected_version(1);
  submit.set_idempotency_key("stale");
  *submit.mutable_action() = mine.legal_actions(0);
  v1::SubmitActionResponse out;
  grpc::Status s =
      replicas_[1].sessions->SubmitAction(With(PlayerToken(account)).get(), submit, &out);
  ASSERT_EQ(s.error_code(), grpc::StatusCode::ABORTED);
  ASSERT_FALSE(s.error_details().empty()) << "no grpc-status-details-bin";
  // google.rpc.Status {int32 code = 1; string message = 2; repeated google.protobuf.Any details
  // = 3}, read with the generic wire-format reader (no googleapis protos needed).
  google::protobuf::UnknownFieldSet status;
  ASSERT_TRUE(status.ParseFromString(s.error_details()));
  int code = -1;
  std::vector<google::protobuf::Any> details;
  for (int i = 0; i < status.field_count(); ++i) {
    const google::protobuf::UnknownField& f = status.field(i);
    if (f.number() == 1) code = static_cast<int>(f.varint());
    if (f.number() == 3) {
      ASSERT_TRUE(details.emplace_back().ParseFromString(f.length_delimited()));
    }
  }
  EXPECT_EQ(code, static_cast<int>(grpc::StatusCode::ABORTED));
  v1::VersionConflict conflict;
  bool found = false;
  for (const google::protobuf::Any& d : details) {
    if (d.Is<v1::VersionConflict>()) found = d.UnpackTo(&conflict);
  }
  ASSERT_TRUE(found) << "no VersionConflict among " << details.size() << " details";
  EXPECT_EQ(conflict.current_version(), 2);
  EXPECT_EQ(conflict.expected_version(), 1);
  // With it the client can try again at once.
  submit.set_expected_version(conflict.current_version());
  submit.set_idempotency_key("fresh");
  EXPECT_TRUE(
      replicas_[1].sessions->SubmitAction(With(PlayerToken(account)).get(), submit, &out).ok());
}

TEST_F(SessionsApiPgTest, DeadlinesWithAnInjectedClockAndTheMetrics) {
  const engine::Game& game = *registry_.games().front();
  v1::Game created = CreateGame(game, "m", replicas_[0]);
  clock_->now = clock_->now.load() + absl::Hours(25);
  auto swept = SweepNow(replicas_[0].server->installed());
  ASSERT_TRUE(swept.ok()) << swept.status();
  EXPECT_EQ(*swept, 1);
  v1::GetGameRequest get;
  get.set_game_id(created.game_id());
  v1::GetGameResponse state;
  ASSERT_TRUE(replicas_[1].sessions->GetGame(With(PlayerToken(kAlice)).get(), get, &state).ok());
  EXPECT_GE(state.game().version(), 1);  // the computer moved for the timed-out player
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // a gauge refresh
  const std::string metrics = replicas_[0].server->host().metrics().Serialize();
  EXPECT_THAT(metrics, HasSubstr("parlor_sessions_timeouts_total{game=\"" + game.name() +
                                 "\",policy=\"bot\"} 1"));
  EXPECT_THAT(metrics, HasSubstr("parlor_sessions_watch_streams"));
  EXPECT_THAT(metrics, HasSubstr("parlor_sessions_outbox_pending"));
  // The sweep decided on the row the game's creation left on this replica, without a locked read.
  EXPECT_THAT(metrics, ContainsRegex("parlor_sessions_game_reads_total[{]how=\"written\","
                                     "read=\"unlocked\"[}] [1-9]"));
  EXPECT_THAT(
      metrics,
      HasSubstr("parlor_sessions_game_reads_total{how=\"stamp_matched\",read=\"get_game\"}"));
}

}  // namespace
}  // namespace parlor::sessions
