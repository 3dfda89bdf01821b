// What one move writes, over a real PostgreSQL: only the seats it changes, and log entries that
// are exactly the engine's.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "engine/games/all_games.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "pqxx/pqxx"
#include "services/common/db/migrations.h"
#include "services/common/db/pool.h"
#include "services/common/testing/status_matchers.h"
#include "services/sessions/api/calls.h"
#include "services/sessions/domain/engine_glue.h"
#include "services/sessions/domain/sessions.h"
#include "services/sessions/store/erasure_sql.h"
#include "services/sessions/store/sql.h"
#include "services/sessions/store/store.h"
#include "services/sessions/testing/stored_record.h"
#include "tests/pg/pg_test_database.h"

namespace parlor::sessions {
namespace {

using ::parlor::testing::IsOk;
using ::parlor::testing::StatusIs;

constexpr char kAlice[] = "00000000-0000-4000-8000-00000000a11c";

class StorePgTest : public parlor::testing::PgTest {
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

  // Alice's game of the first game against the computer (request `request_id`, under
  // `time_control` when it has a kind); its id.
  std::string CreateBotGame(const std::string& request_id = "r1",
                            const v1::TimeControl& time_control = v1::TimeControl()) {
    v1::CreateBotGameRequest create;
    create.set_request_id(request_id);
    create.set_game(registry_->games().front()->name());
    create.set_num_players(2);
    create.set_bot("random");
    if (time_control.kind_case() != v1::TimeControl::KIND_NOT_SET) {
      *create.mutable_time_control() = time_control;
    }
    v1::CreateBotGameResponse created;
    EXPECT_THAT(calls::CreateBotGame(*sessions_, kAlice, create, &created), IsOk());
    return created.game().game_id();
  }

  // Alice's GetGame of `id` through `replica`.
  static v1::GetGameResponse Read(Sessions& replica, const std::string& id) {
    v1::GetGameRequest get;
    get.set_game_id(id);
    v1::GetGameResponse state;
    EXPECT_THAT(calls::GetGame(replica, kAlice, get, &state), IsOk());
    return state;
  }

  pqxx::result Query(const std::string& sql) {
    pqxx::connection c(db_url());
    pqxx::read_transaction txn(c);
    return txn.exec(sql);
  }

  // Alice's move `n` in `game` on `replica`: the n-th of the legal actions (round the list), under
  // the key `key_prefix` + n.
  static absl::Status SubmitNth(
      Sessions& replica, const v1::Game& game,
      const google::protobuf::RepeatedPtrField<google::protobuf::Any>& legal, int n,
      const std::string& key_prefix, v1::SubmitActionResponse* answer) {
    v1::SubmitActionRequest submit;
    submit.set_game_id(game.game_id());
    submit.set_expected_version(game.version());
    submit.set_idempotency_key(absl::StrCat(key_prefix, n));
    *submit.mutable_action() = legal[n % legal.size()];
    return calls::SubmitAction(replica, kAlice, submit, answer);
  }

  // The game's stored snapshot, which leaves the log out, and that record made whole again with
  // the game's log rows.
  parlor::testing::StoredGameRecord Stored(const std::string& id) {
    absl::StatusOr<parlor::testing::StoredGameRecord> stored =
        parlor::testing::ReadStoredGameRecord(db_url(), id);
    EXPECT_THAT(stored, IsOk());
    return stored.value_or(parlor::testing::StoredGameRecord());
  }

