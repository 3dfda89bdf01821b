#ifndef PARLOR_SERVICES_SESSIONS_DOMAIN_TIME_CONTROL_H_
#define PARLOR_SERVICES_SESSIONS_DOMAIN_TIME_CONTROL_H_

#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "parlor/sessions/v1/sessions.pb.h"
#include "services/sessions/store/rows.h"

// Time controls: how long a turn may take (per move, or a time bank with an increment), the
// reminders before a deadline, and vacations that pause a player's clock.
namespace parlor::sessions {

inline constexpr int64_t kHourSeconds = 3600;
inline constexpr int64_t kDaySeconds = 86400;

// The request's time control, checked: INVALID_ARGUMENT naming the field when out of bounds
// (per move 1 hour to 14 days; a bank of 1 hour to 30 days with an increment up to the bank;
// 0 to 30 vacation days; whole seconds).
absl::StatusOr<TimeControlRow> ParseTimeControl(const v1::TimeControl& tc);
v1::TimeControl TimeControlProto(const TimeControlRow& row);

// The time a seat has for the turn it starts now: the per-move limit, or what is left in its
// bank.
absl::Duration TurnTime(const TimeControlRow& tc, const SeatRow& seat);

// A time bank after a move that took `used`: the time used is taken (not below zero), then the
// increment added, capped at the initial bank.
int64_t ChargedBankMs(const TimeControlRow& tc, int64_t bank_ms, absl::Duration used);

// What a seat's bank holds at `now` (the running turn's time taken off); nullopt without a bank.
std::optional<int64_t> RemainingBankMs(const SeatRow& seat, absl::Time now);

// How many reminders (0, 1 or 2) are due at `now` for a running turn, the first at `first` and
// the second at `second` (fractions of the turn's time).
int RemindersDue(const SeatRow& seat, absl::Time now, double first, double second);

// A player on vacation until `vacation_ends` whose deadline has passed: how long its clock
// pauses (until the vacation ends, within what is left of the game's vacation allowance);
// nullopt when the allowance is used up.
std::optional<absl::Duration> VacationPause(const TimeControlRow& tc, const SeatRow& seat,
                                            absl::Time vacation_ends, absl::Time now);

}  // namespace parlor::sessions

#endif  // PARLOR_SERVICES_SESSIONS_DOMAIN_TIME_CONTROL_H_
