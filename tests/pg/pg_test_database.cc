#include "tests/pg/pg_test_database.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "pqxx/pqxx"
#include "services/common/core/crypto.h"

#ifndef PARLOR_TEST_PG_DIR
#define PARLOR_TEST_PG_DIR ""
#endif

namespace parlor::testing {

absl::StatusOr<std::string> PgServerConninfo() {
  if (const char* conninfo = std::getenv("PARLOR_TEST_PG_CONNINFO"); conninfo != nullptr) {
    return std::string(conninfo);
  }
  std::string dir = PARLOR_TEST_PG_DIR;
  if (const char* env_dir = std::getenv("PARLOR_TEST_PG_DIR"); env_dir != nullptr) dir = env_dir;
  std::ifstream in(dir + "/conninfo");
  std::stringstream content;
  content << in.rdbuf();
  std::string conninfo(absl::StripAsciiWhitespace(content.str()));
  if (conninfo.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("no test PostgreSQL: run through ctest (fixture `pg`) or start one with "
                     "`tests/pg/pg_test_server.sh start ",
                     dir, "`"));
  }
  return conninfo;
}

absl::StatusOr<std::unique_ptr<PgTestDatabase>> PgTestDatabase::Create() {
  absl::StatusOr<std::string> server = PgServerConninfo();
  if (!server.ok()) return server.status();
  const std::string name =
      absl::StrCat("t_", absl::AsciiStrToLower(absl::BytesToHexString(RandomBytes(8))));
  try {
    pqxx::connection admin(*server + " dbname=postgres");
    pqxx::nontransaction txn(admin);
    txn.exec0(absl::StrCat("CREATE DATABASE ", name, " TEMPLATE template0"));
  } catch (const std::exception& e) {
    return absl::UnavailableError(absl::StrCat("creating test database: ", e.what()));
  }
  return std::unique_ptr<PgTestDatabase>(
      new PgTestDatabase(*server, name, absl::StrCat(*server, " dbname=", name)));
}

PgTestDatabase::~PgTestDatabase() {
  try {
    pqxx::connection admin(server_ + " dbname=postgres");
    pqxx::nontransaction txn(admin);
    txn.exec0(absl::StrCat("DROP DATABASE IF EXISTS ", name_, " WITH (FORCE)"));
  } catch (const std::exception&) {
    // The server is torn down at the end of the run anyway.
  }
}

absl::StatusOr<std::string> SchemaContentDigest(const std::string& url, const std::string& schema) {
  try {
    pqxx::connection connection(url);
    pqxx::read_transaction txn(connection);
    std::string all;
    for (const pqxx::row& table :
         txn.exec_params("SELECT table_name FROM information_schema.tables WHERE table_schema = $1 "
                         "AND table_type = 'BASE TABLE' ORDER BY table_name",
                         schema)) {
      const std::string qualified =
          absl::StrCat(txn.quote_name(schema), ".", txn.quote_name(table[0].as<std::string>()));
      pqxx::row digest = txn.exec1(absl::StrCat(
          "SELECT count(*), coalesce(md5(string_agg(t::text, '|' ORDER BY t::text)), '') FROM ",
          qualified, " t"));
      absl::StrAppend(&all, qualified, ":", digest[0].as<std::string>(), ":",
                      digest[1].as<std::string>(), "\n");
    }
    return all;
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("digesting schema ", schema, ": ", e.what()));
  }
}

void PgTest::SetUp() {
  absl::StatusOr<std::unique_ptr<PgTestDatabase>> database = PgTestDatabase::Create();
  ASSERT_TRUE(database.ok()) << database.status();
  database_ = *std::move(database);
}

std::optional<int64_t> PagesReadByPlan(absl::string_view explain_json) {
  int64_t pages = 0;
  for (absl::string_view name : {"\"Shared Hit Blocks\": ", "\"Shared Read Blocks\": "}) {
    const size_t at = explain_json.find(name);
    int64_t blocks = 0;
    if (at == absl::string_view::npos) return std::nullopt;
    absl::string_view digits = explain_json.substr(at + name.size());
    digits = digits.substr(0, digits.find_first_not_of("0123456789"));
    if (!absl::SimpleAtoi(digits, &blocks)) return std::nullopt;
    pages += blocks;
  }
  return pages;
}

}  // namespace parlor::testing