  std::unique_ptr<DbPool> pool_;
  std::unique_ptr<PgSessionsStore> store_;
  std::unique_ptr<engine::Registry> registry_;
  std::atomic<absl::Time> now_;
  std::unique_ptr<Sessions> sessions_;
};

TEST_F(StorePgTest, AGameAgainstTheComputerRewritesOnlyTheSeatsItsMovesChange) {
  const std::string id = CreateBotGame();
  const std::string where = absl::StrCat(" WHERE game_id = '", id, "'");
  const int64_t created_at = absl::ToUnixMicros(now_.load());
  const v1::GetGameResponse state = Read(*sessions_, id);
  v1::Game game = state.game();
  google::protobuf::RepeatedPtrField<google::protobuf::Any> legal = state.legal_actions();
  int moves = 0;
  for (; game.status() != v1::GAME_STATUS_FINISHED && moves < 2000; ++moves) {
    ASSERT_FALSE(legal.empty());
    now_ = now_.load() + absl::Seconds(1);
    v1::SubmitActionRequest submit;
    submit.set_game_id(id);
    submit.set_expected_version(game.version());
    submit.set_idempotency_key(absl::StrCat("k", moves));
    *submit.mutable_action() = legal[0];
    v1::SubmitActionResponse answer;
    ASSERT_THAT(calls::SubmitAction(*sessions_, kAlice, submit, &answer), IsOk());
    game = answer.game();
    legal = answer.legal_actions();
    if (moves == 0) {
      // The player's seat took the move's time; the computer's seat, whose move came and went
      // inside the same change, was not rewritten.
      pqxx::result seats = Query(absl::StrCat(
          "SELECT (account_id IS NULL), (extract(epoch from updated_at) * 1000000)::bigint "
          "FROM sessions.seats",
          where, " ORDER BY seat"));
      ASSERT_EQ(seats.size(), 2u);
      for (const pqxx::row& seat : seats) {
        EXPECT_EQ(seat[1].as<int64_t>(),
                  seat[0].as<bool>() ? created_at : absl::ToUnixMicros(now_.load()));
      }
    }
  }
  ASSERT_EQ(game.status(), v1::GAME_STATUS_FINISHED);
  // When the game ends every seat is rewritten: none is left 'active'.
  EXPECT_EQ(Query("SELECT count(*) FROM sessions.seats" + where + " AND status <> 'finished'")[0][0]
                .as<int64_t>(),
            0);
  // The snapshot holds the setup's entry only, and the log rows are the engine's own entries of
  // their versions: with them put back, the record replays (every die and deal checked against
  // the seed) to the stored state.
  const parlor::testing::StoredGameRecord stored = Stored(id);
  EXPECT_EQ(stored.snapshot.log_size(), 1);
  EXPECT_EQ(stored.snapshot.omitted_entries(), stored.version);
  ASSERT_EQ(stored.whole.log_size(), stored.version + 1);
  absl::StatusOr<const engine::Game*> engine_game = registry_->Find(stored.snapshot.game());
  ASSERT_THAT(engine_game, IsOk());
  absl::StatusOr<std::unique_ptr<engine::State>> replayed =
      (*engine_game)->Replay(stored.whole, /*check_seed=*/true);
  ASSERT_THAT(replayed, IsOk());
  EXPECT_EQ(Deterministic((*replayed)->Serialize(engine::State::LogForm::kSetupOnly)),
            Deterministic(stored.snapshot));
}

// A snapshot that a server before the snapshot without the log wrote (the whole log in it, as
// --snapshot_with_log still writes) goes on under one that leaves it out, and the other way
// round: each reads what the other wrote, and the history replays across both.
TEST_F(StorePgTest, SnapshotsWithAndWithoutTheLogContinueEachOther) {
  Sessions::Options with_log;
  with_log.snapshot_with_log = true;
  with_log.state_cache_entries = 0;
  Sessions::Options without_log;
  without_log.state_cache_entries = 0;
  Sessions writes_log(
      store_.get(), registry_.get(), [this] { return now_.load(); }, with_log);
  Sessions leaves_log_out(
      store_.get(), registry_.get(), [this] { return now_.load(); }, without_log);
  Sessions* replicas[2] = {&writes_log, &leaves_log_out};
  const std::string id = CreateBotGame("mixed");
  const v1::GetGameResponse state = Read(writes_log, id);
  v1::Game game = state.game();
  google::protobuf::RepeatedPtrField<google::protobuf::Any> legal = state.legal_actions();
  for (int moves = 0; game.status() != v1::GAME_STATUS_FINISHED && moves < 2000; ++moves) {
    Sessions& replica = *replicas[(moves / 3) % 2];
    v1::SubmitActionResponse answer;
    ASSERT_THAT(SubmitNth(replica, game, legal, moves, "m", &answer), IsOk()) << "move " << moves;
    game = answer.game();
    legal = answer.legal_actions();
    const parlor::testing::StoredGameRecord stored = Stored(id);
    if (&replica == &writes_log) {
      // What it read may have left entries out; it writes back all it holds, and says which not.
      EXPECT_EQ(stored.snapshot.omitted_entries() + stored.snapshot.log_size() - 1, stored.version);
    } else {
      EXPECT_EQ(stored.snapshot.log_size(), 1);
      EXPECT_EQ(stored.snapshot.omitted_entries(), stored.version);
    }
    // The history of every version replays from either kind of snapshot.
    v1::GetHistoryRequest history;
    history.set_game_id(id);
    history.set_from_version(std::max<int64_t>(0, game.version() - 2));
    v1::GetHistoryResponse page;
    ASSERT_THAT(calls::GetHistory(leaves_log_out, kAlice, history, &page), IsOk());
    ASSERT_FALSE(page.events().empty());
    EXPECT_EQ(page.events(page.events_size() - 1).version(), game.version());
    if (game.status() != v1::GAME_STATUS_FINISHED) {  // then the history shows everything
      EXPECT_EQ(page.events(page.events_size() - 1).view().SerializeAsString(),
                answer.view().SerializeAsString());
    }
  }
  ASSERT_EQ(game.status(), v1::GAME_STATUS_FINISHED);
  const parlor::testing::StoredGameRecord stored = Stored(id);
  absl::StatusOr<const engine::Game*> engine_game = registry_->Find(stored.snapshot.game());
  ASSERT_THAT(engine_game, IsOk());
  EXPECT_THAT((*engine_game)->Replay(stored.whole, true).status(), IsOk());
}

// Two replicas, each with its own snapshot cache, take turns moving in one game: each finds its
// cached snapshot outdated by the other's moves, so it must use the database's, and the game
// ends exactly as the engine plays it. One reaches PostgreSQL itself (a batch is pipelined: the
// locked read, then the write with the commit), the other goes through a transaction pooler (no
// prepared statements: plain transactions), so both ways of writing a batch take part.
TEST_F(StorePgTest, ReplicasTakingTurnsNeverUseAnOutdatedCachedSnapshot) {
  ASSERT_TRUE(pool_->pipelining());
  DbPool pooled(DbOptions{.url = db_url(), .max_connections = 2, .prepared_statements = false},
                nullptr);
  ASSERT_FALSE(pooled.pipelining());
  PgSessionsStore other_store(&pooled);
  Sessions other(
      &other_store, registry_.get(), [this] { return now_.load(); }, Sessions::Options{});
  Sessions* replicas[2] = {sessions_.get(), &other};
  const std::string id = CreateBotGame("r2");
  const v1::GetGameResponse state = Read(*sessions_, id);
  v1::Game game = state.game();
  google::protobuf::RepeatedPtrField<google::protobuf::Any> legal = state.legal_actions();
  int moves = 0;
  for (; game.status() != v1::GAME_STATUS_FINISHED && moves < 2000; ++moves) {
    ASSERT_FALSE(legal.empty());
    // Each replica moves twice in a row, so that it also uses its own fresh cache entry.
    Sessions& replica = *replicas[(moves / 2) % 2];
    v1::SubmitActionResponse answer;
    ASSERT_THAT(SubmitNth(replica, game, legal, moves, "k", &answer), IsOk()) << "move " << moves;
    // The other replica's GetGame agrees with the answer, whatever it has cached.
    const v1::GetGameResponse seen = Read(*replicas[1 - (moves / 2) % 2], id);
    EXPECT_EQ(seen.game().version(), answer.game().version());
    EXPECT_EQ(seen.view().SerializeAsString(), answer.view().SerializeAsString());
    game = answer.game();
    legal = answer.legal_actions();
  }
  ASSERT_EQ(game.status(), v1::GAME_STATUS_FINISHED);
  const parlor::testing::StoredGameRecord stored = Stored(id);
  EXPECT_EQ(stored.whole.log_size(), stored.version + 1);
  absl::StatusOr<const engine::Game*> engine_game = registry_->Find(stored.snapshot.game());
  ASSERT_THAT(engine_game, IsOk());
  EXPECT_THAT((*engine_game)->Replay(stored.whole, true).status(), IsOk());
}

// Every column of two game rows and their seats.
void ExpectSameRow(const GameRow& a, const GameRow& b, const std::string& where) {
  SCOPED_TRACE(where);
  EXPECT_EQ(a.game_id, b.game_id);
  EXPECT_EQ(a.game, b.game);
  EXPECT_EQ(a.match_id, b.match_id);
  EXPECT_EQ(a.ranked, b.ranked);
  EXPECT_EQ(a.finished, b.finished);
  EXPECT_EQ(a.version, b.version);
  EXPECT_EQ(a.num_players, b.num_players);
  EXPECT_EQ(a.options, b.options);
  EXPECT_EQ(a.snapshot, b.snapshot);
  EXPECT_EQ(a.seed_commitment, b.seed_commitment);
  EXPECT_EQ(a.acting_seats, b.acting_seats);
  EXPECT_EQ(a.time_control.kind, b.time_control.kind);
  EXPECT_EQ(a.time_control.per_move_s, b.time_control.per_move_s);
  EXPECT_EQ(a.time_control.bank_initial_s, b.time_control.bank_initial_s);
  EXPECT_EQ(a.time_control.bank_increment_s, b.time_control.bank_increment_s);
  EXPECT_EQ(a.time_control.vacation_days, b.time_control.vacation_days);
  EXPECT_EQ(a.deadline, b.deadline);
  EXPECT_EQ(a.ranks, b.ranks);
  EXPECT_EQ(a.scores, b.scores);
  EXPECT_EQ(a.end_reason, b.end_reason);
  EXPECT_EQ(a.created_at, b.created_at);
  EXPECT_EQ(a.updated_at, b.updated_at);
  EXPECT_EQ(a.is_public, b.is_public);
  ASSERT_EQ(a.seats.size(), b.seats.size());
  for (size_t i = 0; i < a.seats.size(); ++i) {
    const SeatRow& x = a.seats[i];
    const SeatRow& y = b.seats[i];
    SCOPED_TRACE(absl::StrCat("seat ", i));
    EXPECT_EQ(x.seat, y.seat);
    EXPECT_EQ(x.account_id, y.account_id);
    EXPECT_EQ(x.bot, y.bot);
    EXPECT_EQ(x.display_name, y.display_name);
    EXPECT_EQ(x.team, y.team);
    EXPECT_EQ(x.forfeited, y.forfeited);
    EXPECT_EQ(x.my_turn, y.my_turn);
    EXPECT_EQ(x.turn_started_at, y.turn_started_at);
    EXPECT_EQ(x.deadline, y.deadline);
    EXPECT_EQ(x.reminders_sent, y.reminders_sent);
    EXPECT_EQ(x.time_bank_ms, y.time_bank_ms);
    EXPECT_EQ(x.vacation_used_ms, y.vacation_used_ms);
    EXPECT_EQ(x.vacation_until, y.vacation_until);
    EXPECT_EQ(x.paused_until, y.paused_until);
    EXPECT_EQ(x.timeouts_in_a_row, y.timeouts_in_a_row);
  }
}

// After each of this server's own moves, GetGame asks the database only for the games row's
// stamp and answers with the row the move wrote, which is exactly the stored row (as a store
// holding nothing reads it whole), seats, clocks and the end of the game included; the next
// move is decided on the row held and written without a locked read. The clock here has
// nanoseconds, which the database does not keep.
TEST_F(StorePgTest, AGameReadAfterThisServersOwnMoveChecksTheStampAndIsTheStoredRow) {
  now_ = absl::FromUnixNanos(1'800'000'000'123'456'789);
  v1::TimeControl time_bank;
  time_bank.mutable_time_bank()->mutable_initial()->set_seconds(86400);
  time_bank.mutable_time_bank()->mutable_increment()->set_seconds(3600);
  const std::string id = CreateBotGame("stamp", time_bank);
  PgSessionsStore holds_nothing(pool_.get(), 0);
  // The game's creation left its row too.
  {
    const PgSessionsStore::GameReads before = store_->game_reads();
    absl::StatusOr<GameRow> read = store_->GetGame(id);
    absl::StatusOr<GameRow> whole = holds_nothing.GetGame(id);
    ASSERT_THAT(read, IsOk());
    ASSERT_THAT(whole, IsOk());
    EXPECT_EQ(store_->game_reads().stamp_matched, before.stamp_matched + 1);
    ExpectSameRow(*read, *whole, "after the creation");
  }
  const v1::GetGameResponse state = Read(*sessions_, id);
  v1::Game game = state.game();
  google::protobuf::RepeatedPtrField<google::protobuf::Any> legal = state.legal_actions();
  int moves = 0;
  for (; game.status() != v1::GAME_STATUS_FINISHED && moves < 2000; ++moves) {
    now_ = now_.load() + absl::Nanoseconds(1'234'567'891);
    v1::SubmitActionResponse answer;
    PgSessionsStore::GameReads before = store_->game_reads();
    ASSERT_THAT(SubmitNth(*sessions_, game, legal, moves, "s", &answer), IsOk()) << moves;
    // The move, too, was decided on the row this server's creation or previous move left, and
    // written without a locked read.
    EXPECT_EQ(store_->game_reads().unlocked_written, before.unlocked_written + 1) << moves;
    EXPECT_EQ(store_->game_reads().locked_held, before.locked_held) << moves;
    before = store_->game_reads();
    int64_t seen = -2, seen_whole = -2;
    absl::StatusOr<GameRow> read = store_->GetGameSeenBy(id, kAlice, &seen);
    absl::StatusOr<GameRow> whole = holds_nothing.GetGameSeenBy(id, kAlice, &seen_whole);
    ASSERT_THAT(read, IsOk());
    ASSERT_THAT(whole, IsOk());
    EXPECT_EQ(store_->game_reads().stamp_matched, before.stamp_matched + 1) << moves;
    EXPECT_EQ(store_->game_reads().whole, before.whole) << moves;
    EXPECT_EQ(seen, seen_whole);
    ExpectSameRow(*read, *whole, absl::StrCat("after move ", moves));
    absl::StatusOr<GameRow> plain = store_->GetGame(id);
    ASSERT_THAT(plain, IsOk());
    ExpectSameRow(*plain, *whole, absl::StrCat("plain read after move ", moves));
    game = answer.game();
    legal = answer.legal_actions();
  }
  ASSERT_EQ(game.status(), v1::GAME_STATUS_FINISHED);
}

// A seat renamed by an account's erasure, and a game another replica moved in: the stamp no
// longer matches the row this server wrote, and GetGame reads the stored row whole; after a miss
// the game is read whole at once, until a read finds the row of this server's write again.
TEST_F(StorePgTest, ARowWrittenElsewhereSinceThisServersWriteIsReadWhole) {
  DbPool other_pool(DbOptions{.url = db_url(), .max_connections = 1}, nullptr);
  PgSessionsStore other_store(&other_pool);
  Sessions other(
      &other_store, registry_.get(), [this] { return now_.load(); }, Sessions::Options{});
  const std::string id = CreateBotGame("elsewhere");
  // A game with the default time control (per move) is held as stored from its creation too.
  {
    PgSessionsStore holds_nothing(pool_.get(), 0);
    absl::StatusOr<GameRow> held = store_->GetGame(id);
    absl::StatusOr<GameRow> whole = holds_nothing.GetGame(id);
    ASSERT_THAT(held, IsOk());
    ASSERT_THAT(whole, IsOk());
    ExpectSameRow(*held, *whole, "a per-move game after its creation");
  }
  const v1::GetGameResponse state = Read(*sessions_, id);
  v1::SubmitActionResponse answer;
  ASSERT_THAT(SubmitNth(*sessions_, state.game(), state.legal_actions(), 0, "e", &answer), IsOk());
  ASSERT_NE(answer.game().status(), v1::GAME_STATUS_FINISHED);

  // The erasure of Alice's account renames her seat (and only that).
  {
    pqxx::connection c(db_url());
    pqxx::work txn(c);
    txn.exec_params0(sql::kRenameSeats, kAlice, "Deleted player");
    txn.commit();
  }
  PgSessionsStore::GameReads before = store_->game_reads();
  absl::StatusOr<GameRow> read = store_->GetGame(id);
  ASSERT_THAT(read, IsOk());
  EXPECT_EQ(read->seats[0].display_name, "Deleted player");
  EXPECT_EQ(store_->game_reads().stamp_missed, before.stamp_missed + 1);
  EXPECT_EQ(store_->game_reads().whole, before.whole + 1);

  // This server moves again, then the other replica: the stamp is not even asked for until a
  // whole read finds this server's row again. (The move is decided on the locked rows: a miss
  // has told the store not to trust the row it holds.)
  before = store_->game_reads();
  ASSERT_THAT(SubmitNth(*sessions_, answer.game(), answer.legal_actions(), 1, "e", &answer),
              IsOk());
  EXPECT_EQ(store_->game_reads().unlocked_written, before.unlocked_written);
  EXPECT_EQ(store_->game_reads().locked_whole, before.locked_whole + 1);
  before = store_->game_reads();
  read = store_->GetGame(id);
  ASSERT_THAT(read, IsOk());
  EXPECT_EQ(read->version, answer.game().version());
  EXPECT_EQ(store_->game_reads().stamp_missed, before.stamp_missed);
  EXPECT_EQ(store_->game_reads().whole, before.whole + 1);
  before = store_->game_reads();
  ASSERT_THAT(store_->GetGame(id), IsOk());
  EXPECT_EQ(store_->game_reads().stamp_matched, before.stamp_matched + 1);

  ASSERT_THAT(SubmitNth(other, answer.game(), answer.legal_actions(), 2, "e", &answer), IsOk());
  before = store_->game_reads();
  read = store_->GetGame(id);
  ASSERT_THAT(read, IsOk());
  EXPECT_EQ(read->version, answer.game().version());
  PgSessionsStore holds_nothing(pool_.get(), 0);
  absl::StatusOr<GameRow> whole = holds_nothing.GetGame(id);
  ASSERT_THAT(whole, IsOk());
  ExpectSameRow(*read, *whole, "after the other replica's move");
  EXPECT_EQ(store_->game_reads().stamp_missed, before.stamp_missed + 1);
}

// A move decided on the row this server holds is written without a locked read, and that write
// checks the row and the key: the stamp of a row renamed by an erasure since, or an idempotency
// key already answered, rolls it back, and the move is decided again on the locked rows, with
// the answer a locked read always gave. A refused move changes nothing either way.
TEST_F(StorePgTest, AnUnlockedWriteThatFindsItsRowOrKeyChangedIsDecidedAgainOnTheLockedRows) {
  const std::string id = CreateBotGame("unlocked");
  const v1::GetGameResponse state = Read(*sessions_, id);
  v1::SubmitActionResponse answer;
  PgSessionsStore::GameReads before = store_->game_reads();
  ASSERT_THAT(SubmitNth(*sessions_, state.game(), state.legal_actions(), 0, "u", &answer), IsOk());
  EXPECT_EQ(store_->game_reads().unlocked_written, before.unlocked_written + 1);
  EXPECT_EQ(store_->game_reads().locked_held + store_->game_reads().locked_whole,
            before.locked_held + before.locked_whole);
  ASSERT_NE(answer.game().status(), v1::GAME_STATUS_FINISHED);

  // Key "u0" again, for a legal move at the game's version: decided on the row held it is a new
  // move, but the key is taken; on the locked rows the stored answer refuses it.
  v1::SubmitActionRequest reuse;
  reuse.set_game_id(id);
  reuse.set_expected_version(answer.game().version());
  reuse.set_idempotency_key("u0");
  *reuse.mutable_action() = answer.legal_actions(0);
  before = store_->game_reads();
  v1::SubmitActionResponse refused;
  EXPECT_THAT(calls::SubmitAction(*sessions_, kAlice, reuse, &refused),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       ::testing::HasSubstr("idempotency_key was already used")));
  EXPECT_EQ(store_->game_reads().unlocked_retried, before.unlocked_retried + 1);
  EXPECT_EQ(store_->game_reads().unlocked_written, before.unlocked_written);
  EXPECT_EQ(store_->game_reads().locked_held, before.locked_held + 1);
  EXPECT_EQ(Read(*sessions_, id).game().version(), answer.game().version());

  // The same request with the key it was answered under replays the stored answer.
  v1::SubmitActionRequest retry = reuse;
  retry.set_expected_version(state.game().version());
  *retry.mutable_action() = state.legal_actions(0);
  v1::SubmitActionResponse replayed;
  ASSERT_THAT(calls::SubmitAction(*sessions_, kAlice, retry, &replayed), IsOk());
  EXPECT_EQ(replayed.game().version(), answer.game().version());

  // An erasure renames Alice's seat: the row held is not the stored one any more. The next move,
  // decided on the row held, finds the stamp changed and is decided again on the locked rows.
  {
    pqxx::connection c(db_url());
    pqxx::work txn(c);
    txn.exec_params0(sql::kRenameSeats, kAlice, "Deleted player");
    txn.commit();
  }
  before = store_->game_reads();
  v1::SubmitActionResponse next;
  ASSERT_THAT(SubmitNth(*sessions_, answer.game(), answer.legal_actions(), 1, "u", &next), IsOk());
  EXPECT_EQ(store_->game_reads().unlocked_retried, before.unlocked_retried + 1);
  EXPECT_EQ(store_->game_reads().locked_whole, before.locked_whole + 1);
  EXPECT_GT(next.game().version(), answer.game().version());
  PgSessionsStore holds_nothing(pool_.get(), 0);
  absl::StatusOr<GameRow> whole = holds_nothing.GetGame(id);
  ASSERT_THAT(whole, IsOk());
  EXPECT_EQ(whole->version, next.game().version());
  EXPECT_EQ(whole->seats[0].display_name, "Deleted player");
}

// A move written without a locked read that has to wait for its game row's lock, held by another
// writer that then changes the row: PostgreSQL checks the stamp again on the newest row, the write
// rolls back, and the move is decided again on the locked row (here, where it is still legal).
TEST_F(StorePgTest, AnUnlockedWriteThatWaitedForARowChangedMeanwhileIsDecidedAgain) {
  const std::string id = CreateBotGame("waited");
  const v1::GetGameResponse state = Read(*sessions_, id);
  pqxx::connection c(db_url());
  pqxx::work other(c);
  // Another writer takes the row and rewrites it as it is (a new row version, a new stamp).
  other.exec_params0("UPDATE sessions.games SET updated_at = updated_at WHERE game_id = $1::uuid",
                     id);
  const PgSessionsStore::GameReads before = store_->game_reads();
  v1::SubmitActionResponse answer;
  absl::Status moved;
  std::thread mover(
      [&] { moved = SubmitNth(*sessions_, state.game(), state.legal_actions(), 0, "w", &answer); });
  // Long enough for the move's write to be waiting for the row's lock.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  other.commit();
  mover.join();
  ASSERT_THAT(moved, IsOk());
  EXPECT_EQ(store_->game_reads().unlocked_retried, before.unlocked_retried + 1);
  EXPECT_EQ(store_->game_reads().unlocked_written, before.unlocked_written);
  EXPECT_EQ(store_->game_reads().locked_whole, before.locked_whole + 1);
  PgSessionsStore holds_nothing(pool_.get(), 0);
  absl::StatusOr<GameRow> whole = holds_nothing.GetGame(id);
  ASSERT_THAT(whole, IsOk());
  EXPECT_EQ(whole->version, answer.game().version());
  // One log entry per version, none twice.
  pqxx::work check(c);
  EXPECT_EQ(
      check.exec_params1("SELECT count(*) FROM sessions.actions WHERE game_id = $1::uuid", id)[0]
          .as<int64_t>(),
      answer.game().version() + 1);
}

// A batch's write checks in its own statement that it wrote every game, seat and log entry it was
// given (its commit goes out with it, unseen by the server): here a log entry of a game whose row
// the batch lacks. The statement writes no other row without every game row, fails, and leaves
// nothing.
TEST_F(StorePgTest, AWriteThatMissesARowFailsInItsOwnStatementAndLeavesNothing) {
  const std::string id = CreateBotGame();
  const std::string entry = absl::StrCat("{\"(", id, ",999,action,player,0,0,,0,1,1)\"}");
  pqxx::connection c(db_url());
  try {
    pqxx::work txn(c);
    txn.exec_params(sql::kWriteMutations, "{}", "{}", entry, "{}", "{}", "{}", "{}",
                    pqxx::binarystring(std::string("x")), 1, 0, 1, "{}", "{}", "{}", 0, "");
    txn.commit();
    ADD_FAILURE() << "the write of a batch missing its game's row succeeded";
  } catch (const pqxx::sql_error& e) {
    EXPECT_EQ(e.sqlstate(), "XX000");
    EXPECT_THAT(e.what(), ::testing::HasSubstr(
                              "games 0 of 1, seats 0 of 0, log entries 0 of 1, keys 0 of 0"));
  }
  EXPECT_EQ(Query(absl::StrCat("SELECT count(*) FROM sessions.actions WHERE game_id = '", id,
                               "' AND version = 999"))[0][0]
                .as<int64_t>(),
            0);
}

// The rows of a move travel as arrays of composite values: text a client chose (its idempotency
// key, with quotes, backslashes, commas, parentheses and braces) is stored exactly, and a retry
// under that key gets the first answer.
TEST_F(StorePgTest, AKeyWithEveryQuotingCharacterIsStoredExactlyAndAnswersItsRetry) {
  const std::string id = CreateBotGame();
  const v1::GetGameResponse state = Read(*sessions_, id);
  ASSERT_FALSE(state.legal_actions().empty());
  const std::string key = "q\"uo\\te,(a){b} \"\" NULL \xc3\xa9";
  v1::SubmitActionRequest submit;
  submit.set_game_id(id);
  submit.set_expected_version(state.game().version());
  submit.set_idempotency_key(key);
  *submit.mutable_action() = state.legal_actions(0);
  v1::SubmitActionResponse first;
  ASSERT_THAT(calls::SubmitAction(*sessions_, kAlice, submit, &first), IsOk());
  pqxx::result stored = Query(absl::StrCat(
      "SELECT key, version FROM sessions.idempotency_keys WHERE game_id = '", id, "'"));
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0][0].as<std::string>(), key);
  EXPECT_EQ(stored[0][1].as<int64_t>(), first.game().version());
  v1::SubmitActionResponse again;
  ASSERT_THAT(calls::SubmitAction(*sessions_, kAlice, submit, &again), IsOk());
  EXPECT_EQ(again.SerializeAsString(), first.SerializeAsString());
}

