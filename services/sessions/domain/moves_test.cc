// The sessions decisions (moves.h) and request checks (requests.h), with no database: each test
// sets up a game as its rows and engine state, decides, and reads the Mutation one transaction
// would write.
#include "services/sessions/domain/moves.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/games/all_games.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/testing/status_matchers.h"
#include "services/sessions/domain/engine_glue.h"
#include "services/sessions/domain/requests.h"
#include "services/sessions/domain/time_control.h"

namespace parlor::sessions {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

constexpr char kAlice[] = "00000000-0000-4000-8000-00000000000a";
constexpr char kBob[] = "00000000-0000-4000-8000-00000000000b";
const absl::Time kStart = absl::FromUnixSeconds(1'800'000'000);

const engine::Registry& Games() {
  static const engine::Registry* const registry = new engine::Registry(engine::AllGames());
  return *registry;
}

const engine::Game& Pico() { return **Games().Find("pico"); }

SeatRow Player(int seat, const std::string& account) {
  SeatRow s;
  s.seat = seat;
  s.team = -1;
  s.account_id = account;
  s.display_name = account.substr(account.size() - 1);
  return s;
}

SeatRow Computer(int seat, const std::string& bot) {
  SeatRow s;
  s.seat = seat;
  s.team = -1;
  s.bot = bot;
  s.display_name = "Computer";
  return s;
}

TimeControlRow PerMoveDay() {
  TimeControlRow tc;
  tc.kind = TimeControlRow::Kind::kPerMove;
  tc.per_move_s = kDaySeconds;
  tc.vacation_days = 3;
  return tc;
}

// A game as the store would hand it to a decision: its rows (as DecideNewGame wrote them) and
// its engine state.
struct Table {
  GameRow row;
  std::unique_ptr<engine::State> state;
};

Table NewTable(std::vector<SeatRow> seats, bool ranked = false, TimeControlRow tc = PerMoveDay()) {
  const engine::Game& game = Pico();
  NewGameSpec spec;
  spec.game_id = "00000000-0000-4000-8000-000000000001";
  spec.ranked = ranked;
  spec.options = *game.ParseOptions({}, static_cast<int>(seats.size()));
  spec.time_control = tc;
  spec.seats = std::move(seats);
  spec.seed = engine::Seed::FromUint64(42);
  absl::StatusOr<Decision> d = DecideNewGame(DecisionContext{&game, kStart, {}}, std::move(spec));
  EXPECT_THAT(d, testing::IsOk());
  return Table{d->mutation.after, std::move(d->state)};
}

DecisionContext At(absl::Time now) { return DecisionContext{&Pico(), now, {}}; }

int FirstActing(const Table& t) { return t.state->ActingSeats().ToVector().front(); }

std::vector<std::string> Kinds(const std::vector<NotificationRow>& notes) {
  std::vector<std::string> kinds;
  for (const NotificationRow& n : notes) kinds.push_back(n.kind + "@" + n.account_id);
  return kinds;
}

TEST(DecideNewGameTest, TheSetupIsVersionZeroAndEveryPlayerWhoseTurnItIsIsTold) {
  const Table t = NewTable({Player(0, kAlice), Player(1, kBob)});
  EXPECT_EQ(t.row.version, 0);
  EXPECT_FALSE(t.row.finished);
  EXPECT_EQ(t.row.game, "pico");
  EXPECT_FALSE(t.row.seed_commitment.empty());
  EXPECT_EQ(t.row.created_at, kStart);
  for (const SeatRow& s : t.row.seats) {
    SCOPED_TRACE(s.seat);
    const bool acting = t.state->ActingSeats().Contains(s.seat);
    EXPECT_EQ(s.my_turn, acting);
    if (acting) {
      EXPECT_EQ(s.deadline, kStart + absl::Hours(24));
    }
  }
  EXPECT_EQ(t.row.deadline, kStart + absl::Hours(24));
}

TEST(DecideNewGameTest, TheSetupEntryIsLoggedWithItsBytes) {
  const engine::Game& game = Pico();
  NewGameSpec spec;
  spec.game_id = "00000000-0000-4000-8000-000000000002";
  spec.options = *game.ParseOptions({}, 2);
  spec.time_control = PerMoveDay();
  spec.seats = {Player(0, kAlice), Computer(1, "random")};
  spec.seed = engine::Seed::FromUint64(7);
  absl::StatusOr<Decision> d = DecideNewGame(At(kStart), std::move(spec));
  ASSERT_THAT(d, testing::IsOk());
  const std::vector<LogRow>& log = d->mutation.log;
  ASSERT_THAT(log, Not(IsEmpty()));
  EXPECT_EQ(log.front().version, 0);
  EXPECT_EQ(log.front().kind, LogRow::Kind::kSetup);
  EXPECT_FALSE(log.front().entry.empty());
  // Every entry the computer added at once follows, each with its bytes.
  for (size_t i = 1; i < log.size(); ++i) {
    EXPECT_EQ(log[i].version, static_cast<int64_t>(i));
    EXPECT_EQ(log[i].cause, LogRow::Cause::kBot);
    EXPECT_FALSE(log[i].entry.empty());
  }
  EXPECT_EQ(d->mutation.after.version, log.back().version);
}

TEST(DecideNewGameTest, ATeamTheOptionsDoNotGiveIsRefused) {
  const engine::Game& game = Pico();
  NewGameSpec spec;
  spec.options = *game.ParseOptions({}, 2);
  spec.time_control = PerMoveDay();
  spec.seats = {Player(0, kAlice), Player(1, kBob)};
  spec.seats[1].team = 0;  // Pico: every seat is its own side
  EXPECT_THAT(DecideNewGame(At(kStart), std::move(spec)),
              testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                HasSubstr("seats[1].team is 0 but the game's options")));
}

TEST(DecideNewGameTest, ATimeBankStartsFull) {
  TimeControlRow tc;
  tc.kind = TimeControlRow::Kind::kTimeBank;
  tc.bank_initial_s = 2 * kDaySeconds;
  tc.bank_increment_s = kHourSeconds;
  const Table t = NewTable({Player(0, kAlice), Player(1, kBob)}, false, tc);
  for (const SeatRow& s : t.row.seats) EXPECT_EQ(s.time_bank_ms, 2 * kDaySeconds * 1000);
}

TEST(DecideMoveTest, ALegalMoveIsLoggedAsThePlayersAndItsPlayerGetsNoYourTurnPush) {
  Table t = NewTable({Player(0, kAlice), Player(1, kBob)});
  const int seat = FirstActing(t);
  const std::string account = t.row.seats[seat].account_id;
  const engine::Action action = t.state->LegalActions(seat).front();
  absl::StatusOr<Decision> d = DecideMove(At(kStart + absl::Minutes(5)), t.row, t.state->Clone(),
                                          MoveRequest{seat, account, action});
  ASSERT_THAT(d, testing::IsOk());
  const Mutation& m = d->mutation;
  ASSERT_EQ(m.log.size(), 1u);
  EXPECT_EQ(m.log[0].version, 1);
  EXPECT_EQ(m.log[0].cause, LogRow::Cause::kPlayer);
  EXPECT_EQ(m.log[0].account_id, account);
  EXPECT_EQ(m.log[0].action, action);
  EXPECT_EQ(m.after.version, 1);
  EXPECT_EQ(m.after.updated_at, kStart + absl::Minutes(5));
  // Its player's turn is over (Pico: the other seat still chooses): only that is told to them.
  for (const NotificationRow& n : m.notifications) {
    if (n.account_id == account) {
      EXPECT_EQ(n.kind, "turn_over");
    }
  }
  EXPECT_THAT(Kinds(m.notifications), ::testing::Contains(absl::StrCat("turn_over@", account)));
  EXPECT_EQ(m.notify_payload, absl::StrCat(t.row.game_id, ":1:", kAlice, ",", kBob));
  EXPECT_EQ(d->state->NumMoves(), 1);
}

// What a push needs and nothing hidden: the other side by display name, and the deadline after
// which "your turn" is pointless.
TEST(DecideNewGameTest, AYourTurnNamesTheOpponentsAndExpiresAtTheTurnsDeadline) {
  const engine::Game& game = Pico();
  NewGameSpec spec;
  spec.game_id = "00000000-0000-4000-8000-000000000001";
  spec.options = *game.ParseOptions({}, 2);
  spec.time_control = PerMoveDay();
  spec.seats = {Player(0, kAlice), Player(1, kBob)};
  spec.seed = engine::Seed::FromUint64(42);
  absl::StatusOr<Decision> d = DecideNewGame(DecisionContext{&game, kStart, {}}, std::move(spec));
  ASSERT_THAT(d, testing::IsOk());
  const Mutation& m = d->mutation;
  ASSERT_THAT(m.notifications, Not(IsEmpty()));
  for (const NotificationRow& n : m.notifications) {
    EXPECT_EQ(n.kind, "your_turn");
    const SeatRow& seat = m.after.seats[n.account_id == kAlice ? 0 : 1];
    ASSERT_TRUE(seat.deadline.has_value());
    EXPECT_THAT(n.payload_json, HasSubstr(absl::StrCat("\"opponents\":[\"",
                                                       n.account_id == kAlice ? "b" : "a", "\"]")));
    EXPECT_THAT(n.payload_json,
                HasSubstr(absl::StrCat("\"expires_at_us\":", absl::ToUnixMicros(*seat.deadline))));
  }
}

TEST(DecideMoveTest, AMoveOutOfTurnIsRefusedNamingWhoseTurnItIs) {
  Table t = NewTable({Player(0, kAlice), Player(1, kBob)});
  // Play the first acting seat's move, then let that seat try again before the other.
  const int seat = FirstActing(t);
  const engine::Action action = t.state->LegalActions(seat).front();
  absl::StatusOr<Decision> d = DecideMove(At(kStart), t.row, t.state->Clone(),
                                          MoveRequest{seat, t.row.seats[seat].account_id, action});
  ASSERT_THAT(d, testing::IsOk());
  const GameRow& after = d->mutation.after;
  ASSERT_EQ(after.acting_seats >> seat & 1u, 0u);
  absl::StatusOr<Decision> again = DecideMove(At(kStart), after, d->state->Clone(),
                                              MoveRequest{seat, after.seats[seat].account_id, 0});
  ASSERT_FALSE(again.ok());
  // Pico's cards are chosen at once: a seat that has chosen is told so by the engine.
  EXPECT_THAT(again.status().message(), HasSubstr("already"));
}

TEST(DecideMoveTest, TheActionsRefusalComesAfterTheTurnCheck) {
  Table t = NewTable({Player(0, kAlice), Player(1, kBob)});
  const int seat = FirstActing(t);
  const absl::Status undecodable = absl::InvalidArgumentError("action: not a pico Action");
  EXPECT_THAT(DecideMove(At(kStart), t.row, t.state->Clone(),
                         MoveRequest{seat, t.row.seats[seat].account_id, undecodable}),
              testing::StatusIs(absl::StatusCode::kInvalidArgument, "action: not a pico Action"));
}

TEST(DecideMoveTest, AnIllegalActionGetsTheEnginesRefusal) {
  Table t = NewTable({Player(0, kAlice), Player(1, kBob)});
  const int seat = FirstActing(t);
  const engine::Action illegal = -12345;
  const absl::Status engine_says = t.state->CheckAction(seat, illegal);
  ASSERT_FALSE(engine_says.ok());
  EXPECT_THAT(DecideMove(At(kStart), t.row, t.state->Clone(),
                         MoveRequest{seat, t.row.seats[seat].account_id, illegal}),
              testing::StatusIs(engine_says.code(), std::string(engine_says.message())));
}

TEST(DecideMoveTest, TheComputerAnswersAtOnceWithinItsBound) {
  Table t = NewTable({Player(0, kAlice), Computer(1, "random")});
  const engine::Action action = t.state->LegalActions(0).front();
  absl::StatusOr<Decision> d =
      DecideMove(At(kStart), t.row, t.state->Clone(), MoveRequest{0, kAlice, action});
  ASSERT_THAT(d, testing::IsOk());
  const Mutation& m = d->mutation;
  ASSERT_GE(m.log.size(), 1u);
  EXPECT_EQ(m.log[0].cause, LogRow::Cause::kPlayer);
  // Unless the game ended, it is the player's turn again: the computer has moved.
  if (!m.after.finished) {
    EXPECT_TRUE(m.after.seats[0].my_turn);
    EXPECT_FALSE(m.after.seats[1].my_turn);
  }
  for (size_t i = 1; i < m.log.size(); ++i) EXPECT_EQ(m.log[i].cause, LogRow::Cause::kBot);
}

TEST(DecideMoveTest, AutomaticPlayStopsAtItsBoundAndLeavesTheComputerSeatDueAtOnce) {
  // At most one automatic move per request: what the computer has left is the sweeper's.
  Table t = NewTable({Player(0, kAlice), Computer(1, "random")});
  DecisionContext ctx = At(kStart);
  ctx.limits.moves = 1;
  absl::StatusOr<Decision> d = DecideMove(ctx, t.row, t.state->Clone(),
                                          MoveRequest{0, kAlice, t.state->LegalActions(0).front()});
  ASSERT_THAT(d, testing::IsOk());
  const Mutation& m = d->mutation;
  if (!m.after.finished && m.after.seats[1].my_turn) {
    EXPECT_EQ(m.after.seats[1].deadline, kStart);
  }
  EXPECT_LE(m.log.size(), 2u);
}

TEST(CheckCanMoveTest, AnEndedGameAndAForfeitedSeatAreRefused) {
  Table t = NewTable({Player(0, kAlice), Player(1, kBob)});
  EXPECT_THAT(CheckCanMove(t.row, 0), testing::IsOk());
  GameRow forfeited = t.row;
  forfeited.seats[0].forfeited = true;
  EXPECT_THAT(CheckCanMove(forfeited, 0), testing::StatusIs(absl::StatusCode::kPermissionDenied,
                                                            "your seat has forfeited this game"));
  GameRow ended = t.row;
  ended.finished = true;
  EXPECT_THAT(CheckCanMove(ended, 0),
              testing::StatusIs(absl::StatusCode::kFailedPrecondition, "the game has ended"));
  EXPECT_THAT(CheckCanResign(ended, 0),
              testing::StatusIs(absl::StatusCode::kFailedPrecondition, "the game has ended"));
  EXPECT_THAT(CheckCanResign(forfeited, 0),
              testing::StatusIs(absl::StatusCode::kFailedPrecondition,
                                "your seat has already forfeited this game"));
}

TEST(DecideResignTest, ATwoPlayerGameEndsAndBothPlayersAreToldAndTheResultIsReported) {
  Table t = NewTable({Player(0, kAlice), Player(1, kBob)}, /*ranked=*/true);
  absl::StatusOr<Decision> d =
      DecideResign(At(kStart + absl::Hours(1)), t.row, t.state->Clone(), 0, kAlice);
  ASSERT_THAT(d, testing::IsOk());
  const Mutation& m = d->mutation;
  ASSERT_EQ(m.log.size(), 1u);
  EXPECT_EQ(m.log[0].kind, LogRow::Kind::kForfeit);
  EXPECT_EQ(m.log[0].cause, LogRow::Cause::kPlayer);
  EXPECT_TRUE(m.after.finished);
  EXPECT_TRUE(m.after.seats[0].forfeited);
  EXPECT_EQ(m.after.ranks, (std::vector<int>{2, 1}));
  EXPECT_EQ(m.after.acting_seats, 0u);
  EXPECT_FALSE(m.after.deadline.has_value());
  EXPECT_THAT(Kinds(m.notifications),
              ::testing::UnorderedElementsAre(absl::StrCat("game_over@", kAlice),
                                              absl::StrCat("game_over@", kBob)));
  ASSERT_TRUE(m.result.has_value());
  EXPECT_THAT(m.result->payload_json, HasSubstr("\"ranked\":true"));
}

TEST(DecideResignTest, AGameWithNoPlayerLeftEndsAtOnceWithoutTheComputerPlayingItOut) {
  Table t = NewTable({Player(0, kAlice), Computer(1, "random")});
  absl::StatusOr<Decision> d = DecideResign(At(kStart), t.row, t.state->Clone(), 0, kAlice);
  ASSERT_THAT(d, testing::IsOk());
  EXPECT_TRUE(d->mutation.after.finished);
  // The resignation, and at most the computer's withdrawal: no move of play.
  for (const LogRow& row : d->mutation.log) EXPECT_EQ(row.kind, LogRow::Kind::kForfeit);
}

TEST(DecideTimeoutsTest, NothingDueDecidesNothing) {
  Table t = NewTable({Player(0, kAlice), Player(1, kBob)});
  std::vector<std::string> timeouts;
  absl::StatusOr<std::optional<Decision>> d = DecideTimeouts(
      At(kStart + absl::Hours(1)), t.row, t.state->Clone(), TimeoutPolicy{}, &timeouts);
  ASSERT_THAT(d, testing::IsOk());
  EXPECT_FALSE(d->has_value());
  EXPECT_THAT(timeouts, IsEmpty());
}

TEST(DecideTimeoutsTest, HalfTheTimeGivesTheFirstReminderAndNinetyPercentTheSecond) {
  Table t = NewTable({Player(0, kAlice), Player(1, kBob)});
  std::vector<std::string> timeouts;
  absl::StatusOr<std::optional<Decision>> half = DecideTimeouts(
      At(kStart + absl::Hours(12)), t.row, t.state->Clone(), TimeoutPolicy{}, &timeouts);
  ASSERT_THAT(half, testing::IsOk());
  ASSERT_TRUE(half->has_value());
  const Mutation& m = (*half)->mutation;
  EXPECT_TRUE(m.log.empty());
  for (const SeatRow& s : m.after.seats) EXPECT_EQ(s.reminders_sent, s.my_turn ? 1 : 0);
  for (const NotificationRow& n : m.notifications) EXPECT_EQ(n.kind, "reminder");
  EXPECT_THAT(m.notifications, Not(IsEmpty()));
  absl::StatusOr<std::optional<Decision>> late = DecideTimeouts(
      At(kStart + absl::Hours(22)), m.after, t.state->Clone(), TimeoutPolicy{}, &timeouts);
  ASSERT_THAT(late, testing::IsOk());
  ASSERT_TRUE(late->has_value());
  for (const SeatRow& s : (*late)->mutation.after.seats) {
    EXPECT_EQ(s.reminders_sent, s.my_turn ? 2 : 0);
  }
}

TEST(DecideTimeoutsTest, ACasualSeatPastItsDeadlineGetsTheTimeoutBotsMove) {
  Table t = NewTable({Player(0, kAlice), Player(1, kBob)});
  std::vector<std::string> timeouts;
  absl::StatusOr<std::optional<Decision>> d = DecideTimeouts(
      At(kStart + absl::Hours(25)), t.row, t.state->Clone(), TimeoutPolicy{}, &timeouts);
  ASSERT_THAT(d, testing::IsOk());
  ASSERT_TRUE(d->has_value());
  const Mutation& m = (*d)->mutation;
  ASSERT_THAT(m.log, Not(IsEmpty()));
  for (const LogRow& row : m.log) {
    EXPECT_EQ(row.kind, LogRow::Kind::kAction);
    EXPECT_EQ(row.cause, LogRow::Cause::kTimeout);
  }
  EXPECT_EQ(timeouts.size(), m.log.size());
  for (const std::string& kind : timeouts) EXPECT_EQ(kind, "bot");
  bool told = false;
  for (const NotificationRow& n : m.notifications) {
    if (n.kind == "timeout") {
      told = true;
      EXPECT_THAT(n.payload_json, HasSubstr("the computer moved for you"));
    }
  }
  EXPECT_TRUE(told);
}

TEST(DecideTimeoutsTest, ARankedSeatPastItsDeadlineForfeits) {
  Table t = NewTable({Player(0, kAlice), Player(1, kBob)}, /*ranked=*/true);
  std::vector<std::string> timeouts;
  absl::StatusOr<std::optional<Decision>> d = DecideTimeouts(
      At(kStart + absl::Hours(25)), t.row, t.state->Clone(), TimeoutPolicy{}, &timeouts);
  ASSERT_THAT(d, testing::IsOk());
  ASSERT_TRUE(d->has_value());
  EXPECT_TRUE((*d)->mutation.after.finished);
  EXPECT_THAT(timeouts, Not(IsEmpty()));
  for (const std::string& kind : timeouts) EXPECT_EQ(kind, "forfeit");
  EXPECT_EQ((*d)->mutation.log.front().kind, LogRow::Kind::kForfeit);
  EXPECT_EQ((*d)->mutation.log.front().cause, LogRow::Cause::kTimeout);
}

// Whether the sweeper finds anything to do in `row` at `now`.
bool SweepDecidesSomething(const Table& t, const GameRow& row, absl::Time now) {
  std::vector<std::string> timeouts;
  absl::StatusOr<std::optional<Decision>> d =
      DecideTimeouts(At(now), row, t.state->Clone(), TimeoutPolicy{}, &timeouts);
  EXPECT_THAT(d, testing::IsOk());
  return d.ok() && d->has_value();
}

// The sweeper's work list (the games row's wake_at) holds NextSweepAt: the sweep that first finds
// the game due must find something to do in it, and none before it may.
void ExpectTheSweeperWakesExactlyWhenSomethingIsDue(const Table& t, const GameRow& row) {
  const std::optional<absl::Time> wake = NextSweepAt(row);
  ASSERT_TRUE(wake.has_value());
  EXPECT_FALSE(SweepDecidesSomething(t, row, *wake - absl::Microseconds(1)));
  EXPECT_TRUE(SweepDecidesSomething(t, row, *wake));
}

// A 1-day per-move game: both turns start at kStart with 24 h.
TEST(NextSweepAtTest, HalfTheTurnThenNinetyPercentThenTheDeadline) {
  Table t = NewTable({Player(0, kAlice), Player(1, kBob)});
  EXPECT_EQ(NextSweepAt(t.row), kStart + absl::Hours(12));
  ExpectTheSweeperWakesExactlyWhenSomethingIsDue(t, t.row);
  GameRow reminded = t.row;
  for (SeatRow& s : reminded.seats) s.reminders_sent = 1;
  EXPECT_EQ(NextSweepAt(reminded), kStart + absl::Hours(24) * 0.9);
  ExpectTheSweeperWakesExactlyWhenSomethingIsDue(t, reminded);
  for (SeatRow& s : reminded.seats) s.reminders_sent = 2;
  EXPECT_EQ(NextSweepAt(reminded), kStart + absl::Hours(24));
  ExpectTheSweeperWakesExactlyWhenSomethingIsDue(t, reminded);
}

TEST(NextSweepAtTest, TheEarliestRunningTurnWakesTheSweeper) {
  Table t = NewTable({Player(0, kAlice), Player(1, kBob)});
  t.row.seats[0].reminders_sent = 2;  // Alice's next: her deadline at 24 h
  t.row.seats[1].reminders_sent = 1;  // Bob's next: his second reminder at 21.6 h
  EXPECT_EQ(NextSweepAt(t.row), kStart + absl::Hours(24) * 0.9);
  ExpectTheSweeperWakesExactlyWhenSomethingIsDue(t, t.row);
  t.row.seats[1].my_turn = false;  // only Alice's turn runs
  EXPECT_EQ(NextSweepAt(t.row), kStart + absl::Hours(24));
}

TEST(NextSweepAtTest, AReminderWaitsForAStoppedClockToRestart) {
  Table t = NewTable({Player(0, kAlice), Player(1, kBob)});
  t.row.seats[1].my_turn = false;
  // Alice's vacation from 13 h to 20 h stops her clock: her turn now starts at 7 h and ends at
  // 31 h, so half of it is at 19 h, when her clock is still stopped. The reminder waits for 20 h.
  std::optional<Mutation> paused =
      DecideVacation(t.row, kAlice, kStart + absl::Hours(13), kStart + absl::Hours(20));
  ASSERT_TRUE(paused.has_value());
  ASSERT_EQ(paused->after.seats[0].turn_started_at, kStart + absl::Hours(7));
  EXPECT_EQ(NextSweepAt(paused->after), kStart + absl::Hours(20));
  ExpectTheSweeperWakesExactlyWhenSomethingIsDue(t, paused->after);
}

TEST(NextSweepAtTest, NeverForAFinishedGameOrWithoutARunningClock) {
  Table t = NewTable({Player(0, kAlice), Player(1, kBob)});
  GameRow finished = t.row;
  finished.finished = true;
  EXPECT_EQ(NextSweepAt(finished), std::nullopt);
  GameRow waiting = t.row;
  for (SeatRow& s : waiting.seats) s.my_turn = false;
  EXPECT_EQ(NextSweepAt(waiting), std::nullopt);
  EXPECT_FALSE(SweepDecidesSomething(t, waiting, kStart + absl::Hours(100)));
}

// A 1-day per-move game: both turns start at kStart (Pico's choices are simultaneous) with 24 h.
TEST(DecideVacationTest, AVacationStopsTheClockAndEndingItEarlyGivesBackWhatWasLeft) {
  Table t = NewTable({Player(0, kAlice), Player(1, kBob)});
  ASSERT_EQ(t.row.seats[0].deadline, kStart + absl::Hours(24));
  // Alice's 3-hour vacation starts an hour into her turn: 23 h were left.
  std::optional<Mutation> on =
      DecideVacation(t.row, kAlice, kStart + absl::Hours(1), kStart + absl::Hours(4));
  ASSERT_TRUE(on.has_value());
  EXPECT_EQ(on->after.version, t.row.version);
  EXPECT_TRUE(on->log.empty());
  const SeatRow& alice = on->after.seats[0];
  EXPECT_EQ(alice.vacation_until, kStart + absl::Hours(4));
  EXPECT_EQ(alice.paused_until, kStart + absl::Hours(4));
  // The vacation ends at +4 h with the 23 h left: the deadline is +27 h.
  EXPECT_EQ(alice.deadline, kStart + absl::Hours(27));
  EXPECT_EQ(alice.vacation_used_ms, absl::ToInt64Milliseconds(absl::Hours(3)));
  // Bob's clock runs on; the game's deadline is the earliest.
  EXPECT_EQ(on->after.seats[1].deadline, kStart + absl::Hours(24));
  EXPECT_EQ(on->after.deadline, kStart + absl::Hours(24));
  // No reminder while the clock is stopped, and past the old deadline she has not timed out.
  std::vector<std::string> timeouts;
  absl::StatusOr<std::optional<Decision>> late = DecideTimeouts(
      At(kStart + absl::Hours(25)), on->after, t.state->Clone(), TimeoutPolicy{}, &timeouts);
  ASSERT_THAT(late, testing::IsOk());
  ASSERT_TRUE(late->has_value());
  EXPECT_EQ(timeouts, std::vector<std::string>{"bot"});  // Bob's
  for (const LogRow& row : (*late)->mutation.log) EXPECT_NE(row.seat, 0);

  // Ended early, at +2 h: she had 23 h left when it began, so her deadline is +25 h, and the
  // unused 2 hours go back to the game's allowance.
  std::optional<Mutation> off =
      DecideVacation(on->after, kAlice, kStart + absl::Hours(2), std::nullopt);
  ASSERT_TRUE(off.has_value());
  const SeatRow& back = off->after.seats[0];
  EXPECT_FALSE(back.vacation_until.has_value());
  EXPECT_FALSE(back.paused_until.has_value());
  EXPECT_EQ(back.deadline, kStart + absl::Hours(25));
  EXPECT_EQ(back.turn_started_at, kStart + absl::Hours(1));
  EXPECT_EQ(back.vacation_used_ms, absl::ToInt64Milliseconds(absl::Hours(1)));
}

TEST(DecideVacationTest, APauseLastsAtMostWhatIsLeftOfTheGamesAllowance) {
  Table t = NewTable({Player(0, kAlice), Player(1, kBob)});  // 3 vacation days
  t.row.seats[0].vacation_used_ms = absl::ToInt64Milliseconds(absl::Hours(3 * 24 - 2));
  std::optional<Mutation> on = DecideVacation(t.row, kAlice, kStart, kStart + absl::Hours(48));
  ASSERT_TRUE(on.has_value());
  const SeatRow& alice = on->after.seats[0];
  EXPECT_EQ(alice.vacation_until, kStart + absl::Hours(48));  // shown as planned
  EXPECT_EQ(alice.paused_until, kStart + absl::Hours(2));     // the clock stops 2 h only
  EXPECT_EQ(alice.deadline, kStart + absl::Hours(26));
  EXPECT_EQ(alice.vacation_used_ms, absl::ToInt64Milliseconds(absl::Hours(3 * 24)));
  // With nothing left, the vacation is shown but the clock runs.
  std::optional<Mutation> again =
      DecideVacation(on->after, kAlice, kStart + absl::Hours(30), kStart + absl::Hours(60));
  ASSERT_TRUE(again.has_value());
  EXPECT_FALSE(again->after.seats[0].paused_until.has_value());
  EXPECT_EQ(again->after.seats[0].deadline, kStart + absl::Hours(26));
}

TEST(DecideVacationTest, ATimeBankDoesNotRunWhileItsClockIsStopped) {
  TimeControlRow tc;
  tc.kind = TimeControlRow::Kind::kTimeBank;
  tc.bank_initial_s = 3 * kDaySeconds;
  tc.bank_increment_s = kDaySeconds;
  tc.vacation_days = 7;
  Table t = NewTable({Player(0, kAlice), Player(1, kBob)}, false, tc);
  // 10 hours used, then a 2-day vacation.
  std::optional<Mutation> on =
      DecideVacation(t.row, kAlice, kStart + absl::Hours(10), kStart + absl::Hours(58));
  ASSERT_TRUE(on.has_value());
  const SeatRow& alice = on->after.seats[0];
  EXPECT_EQ(RemainingBankMs(alice, kStart + absl::Hours(30)),
            absl::ToInt64Milliseconds(absl::Hours(62)));
  EXPECT_EQ(TimeUsed(alice, kStart + absl::Hours(30)), absl::Hours(10));
  EXPECT_EQ(TimeUsed(alice, kStart + absl::Hours(60)), absl::Hours(12));
  EXPECT_EQ(alice.deadline, kStart + absl::Hours(72 + 48));
}

TEST(TimeControlTest, EveryTurnStartsWithAtLeastItsFloor) {
  TimeControlRow bank;
  bank.kind = TimeControlRow::Kind::kTimeBank;
  bank.bank_initial_s = 3 * kDaySeconds;
  bank.bank_increment_s = 0;
  SeatRow empty;
  empty.time_bank_ms = 0;
  // A third of the initial bank: an emptied 3-day bank still gives a day.
  EXPECT_EQ(TurnFloor(bank), absl::Hours(24));
  EXPECT_EQ(TurnTime(bank, empty), absl::Hours(24));
  SeatRow full;
  full.time_bank_ms = 2 * kDaySeconds * 1000;
  EXPECT_EQ(TurnTime(bank, full), absl::Hours(48));
  // At least an hour (and never more than the bank itself).
  bank.bank_initial_s = 2 * kHourSeconds;
  EXPECT_EQ(TurnFloor(bank), absl::Hours(1));
  bank.bank_initial_s = kHourSeconds;
  EXPECT_EQ(TurnFloor(bank), absl::Hours(1));
  // Per move, the limit.
  EXPECT_EQ(TurnFloor(PerMoveDay()), absl::Hours(24));
}

TEST(DecideTimeoutsTest, ACasualSeatForfeitsAtItsThirdTimeoutInARow) {
  Table t = NewTable({Player(0, kAlice), Player(1, kBob)});
  t.row.seats[0].timeouts_in_a_row = 2;
  std::vector<std::string> timeouts;
  absl::StatusOr<std::optional<Decision>> d = DecideTimeouts(
      At(kStart + absl::Hours(25)), t.row, t.state->Clone(), TimeoutPolicy{}, &timeouts);
  ASSERT_THAT(d, testing::IsOk());
  ASSERT_TRUE(d->has_value());
  const Mutation& m = (*d)->mutation;
  // Two sides: Alice's forfeit ends the game before Bob's turn is looked at.
  EXPECT_EQ(timeouts, std::vector<std::string>{"forfeit"});
  EXPECT_TRUE(m.after.seats[0].forfeited);
  EXPECT_EQ(m.after.seats[0].timeouts_in_a_row, 3);
  EXPECT_FALSE(m.after.seats[1].forfeited);
  EXPECT_TRUE(m.after.finished);
  EXPECT_EQ(m.log.front().kind, LogRow::Kind::kForfeit);
  EXPECT_EQ(m.log.front().cause, LogRow::Cause::kTimeout);
  bool told = false;
  for (const NotificationRow& n : m.notifications) {
    if (n.kind == "timeout" && n.account_id == kAlice) {
      told = true;
      EXPECT_THAT(n.payload_json, HasSubstr("3 turns in a row: you forfeited"));
    }
  }
  EXPECT_TRUE(told);
}

TEST(DecideMoveTest, APlayersOwnMoveEndsARunOfTimeouts) {
  Table t = NewTable({Player(0, kAlice), Player(1, kBob)});
  t.row.seats[0].timeouts_in_a_row = 2;
  const std::vector<engine::Action> legal = t.state->LegalActions(0);
  ASSERT_FALSE(legal.empty());
  absl::StatusOr<Decision> d = DecideMove(At(kStart + absl::Hours(1)), t.row, t.state->Clone(),
                                          MoveRequest{0, kAlice, legal.front()});
  ASSERT_THAT(d, testing::IsOk());
  EXPECT_EQ(d->mutation.after.seats[0].timeouts_in_a_row, 0);
}

TEST(TimeControlTest, ABankLosesTheTimeUsedGainsTheIncrementAndNeverExceedsItsStart) {
  TimeControlRow tc;
  tc.kind = TimeControlRow::Kind::kTimeBank;
  tc.bank_initial_s = 10 * kHourSeconds;
  tc.bank_increment_s = kHourSeconds;
  const int64_t hour_ms = kHourSeconds * 1000;
  EXPECT_EQ(ChargedBankMs(tc, 5 * hour_ms, absl::Hours(2)), 4 * hour_ms);
  EXPECT_EQ(ChargedBankMs(tc, 10 * hour_ms, absl::Minutes(1)), 10 * hour_ms);
  EXPECT_EQ(ChargedBankMs(tc, 1 * hour_ms, absl::Hours(3)), 1 * hour_ms);
  SeatRow s;
  s.time_bank_ms = 5 * hour_ms;
  s.my_turn = true;
  s.turn_started_at = kStart;
  EXPECT_EQ(RemainingBankMs(s, kStart + absl::Hours(2)), 3 * hour_ms);
  EXPECT_EQ(RemainingBankMs(s, kStart + absl::Hours(9)), 0);
  EXPECT_EQ(TurnTime(tc, s), absl::Hours(5));
  EXPECT_EQ(TurnTime(PerMoveDay(), s), absl::Hours(24));
}

TEST(TimeControlTest, OutOfBoundsTimeControlsNameTheirField) {
  TimeControlSpec tc;
  tc.kind = TimeControlSpec::Kind::kPerMove;
  tc.per_move_limit = absl::Seconds(60);
  EXPECT_THAT(ParseTimeControl(tc),
              testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                "time_control.per_move.limit must be whole seconds from 3600 to "
                                "1209600 (got 60s)"));
  tc.per_move_limit = absl::Seconds(kHourSeconds) + absl::Milliseconds(1);
  EXPECT_THAT(ParseTimeControl(tc),
              testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                "time_control.per_move.limit must be whole seconds from 3600 to "
                                "1209600 (got 3600s)"));
  tc = TimeControlSpec{};
  EXPECT_THAT(ParseTimeControl(tc),
              testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                "time_control must set per_move or time_bank"));
  tc.kind = TimeControlSpec::Kind::kTimeBank;
  tc.bank_initial = absl::Seconds(kDaySeconds);
  tc.bank_increment = absl::Seconds(kHourSeconds);
  tc.vacation_days = 2;
  absl::StatusOr<TimeControlRow> row = ParseTimeControl(tc);
  ASSERT_THAT(row, testing::IsOk());
  EXPECT_EQ(row->bank_initial_s, kDaySeconds);
  EXPECT_EQ(row->bank_increment_s, kHourSeconds);
  EXPECT_EQ(row->vacation_days, 2);
  const TimeControlSpec back = TimeControlOf(*row);
  EXPECT_EQ(back.kind, tc.kind);
  EXPECT_EQ(back.bank_initial, tc.bank_initial);
  EXPECT_EQ(back.bank_increment, tc.bank_increment);
  EXPECT_EQ(back.vacation_days, tc.vacation_days);
}

