// The API's messages to and from the sessions domain's types (mapping.h): every field of a game's
// summary reaches the Game message, a request reaches the domain field by field (presence
// included), and a time control survives the trip through the domain's check.
#include "services/sessions/api/mapping.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/testing/status_matchers.h"
#include "services/sessions/domain/time_control.h"

namespace parlor::sessions {
namespace {

using ::testing::ElementsAre;

constexpr char kGame[] = "00000000-0000-4000-8000-000000000001";
constexpr char kAlice[] = "00000000-0000-4000-8000-00000000a11c";
const absl::Time kStart = absl::FromUnixSeconds(1'800'000'000);

GameSummary FinishedRematch() {
  GameSummary g;
  g.game_id = kGame;
  g.game = "pico";
  g.options = {{"rounds", "2"}};
  g.ranked = true;
  g.finished = true;
  g.version = 7;
  SeatSummary& alice = g.seats.emplace_back();
  alice.seat = 0;
  alice.account_id = kAlice;
  alice.display_name = "Alice";
  alice.time_bank_remaining = absl::Milliseconds(90'500);
  alice.vacation_used = absl::Hours(2);
  alice.vacation_until = kStart + absl::Hours(5);
  alice.timeouts_in_a_row = 1;
  SeatSummary& bot = g.seats.emplace_back();
  bot.seat = 1;
  bot.team = 1;
  bot.bot = "greedy";
  bot.display_name = "Computer (greedy)";
  bot.forfeited = true;
  g.my_seat = 0;
  g.time_control.kind = TimeControlRow::Kind::kTimeBank;
  g.time_control.bank_initial_s = 86400;
  g.time_control.bank_increment_s = 3600;
  g.seed_commitment = "c0ffee";
  g.seed = "5eed";
  g.outcome = Outcome{{1, 2}, {5, 3}, "both rounds played"};
  g.create_time = kStart;
  g.update_time = kStart + absl::Microseconds(1'500'001);
  g.match_id = "rematch:x";
  g.is_public = true;
  g.rematch_of = "x";
  g.seen_version = 5;
  g.unseen_versions = 2;
  HistoryEvent last;
  last.version = 7;
  last.kind = LogRow::Kind::kForfeit;
  last.cause = LogRow::Cause::kTimeout;
  last.seat = 1;
  last.description = "seat 1 forfeited";
  last.time = kStart + absl::Seconds(9);
  g.last_move = last;
  return g;
}

TEST(MappingTest, EveryFieldOfAFinishedGamesSummaryReachesTheGameMessage) {
  const v1::Game g = ToProto(FinishedRematch());
  EXPECT_EQ(g.game_id(), kGame);
  EXPECT_EQ(g.game(), "pico");
  EXPECT_EQ(g.options().at("rounds"), "2");
  EXPECT_TRUE(g.ranked());
  EXPECT_EQ(g.status(), v1::GAME_STATUS_FINISHED);
  EXPECT_EQ(g.version(), 7);
  ASSERT_EQ(g.seats_size(), 2);
  EXPECT_EQ(g.seats(0).account_id(), kAlice);
  EXPECT_EQ(g.seats(0).time_bank_remaining().seconds(), 90);
  EXPECT_EQ(g.seats(0).time_bank_remaining().nanos(), 500'000'000);
  EXPECT_EQ(g.seats(0).vacation_used().seconds(), 7200);
  EXPECT_EQ(g.seats(0).vacation_until().seconds(), 1'800'000'000 + 5 * 3600);
  EXPECT_EQ(g.seats(0).timeouts_in_a_row(), 1);
  EXPECT_EQ(g.seats(1).bot(), "greedy");
  EXPECT_EQ(g.seats(1).team(), 1);
  EXPECT_TRUE(g.seats(1).forfeited());
  EXPECT_FALSE(g.seats(1).has_time_bank_remaining());
  EXPECT_FALSE(g.seats(1).has_vacation_until());
  EXPECT_TRUE(g.acting_seats().empty());
  EXPECT_EQ(g.my_seat(), 0);
  EXPECT_FALSE(g.my_turn());
  EXPECT_EQ(g.time_control().time_bank().initial().seconds(), 86400);
  EXPECT_EQ(g.time_control().time_bank().increment().seconds(), 3600);
  EXPECT_FALSE(g.has_deadline());
  EXPECT_EQ(g.seed_commitment(), "c0ffee");
  EXPECT_EQ(g.seed(), "5eed");
  EXPECT_THAT(g.outcome().ranks(), ElementsAre(1, 2));
  EXPECT_THAT(g.outcome().scores(), ElementsAre(5, 3));
  EXPECT_EQ(g.outcome().reason(), "both rounds played");
  EXPECT_EQ(g.create_time().seconds(), 1'800'000'000);
  // Times to the microsecond, as the store keeps them.
  EXPECT_EQ(g.update_time().seconds(), 1'800'000'001);
  EXPECT_EQ(g.update_time().nanos(), 500'001'000);
  EXPECT_EQ(g.match_id(), "rematch:x");
  EXPECT_EQ(g.visibility(), v1::VISIBILITY_PUBLIC);
  EXPECT_EQ(g.rematch_of(), "x");
  EXPECT_EQ(g.seen_version(), 5);
  EXPECT_EQ(g.unseen_versions(), 2);
  EXPECT_EQ(g.last_move().kind(), v1::EVENT_KIND_FORFEIT);
  EXPECT_EQ(g.last_move().cause(), v1::EVENT_CAUSE_TIMEOUT);
  EXPECT_EQ(g.last_move().seat(), 1);
  EXPECT_EQ(g.last_move().description(), "seat 1 forfeited");
  // A last move carries no view, and an action only when the caller may know it.
  EXPECT_FALSE(g.last_move().has_view());
  EXPECT_FALSE(g.last_move().has_action());
}

TEST(MappingTest, ARunningPrivateGameShowsItsDeadlineAndNoOutcome) {
  GameSummary s = FinishedRematch();
  s.finished = false;
  s.seed.clear();
  s.outcome.reset();
  s.last_move.reset();
  s.is_public = false;
  s.acting_seats = {0};
  s.my_turn = true;
  s.deadline = kStart + absl::Hours(1);
  const v1::Game g = ToProto(s);
  EXPECT_EQ(g.status(), v1::GAME_STATUS_ACTIVE);
  EXPECT_EQ(g.visibility(), v1::VISIBILITY_PRIVATE);
  EXPECT_THAT(g.acting_seats(), ElementsAre(0));
  EXPECT_TRUE(g.my_turn());
  EXPECT_EQ(g.deadline().seconds(), 1'800'000'000 + 3600);
  EXPECT_TRUE(g.seed().empty());
  EXPECT_FALSE(g.has_outcome());
  EXPECT_FALSE(g.has_last_move());
}

TEST(MappingTest, ACreateGameRequestReachesTheDomainFieldByField) {
  v1::CreateGameRequest r;
  r.set_match_id("m1");
  r.set_game("pico");
  (*r.mutable_options())["rounds"] = "2";
  v1::SeatSpec* alice = r.add_seats();
  alice->set_account_id(kAlice);
  alice->set_display_name("Alice");
  alice->set_team(0);
  r.add_seats()->set_bot("random");
  r.set_ranked(true);
  r.set_visibility(v1::VISIBILITY_PUBLIC);
  CreateGameRequest m = FromProto(r);
  EXPECT_EQ(m.match_id, "m1");
  EXPECT_EQ(m.game, "pico");
  EXPECT_EQ(m.options.at("rounds"), "2");
  ASSERT_EQ(m.seats.size(), 2u);
  EXPECT_EQ(m.seats[0].account_id, kAlice);
  EXPECT_EQ(m.seats[0].team, 0);  // set to 0 is not unset
  EXPECT_FALSE(m.seats[1].team.has_value());
  EXPECT_EQ(m.seats[1].bot, "random");
  EXPECT_TRUE(m.ranked);
  EXPECT_EQ(m.visibility, kVisibilityPublic);
  EXPECT_FALSE(m.time_control.has_value());
  // The fingerprint tells a retry (the same request) from another request under the match id.
  const std::string first = m.fingerprint;
  EXPECT_EQ(FromProto(r).fingerprint, first);
  r.set_ranked(false);
  EXPECT_NE(FromProto(r).fingerprint, first);
  // An unknown enum number travels as it is, for the domain to refuse naming the field.
  r.set_visibility(static_cast<v1::Visibility>(7));
  EXPECT_EQ(FromProto(r).visibility, 7);
}

TEST(MappingTest, ATimeControlSurvivesTheDomainsCheckUnchanged) {
  v1::TimeControl bank;
  bank.mutable_time_bank()->mutable_initial()->set_seconds(86400);
  bank.mutable_time_bank()->mutable_increment()->set_seconds(3600);
  bank.set_vacation_days(2);
  v1::TimeControl per_move;
  per_move.mutable_per_move()->mutable_limit()->set_seconds(7 * 86400);
  for (const v1::TimeControl& tc : {bank, per_move}) {
    absl::StatusOr<TimeControlRow> row = ParseTimeControl(FromProto(tc));
    ASSERT_THAT(row, testing::IsOk());
    EXPECT_EQ(ToProto(*row).SerializeAsString(), tc.SerializeAsString());
  }
  // Neither kind set, and a fraction of a second: refused naming the field.
  EXPECT_THAT(ParseTimeControl(FromProto(v1::TimeControl())),
              testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                "time_control must set per_move or time_bank"));
  per_move.mutable_per_move()->mutable_limit()->set_nanos(1);
  EXPECT_THAT(ParseTimeControl(FromProto(per_move)),
              testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                "time_control.per_move.limit must be whole seconds from 3600 to "
                                "1209600 (got 604800s)"));
}

TEST(MappingTest, ASubmitActionRequestKeepsWhetherItHasAnAction) {
  v1::SubmitActionRequest r;
  r.set_game_id(kGame);
  r.set_expected_version(3);
  r.set_idempotency_key("k");
  EXPECT_FALSE(FromProto(r).action.has_value());
  r.mutable_action()->set_type_url("type.googleapis.com/parlor.games.v1.PicoAction");
  const SubmitRequest m = FromProto(r);
  EXPECT_EQ(m.game_id, kGame);
  EXPECT_EQ(m.expected_version, 3);
  EXPECT_EQ(m.idempotency_key, "k");
  ASSERT_TRUE(m.action.has_value());
  EXPECT_EQ(m.action->type_url(), "type.googleapis.com/parlor.games.v1.PicoAction");
}

}  // namespace
}  // namespace parlor::sessions
