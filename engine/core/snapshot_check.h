#ifndef PARLOR_ENGINE_CORE_SNAPSHOT_CHECK_H_
#define PARLOR_ENGINE_CORE_SNAPSHOT_CHECK_H_

// The kit a game's State::LoadImpl uses to validate its snapshot field by field. Every check
// returns OK or INVALID_ARGUMENT with the message "<field path>: <reason>", e.g.
//   "players[2].hand[5]: 61 is not a card (0..16)"
//   "current_seat: 7 is not a seat (0..3)"
//   "players: 3 entries; need exactly 2"
// so that every game refuses a damaged snapshot in the same words. A loader reads as a list of
// the snapshot's invariants:
//
//   using snapshot::Field;
//   PARLOR_RETURN_IF_ERROR(snapshot::Unpack(in, &proto));
//   PARLOR_RETURN_IF_ERROR(snapshot::CheckRange(Field("round"), proto.round(), 1, rounds_));
//   PARLOR_RETURN_IF_ERROR(snapshot::CheckSize(Field("players"), proto.players_size(), 2));
//   snapshot::IdSet cards("card", 0, kNumCards - 1);
//   const Field player = Field("players")[seat];
//   for (int i = 0; i < p.hand_size(); ++i) {
//     PARLOR_RETURN_IF_ERROR(cards.Take(player("hand", i), p.hand(i)));
//   }
//   PARLOR_RETURN_IF_ERROR(cards.CheckAllTaken(player));
//
// The checks never look beyond the values they are given: they are cheap enough for every load.

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "engine/core/status_macros.h"
#include "google/protobuf/any.pb.h"
#include "google/protobuf/descriptor.h"

namespace parlor::engine::snapshot {

// The path of a field inside a snapshot message, in the proto's own names: "players[2].hand[5]".
// The default Field is the snapshot itself (its path is empty; errors about it read "snapshot:").
class Field {
 public:
  Field() = default;
  explicit Field(absl::string_view name) : path_(name) {}
  // An element of a repeated field: Field("dice", 3) is "dice[3]".
  Field(absl::string_view name, int64_t index) : Field(Field(name)[index]) {}

  // A sub-field: Field("players")[2]("hand") is "players[2].hand".
  Field operator()(absl::string_view name) const {
    return FromPath(path_.empty() ? std::string(name) : absl::StrCat(path_, ".", name));
  }
  // An element of a repeated sub-field: Field("players")[2]("hand", 5) is "players[2].hand[5]".
  Field operator()(absl::string_view name, int64_t index) const { return (*this)(name)[index]; }
  // An element of this repeated field.
  Field operator[](int64_t index) const { return FromPath(absl::StrCat(path_, "[", index, "]")); }

  // "snapshot" for the snapshot itself.
  absl::string_view path() const {
    return path_.empty() ? absl::string_view("snapshot") : absl::string_view(path_);
  }

