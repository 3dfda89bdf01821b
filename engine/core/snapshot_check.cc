#include "engine/core/snapshot_check.h"

#include "absl/strings/str_join.h"
#include "google/protobuf/message.h"

namespace parlor::engine::snapshot {

absl::Status Invalid(const Field& field, absl::string_view reason) {
  return absl::InvalidArgumentError(absl::StrCat(field.path(), ": ", reason));
}

absl::Status Require(bool ok, const Field& field, absl::string_view reason) {
  return ok ? absl::OkStatus() : Invalid(field, reason);
}

absl::Status UnpackInto(const google::protobuf::Any& in, google::protobuf::Message* out) {
  // UnpackTo checks the type name before it parses.
  if (in.UnpackTo(out)) return absl::OkStatus();
  return Invalid(Field(), absl::StrCat("not a ", out->GetDescriptor()->full_name()));
}

absl::Status CheckRange(const Field& field, int64_t value, int64_t lo, int64_t hi) {
  if (value >= lo && value <= hi) return absl::OkStatus();
  return Invalid(field, absl::StrCat(value, " is not in ", lo, "..", hi));
}

absl::Status CheckRange(const Field& field, int64_t value, int64_t lo, int64_t hi,
                        absl::string_view what) {
  if (value >= lo && value <= hi) return absl::OkStatus();
  return Invalid(field, absl::StrCat(value, " is not a ", what, " (", lo, "..", hi, ")"));
}

absl::Status CheckSeat(const Field& field, int64_t value, int num_players) {
  return CheckRange(field, value, 0, num_players - 1, "seat");
}

absl::Status CheckSeatOrNone(const Field& field, int64_t value, int num_players) {
  if (value >= -1 && value < num_players) return absl::OkStatus();
  return Invalid(field,
                 absl::StrCat(value, " is not a seat (0..", num_players - 1, ") or -1 for none"));
}

absl::Status CheckEnum(const Field& field, int64_t value, int64_t lo, int64_t hi) {
  if (value >= lo && value <= hi) return absl::OkStatus();
  return Invalid(field, absl::StrCat(value, " is not a known value (", lo, "..", hi, ")"));
}

absl::Status CheckBits(const Field& field, uint64_t value, uint64_t allowed) {
  if ((value & ~allowed) == 0) return absl::OkStatus();
  return Invalid(field, absl::StrCat("bits 0x", absl::Hex(value & ~allowed),
                                     " are not allowed (mask 0x", absl::Hex(allowed), ")"));
}

absl::Status FirstError(std::initializer_list<absl::Status> checks) {
  for (const absl::Status& s : checks) {
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status CheckSize(const Field& field, int64_t size, int64_t want) {
  if (size == want) return absl::OkStatus();
  return Invalid(field, absl::StrCat(size, " entries; need exactly ", want));
}

absl::Status CheckMaxSize(const Field& field, int64_t size, int64_t max) {
  if (size <= max) return absl::OkStatus();
  return Invalid(field, absl::StrCat(size, " entries; at most ", max));
}

absl::Status CheckSizeRange(const Field& field, int64_t size, int64_t lo, int64_t hi) {
  if (size >= lo && size <= hi) return absl::OkStatus();
  return Invalid(field, absl::StrCat(size, " entries; need ", lo, "..", hi));
}

IdSet::IdSet(absl::string_view what, int64_t lo, int64_t hi)
    : what_(what), lo_(lo), hi_(hi), taken_(static_cast<size_t>(hi - lo + 1)) {}

absl::Status IdSet::Take(const Field& field, int64_t id) {
  if (id < lo_ || id > hi_) {
    return Invalid(field, absl::StrCat(id, " is not a ", what_, " (", lo_, "..", hi_, ")"));
  }
  if (taken_[id - lo_]) return Invalid(field, absl::StrCat(what_, " ", id, " appears twice"));
  taken_[id - lo_] = true;
  ++count_;
  return absl::OkStatus();
}

absl::Status IdSet::CheckAllTaken(const Field& field) const {
  if (count_ == hi_ - lo_ + 1) return absl::OkStatus();
  constexpr int kListed = 5;
  std::vector<int64_t> missing;
  for (int64_t id = lo_; id <= hi_ && static_cast<int>(missing.size()) < kListed; ++id) {
    if (!taken_[id - lo_]) missing.push_back(id);
  }
  const int64_t total = hi_ - lo_ + 1 - count_;
  return Invalid(field, absl::StrCat(total == 1 ? what_ : absl::StrCat(what_, "s"), " ",
                                     absl::StrJoin(missing, ", "), total > kListed ? ", ..." : "",
                                     total == 1 ? " is" : " are", " missing"));
}

}  // namespace parlor::engine::snapshot
