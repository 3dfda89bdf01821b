// The sessions domain over a real PostgreSQL (the store's SQL, transactions and constraints).
#include <atomic>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "engine/core/rng.h"
#include "engine/games/all_games.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "pqxx/pqxx"
#include "services/common/db/migrations.h"
#include "services/common/db/pool.h"
#include "services/common/testing/status_matchers.h"
#include "services/sessions/domain/engine_glue.h"
#include "services/sessions/domain/sessions.h"
#include "services/sessions/store/store.h"
#include "tests/pg/pg_test_database.h"

namespace parlor::sessions {
namespace {

using ::parlor::testing::IsOk;
using ::parlor::testing::StatusIs;
using ::testing::HasSubstr;

constexpr char kAlice[] = "00000000-0000-4000-8000-00000000a11c";
constexpr char kBob[] = "00000000-0000-4000-8000-0000000000b0";
constexpr char kCarol[] = "00000000-0000-4000-8000-0000000ca201";
constexpr char kStranger[] = "00000000-0000-4000-8000-00000000dead";
const char* const kPlayers[] = {kAlice, kBob, kCarol, "00000000-0000-4000-8000-000000000d0d"};

class SessionsPgTest : public parlor::testing::PgTest {
 protected:
  void SetUp() override {
    PgTest::SetUp();
    ASSERT_THAT(ApplyMigrations(db_url(), MigrationSet{"sessions", PARLOR_SESSIONS_MIGRATIONS_DIR}),
                IsOk());
    pool_ = std::make_unique<DbPool>(DbOptions{.url = db_url(), .max_connections = 4}, nullptr);
    store_ = std::make_unique<GameStore>(pool_.get());
    registry_ = std::make_unique<engine::Registry>(engine::AllGames());
    now_ = absl::FromUnixSeconds(1'800'000'000);
    sessions_ = std::make_unique<Sessions>(
        store_.get(), registry_.get(), [this] { return now_.load(); }, Sessions::Options{});
  }

  std::string Digest() {
    auto digest = parlor::testing::SchemaContentDigest(db_url(), "sessions");
    EXPECT_THAT(digest, IsOk());
    return digest.ok() ? *digest : "";
  }

  int64_t Count(const std::string& query) {
    pqxx::connection c(db_url());
    pqxx::read_transaction txn(c);
    return txn.exec1(query)[0].as<int64_t>();
  }

  const engine::Game& FirstGame() { return *registry_->games().front(); }

  v1::CreateGameRequest TwoPlayerRequest(const engine::Game& game, const std::string& match_id,
                                         bool ranked = false) {
    v1::CreateGameRequest r;
    r.set_match_id(match_id);
    r.set_game(game.name());
    r.set_ranked(ranked);
    for (int i = 0; i < game.info().min_players; ++i) {
      v1::SeatSpec* seat = r.add_seats();
      seat->set_account_id(kPlayers[i]);
      seat->set_display_name(absl::StrCat("Player ", i));
    }
    r.mutable_time_control()->mutable_per_move()->mutable_limit()->set_seconds(3600 * 24);
    return r;
  }

  v1::Game Create(const v1::CreateGameRequest& r) {
    v1::CreateGameResponse response;
    EXPECT_THAT(sessions_->CreateGame(r, &response), IsOk());
    return response.game();
  }

  // The account of a seat that must act now.
  std::string ActingAccount(const v1::Game& game) {
    return game.seats(game.acting_seats(0)).account_id();
  }

  // One random legal move by whoever must act (for games between players).
  absl::Status RandomMove(const std::string& game_id, std::mt19937_64& rng,
                          const std::string& key) {
    v1::GetGameRequest get;
    get.set_game_id(game_id);
    v1::GetGameResponse any_seat;
    // Find an acting seat's account through any seated player.
    for (const char* p : kPlayers) {
      if (sessions_->GetGame(p, get, &any_seat).ok()) break;
    }
    const std::string account = ActingAccount(any_seat.game());
    v1::GetGameResponse mine;
    absl::Status s = sessions_->GetGame(account, get, &mine);
    if (!s.ok()) return s;
    if (mine.legal_actions().empty()) return absl::InternalError("acting seat has no legal action");
    v1::SubmitActionRequest submit;
    submit.set_game_id(game_id);
    submit.set_expected_version(mine.game().version());
    submit.set_idempotency_key(key);
    *submit.mutable_action() = mine.legal_actions(rng() % mine.legal_actions_size());
    v1::SubmitActionResponse out;
    return sessions_->SubmitAction(account, submit, &out);
  }

  std::unique_ptr<DbPool> pool_;
  std::unique_ptr<GameStore> store_;
  std::unique_ptr<engine::Registry> registry_;
  std::atomic<absl::Time> now_;
  std::unique_ptr<Sessions> sessions_;
};

TEST_F(SessionsPgTest, CreateGameShowsOnlyTheSeedCommitmentAndIsIdempotentOnMatchId) {
  const engine::Game& game = FirstGame();
  v1::CreateGameRequest request = TwoPlayerRequest(game, "match-1");
  v1::CreateGameResponse first, second;
  ASSERT_THAT(sessions_->CreateGame(request, &first), IsOk());
  EXPECT_TRUE(first.created());
  EXPECT_EQ(first.game().status(), v1::GAME_STATUS_ACTIVE);
  EXPECT_EQ(first.game().version(), 0);
  EXPECT_EQ(first.game().seed_commitment().size(), 64u);
  EXPECT_TRUE(first.game().seed().empty());
  EXPECT_FALSE(first.game().acting_seats().empty());
  EXPECT_TRUE(first.game().has_deadline());
  ASSERT_THAT(sessions_->CreateGame(request, &second), IsOk());
  EXPECT_FALSE(second.created());
  EXPECT_EQ(second.game().game_id(), first.game().game_id());
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.games"), 1);

  // The same match id with different settings is refused, and nothing is written.
  const std::string before = Digest();
  request.set_ranked(true);
  v1::CreateGameResponse third;
  EXPECT_THAT(sessions_->CreateGame(request, &third),
              StatusIs(absl::StatusCode::kAlreadyExists, HasSubstr("match-1")));
  EXPECT_EQ(Digest(), before);

  // A "your turn" notification for every seat that must act, in the creation's transaction.
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.notification_outbox WHERE kind = 'your_turn'"),
            first.game().acting_seats_size());
}

TEST_F(SessionsPgTest, GetGameShowsTheCallersSeatViewAndHidesTheGameFromOthers) {
  const engine::Game& game = FirstGame();
  v1::Game created = Create(TwoPlayerRequest(game, "m"));
  v1::GetGameRequest get;
  get.set_game_id(created.game_id());
  v1::GetGameResponse response;
  ASSERT_THAT(sessions_->GetGame(kBob, get, &response), IsOk());
  EXPECT_EQ(response.game().my_seat(), 1);
  EXPECT_EQ(response.view().type_url(),
            absl::StrCat("type.googleapis.com/", game.ViewDescriptor()->full_name()));
  EXPECT_EQ(response.game().seats(0).display_name(), "Player 0");
  EXPECT_EQ(response.game().my_turn(), response.legal_actions_size() > 0);
  EXPECT_THAT(sessions_->GetGame(kStranger, get, &response),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr(created.game_id())));
}

// Every registered game, played to the end through the domain and the database by random moves
// of two (or the minimum number of) players; the seed is revealed at the end, matches the
// commitment, and replays the stored log with every chance outcome checked.
TEST_F(SessionsPgTest, EveryRegisteredGamePlaysToTheEndAndItsSeedVerifiesTheLog) {
  std::mt19937_64 rng(42);
  for (const engine::Game* game : registry_->games()) {
    SCOPED_TRACE(game->name());
    v1::Game created = Create(TwoPlayerRequest(*game, absl::StrCat("full-", game->name())));
    int moves = 0;
    const int64_t limit = game->MaxMoves(game->info().min_players, engine::Options()) + 10;
    v1::GetGameRequest get;
    get.set_game_id(created.game_id());
    v1::GetGameResponse state;
    for (;;) {
      ASSERT_THAT(sessions_->GetGame(kAlice, get, &state), IsOk());
      if (state.game().status() == v1::GAME_STATUS_FINISHED) break;
      ASSERT_LT(moves, 100000) << "game does not end";
      ASSERT_THAT(RandomMove(created.game_id(), rng, absl::StrCat("k", moves)), IsOk());
      ++moves;
    }
    (void)limit;
    EXPECT_EQ(state.game().version(), moves);
    ASSERT_EQ(state.game().seed().size(), 64u);
    auto seed = engine::Seed::FromHex(state.game().seed());
    ASSERT_THAT(seed, IsOk());
    EXPECT_EQ(engine::SeedCommitment(*seed), state.game().seed_commitment());
    EXPECT_EQ(state.game().outcome().ranks_size(), game->info().min_players);
    EXPECT_TRUE(state.legal_actions().empty());
    // The stored record replays with every die and deal checked against the revealed seed.
    auto row = store_->GetGame(created.game_id());
    ASSERT_THAT(row, IsOk());
    auto record = ParseRecord(row->snapshot);
    ASSERT_THAT(record, IsOk());
    EXPECT_THAT(game->Replay(*record, /*check_seed=*/true), IsOk());
    // One log row per version, and one result outbox row.
    EXPECT_EQ(Count(absl::StrCat("SELECT count(*) FROM sessions.actions WHERE game_id = '",
                                 created.game_id(), "'")),
              moves + 1);
    EXPECT_EQ(
        Count(absl::StrCat("SELECT count(*) FROM sessions.result_outbox WHERE game_id = '",
                           created.game_id(), "' AND payload->>'game' = '", game->name(), "'")),
        1);
    // The whole history, as the first player may see it, is there.
    v1::GetHistoryRequest history_request;
    history_request.set_game_id(created.game_id());
    history_request.set_page_size(200);
    v1::GetHistoryResponse history;
    ASSERT_THAT(sessions_->GetHistory(kAlice, history_request, &history), IsOk());
    EXPECT_EQ(history.current_version(), moves);
    ASSERT_FALSE(history.events().empty());
    EXPECT_EQ(history.events(0).kind(), v1::EVENT_KIND_SETUP);
  }
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.games WHERE status = 'finished'"),
            static_cast<int64_t>(registry_->games().size()));
}

