#include "services/notifications/domain/rules.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace parlor::notifications {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kGame[] = "0b7e2a1c-3d4f-4a5b-8c6d-7e8f9a0b1c2d";
constexpr char kAccount[] = "11111111-2222-4333-8444-555555555555";

Event YourTurn(std::vector<std::string> opponents) {
  Event e;
  e.dedupe_key = "turn:1";
  e.account_id = kAccount;
  e.kind = EventKind::kYourTurn;
  e.game_id = kGame;
  e.game = "pico";
  e.version = 7;
  e.opponent_names = std::move(opponents);
  return e;
}

TEST(ContentTest, YourTurnNamesTheGameAndTheOpponents) {
  const Content c = BuildContent(YourTurn({"Tess"}));
  EXPECT_EQ(c.title_loc_key, "your_turn.title");
  // "Your turn in Pico against Tess".
  EXPECT_EQ(c.loc_key, "your_turn.body");
  EXPECT_THAT(c.loc_args, ElementsAre("Pico", "Tess"));
  EXPECT_EQ(c.deep_link, absl::StrCat("parlor://game/", kGame, "?version=7"));
}

TEST(ContentTest, SeveralOpponentsAreJoinedAndNoneUsesTheSoloText) {
  EXPECT_THAT(BuildContent(YourTurn({"Tess", "Ugo"})).loc_args, ElementsAre("Pico", "Tess, Ugo"));
  const Content solo = BuildContent(YourTurn({}));
  EXPECT_EQ(solo.loc_key, "your_turn.body_solo");
  EXPECT_THAT(solo.loc_args, ElementsAre("Pico"));
}

TEST(ContentTest, KadiceIsSpelledAsOnTheBox) {
  Event e = YourTurn({"Tess"});
  e.game = "kadice";
  EXPECT_THAT(BuildContent(e).loc_args, ElementsAre("KA'DICE", "Tess"));
}

TEST(ContentTest, TheLastMoveIsOneLineNamingWhoMoved) {
  Event e = YourTurn({"Tess"});
  e.last_move_player = "Tess";
  e.last_move = "play the 7 of cups";
  const Content c = BuildContent(e);
  EXPECT_EQ(LastMoveLine(c), "Tess: play the 7 of cups");
  e.last_move_player.clear();
  EXPECT_EQ(LastMoveLine(BuildContent(e)), "play the 7 of cups");
  EXPECT_EQ(LastMoveLine(BuildContent(YourTurn({"Tess"}))), "");
}

TEST(ContentTest, ChallengesAndInvitesLinkToTheirScreens) {
  Event challenge;
  challenge.kind = EventKind::kChallengeReceived;
  challenge.from_name = "Tess";
  challenge.game = "pict";
  const Content c = BuildContent(challenge);
  EXPECT_EQ(c.loc_key, "challenge_received.body");
  EXPECT_THAT(c.loc_args, ElementsAre("Tess", "Pict"));
  EXPECT_EQ(c.deep_link, "parlor://challenges");
  Event invite;
  invite.kind = EventKind::kPartyInvite;
  invite.from_name = "Tess";
  invite.party_id = kGame;
  EXPECT_EQ(BuildContent(invite).deep_link, absl::StrCat("parlor://party/", kGame));
}

TEST(QuietHoursTest, AReminderAtNightWaitsForTheMorningInThePlayersZone) {
  Preferences p;
  p.quiet_hours = QuietHours{22 * 60, 7 * 60};  // 22:00-07:00
  p.time_zone = "Europe/Paris";
  absl::TimeZone paris;
  ASSERT_TRUE(absl::LoadTimeZone("Europe/Paris", &paris));
  // 23:30 in Paris: waits until 07:00 the next day.
  const absl::Time night = absl::FromCivil(absl::CivilMinute(2026, 11, 27, 23, 30), paris);
  EXPECT_EQ(ReminderDueTime(p, night),
            absl::FromCivil(absl::CivilMinute(2026, 11, 28, 7, 0), paris));
  // 05:00: waits until 07:00 the same day.
  const absl::Time early = absl::FromCivil(absl::CivilMinute(2026, 11, 28, 5, 0), paris);
  EXPECT_EQ(ReminderDueTime(p, early),
            absl::FromCivil(absl::CivilMinute(2026, 11, 28, 7, 0), paris));
  // 12:00 is not quiet: now.
  const absl::Time noon = absl::FromCivil(absl::CivilMinute(2026, 11, 28, 12, 0), paris);
  EXPECT_EQ(ReminderDueTime(p, noon), noon);
  // 22:00 Paris is 21:00 UTC: a player in UTC with the same hours is not quiet yet.
  p.time_zone = "UTC";
  const absl::Time nine_utc =
      absl::FromCivil(absl::CivilMinute(2026, 11, 27, 21, 30), absl::UTCTimeZone());
  EXPECT_EQ(ReminderDueTime(p, nine_utc), nine_utc);
}