TEST(RequestsTest, SubmitActionFieldsAreCheckedInOrder) {
  SubmitRequest r;
  EXPECT_THAT(ValidateSubmit(r),
              testing::StatusIs(absl::StatusCode::kInvalidArgument, "game_id is required"));
  r.game_id = "00000000-0000-4000-8000-00000000000A";
  EXPECT_THAT(ValidateSubmit(r),
              testing::StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("lower-case UUID")));
  r.game_id = kAlice;
  EXPECT_THAT(ValidateSubmit(r),
              testing::StatusIs(absl::StatusCode::kInvalidArgument, "idempotency_key is required"));
  r.idempotency_key = "k\n";
  EXPECT_THAT(ValidateSubmit(r), testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                                   "idempotency_key contains control characters"));
  r.idempotency_key = "k";
  r.expected_version = -1;
  EXPECT_THAT(ValidateSubmit(r), testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                                   "expected_version must be >= 0"));
  r.expected_version = 0;
  EXPECT_THAT(ValidateSubmit(r), testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                                   HasSubstr("action is required")));
  r.action.emplace();
  EXPECT_THAT(ValidateSubmit(r), testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                                   HasSubstr("action is required")));
  r.action->set_type_url("type.googleapis.com/parlor.games.v1.PicoAction");
  r.action->set_value(std::string(kMaxActionBytes, 'x'));
  EXPECT_THAT(ValidateSubmit(r), testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                                   HasSubstr("action is too large")));
  r.action->set_value("");
  EXPECT_THAT(ValidateSubmit(r), testing::IsOk());
}