 private:
  static Field FromPath(std::string path) {
    Field field;
    field.path_ = std::move(path);
    return field;
  }
  std::string path_;
};

// INVALID_ARGUMENT "<field>: <reason>".
absl::Status Invalid(const Field& field, absl::string_view reason);
// Invalid(field, reason) unless `ok`.
absl::Status Require(bool ok, const Field& field, absl::string_view reason);

// Unpacks the Any into the game's snapshot message: "snapshot: not a <full message name>" for
// another type or bytes that do not parse.
absl::Status UnpackInto(const google::protobuf::Any& in, google::protobuf::Message* out);
template <typename Message>
absl::Status Unpack(const google::protobuf::Any& in, Message* out) {
  return UnpackInto(in, out);
}

// `value` in lo..hi: "round: 7 is not in 1..6".
absl::Status CheckRange(const Field& field, int64_t value, int64_t lo, int64_t hi);
// `value` in lo..hi, naming what it counts: "dice[3]: 9 is not a face (1..6)".
absl::Status CheckRange(const Field& field, int64_t value, int64_t lo, int64_t hi,
                        absl::string_view what);
// A seat of a game of `num_players`: "current_seat: 7 is not a seat (0..3)".
absl::Status CheckSeat(const Field& field, int64_t value, int num_players);
// A seat or -1 for none: "last_player: 7 is not a seat (0..3) or -1 for none".
absl::Status CheckSeatOrNone(const Field& field, int64_t value, int num_players);
// A stored enum value (or its integer) among lo..hi: "phase: 9 is not a known value (1..5)".
absl::Status CheckEnum(const Field& field, int64_t value, int64_t lo, int64_t hi);
// Only the bits of `allowed` set: "held: bits 0x20 are not allowed (mask 0x1f)".
absl::Status CheckBits(const Field& field, uint64_t value, uint64_t allowed);

// Sizes of repeated fields: "players: 3 entries; need exactly 2", "stack: 40 entries; at most
// 36", "tricks: 0 entries; need 1..9".
absl::Status CheckSize(const Field& field, int64_t size, int64_t want);
absl::Status CheckMaxSize(const Field& field, int64_t size, int64_t max);
absl::Status CheckSizeRange(const Field& field, int64_t size, int64_t lo, int64_t hi);

// Every element of a repeated field in lo..hi (CheckRange on each, naming the element):
// "dice[3]: 9 is not a face (1..6)".
template <typename Values>
absl::Status CheckEachInRange(const Field& field, const Values& values, int64_t lo, int64_t hi,
                              absl::string_view what) {
  int64_t i = 0;
  for (const auto& v : values) {
    if (absl::Status s = CheckRange(field[i++], static_cast<int64_t>(v), lo, hi, what); !s.ok()) {
      return s;
    }
  }
  return absl::OkStatus();
}

// The first refusal among checks that do not depend on each other (all are evaluated: use it
// only for checks that are safe whatever the others found, such as ranges of scalar fields).
absl::Status FirstError(std::initializer_list<absl::Status> checks);

// Strictly ascending values (hence no repeats): "snatch_set[2]: 7 does not follow 9 in
// ascending order".
template <typename Values>
absl::Status CheckAscending(const Field& field, const Values& values) {
  int64_t i = 0;
  bool first = true;
  int64_t previous = 0;
  for (const auto& v : values) {
    if (!first && static_cast<int64_t>(v) <= previous) {
      return Invalid(field[i], absl::StrCat(static_cast<int64_t>(v), " does not follow ", previous,
                                            " in ascending order"));
    }
    previous = static_cast<int64_t>(v);
    first = false;
    ++i;
  }
  return absl::OkStatus();
}

// Identifiers (cards, tiles, seats) lo..hi that may each be used once: uniqueness across any
// number of fields, and permutations when every one must be used.
//   IdSet tiles("tile", 1, 36);
//   tiles.Take(Field("stack")[0], 37)   -> "stack[0]: 37 is not a tile (1..36)"
//   tiles.Take(Field("pool")[2], 5)     -> "pool[2]: tile 5 appears twice"
//   tiles.CheckAllTaken(Field())        -> "snapshot: tiles 4, 9 are missing"
class IdSet {
 public:
  IdSet(absl::string_view what, int64_t lo, int64_t hi);

  // Marks `id` as used: INVALID_ARGUMENT when it is out of range or already used.
  absl::Status Take(const Field& field, int64_t id);
  // Take on every element of a repeated field.
  template <typename Values>
  absl::Status TakeEach(const Field& field, const Values& values) {
    int64_t i = 0;
    for (const auto& v : values) {
      if (absl::Status s = Take(field[i++], static_cast<int64_t>(v)); !s.ok()) return s;
    }
    return absl::OkStatus();
  }
  // Every id lo..hi has been taken; the message lists the first missing ones.
  absl::Status CheckAllTaken(const Field& field) const;

  bool Contains(int64_t id) const { return id >= lo_ && id <= hi_ && taken_[id - lo_]; }
  int64_t size() const { return count_; }

 private:
  std::string what_;
  int64_t lo_;
  int64_t hi_;
  std::vector<bool> taken_;
  int64_t count_ = 0;
};

}  // namespace parlor::engine::snapshot

#endif  // PARLOR_ENGINE_CORE_SNAPSHOT_CHECK_H_