TEST(QuietHoursTest, DaytimeQuietHoursDoNotCrossMidnight) {
  Preferences p;
  p.quiet_hours = QuietHours{9 * 60, 17 * 60};
  const absl::Time ten =
      absl::FromCivil(absl::CivilMinute(2026, 11, 27, 10, 0), absl::UTCTimeZone());
  EXPECT_EQ(ReminderDueTime(p, ten),
            absl::FromCivil(absl::CivilMinute(2026, 11, 27, 17, 0), absl::UTCTimeZone()));
  const absl::Time eight = ten - absl::Hours(2);
  EXPECT_EQ(ReminderDueTime(p, eight), eight);
}

TEST(PreferencesTest, MutedGamesAndDisabledKindsAreNotPushed) {
  Preferences p;
  p.muted_game_ids = {kGame};
  p.disabled_kinds = {EventKind::kReminder};
  EXPECT_FALSE(WantsPush(p, EventKind::kYourTurn, kGame));
  EXPECT_FALSE(WantsPush(p, EventKind::kReminder, "aaaaaaaa-2222-4333-8444-555555555555"));
  EXPECT_TRUE(WantsPush(p, EventKind::kYourTurn, "aaaaaaaa-2222-4333-8444-555555555555"));
  EXPECT_FALSE(WantsPush(Preferences(), EventKind::kTurnOver, kGame));
}

TEST(ValidationTest, TokensFollowEachPlatformsFormat) {
  const std::string apns(64, 'a');
  EXPECT_TRUE(ValidateDevice(Platform::kApns, apns, "en-GB", "Europe/Paris", "com.parlor").ok());
  EXPECT_THAT(ValidateDevice(Platform::kApns, std::string(64, 'g'), "", "", "com.parlor").message(),
              HasSubstr("64-200 hex digits"));
  EXPECT_THAT(ValidateDevice(Platform::kUnspecified, apns, "", "", "x").message(),
              HasSubstr("platform is required"));
  EXPECT_THAT(ValidateDevice(Platform::kFcm, "short", "", "", "x").message(),
              HasSubstr("registration token"));
  EXPECT_THAT(ValidateDevice(Platform::kApns, apns, "", "Mars/Olympus", "x").message(),
              HasSubstr("not an IANA time zone"));
  EXPECT_THAT(ValidateDevice(Platform::kApns, apns, "", "../../etc/passwd", "x").message(),
              HasSubstr("not an IANA time zone"));
  EXPECT_THAT(ValidateDevice(Platform::kApns, apns, "", "", "").message(),
              HasSubstr("app_id is required"));
}

TEST(ValidationTest, EventsNameTheirIndexAndField) {
  Event e = YourTurn({"Tess"});
  EXPECT_TRUE(ValidateEvent(0, e).ok());
  e.game_id = "not-a-uuid";
  EXPECT_THAT(ValidateEvent(3, e).message(), HasSubstr("events[3].game_id"));
  e = YourTurn({"Tess"});
  e.dedupe_key = "";
  EXPECT_THAT(ValidateEvent(0, e).message(), HasSubstr("events[0].dedupe_key"));
  e = YourTurn({"Tess"});
  e.kind = static_cast<EventKind>(42);
  EXPECT_THAT(ValidateEvent(0, e).message(), HasSubstr("kind 42 is not an EventKind"));
  e.kind = EventKind::kChallengeReceived;
  EXPECT_THAT(ValidateEvent(0, e).message(), HasSubstr("from_name"));
}

TEST(ValidationTest, NamesMayHoldAnyLettersButNoControlCharacters) {
  // "Zoë" and "Søren" are UTF-8 with bytes above 0x7f; a tab is a control character.
  EXPECT_TRUE(ValidateEvent(0, YourTurn({"Zo\xc3\xab", "S\xc3\xb8ren"})).ok());
  Event named = YourTurn({"Tess"});
  named.last_move_player = "Zo\xc3\xab";
  named.last_move = "bid two 5s";
  EXPECT_TRUE(ValidateEvent(0, named).ok());
  EXPECT_THAT(ValidateEvent(0, YourTurn({"Te\tss"})).message(),
              HasSubstr("events[0].opponent_names"));
  EXPECT_THAT(ValidateEvent(0, YourTurn({"Te\x7fss"})).message(),
              HasSubstr("events[0].opponent_names"));
}

TEST(ValidationTest, ALastMoveIsShortTextOnGameEventsThatNeedIt) {
  Event e = YourTurn({"Tess"});
  e.last_move_player = "Tess";
  e.last_move = "roll 4 dice: \u2680\u2681";
  EXPECT_TRUE(ValidateEvent(0, e).ok());
  e.last_move = std::string(201, 'x');
  EXPECT_THAT(ValidateEvent(0, e).message(), HasSubstr("events[0].last_move.description"));
  e.last_move = "line\nbreak";
  EXPECT_THAT(ValidateEvent(0, e).message(), HasSubstr("last_move.description"));
  e.last_move = "";
  EXPECT_THAT(ValidateEvent(0, e).message(), HasSubstr("last_move.description is required"));
  e.last_move_player = std::string(65, 'T');
  e.last_move = "pass";
  EXPECT_THAT(ValidateEvent(0, e).message(), HasSubstr("last_move.player_name"));
  e = YourTurn({"Tess"});
  e.kind = EventKind::kTimeout;
  e.last_move = "pass";
  EXPECT_THAT(ValidateEvent(0, e).message(), HasSubstr("last_move is only for"));
}

}  // namespace
}  // namespace parlor::notifications
