// The sessions domain over a real PostgreSQL (the store's SQL, transactions and constraints).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <random>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "engine/bots/bot.h"
#include "engine/core/rng.h"
#include "engine/games/all_games.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "pqxx/pqxx"
#include "services/common/core/crypto.h"
#include "services/common/db/migrations.h"
#include "services/common/db/pool.h"
#include "services/common/grpc_status.h"
#include "services/common/testing/status_matchers.h"
#include "services/sessions/api/calls.h"
#include "services/sessions/domain/engine_glue.h"
#include "services/sessions/domain/sessions.h"
#include "services/sessions/store/rows.h"
#include "services/sessions/store/sql.h"
#include "services/sessions/store/store.h"
#include "services/sessions/testing/stored_record.h"
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
    DbOptions db;
    db.url = db_url();
    db.max_connections = 4;
    pool_ = std::make_unique<DbPool>(db, nullptr);
    store_ = std::make_unique<PgSessionsStore>(pool_.get());
    registry_ = std::make_unique<engine::Registry>(engine::AllGames());
    now_ = absl::FromUnixSeconds(1'800'000'000);
    sessions_ = std::make_unique<Sessions>(
        store_.get(), registry_.get(), [this] { return now_.load(); }, Sessions::Options{});
  }

  // A Sessions over the same store whose SubmitAction goes through `committer`.
  std::unique_ptr<Sessions> SessionsCommittingThrough(GroupCommitter* committer) {
    Sessions::Options options;
    options.group_committer = committer;
    return std::make_unique<Sessions>(
        store_.get(), registry_.get(), [this] { return now_.load(); }, options);
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

  // The game's stored record made whole with its log rows (the snapshot leaves the log out), and
  // the stored version.
  absl::StatusOr<engine::v1::GameRecord> WholeRecord(const std::string& game_id,
                                                     int64_t* version = nullptr) {
    absl::StatusOr<parlor::testing::StoredGameRecord> stored =
        parlor::testing::ReadStoredGameRecord(db_url(), game_id);
    if (!stored.ok()) return stored.status();
    if (version != nullptr) *version = stored->version;
    return std::move(stored->whole);
  }

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
    EXPECT_THAT(calls::CreateGame(*sessions_, r, &response), IsOk());
    return response.game();
  }

  // The ids of `n` two-player games of FirstGame(), created a second apart, oldest first.
  std::vector<std::string> GamesASecondApart(int n, const std::string& match_prefix) {
    std::vector<std::string> ids;
    for (int i = 0; i < n; ++i) {
      now_ = now_.load() + absl::Seconds(1);
      ids.push_back(Create(TwoPlayerRequest(FirstGame(), absl::StrCat(match_prefix, i))).game_id());
    }
    return ids;
  }

  // The ids of every game ListMyGames shows Alice under `filter`, following its page tokens.
  std::vector<std::string> AliceGames(v1::GameFilter filter, int page_size) {
    v1::ListMyGamesRequest request;
    request.set_filter(filter);
    request.set_page_size(page_size);
    std::vector<std::string> seen;
    for (int page = 0; page < 100; ++page) {
      v1::ListMyGamesResponse response;
      EXPECT_THAT(calls::ListMyGames(*sessions_, kAlice, request, &response), IsOk());
      for (const v1::Game& g : response.games()) seen.push_back(g.game_id());
      if (response.next_page_token().empty()) break;
      request.set_page_token(response.next_page_token());
    }
    return seen;
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
      if (calls::GetGame(*sessions_, p, get, &any_seat).ok()) break;
    }
    const std::string account = ActingAccount(any_seat.game());
    v1::GetGameResponse mine;
    absl::Status s = calls::GetGame(*sessions_, account, get, &mine);
    if (!s.ok()) return s;
    if (mine.legal_actions().empty()) return absl::InternalError("acting seat has no legal action");
    v1::SubmitActionRequest submit;
    submit.set_game_id(game_id);
    submit.set_expected_version(mine.game().version());
    submit.set_idempotency_key(key);
    *submit.mutable_action() = mine.legal_actions(rng() % mine.legal_actions_size());
    v1::SubmitActionResponse out;
    return calls::SubmitAction(*sessions_, account, submit, &out);
  }

  std::unique_ptr<DbPool> pool_;
  std::unique_ptr<PgSessionsStore> store_;
  std::unique_ptr<engine::Registry> registry_;
  std::atomic<absl::Time> now_;
  std::unique_ptr<Sessions> sessions_;
};