TEST_F(SessionsPgTest, ARetryWithTheSameKeyReturnsTheFirstAnswerWithoutApplyingAgain) {
  v1::Game created = Create(TwoPlayerRequest(FirstGame(), "m"));
  v1::GetGameRequest get;
  get.set_game_id(created.game_id());
  v1::GetGameResponse state;
  const std::string account = ActingAccount(created);
  ASSERT_THAT(sessions_->GetGame(account, get, &state), IsOk());
  v1::SubmitActionRequest submit;
  submit.set_game_id(created.game_id());
  submit.set_expected_version(0);
  submit.set_idempotency_key("key-1");
  *submit.mutable_action() = state.legal_actions(0);
  v1::SubmitActionResponse first, again;
  ASSERT_THAT(sessions_->SubmitAction(account, submit, &first), IsOk());
  EXPECT_EQ(first.game().version(), 1);
  const std::string digest = Digest();
  ASSERT_THAT(sessions_->SubmitAction(account, submit, &again), IsOk());
  EXPECT_EQ(again.SerializeAsString(), first.SerializeAsString());
  EXPECT_EQ(Digest(), digest);
  // The same key for a different request is refused.
  submit.set_expected_version(1);
  EXPECT_THAT(sessions_->SubmitAction(account, submit, &again),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("idempotency_key")));
  EXPECT_EQ(Digest(), digest);
}

