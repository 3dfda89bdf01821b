#ifndef PARLOR_SERVICES_SESSIONS_DOMAIN_MOVES_H_
#define PARLOR_SERVICES_SESSIONS_DOMAIN_MOVES_H_

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "engine/core/game.h"
#include "engine/core/rng.h"
#include "engine/core/state.h"
#include "services/sessions/store/rows.h"
#include "services/sessions/store/sessions_store.h"

// The sessions decisions as pure functions: from the locked game (its rows and its loaded engine
// state) and what was asked, to the Mutation one transaction writes. No database, no protos, no
// clock (the time is given; only the budget of automatic play is wall time), no randomness but
// the game's seeded streams: the same input decides the same (within that budget), so a retried
// transaction decides alike and every decision can be tested and fuzzed alone (moves_test.cc,
// fuzz/services/sessions_moves_fuzzer.cc).
namespace parlor::sessions {

// How much automatic play (computer seats, forfeited seats) one request or one sweep of a game
// may do: at most `moves` moves and about `budget` of time (at least one move). What remains is
// left to the sweeper: the waiting computer seat is due at once.
struct AutoPlayLimits {
  int moves = 100;
  absl::Duration budget = absl::Milliseconds(250);
};

// What every decision needs besides the game's rows and state.
struct DecisionContext {
  const engine::Game* game = nullptr;
  absl::Time now;
  AutoPlayLimits limits;
  // What the stored snapshot carries of the log: only the setup's entry (the others are the
  // game's log rows), or every entry (Sessions::Options::snapshot_with_log).
  engine::State::LogForm snapshot_log = engine::State::LogForm::kSetupOnly;
};

// A decided state change: the rows to write, and the engine state it leaves (to keep loaded
// once it has committed, and to answer the caller from).
struct Decision {
  Mutation mutation;
  std::unique_ptr<engine::State> state;
};

// The seat of `account_id` in the game, or -1 when it is not seated.
int SeatOf(const GameRow& row, absl::string_view account_id);

// Whether the game's rows leave automatic play (a computer or forfeited seat) due at once, as a
// change that stopped at its bound on automatic play does: the sweeper should run now.
bool LeavesAutoPlayDue(const GameRow& after);

// What a new game is made of (CreateGame, CreateBotGame), checked by the caller: options parsed
// for the number of seats, the time control parsed.
struct NewGameSpec {
  std::string game_id;
  std::string match_id;  // empty for a game against the computer
  bool ranked = false;
  bool is_public = false;
  engine::Options options;
  TimeControlRow time_control;
  // Seat i at index i; team -1 = as the game's options place it.
  std::vector<SeatRow> seats;
  engine::Seed seed;
};
// The game set up, with any computer moves made at once (it may even have ended): its setup log
// entry first. INVALID_ARGUMENT when a seat's team disagrees with the game's options.
absl::StatusOr<Decision> DecideNewGame(const DecisionContext& ctx, NewGameSpec spec);

// SubmitAction, before the state is loaded: FAILED_PRECONDITION once the game has ended,
// PERMISSION_DENIED when the seat has forfeited.
absl::Status CheckCanMove(const GameRow& locked, int seat);

// One player's move. `action` is the request's action as the game decoded it (its refusal is
// returned only once the turn has been checked, so the caller may decode before locking).
struct MoveRequest {
  int seat = -1;
  std::string account_id;
  absl::StatusOr<engine::Action> action;
};
// The move applied, the computer's answers made, the clocks and notices updated. PERMISSION_
// DENIED when it is not the seat's turn (or the engine's own refusal when the seat has already
// made its choice of a simultaneous step); the action's refusal otherwise.
absl::StatusOr<Decision> DecideMove(const DecisionContext& ctx, const GameRow& locked,
                                    std::unique_ptr<engine::State> state,
                                    const MoveRequest& request);

// Resign, before the state is loaded: FAILED_PRECONDITION once the game has ended or when the
// seat has already forfeited.
absl::Status CheckCanResign(const GameRow& locked, int seat);
// The seat forfeits; the game goes on without it (its turns are played by the computer), or
// ends.
absl::StatusOr<Decision> DecideResign(const DecisionContext& ctx, const GameRow& locked,
                                      std::unique_ptr<engine::State> state, int seat,
                                      const std::string& account_id);

// What the sweeper does at a deadline.
struct TimeoutPolicy {
  // Bot that moves for a timed-out seat of a casual game (a ranked game's seat forfeits).
  std::string timeout_bot = "greedy";
  // A casual game's seat whose turns time out this many times in a row forfeits (as a ranked
  // game's seat does at its first timeout) instead of the computer moving for it again; 0 never.
  int casual_forfeit_after = 3;
};
// One sweep of one game at ctx.now: seats past their deadline time out (a vacation has already
// moved the deadline of a paused clock), reminders fall due at kFirstReminderFraction and
// kSecondReminderFraction of the turn's time (none while a clock is paused),
// computer seats left waiting play on. nullopt when nothing is due. `timeouts` gets "bot" or
// "forfeit" per timed-out seat.
absl::StatusOr<std::optional<Decision>> DecideTimeouts(const DecisionContext& ctx,
                                                       const GameRow& locked,
                                                       std::unique_ptr<engine::State> state,
                                                       const TimeoutPolicy& policy,
                                                       std::vector<std::string>* timeouts);

// A vacation of `account_id` starting (`until` set: its end) or ending early (`until` unset) at
// `now`, in one of its games: its seat shows the vacation (Seat.vacation_until) and its running
// turn's clock pauses (PauseClock) or resumes (ResumeClock). The version stays. nullopt when
// nothing changes (the game has ended, or the account's seat is unaffected).
std::optional<Mutation> DecideVacation(const GameRow& locked, absl::string_view account_id,
                                       absl::Time now, std::optional<absl::Time> until);

}  // namespace parlor::sessions

#endif  // PARLOR_SERVICES_SESSIONS_DOMAIN_MOVES_H_