TEST_F(SessionsPgTest, CreateGameShowsOnlyTheSeedCommitmentAndIsIdempotentOnMatchId) {
  const engine::Game& game = FirstGame();
  v1::CreateGameRequest request = TwoPlayerRequest(game, "match-1");
  v1::CreateGameResponse first, second;
  ASSERT_THAT(calls::CreateGame(*sessions_, request, &first), IsOk());
  EXPECT_TRUE(first.created());
  EXPECT_EQ(first.game().status(), v1::GAME_STATUS_ACTIVE);
  EXPECT_EQ(first.game().version(), 0);
  EXPECT_EQ(first.game().seed_commitment().size(), 64u);
  EXPECT_TRUE(first.game().seed().empty());
  EXPECT_FALSE(first.game().acting_seats().empty());
  EXPECT_TRUE(first.game().has_deadline());
  ASSERT_THAT(calls::CreateGame(*sessions_, request, &second), IsOk());
  EXPECT_FALSE(second.created());
  EXPECT_EQ(second.game().game_id(), first.game().game_id());
  // The existing game is read back whole, its seats with it.
  ASSERT_EQ(second.game().seats_size(), first.game().seats_size());
  for (int i = 0; i < first.game().seats_size(); ++i) {
    EXPECT_EQ(second.game().seats(i).account_id(), first.game().seats(i).account_id());
  }
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.games"), 1);

  // The same match id with different settings is refused, and nothing is written.
  const std::string before = Digest();
  request.set_ranked(true);
  v1::CreateGameResponse third;
  EXPECT_THAT(calls::CreateGame(*sessions_, request, &third),
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
  ASSERT_THAT(calls::GetGame(*sessions_, kBob, get, &response), IsOk());
  EXPECT_EQ(response.game().my_seat(), 1);
  EXPECT_EQ(response.view().type_url(),
            absl::StrCat("type.googleapis.com/", game.ViewDescriptor()->full_name()));
  EXPECT_EQ(response.game().seats(0).display_name(), "Player 0");
  EXPECT_EQ(response.game().my_turn(), response.legal_actions_size() > 0);
  EXPECT_THAT(calls::GetGame(*sessions_, kStranger, get, &response),
              StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr(created.game_id())));
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
      ASSERT_THAT(calls::GetGame(*sessions_, kAlice, get, &state), IsOk());
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
    auto record = WholeRecord(created.game_id());
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
    ASSERT_THAT(calls::GetHistory(*sessions_, kAlice, history_request, &history), IsOk());
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
  ASSERT_THAT(calls::GetGame(*sessions_, account, get, &state), IsOk());
  v1::SubmitActionRequest submit;
  submit.set_game_id(created.game_id());
  submit.set_expected_version(0);
  submit.set_idempotency_key("key-1");
  *submit.mutable_action() = state.legal_actions(0);
  v1::SubmitActionResponse first, again;
  ASSERT_THAT(calls::SubmitAction(*sessions_, account, submit, &first), IsOk());
  EXPECT_EQ(first.game().version(), 1);
  const std::string digest = Digest();
  ASSERT_THAT(calls::SubmitAction(*sessions_, account, submit, &again), IsOk());
  EXPECT_EQ(again.SerializeAsString(), first.SerializeAsString());
  EXPECT_EQ(Digest(), digest);
  // The same key for a different request is refused.
  submit.set_expected_version(1);
  EXPECT_THAT(calls::SubmitAction(*sessions_, account, submit, &again),
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
  ASSERT_THAT(calls::GetGame(*sessions_, kAlice, get, &state), IsOk());
  const std::string account = ActingAccount(state.game());
  ASSERT_THAT(calls::GetGame(*sessions_, account, get, &state), IsOk());
  v1::SubmitActionRequest submit;
  submit.set_game_id(created.game_id());
  submit.set_expected_version(1);
  submit.set_idempotency_key("c");
  *submit.mutable_action() = state.legal_actions(0);
  const std::string digest = Digest();
  v1::SubmitActionResponse out;
  EXPECT_THAT(calls::SubmitAction(*sessions_, account, submit, &out),
              StatusIs(absl::StatusCode::kAborted, HasSubstr("the game is at version 2")));
  EXPECT_EQ(Digest(), digest);
}

TEST_F(SessionsPgTest, ConcurrentSubmitsToOneGameExactlyOneWins) {
  v1::Game created = Create(TwoPlayerRequest(FirstGame(), "m"));
  const std::string account = ActingAccount(created);
  v1::GetGameRequest get;
  get.set_game_id(created.game_id());
  v1::GetGameResponse state;
  ASSERT_THAT(calls::GetGame(*sessions_, account, get, &state), IsOk());
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
      results[i] = calls::SubmitAction(*sessions_, account, submit, &out);
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

// Group commit: with one committer held inside a batch, the moves of other games queue up and
// are then committed together in one transaction, each decided on its own: a stale version in
// the batch is refused without touching the others.
TEST_F(SessionsPgTest, GroupCommitWritesQueuedMovesTogetherAndRefusesEachBadOneAlone) {
  GroupCommitter committer(
      store_.get(), GroupCommitter::Options{
                        .threads = 1, .max_batch = 64, .on_batch = nullptr, .max_queued = 10000});
  std::unique_ptr<Sessions> grouped_sessions = SessionsCommittingThrough(&committer);
  Sessions& grouped = *grouped_sessions;
  constexpr int kGames = 6;
  std::vector<v1::Game> games;
  std::vector<v1::GetGameResponse> states(kGames);
  for (int i = 0; i < kGames; ++i) {
    games.push_back(Create(TwoPlayerRequest(FirstGame(), absl::StrCat("g", i))));
    v1::GetGameRequest get;
    get.set_game_id(games[i].game_id());
    ASSERT_THAT(calls::GetGame(*sessions_, ActingAccount(games[i]), get, &states[i]), IsOk());
  }
  // Hold the only committer in a batch of its own.
  absl::Notification held, release;
  std::thread holder([&] {
    EXPECT_THAT(committer.Update("test.hold", games[0].game_id(), std::nullopt,
                                 [&](const GameRow&, const std::optional<StoredAnswer>&)
                                     -> absl::StatusOr<std::optional<Mutation>> {
                                   if (!held.HasBeenNotified()) held.Notify();
                                   release.WaitForNotification();
                                   return std::optional<Mutation>();
                                 }),
                IsOk());
  });
  held.WaitForNotification();
  // Games 1..5 move; game 3's move names a stale version.
  std::vector<absl::Status> results(kGames);
  std::vector<v1::SubmitActionResponse> answers(kGames);
  std::vector<std::thread> movers;
  for (int i = 1; i < kGames; ++i) {
    movers.emplace_back([&, i] {
      v1::SubmitActionRequest submit;
      submit.set_game_id(games[i].game_id());
      submit.set_expected_version(i == 3 ? 7 : 0);
      submit.set_idempotency_key("k");
      *submit.mutable_action() = states[i].legal_actions(0);
      results[i] = calls::SubmitAction(grouped, ActingAccount(games[i]), submit, &answers[i]);
    });
  }
  while (committer.queued() < kGames - 1) absl::SleepFor(absl::Milliseconds(1));
  release.Notify();
  holder.join();
  for (std::thread& t : movers) t.join();
  for (int i = 1; i < kGames; ++i) {
    if (i == 3) {
      EXPECT_THAT(results[i], StatusIs(absl::StatusCode::kAborted, HasSubstr("version")));
      continue;
    }
    EXPECT_THAT(results[i], IsOk()) << "game " << i;
    EXPECT_EQ(answers[i].game().version(), 1);
  }
  // The holder's batch, then one batch of the five, then the stale move once more (a stale
  // version under a key is re-checked in a new transaction: another replica may just have stored
  // the first answer under it).
  EXPECT_EQ(committer.stats().batches, 3);
  EXPECT_EQ(committer.stats().changes, kGames + 1);
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.games WHERE version = 1"), kGames - 2);
  EXPECT_EQ(Count(absl::StrCat("SELECT version FROM sessions.games WHERE game_id = '",
                               games[3].game_id(), "'")),
            0);
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.actions WHERE version = 1"), kGames - 2);
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.idempotency_keys"), kGames - 2);
}

// A committer that cannot keep up refuses more than max_queued waiting changes as overload, at
// once, instead of queueing without bound.
TEST_F(SessionsPgTest, GroupCommitRefusesChangesBeyondItsQueueAsOverload) {
  GroupCommitter committer(
      store_.get(),
      GroupCommitter::Options{.threads = 1, .max_batch = 64, .on_batch = nullptr, .max_queued = 1});
  v1::Game game = Create(TwoPlayerRequest(FirstGame(), "m"));
  absl::Notification held, release;
  auto hold = [&](const GameRow&,
                  const std::optional<StoredAnswer>&) -> absl::StatusOr<std::optional<Mutation>> {
    if (!held.HasBeenNotified()) held.Notify();
    release.WaitForNotification();
    return std::optional<Mutation>();
  };
  auto no_op = [](const GameRow&,
                  const std::optional<StoredAnswer>&) -> absl::StatusOr<std::optional<Mutation>> {
    return std::optional<Mutation>();
  };
  absl::Notification first_done, second_done;
  absl::Status first, second, third;
  committer.UpdateAsync("test.hold", game.game_id(), std::nullopt, hold, [&](absl::Status s) {
    first = s;
    first_done.Notify();
  });
  held.WaitForNotification();
  committer.UpdateAsync("test.queued", game.game_id(), std::nullopt, no_op, [&](absl::Status s) {
    second = s;
    second_done.Notify();
  });
  committer.UpdateAsync("test.refused", game.game_id(), std::nullopt, no_op,
                        [&](absl::Status s) { third = s; });
  EXPECT_THAT(third, StatusIs(absl::StatusCode::kUnavailable, HasSubstr("overloaded")));
  release.Notify();
  first_done.WaitForNotification();
  second_done.WaitForNotification();
  EXPECT_THAT(first, IsOk());
  EXPECT_THAT(second, IsOk());
}

// Moves of one game are never in one batch: of concurrent submits at the same version exactly
// one wins, the rest are ABORTED, and a retry of the winner's key gets its answer.
TEST_F(SessionsPgTest, GroupCommitKeepsOneGamesMovesInSeparateBatches) {
  GroupCommitter committer(
      store_.get(), GroupCommitter::Options{
                        .threads = 2, .max_batch = 64, .on_batch = nullptr, .max_queued = 10000});
  std::unique_ptr<Sessions> grouped_sessions = SessionsCommittingThrough(&committer);
  Sessions& grouped = *grouped_sessions;
  v1::Game created = Create(TwoPlayerRequest(FirstGame(), "m"));
  const std::string account = ActingAccount(created);
  v1::GetGameRequest get;
  get.set_game_id(created.game_id());
  v1::GetGameResponse state;
  ASSERT_THAT(calls::GetGame(*sessions_, account, get, &state), IsOk());
  constexpr int kClients = 8;
  std::vector<absl::Status> results(kClients);
  std::vector<v1::SubmitActionRequest> requests(kClients);
  std::vector<std::thread> threads;
  for (int i = 0; i < kClients; ++i) {
    requests[i].set_game_id(created.game_id());
    requests[i].set_expected_version(0);
    requests[i].set_idempotency_key(absl::StrCat("client-", i));
    *requests[i].mutable_action() = state.legal_actions(i % state.legal_actions_size());
    threads.emplace_back([&, i] {
      v1::SubmitActionResponse out;
      results[i] = calls::SubmitAction(grouped, account, requests[i], &out);
    });
  }
  for (std::thread& t : threads) t.join();
  int ok = 0, aborted = 0, winner = -1;
  for (int i = 0; i < kClients; ++i) {
    if (results[i].ok()) {
      ++ok;
      winner = i;
    }
    if (results[i].code() == absl::StatusCode::kAborted) ++aborted;
  }
  EXPECT_EQ(ok, 1);
  EXPECT_EQ(aborted, kClients - 1);
  EXPECT_EQ(Count("SELECT max(version) FROM sessions.actions"), 1);
  ASSERT_GE(winner, 0);
  const std::string digest = Digest();
  v1::SubmitActionResponse again;
  EXPECT_THAT(calls::SubmitAction(grouped, account, requests[winner], &again), IsOk());
  EXPECT_EQ(again.game().version(), 1);
  EXPECT_EQ(Digest(), digest);
}

// Many games moving at once through two committers end exactly as the engine plays them.
TEST_F(SessionsPgTest, GroupCommitUnderConcurrentPlayLosesAndDoublesNothing) {
  GroupCommitter committer(
      store_.get(), GroupCommitter::Options{
                        .threads = 2, .max_batch = 8, .on_batch = nullptr, .max_queued = 10000});
  std::unique_ptr<Sessions> grouped_sessions = SessionsCommittingThrough(&committer);
  Sessions& grouped = *grouped_sessions;
  constexpr int kGames = 12;
  constexpr int kMoves = 15;
  std::vector<std::thread> threads;
  std::vector<int> acknowledged(kGames, 0);
  std::vector<std::string> ids(kGames);
  for (int g = 0; g < kGames; ++g) {
    threads.emplace_back([&, g] {
      v1::CreateBotGameRequest create;
      create.set_request_id(absl::StrCat("bot-", g));
      create.set_game(FirstGame().name());
      create.set_num_players(2);
      create.set_bot("random");
      v1::CreateBotGameResponse created;
      ASSERT_THAT(calls::CreateBotGame(grouped, kPlayers[g % 4], create, &created), IsOk());
      ids[g] = created.game().game_id();
      v1::GetGameRequest get;
      get.set_game_id(ids[g]);
      v1::GetGameResponse state;
      ASSERT_THAT(calls::GetGame(grouped, kPlayers[g % 4], get, &state), IsOk());
      v1::Game game = state.game();
      auto legal = state.legal_actions();
      for (int m = 0; m < kMoves && game.status() != v1::GAME_STATUS_FINISHED; ++m) {
        v1::SubmitActionRequest submit;
        submit.set_game_id(ids[g]);
        submit.set_expected_version(game.version());
        submit.set_idempotency_key(absl::StrCat("m", m));
        *submit.mutable_action() = legal[m % legal.size()];
        v1::SubmitActionResponse answer;
        ASSERT_THAT(calls::SubmitAction(grouped, kPlayers[g % 4], submit, &answer), IsOk());
        ++acknowledged[g];
        game = answer.game();
        legal = answer.legal_actions();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (int g = 0; g < kGames; ++g) {
    // Every acknowledged move is logged once, and the stored record replays to its version.
    EXPECT_EQ(Count(absl::StrCat("SELECT count(*) FROM sessions.actions WHERE game_id = '", ids[g],
                                 "' AND cause = 'player'")),
              acknowledged[g]);
    EXPECT_EQ(Count(absl::StrCat("SELECT count(*) FROM sessions.idempotency_keys WHERE game_id = '",
                                 ids[g], "'")),
              acknowledged[g]);
    int64_t version = 0;
    absl::StatusOr<engine::v1::GameRecord> record = WholeRecord(ids[g], &version);
    ASSERT_THAT(record, IsOk());
    EXPECT_EQ(record->log_size(), version + 1);
    EXPECT_THAT(FirstGame().Replay(*record, true).status(), IsOk());
  }
  EXPECT_EQ(committer.stats().changes,
            std::accumulate(acknowledged.begin(), acknowledged.end(), 0L));
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
  ASSERT_THAT(calls::GetGame(*sessions_, account, get, &state), IsOk());
  const std::string digest = Digest();

  auto submit = [&](const std::string& who, auto mutate) {
    v1::SubmitActionRequest r;
    r.set_game_id(created.game_id());
    r.set_expected_version(0);
    r.set_idempotency_key("k");
    *r.mutable_action() = state.legal_actions(0);
    mutate(r);
    v1::SubmitActionResponse out;
    return calls::SubmitAction(*sessions_, who, r, &out);
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
    cases.push_back({"GetGame garbage id", calls::GetGame(*sessions_, account, r, &out),
                     absl::StatusCode::kInvalidArgument, "game_id"});
  }
  {
    v1::ListMyGamesRequest r;
    r.set_page_size(1000);
    v1::ListMyGamesResponse out;
    cases.push_back({"ListMyGames page_size", calls::ListMyGames(*sessions_, account, r, &out),
                     absl::StatusCode::kInvalidArgument, "page_size"});
    r.set_page_size(1);
    r.set_page_token("forged");
    cases.push_back({"ListMyGames forged token", calls::ListMyGames(*sessions_, account, r, &out),
                     absl::StatusCode::kInvalidArgument, "page"});
    r.set_page_token("");
    r.set_filter(static_cast<v1::GameFilter>(99));
    cases.push_back({"ListMyGames filter", calls::ListMyGames(*sessions_, account, r, &out),
                     absl::StatusCode::kInvalidArgument, "filter"});
  }
  {
    v1::ResignRequest r;
    r.set_game_id(created.game_id());
    v1::ResignResponse out;
    cases.push_back({"Resign someone else's game", calls::Resign(*sessions_, kStranger, r, &out),
                     absl::StatusCode::kNotFound, "no game"});
  }
  {
    v1::GetHistoryRequest r;
    r.set_game_id(created.game_id());
    r.set_from_version(-3);
    v1::GetHistoryResponse out;
    cases.push_back({"GetHistory negative version", calls::GetHistory(*sessions_, account, r, &out),
                     absl::StatusCode::kInvalidArgument, "from_version"});
    r.set_from_version(0);
    cases.push_back({"GetHistory someone else's private game",
                     calls::GetHistory(*sessions_, kStranger, r, &out),
                     absl::StatusCode::kPermissionDenied, "private"});
    v1::GetGameRequest g;
    g.set_game_id(created.game_id());
    v1::GetGameResponse gout;
    cases.push_back({"GetGame someone else's private game",
                     calls::GetGame(*sessions_, kStranger, g, &gout),
                     absl::StatusCode::kPermissionDenied, "private"});
    g.set_game_id("00000000-0000-4000-8000-000000000000");
    cases.push_back({"GetGame unknown game", calls::GetGame(*sessions_, kStranger, g, &gout),
                     absl::StatusCode::kNotFound, "no game"});
  }
  {
    v1::ListPublicGamesRequest r;
    v1::ListPublicGamesResponse out;
    r.set_game("chess");
    cases.push_back({"ListPublicGames unknown game",
                     calls::ListPublicGames(*sessions_, kStranger, r, &out),
                     absl::StatusCode::kInvalidArgument, "chess"});
    r.clear_game();
    r.set_page_size(101);
    cases.push_back({"ListPublicGames page_size",
                     calls::ListPublicGames(*sessions_, kStranger, r, &out),
                     absl::StatusCode::kInvalidArgument, "page_size"});
    r.set_page_size(0);
    r.set_page_token("forged");
    cases.push_back({"ListPublicGames forged token",
                     calls::ListPublicGames(*sessions_, kStranger, r, &out),
                     absl::StatusCode::kInvalidArgument, "page_token"});
    r.clear_page_token();
    r.set_status(static_cast<v1::GameStatus>(42));
    cases.push_back({"ListPublicGames status",
                     calls::ListPublicGames(*sessions_, kStranger, r, &out),
                     absl::StatusCode::kInvalidArgument, "status"});
  }
  {
    auto create = [&](auto mutate) {
      v1::CreateGameRequest r = TwoPlayerRequest(game, "m2");
      mutate(r);
      v1::CreateGameResponse out;
      return calls::CreateGame(*sessions_, r, &out);
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
    cases.push_back({"CreateGame bad visibility",
                     create([](C& r) { r.set_visibility(static_cast<v1::Visibility>(7)); }),
                     absl::StatusCode::kInvalidArgument, "visibility"});
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
    cases.push_back({"CreateBotGame num_players",
                     calls::CreateBotGame(*sessions_, account, r, &out),
                     absl::StatusCode::kInvalidArgument, "num_players"});
    r.set_num_players(game.info().min_players);
    r.set_bot("deep_blue");
    cases.push_back({"CreateBotGame bot", calls::CreateBotGame(*sessions_, account, r, &out),
                     absl::StatusCode::kInvalidArgument, "bot"});
  }
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_THAT(c.status, StatusIs(c.code, HasSubstr(c.message)));
  }
  EXPECT_EQ(Digest(), digest);
}

TEST_F(SessionsPgTest, ListMyGamesFiltersAndPagesNewestFirst) {
  const std::vector<std::string> ids = GamesASecondApart(5, "m");
  const std::vector<std::string> seen = AliceGames(v1::GAME_FILTER_UNSPECIFIED, 2);
  ASSERT_EQ(seen.size(), 5u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(seen[i], ids[4 - i]);
  // A token is bound to its filter.
  v1::ListMyGamesRequest request;
  request.set_page_size(2);
  v1::ListMyGamesResponse response;
  ASSERT_THAT(calls::ListMyGames(*sessions_, kAlice, request, &response), IsOk());
  ASSERT_FALSE(response.next_page_token().empty());
  request.set_page_token(response.next_page_token());
  request.set_filter(v1::GAME_FILTER_FINISHED);
  EXPECT_THAT(calls::ListMyGames(*sessions_, kAlice, request, &response),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_));
  request.clear_page_token();
  ASSERT_THAT(calls::ListMyGames(*sessions_, kAlice, request, &response), IsOk());
  EXPECT_EQ(response.games_size(), 0);
  // My turn + waiting = all.
  v1::ListMyGamesRequest mine, waiting;
  mine.set_filter(v1::GAME_FILTER_MY_TURN);
  waiting.set_filter(v1::GAME_FILTER_WAITING);
  v1::ListMyGamesResponse a, b;
  ASSERT_THAT(calls::ListMyGames(*sessions_, kAlice, mine, &a), IsOk());
  ASSERT_THAT(calls::ListMyGames(*sessions_, kAlice, waiting, &b), IsOk());
  EXPECT_EQ(a.games_size() + b.games_size(), 5);
  for (const v1::Game& g : a.games()) EXPECT_TRUE(g.my_turn());
  for (const v1::Game& g : b.games()) EXPECT_FALSE(g.my_turn());
}

// Games in progress and finished games come in one order, newest activity first: a finished
// game by the time it ended, a running one by its last change, so a game ended later comes
// before one created later, and pages cross from one kind to the other without a gap.
TEST_F(SessionsPgTest, ListMyGamesOrdersRunningAndFinishedGamesByTheirLastActivity) {
  const std::vector<std::string> ids = GamesASecondApart(6, "a");
  for (const int ended : {1, 4}) {
    now_ = now_.load() + absl::Seconds(1);
    v1::ResignRequest resign;
    resign.set_game_id(ids[ended]);
    v1::ResignResponse resigned;
    ASSERT_THAT(calls::Resign(*sessions_, kAlice, resign, &resigned), IsOk());
    ASSERT_EQ(resigned.game().status(), v1::GAME_STATUS_FINISHED);
  }
  EXPECT_EQ(AliceGames(v1::GAME_FILTER_UNSPECIFIED, 2),
            (std::vector<std::string>{ids[4], ids[1], ids[5], ids[3], ids[2], ids[0]}));
  EXPECT_EQ(AliceGames(v1::GAME_FILTER_FINISHED, 2), (std::vector<std::string>{ids[4], ids[1]}));
  std::vector<std::string> running = AliceGames(v1::GAME_FILTER_MY_TURN, 2);
  for (const std::string& id : AliceGames(v1::GAME_FILTER_WAITING, 2)) running.push_back(id);
  std::sort(running.begin(), running.end());
  std::vector<std::string> expected = {ids[0], ids[2], ids[3], ids[5]};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(running, expected);
}

// A move rewrites its seats' turn, clocks and updated_at. No index of the seats table may name
// one of those columns: the rewrite then stays on its page without new index entries (a HOT
// update), which is most of what a seat update costs.
TEST_F(SessionsPgTest, NoIndexOfTheSeatsNamesAColumnAMoveChanges) {
  const std::vector<std::string> changed_by_moves = {
      "forfeited",      "my_turn",           "turn_started_at",  "deadline",
      "reminders_sent", "time_bank_ms",      "vacation_used_ms", "vacation_until",
      "paused_until",   "timeouts_in_a_row", "updated_at"};
  pqxx::connection c(db_url());
  pqxx::read_transaction txn(c);
  int indexes = 0;
  for (const pqxx::row& r : txn.exec("SELECT pg_get_indexdef(indexrelid) FROM pg_index "
                                     "WHERE indrelid = 'sessions.seats'::regclass")) {
    ++indexes;
    const std::string definition = r[0].as<std::string>();
    for (const std::string& column : changed_by_moves) {
      EXPECT_FALSE(std::regex_search(definition, std::regex("\\b" + column + "\\b")))
          << definition << " names " << column;
    }
  }
  EXPECT_GE(indexes, 3);
}

// Migration 0016 moved the single-column CHECKs of the tables a move writes into domains: the
// database must still refuse every value they refused, whichever statement writes it.
TEST_F(SessionsPgTest, TheDatabaseStillRefusesWhatTheColumnChecksRefused) {
  v1::Game created = Create(TwoPlayerRequest(FirstGame(), "checks"));
  std::mt19937_64 rng(7);
  ASSERT_THAT(RandomMove(created.game_id(), rng, "checks-key"), IsOk());
  const std::string id = created.game_id();
  pqxx::connection c(db_url());
  {
    pqxx::read_transaction txn(c);
    for (const char* table : {"games", "seats", "actions", "idempotency_keys"}) {
      EXPECT_GT(txn.exec_params1(absl::StrCat("SELECT count(*) FROM sessions.", table,
                                              " WHERE game_id = $1::uuid"),
                                 id)[0]
                    .as<int64_t>(),
                0)
          << table;
    }
  }
  const std::string outbox_row =
      "INSERT INTO sessions.notification_outbox (game_id, account_id, kind, version, dedupe_key, "
      "payload, created_at, next_attempt_at) VALUES ($1::uuid, gen_random_uuid(), ";
  const std::vector<std::string> refused = {
      "UPDATE sessions.games SET game = 'Not A Name' WHERE game_id = $1::uuid",
      "UPDATE sessions.games SET num_players = 33 WHERE game_id = $1::uuid",
      "UPDATE sessions.games SET options = '[]' WHERE game_id = $1::uuid",
      "UPDATE sessions.games SET snapshot = '' WHERE game_id = $1::uuid",
      "UPDATE sessions.games SET seed_commitment = 'abc' WHERE game_id = $1::uuid",
      "UPDATE sessions.games SET acting_seats = -1 WHERE game_id = $1::uuid",
      "UPDATE sessions.games SET tc_per_move_s = 60 WHERE game_id = $1::uuid",
      "UPDATE sessions.games SET vacation_days = 31 WHERE game_id = $1::uuid",
      "UPDATE sessions.games SET visibility = 'secret' WHERE game_id = $1::uuid",
      "UPDATE sessions.games SET version = -1 WHERE game_id = $1::uuid",
      "UPDATE sessions.games SET status = 'paused' WHERE game_id = $1::uuid",
      "UPDATE sessions.seats SET seat = 32 WHERE game_id = $1::uuid",
      "UPDATE sessions.seats SET team = -1 WHERE game_id = $1::uuid",
      "UPDATE sessions.seats SET display_name = '' WHERE game_id = $1::uuid",
      "UPDATE sessions.seats SET reminders_sent = 3 WHERE game_id = $1::uuid",
      "UPDATE sessions.seats SET time_bank_ms = -1 WHERE game_id = $1::uuid",
      "UPDATE sessions.seats SET vacation_used_ms = -1 WHERE game_id = $1::uuid",
      "UPDATE sessions.seats SET timeouts_in_a_row = -1 WHERE game_id = $1::uuid",
      "UPDATE sessions.seats SET status = 'gone' WHERE game_id = $1::uuid",
      "INSERT INTO sessions.actions (game_id, version, kind, cause, seat, action, entry, "
      "created_at) VALUES ($1::uuid, 1000, 'action', 'cheat', 0, 0, '\\x00', now())",
      "UPDATE sessions.idempotency_keys SET request_hash = '\\x00' WHERE game_id = $1::uuid",
      "UPDATE sessions.idempotency_keys SET version = 0 WHERE game_id = $1::uuid",
      outbox_row + "'spam', 1, 'd1', '{}', now(), now())",
      outbox_row + "'your_turn', -1, 'd2', '{}', now(), now())",
      outbox_row + "'your_turn', 1, 'd3', '[]', now(), now())",
  };
  for (const std::string& sql : refused) {
    pqxx::work txn(c);
    EXPECT_THROW(txn.exec_params0(sql, id), pqxx::check_violation) << sql;
  }
}

TEST_F(SessionsPgTest, PlayingTheComputerTheBotsAnswerAtOnce) {
  const engine::Game& game = FirstGame();
  v1::CreateBotGameRequest request;
  request.set_request_id("vs-cpu");
  request.set_game(game.name());
  request.set_num_players(game.info().min_players);
  request.set_my_seat(game.info().min_players - 1);
  v1::CreateBotGameResponse created, again;
  ASSERT_THAT(calls::CreateBotGame(*sessions_, kCarol, request, &created), IsOk());
  ASSERT_THAT(calls::CreateBotGame(*sessions_, kCarol, request, &again), IsOk());
  EXPECT_TRUE(created.created());
  EXPECT_FALSE(again.created());
  EXPECT_EQ(again.game().game_id(), created.game().game_id());
  std::mt19937_64 rng(3);
  v1::GetGameRequest get;
  get.set_game_id(created.game().game_id());
  v1::GetGameResponse state;
  for (int i = 0; i < 100000; ++i) {
    ASSERT_THAT(calls::GetGame(*sessions_, kCarol, get, &state), IsOk());
    if (state.game().status() == v1::GAME_STATUS_FINISHED) break;
    // Whenever the game waits, it waits for the player: the computer has already moved.
    ASSERT_TRUE(state.game().my_turn());
    v1::SubmitActionRequest submit;
    submit.set_game_id(get.game_id());
    submit.set_expected_version(state.game().version());
    submit.set_idempotency_key(absl::StrCat("k", i));
    *submit.mutable_action() = state.legal_actions(rng() % state.legal_actions_size());
    v1::SubmitActionResponse out;
    ASSERT_THAT(calls::SubmitAction(*sessions_, kCarol, submit, &out), IsOk());
  }
  EXPECT_EQ(state.game().status(), v1::GAME_STATUS_FINISHED);
  EXPECT_GT(Count("SELECT count(*) FROM sessions.actions WHERE cause = 'bot'"), 0);
}

TEST_F(SessionsPgTest, ResignEndsATwoSidedGame) {
  v1::Game created = Create(TwoPlayerRequest(FirstGame(), "m", /*ranked=*/true));
  v1::ResignRequest request;
  request.set_game_id(created.game_id());
  v1::ResignResponse response;
  ASSERT_THAT(calls::Resign(*sessions_, kBob, request, &response), IsOk());
  EXPECT_EQ(response.game().status(), v1::GAME_STATUS_FINISHED);
  EXPECT_TRUE(response.game().seats(1).forfeited());
  EXPECT_EQ(response.game().outcome().ranks(1), 2);
  EXPECT_EQ(response.game().outcome().ranks(0), 1);
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.result_outbox WHERE ranked"), 1);
  EXPECT_THAT(calls::Resign(*sessions_, kBob, request, &response),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("ended")));
}

TEST_F(SessionsPgTest, DeadlinesSendRemindersThenTheComputerMovesInCasualGames) {
  v1::Game created = Create(TwoPlayerRequest(FirstGame(), "m"));
  const absl::Time start = now_.load();
  EXPECT_THAT(sessions_->Sweep(), parlor::testing::IsOkAndHolds(0));
  now_ = start + absl::Hours(11);  // not yet half of 24 h
  EXPECT_THAT(sessions_->Sweep(), parlor::testing::IsOkAndHolds(0));
  now_ = start + absl::Hours(13);  // past half of 24 h
  EXPECT_THAT(sessions_->Sweep(), parlor::testing::IsOkAndHolds(1));
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.notification_outbox WHERE kind = 'reminder'"),
            created.acting_seats_size());
  EXPECT_THAT(sessions_->Sweep(), parlor::testing::IsOkAndHolds(0));  // sent once
  now_ = start + absl::Hours(21);                                     // not yet 90 %
  EXPECT_THAT(sessions_->Sweep(), parlor::testing::IsOkAndHolds(0));
  now_ = start + absl::Hours(22);  // past 90 %
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
  ASSERT_THAT(calls::GetGame(*sessions_, kAlice, get, &state), IsOk());
  EXPECT_GE(state.game().version(), 1);
  EXPECT_TRUE(state.game().deadline().seconds() > absl::ToUnixSeconds(now_.load()) ||
              state.game().status() == v1::GAME_STATUS_FINISHED);
}

// A sweep reads the sweeper's index (games_wake_idx) from its start to now: the games due, and
// not every game in progress as it did when a reminder's time was not in any index.
TEST_F(SessionsPgTest, ASweepReadsTheGamesThatAreDueNotEveryGameInProgress) {
  constexpr int kGames = 30;
  GamesASecondApart(kGames, "due-");
  const absl::Time start = now_.load();
  pqxx::connection connection(db_url());
  pqxx::work txn(connection);
  txn.exec0("SET LOCAL enable_seqscan = off");
  const std::string game_entries_read =
      "SELECT sum(pg_stat_get_xact_tuples_returned(indexrelid))::bigint FROM pg_index "
      "WHERE indrelid = 'sessions.games'::regclass";
  const auto due_at = [&](absl::Time at) {
    const int64_t before = txn.exec1(game_entries_read)[0].as<int64_t>();
    const size_t due = txn.exec_params(sql::kSelectDueGames, absl::ToUnixMicros(at), 100).size();
    return std::pair<size_t, int64_t>(due, txn.exec1(game_entries_read)[0].as<int64_t>() - before);
  };
  // Nothing is due for 12 h (the first reminders, at half of each 24 h turn).
  EXPECT_EQ(due_at(start + absl::Hours(11)), (std::pair<size_t, int64_t>(0, 0)));
  // The games were created a second apart: 9.5 s after the first one's half time, ten are due.
  const absl::Time first_created = start - absl::Seconds(kGames - 1);
  const auto [due, read] = due_at(first_created + absl::Hours(12) + absl::Seconds(9.5));
  EXPECT_EQ(due, 10u);
  EXPECT_LE(read, 11);
  txn.abort();
  now_ = start + absl::Hours(12);
  EXPECT_THAT(sessions_->Sweep(), parlor::testing::IsOkAndHolds(kGames));
  EXPECT_THAT(sessions_->Sweep(), parlor::testing::IsOkAndHolds(0));
}

// A server of the previous version (during a rolling update) writes games without wake_at: its
// write leaves wake_version behind the version, as the UPDATE below does. The game is due at
// once, and the sweep that finds nothing to do in it stores its wake time.
TEST_F(SessionsPgTest, AGameAnOlderServerWroteIsSweptOnceAndGetsItsWakeTimeBack) {
  const std::string id = Create(TwoPlayerRequest(FirstGame(), "older")).game_id();
  const absl::Time start = now_.load();
  const std::string wake = "SELECT sessions.to_us(wake_at) FROM sessions.games";
  const int64_t half_time = absl::ToUnixMicros(start + absl::Hours(12));
  ASSERT_EQ(Count(wake), half_time);
  {
    pqxx::connection c(db_url());
    pqxx::nontransaction(c).exec0("UPDATE sessions.games SET wake_version = version - 1");
  }
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.games WHERE wake_at = '-infinity'"), 1);
  EXPECT_THAT(store_->DueGames(now_.load(), 10),
              parlor::testing::IsOkAndHolds(::testing::ElementsAre(id)));
  EXPECT_THAT(sessions_->Sweep(), parlor::testing::IsOkAndHolds(0));  // nothing was due
  EXPECT_EQ(Count(wake), half_time);
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.games WHERE wake_version = version"), 1);
  EXPECT_THAT(store_->DueGames(now_.load(), 10),
              parlor::testing::IsOkAndHolds(::testing::IsEmpty()));
}

// A move keeps the stored wake time while it is ahead and no later than the new one (migration
// 0019: the game row's update then changes no indexed column). The sweeper looks at the game at
// the kept time, finds nothing due, and stores the exact time; it is never late.
TEST_F(SessionsPgTest, AMoveKeepsAnEarlierWakeTimeAndTheSweepStoresTheExactOne) {
  const std::string id = Create(TwoPlayerRequest(FirstGame(), "early-wake")).game_id();
  const absl::Time start = now_.load();
  const std::string wake =
      absl::StrCat("SELECT sessions.to_us(wake_at) FROM sessions.games WHERE game_id = '", id, "'");
  const int64_t first_half_time = absl::ToUnixMicros(start + absl::Hours(12));
  ASSERT_EQ(Count(wake), first_half_time);
  // An hour later, moves until a new turn has begun: its reminder is due later than the first.
  now_ = start + absl::Hours(1);
  std::mt19937_64 rng(19);
  std::optional<absl::Time> exact;
  for (int i = 0; i < 20; ++i) {
    ASSERT_THAT(RandomMove(id, rng, absl::StrCat("early-", i)), IsOk());
    absl::StatusOr<GameRow> row = store_->GetGame(id);
    ASSERT_THAT(row, IsOk());
    ASSERT_FALSE(row->finished);
    exact = NextSweepAt(*row);
    ASSERT_TRUE(exact.has_value());
    if (*exact > start + absl::Hours(12)) break;
  }
  ASSERT_GT(*exact, start + absl::Hours(12));
  EXPECT_EQ(Count(wake), first_half_time);
  EXPECT_THAT(store_->DueGames(start + absl::Hours(11), 10),
              parlor::testing::IsOkAndHolds(::testing::IsEmpty()));
  now_ = start + absl::Hours(12);
  EXPECT_THAT(store_->DueGames(now_.load(), 10),
              parlor::testing::IsOkAndHolds(::testing::ElementsAre(id)));
  EXPECT_THAT(sessions_->Sweep(), parlor::testing::IsOkAndHolds(0));  // nothing was due
  EXPECT_EQ(Count(wake), absl::ToUnixMicros(*exact));
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.notification_outbox WHERE kind = 'reminder'"), 0);
  EXPECT_THAT(store_->DueGames(now_.load(), 10),
              parlor::testing::IsOkAndHolds(::testing::IsEmpty()));
  // At the exact time the reminder goes out.
  now_ = *exact;
  EXPECT_THAT(sessions_->Sweep(), parlor::testing::IsOkAndHolds(1));
  EXPECT_GE(Count("SELECT count(*) FROM sessions.notification_outbox WHERE kind = 'reminder'"), 1);
}

// ListPublicGames lists public games by their last activity, newest first, page after page (by
// listed_at, migration 0019, which a private game never has).
TEST_F(SessionsPgTest, PublicGamesAreListedByTheirLatestMoveNewestFirst) {
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) {
    now_ = now_.load() + absl::Seconds(1);
    v1::CreateGameRequest request = TwoPlayerRequest(FirstGame(), absl::StrCat("listed-", i));
    request.set_visibility(v1::VISIBILITY_PUBLIC);
    ids.push_back(Create(request).game_id());
  }
  now_ = now_.load() + absl::Seconds(1);
  Create(TwoPlayerRequest(FirstGame(), "unlisted"));
  now_ = now_.load() + absl::Seconds(1);
  std::mt19937_64 rng(20);
  ASSERT_THAT(RandomMove(ids[0], rng, "listed-move"), IsOk());
  std::vector<std::string> listed;
  v1::ListPublicGamesRequest request;
  request.set_page_size(1);
  for (int page = 0; page < 10; ++page) {
    v1::ListPublicGamesResponse response;
    ASSERT_THAT(calls::ListPublicGames(*sessions_, kStranger, request, &response), IsOk());
    for (const v1::Game& g : response.games()) listed.push_back(g.game_id());
    if (response.next_page_token().empty()) break;
    request.set_page_token(response.next_page_token());
  }
  EXPECT_THAT(listed, ::testing::ElementsAre(ids[0], ids[2], ids[1]));
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.games WHERE listed_at IS NULL"), 1);
}

TEST_F(SessionsPgTest, ATimeoutInARankedTwoSidedGameIsAForfeit) {
  v1::Game created = Create(TwoPlayerRequest(FirstGame(), "m", /*ranked=*/true));
  now_ = now_.load() + absl::Hours(25);
  EXPECT_THAT(sessions_->Sweep(), parlor::testing::IsOkAndHolds(1));
  v1::GetGameRequest get;
  get.set_game_id(created.game_id());
  v1::GetGameResponse state;
  ASSERT_THAT(calls::GetGame(*sessions_, kAlice, get, &state), IsOk());
  EXPECT_EQ(state.game().status(), v1::GAME_STATUS_FINISHED);
  EXPECT_TRUE(state.game().seats(created.acting_seats(0)).forfeited());
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.actions WHERE cause = 'timeout' AND kind = "
                  "'forfeit'"),
            1);
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.result_outbox"), 1);
  // The timed-out side is ranked last, and the player is told.
  const int timed_out = created.acting_seats(0);
  EXPECT_EQ(state.game().outcome().ranks(timed_out), 2);
  EXPECT_EQ(state.game().outcome().ranks(1 - timed_out), 1);
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.notification_outbox WHERE kind = 'timeout'"), 1);
  // History shows the forfeit as a timeout.
  v1::GetHistoryRequest history;
  history.set_game_id(created.game_id());
  history.set_from_version(1);
  v1::GetHistoryResponse events;
  ASSERT_THAT(calls::GetHistory(*sessions_, kAlice, history, &events), IsOk());
  ASSERT_EQ(events.events_size(), 1);
  EXPECT_EQ(events.events(0).kind(), v1::EVENT_KIND_FORFEIT);
  EXPECT_EQ(events.events(0).cause(), v1::EVENT_CAUSE_TIMEOUT);
  EXPECT_EQ(events.events(0).seat(), timed_out);
}

// In a ranked game of more than two sides, a timed-out seat forfeits, the game goes on, and the
// random bot plays the forfeited seat whenever it must act (docs/DESIGN.md, game rule 8).
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
  ASSERT_THAT(calls::GetGame(*sessions_, kAlice, get, &state), IsOk());
  EXPECT_TRUE(state.game().seats(timed_out).forfeited());
  EXPECT_EQ(state.game().status(), v1::GAME_STATUS_ACTIVE);
  // Whoever acts now is never the forfeited seat: the bot has already moved for it.
  for (int seat : state.game().acting_seats()) EXPECT_NE(seat, timed_out);
  // Play on: the game ends with the forfeited seat ranked last.
  std::mt19937_64 rng(8);
  for (int i = 0; i < 100000 && state.game().status() != v1::GAME_STATUS_FINISHED; ++i) {
    ASSERT_THAT(RandomMove(created.game_id(), rng, absl::StrCat("k", i)), IsOk());
    ASSERT_THAT(calls::GetGame(*sessions_, kAlice, get, &state), IsOk());
    for (int seat : state.game().acting_seats()) EXPECT_NE(seat, timed_out);
  }
  ASSERT_EQ(state.game().status(), v1::GAME_STATUS_FINISHED);
  for (int seat = 0; seat < 3; ++seat) {
    if (seat != timed_out) {
      EXPECT_LT(state.game().outcome().ranks(seat), state.game().outcome().ranks(timed_out));
    }
  }
  // Every such event is in the action log: one forfeit by timeout, then only computer moves
  // for the seat; and one result row.
  const std::string where =
      absl::StrCat(" WHERE game_id = '", created.game_id(), "' AND seat = ", timed_out);
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.actions" + where +
                  " AND kind = 'forfeit' AND cause = 'timeout'"),
            1);
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.actions" + where +
                  " AND kind = 'action' AND cause NOT IN ('bot') AND version > (SELECT version "
                  "FROM sessions.actions" +
                  where + " AND kind = 'forfeit')"),
            0);
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.result_outbox"), 1);
}

