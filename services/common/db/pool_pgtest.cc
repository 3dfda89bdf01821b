#include <atomic>
#include <optional>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/db/pool.h"
#include "services/common/grpc_status.h"
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

TEST_F(DbPoolPgTest, ExhaustedPoolIsResourceExhaustedWithARetryDelay) {
  absl::StatusOr<DbPool::Lease> one = pool_->Acquire();
  absl::StatusOr<DbPool::Lease> two = pool_->Acquire();
  ASSERT_THAT(one, IsOk());
  ASSERT_THAT(two, IsOk());
  EXPECT_THAT(metrics_.Serialize(), HasSubstr("parlor_db_connections{state=\"in_use\"} 2"));
  absl::Status full = pool_->Transact("starved", [](pqxx::work&) { return absl::OkStatus(); });
  EXPECT_THAT(full, StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("busy")));
  EXPECT_THAT(RetryDelay(full), ::testing::Optional(::testing::Gt(absl::ZeroDuration())));
}

TEST_F(DbPoolPgTest, StatementTimeoutIsUnavailableWithARetryDelay) {
  DbPool pool(DbOptions{.url = db_url(), .statement_timeout = absl::Milliseconds(200)}, nullptr);
  absl::Status slow = pool.Transact("slow", [](pqxx::work& txn) {
    txn.exec0("SELECT pg_sleep(5)");
    return absl::OkStatus();
  });
  EXPECT_THAT(slow, StatusIs(absl::StatusCode::kUnavailable, HasSubstr("retry")));
  EXPECT_THAT(RetryDelay(slow), ::testing::Optional(::testing::Gt(absl::ZeroDuration())));
  EXPECT_THAT(pool.Ping(), IsOk());  // the connection stays usable
}

TEST_F(DbPoolPgTest, StatementBlockedByALockTimesOutWithUnavailable) {
  DbPool pool(DbOptions{.url = db_url(), .statement_timeout = absl::Milliseconds(200)}, nullptr);
  pqxx::connection holder(db_url());
  pqxx::work lock(holder);
  lock.exec0("LOCK TABLE counter IN ACCESS EXCLUSIVE MODE");
  EXPECT_THAT(pool.Transact("blocked",
                            [](pqxx::work& txn) {
                              txn.exec1("SELECT n FROM counter WHERE id = 1");
                              return absl::OkStatus();
                            }),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("retry")));
  lock.abort();
  EXPECT_EQ(Counter(), 0);
}