TEST_F(SessionsPgTest, AStaleVersionIsAbortedWithTheCurrentVersion) {
  std::mt19937_64 rng(1);
  v1::Game created = Create(TwoPlayerRequest(FirstGame(), "m"));
  ASSERT_THAT(RandomMove(created.game_id(), rng, "a"), IsOk());
  ASSERT_THAT(RandomMove(created.game_id(), rng, "b"), IsOk());
  v1::GetGameRequest get;
  get.set_game_id(created.game_id());
  v1::GetGameResponse state;
  ASSERT_THAT(sessions_->GetGame(kAlice, get, &state), IsOk());
  const std::string account = ActingAccount(state.game());
  ASSERT_THAT(sessions_->GetGame(account, get, &state), IsOk());
  v1::SubmitActionRequest submit;
  submit.set_game_id(created.game_id());
  submit.set_expected_version(1);
  submit.set_idempotency_key("c");
  *submit.mutable_action() = state.legal_actions(0);
  const std::string digest = Digest();
  v1::SubmitActionResponse out;
  EXPECT_THAT(sessions_->SubmitAction(account, submit, &out),
              StatusIs(absl::StatusCode::kAborted, HasSubstr("the game is at version 2")));
  EXPECT_EQ(Digest(), digest);
}

TEST_F(SessionsPgTest, ConcurrentSubmitsToOneGameExactlyOneWins) {
  v1::Game created = Create(TwoPlayerRequest(FirstGame(), "m"));
  const std::string account = ActingAccount(created);
  v1::GetGameRequest get;
  get.set_game_id(created.game_id());
  v1::GetGameResponse state;
  ASSERT_THAT(sessions_->GetGame(account, get, &state), IsOk());
  constexpr int kClients = 6;
  std::vector<absl::Status> results(kClients);
  std::vector<std::thread> threads;
  for (int i = 0; i < kClients; ++i) {
    threads.emplace_back([&, i] {
      v1::SubmitActionRequest submit;
      submit.set_game_id(created.game_id());
      submit.set_expected_version(0);
      submit.set_idempotency_key(absl::StrCat("client-", i));
      *submit.mutable_action() = state.legal_actions(i % state.legal_actions_size());
      v1::SubmitActionResponse out;
      results[i] = sessions_->SubmitAction(account, submit, &out);
    });
  }
  for (std::thread& t : threads) t.join();
  int ok = 0, aborted = 0;
  for (const absl::Status& s : results) {
    if (s.ok()) ++ok;
    if (s.code() == absl::StatusCode::kAborted) ++aborted;
  }
  EXPECT_EQ(ok, 1);
  EXPECT_EQ(aborted, kClients - 1);
  EXPECT_EQ(Count("SELECT max(version) FROM sessions.actions"), 1);
}

