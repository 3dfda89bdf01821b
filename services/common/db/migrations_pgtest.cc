#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

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
  EXPECT_EQ(Count("SELECT count(*) FROM information_schema.tables WHERE table_schema = 'demo'"), 0);
}

TEST_F(MigrationsPgTest, ConcurrentRunnersApplyEachMigrationOnce) {
  // Would fail with "relation already exists" if two runners applied 0001 at the same time.
  Write("0001_create.sql", "CREATE TABLE items (id INT PRIMARY KEY); SELECT pg_sleep(0.2);");
  Write("0002_seed.sql", "INSERT INTO items VALUES (1);");
  std::vector<std::thread> runners;
  std::vector<absl::StatusOr<MigrationResult>> results(4, absl::UnknownError("not run"));
  for (int i = 0; i < 4; ++i) {
    runners.emplace_back([&, i] { results[i] = ApplyMigrations(db_url(), Set()); });
  }
  for (std::thread& runner : runners) runner.join();
  int applied = 0;
  for (const auto& result : results) {
    ASSERT_THAT(result, IsOk());
    applied += static_cast<int>(result->applied.size());
  }
  EXPECT_EQ(applied, 2);
  EXPECT_EQ(Count("SELECT count(*) FROM demo.items"), 1);
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