TEST_F(DbPoolPgTest, ServerSideLossOfEveryConnectionIsHealedByTheNextTransaction) {
  // What a PostgreSQL restart leaves behind: every pooled connection dead. The first transaction
  // meets a dead one, the pool drops the idle rest and re-runs it once on a fresh connection.
  std::atomic<int> lost{0};
  DbPool pool(DbOptions{.url = db_url(),
                        .max_connections = 3,
                        .application_name = "parlor-restart-test",
                        .on_connection_lost = [&] { ++lost; }},
              &metrics_);
  {
    absl::StatusOr<DbPool::Lease> a = pool.Acquire();
    absl::StatusOr<DbPool::Lease> b = pool.Acquire();
    absl::StatusOr<DbPool::Lease> c = pool.Acquire();
    ASSERT_THAT(a, IsOk());
    ASSERT_THAT(b, IsOk());
    ASSERT_THAT(c, IsOk());
  }
  pqxx::connection admin(db_url());
  pqxx::nontransaction kill(admin);
  EXPECT_EQ(kill.exec1("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                       "WHERE application_name = 'parlor-restart-test'")[0]
                .as<int>(),
            3);
  int runs = 0;
  EXPECT_THAT(pool.Transact("after_restart",
                            [&](pqxx::work& txn) {
                              ++runs;
                              txn.exec1("SELECT n FROM counter WHERE id = 1");
                              return absl::OkStatus();
                            }),
              IsOk());
  EXPECT_LE(runs, 2);  // the dead connection fails at BEGIN or at the body's first statement
  EXPECT_THAT(metrics_.Serialize(),
              HasSubstr("parlor_db_transactions_total{outcome=\"retried\",transaction=\"after_"
                        "restart\"} 1"));
  EXPECT_EQ(lost.load(), 1);
  EXPECT_THAT(pool.Ping(), IsOk());
  EXPECT_EQ(lost.load(), 1);  // the other dead connections were closed, not handed out
}

TEST_F(DbPoolPgTest, UnreachableServerIsUnavailable) {
  DbPool dead(DbOptions{.url = "host=127.0.0.1 port=1 connect_timeout=2"}, nullptr);
  absl::Status status = dead.Ping();
  EXPECT_THAT(status, StatusIs(absl::StatusCode::kUnavailable, HasSubstr("retry")));
  EXPECT_THAT(RetryDelay(status), ::testing::Optional(::testing::Gt(absl::ZeroDuration())));
}

// Behind a transaction-pooling PgBouncer (prepared_statements = false): no statement is left
// prepared on a server connection (the next transaction may run on another one), no session
// setting either, and the statement timeout still applies, per transaction, to writes and reads.
TEST_F(DbPoolPgTest, WithoutPreparedStatementsNothingStaysOnTheServerSession) {
  DbPool pool(DbOptions{.url = db_url(),
                        .statement_timeout = absl::Milliseconds(300),
                        .prepared_statements = false},
              nullptr);
  int64_t n = -1;
  ASSERT_THAT(pool.Transact("run",
                            [&](pqxx::work& txn) {
                              n = pool.Run(txn, "counter_n", "SELECT n FROM counter WHERE id = $1",
                                           1)[0][0]
                                      .as<int64_t>();
                              return absl::OkStatus();
                            }),
              IsOk());
  EXPECT_EQ(n, 0);
  ASSERT_THAT(
      pool.Read("read",
                [&](pqxx::nontransaction& txn) {
                  n = pool.Run(txn, "counter_n", "SELECT n + 1 FROM counter WHERE id = $1", 1)[0][0]
                          .as<int64_t>();
                  // Nothing prepared, and the session's own timeout is the server's
                  // default: only this transaction has 300 ms.
                  EXPECT_EQ(
                      txn.exec1("SELECT count(*) FROM pg_prepared_statements")[0].as<int64_t>(), 0);
                  EXPECT_EQ(txn.exec1("SHOW statement_timeout")[0].as<std::string>(), "300ms");
                  return absl::OkStatus();
                }),
      IsOk());
  EXPECT_EQ(n, 1);
  {
    absl::StatusOr<DbPool::Lease> lease = pool.Acquire();
    ASSERT_THAT(lease.status(), IsOk());
    pqxx::nontransaction plain(lease->connection());
    EXPECT_EQ(plain.exec1("SELECT count(*) FROM pg_prepared_statements")[0].as<int64_t>(), 0);
    EXPECT_EQ(plain.exec1("SHOW statement_timeout")[0].as<std::string>(), "0");
    plain.commit();
  }
  auto slow = [](auto& txn) {
    txn.exec0("SELECT pg_sleep(5)");
    return absl::OkStatus();
  };
  EXPECT_THAT(pool.Transact("slow", slow),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("retry")));
  EXPECT_THAT(pool.Read("slow", slow),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("retry")));
  EXPECT_THAT(pool.Ping(), IsOk());
}

// The named statement of Run() with prepared statements on (the default, a direct connection).
TEST_F(DbPoolPgTest, WithPreparedStatementsRunPreparesOncePerConnection) {
  DbPool pool(DbOptions{.url = db_url(), .max_connections = 1}, nullptr);
  for (int i = 0; i < 2; ++i) {
    ASSERT_THAT(pool.Transact("run",
                              [&](pqxx::work& txn) {
                                pool.Run(txn, "counter_n", "SELECT n FROM counter WHERE id = $1",
                                         1);
                                EXPECT_EQ(txn.exec1("SELECT count(*) FROM pg_prepared_statements "
                                                    "WHERE name = 'counter_n'")[0]
                                              .as<int64_t>(),
                                          1);
                                return absl::OkStatus();
                              }),
                IsOk());
  }
}

// PlanKeyLookupsOnce(): for the rest of its transaction a statement of Run() is planned once for
// any arguments; by default (and after that transaction) PostgreSQL plans the first five calls
// for their own arguments.
TEST_F(DbPoolPgTest, PlanKeyLookupsOnceUsesTheGenericPlanForTheRestOfTheTransaction) {
  DbPool pool(DbOptions{.url = db_url(), .max_connections = 1}, nullptr);
  auto run_and_count = [&](bool plan_once, int64_t* generic, int64_t* custom) {
    ASSERT_THAT(
        pool.Transact("run",
                      [&](pqxx::work& txn) {
                        if (plan_once) pool.PlanKeyLookupsOnce(txn);
                        for (int i = 0; i < 3; ++i) {
                          pool.Run(txn, "counter_n", "SELECT n FROM counter WHERE id = $1", 1);
                        }
                        const pqxx::row plans = txn.exec1(
                            "SELECT generic_plans, custom_plans FROM pg_prepared_statements "
                            "WHERE name = 'counter_n'");
                        *generic = plans[0].as<int64_t>();
                        *custom = plans[1].as<int64_t>();
                        return absl::OkStatus();
                      }),
        IsOk());
  };
  int64_t generic = 0, custom = 0;
  run_and_count(true, &generic, &custom);
  EXPECT_EQ(generic, 3);
  EXPECT_EQ(custom, 0);
  run_and_count(false, &generic, &custom);  // the same connection, a new transaction
  EXPECT_EQ(generic, 3);
  EXPECT_EQ(custom, 3);
}

