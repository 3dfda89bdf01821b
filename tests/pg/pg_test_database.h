#ifndef PARLOR_TESTS_PG_PG_TEST_DATABASE_H_
#define PARLOR_TESTS_PG_PG_TEST_DATABASE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "gtest/gtest.h"
#include "pqxx/pqxx"

namespace parlor::testing {

// Integration tests (`*_pgtest.cc`, ctest label `pg`) run against a real PostgreSQL 15 that the
// ctest fixture `pg` starts once per run (tests/pg/pg_test_server.sh). Each test gets its own
// fresh, empty database, dropped afterwards, so tests are independent and may run in parallel.
//
// The server is found through $PARLOR_TEST_PG_CONNINFO, or else the conninfo file the fixture
// writes (its directory is compiled in, or $PARLOR_TEST_PG_DIR).
absl::StatusOr<std::string> PgServerConninfo();

class PgTestDatabase {
 public:
  static absl::StatusOr<std::unique_ptr<PgTestDatabase>> Create();
  ~PgTestDatabase();

  // libpq connection string for this database.
  const std::string& url() const { return url_; }
  const std::string& name() const { return name_; }

 private:
  PgTestDatabase(std::string server, std::string name, std::string url)
      : server_(std::move(server)), name_(std::move(name)), url_(std::move(url)) {}
  std::string server_;
  std::string name_;
  std::string url_;
};

// A digest of every row of every table in `schema` (ordered, so it is stable). Equal digests
// before and after an operation mean the operation changed nothing.
absl::StatusOr<std::string> SchemaContentDigest(const std::string& url, const std::string& schema);

// The shared buffers (hit + read) an `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON)` plan's top node
// used, which include every node's below it: the pages a statement read. None when the plan has
// no buffer counts.
std::optional<int64_t> PagesReadByPlan(absl::string_view explain_json);

// The `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON)` plan of `statement` with these parameters, from
// its second run on one new connection to `url` (the first also reads the catalogs the connection
// has not cached yet, pages the statement itself does not read); both runs are rolled back.
template <typename... Params>
std::string ExplainAnalyze(const std::string& url, const std::string& statement,
                           const Params&... params) {
  pqxx::connection connection(url);
  std::string plan;
  for (int run = 0; run < 2; ++run) {
    pqxx::work txn(connection);
    const pqxx::row row = txn.exec_params1(
        absl::StrCat("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ", statement), params...);
    plan = row[0].c_str();
    txn.abort();
  }
  return plan;
}

// Base fixture: a fresh database per test.
//
//   class MyStorePgTest : public parlor::testing::PgTest {};
//   TEST_F(MyStorePgTest, Works) { ... db_url() ... }
class PgTest : public ::testing::Test {
 protected:
  void SetUp() override;
  const std::string& db_url() const { return database_->url(); }

 private:
  std::unique_ptr<PgTestDatabase> database_;
};

}  // namespace parlor::testing

#endif  // PARLOR_TESTS_PG_PG_TEST_DATABASE_H_