// Expired keys are found by their age, not by reading the table: after a week of keys whose
// deleted rows' space new keys have reused (as they do in a table that deletes what it expires),
// forgetting the few due keys reads a handful of pages of a table of hundreds.
TEST_F(StorePgTest, ForgettingExpiredKeysReadsTheExpiredKeysNotTheWholeTable) {
  const std::string game_id = CreateBotGame();
  pqxx::connection connection(db_url());
  const absl::Time day0 = now_.load();
  // 500 keys a day, each with a ~700-byte answer (as a move's is); each day the keys older than
  // the week are deleted and the table vacuumed, so the next day's keys fill the freed space.
  const auto add_day = [&](int day) {
    pqxx::nontransaction txn(connection);
    txn.exec_params0(
        "INSERT INTO sessions.idempotency_keys SELECT $1::uuid, $2::uuid, $3 || i, "
        "decode(repeat('ab', 32), 'hex'), 1, decode(repeat('cd', 350), 'hex'), "
        "sessions.from_us($4::bigint + i::bigint * 172800000) FROM generate_series(0, 499) i",
        game_id, kAlice, absl::StrCat("d", day, "-"),
        absl::ToUnixMicros(day0 + absl::Hours(24 * day)));
  };
  for (int day = 0; day < 7; ++day) add_day(day);
  for (int day = 7; day < 14; ++day) {
    ASSERT_THAT(store_->DeleteIdempotencyKeysBefore(day0 + absl::Hours(24 * (day - 6)), 1000),
                parlor::testing::IsOkAndHolds(500));
    pqxx::nontransaction(connection).exec0("VACUUM sessions.idempotency_keys");
    add_day(day);
  }
  pqxx::nontransaction(connection).exec0("ANALYZE sessions.idempotency_keys");
  // Due: the keys of the oldest day's first ten minutes (each day's keys are 172.8 s apart).
  const absl::Time cutoff = day0 + absl::Hours(24 * 7) + absl::Minutes(10);
  const int64_t table_pages =
      pqxx::nontransaction(connection)
          .exec1("SELECT pg_relation_size('sessions.idempotency_keys') / 8192")[0]
          .as<int64_t>();
  const std::string plan = parlor::testing::ExplainAnalyze(db_url(), sql::kDeleteOldIdempotencyKeys,
                                                           absl::ToUnixMicros(cutoff), 1000);
  EXPECT_GE(table_pages, 200);
  EXPECT_THAT(parlor::testing::PagesReadByPlan(plan), ::testing::Optional(::testing::Le(40)))
      << plan;
  EXPECT_THAT(store_->DeleteIdempotencyKeysBefore(cutoff, 1000), parlor::testing::IsOkAndHolds(4));
}

