#include "services/common/db/pg_binary.h"

#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"

namespace parlor {
namespace {

// Appends `value`'s low `bytes` bytes in network order (PostgreSQL's pq_sendint*).
void Put(std::string& out, uint64_t value, int bytes) {
  for (int shift = (bytes - 1) * 8; shift >= 0; shift -= 8) {
    out.push_back(static_cast<char>((value >> shift) & 0xff));
  }
}

void PutInt32(std::string& out, int64_t value) { Put(out, static_cast<uint64_t>(value), 4); }

void PatchInt32(std::string& out, size_t at, int64_t value) {
  for (int i = 0; i < 4; ++i) {
    out[at + i] = static_cast<char>((static_cast<uint64_t>(value) >> ((3 - i) * 8)) & 0xff);
  }
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// A one-dimensional array header (array_recv): dimensions, has-nulls flag, element type, and for
// a non-empty array its length and lower bound.
void PutArrayHeader(std::string& out, uint32_t element_type, size_t length) {
  PutInt32(out, length == 0 ? 0 : 1);
  PutInt32(out, 0);
  Put(out, element_type, 4);
  if (length > 0) {
    PutInt32(out, static_cast<int64_t>(length));
    PutInt32(out, 1);
  }
}

template <typename Int>
std::string IntArray(const std::vector<Int>& values, uint32_t element_type, int bytes) {
  std::string out;
  PutArrayHeader(out, element_type, values.size());
  for (Int value : values) {
    PutInt32(out, bytes);
    Put(out, static_cast<uint64_t>(static_cast<int64_t>(value)), bytes);
  }
  return out;
}

}  // namespace

PgBinaryRecordArray& PgBinaryRecordArray::Row() {
  ++rows_;
  row_start_ = elements_.size();
  PutInt32(elements_, 0);  // the element's length, set by EndRow
  PutInt32(elements_, 0);  // its number of fields, set by EndRow
  fields_ = 0;
  return *this;
}

void PgBinaryRecordArray::EndRow() {
  PatchInt32(elements_, row_start_, static_cast<int64_t>(elements_.size() - row_start_ - 4));
  PatchInt32(elements_, row_start_ + 4, fields_);
}

void PgBinaryRecordArray::Field(uint32_t type, int32_t length) {
  ++fields_;
  Put(elements_, type, 4);
  PutInt32(elements_, length);
}

PgBinaryRecordArray& PgBinaryRecordArray::Uuid(absl::string_view text) {
  std::string bytes;
  const bool hyphens = text.size() == 36;
  bool valid = hyphens || text.size() == 32;
  for (size_t i = 0; valid && i < text.size();) {
    if (hyphens && (i == 8 || i == 13 || i == 18 || i == 23)) {
      valid = text[i++] == '-';
      continue;
    }
    const int high = HexValue(text[i]);
    const int low = HexValue(text[i + 1]);
    valid = high >= 0 && low >= 0;
    bytes.push_back(static_cast<char>(high * 16 + low));
    i += 2;
  }
  if (!valid) return Fail(pg_oid::kUuid, "a UUID", absl::StrCat("\"", text.substr(0, 40), "\""));
  Field(pg_oid::kUuid, 16);
  elements_ += bytes;
  return *this;
}

PgBinaryRecordArray& PgBinaryRecordArray::UuidOrNull(absl::string_view text) {
  return text.empty() ? Null(pg_oid::kUuid) : Uuid(text);
}

PgBinaryRecordArray& PgBinaryRecordArray::Text(absl::string_view value) {
  Field(pg_oid::kText, static_cast<int32_t>(value.size()));
  elements_.append(value.data(), value.size());
  return *this;
}

PgBinaryRecordArray& PgBinaryRecordArray::TextOrNull(absl::string_view value) {
  return value.empty() ? Null(pg_oid::kText) : Text(value);
}

PgBinaryRecordArray& PgBinaryRecordArray::Jsonb(absl::string_view json) {
  Field(pg_oid::kJsonb, static_cast<int32_t>(json.size() + 1));
  elements_.push_back(1);  // jsonb's binary format version: the JSON text follows
  elements_.append(json.data(), json.size());
  return *this;
}

PgBinaryRecordArray& PgBinaryRecordArray::Bool(bool value) {
  Field(pg_oid::kBool, 1);
  elements_.push_back(value ? 1 : 0);
  return *this;
}

PgBinaryRecordArray& PgBinaryRecordArray::Int2(int64_t value) {
  if (value < std::numeric_limits<int16_t>::min() || value > std::numeric_limits<int16_t>::max()) {
    return Fail(pg_oid::kInt2, "a smallint", absl::StrCat(value));
  }
  Field(pg_oid::kInt2, 2);
  Put(elements_, static_cast<uint64_t>(value), 2);
  return *this;
}

PgBinaryRecordArray& PgBinaryRecordArray::Int4(int64_t value) {
  if (value < std::numeric_limits<int32_t>::min() || value > std::numeric_limits<int32_t>::max()) {
    return Fail(pg_oid::kInt4, "an integer", absl::StrCat(value));
  }
  Field(pg_oid::kInt4, 4);
  PutInt32(elements_, value);
  return *this;
}

PgBinaryRecordArray& PgBinaryRecordArray::Int8(int64_t value) {
  Field(pg_oid::kInt8, 8);
  Put(elements_, static_cast<uint64_t>(value), 8);
  return *this;
}

PgBinaryRecordArray& PgBinaryRecordArray::Int8OrNull(const std::optional<int64_t>& value) {
  return value ? Int8(*value) : Null(pg_oid::kInt8);
}

PgBinaryRecordArray& PgBinaryRecordArray::Int4Array(const std::vector<int>& values) {
  const std::string array = IntArray(values, pg_oid::kInt4, 4);
  Field(pg_oid::kInt4Array, static_cast<int32_t>(array.size()));
  elements_ += array;
  return *this;
}

PgBinaryRecordArray& PgBinaryRecordArray::Int8Array(const std::vector<int64_t>& values) {
  const std::string array = IntArray(values, pg_oid::kInt8, 8);
  Field(pg_oid::kInt8Array, static_cast<int32_t>(array.size()));
  elements_ += array;
  return *this;
}

PgBinaryRecordArray& PgBinaryRecordArray::Fail(uint32_t type, absl::string_view what,
                                               absl::string_view value) {
  if (error_.ok()) {
    error_ = absl::InternalError(
        absl::StrCat("field ", fields_ + 1, " of row ", rows_, " is not ", what, ": ", value));
  }
  return Null(type);
}

PgBinaryRecordArray& PgBinaryRecordArray::Null(uint32_t type) {
  Field(type, -1);
  return *this;
}

absl::StatusOr<std::string> PgBinaryRecordArray::Take() {
  if (!error_.ok()) {
    elements_.clear();
    rows_ = 0;
    return std::exchange(error_, absl::OkStatus());
  }
  std::string out;
  out.reserve(20 + elements_.size());
  PutArrayHeader(out, record_type_, static_cast<size_t>(rows_));
  out += elements_;
  elements_.clear();
  rows_ = 0;
  return out;
}

}  // namespace parlor