// A batch joined to a table by key, planned while the table was empty: the generic plan a
// connection keeps scans the whole table (dead row versions included) on every call, long after
// the table has grown, unless it was made under PlanKeyLookupsOnce(), which reaches the rows by
// index whatever the table's size.
TEST_F(DbPoolPgTest, PlanKeyLookupsOnceReachesABatchsRowsByIndexEvenInAnEmptyTable) {
  ASSERT_THAT(
      pool_->Transact(
          "create",
          [](pqxx::work& txn) {
            txn.exec0(
                "CREATE TABLE rows_by_key (id INT PRIMARY KEY, n INT, label TEXT, body BYTEA)");
            return absl::OkStatus();
          }),
      IsOk());
  constexpr char kBatch[] =
      "UPDATE rows_by_key AS r SET n = t.n FROM unnest($1::int[], $2::int[]) AS t(id, n) "
      "WHERE r.id = t.id";
  auto plan_of_batch = [&](bool by_key) {
    DbPool pool(DbOptions{.url = db_url(), .max_connections = 1}, nullptr);
    std::string plan;
    EXPECT_THAT(pool.Transact("batch",
                              [&](pqxx::work& txn) {
                                if (by_key) {
                                  pool.PlanKeyLookupsOnce(txn);
                                } else {
                                  txn.exec0("SET LOCAL plan_cache_mode = force_generic_plan");
                                }
                                pool.Run(txn, "batch", kBatch, "{1,2}", "{5,6}");
                                for (const pqxx::row& line :
                                     txn.exec("EXPLAIN EXECUTE batch('{1,2}', '{5,6}')")) {
                                  absl::StrAppend(&plan, line[0].c_str(), "\n");
                                }
                                return absl::OkStatus();
                              }),
                IsOk());
    return plan;
  };
  const std::string planned_by_key = plan_of_batch(true);
  EXPECT_THAT(planned_by_key, HasSubstr("Index Scan using rows_by_key_pkey"));
  EXPECT_THAT(planned_by_key, Not(HasSubstr("Seq Scan")));
  EXPECT_THAT(plan_of_batch(false), HasSubstr("Seq Scan on rows_by_key"));
}

// A pipelined transaction: the body's read comes back in its own exchange, and its last queued
// statements go out with the end of the transaction.
TEST_F(DbPoolPgTest, PipelinedTransactionReadsThenCommitsItsLastStatements) {
  int64_t read = -1;
  ASSERT_THAT(pool_->TransactPipelined(
                  "pipelined",
                  [&](PipelineTxn& txn) {
                    txn.Queue("bump", "UPDATE counter SET n = n + $1 WHERE id = 1 RETURNING n",
                              {PgParam::Text("1")});
                    txn.Queue("bytes_of", "SELECT $1::bytea, $2::text IS NULL",
                              {PgParam::Bytes(std::string("a\0\xff", 3)), PgParam{}});
                    std::vector<PgRows> rows = txn.Exchange();
                    EXPECT_EQ(rows.size(), 2u);
                    read = rows.at(0)[0][0].as<int64_t>();
                    EXPECT_EQ(rows.at(1)[0][0].bytes(), std::string("a\0\xff", 3));
                    EXPECT_TRUE(rows.at(1)[0][1].as<bool>());
                    txn.Queue("bump", "UPDATE counter SET n = n + $1 WHERE id = 1 RETURNING n",
                              {PgParam::Text("10")});
                    return absl::OkStatus();
                  }),
              IsOk());
  EXPECT_EQ(read, 1);
  EXPECT_EQ(Counter(), 11);
  EXPECT_THAT(metrics_.Serialize(),
              HasSubstr("parlor_db_transactions_total{outcome=\"committed\",transaction="
                        "\"pipelined\"} 1"));
  // The connection is reused with its prepared statements.
  ASSERT_THAT(pool_->TransactPipelined("again",
                                       [&](PipelineTxn& txn) {
                                         txn.Queue("bump",
                                                   "UPDATE counter SET n = n + $1 WHERE id = 1 "
                                                   "RETURNING n",
                                                   {PgParam::Text("100")});
                                         return absl::OkStatus();
                                       }),
              IsOk());
  EXPECT_EQ(Counter(), 111);
}

