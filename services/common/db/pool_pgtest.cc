#include <atomic>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/db/pool.h"
#include "services/common/metrics.h"
#include "services/common/testing/status_matchers.h"
#include "tests/pg/pg_test_database.h"

namespace parlor {
namespace {

using ::parlor::testing::IsOk;
using ::parlor::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::Not;

class DbPoolPgTest : public parlor::testing::PgTest {
 protected:
  void SetUp() override {
    PgTest::SetUp();
    pool_ = std::make_unique<DbPool>(
        DbOptions{
            .url = db_url(), .max_connections = 2, .acquire_timeout = absl::Milliseconds(300)},
        &metrics_);
    ASSERT_THAT(pool_->Transact("setup",
                                [](pqxx::work& txn) {
                                  txn.exec0("CREATE TABLE counter (id INT PRIMARY KEY, n INT)");
                                  txn.exec0("INSERT INTO counter VALUES (1, 0)");
                                  return absl::OkStatus();
                                }),
                IsOk());
  }

  int Counter() {
    int n = -1;
    EXPECT_THAT(pool_->Transact("read",
                                [&](pqxx::work& txn) {
                                  n = txn.exec1("SELECT n FROM counter WHERE id = 1")[0].as<int>();
                                  return absl::OkStatus();
                                }),
                IsOk());
    return n;
  }

  Metrics metrics_{"test", "0"};
  std::unique_ptr<DbPool> pool_;
};

TEST_F(DbPoolPgTest, CommitsOnOkAndRollsBackOnError) {
  ASSERT_THAT(pool_->Transact("inc",
                              [](pqxx::work& txn) {
                                txn.exec0("UPDATE counter SET n = n + 1");
                                return absl::OkStatus();
                              }),
              IsOk());
  EXPECT_THAT(pool_->Transact("inc_then_fail",
                              [](pqxx::work& txn) {
                                txn.exec0("UPDATE counter SET n = n + 100");
                                return absl::FailedPreconditionError("domain says no");
                              }),
              StatusIs(absl::StatusCode::kFailedPrecondition, "domain says no"));
  EXPECT_EQ(Counter(), 1);
}

TEST_F(DbPoolPgTest, RetriesARealSerializationFailure) {
  // Attempt 1 reads, then another connection commits a change to the same row, then attempt 1
  // writes: PostgreSQL aborts it with a serialization failure. Attempt 2 runs undisturbed.
  int attempts = 0;
  absl::Status status = pool_->Transact("contended",
                                        [&](pqxx::work& txn) {
                                          ++attempts;
                                          txn.exec1("SELECT n FROM counter WHERE id = 1");
                                          if (attempts == 1) {
                                            pqxx::connection other(db_url());
                                            pqxx::work interfering(other);
                                            interfering.exec0("UPDATE counter SET n = n + 10");
                                            interfering.commit();
                                          }
                                          txn.exec0("UPDATE counter SET n = n + 1");
                                          return absl::OkStatus();
                                        },
                                        {.serializable = true, .max_attempts = 3});
  ASSERT_THAT(status, IsOk());
  EXPECT_EQ(attempts, 2);
  EXPECT_EQ(Counter(), 11);
  EXPECT_THAT(
      metrics_.Serialize(),
      HasSubstr("parlor_db_transactions_total{outcome=\"retried\",transaction=\"contended\"} 1"));
}

TEST_F(DbPoolPgTest, GivesUpAfterMaxAttemptsWithAborted) {
  int attempts = 0;
  absl::Status status = pool_->Transact("always_contended",
                                        [&](pqxx::work& txn) {
                                          ++attempts;
                                          txn.exec1("SELECT n FROM counter WHERE id = 1");
                                          pqxx::connection other(db_url());
                                          pqxx::work interfering(other);
                                          interfering.exec0("UPDATE counter SET n = n + 10");
                                          interfering.commit();
                                          txn.exec0("UPDATE counter SET n = n + 1");
                                          return absl::OkStatus();
                                        },
                                        {.serializable = true, .max_attempts = 2});
  EXPECT_THAT(status, StatusIs(absl::StatusCode::kAborted, HasSubstr("retry")));
  EXPECT_EQ(attempts, 2);
}

TEST_F(DbPoolPgTest, SqlErrorsBecomeInternalWithoutSql) {
  absl::Status status = pool_->Transact("broken_sql", [](pqxx::work& txn) {
    txn.exec0("SELECT * FROM no_such_table");
    return absl::OkStatus();
  });
  EXPECT_THAT(status, StatusIs(absl::StatusCode::kInternal, Not(HasSubstr("no_such_table"))));
  EXPECT_EQ(Counter(), 0);  // the pool still works
}

TEST_F(DbPoolPgTest, LostConnectionIsUnavailableAndThePoolRecovers) {
  absl::Status status = pool_->Transact("killed", [](pqxx::work& txn) {
    // The server ends this very session, as a failover or restart would.
    txn.exec0("SELECT pg_terminate_backend(pg_backend_pid())");
    return absl::OkStatus();
  });
  EXPECT_THAT(status, StatusIs(absl::StatusCode::kUnavailable, HasSubstr("retry")));
  EXPECT_EQ(Counter(), 0);
}

TEST_F(DbPoolPgTest, ExhaustedPoolTimesOutWithUnavailable) {
  absl::StatusOr<DbPool::Lease> one = pool_->Acquire();
  absl::StatusOr<DbPool::Lease> two = pool_->Acquire();
  ASSERT_THAT(one, IsOk());
  ASSERT_THAT(two, IsOk());
  EXPECT_THAT(metrics_.Serialize(), HasSubstr("parlor_db_connections{state=\"in_use\"} 2"));
  EXPECT_THAT(pool_->Acquire(), StatusIs(absl::StatusCode::kUnavailable, HasSubstr("busy")));
}

TEST_F(DbPoolPgTest, UnreachableServerIsUnavailable) {
  DbPool dead(DbOptions{.url = "host=127.0.0.1 port=1 connect_timeout=2"}, nullptr);
  EXPECT_THAT(dead.Ping(), StatusIs(absl::StatusCode::kUnavailable, HasSubstr("retry")));
}

}  // namespace
}  // namespace parlor