// Bad input gets a precise code and changes nothing in the database.
TEST_F(SessionsPgTest, BadInputIsRefusedPreciselyAndChangesNothing) {
  const engine::Game& game = FirstGame();
  v1::Game created = Create(TwoPlayerRequest(game, "m"));
  const std::string account = ActingAccount(created);
  const std::string other = created.seats(0).account_id() == account
                                ? created.seats(1).account_id()
                                : created.seats(0).account_id();
  v1::GetGameRequest get;
  get.set_game_id(created.game_id());
  v1::GetGameResponse state;
  ASSERT_THAT(sessions_->GetGame(account, get, &state), IsOk());
  const std::string digest = Digest();

  auto submit = [&](const std::string& who, auto mutate) {
    v1::SubmitActionRequest r;
    r.set_game_id(created.game_id());
    r.set_expected_version(0);
    r.set_idempotency_key("k");
    *r.mutable_action() = state.legal_actions(0);
    mutate(r);
    v1::SubmitActionResponse out;
    return sessions_->SubmitAction(who, r, &out);
  };
  using R = v1::SubmitActionRequest;
  struct Case {
    std::string name;
    absl::Status status;
    absl::StatusCode code;
    std::string message;
  };
  std::vector<Case> cases;
  cases.push_back({"garbage game id", submit(account, [](R& r) { r.set_game_id("nope"); }),
                   absl::StatusCode::kInvalidArgument, "game_id"});
  cases.push_back(
      {"unknown game",
       submit(account, [](R& r) { r.set_game_id("00000000-0000-4000-8000-000000000000"); }),
       absl::StatusCode::kNotFound, "no game"});
  cases.push_back({"someone else's game", submit(kStranger, [](R&) {}), absl::StatusCode::kNotFound,
                   "no game"});
  cases.push_back({"no key", submit(account, [](R& r) { r.clear_idempotency_key(); }),
                   absl::StatusCode::kInvalidArgument, "idempotency_key"});
  cases.push_back({"key too long",
                   submit(account, [](R& r) { r.set_idempotency_key(std::string(500, 'k')); }),
                   absl::StatusCode::kInvalidArgument, "too long"});
  cases.push_back({"no action", submit(account, [](R& r) { r.clear_action(); }),
                   absl::StatusCode::kInvalidArgument, "action"});
  cases.push_back({"another game's type",
                   submit(account, [&](R& r) { *r.mutable_action() = state.view(); }),
                   absl::StatusCode::kInvalidArgument, ""});
  cases.push_back({"garbage action bytes",
                   submit(account, [](R& r) { r.mutable_action()->set_value("\xff\xff\xff"); }),
                   absl::StatusCode::kInvalidArgument, ""});
  cases.push_back(
      {"oversized action",
       submit(account, [](R& r) { r.mutable_action()->set_value(std::string(100000, 'x')); }),
       absl::StatusCode::kInvalidArgument, "too large"});
  cases.push_back({"negative version", submit(account, [](R& r) { r.set_expected_version(-1); }),
                   absl::StatusCode::kInvalidArgument, "expected_version"});
  cases.push_back({"stale version", submit(account, [](R& r) { r.set_expected_version(5); }),
                   absl::StatusCode::kAborted, "version 0"});
  if ((created.acting_seats_size() == 1)) {
    cases.push_back({"not your turn", submit(other, [](R&) {}), absl::StatusCode::kPermissionDenied,
                     "not your turn"});
  }
  {
    v1::GetGameRequest r;
    r.set_game_id("../etc");
    v1::GetGameResponse out;
    cases.push_back({"GetGame garbage id", sessions_->GetGame(account, r, &out),
                     absl::StatusCode::kInvalidArgument, "game_id"});
  }
  {
    v1::ListMyGamesRequest r;
    r.set_page_size(1000);
    v1::ListMyGamesResponse out;
    cases.push_back({"ListMyGames page_size", sessions_->ListMyGames(account, r, &out),
                     absl::StatusCode::kInvalidArgument, "page_size"});
    r.set_page_size(1);
    r.set_page_token("forged");
    cases.push_back({"ListMyGames forged token", sessions_->ListMyGames(account, r, &out),
                     absl::StatusCode::kInvalidArgument, "page"});
    r.set_page_token("");
    r.set_filter(static_cast<v1::GameFilter>(99));
    cases.push_back({"ListMyGames filter", sessions_->ListMyGames(account, r, &out),
                     absl::StatusCode::kInvalidArgument, "filter"});
  }
  {
    v1::ResignRequest r;
    r.set_game_id(created.game_id());
    v1::ResignResponse out;
    cases.push_back({"Resign someone else's game", sessions_->Resign(kStranger, r, &out),
                     absl::StatusCode::kNotFound, "no game"});
  }
  {
    v1::GetHistoryRequest r;
    r.set_game_id(created.game_id());
    r.set_from_version(-3);
    v1::GetHistoryResponse out;
    cases.push_back({"GetHistory negative version", sessions_->GetHistory(account, r, &out),
                     absl::StatusCode::kInvalidArgument, "from_version"});
    r.set_from_version(0);
    cases.push_back({"GetHistory someone else's game", sessions_->GetHistory(kStranger, r, &out),
                     absl::StatusCode::kNotFound, "no game"});
  }
  {
    auto create = [&](auto mutate) {
      v1::CreateGameRequest r = TwoPlayerRequest(game, "m2");
      mutate(r);
      v1::CreateGameResponse out;
      return sessions_->CreateGame(r, &out);
    };
    using C = v1::CreateGameRequest;
    cases.push_back({"CreateGame unknown game", create([](C& r) { r.set_game("chess"); }),
                     absl::StatusCode::kInvalidArgument, "chess"});
    cases.push_back({"CreateGame no match id", create([](C& r) { r.clear_match_id(); }),
                     absl::StatusCode::kInvalidArgument, "match_id"});
    cases.push_back({"CreateGame bad option",
                     create([](C& r) { (*r.mutable_options())["no_such_option"] = "1"; }),
                     absl::StatusCode::kInvalidArgument, "no_such_option"});
    cases.push_back({"CreateGame too many seats", create([](C& r) {
                       for (int i = 0; i < 40; ++i) r.add_seats()->set_bot("random");
                     }),
                     absl::StatusCode::kInvalidArgument, "seats"});
    cases.push_back({"CreateGame bad account", create([](C& r) {
                       r.mutable_seats(0)->set_account_id("Robert'); DROP TABLE");
                     }),
                     absl::StatusCode::kInvalidArgument, "account_id"});
    cases.push_back({"CreateGame same player twice", create([](C& r) {
                       r.mutable_seats(1)->set_account_id(r.seats(0).account_id());
                     }),
                     absl::StatusCode::kInvalidArgument, "already seated"});
    cases.push_back({"CreateGame ranked with a bot", create([](C& r) {
                       r.set_ranked(true);
                       r.mutable_seats(1)->clear_account_id();
                       r.mutable_seats(1)->set_bot("random");
                     }),
                     absl::StatusCode::kInvalidArgument, "ranked"});
    cases.push_back({"CreateGame limit too short", create([](C& r) {
                       r.mutable_time_control()->mutable_per_move()->mutable_limit()->set_seconds(
                           60);
                     }),
                     absl::StatusCode::kInvalidArgument, "per_move.limit"});
    cases.push_back({"CreateGame no time control", create([](C& r) { r.clear_time_control(); }),
                     absl::StatusCode::kInvalidArgument, "time_control"});
    cases.push_back({"CreateGame huge display name", create([](C& r) {
                       r.mutable_seats(0)->set_display_name(std::string(10000, 'n'));
                     }),
                     absl::StatusCode::kInvalidArgument, "display_name"});
  }
  {
    v1::CreateBotGameRequest r;
    r.set_request_id("r");
    r.set_game(game.name());
    r.set_num_players(99);
    v1::CreateBotGameResponse out;
    cases.push_back({"CreateBotGame num_players", sessions_->CreateBotGame(account, r, &out),
                     absl::StatusCode::kInvalidArgument, "num_players"});
    r.set_num_players(game.info().min_players);
    r.set_bot("deep_blue");
    cases.push_back({"CreateBotGame bot", sessions_->CreateBotGame(account, r, &out),
                     absl::StatusCode::kInvalidArgument, "bot"});
  }
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_THAT(c.status, StatusIs(c.code, HasSubstr(c.message)));
  }
  EXPECT_EQ(Digest(), digest);
}