// The sweeper is safe on every replica at once: two sweeping concurrently over the same due
// games apply each timeout exactly once.
TEST_F(SessionsPgTest, TwoSweepersAtOnceApplyEachTimeoutOnce) {
  constexpr int kGames = 6;
  for (int i = 0; i < kGames; ++i) Create(TwoPlayerRequest(FirstGame(), absl::StrCat("s", i)));
  Sessions other(
      store_.get(), registry_.get(), [this] { return now_.load(); }, Sessions::Options{});
  now_ = now_.load() + absl::Hours(25);
  absl::StatusOr<int> a, b;
  std::thread first([&] { a = sessions_->Sweep(); });
  std::thread second([&] { b = other.Sweep(); });
  first.join();
  second.join();
  ASSERT_THAT(a, IsOk());
  ASSERT_THAT(b, IsOk());
  EXPECT_EQ(*a + *b, kGames);
  EXPECT_EQ(Count("SELECT count(DISTINCT game_id) FROM sessions.actions WHERE cause = 'timeout'"),
            kGames);
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.notification_outbox WHERE kind = 'timeout'"),
            Count("SELECT count(*) FROM sessions.actions WHERE cause = 'timeout'"));
  EXPECT_THAT(sessions_->Sweep(), parlor::testing::IsOkAndHolds(0));
}

