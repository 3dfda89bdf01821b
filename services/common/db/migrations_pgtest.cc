#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "pqxx/pqxx"
#include "services/common/core/crypto.h"
#include "services/common/db/migrations.h"
#include "services/common/testing/status_matchers.h"
#include "tests/pg/pg_test_database.h"

namespace parlor {
namespace {

using ::parlor::testing::IsOk;
using ::parlor::testing::StatusIs;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class MigrationsPgTest : public parlor::testing::PgTest {
 protected:
  void SetUp() override {
    PgTest::SetUp();
    dir_ = std::filesystem::path(::testing::TempDir()) / ("migrations_" + RandomToken(6));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  void Write(const std::string& name, const std::string& sql) { std::ofstream(dir_ / name) << sql; }
  MigrationSet Set() { return {.schema = "demo", .directory = dir_.string()}; }
  int Count(const std::string& sql) {
    pqxx::connection connection(db_url());
    pqxx::read_transaction txn(connection);
    return txn.exec1(sql)[0].as<int>();
  }

  // Starts four runners at once; returns how many files they applied in all (-1 if one failed).
  int AppliedByFourRunnersAtOnce() {
    std::vector<std::thread> runners;
    std::vector<absl::StatusOr<MigrationResult>> results(4, absl::UnknownError("not run"));
    for (int i = 0; i < 4; ++i) {
      runners.emplace_back([&, i] { results[i] = ApplyMigrations(db_url(), Set()); });
    }
    for (std::thread& runner : runners) runner.join();
    int applied = 0;
    for (const auto& result : results) {
      EXPECT_THAT(result, IsOk());
      if (!result.ok()) return -1;
      applied += static_cast<int>(result->applied.size());
    }
    return applied;
  }

  // How many of the indexes named `names` (an SQL list: 'a', 'b') exist and are valid.
  int ValidIndexes(const std::string& names) {
    return Count(
        absl::StrCat("SELECT count(*) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
                     "WHERE c.relname IN (",
                     names, ") AND i.indisvalid"));
  }

  std::filesystem::path dir_;
};

TEST_F(MigrationsPgTest, AppliesInOrderOnceAndRecordsChecksums) {
  Write("0002_add_column.sql", "ALTER TABLE demo.items ADD COLUMN note TEXT;");
  Write("0001_create.sql", "CREATE TABLE items (id INT PRIMARY KEY);");  // search_path = demo
  absl::StatusOr<MigrationResult> first = ApplyMigrations(db_url(), Set());
  ASSERT_THAT(first, IsOk());
  EXPECT_THAT(first->applied, ElementsAre("0001_create.sql", "0002_add_column.sql"));
  absl::StatusOr<MigrationResult> second = ApplyMigrations(db_url(), Set());
  ASSERT_THAT(second, IsOk());
  EXPECT_TRUE(second->applied.empty());
  EXPECT_EQ(second->already_applied, 2);
  EXPECT_EQ(Count("SELECT count(*) FROM demo.schema_migrations WHERE length(checksum) = 64"), 2);
  EXPECT_THAT(CheckMigrationsApplied(db_url(), Set()), IsOk());
}

TEST_F(MigrationsPgTest, PendingMigrationFailsTheReadinessCheck) {
  Write("0001_create.sql", "CREATE TABLE items (id INT PRIMARY KEY);");
  EXPECT_THAT(CheckMigrationsApplied(db_url(), Set()),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("not applied yet")));
}

TEST_F(MigrationsPgTest, EditedAppliedMigrationIsRefused) {
  Write("0001_create.sql", "CREATE TABLE items (id INT PRIMARY KEY);");
  ASSERT_THAT(ApplyMigrations(db_url(), Set()), IsOk());
  Write("0001_create.sql", "CREATE TABLE items (id BIGINT PRIMARY KEY);");
  Write("0002_more.sql", "CREATE TABLE more (id INT);");
  EXPECT_THAT(
      ApplyMigrations(db_url(), Set()),
      StatusIs(absl::StatusCode::kFailedPrecondition,
               AllOf(HasSubstr("0001_create.sql"), HasSubstr("was edited after it was applied"),
                     HasSubstr("put the change in a new migration"))));
  EXPECT_EQ(Count("SELECT count(*) FROM demo.schema_migrations"), 1);  // 0002 not applied
  EXPECT_THAT(CheckMigrationsApplied(db_url(), Set()),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("was edited")));
}

TEST_F(MigrationsPgTest, FailingMigrationRollsBackEverything) {
  Write("0001_create.sql", "CREATE TABLE items (id INT PRIMARY KEY);");
  Write("0002_broken.sql", "CREATE TABLE oops (id NOSUCHTYPE);");
  EXPECT_THAT(ApplyMigrations(db_url(), Set()),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("0002_broken.sql failed")));
  EXPECT_EQ(Count("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'demo' "
                  "AND table_name <> 'schema_migrations'"),
            0);
  EXPECT_EQ(Count("SELECT count(*) FROM demo.schema_migrations"), 0);
}