TEST_F(SessionsPgTest, ListMyGamesFiltersAndPagesNewestFirst) {
  const engine::Game& game = FirstGame();
  std::vector<std::string> ids;
  for (int i = 0; i < 5; ++i) {
    now_ = now_.load() + absl::Seconds(1);
    ids.push_back(Create(TwoPlayerRequest(game, absl::StrCat("m", i))).game_id());
  }
  v1::ListMyGamesRequest request;
  request.set_page_size(2);
  std::vector<std::string> seen;
  for (int page = 0; page < 5; ++page) {
    v1::ListMyGamesResponse response;
    ASSERT_THAT(sessions_->ListMyGames(kAlice, request, &response), IsOk());
    for (const v1::Game& g : response.games()) seen.push_back(g.game_id());
    if (response.next_page_token().empty()) break;
    request.set_page_token(response.next_page_token());
  }
  ASSERT_EQ(seen.size(), 5u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(seen[i], ids[4 - i]);
  // A token is bound to its filter.
  request.set_filter(v1::GAME_FILTER_FINISHED);
  v1::ListMyGamesResponse response;
  EXPECT_THAT(sessions_->ListMyGames(kAlice, request, &response),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_));
  request.clear_page_token();
  ASSERT_THAT(sessions_->ListMyGames(kAlice, request, &response), IsOk());
  EXPECT_EQ(response.games_size(), 0);
  // My turn + waiting = all.
  v1::ListMyGamesRequest mine, waiting;
  mine.set_filter(v1::GAME_FILTER_MY_TURN);
  waiting.set_filter(v1::GAME_FILTER_WAITING);
  v1::ListMyGamesResponse a, b;
  ASSERT_THAT(sessions_->ListMyGames(kAlice, mine, &a), IsOk());
  ASSERT_THAT(sessions_->ListMyGames(kAlice, waiting, &b), IsOk());
  EXPECT_EQ(a.games_size() + b.games_size(), 5);
  for (const v1::Game& g : a.games()) EXPECT_TRUE(g.my_turn());
  for (const v1::Game& g : b.games()) EXPECT_FALSE(g.my_turn());
}