// Creating a game reads every seated player's vacation at once: each account that has one, by
// its id, and nothing for the others.
TEST_F(StorePgTest, VacationsAreReadForManyAccountsInOneCallAndOnlyWhereTheyExist) {
  constexpr char kBob[] = "00000000-0000-4000-8000-000000000b0b";
  const absl::Time start = absl::FromUnixSeconds(1'800'000'000);
  SessionsStore::VacationChange change;
  change.now = start;
  change.until = start + absl::Hours(48);
  change.counted_since = start - absl::Hours(24 * 365);
  change.check = [](absl::Duration) { return absl::OkStatus(); };
  change.decide = [](const GameRow&) { return std::optional<Mutation>(); };
  ASSERT_THAT(store_->ChangeVacation(kAlice, change), IsOk());

  absl::StatusOr<SessionsStore::VacationsByAccount> found = store_->GetVacations({kAlice, kBob});
  ASSERT_THAT(found.status(), IsOk());
  ASSERT_EQ(found->size(), 1u);
  ASSERT_TRUE(found->contains(kAlice));
  EXPECT_EQ(found->at(kAlice).started_at, start);
  EXPECT_EQ(found->at(kAlice).ends_at, start + absl::Hours(48));

  found = store_->GetVacations({});
  ASSERT_THAT(found.status(), IsOk());
  EXPECT_TRUE(found->empty());
}

// GetGames reads a page of games with their seats in two statements, in the order asked, and
// leaves out an id of no game; each game is as GetGame reads it.
TEST_F(StorePgTest, SeveralGamesAreReadTogetherInTheOrderAskedWithTheirSeats) {
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) {
    ids.push_back(CreateBotGame(absl::StrCat("many-", i)));
  }
  const std::string nobody = "00000000-0000-4000-8000-000000000404";
  absl::StatusOr<std::vector<GameRow>> games = store_->GetGames({ids[2], nobody, ids[0], ids[1]});
  ASSERT_THAT(games.status(), IsOk());
  ASSERT_EQ(games->size(), 3u);
  const std::vector<std::string> order = {ids[2], ids[0], ids[1]};
  for (size_t i = 0; i < order.size(); ++i) {
    absl::StatusOr<GameRow> one = store_->GetGame(order[i]);
    ASSERT_THAT(one.status(), IsOk());
    const GameRow& many = (*games)[i];
    EXPECT_EQ(many.game_id, order[i]);
    EXPECT_EQ(many.version, one->version);
    EXPECT_EQ(many.snapshot, one->snapshot);
    ASSERT_EQ(many.seats.size(), one->seats.size());
    for (size_t s = 0; s < many.seats.size(); ++s) {
      EXPECT_EQ(many.seats[s].seat, one->seats[s].seat);
      EXPECT_EQ(many.seats[s].account_id, one->seats[s].account_id);
      EXPECT_EQ(many.seats[s].bot, one->seats[s].bot);
      EXPECT_EQ(many.seats[s].my_turn, one->seats[s].my_turn);
    }
  }
  EXPECT_THAT(store_->GetGames({}), IsOk());
}