// Spectators: a public game shows anyone signed in exactly the engine's spectator view (never a
// seat's hidden information, never the seed before the end) in GetGame and at every version of
// GetHistory; ListPublicGames finds it; a private game refuses non-seated callers.
TEST_F(SessionsPgTest, PublicGamesShowSpectatorsTheSpectatorViewAndPrivateOnesRefuseThem) {
  std::mt19937_64 rng(11);
  int watched_games = 0;
  for (const engine::Game* game : registry_->games()) {
    SCOPED_TRACE(game->name());
    v1::CreateGameRequest request = TwoPlayerRequest(*game, absl::StrCat("pub-", game->name()));
    request.set_visibility(v1::VISIBILITY_PUBLIC);
    v1::Game open = Create(request);
    EXPECT_EQ(open.visibility(), v1::VISIBILITY_PUBLIC);
    for (int i = 0; i < 3; ++i) {
      ASSERT_THAT(RandomMove(open.game_id(), rng, absl::StrCat("k", i)), IsOk());
    }
    auto row = store_->GetGame(open.game_id());
    ASSERT_THAT(row, IsOk());
    if (row->finished) continue;
    auto state = LoadState(*game, row->snapshot);
    ASSERT_THAT(state, IsOk());
    ++watched_games;

    v1::GetGameRequest get;
    get.set_game_id(open.game_id());
    v1::GetGameResponse watched;
    ASSERT_THAT(calls::GetGame(*sessions_, kStranger, get, &watched), IsOk());
    EXPECT_EQ(watched.game().my_seat(), -1);
    EXPECT_FALSE(watched.game().my_turn());
    EXPECT_TRUE(watched.legal_actions().empty());
    EXPECT_TRUE(watched.game().seed().empty());
    EXPECT_EQ(watched.view().SerializeAsString(),
              ViewAny(**state, engine::Viewer::Spectator()).SerializeAsString());
    // A seated player of the same game still gets its seat's view.
    v1::GetGameResponse seated;
    ASSERT_THAT(calls::GetGame(*sessions_, kAlice, get, &seated), IsOk());
    EXPECT_EQ(seated.game().my_seat(), 0);
    EXPECT_EQ(seated.view().SerializeAsString(),
              ViewAny(**state, engine::Viewer::Seat(0)).SerializeAsString());

    v1::GetHistoryRequest history;
    history.set_game_id(open.game_id());
    v1::GetHistoryResponse events;
    ASSERT_THAT(calls::GetHistory(*sessions_, kStranger, history, &events), IsOk());
    auto record = WholeRecord(open.game_id());
    ASSERT_THAT(record, IsOk());
    auto states = StatesBetween(*game, *record, 0, row->version);
    ASSERT_THAT(states, IsOk());
    ASSERT_EQ(events.events_size(), row->version + 1);
    for (const v1::HistoryEvent& event : events.events()) {
      EXPECT_EQ(
          event.view().SerializeAsString(),
          ViewAny(*(*states)[event.version()], engine::Viewer::Spectator()).SerializeAsString())
          << "version " << event.version();
    }
    // The watch stream's reads are the same events and summaries.
    std::vector<v1::WatchGameResponse> streamed;
    ASSERT_THAT(calls::WatchEvents(*sessions_, kStranger, open.game_id(), -1, 50, &streamed),
                IsOk());
    ASSERT_EQ(streamed.size(), static_cast<size_t>(row->version + 1));
    EXPECT_EQ(streamed.back().game().my_seat(), -1);
    EXPECT_TRUE(streamed.back().game().seed().empty());

    // After the end a spectator sees everything, the seed included.
    v1::ResignRequest resign;
    resign.set_game_id(open.game_id());
    v1::ResignResponse resigned;
    ASSERT_THAT(calls::Resign(*sessions_, kBob, resign, &resigned), IsOk());
    if (resigned.game().status() == v1::GAME_STATUS_FINISHED) {
      ASSERT_THAT(calls::GetGame(*sessions_, kStranger, get, &watched), IsOk());
      EXPECT_EQ(watched.game().seed().size(), 64u);
    }
  }
  EXPECT_GT(watched_games, 0);

  // A private game: a non-seated caller is refused on every way of looking at it.
  v1::Game closed = Create(TwoPlayerRequest(FirstGame(), "private"));
  EXPECT_EQ(closed.visibility(), v1::VISIBILITY_PRIVATE);
  v1::GetGameRequest get;
  get.set_game_id(closed.game_id());
  v1::GetGameResponse out;
  EXPECT_THAT(calls::GetGame(*sessions_, kStranger, get, &out),
              StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr("private")));
  std::vector<v1::WatchGameResponse> streamed;
  EXPECT_THAT(calls::WatchEvents(*sessions_, kStranger, closed.game_id(), -1, 50, &streamed),
              StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr("private")));
  EXPECT_THAT(calls::SummaryOf(*sessions_, kStranger, closed.game_id()).status(),
              StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr("private")));
}