TEST_F(SessionsPgTest, PlayingTheComputerTheBotsAnswerAtOnce) {
  const engine::Game& game = FirstGame();
  v1::CreateBotGameRequest request;
  request.set_request_id("vs-cpu");
  request.set_game(game.name());
  request.set_num_players(game.info().min_players);
  request.set_my_seat(game.info().min_players - 1);
  v1::CreateBotGameResponse created, again;
  ASSERT_THAT(sessions_->CreateBotGame(kCarol, request, &created), IsOk());
  ASSERT_THAT(sessions_->CreateBotGame(kCarol, request, &again), IsOk());
  EXPECT_TRUE(created.created());
  EXPECT_FALSE(again.created());
  EXPECT_EQ(again.game().game_id(), created.game().game_id());
  std::mt19937_64 rng(3);
  v1::GetGameRequest get;
  get.set_game_id(created.game().game_id());
  v1::GetGameResponse state;
  for (int i = 0; i < 100000; ++i) {
    ASSERT_THAT(sessions_->GetGame(kCarol, get, &state), IsOk());
    if (state.game().status() == v1::GAME_STATUS_FINISHED) break;
    // Whenever the game waits, it waits for the player: the computer has already moved.
    ASSERT_TRUE(state.game().my_turn());
    v1::SubmitActionRequest submit;
    submit.set_game_id(get.game_id());
    submit.set_expected_version(state.game().version());
    submit.set_idempotency_key(absl::StrCat("k", i));
    *submit.mutable_action() = state.legal_actions(rng() % state.legal_actions_size());
    v1::SubmitActionResponse out;
    ASSERT_THAT(sessions_->SubmitAction(kCarol, submit, &out), IsOk());
  }
  EXPECT_EQ(state.game().status(), v1::GAME_STATUS_FINISHED);
  EXPECT_GT(Count("SELECT count(*) FROM sessions.actions WHERE cause = 'bot'"), 0);
}