// The relation files of the sessions schema (table or index name -> file number).
std::map<std::string, int64_t> SchemaFiles(const std::string& db_url) {
  pqxx::connection c(db_url);
  pqxx::read_transaction txn(c);
  std::map<std::string, int64_t> files;
  for (const pqxx::row& r : txn.exec("SELECT c.relname, c.relfilenode FROM pg_class c "
                                     "JOIN pg_namespace n ON n.oid = c.relnamespace "
                                     "WHERE n.nspname = 'sessions' AND c.relkind IN ('r', 'i')")) {
    files[r[0].as<std::string>()] = r[1].as<int64_t>();
  }
  return files;
}

// Applies the sessions migrations whose file names sort before `before` (e.g. "0016").
absl::Status ApplyMigrationsBefore(const std::string& db_url, const std::string& before) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    absl::StrCat("parlor-migrations-", before, "-", getpid());
  std::filesystem::create_directories(dir);
  // No exceptions: the directory goes whatever happens.
  std::error_code copy_error;
  for (const auto& file : std::filesystem::directory_iterator(PARLOR_SESSIONS_MIGRATIONS_DIR)) {
    if (!copy_error && file.path().filename().string() < before) {
      std::filesystem::copy_file(file.path(), dir / file.path().filename(), copy_error);
    }
  }
  absl::Status applied = absl::OkStatus();
  if (copy_error) {
    applied = absl::InternalError(copy_error.message());
  } else {
    applied = ApplyMigrations(db_url, MigrationSet{"sessions", dir.string()}).status();
  }
  std::filesystem::remove_all(dir);
  return applied;
}

