#include "services/ratings/domain/validation.h"

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/testing/status_matchers.h"

namespace parlor::ratings {
namespace {

using ::parlor::testing::StatusIs;
using ::testing::HasSubstr;

constexpr char kA[] = "00000000-0000-4000-8000-00000000000a";
constexpr char kB[] = "00000000-0000-4000-8000-00000000000b";
constexpr char kC[] = "00000000-0000-4000-8000-00000000000c";
constexpr char kD[] = "00000000-0000-4000-8000-00000000000d";

const absl::Time kNow = absl::FromUnixSeconds(1800000000);

GameResult Pico() {
  GameResult r;
  r.game_id = "game-1";
  r.game = "pico";
  r.ranked = true;
  r.seats = {{0, kA, 0}, {1, kB, 1}};
  r.placements = {{kB, 1}, {kA, 2}};
  r.finish_time = kNow - absl::Minutes(1);
  return r;
}

GameResult Doubles() {
  GameResult r = Pico();
  r.game = "picadice";
  r.seats = {{0, kA, 0}, {1, kB, 1}, {2, kC, 0}, {3, kD, 1}};
  r.placements = {{kA, 1}, {kB, 2}, {kC, 1}, {kD, 2}};
  return r;
}

absl::StatusOr<ValidatedResult> Validate(const GameResult& r, RejectReason* reason = nullptr) {
  static const model::LadderRegistry* ladders =
      new model::LadderRegistry(model::LadderRegistry::Default());
  return ValidateResult(r, *ladders, kNow, reason);
}

TEST(ValidationTest, AcceptsAndDerivesLadder) {
  absl::StatusOr<ValidatedResult> v = Validate(Pico());
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->ladder->name, "pico");
  EXPECT_EQ(v->seats[0].rank, 2);
  EXPECT_EQ(v->seats[1].rank, 1);
  EXPECT_EQ(v->digest.size(), 32u);
  absl::StatusOr<ValidatedResult> d = Validate(Doubles());
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->ladder->name, "picadice-doubles");
  EXPECT_EQ(d->seats[2].side, 0);
}

TEST(ValidationTest, DigestIgnoresPlacementOrderAndCaseButNotContent) {
  GameResult a = Pico();
  GameResult b = Pico();
  std::swap(b.placements[0], b.placements[1]);
  b.seats[0].account_id = "00000000-0000-4000-8000-00000000000A";
  b.ladder = "pico";
  EXPECT_EQ(Validate(a)->digest, Validate(b)->digest);
  GameResult c = Pico();
  c.placements = {{kA, 1}, {kB, 2}};
  EXPECT_NE(Validate(a)->digest, Validate(c)->digest);
  GameResult d = Pico();
  d.ranked = false;
  EXPECT_NE(Validate(a)->digest, Validate(d)->digest);
}

TEST(ValidationTest, RejectsBadFields) {
  RejectReason reason;
  GameResult r = Pico();
  r.game_id = "";
  EXPECT_THAT(Validate(r, &reason),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("game_id")));
  EXPECT_EQ(reason, RejectReason::kBadField);
  r = Pico();
  r.game_id = std::string(129, 'x');
  EXPECT_FALSE(Validate(r).ok());
  r = Pico();
  r.game = "Pico!";
  EXPECT_THAT(Validate(r, &reason),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("game")));
  r = Pico();
  r.finish_time = absl::InfinitePast();
  EXPECT_THAT(Validate(r), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("finish_time")));
  r.finish_time = kNow + absl::Hours(1);
  EXPECT_THAT(Validate(r), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("future")));
}

TEST(ValidationTest, RejectsUnknownGameAndWrongLadder) {
  RejectReason reason;
  GameResult r = Pico();
  r.game = "chess";
  EXPECT_THAT(Validate(r, &reason),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not rated")));
  EXPECT_EQ(reason, RejectReason::kUnknownGame);
  r = Pico();
  r.ladder = "pict";
  EXPECT_THAT(Validate(r, &reason),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("pico")));
  EXPECT_EQ(reason, RejectReason::kUnknownGame);
  r = Doubles();
  r.game = "pico";
  EXPECT_FALSE(Validate(r).ok());
}

TEST(ValidationTest, RejectsBadSeats) {
  RejectReason reason;
  GameResult r = Pico();
  r.seats[1].seat = 2;
  EXPECT_THAT(Validate(r, &reason),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("order")));
  EXPECT_EQ(reason, RejectReason::kBadSeats);
  r = Pico();
  r.seats[1].account_id = kA;
  EXPECT_THAT(Validate(r), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("twice")));
  r = Pico();
  r.seats[1].account_id = "bot";
  EXPECT_THAT(Validate(r),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("seats[1].account_id")));
  r = Pico();
  r.seats.pop_back();
  EXPECT_FALSE(Validate(r).ok());
  r = Pico();
  r.seats[1].team = 7;
  EXPECT_FALSE(Validate(r).ok());
}

TEST(ValidationTest, RejectsPlacementsThatDoNotMatchTheSeats) {
  RejectReason reason;
  GameResult r = Pico();
  r.placements[0].account_id = kC;  // not seated
  EXPECT_THAT(Validate(r, &reason),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not seated")));
  EXPECT_EQ(reason, RejectReason::kBadPlacements);
  r = Pico();
  r.placements.pop_back();
  EXPECT_THAT(Validate(r), StatusIs(absl::StatusCode::kInvalidArgument,
                                    HasSubstr("one entry per seat: 2 seats, got 1")));
  r = Pico();
  r.placements[0].account_id = kA;
  EXPECT_THAT(Validate(r),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("two placements")));
  r = Pico();
  r.placements[0].rank = 3;
  EXPECT_THAT(Validate(r), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("rank")));
  r = Pico();
  r.placements[0].rank = 0;
  EXPECT_FALSE(Validate(r).ok());
  r = Doubles();
  r.placements[2].rank = 2;  // team-mates of team 0 disagree
  EXPECT_THAT(Validate(r), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("team 0")));
}

TEST(ValidationTest, AccountIdsAndSeasonIds) {
  EXPECT_TRUE(CanonicalAccountId(kA, "x").ok());
  EXPECT_EQ(*CanonicalAccountId("ABCDEF00-0000-4000-8000-00000000000A", "x"),
            "abcdef00-0000-4000-8000-00000000000a");
  EXPECT_FALSE(CanonicalAccountId("", "x").ok());
  EXPECT_FALSE(CanonicalAccountId("00000000-0000-4000-8000-00000000000g", "x").ok());
  EXPECT_FALSE(CanonicalAccountId("00000000000040008000000000000000000a", "x").ok());
  EXPECT_TRUE(ValidSeasonId("s1"));
  EXPECT_TRUE(ValidSeasonId("2026-spring"));
  EXPECT_FALSE(ValidSeasonId(""));
  EXPECT_FALSE(ValidSeasonId("-x"));
  EXPECT_FALSE(ValidSeasonId("S1"));
  EXPECT_FALSE(ValidSeasonId(std::string(33, 'a')));
}

}  // namespace
}  // namespace parlor::ratings