TEST(RequestsTest, CreateGameSeatsAreEachAPlayerOrAComputerAndSeatedOnce) {
  CreateGameRequest r;
  r.seats.push_back(SeatSpec{kAlice, "Alice", std::nullopt, ""});
  r.seats.push_back(SeatSpec{kAlice, "Alice again", std::nullopt, ""});
  SeatSpec& b = r.seats[1];
  EXPECT_THAT(CreateGameSeats(r), testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                                    "seats[1].account_id is already seated at "
                                                    "seat 0"));
  b.account_id.clear();
  EXPECT_THAT(CreateGameSeats(r), testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                                    "seats[1]: set exactly one of account_id "
                                                    "and bot"));
  b.bot = "random";
  b.display_name.clear();
  r.ranked = true;
  EXPECT_THAT(CreateGameSeats(r), testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                                    "seats[1]: ranked games cannot have computer "
                                                    "seats"));
  r.ranked = false;
  b.team = kMaxSeats;
  EXPECT_THAT(CreateGameSeats(r), testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                                    "seats[1].team must be 0 to 31"));
  b.team.reset();
  absl::StatusOr<std::vector<SeatRow>> seats = CreateGameSeats(r);
  ASSERT_THAT(seats, testing::IsOk());
  EXPECT_EQ((*seats)[1].display_name, "Computer (random)");
  EXPECT_EQ((*seats)[0].team, -1);
}