// The stranger blocked Bob (or Bob blocked the stranger: the accounts service answers both ways
// at once): public lists leave out Bob's games; when accounts cannot answer, the list fails
// rather than show them.
TEST_F(SessionsPgTest, ListPublicGamesLeavesOutGamesOfBlockedPlayers) {
  const engine::Game& game = FirstGame();
  v1::CreateGameRequest with_bob = TwoPlayerRequest(game, "blocked-bob");
  with_bob.set_visibility(v1::VISIBILITY_PUBLIC);
  Create(with_bob);
  now_ = now_.load() + absl::Seconds(1);
  v1::CreateGameRequest with_carol = TwoPlayerRequest(game, "carol-instead");
  with_carol.set_visibility(v1::VISIBILITY_PUBLIC);
  with_carol.mutable_seats(1)->set_account_id(kCarol);
  const std::string carol_game = Create(with_carol).game_id();
  bool accounts_up = true;
  Sessions::Options options;
  options.blocked_either_way =
      [&](const std::string& account_id) -> absl::StatusOr<std::vector<std::string>> {
    if (!accounts_up) return absl::UnavailableError("accounts.ListBlocks: connection refused");
    if (account_id == kStranger) return std::vector<std::string>{kBob};
    return std::vector<std::string>{};
  };
  Sessions blocking(
      store_.get(), registry_.get(), [this] { return now_.load(); }, options);
  v1::ListPublicGamesResponse listed;
  ASSERT_THAT(calls::ListPublicGames(blocking, kStranger, {}, &listed), IsOk());
  ASSERT_EQ(listed.games_size(), 1);
  EXPECT_EQ(listed.games(0).game_id(), carol_game);
  ASSERT_THAT(calls::ListPublicGames(blocking, kCarol, {}, &listed), IsOk());
  EXPECT_EQ(listed.games_size(), 2);
  accounts_up = false;
  EXPECT_THAT(calls::ListPublicGames(blocking, kStranger, {}, &listed),
              StatusIs(absl::StatusCode::kUnavailable, ::testing::HasSubstr("ListBlocks")));
}

TEST_F(SessionsPgTest, ListPublicGamesPagesPublicGamesOnlyNewestFirst) {
  const engine::Game& game = FirstGame();
  std::vector<std::string> public_ids;
  for (int i = 0; i < 5; ++i) {
    now_ = now_.load() + absl::Seconds(1);
    v1::CreateGameRequest request = TwoPlayerRequest(game, absl::StrCat("p", i));
    request.set_visibility(i == 2 ? v1::VISIBILITY_PRIVATE : v1::VISIBILITY_PUBLIC);
    const std::string id = Create(request).game_id();
    if (i != 2) public_ids.push_back(id);
  }
  v1::ListPublicGamesRequest request;
  request.set_page_size(3);
  std::vector<std::string> seen;
  for (int page = 0; page < 5; ++page) {
    v1::ListPublicGamesResponse response;
    ASSERT_THAT(calls::ListPublicGames(*sessions_, kStranger, request, &response), IsOk());
    for (const v1::Game& g : response.games()) {
      seen.push_back(g.game_id());
      EXPECT_EQ(g.my_seat(), -1);
      EXPECT_EQ(g.visibility(), v1::VISIBILITY_PUBLIC);
      EXPECT_TRUE(g.seed().empty());
    }
    if (response.next_page_token().empty()) break;
    request.set_page_token(response.next_page_token());
  }
  EXPECT_THAT(seen,
              ::testing::ElementsAre(public_ids[3], public_ids[2], public_ids[1], public_ids[0]));
  // A seated player sees its own seat in the listing.
  v1::ListPublicGamesRequest first;
  v1::ListPublicGamesResponse mine;
  ASSERT_THAT(calls::ListPublicGames(*sessions_, kBob, first, &mine), IsOk());
  ASSERT_FALSE(mine.games().empty());
  EXPECT_EQ(mine.games(0).my_seat(), 1);
  // Filters: another game's name, and finished games (none yet).
  v1::ListPublicGamesRequest other;
  other.set_game(registry_->games().back()->name());
  ASSERT_THAT(calls::ListPublicGames(*sessions_, kStranger, other, &mine), IsOk());
  EXPECT_EQ(mine.games_size(), game.name() == other.game() ? 4 : 0);
  v1::ListPublicGamesRequest finished;
  finished.set_status(v1::GAME_STATUS_FINISHED);
  ASSERT_THAT(calls::ListPublicGames(*sessions_, kStranger, finished, &mine), IsOk());
  EXPECT_EQ(mine.games_size(), 0);
  // A token only continues the listing it came from.
  request.set_page_size(1);
  request.clear_page_token();
  v1::ListPublicGamesResponse page;
  ASSERT_THAT(calls::ListPublicGames(*sessions_, kStranger, request, &page), IsOk());
  finished.set_page_token(page.next_page_token());
  EXPECT_THAT(calls::ListPublicGames(*sessions_, kStranger, finished, &mine),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("page_token")));
}

// A game that ends before any human acts (here every seat is a computer player, which plays it
// out at creation) is stored finished at its real version, with exactly one result outbox row;
// a retry of the creation writes nothing more.
// A game only the computer plays is played at creation, within the bound on automatic play per
// request, and then by the sweeper, a bounded chunk per sweep, to its end.
TEST_F(SessionsPgTest, AGameTheComputerPlaysToItsEndWritesOneResultRow) {
  for (const engine::Game* game : registry_->games()) {
    SCOPED_TRACE(game->name());
    v1::CreateGameRequest request;
    request.set_match_id(absl::StrCat("bots-", game->name()));
    request.set_game(game->name());
    for (int i = 0; i < game->info().min_players; ++i) request.add_seats()->set_bot("random");
    request.mutable_time_control()->mutable_per_move()->mutable_limit()->set_seconds(3600);
    v1::CreateGameResponse made, again;
    ASSERT_THAT(calls::CreateGame(*sessions_, request, &made), IsOk());
    ASSERT_THAT(calls::CreateGame(*sessions_, request, &again), IsOk());
    EXPECT_FALSE(again.created());
    const std::string id = made.game().game_id();
    EXPECT_LE(made.game().version(), Sessions::Options{}.auto_moves_per_request);
    v1::Game created = made.game();
    for (int sweep = 0; sweep < 10000 && created.status() != v1::GAME_STATUS_FINISHED; ++sweep) {
      ASSERT_THAT(sessions_->Sweep(), IsOk());
      v1::CreateGameResponse reread;  // the existing game, as it is now
      ASSERT_THAT(calls::CreateGame(*sessions_, request, &reread), IsOk());
      created = reread.game();
    }
    EXPECT_EQ(created.status(), v1::GAME_STATUS_FINISHED);
    EXPECT_EQ(created.outcome().ranks_size(), game->info().min_players);
    EXPECT_TRUE(created.acting_seats().empty());
    EXPECT_FALSE(created.has_deadline());
    const std::string where = absl::StrCat(" WHERE game_id = '", id, "'");
    EXPECT_EQ(Count("SELECT version FROM sessions.games" + where),
              Count("SELECT max(version) FROM sessions.actions" + where));
    EXPECT_GT(created.version(), 0);
    EXPECT_EQ(Count("SELECT count(*) FROM sessions.result_outbox" + where), 1);
    EXPECT_EQ(Count("SELECT count(*) FROM sessions.seats" + where + " AND status = 'finished'"),
              game->info().min_players);
    // The stored record replays with the revealed seed.
    auto record = WholeRecord(id);
    ASSERT_THAT(record, IsOk());
    EXPECT_THAT(game->Replay(*record, /*check_seed=*/true), IsOk());
  }
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.result_outbox"),
            static_cast<int64_t>(registry_->games().size()));
}

// When the computer moves first in a game against it, the stored version counts those moves.
TEST_F(SessionsPgTest, ComputerMovesAtCreationCountInTheVersion) {
  for (const engine::Game* game : registry_->games()) {
    SCOPED_TRACE(game->name());
    v1::CreateBotGameRequest request;
    request.set_request_id(absl::StrCat("cpu-first-", game->name()));
    request.set_game(game->name());
    request.set_num_players(game->info().min_players);
    request.set_my_seat(game->info().min_players - 1);
    v1::CreateBotGameResponse created;
    ASSERT_THAT(calls::CreateBotGame(*sessions_, kCarol, request, &created), IsOk());
    const std::string where = absl::StrCat(" WHERE game_id = '", created.game().game_id(), "'");
    EXPECT_EQ(created.game().version(), Count("SELECT max(version) FROM sessions.actions" + where));
  }
}

// A matchmade 1-day per-move game across a vacation (CreateGame as matchmaking calls it). The
// turn starts at T with 24 h; the player's 3-hour vacation runs from T+1h to T+4h: the clock
// stops with 23 h left and runs again at T+4h with those 23 h, so the deadline is T+27h (before
// the fix it became T+4h and the player forfeited). Everyone sees "on vacation until T+4h"; no
// reminder while the clock is stopped; the reminders and the timeout follow the moved turn.
TEST_F(SessionsPgTest, AMatchmadeOneDayGameAcrossAVacationGetsBackTheTimeLeft) {
  v1::CreateGameRequest request = TwoPlayerRequest(FirstGame(), "vacation");
  request.mutable_time_control()->set_vacation_days(7);
  v1::Game created = Create(request);
  ASSERT_EQ(created.acting_seats_size(), 1) << "the test needs a game with one seat acting";
  const int seat = created.acting_seats(0);
  const std::string player = created.seats(seat).account_id();
  const std::string other = created.seats(1 - seat).account_id();
  const absl::Time start = now_.load();
  const std::string where = absl::StrCat(" WHERE game_id = '", created.game_id(), "'");
  v1::GetGameRequest get;
  get.set_game_id(created.game_id());
  v1::GetGameResponse state;

  now_ = start + absl::Hours(1);
  EXPECT_THAT(sessions_->StartVacation(player, absl::Hours(3)),
              parlor::testing::IsOkAndHolds(start + absl::Hours(4)));
  // A second one while it runs is refused and changes nothing.
  const std::string digest = Digest();
  EXPECT_THAT(sessions_->StartVacation(player, absl::Hours(3)),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("already")));
  EXPECT_EQ(Digest(), digest);
  // The opponent sees it, and the moved deadline.
  ASSERT_THAT(calls::GetGame(*sessions_, other, get, &state), IsOk());
  EXPECT_EQ(state.game().seats(seat).vacation_until().seconds(),
            absl::ToUnixSeconds(start + absl::Hours(4)));
  EXPECT_FALSE(state.game().seats(1 - seat).has_vacation_until());
  EXPECT_EQ(state.game().deadline().seconds(), absl::ToUnixSeconds(start + absl::Hours(27)));
  EXPECT_EQ(state.game().version(), 0);

  // No reminder while the clock is stopped.
  now_ = start + absl::Hours(3);
  EXPECT_THAT(sessions_->Sweep(), parlor::testing::IsOkAndHolds(0));
  // The vacation is over on its own at T+4h: nothing to do, no longer shown.
  now_ = start + absl::Hours(5);
  EXPECT_THAT(sessions_->Sweep(), parlor::testing::IsOkAndHolds(0));
  ASSERT_THAT(calls::GetGame(*sessions_, other, get, &state), IsOk());
  EXPECT_FALSE(state.game().seats(seat).has_vacation_until());
  EXPECT_EQ(state.game().seats(seat).vacation_used().seconds(), 3 * 3600);
  // Half the turn's 24 h of clock time at T+15h: the first reminder, not before.
  now_ = start + absl::Hours(15) - absl::Seconds(1);
  EXPECT_THAT(sessions_->Sweep(), parlor::testing::IsOkAndHolds(0));
  now_ = start + absl::Hours(15);
  EXPECT_THAT(sessions_->Sweep(), parlor::testing::IsOkAndHolds(1));
  EXPECT_EQ(
      Count("SELECT count(*) FROM sessions.notification_outbox" + where + " AND kind = 'reminder'"),
      1);
  // Past the old deadline (T+24h): no timeout. At T+27h: the timeout.
  now_ = start + absl::Hours(26);
  EXPECT_THAT(sessions_->Sweep(), IsOk());
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.actions" + where + " AND cause = 'timeout'"), 0);
  now_ = start + absl::Hours(27);
  EXPECT_THAT(sessions_->Sweep(), parlor::testing::IsOkAndHolds(1));
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.actions" + where + " AND cause = 'timeout'"), 1);

  // Ending a vacation: refused when none runs, changing nothing.
  const std::string before_end = Digest();
  EXPECT_THAT(sessions_->EndVacation(player),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("no vacation")));
  EXPECT_EQ(Digest(), before_end);
}

