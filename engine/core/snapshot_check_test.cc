#include "engine/core/snapshot_check.h"

#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "google/protobuf/any.pb.h"
#include "google/protobuf/wrappers.pb.h"
#include "gtest/gtest.h"

namespace parlor::engine::snapshot {
namespace {

// The refusal a loader returns: INVALID_ARGUMENT with exactly this message.
void ExpectRefused(const absl::Status& status, absl::string_view message) {
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_EQ(status.message(), message);
}

TEST(SnapshotCheckTest, FieldPathsReadLikeTheProto) {
  EXPECT_EQ(Field().path(), "snapshot");
  EXPECT_EQ(Field("round").path(), "round");
  EXPECT_EQ(Field("players")[2]("hand", 5).path(), "players[2].hand[5]");
  EXPECT_EQ(Field("snatch")("claims", 1)("tile_ids").path(), "snatch.claims[1].tile_ids");
  EXPECT_EQ(Field("dice", 3).path(), "dice[3]");
  EXPECT_EQ(Field()("round").path(), "round");
}

TEST(SnapshotCheckTest, ARefusalNamesTheFieldThenTheReason) {
  ExpectRefused(Invalid(Field("won"), "does not match the tricks"),
                "won: does not match the tricks");
  EXPECT_TRUE(Require(true, Field("won"), "never said").ok());
  ExpectRefused(Require(false, Field("won"), "does not match"), "won: does not match");
}

TEST(SnapshotCheckTest, RangesSeatsAndEnums) {
  EXPECT_TRUE(CheckRange(Field("round"), 1, 1, 6).ok());
  EXPECT_TRUE(CheckRange(Field("round"), 6, 1, 6).ok());
  ExpectRefused(CheckRange(Field("round"), 7, 1, 6), "round: 7 is not in 1..6");
  ExpectRefused(CheckRange(Field("round"), 0, 1, 6), "round: 0 is not in 1..6");
  ExpectRefused(CheckRange(Field("dice", 3), 9, 1, 6, "face"), "dice[3]: 9 is not a face (1..6)");
  EXPECT_TRUE(CheckSeat(Field("current_seat"), 3, 4).ok());
  ExpectRefused(CheckSeat(Field("current_seat"), 7, 4), "current_seat: 7 is not a seat (0..3)");
  ExpectRefused(CheckSeat(Field("current_seat"), -1, 4), "current_seat: -1 is not a seat (0..3)");
  EXPECT_TRUE(CheckSeatOrNone(Field("last_player"), -1, 4).ok());
  ExpectRefused(CheckSeatOrNone(Field("last_player"), -2, 4),
                "last_player: -2 is not a seat (0..3) or -1 for none");
  ExpectRefused(CheckEnum(Field("phase"), 9, 1, 5), "phase: 9 is not a known value (1..5)");
  EXPECT_TRUE(CheckBits(Field("held"), 0x1f, 0x1f).ok());
  ExpectRefused(CheckBits(Field("held"), 0x3f, 0x1f),
                "held: bits 0x20 are not allowed (mask 0x1f)");
}

TEST(SnapshotCheckTest, SizesOfRepeatedFields) {
  EXPECT_TRUE(CheckSize(Field("players"), 2, 2).ok());
  ExpectRefused(CheckSize(Field("players"), 3, 2), "players: 3 entries; need exactly 2");
  EXPECT_TRUE(CheckMaxSize(Field("stack"), 36, 36).ok());
  ExpectRefused(CheckMaxSize(Field("stack"), 40, 36), "stack: 40 entries; at most 36");
  ExpectRefused(CheckSizeRange(Field("tricks"), 0, 1, 9), "tricks: 0 entries; need 1..9");
  EXPECT_TRUE(CheckSizeRange(Field("tricks"), 9, 1, 9).ok());
}

TEST(SnapshotCheckTest, EachElementOfARepeatedFieldIsNamed) {
  EXPECT_TRUE(CheckEachInRange(Field("dice"), std::vector<int>{1, 6, 3}, 1, 6, "face").ok());
  ExpectRefused(CheckEachInRange(Field("dice"), std::vector<int>{1, 6, 9}, 1, 6, "face"),
                "dice[2]: 9 is not a face (1..6)");
  IdSet cards("card", 0, 3);
  EXPECT_TRUE(cards.TakeEach(Field("deck"), std::vector<int>{2, 0}).ok());
  ExpectRefused(cards.TakeEach(Field("discard"), std::vector<int>{1, 2}),
                "discard[1]: card 2 appears twice");
}

TEST(SnapshotCheckTest, FirstErrorIsTheFirstRefusalInOrder) {
  EXPECT_TRUE(FirstError({absl::OkStatus(), CheckSeat(Field("dealer"), 1, 2)}).ok());
  ExpectRefused(FirstError({CheckSeat(Field("dealer"), 1, 2), CheckRange(Field("round"), 0, 1, 3),
                            CheckSeat(Field("current"), 5, 2)}),
                "round: 0 is not in 1..3");
}

TEST(SnapshotCheckTest, AscendingMeansStrictlyIncreasing) {
  EXPECT_TRUE(CheckAscending(Field("set"), std::vector<int>{}).ok());
  EXPECT_TRUE(CheckAscending(Field("set"), std::vector<int>{1, 4, 9}).ok());
  ExpectRefused(CheckAscending(Field("set"), std::vector<int>{1, 9, 7}),
                "set[2]: 7 does not follow 9 in ascending order");
  ExpectRefused(CheckAscending(Field("set"), std::vector<int>{4, 4}),
                "set[1]: 4 does not follow 4 in ascending order");
}

TEST(SnapshotCheckTest, AnIdSetRefusesStrangersAndRepeatsAndNamesTheMissing) {
  IdSet tiles("tile", 1, 36);
  ExpectRefused(tiles.Take(Field("stack", 0), 37), "stack[0]: 37 is not a tile (1..36)");
  ExpectRefused(tiles.Take(Field("stack", 0), 0), "stack[0]: 0 is not a tile (1..36)");
  EXPECT_TRUE(tiles.Take(Field("stack", 0), 5).ok());
  EXPECT_TRUE(tiles.Contains(5));
  EXPECT_FALSE(tiles.Contains(6));
  EXPECT_FALSE(tiles.Contains(99));
  ExpectRefused(tiles.Take(Field("pool", 2), 5), "pool[2]: tile 5 appears twice");
  EXPECT_EQ(tiles.size(), 1);
  for (int t = 1; t <= 36; ++t) {
    if (t != 4 && t != 9 && t != 5) {
      ASSERT_TRUE(tiles.Take(Field("stack", t), t).ok());
    }
  }
  ExpectRefused(tiles.CheckAllTaken(Field()), "snapshot: tiles 4, 9 are missing");
  EXPECT_TRUE(tiles.Take(Field("pool", 0), 4).ok());
  ExpectRefused(tiles.CheckAllTaken(Field("pool")), "pool: tile 9 is missing");
  EXPECT_TRUE(tiles.Take(Field("pool", 1), 9).ok());
  EXPECT_TRUE(tiles.CheckAllTaken(Field()).ok());

  IdSet cards("card", 0, 16);
  ExpectRefused(cards.CheckAllTaken(Field("players", 1)),
                "players[1]: cards 0, 1, 2, 3, 4, ... are missing");
}

TEST(SnapshotCheckTest, UnpackRefusesAnotherMessageAndBrokenBytes) {
  google::protobuf::Int32Value value;
  value.set_value(7);
  google::protobuf::Any any;
  any.PackFrom(value);
  google::protobuf::Int32Value out;
  ASSERT_TRUE(Unpack(any, &out).ok());
  EXPECT_EQ(out.value(), 7);

  google::protobuf::Any other;
  other.PackFrom(google::protobuf::StringValue());
  ExpectRefused(Unpack(other, &out), "snapshot: not a google.protobuf.Int32Value");
  google::protobuf::Any broken = any;
  broken.set_value("\xff\xff\xff");
  ExpectRefused(Unpack(broken, &out), "snapshot: not a google.protobuf.Int32Value");
}

absl::Status TwoChecks(int round, int seat) {
  PARLOR_RETURN_IF_ERROR(CheckRange(Field("round"), round, 1, 3));
  PARLOR_RETURN_IF_ERROR(CheckSeat(Field("seat"), seat, 2));
  return absl::OkStatus();
}

TEST(SnapshotCheckTest, ReturnIfErrorStopsAtTheFirstRefusal) {
  EXPECT_TRUE(TwoChecks(1, 1).ok());
  ExpectRefused(TwoChecks(9, 9), "round: 9 is not in 1..3");
  ExpectRefused(TwoChecks(2, 9), "seat: 9 is not a seat (0..1)");
}

}  // namespace
}  // namespace parlor::engine::snapshot