TEST_F(SessionsPgTest, ResignEndsATwoSidedGame) {
  v1::Game created = Create(TwoPlayerRequest(FirstGame(), "m", /*ranked=*/true));
  v1::ResignRequest request;
  request.set_game_id(created.game_id());
  v1::ResignResponse response;
  ASSERT_THAT(sessions_->Resign(kBob, request, &response), IsOk());
  EXPECT_EQ(response.game().status(), v1::GAME_STATUS_FINISHED);
  EXPECT_TRUE(response.game().seats(1).forfeited());
  EXPECT_EQ(response.game().outcome().ranks(1), 2);
  EXPECT_EQ(response.game().outcome().ranks(0), 1);
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.result_outbox WHERE ranked"), 1);
  EXPECT_THAT(sessions_->Resign(kBob, request, &response),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("ended")));
}

TEST_F(SessionsPgTest, DeadlinesSendRemindersThenTheComputerMovesInCasualGames) {
  v1::Game created = Create(TwoPlayerRequest(FirstGame(), "m"));
  const absl::Time start = now_.load();
  EXPECT_THAT(sessions_->Sweep(), parlor::testing::IsOkAndHolds(0));
  now_ = start + absl::Hours(13);  // past half of 24 h
  EXPECT_THAT(sessions_->Sweep(), parlor::testing::IsOkAndHolds(1));
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.notification_outbox WHERE kind = 'reminder'"),
            created.acting_seats_size());
  EXPECT_THAT(sessions_->Sweep(), parlor::testing::IsOkAndHolds(0));  // sent once
  now_ = start + absl::Hours(22);                                     // past 90 %
  EXPECT_THAT(sessions_->Sweep(), parlor::testing::IsOkAndHolds(1));
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.notification_outbox WHERE kind = 'reminder'"),
            2 * created.acting_seats_size());
  now_ = start + absl::Hours(25);  // past the deadline
  EXPECT_THAT(sessions_->Sweep(), parlor::testing::IsOkAndHolds(1));
  EXPECT_GE(Count("SELECT count(*) FROM sessions.actions WHERE cause = 'timeout' AND kind = "
                  "'action'"),
            1);
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.notification_outbox WHERE kind = 'timeout'"),
            created.acting_seats_size());
  v1::GetGameRequest get;
  get.set_game_id(created.game_id());
  v1::GetGameResponse state;
  ASSERT_THAT(sessions_->GetGame(kAlice, get, &state), IsOk());
  EXPECT_GE(state.game().version(), 1);
  EXPECT_TRUE(state.game().deadline().seconds() > absl::ToUnixSeconds(now_.load()) ||
              state.game().status() == v1::GAME_STATUS_FINISHED);
}