// Whatever fails — a statement sent with the commit, a read, or the body itself — nothing of
// the transaction stays, and the next one runs on a fresh connection.
TEST_F(DbPoolPgTest, PipelinedTransactionRollsBackWhateverFails) {
  auto bump_then = [&](const std::string& last_name, const std::string& last_sql, bool exchange_it,
                       absl::Status body_status) {
    return pool_->TransactPipelined("fails", [&](PipelineTxn& txn) {
      txn.Queue("bump", "UPDATE counter SET n = n + 1 WHERE id = 1", {});
      txn.Exchange();
      txn.Queue(last_name, last_sql, {});
      if (exchange_it) txn.Exchange();
      return body_status;
    });
  };
  EXPECT_THAT(bump_then("divide", "SELECT 1/0", false, absl::OkStatus()),
              StatusIs(absl::StatusCode::kInternal, Not(HasSubstr("division"))));
  EXPECT_EQ(Counter(), 0);
  EXPECT_THAT(bump_then("missing", "SELECT * FROM no_such_table", true, absl::OkStatus()),
              StatusIs(absl::StatusCode::kInternal, HasSubstr("database error")));
  EXPECT_EQ(Counter(), 0);
  EXPECT_THAT(bump_then("one", "SELECT 1", true, absl::FailedPreconditionError("refused")),
              StatusIs(absl::StatusCode::kFailedPrecondition, "refused"));
  EXPECT_EQ(Counter(), 0);
  EXPECT_THAT(bump_then("one", "SELECT 1", false, absl::OkStatus()), IsOk());
  EXPECT_EQ(Counter(), 1);
}

// A pipelined connection killed between transactions (a PostgreSQL restart) fails the next
// transaction's first exchange: it re-runs once on a fresh connection and commits.
TEST_F(DbPoolPgTest, PipelinedTransactionRecoversFromALostConnection) {
  DbPool pool(DbOptions{.url = db_url(), .application_name = "parlor-pipeline-test"}, nullptr);
  auto bump = [&] {
    return pool.TransactPipelined("bump", [](PipelineTxn& txn) {
      txn.Queue("bump", "UPDATE counter SET n = n + 1 WHERE id = 1 RETURNING n", {});
      txn.Exchange();
      return absl::OkStatus();
    });
  };
  ASSERT_THAT(bump(), IsOk());
  pqxx::connection admin(db_url());
  pqxx::nontransaction kill(admin);
  EXPECT_EQ(kill.exec1("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                       "WHERE application_name = 'parlor-pipeline-test'")[0]
                .as<int>(),
            1);
  EXPECT_THAT(bump(), IsOk());
  EXPECT_EQ(Counter(), 2);
}

// A pipelined connection's session plans as PlanKeyLookupsOnce() does and has the statement
// timeout (which makes a slow statement UNAVAILABLE, as in Transact()).
TEST_F(DbPoolPgTest, PipelinedConnectionsPlanKeyLookupsAndTimeOut) {
  DbPool pool(DbOptions{.url = db_url(), .statement_timeout = absl::Milliseconds(300)}, nullptr);
  std::vector<std::string> settings;
  ASSERT_THAT(pool.TransactPipelined("settings",
                                     [&](PipelineTxn& txn) {
                                       txn.Queue("settings",
                                                 "SELECT current_setting('plan_cache_mode'), "
                                                 "current_setting('enable_seqscan'), "
                                                 "current_setting('statement_timeout')",
                                                 {});
                                       PgRows rows = std::move(txn.Exchange().at(0));
                                       for (int i = 0; i < 3; ++i)
                                         settings.push_back(rows[0][i].as<std::string>());
                                       return absl::OkStatus();
                                     }),
              IsOk());
  EXPECT_THAT(settings, ::testing::ElementsAre("force_generic_plan", "off", "300ms"));
  EXPECT_THAT(pool.TransactPipelined("slow",
                                     [](PipelineTxn& txn) {
                                       txn.Queue("slow", "SELECT pg_sleep(5)", {});
                                       txn.Exchange();
                                       return absl::OkStatus();
                                     }),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("retry")));
}

