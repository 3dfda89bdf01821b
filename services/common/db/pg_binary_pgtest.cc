// PgBinaryRecordArray as PostgreSQL reads it: every kind of field, NULLs, text that the text form
// would have to quote, the integers' extremes; and a row out of step with its type refused.
#include <cstdint>
#include <limits>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "pqxx/pqxx"
#include "services/common/db/pg_binary.h"
#include "tests/pg/pg_test_database.h"

namespace parlor {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class PgBinaryRecordArrayPgTest : public parlor::testing::PgTest {
 protected:
  void SetUp() override {
    PgTest::SetUp();
    connection_ = std::make_unique<pqxx::connection>(db_url());
    pqxx::work txn(*connection_);
    txn.exec0(
        "CREATE TYPE every_field AS (id UUID, name TEXT, small SMALLINT, mid INTEGER, "
        "big BIGINT, flag BOOLEAN, doc JSONB, ints INTEGER[], bigs BIGINT[])");
    type_ = txn.exec1("SELECT 'every_field'::regtype::oid")[0].as<uint32_t>();
    txn.commit();
  }

  // Each element of `array` as PostgreSQL prints its fields, one string per row.
  std::vector<std::string> Read(const std::string& array) {
    pqxx::work txn(*connection_);
    std::vector<std::string> rows;
    for (const pqxx::row& row : txn.exec_params(
             "SELECT concat_ws('|', coalesce(id::text, 'null'), coalesce(name, 'null'), "
             "coalesce(small::text, 'null'), coalesce(mid::text, 'null'), "
             "coalesce(big::text, 'null'), coalesce(flag::text, 'null'), "
             "coalesce(doc::text, 'null'), coalesce(ints::text, 'null'), "
             "coalesce(bigs::text, 'null')) FROM unnest($1::every_field[])",
             pqxx::binarystring(array))) {
      rows.push_back(row[0].as<std::string>());
    }
    return rows;
  }

  std::unique_ptr<pqxx::connection> connection_;
  uint32_t type_ = 0;
};

TEST_F(PgBinaryRecordArrayPgTest, EveryKindOfFieldReadsBackAsWritten) {
  PgBinaryRecordArray rows(type_);
  rows.Row()
      .Uuid("0f8fad5b-d9cb-469f-a165-70867728950e")
      .Text("quotes \" and \\ backslash, commas, (parens)\nnewline, ünïcode")
      .Int2(std::numeric_limits<int16_t>::min())
      .Int4(std::numeric_limits<int32_t>::max())
      .Int8(std::numeric_limits<int64_t>::min())
      .Bool(false)
      .Jsonb(R"({"kind": "your_turn", "n": [1, 2]})")
      .Int4Array({3, -1, 0})
      .Int8Array({int64_t{1} << 40})
      .EndRow();
  rows.Row()
      .UuidOrNull("")
      .TextOrNull("")
      .Null(pg_oid::kInt2)
      .Null(pg_oid::kInt4)
      .Int8OrNull(std::nullopt)
      .Null(pg_oid::kBool)
      .Null(pg_oid::kJsonb)
      .Int4Array({})
      .Null(pg_oid::kInt8Array)
      .EndRow();
  EXPECT_THAT(Read(*rows.Take()),
              ElementsAre("0f8fad5b-d9cb-469f-a165-70867728950e|quotes \" and \\ backslash, "
                          "commas, (parens)\nnewline, ünïcode|-32768|2147483647|"
                          "-9223372036854775808|false|{\"n\": [1, 2], \"kind\": \"your_turn\"}|"
                          "{3,-1,0}|{1099511627776}",
                          "null|null|null|null|null|null|null|{}|null"));
}

TEST_F(PgBinaryRecordArrayPgTest, AnEmptyArrayHasNoRows) {
  PgBinaryRecordArray rows(type_);
  EXPECT_THAT(Read(*rows.Take()), ::testing::IsEmpty());
}

TEST_F(PgBinaryRecordArrayPgTest, ARowOutOfStepWithItsTypeIsRefused) {
  PgBinaryRecordArray wrong_type(type_);
  // An INTEGER where the type has SMALLINT.
  wrong_type.Row().UuidOrNull("").TextOrNull("").Int4(1).Int4(1).Int8(1).Bool(true);
  wrong_type.Null(pg_oid::kJsonb).Int4Array({}).Int8Array({}).EndRow();
  try {
    Read(*wrong_type.Take());
    ADD_FAILURE() << "a field of the wrong type was read";
  } catch (const pqxx::sql_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("binary data has type 23 (integer) instead of expected 21"));
  }

  PgBinaryRecordArray too_few(type_);
  too_few.Row().UuidOrNull("").TextOrNull("").EndRow();
  try {
    Read(*too_few.Take());
    ADD_FAILURE() << "a row with too few fields was read";
  } catch (const pqxx::sql_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("wrong number of columns"));
  }
}

}  // namespace
}  // namespace parlor
