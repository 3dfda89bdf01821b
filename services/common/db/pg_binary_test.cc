// PgBinaryRecordArray against PostgreSQL's binary formats (array_recv, record_recv), byte by byte.
// pg_binary_pgtest.cc checks the same arrays as a real server reads them.
#include "services/common/db/pg_binary.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/testing/status_matchers.h"

namespace parlor {
namespace {

using ::parlor::testing::StatusIs;
using ::testing::HasSubstr;

std::string Bytes(std::initializer_list<int> bytes) {
  std::string out;
  for (int b : bytes) out.push_back(static_cast<char>(b));
  return out;
}

TEST(PgBinaryRecordArrayTest, AnEmptyArrayIsNoDimensionsAndItsElementType) {
  PgBinaryRecordArray rows(16401);
  // ndim 0, no nulls, element type 16401 (0x4011).
  EXPECT_EQ(*rows.Take(), Bytes({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x40, 0x11}));
}

TEST(PgBinaryRecordArrayTest, ARowIsItsLengthItsFieldCountAndEachFieldsTypeLengthAndBytes) {
  PgBinaryRecordArray rows(16401);
  rows.Row().Int4(-2).Bool(true).TextOrNull("").EndRow();
  EXPECT_EQ(rows.rows(), 1);
  const std::string header =
      Bytes({0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0x40, 0x11, 0, 0, 0, 1, 0, 0, 0, 1});
  const std::string row =
      Bytes({0, 0, 0, 3,                                                  // three fields
             0, 0, 0, 23, 0,    0,    0,    4,   0xff, 0xff, 0xff, 0xfe,  // int4 -2
             0, 0, 0, 16, 0,    0,    0,    1,   1,                       // bool true
             0, 0, 0, 25, 0xff, 0xff, 0xff, 0xff});                       // text NULL
  EXPECT_EQ(*rows.Take(), header + Bytes({0, 0, 0, static_cast<int>(row.size())}) + row);
}

TEST(PgBinaryRecordArrayTest, NumbersAreInNetworkOrderAtTheirColumnsWidth) {
  PgBinaryRecordArray rows(1);
  rows.Row().Int2(0x0102).Int8(0x0102030405060708).EndRow();
  const std::string out = *rows.Take();
  EXPECT_EQ(out.substr(out.size() - 26), Bytes({0, 0, 0, 21, 0, 0, 0, 2, 1, 2,  //
                                                0, 0, 0, 20, 0, 0, 0, 8, 1, 2, 3, 4, 5, 6, 7, 8}));
}

TEST(PgBinaryRecordArrayTest, AUuidIsItsSixteenBytesWithOrWithoutHyphens) {
  PgBinaryRecordArray hyphens(1), plain(1);
  hyphens.Row().Uuid("00112233-4455-6677-8899-AABBCCDDEEFF").EndRow();
  plain.Row().Uuid("00112233445566778899aabbccddeeff").EndRow();
  const std::string out = *hyphens.Take();
  EXPECT_EQ(out, *plain.Take());
  EXPECT_EQ(out.substr(out.size() - 24),
            Bytes({0,    0,    0x0b, 0x86, 0,    0,    0,    16,   0x00, 0x11, 0x22, 0x33,
                   0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff}));
}

TEST(PgBinaryRecordArrayTest, SomethingElseWhereAUuidBelongsFailsTheArrayNamingIt) {
  for (const char* bad : {"not-a-uuid", "00112233-4455-6677-8899-AABBCCDDEEFG",
                          "00112233+4455-6677-8899-AABBCCDDEEFF", "0011223344556677"}) {
    PgBinaryRecordArray rows(1);
    rows.Row().Int4(1).Uuid(bad).EndRow();
    EXPECT_THAT(rows.Take(), StatusIs(absl::StatusCode::kInternal,
                                      HasSubstr(absl::StrCat("field 2 of row 1 is not a UUID: \"",
                                                             std::string(bad).substr(0, 40)))))
        << bad;
    // The builder starts again empty.
    EXPECT_EQ(rows.rows(), 0);
    EXPECT_EQ(rows.Take()->size(), 12u);
  }
}

TEST(PgBinaryRecordArrayTest, ANumberOutsideItsColumnsRangeFailsTheArrayInsteadOfWrapping) {
  PgBinaryRecordArray small(1);
  small.Row().Int2(32767).Int2(-32768).Int2(32768).EndRow();
  EXPECT_THAT(small.Take(), StatusIs(absl::StatusCode::kInternal,
                                     HasSubstr("field 3 of row 1 is not a smallint: 32768")));
  PgBinaryRecordArray mid(1);
  mid.Row().EndRow();
  mid.Row().Int4(int64_t{1} << 31).EndRow();
  EXPECT_THAT(mid.Take(), StatusIs(absl::StatusCode::kInternal,
                                   HasSubstr("field 1 of row 2 is not an integer: 2147483648")));
}

TEST(PgBinaryRecordArrayTest, JsonbIsItsFormatVersionThenTheText) {
  PgBinaryRecordArray rows(1);
  rows.Row().Jsonb("{}").EndRow();
  const std::string out = *rows.Take();
  EXPECT_EQ(out.substr(out.size() - 11), Bytes({0, 0, 0x0e, 0xda, 0, 0, 0, 3, 1, '{', '}'}));
}

TEST(PgBinaryRecordArrayTest, AnIntegerArrayFieldIsANestedBinaryArray) {
  PgBinaryRecordArray rows(1);
  rows.Row().Int4Array({7}).EndRow();
  const std::string out = *rows.Take();
  EXPECT_EQ(out.substr(out.size() - 36),
            Bytes({0, 0, 0x03, 0xef, 0, 0, 0, 28,  // int4[], 28 bytes
                   0, 0, 0,    1,    0, 0, 0, 0,  0, 0, 0, 23, 0, 0, 0, 1, 0, 0, 0, 1,  // header
                   0, 0, 0,    4,    0, 0, 0, 7}));
}

}  // namespace
}  // namespace parlor
