#ifndef PARLOR_SERVICES_SESSIONS_DOMAIN_TIME_CONTROL_H_
#define PARLOR_SERVICES_SESSIONS_DOMAIN_TIME_CONTROL_H_

#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "services/sessions/domain/requests.h"
#include "services/sessions/store/rows.h"

// Time controls: how long a turn may take (per move, or a time bank with an increment), the
// reminders before a deadline, and vacations that pause a player's clock.
namespace parlor::sessions {

inline constexpr int64_t kHourSeconds = 3600;
inline constexpr int64_t kDaySeconds = 86400;

// The request's time control, checked: INVALID_ARGUMENT naming the field when out of bounds
// (per move 1 hour to 14 days; a bank of 1 hour to 30 days with an increment up to the bank;
// 0 to 30 vacation days; whole seconds).
absl::StatusOr<TimeControlRow> ParseTimeControl(const TimeControlSpec& tc);
// The time control a row holds, as asked for (a rematch asks for its game's).
TimeControlSpec TimeControlOf(const TimeControlRow& row);

// The least time any turn starts with: the per-move limit; for a time bank a third of the
// initial bank, at least 1 hour (a bank emptied by a timeout, with no increment, still gives the
// next turn that long).
absl::Duration TurnFloor(const TimeControlRow& tc);

// The time a seat has for the turn it starts now: the per-move limit, or what is left in its
// bank, never less than TurnFloor.
absl::Duration TurnTime(const TimeControlRow& tc, const SeatRow& seat);

// The time the seat's running turn has taken on its clock at `now` (not the time its clock was
// paused; zero before the turn's clock starts).
absl::Duration TimeUsed(const SeatRow& seat, absl::Time now);

// A time bank after a move that took `used`: the time used is taken (not below zero), then the
// increment added, capped at the initial bank.
int64_t ChargedBankMs(const TimeControlRow& tc, int64_t bank_ms, absl::Duration used);

// What a seat's bank holds at `now` (the running turn's time taken off); nullopt without a bank.
std::optional<int64_t> RemainingBankMs(const SeatRow& seat, absl::Time now);

// How many reminders (0, 1 or 2) are due at `now` for a running turn, the first at `first` and
// the second at `second` (fractions of the turn's time); none while its clock is paused.
int RemindersDue(const SeatRow& seat, absl::Time now, double first, double second);

// What is left of the game's vacation allowance for the seat (vacation_days, less the pauses it
// has used).
absl::Duration VacationAllowanceLeft(const TimeControlRow& tc, const SeatRow& seat);

// Pauses the clock of the seat's running turn at `now` while its player is on vacation
// (seat.vacation_until after `now`): until the vacation ends, within what is left of the game's
// allowance. The turn's start and deadline move forward by the pause, which is charged to the
// allowance at once (ResumeClock gives back what is not used). Nothing happens when the seat is
// not on vacation, its clock is already paused or no allowance is left.
void PauseClock(const TimeControlRow& tc, SeatRow& seat, absl::Time now);

// Ends the seat's pause at `now` if it runs past it (the vacation ended early, or the turn
// ended): the turn's start and deadline move back by the part of the pause not used, which goes
// back to the allowance. Clears paused_until.
void ResumeClock(SeatRow& seat, absl::Time now);

}  // namespace parlor::sessions

#endif  // PARLOR_SERVICES_SESSIONS_DOMAIN_TIME_CONTROL_H_