// Ending a vacation early gives back exactly the time left when it began (and the unused pause
// to the game's allowance); a turn that starts during a vacation starts with its clock stopped
// until the vacation ends; the yearly allowance (30 days of vacations started in the last 365
// days) is enforced with a message that says what is left.
TEST_F(SessionsPgTest, EndingAVacationEarlyAndTheYearlyAllowance) {
  v1::CreateGameRequest request = TwoPlayerRequest(FirstGame(), "early-vacation");
  request.mutable_time_control()->set_vacation_days(7);
  v1::Game created = Create(request);
  ASSERT_EQ(created.acting_seats_size(), 1) << "the test needs a game with one seat acting";
  const int seat = created.acting_seats(0);
  const std::string player = created.seats(seat).account_id();
  const std::string other = created.seats(1 - seat).account_id();
  const absl::Time start = now_.load();
  v1::GetGameRequest get;
  get.set_game_id(created.game_id());
  v1::GetGameResponse state;

  // The acting player: 10 days planned from T+1h, ended at T+3h: 23 h were left at T+1h, so
  // the deadline is T+3h+23h = T+26h; 2 hours of the game's allowance used.
  now_ = start + absl::Hours(1);
  ASSERT_THAT(sessions_->StartVacation(player, absl::Hours(10 * 24)), IsOk());
  ASSERT_THAT(calls::GetGame(*sessions_, player, get, &state), IsOk());
  EXPECT_EQ(state.game().deadline().seconds(), absl::ToUnixSeconds(start + absl::Hours(24 + 168)))
      << "paused for the game's 7-day allowance";
  now_ = start + absl::Hours(3);
  ASSERT_THAT(sessions_->EndVacation(player), IsOk());
  ASSERT_THAT(calls::GetGame(*sessions_, other, get, &state), IsOk());
  EXPECT_EQ(state.game().deadline().seconds(), absl::ToUnixSeconds(start + absl::Hours(26)));
  EXPECT_EQ(state.game().seats(seat).vacation_used().seconds(), 2 * 3600);
  EXPECT_FALSE(state.game().seats(seat).has_vacation_until());

  // The waiting player goes on a 2-day vacation at T+4h; the acting player moves at T+5h: if
  // the turn passes to the one on vacation, it starts stopped until T+52h, with its 24 h after.
  now_ = start + absl::Hours(4);
  ASSERT_THAT(sessions_->StartVacation(other, absl::Hours(2 * 24)), IsOk());
  now_ = start + absl::Hours(5);
  std::mt19937_64 rng(7);
  ASSERT_THAT(RandomMove(created.game_id(), rng, "m1"), IsOk());
  ASSERT_THAT(calls::GetGame(*sessions_, other, get, &state), IsOk());
  if (state.game().my_turn()) {
    EXPECT_EQ(state.game().deadline().seconds(), absl::ToUnixSeconds(start + absl::Hours(76)));
    EXPECT_EQ(state.game().seats(1 - seat).vacation_used().seconds(), 47 * 3600);
  }

  // The yearly allowance: 2 hours taken; 30 days would pass it.
  const absl::Duration left = absl::Hours(30 * 24) - absl::Hours(2);
  now_ = start + absl::Hours(100);
  const std::string digest = Digest();
  EXPECT_THAT(sessions_->StartVacation(player, absl::Hours(30 * 24)),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr(absl::StrCat("at most 30 days; you have taken 2h, so at most ",
                                              absl::FormatDuration(left), " is left"))));
  EXPECT_EQ(Digest(), digest);
  // What is left is allowed, and then nothing more, until the first one is 365 days old.
  ASSERT_THAT(sessions_->StartVacation(player, left), IsOk());
  now_ = start + absl::Hours(100) + absl::Hours(24 * 30);
  EXPECT_THAT(sessions_->StartVacation(player, absl::Hours(1)),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("yearly allowance")));
  now_ = start + absl::Hours(1) + absl::Hours(24 * 365) + absl::Seconds(1);
  EXPECT_THAT(sessions_->StartVacation(player, absl::Hours(1)), IsOk());
}

// A time bank with no increment: after a timeout the bank is empty, yet every later turn still
// starts with the floor (a third of the initial bank, at least an hour), so the seat is never
// timed out at once; and a casual seat that times out three turns in a row forfeits instead of
// the computer playing its game to the end.
TEST_F(SessionsPgTest, ABankWithNoIncrementNeverLocksASeatOutAndRepeatedTimeoutsForfeit) {
  v1::CreateGameRequest request = TwoPlayerRequest(FirstGame(), "bank-zero");
  auto* bank = request.mutable_time_control()->mutable_time_bank();
  bank->mutable_initial()->set_seconds(3 * 86400);
  bank->mutable_increment()->set_seconds(0);
  v1::Game created = Create(request);
  ASSERT_EQ(created.acting_seats_size(), 1) << "the test needs a game with one seat acting";
  const std::string where = absl::StrCat(" WHERE game_id = '", created.game_id(), "'");
  v1::GetGameRequest get;
  get.set_game_id(created.game_id());
  v1::GetGameResponse state;
  // Nobody moves: each turn times out at its deadline; after the first timeout of each seat its
  // bank is empty, and its next turns get the 1-day floor (never 0 s).
  int timeouts = 0;
  while (true) {
    ASSERT_THAT(calls::GetGame(*sessions_, kPlayers[0], get, &state), IsOk());
    if (state.game().status() != v1::GAME_STATUS_ACTIVE) break;
    ASSERT_LT(timeouts, 6) << "the game should have ended by the third timeout in a row";
    const v1::Seat& acting = state.game().seats(state.game().acting_seats(0));
    const absl::Duration turn =
        absl::FromUnixSeconds(state.game().deadline().seconds()) - now_.load();
    if (acting.time_bank_remaining().seconds() == 0) {
      EXPECT_EQ(turn, absl::Hours(24)) << "an empty bank gives the floor";
    } else {
      EXPECT_GE(turn, absl::Hours(24));
    }
    now_ = absl::FromUnixSeconds(state.game().deadline().seconds());
    ASSERT_THAT(sessions_->Sweep(), parlor::testing::IsOkAndHolds(1));
    ++timeouts;
  }
  // The seat whose third timeout in a row came first forfeited; the game ended by it.
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.actions" + where +
                  " AND kind = 'forfeit' AND cause = 'timeout'"),
            1);
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.actions" + where +
                  " AND kind = 'action' AND cause = 'timeout'"),
            timeouts - 1);
  int forfeited = -1;
  for (const v1::Seat& s : state.game().seats()) {
    if (s.forfeited()) forfeited = s.seat();
  }
  ASSERT_GE(forfeited, 0);
  EXPECT_EQ(state.game().seats(forfeited).timeouts_in_a_row(), 3);
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.notification_outbox" + where +
                  " AND kind = 'timeout' AND payload->>'text' LIKE '%3 turns in a row%'"),
            1);
}

// Time banks: each seat starts with `initial`; the time a seat takes is taken from its bank and
// `increment` is added after each move, never above `initial`; the deadline is the turn's start
// plus the bank; an empty bank is a timeout.
TEST_F(SessionsPgTest, TimeBanksRunDownGrowPerMoveUpToTheStartAndTimeOutWhenEmpty) {
  v1::CreateGameRequest request = TwoPlayerRequest(FirstGame(), "bank");
  auto* bank = request.mutable_time_control()->mutable_time_bank();
  bank->mutable_initial()->set_seconds(2 * 3600);
  bank->mutable_increment()->set_seconds(1800);
  v1::Game created = Create(request);
  ASSERT_EQ(created.acting_seats_size(), 1) << "the test needs a game with one seat acting";
  absl::Time t = now_.load();
  for (const v1::Seat& seat : created.seats()) {
    EXPECT_EQ(seat.time_bank_remaining().seconds(), 2 * 3600);
  }
  EXPECT_EQ(created.deadline().seconds(), absl::ToUnixSeconds(t + absl::Hours(2)));

  // Moves a legal action of whoever must act after `taken`; returns the mover's seat.
  std::mt19937_64 rng(4);
  auto move_after = [&](absl::Duration taken, const std::string& key) -> int {
    now_ = now_.load() + taken;
    v1::GetGameRequest get;
    get.set_game_id(created.game_id());
    v1::GetGameResponse any;
    EXPECT_THAT(calls::GetGame(*sessions_, kAlice, get, &any), IsOk());
    const int seat = any.game().acting_seats(0);
    EXPECT_THAT(RandomMove(created.game_id(), rng, key), IsOk());
    return seat;
  };
  auto bank_of = [&](int seat) -> int64_t {
    v1::GetGameRequest get;
    get.set_game_id(created.game_id());
    v1::GetGameResponse state;
    EXPECT_THAT(calls::GetGame(*sessions_, kAlice, get, &state), IsOk());
    return state.game().seats(seat).time_bank_remaining().seconds();
  };
  auto acting = [&]() {
    v1::GetGameRequest get;
    get.set_game_id(created.game_id());
    v1::GetGameResponse state;
    EXPECT_THAT(calls::GetGame(*sessions_, kAlice, get, &state), IsOk());
    return state.game();
  };

  // 10 minutes taken, 30 added: capped at the start (2 h).
  const int first = move_after(absl::Minutes(10), "a");
  EXPECT_EQ(bank_of(first), 2 * 3600);
  // Whoever acts next (maybe the same seat again) spends an hour and gains half an hour.
  v1::Game now_acting = acting();
  ASSERT_EQ(now_acting.status(), v1::GAME_STATUS_ACTIVE);  // the seeded game is still going
  const int second = now_acting.acting_seats(0);
  const int64_t before = now_acting.seats(second).time_bank_remaining().seconds();
  EXPECT_EQ(now_acting.deadline().seconds(),
            absl::ToUnixSeconds(now_.load()) + before);  // the turn's start plus the bank
  ASSERT_EQ(move_after(absl::Hours(1), "b"), second);
  EXPECT_EQ(bank_of(second), std::min<int64_t>(2 * 3600, before - 3600 + 1800));

  // While a seat thinks, its shown bank runs down.
  now_acting = acting();
  ASSERT_EQ(now_acting.status(), v1::GAME_STATUS_ACTIVE);  // the seeded game is still going
  const int third = now_acting.acting_seats(0);
  const int64_t full = now_acting.seats(third).time_bank_remaining().seconds();
  now_ = now_.load() + absl::Minutes(20);
  EXPECT_EQ(bank_of(third), full - 20 * 60);
  // The bank empties: a timeout (casual: the computer moves for the seat).
  const std::string where = absl::StrCat(" WHERE game_id = '", created.game_id(), "'");
  now_ = now_.load() + absl::Seconds(full - 20 * 60 - 1);
  EXPECT_THAT(sessions_->Sweep(), IsOk());  // the reminders only
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.actions" + where + " AND cause = 'timeout'"), 0);
  now_ = now_.load() + absl::Seconds(1);
  EXPECT_THAT(sessions_->Sweep(), parlor::testing::IsOkAndHolds(1));
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.actions" + where +
                  " AND cause = 'timeout' AND "
                  "seat = " +
                  std::to_string(third)),
            1);
  // The timed-out seat's bank was emptied and only the increment comes back.
  EXPECT_LE(bank_of(third), 1800);
}