TEST_F(MigrationsPgTest, ConcurrentRunnersApplyEachMigrationOnce) {
  // Would fail with "relation already exists" if two runners applied 0001 at the same time.
  Write("0001_create.sql", "CREATE TABLE items (id INT PRIMARY KEY); SELECT pg_sleep(0.2);");
  Write("0002_seed.sql", "INSERT INTO items VALUES (1);");
  EXPECT_EQ(AppliedByFourRunnersAtOnce(), 2);
  EXPECT_EQ(Count("SELECT count(*) FROM demo.items"), 1);
}

// Waits until a backend runs a statement starting with `prefix` and waits for a lock.
void AwaitBlocked(const std::string& db_url, const std::string& prefix) {
  pqxx::connection connection(db_url);
  for (int i = 0; i < 500; ++i) {
    pqxx::nontransaction txn(connection);
    if (txn.exec_params1("SELECT count(*) FROM pg_stat_activity WHERE query LIKE $1 || '%' "
                         "AND wait_event_type = 'Lock'",
                         prefix)[0]
            .as<int>() > 0) {
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ADD_FAILURE() << "no statement " << prefix << " waited for a lock";
}

// Whether an insert into demo.items gets through within 2 s while an index is being built.
bool InsertGoesThrough(const std::string& db_url, int id) {
  pqxx::connection connection(db_url);
  pqxx::work txn(connection);
  txn.exec0("SET LOCAL lock_timeout = '2s'");
  try {
    txn.exec_params0("INSERT INTO demo.items VALUES ($1, $1)", id);
    txn.commit();
    return true;
  } catch (const pqxx::sql_error&) {
    return false;
  }
}

// An index built CONCURRENTLY (a no-transaction file) lets writes to its table go on while it
// waits for the transactions in progress; the same index built in a migration's transaction makes
// them wait until it is done.
TEST_F(MigrationsPgTest, AnIndexBuiltConcurrentlyLetsWritesGoOn) {
  Write("0001_create.sql",
        "CREATE TABLE items (id INT PRIMARY KEY, v INT); "
        "INSERT INTO items SELECT i, i FROM generate_series(1, 1000) i;");
  ASSERT_THAT(ApplyMigrations(db_url(), Set()), IsOk());
  Write("0002_index_v.sql",
        "-- parlor:no-transaction\n"
        "-- Builds the index without stopping writes.\n"
        "CREATE INDEX CONCURRENTLY IF NOT EXISTS items_v_idx\n  ON items (v);\n");
  // A transaction in progress on the table: both builds wait for it.
  pqxx::connection open(db_url());
  auto in_progress = std::make_unique<pqxx::work>(open);
  in_progress->exec0("INSERT INTO demo.items VALUES (-1, -1)");
  absl::StatusOr<MigrationResult> result = absl::UnknownError("not run");
  std::thread runner([&] { result = ApplyMigrations(db_url(), Set()); });
  AwaitBlocked(db_url(), "CREATE INDEX CONCURRENTLY");
  EXPECT_TRUE(InsertGoesThrough(db_url(), 2001)) << "a write waited for the concurrent build";
  in_progress->commit();
  runner.join();
  ASSERT_THAT(result, IsOk());
  EXPECT_THAT(result->applied, ElementsAre("0002_index_v.sql"));
  EXPECT_EQ(ValidIndexes("'items_v_idx'"), 1);
  EXPECT_THAT(CheckMigrationsApplied(db_url(), Set()), IsOk());

  Write("0003_index_id_v.sql", "CREATE INDEX items_id_v_idx ON items (id, v);");
  in_progress = std::make_unique<pqxx::work>(open);
  in_progress->exec0("INSERT INTO demo.items VALUES (-2, -2)");
  std::thread blocking([&] { result = ApplyMigrations(db_url(), Set()); });
  AwaitBlocked(db_url(), "CREATE INDEX items_id_v_idx");
  EXPECT_FALSE(InsertGoesThrough(db_url(), 2002)) << "the transactional build let a write by";
  in_progress->commit();
  blocking.join();
  ASSERT_THAT(result, IsOk());
  EXPECT_THAT(result->applied, ElementsAre("0003_index_id_v.sql"));
}

// A build interrupted midway leaves an invalid index (here: a unique index over duplicates); the
// next runner drops it and builds it again. One completed before its runner could record it is
// kept. The transactional files before and after run in their own transactions.
TEST_F(MigrationsPgTest, AnInterruptedConcurrentBuildIsBuiltAgain) {
  Write("0001_create.sql",
        "CREATE TABLE items (id INT PRIMARY KEY, v INT); "
        "INSERT INTO items SELECT i, i % 10 FROM generate_series(1, 100) i;");
  ASSERT_THAT(ApplyMigrations(db_url(), Set()), IsOk());
  Write("0002_unique_v.sql",
        "-- parlor:no-transaction\n"
        "CREATE UNIQUE INDEX CONCURRENTLY items_v_key ON items (v);\n"
        "CREATE INDEX CONCURRENTLY items_id_v_idx ON items (id, v);\n"
        "DROP INDEX CONCURRENTLY IF EXISTS items_gone_idx;\n");
  Write("0003_after.sql", "CREATE TABLE after_unique (id INT);");
  EXPECT_THAT(ApplyMigrations(db_url(), Set()),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr("0002_unique_v.sql failed"), HasSubstr("items_v_key"))));
  EXPECT_EQ(Count("SELECT count(*) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
                  "WHERE c.relname = 'items_v_key' AND NOT i.indisvalid"),
            1);
  EXPECT_EQ(Count("SELECT count(*) FROM demo.schema_migrations"), 1);
  EXPECT_EQ(Count("SELECT count(*) FROM information_schema.tables WHERE table_name = "
                  "'after_unique'"),
            0);

  // The data is mended; meanwhile another run built the second index and died before recording.
  {
    pqxx::connection connection(db_url());
    pqxx::nontransaction txn(connection);
    txn.exec0("DELETE FROM demo.items WHERE id > 10");
    txn.exec0("CREATE INDEX items_id_v_idx ON demo.items (id, v)");
    txn.exec0("CREATE INDEX items_gone_idx ON demo.items (id)");
  }
  absl::StatusOr<MigrationResult> result = ApplyMigrations(db_url(), Set());
  ASSERT_THAT(result, IsOk());
  EXPECT_THAT(result->applied, ElementsAre("0002_unique_v.sql", "0003_after.sql"));
  EXPECT_EQ(ValidIndexes("'items_v_key', 'items_id_v_idx'"), 2);
  EXPECT_EQ(Count("SELECT count(*) FROM pg_class WHERE relname = 'items_gone_idx'"), 0);
  EXPECT_THAT(CheckMigrationsApplied(db_url(), Set()), IsOk());
}