// Pipelined connections have a budget of their own: a full pool of plain connections does not
// stop a pipelined transaction, and neither kind closes the other's connections for room.
TEST_F(DbPoolPgTest, PipelinedConnectionsHaveABudgetOfTheirOwn) {
  DbPool pool(DbOptions{.url = db_url(),
                        .max_connections = 1,
                        .acquire_timeout = absl::Milliseconds(200),
                        .max_pipelined_connections = 1},
              &metrics_);
  auto pipelined = [&](const std::function<void()>& inside) {
    return pool.TransactPipelined("pipelined", [&](PipelineTxn& txn) {
      txn.Queue("one", "SELECT 1", {});
      txn.Exchange();
      inside();
      return absl::OkStatus();
    });
  };
  absl::StatusOr<DbPool::Lease> plain = pool.Acquire();
  ASSERT_THAT(plain, IsOk());
  EXPECT_THAT(pipelined([] {}), IsOk());
  EXPECT_THAT(metrics_.Serialize(), HasSubstr("parlor_db_connections{state=\"in_use\"} 1"));
  EXPECT_THAT(metrics_.Serialize(), HasSubstr("parlor_db_connections{state=\"idle\"} 1"));
  // The one pipelined connection is in use: a second pipelined transaction waits for it.
  absl::Status second;
  EXPECT_THAT(pipelined([&] { second = pipelined([] {}); }), IsOk());
  EXPECT_THAT(second, StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("busy")));
}

// Requests waiting for either kind of connection are woken by a release of their own kind: a
// plain connection released while a pipelined transaction also waits goes to the plain waiter.
TEST_F(DbPoolPgTest, EachKindsWaitersGetThatKindsReleasedConnections) {
  DbPool pool(DbOptions{.url = db_url(),
                        .max_connections = 1,
                        .acquire_timeout = absl::Seconds(3),
                        .max_pipelined_connections = 1},
              nullptr);
  absl::Notification pipelined_held, release_pipelined;
  absl::Status holder_status, waiting_pipelined_status, waiting_plain_status;
  std::thread holder([&] {
    holder_status = pool.TransactPipelined("holder", [&](PipelineTxn&) {
      pipelined_held.Notify();
      release_pipelined.WaitForNotification();
      return absl::OkStatus();
    });
  });
  pipelined_held.WaitForNotification();
  std::optional<absl::StatusOr<DbPool::Lease>> plain(pool.Acquire());
  ASSERT_THAT(plain->status(), IsOk());
  std::thread waiting_pipelined([&] {
    waiting_pipelined_status =
        pool.TransactPipelined("waiting", [](PipelineTxn&) { return absl::OkStatus(); });
  });
  std::thread waiting_plain([&] { waiting_plain_status = pool.Acquire().status(); });
  absl::SleepFor(absl::Milliseconds(200));  // both are waiting
  const absl::Time released = absl::Now();
  plain.reset();
  waiting_plain.join();
  EXPECT_THAT(waiting_plain_status, IsOk());
  EXPECT_LT(absl::Now() - released, absl::Seconds(2));  // woken, not timed out
  release_pipelined.Notify();
  holder.join();
  waiting_pipelined.join();
  EXPECT_THAT(holder_status, IsOk());
  EXPECT_THAT(waiting_pipelined_status, IsOk());
}

// Behind a transaction pooler, or when turned off, there are no pipelined transactions.
TEST_F(DbPoolPgTest, NoPipelinedTransactionsBehindAPoolerOrWhenOff) {
  EXPECT_TRUE(pool_->pipelining());
  EXPECT_FALSE(DbPool(DbOptions{.url = db_url(), .pipelining = false}, nullptr).pipelining());
  DbPool pool(DbOptions{.url = db_url(), .prepared_statements = false}, nullptr);
  EXPECT_FALSE(pool.pipelining());
  EXPECT_THAT(pool.TransactPipelined("pipelined", [](PipelineTxn&) { return absl::OkStatus(); }),
              StatusIs(absl::StatusCode::kInternal, HasSubstr("READ COMMITTED")));
}

// AcquireSession() connects to direct_url (LISTEN, session locks), not to the pooled url, and
// closes that connection when the lease ends.
TEST_F(DbPoolPgTest, SessionLeasesUseTheDirectUrl) {
  DbPool pool(DbOptions{.url = "host=127.0.0.1 port=1 connect_timeout=1",
                        .prepared_statements = false,
                        .direct_url = db_url()},
              nullptr);
  EXPECT_EQ(pool.session_url(), db_url());
  EXPECT_THAT(pool.Ping(), StatusIs(absl::StatusCode::kUnavailable, HasSubstr("retry")));
  absl::StatusOr<DbPool::Lease> lease = pool.AcquireSession();
  ASSERT_THAT(lease.status(), IsOk());
  pqxx::nontransaction txn(lease->connection());
  EXPECT_EQ(txn.exec1("SELECT pg_try_advisory_lock(42)")[0].as<bool>(), true);
}

}  // namespace
}  // namespace parlor