TEST(RequestsTest, AVisibilityIsUnsetPrivateOrPublic) {
  EXPECT_THAT(IsPublic(0), testing::IsOkAndHolds(false));
  EXPECT_THAT(IsPublic(1), testing::IsOkAndHolds(false));
  EXPECT_THAT(IsPublic(kVisibilityPublic), testing::IsOkAndHolds(true));
  EXPECT_THAT(IsPublic(3), testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                             HasSubstr("visibility must be VISIBILITY_PRIVATE")));
}

TEST(RequestsTest, APageTokenContinuesOnlyTheListingItWasIssuedFor) {
  const PageTokens tokens("secret");
  EXPECT_THAT(OpenPage(tokens, 101, "", "me/0"),
              testing::StatusIs(absl::StatusCode::kInvalidArgument, "page_size must be 0 to 100"));
  absl::StatusOr<ListPage> first = OpenPage(tokens, 0, "", "me/0");
  ASSERT_THAT(first, testing::IsOk());
  EXPECT_EQ(first->size, 20);
  EXPECT_FALSE(first->cursor.has_value());
  GameRow last;
  last.game_id = kBob;
  last.updated_at = kStart;
  EXPECT_EQ(NextPageToken(tokens, *first, {last}, /*more=*/false), "");
  const std::string token = NextPageToken(tokens, *first, {last}, /*more=*/true);
  absl::StatusOr<ListPage> next = OpenPage(tokens, 5, token, "me/0");
  ASSERT_THAT(next, testing::IsOk());
  ASSERT_TRUE(next->cursor.has_value());
  EXPECT_EQ(next->cursor->game_id, kBob);
  EXPECT_EQ(next->cursor->updated_at, kStart);
  EXPECT_EQ(next->size, 5);
  EXPECT_THAT(OpenPage(tokens, 5, token, "me/1"),
              testing::StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_));
  EXPECT_THAT(OpenPage(tokens, 5, std::string(513, 'a'), "me/0"),
              testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                "page_token is not one this server issued"));
}

}  // namespace
}  // namespace parlor::sessions