TEST_F(SessionsPgTest, ATimeoutInARankedTwoSidedGameIsAForfeit) {
  v1::Game created = Create(TwoPlayerRequest(FirstGame(), "m", /*ranked=*/true));
  now_ = now_.load() + absl::Hours(25);
  EXPECT_THAT(sessions_->Sweep(), parlor::testing::IsOkAndHolds(1));
  v1::GetGameRequest get;
  get.set_game_id(created.game_id());
  v1::GetGameResponse state;
  ASSERT_THAT(sessions_->GetGame(kAlice, get, &state), IsOk());
  EXPECT_EQ(state.game().status(), v1::GAME_STATUS_FINISHED);
  EXPECT_TRUE(state.game().seats(created.acting_seats(0)).forfeited());
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.actions WHERE cause = 'timeout' AND kind = "
                  "'forfeit'"),
            1);
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.result_outbox"), 1);
}

// In a ranked game of more than two sides, a timed-out seat forfeits, the game goes on, and the
// random bot plays the forfeited seat whenever it must act (SPEC item 8).
TEST_F(SessionsPgTest, ATimeoutInALargerRankedGameForfeitsAndTheBotPlaysTheSeat) {
  const engine::Game* game = nullptr;
  for (const engine::Game* g : registry_->games()) {
    if (g->info().max_players >= 3 && g->ParseOptions({}, 3).ok()) game = g;
  }
  ASSERT_NE(game, nullptr) << "no registered game takes three players";
  SCOPED_TRACE(game->name());
  v1::CreateGameRequest request = TwoPlayerRequest(*game, "m3", /*ranked=*/true);
  while (request.seats_size() < 3) {
    v1::SeatSpec* seat = request.add_seats();
    seat->set_account_id(kPlayers[request.seats_size() - 1]);
    seat->set_display_name("Third");
  }
  v1::Game created = Create(request);
  ASSERT_EQ(created.seats_size(), 3);
  const int timed_out = created.acting_seats(0);
  now_ = now_.load() + absl::Hours(25);
  EXPECT_THAT(sessions_->Sweep(), parlor::testing::IsOkAndHolds(1));
  v1::GetGameRequest get;
  get.set_game_id(created.game_id());
  v1::GetGameResponse state;
  ASSERT_THAT(sessions_->GetGame(kAlice, get, &state), IsOk());
  EXPECT_TRUE(state.game().seats(timed_out).forfeited());
  EXPECT_EQ(state.game().status(), v1::GAME_STATUS_ACTIVE);
  // Whoever acts now is never the forfeited seat: the bot has already moved for it.
  for (int seat : state.game().acting_seats()) EXPECT_NE(seat, timed_out);
  // Play on: the game ends with the forfeited seat ranked last.
  std::mt19937_64 rng(8);
  for (int i = 0; i < 100000 && state.game().status() != v1::GAME_STATUS_FINISHED; ++i) {
    ASSERT_THAT(RandomMove(created.game_id(), rng, absl::StrCat("k", i)), IsOk());
    ASSERT_THAT(sessions_->GetGame(kAlice, get, &state), IsOk());
    for (int seat : state.game().acting_seats()) EXPECT_NE(seat, timed_out);
  }
  ASSERT_EQ(state.game().status(), v1::GAME_STATUS_FINISHED);
  for (int seat = 0; seat < 3; ++seat) {
    if (seat != timed_out) {
      EXPECT_LT(state.game().outcome().ranks(seat), state.game().outcome().ranks(timed_out));
    }
  }
}

TEST_F(SessionsPgTest, TheActionLogIsAppendOnly) {
  Create(TwoPlayerRequest(FirstGame(), "m"));
  pqxx::connection c(db_url());
  pqxx::work txn(c);
  EXPECT_THROW(txn.exec0("UPDATE sessions.actions SET action = 5"), pqxx::sql_error);
}

}  // namespace
}  // namespace parlor::sessions
