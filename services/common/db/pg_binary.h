#ifndef PARLOR_SERVICES_COMMON_DB_PG_BINARY_H_
#define PARLOR_SERVICES_COMMON_DB_PG_BINARY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace parlor {

// Type OIDs of PostgreSQL's built-in types, fixed in its catalog (pg_type.dat).
namespace pg_oid {
inline constexpr uint32_t kBool = 16;
inline constexpr uint32_t kInt8 = 20;
inline constexpr uint32_t kInt2 = 21;
inline constexpr uint32_t kInt4 = 23;
inline constexpr uint32_t kText = 25;
inline constexpr uint32_t kUuid = 2950;
inline constexpr uint32_t kJsonb = 3802;
inline constexpr uint32_t kInt4Array = 1007;  // _int4
inline constexpr uint32_t kInt8Array = 1016;  // _int8
}  // namespace pg_oid

// A one-dimensional array of composite values in PostgreSQL's binary form (array_recv and
// record_recv), bound as one parameter in binary format and cast in SQL ($1::schema.type[]).
// The server reads it without parsing text: no quoting on this side, and on the server no
// array_in / record_in scan and no text input of each field (a UUID is 16 bytes, a number its
// bytes in network order). The server checks every field's type OID against the composite's
// column and the number of fields against its columns, so a row built out of step with the type
// fails the statement ("binary data has type 23 (integer) instead of expected 21 (smallint) in
// record column 3", "wrong number of columns") instead of storing garbage.
//
//   PgBinaryRecordArray rows(type_oid);  // the composite's OID (to_regtype(...)::oid)
//   rows.Row().Uuid(id).Int8(version).TextOrNull(reason).EndRow();
//   std::string parameter = rows.Take();
class PgBinaryRecordArray {
 public:
  explicit PgBinaryRecordArray(uint32_t record_type) : record_type_(record_type) {}

  PgBinaryRecordArray& Row();
  void EndRow();

  // A UUID in its text form (32 hex digits, with or without the four hyphens); anything else
  // makes Take() fail (as the server's uuid_in would have refused it).
  PgBinaryRecordArray& Uuid(absl::string_view text);
  // Empty is NULL.
  PgBinaryRecordArray& UuidOrNull(absl::string_view text);
  PgBinaryRecordArray& Text(absl::string_view value);
  // Empty is NULL.
  PgBinaryRecordArray& TextOrNull(absl::string_view value);
  // A JSON document in its text form; the server parses it (jsonb_recv).
  PgBinaryRecordArray& Jsonb(absl::string_view json);
  PgBinaryRecordArray& Bool(bool value);
  // A value outside the column's range makes Take() fail (as the server's int2in / int4in would
  // have refused its text), rather than wrapping.
  PgBinaryRecordArray& Int2(int64_t value);
  PgBinaryRecordArray& Int4(int64_t value);
  PgBinaryRecordArray& Int8(int64_t value);
  PgBinaryRecordArray& Int8OrNull(const std::optional<int64_t>& value);
  PgBinaryRecordArray& Int4Array(const std::vector<int>& values);
  PgBinaryRecordArray& Int8Array(const std::vector<int64_t>& values);
  // A NULL field of a column of type `type`.
  PgBinaryRecordArray& Null(uint32_t type);

  int rows() const { return rows_; }
  // The whole array (the builder is empty afterwards), or INTERNAL naming the first value that
  // is not of its type.
  absl::StatusOr<std::string> Take();

 private:
  // Starts a field of `type` whose value is `length` bytes long (-1: NULL).
  void Field(uint32_t type, int32_t length);
  // Keeps the first error for Take(); the field becomes NULL.
  PgBinaryRecordArray& Fail(uint32_t type, absl::string_view what, absl::string_view value);

  uint32_t record_type_;
  std::string elements_;
  int rows_ = 0;
  // Where the current row's length word starts, and how many fields it has so far.
  size_t row_start_ = 0;
  int32_t fields_ = 0;
  absl::Status error_;
};

}  // namespace parlor

#endif  // PARLOR_SERVICES_COMMON_DB_PG_BINARY_H_