// Runners starting together, with a concurrent build among the files, apply each file once.
// (Runners that waited for the lock inside a transaction would hold a snapshot the concurrent
// build waits for while its runner holds the lock they wait for.)
TEST_F(MigrationsPgTest, ConcurrentRunnersApplyAConcurrentBuildOnce) {
  Write("0001_create.sql",
        "CREATE TABLE items (id INT PRIMARY KEY, v INT); SELECT pg_sleep(0.2); "
        "INSERT INTO items SELECT i, i FROM generate_series(1, 1000) i;");
  Write("0002_index_v.sql",
        "-- parlor:no-transaction\nCREATE INDEX CONCURRENTLY items_v_idx ON items (v);\n");
  Write("0003_seed.sql", "INSERT INTO items VALUES (0, 0);");
  EXPECT_EQ(AppliedByFourRunnersAtOnce(), 3);
  EXPECT_EQ(Count("SELECT count(*) FROM demo.items"), 1001);
  EXPECT_EQ(ValidIndexes("'items_v_idx'"), 1);
}

// A no-transaction file may hold only index builds and drops that can run again; anything else is
// refused when the files are read, before anything is applied.
TEST_F(MigrationsPgTest, NoTransactionFilesHoldOnlyConcurrentIndexStatements) {
  Write("0001_create.sql", "CREATE TABLE items (id INT PRIMARY KEY);");
  const std::string marker = "-- parlor:no-transaction\n";
  for (const auto& [sql, message] : std::vector<std::pair<std::string, std::string>>{
           {"CREATE TABLE more (id INT);", "only CREATE [UNIQUE] INDEX CONCURRENTLY"},
           {"CREATE INDEX items_id_idx ON items (id);", "only CREATE [UNIQUE] INDEX CONCURRENTLY"},
           {"DROP INDEX CONCURRENTLY items_id_idx;", "DROP INDEX CONCURRENTLY IF EXISTS"},
           {"CREATE INDEX CONCURRENTLY items_id_idx ON items (id)", "lacks its ';'"},
           {"-- nothing\n", "is empty"}}) {
    Write("0002_index.sql", marker + sql);
    EXPECT_THAT(LoadMigrations(dir_.string()),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         AllOf(HasSubstr("0002_index.sql"), HasSubstr(message))))
        << sql;
    EXPECT_THAT(ApplyMigrations(db_url(), Set()),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(message)));
  }
  EXPECT_EQ(Count("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'demo'"), 0);
}

TEST_F(MigrationsPgTest, BadFileNamesAndDuplicateVersionsAreRejected) {
  Write("0001_create.sql", "SELECT 1;");
  Write("create_more.sql", "SELECT 1;");
  EXPECT_THAT(LoadMigrations(dir_.string()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("NNNN_name.sql")));
  std::filesystem::remove(dir_ / "create_more.sql");
  Write("0001_other.sql", "SELECT 1;");
  EXPECT_THAT(LoadMigrations(dir_.string()),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("share a version")));
  EXPECT_THAT(LoadMigrations("/no/such/dir"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("--migrations_dir")));
}

TEST_F(MigrationsPgTest, RealAccountsMigrationsApply) {
  absl::StatusOr<MigrationResult> result = ApplyMigrations(
      db_url(), {.schema = "accounts", .directory = PARLOR_SOURCE_DIR "/migrations/accounts"});
  ASSERT_THAT(result, IsOk());
  EXPECT_FALSE(result->applied.empty());
}

}  // namespace
}  // namespace parlor