// Migrations 0016 (single-column CHECKs as domains on the busiest tables), 0017 and 0018 promise
// that no table is rewritten and no index rebuilt (either would hold the table's exclusive lock
// for as long as it takes): every relation keeps its file.
class SessionsMigrationPgTest : public parlor::testing::PgTest {};

TEST_F(SessionsMigrationPgTest, ChecksBecomeDomainsWithoutRewritingATableOrRebuildingAnIndex) {
  ASSERT_THAT(ApplyMigrationsBefore(db_url(), "0016"), IsOk());
  const std::map<std::string, int64_t> files = SchemaFiles(db_url());
  ASSERT_TRUE(files.contains("games_public_activity_idx"));
  ASSERT_THAT(ApplyMigrationsBefore(db_url(), "0019"), IsOk());
  EXPECT_EQ(SchemaFiles(db_url()), files);
}

// Migration 0019 rewrites no table either: games keeps its file, and only the public listing's
// index is new (it replaces games_public_activity_idx). A public game's listed_at is its
// updated_at, from the migration on and in every later write; a private game's stays NULL.
TEST_F(SessionsMigrationPgTest, HotGameUpdatesRewriteNoTableAndListPublicGamesByTheirActivity) {
  ASSERT_THAT(ApplyMigrationsBefore(db_url(), "0019"), IsOk());
  const std::string insert =
      "INSERT INTO sessions.games (game_id, game, ranked, status, version, num_players, options, "
      "snapshot, seed_commitment, acting_seats, tc_kind, tc_per_move_s, vacation_days, deadline, "
      "created_at, updated_at, visibility, wake_at, wake_version) VALUES ($1::uuid, 'pico', "
      "false, 'active', 0, 2, '{}', '\\x00', repeat('a', 64), 1, 'per_move', 3600, 0, "
      "now() + interval '1 hour', now() - interval '1 minute', now(), $2, now(), 0)";
  const std::string public_game = "00000000-0000-4000-8000-000000000019";
  const std::string private_game = "00000000-0000-4000-8000-000000000020";
  {
    pqxx::connection c(db_url());
    pqxx::work txn(c);
    txn.exec_params0(insert, public_game, "public");
    txn.exec_params0(insert, private_game, "private");
    txn.commit();
  }
  std::map<std::string, int64_t> files = SchemaFiles(db_url());
  ASSERT_THAT(ApplyMigrationsBefore(db_url(), "0020"), IsOk());
  std::map<std::string, int64_t> after = SchemaFiles(db_url());
  EXPECT_EQ(after.at("games"), files.at("games"));
  EXPECT_FALSE(after.contains("games_public_activity_idx"));
  EXPECT_TRUE(after.contains("games_public_listing_idx"));
  files.erase("games_public_activity_idx");
  after.erase("games_public_listing_idx");
  EXPECT_EQ(after, files);

  pqxx::connection c(db_url());
  const std::string listed =
      "SELECT count(*) FROM sessions.games WHERE game_id = $1::uuid AND listed_at = updated_at";
  const std::string unlisted =
      "SELECT count(*) FROM sessions.games WHERE game_id = $1::uuid AND listed_at IS NULL";
  {
    pqxx::read_transaction txn(c);
    EXPECT_EQ(txn.exec_params1(listed, public_game)[0].as<int>(), 1);
    EXPECT_EQ(txn.exec_params1(unlisted, private_game)[0].as<int>(), 1);
  }
  {
    pqxx::work txn(c);
    txn.exec0(
        "UPDATE sessions.games SET updated_at = now() + interval '1 second', "
        "version = version + 1, wake_version = version + 1");
    EXPECT_EQ(txn.exec_params1(listed, public_game)[0].as<int>(), 1);
    EXPECT_EQ(txn.exec_params1(unlisted, private_game)[0].as<int>(), 1);
  }
}