// Players' records, kept in the transaction that ends each game against people: a resignation,
// a ranked timeout and the games the others finished; games against the computer do not count.
TEST_F(SessionsPgTest, PlayerRecordsCountFinishedResignedAndTimedOutGames) {
  // Alice resigns a casual game: she resigned it, Bob finished it.
  v1::Game resigned = Create(TwoPlayerRequest(FirstGame(), "record-resign"));
  v1::ResignRequest resign;
  resign.set_game_id(resigned.game_id());
  v1::ResignResponse after_resign;
  ASSERT_THAT(calls::Resign(*sessions_, kAlice, resign, &after_resign), IsOk());
  ASSERT_EQ(after_resign.game().status(), v1::GAME_STATUS_FINISHED);
  // A ranked game: whoever must act lets the deadline pass and forfeits.
  v1::Game ranked = Create(TwoPlayerRequest(FirstGame(), "record-timeout", /*ranked=*/true));
  ASSERT_EQ(ranked.acting_seats_size(), 1) << "the test needs a game with one seat acting";
  const std::string late = ActingAccount(ranked);
  const std::string other = late == kAlice ? kBob : kAlice;
  now_ = now_.load() + absl::Hours(25);
  ASSERT_THAT(sessions_->Sweep(), parlor::testing::IsOkAndHolds(1));
  // Carol resigns a game against the computer: not a game against people.
  v1::CreateBotGameRequest bot;
  bot.set_request_id("record-bot");
  bot.set_game(FirstGame().name());
  bot.set_num_players(FirstGame().info().min_players);
  v1::CreateBotGameResponse bot_game;
  ASSERT_THAT(calls::CreateBotGame(*sessions_, kCarol, bot, &bot_game), IsOk());
  resign.set_game_id(bot_game.game().game_id());
  ASSERT_THAT(calls::Resign(*sessions_, kCarol, resign, &after_resign), IsOk());

  absl::StatusOr<std::vector<PlayerRecord>> records =
      sessions_->GetPlayerRecords({kAlice, kBob, kCarol});
  ASSERT_THAT(records, IsOk());
  ASSERT_EQ(records->size(), 3u);
  auto record_of = [&](const std::string& id) {
    for (const PlayerRecord& r : *records) {
      if (r.account_id == id) return r;
    }
    return PlayerRecord();
  };
  const PlayerRecord alice = record_of(kAlice);
  EXPECT_EQ(alice.resigned, 1);
  EXPECT_EQ(alice.timed_out, late == kAlice ? 1 : 0);
  EXPECT_EQ(alice.finished, late == kAlice ? 0 : 1);
  const PlayerRecord timed = record_of(late);
  const PlayerRecord finisher = record_of(other);
  EXPECT_EQ(timed.timed_out, 1);
  EXPECT_EQ(finisher.timed_out, 0);
  const PlayerRecord bob = record_of(kBob);
  EXPECT_EQ(bob.resigned, 0);
  EXPECT_EQ(bob.finished + bob.timed_out, 2);
  EXPECT_DOUBLE_EQ(bob.finish_rate, bob.finished / 2.0);
  EXPECT_DOUBLE_EQ(alice.finish_rate, alice.finished / 2.0);
  // Carol's game against the computer left no record: all zero, a finish rate of 1.
  EXPECT_EQ((*records)[2].account_id, kCarol);
  EXPECT_EQ((*records)[2].finished + (*records)[2].resigned + (*records)[2].timed_out, 0);
  EXPECT_DOUBLE_EQ((*records)[2].finish_rate, 1.0);
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.player_records"), 2);
}

// Idempotency keys are kept for the retention window (a retry within it gets the first answer)
// and deleted by the sweeper in batches after it; a retry after that gets ABORTED, never a
// second application.
TEST_F(SessionsPgTest, IdempotencyKeysAreForgottenAfterTheRetentionInBatches) {
  Sessions::Options options;
  options.idempotency_key_retention = absl::Hours(48);
  options.idempotency_key_batch = 2;
  options.idempotency_key_batches = 2;
  Sessions sessions(
      store_.get(), registry_.get(), [this] { return now_.load(); }, options);
  v1::Game created = Create(TwoPlayerRequest(FirstGame(), "keys"));
  std::mt19937_64 rng(5);
  const absl::Time start = now_.load();
  v1::SubmitActionRequest first;
  v1::SubmitActionResponse first_answer;
  for (int i = 0; i < 5; ++i) {
    v1::GetGameRequest get;
    get.set_game_id(created.game_id());
    v1::GetGameResponse any, mine;
    ASSERT_THAT(calls::GetGame(sessions, kAlice, get, &any), IsOk());
    ASSERT_EQ(any.game().status(), v1::GAME_STATUS_ACTIVE);
    const std::string account = ActingAccount(any.game());
    ASSERT_THAT(calls::GetGame(sessions, account, get, &mine), IsOk());
    v1::SubmitActionRequest submit;
    submit.set_game_id(created.game_id());
    submit.set_expected_version(mine.game().version());
    submit.set_idempotency_key(absl::StrCat("key-", i));
    *submit.mutable_action() = mine.legal_actions(rng() % mine.legal_actions_size());
    v1::SubmitActionResponse answer;
    ASSERT_THAT(calls::SubmitAction(sessions, account, submit, &answer), IsOk());
    if (i == 0) {
      first = submit;
      first_answer = answer;
    }
  }
  const std::string first_account = ActingAccount(created);
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.idempotency_keys"), 5);

  // Within the window: nothing is deleted and a retry gets the first answer.
  now_ = start + absl::Hours(47);
  EXPECT_THAT(sessions.ForgetExpiredIdempotencyKeys(), parlor::testing::IsOkAndHolds(0));
  v1::SubmitActionResponse retried;
  ASSERT_THAT(calls::SubmitAction(sessions, first_account, first, &retried), IsOk());
  EXPECT_EQ(retried.SerializeAsString(), first_answer.SerializeAsString());

  // After it: one sweep deletes at most batches x batch size (2 x 2), the next the rest.
  now_ = start + absl::Hours(49);
  EXPECT_THAT(sessions.ForgetExpiredIdempotencyKeys(), parlor::testing::IsOkAndHolds(4));
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.idempotency_keys"), 1);
  EXPECT_THAT(sessions.ForgetExpiredIdempotencyKeys(), parlor::testing::IsOkAndHolds(1));
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.idempotency_keys"), 0);
  // A retry of a forgotten key is not applied again: its version is stale.
  const int64_t actions = Count("SELECT count(*) FROM sessions.actions");
  EXPECT_THAT(calls::SubmitAction(sessions, first_account, first, &retried),
              StatusIs(absl::StatusCode::kAborted, HasSubstr("stale")));
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.actions"), actions);
}

TEST_F(SessionsPgTest, TheActionLogIsAppendOnly) {
  Create(TwoPlayerRequest(FirstGame(), "m"));
  pqxx::connection c(db_url());
  pqxx::work txn(c);
  EXPECT_THROW(txn.exec0("UPDATE sessions.actions SET action = 5"), pqxx::sql_error);
}

// --- Hostile players: bounded work, quotas, unpredictable computer, duplicates on two replicas.

v1::CreateBotGameRequest BotGameRequest(const std::string& request_id, const std::string& game,
                                        int players, int my_seat,
                                        std::map<std::string, std::string> options = {}) {
  v1::CreateBotGameRequest r;
  r.set_request_id(request_id);
  r.set_game(game);
  r.set_num_players(players);
  r.set_my_seat(my_seat);
  for (const auto& [k, v] : options) (*r.mutable_options())[k] = v;
  return r;
}

// Resigning a 4-seat KA'DICE game against the computer used to make the computer play all three
// seats to the end inside the Resign call (about 11,900 log entries at max_rounds=500). Now a
// game with no player left ends at once by the forfeit rules: the computer seats withdraw, lowest
// score first, and the player, who forfeited first, ranks last.
TEST_F(SessionsPgTest, ResigningTheLastPlayerEndsABotGameAtOnceByTheForfeitRules) {
  v1::CreateBotGameResponse created;
  ASSERT_THAT(
      calls::CreateBotGame(*sessions_, kCarol, BotGameRequest("resign", "kadice", 4, 0), &created),
      IsOk());
  ASSERT_EQ(created.game().status(), v1::GAME_STATUS_ACTIVE);
  v1::ResignRequest resign;
  resign.set_game_id(created.game().game_id());
  v1::ResignResponse resigned;
  ASSERT_THAT(calls::Resign(*sessions_, kCarol, resign, &resigned), IsOk());
  const v1::Game& game = resigned.game();
  EXPECT_EQ(game.status(), v1::GAME_STATUS_FINISHED);
  // The player's forfeit and two withdrawals: fewer than two sides are left.
  EXPECT_EQ(game.version(), created.game().version() + 3);
  EXPECT_EQ(game.outcome().ranks(0), 4);
  std::vector<int> bot_ranks = {game.outcome().ranks(1), game.outcome().ranks(2),
                                game.outcome().ranks(3)};
  std::sort(bot_ranks.begin(), bot_ranks.end());
  EXPECT_EQ(bot_ranks, (std::vector<int>{1, 2, 3}));
  const std::string where = absl::StrCat(" WHERE game_id = '", game.game_id(), "'");
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.actions" + where), game.version() + 1);
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.actions" + where + " AND kind = 'forfeit'"), 3);
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.result_outbox" + where), 1);
}

// One request plays at most auto_moves_per_request computer moves; the computer seat left waiting
// is due at once, OnAutoPlayDue's callback is told so (the server then runs its sweeper at once
// rather than at its next interval), and each sweep plays another bounded chunk until the player
// must act.
TEST_F(SessionsPgTest, ComputerPlayIsBoundedPerRequestAndTheSweeperPlaysOn) {
  Sessions::Options options;
  options.auto_moves_per_request = 2;
  options.auto_play_budget = absl::Hours(1);
  Sessions bounded(
      store_.get(), registry_.get(), [this] { return now_.load(); }, options);
  std::atomic<int> due{0};
  bounded.OnAutoPlayDue([&due] { ++due; });
  v1::CreateBotGameResponse created;
  // Who acts first is drawn from the game's secret seed; this test needs a game the computer
  // starts (the player starts one in four).
  int due_before_create = 0;
  for (int attempt = 0; attempt < 20; ++attempt) {
    due_before_create = due;
    ASSERT_THAT(calls::CreateBotGame(
                    bounded, kCarol,
                    BotGameRequest(absl::StrCat("paced-", attempt), "kadice", 4, 3), &created),
                IsOk());
    if (!created.game().my_turn()) break;
  }
  EXPECT_EQ(created.game().version(), 2);
  EXPECT_FALSE(created.game().my_turn());
  EXPECT_EQ(due, due_before_create + 1);
  v1::GetGameRequest get;
  get.set_game_id(created.game().game_id());
  v1::GetGameResponse state;
  int64_t version = created.game().version();
  int sweeps = 0;
  for (; sweeps < 1000; ++sweeps) {
    ASSERT_THAT(calls::GetGame(bounded, kCarol, get, &state), IsOk());
    if (state.game().my_turn() || state.game().status() == v1::GAME_STATUS_FINISHED) break;
    const int due_before = due;
    ASSERT_THAT(bounded.Sweep(), parlor::testing::IsOkAndHolds(1));
    ASSERT_THAT(calls::GetGame(bounded, kCarol, get, &state), IsOk());
    EXPECT_GT(state.game().version(), version);
    EXPECT_LE(state.game().version(), version + 2);
    version = state.game().version();
    // Told again exactly when the computer still has moves left.
    const bool more = !state.game().my_turn() && state.game().status() != v1::GAME_STATUS_FINISHED;
    EXPECT_EQ(due, due_before + (more ? 1 : 0));
  }
  EXPECT_GE(sweeps, 1);
  EXPECT_TRUE(state.game().my_turn());
  // No reminder or timeout notification went to anyone for the computer's waits.
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.notification_outbox WHERE kind <> 'your_turn'"),
            0);
}

TEST_F(SessionsPgTest, OptionsThatMakeGamesHugeAreBoundedAgainstTheComputerOnly) {
  v1::CreateBotGameResponse created;
  const std::string digest = Digest();
  EXPECT_THAT(
      calls::CreateBotGame(*sessions_, kCarol,
                           BotGameRequest("huge", "kadice", 4, 0, {{"max_rounds", "500"}}),
                           &created),
      StatusIs(absl::StatusCode::kInvalidArgument,
               "options: max_rounds must be at most 100 in a game against the computer (got "
               "500)"));
  EXPECT_THAT(
      calls::CreateBotGame(
          *sessions_, kCarol,
          BotGameRequest("long", "picadice", 2, 0, {{"turn_limit_per_seat", "151"}}), &created),
      StatusIs(absl::StatusCode::kInvalidArgument,
               HasSubstr("turn_limit_per_seat must be at most 150")));
  EXPECT_EQ(Digest(), digest);
  EXPECT_THAT(
      calls::CreateBotGame(*sessions_, kCarol,
                           BotGameRequest("ok", "kadice", 4, 0, {{"max_rounds", "100"}}), &created),
      IsOk());
  // Between players (a match) the game's own range applies.
  const engine::Game& kadice = **registry_->Find("kadice");
  v1::CreateGameRequest match = TwoPlayerRequest(kadice, "long-match");
  (*match.mutable_options())["max_rounds"] = "500";
  v1::CreateGameResponse made;
  EXPECT_THAT(calls::CreateGame(*sessions_, match, &made), IsOk());
}

TEST_F(SessionsPgTest, QuotasRefuseCreateBotGameWithResourceExhaustedAndARetryDelay) {
  Sessions::Options options;
  options.max_bot_games_per_hour = 3;
  options.max_active_games = 5;
  options.max_actions_per_day = 0;
  Sessions quota(
      store_.get(), registry_.get(), [this] { return now_.load(); }, options);
  v1::CreateBotGameResponse created;
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) {
    ASSERT_THAT(calls::CreateBotGame(quota, kCarol,
                                     BotGameRequest(absl::StrCat("q", i), "pico", 2, 0), &created),
                IsOk());
    ids.push_back(created.game().game_id());
  }
  const std::string digest = Digest();
  absl::Status refused =
      calls::CreateBotGame(quota, kCarol, BotGameRequest("q3", "pico", 2, 0), &created);
  EXPECT_THAT(refused, StatusIs(absl::StatusCode::kResourceExhausted,
                                HasSubstr("3 games against the computer in the last hour")));
  EXPECT_EQ(RetryDelay(refused), absl::Hours(1));
  EXPECT_EQ(Digest(), digest);
  // A retry of a request that made its game still gets it.
  ASSERT_THAT(calls::CreateBotGame(quota, kCarol, BotGameRequest("q1", "pico", 2, 0), &created),
              IsOk());
  EXPECT_EQ(created.game().game_id(), ids[1]);
  // Another account has its own quota.
  EXPECT_THAT(calls::CreateBotGame(quota, kAlice, BotGameRequest("q3", "pico", 2, 0), &created),
              IsOk());
  // An hour later the hour's quota has room again, until five games are in progress.
  now_ = now_.load() + absl::Minutes(61);
  EXPECT_THAT(calls::CreateBotGame(quota, kCarol, BotGameRequest("q4", "pico", 2, 0), &created),
              IsOk());
  EXPECT_THAT(calls::CreateBotGame(quota, kCarol, BotGameRequest("q5", "pico", 2, 0), &created),
              IsOk());
  refused = calls::CreateBotGame(quota, kCarol, BotGameRequest("q6", "pico", 2, 0), &created);
  EXPECT_THAT(refused, StatusIs(absl::StatusCode::kResourceExhausted,
                                HasSubstr("5 games in progress, the most allowed (5)")));
  EXPECT_EQ(RetryDelay(refused), std::nullopt);
  // Moves stored per day.
  Sessions::Options tight;
  tight.max_actions_per_day = 1;
  Sessions moves(
      store_.get(), registry_.get(), [this] { return now_.load(); }, tight);
  refused = calls::CreateBotGame(moves, kCarol, BotGameRequest("q7", "pico", 2, 0), &created);
  EXPECT_THAT(refused, StatusIs(absl::StatusCode::kResourceExhausted,
                                HasSubstr("your games of the last 24 hours hold")));
  EXPECT_EQ(RetryDelay(refused), absl::Hours(24) - absl::Minutes(61));
}

// The store claims CreateBotGame's request id under an internal key; a refusal names the
// request id the caller sent, not that key.
TEST_F(SessionsPgTest, AReusedRequestIdIsRefusedNamingTheRequestId) {
  v1::CreateBotGameResponse created;
  ASSERT_THAT(
      calls::CreateBotGame(*sessions_, kCarol, BotGameRequest("mine", "pico", 2, 0), &created),
      IsOk());
  absl::Status reused =
      calls::CreateBotGame(*sessions_, kCarol, BotGameRequest("mine", "pico", 2, 1), &created);
  EXPECT_THAT(reused, StatusIs(absl::StatusCode::kAlreadyExists,
                               "request_id 'mine' was already used to create a game with different "
                               "settings; use a fresh request_id for a new game"));
  EXPECT_THAT(std::string(reused.message()), ::testing::Not(HasSubstr("bot:")));
}

TEST_F(SessionsPgTest, BotLevelsAreAcceptedWhereTheBotNameIsGiven) {
  for (const char* level : {"easy", "medium", "hard", "random", "greedy"}) {
    SCOPED_TRACE(level);
    v1::CreateBotGameRequest request = BotGameRequest(absl::StrCat("lvl-", level), "pico", 2, 0);
    request.set_bot(level);
    v1::CreateBotGameResponse created;
    ASSERT_THAT(calls::CreateBotGame(*sessions_, kCarol, request, &created), IsOk());
    // The level, or the bot that plays it: what recomputes the seat's decisions.
    EXPECT_THAT(bots::MakeBot(created.game().seats(1).bot()), IsOk());
  }
  v1::CreateBotGameRequest request = BotGameRequest("lvl-x", "pico", 2, 0);
  request.set_bot("expert");
  v1::CreateBotGameResponse created;
  EXPECT_THAT(calls::CreateBotGame(*sessions_, kCarol, request, &created),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("bot: ")));
}

// Pico: a seat that has chosen its card for the trick gets the engine's refusal.
TEST_F(SessionsPgTest, ASeatThatAlreadyChoseIsToldSoNotThatItIsNotItsTurn) {
  const engine::Game& pico = **registry_->Find("pico");
  v1::Game created = Create(TwoPlayerRequest(pico, "pico-twice"));
  v1::GetGameRequest get;
  get.set_game_id(created.game_id());
  v1::GetGameResponse mine;
  ASSERT_THAT(calls::GetGame(*sessions_, kAlice, get, &mine), IsOk());
  ASSERT_TRUE(mine.game().my_turn());
  v1::SubmitActionRequest submit;
  submit.set_game_id(created.game_id());
  submit.set_expected_version(0);
  submit.set_idempotency_key("first");
  *submit.mutable_action() = mine.legal_actions(0);
  v1::SubmitActionResponse out;
  ASSERT_THAT(calls::SubmitAction(*sessions_, kAlice, submit, &out), IsOk());
  submit.set_expected_version(1);
  submit.set_idempotency_key("second");
  const std::string digest = Digest();
  EXPECT_THAT(calls::SubmitAction(*sessions_, kAlice, submit, &out),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("you already chose")));
  EXPECT_EQ(Digest(), digest);
}

// The same SubmitAction sent to two replicas at the same moment: both get the first answer. The
// second copy's locked read waits for the first's lock and then sees the new game row but not the
// key stored with it (READ COMMITTED re-reads only locked rows); it is checked again.
TEST_F(SessionsPgTest, TwoReplicasAnswerBothCopiesOfAMoveWithTheFirstAnswer) {
  DbOptions db;
  db.url = db_url();
  db.max_connections = 4;
  DbPool pool2(db, nullptr);
  PgSessionsStore store2(&pool2);
  Sessions replica2(
      &store2, registry_.get(), [this] { return now_.load(); }, Sessions::Options{});
  constexpr int kRounds = 30;
  int aborted = 0, other = 0, different = 0;
  for (int round = 0; round < kRounds; ++round) {
    v1::Game created = Create(TwoPlayerRequest(FirstGame(), absl::StrCat("dup-", round)));
    const std::string account = ActingAccount(created);
    v1::GetGameRequest get;
    get.set_game_id(created.game_id());
    v1::GetGameResponse state;
    ASSERT_THAT(calls::GetGame(*sessions_, account, get, &state), IsOk());
    v1::SubmitActionRequest submit;
    submit.set_game_id(created.game_id());
    submit.set_expected_version(0);
    submit.set_idempotency_key("same");
    *submit.mutable_action() = state.legal_actions(0);
    std::atomic<int> ready{0};
    absl::Status results[2];
    v1::SubmitActionResponse answers[2];
    Sessions* replicas[2] = {sessions_.get(), &replica2};
    std::vector<std::thread> threads;
    for (int i = 0; i < 2; ++i) {
      threads.emplace_back([&, i] {
        ready.fetch_add(1);
        while (ready.load() < 2) {
        }
        results[i] = calls::SubmitAction(*replicas[i], account, submit, &answers[i]);
      });
    }
    for (std::thread& t : threads) t.join();
    for (const absl::Status& s : results) {
      if (absl::IsAborted(s))
        ++aborted;
      else if (!s.ok())
        ++other;
    }
    if (results[0].ok() && results[1].ok() &&
        answers[0].SerializeAsString() != answers[1].SerializeAsString()) {
      ++different;
    }
  }
  EXPECT_EQ(aborted, 0);
  EXPECT_EQ(other, 0);
  EXPECT_EQ(different, 0);
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.actions WHERE version = 1"), kRounds);
}

// The computer's sealed Pico card, guessed by a player who knows every public input: the game
// id, the version, the seat, the seed commitment and the views. Before, the computer drew from
// SHA-256("bot:" + game_id + ":" + version) and was predicted every time. Each guess below must
// succeed no more often than chance allows (the chance of a blind guess is 1 / the number of
// cards the computer could play; the bound is the expected hits plus 4.5 standard deviations).
// After the game, the revealed seed and the seat's bot name recompute every decision.
TEST_F(SessionsPgTest, TheComputersSealedCardIsNoBetterThanChanceToGuessAndRecomputableAfter) {
  const engine::Game& pico = **registry_->Find("pico");
  std::mt19937_64 rng(20);
  int decisions = 0, recomputed = 0;
  double expected = 0, variance = 0;
  // Guesses: the old public derivation; the new one keyed by the public commitment; the lowest
  // card.
  int hits[3] = {0, 0, 0};
  for (int g = 0; g < 300 && decisions < 500; ++g) {
    const int my_seat = g % 2;
    const int bot_seat = 1 - my_seat;
    v1::CreateBotGameRequest request =
        BotGameRequest(absl::StrCat("guess-", g), "pico", 2, my_seat);
    request.set_bot("easy");
    v1::CreateBotGameResponse created;
    ASSERT_THAT(calls::CreateBotGame(*sessions_, kCarol, request, &created), IsOk());
    const std::string id = created.game().game_id();
    v1::GetGameRequest get;
    get.set_game_id(id);
    v1::GetGameResponse state;
    for (int i = 0; i < 1000; ++i) {
      ASSERT_THAT(calls::GetGame(*sessions_, kCarol, get, &state), IsOk());
      if (state.game().status() == v1::GAME_STATUS_FINISHED) break;
      v1::SubmitActionRequest submit;
      submit.set_game_id(id);
      submit.set_expected_version(state.game().version());
      submit.set_idempotency_key(absl::StrCat("k", i));
      *submit.mutable_action() = state.legal_actions(rng() % state.legal_actions_size());
      v1::SubmitActionResponse out;
      ASSERT_THAT(calls::SubmitAction(*sessions_, kCarol, submit, &out), IsOk());
    }
    ASSERT_EQ(state.game().status(), v1::GAME_STATUS_FINISHED);
    absl::StatusOr<GameRow> row = store_->GetGame(id);
    ASSERT_THAT(row, IsOk());
    absl::StatusOr<engine::v1::GameRecord> record = WholeRecord(id);
    ASSERT_THAT(record, IsOk());
    absl::StatusOr<std::vector<std::unique_ptr<engine::State>>> states =
        StatesBetween(pico, *record, 0, row->version);
    ASSERT_THAT(states, IsOk());
    absl::StatusOr<engine::Seed> revealed = engine::Seed::FromHex(state.game().seed());
    ASSERT_THAT(revealed, IsOk());
    absl::StatusOr<engine::Seed> public_guess =
        engine::Seed::FromHex(created.game().seed_commitment());
    ASSERT_THAT(public_guess, IsOk());
    for (int64_t v = 1; v <= row->version; ++v) {
      const engine::v1::LogEntry& entry = record->log(static_cast<int>(v));
      if (entry.kind() != engine::v1::LogEntry::KIND_ACTION || entry.seat() != bot_seat) continue;
      const engine::State& before = *(*states)[v - 1];
      const std::vector<engine::Action> legal = before.LegalActions(bot_seat);
      ASSERT_FALSE(legal.empty());
      const double p = 1.0 / static_cast<double>(legal.size());
      expected += p;
      variance += p * (1 - p);
      ++decisions;
      bots::RandomBot random;
      const std::string digest = Sha256(absl::StrCat("bot:", id, ":", before.NumMoves()));
      uint64_t old_seed = 0;
      std::memcpy(&old_seed, digest.data(), sizeof(old_seed));
      engine::Rng old_rng(old_seed);
      engine::Rng guess_rng = engine::BotDecisionRng(*public_guess, bot_seat, before.NumMoves());
      const engine::Action guesses[3] = {*random.Choose(before, bot_seat, old_rng),
                                         *random.Choose(before, bot_seat, guess_rng), legal[0]};
      for (int k = 0; k < 3; ++k) hits[k] += guesses[k] == entry.action() ? 1 : 0;
      absl::StatusOr<std::unique_ptr<bots::Bot>> bot = bots::MakeBot(row->seats[bot_seat].bot);
      ASSERT_THAT(bot, IsOk());
      engine::Rng audit = engine::BotDecisionRng(*revealed, bot_seat, before.NumMoves());
      recomputed += *(*bot)->Choose(before, bot_seat, audit) == entry.action() ? 1 : 0;
    }
  }
  ASSERT_GE(decisions, 500);
  const double bound = expected + 4.5 * std::sqrt(variance);
  std::printf(
      "%d sealed cards; chance expects %.1f hits, bound %.1f; hits: old derivation %d, "
      "commitment-keyed %d, lowest card %d; recomputed after the reveal %d\n",
      decisions, expected, bound, hits[0], hits[1], hits[2], recomputed);
  SCOPED_TRACE(
      absl::StrCat(decisions, " decisions; chance expects ", expected, " hits; bound ", bound));
  EXPECT_LE(hits[0], bound) << "the old public derivation";
  EXPECT_LE(hits[1], bound) << "the new derivation keyed by the public commitment";
  EXPECT_LE(hits[2], bound) << "always the lowest card";
  EXPECT_EQ(recomputed, decisions);
}

}  // namespace
}  // namespace parlor::sessions