// The group committer lets the next batch be decided once this one is (UpdateGames' `decided`):
// a batch that fails before deciding anything must say so too, or every later move of this
// server would wait for ever. Here the write's row types cannot be found.
TEST_F(StorePgTest, ABatchThatCannotStartStillTellsItsCallerItIsDecidedAndTheNextOneIsDecided) {
  const std::string id = CreateBotGame();
  auto ddl = [&](const std::string& sql) {
    pqxx::connection c(db_url());
    pqxx::work txn(c);
    txn.exec0(sql);
    txn.commit();
  };
  ddl("ALTER TYPE sessions.result_write RENAME TO result_write_away");
  PgSessionsStore fresh(pool_.get());  // holds no row types yet
  int told = 0;
  bool decide_called = false;
  const std::vector<PgSessionsStore::GameUpdate> updates = {
      {id, std::nullopt,
       [&](const GameRow&,
           const std::optional<StoredAnswer>&) -> absl::StatusOr<std::optional<Mutation>> {
         decide_called = true;
         return std::nullopt;
       }}};
  std::vector<absl::Status> results = fresh.UpdateGames("test.update", updates, [&] { ++told; });
  EXPECT_EQ(told, 1);
  EXPECT_FALSE(decide_called);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_THAT(results[0], StatusIs(absl::StatusCode::kFailedPrecondition,
                                   ::testing::HasSubstr("apply its migrations")));

  // The failed lookup is not kept: once the type is back, the same store decides the update.
  ddl("ALTER TYPE sessions.result_write_away RENAME TO result_write");
  results = fresh.UpdateGames("test.update", updates, [&] { ++told; });
  EXPECT_EQ(told, 2);
  EXPECT_TRUE(decide_called);
  EXPECT_THAT(results[0], IsOk());
}

}  // namespace
}  // namespace parlor::sessions
