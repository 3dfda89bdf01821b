#include "services/sessions/domain/time_control.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "services/common/core/status_macros.h"

namespace parlor::sessions {
namespace {

// Whole seconds as the API's Duration carries them (seconds, truncated towards zero).
absl::StatusOr<int64_t> WholeSeconds(absl::Duration d, absl::string_view field, int64_t lo,
                                     int64_t hi) {
  const int64_t seconds = absl::ToInt64Seconds(d);
  if (absl::Seconds(seconds) != d || seconds < lo || seconds > hi) {
    return absl::InvalidArgumentError(absl::StrCat(field, " must be whole seconds from ", lo,
                                                   " to ", hi, " (got ", seconds, "s)"));
  }
  return seconds;
}

int64_t Ms(absl::Duration d) { return absl::ToInt64Milliseconds(d); }

}  // namespace

absl::StatusOr<TimeControlRow> ParseTimeControl(const TimeControlSpec& tc) {
  TimeControlRow row;
  if (tc.vacation_days < 0 || tc.vacation_days > 30) {
    return absl::InvalidArgumentError("time_control.vacation_days must be 0 to 30");
  }
  row.vacation_days = tc.vacation_days;
  switch (tc.kind) {
    case TimeControlSpec::Kind::kPerMove: {
      row.kind = TimeControlRow::Kind::kPerMove;
      PARLOR_ASSIGN_OR_RETURN(row.per_move_s,
                              WholeSeconds(tc.per_move_limit, "time_control.per_move.limit",
                                           kHourSeconds, 14 * kDaySeconds));
      return row;
    }
    case TimeControlSpec::Kind::kTimeBank: {
      row.kind = TimeControlRow::Kind::kTimeBank;
      PARLOR_ASSIGN_OR_RETURN(row.bank_initial_s,
                              WholeSeconds(tc.bank_initial, "time_control.time_bank.initial",
                                           kHourSeconds, 30 * kDaySeconds));
      PARLOR_ASSIGN_OR_RETURN(row.bank_increment_s,
                              WholeSeconds(tc.bank_increment, "time_control.time_bank.increment", 0,
                                           row.bank_initial_s));
      return row;
    }
    case TimeControlSpec::Kind::kUnset:
      break;
  }
  return absl::InvalidArgumentError("time_control must set per_move or time_bank");
}

TimeControlSpec TimeControlOf(const TimeControlRow& row) {
  TimeControlSpec tc;
  tc.vacation_days = row.vacation_days;
  if (row.kind == TimeControlRow::Kind::kPerMove) {
    tc.kind = TimeControlSpec::Kind::kPerMove;
    tc.per_move_limit = absl::Seconds(row.per_move_s);
  } else {
    tc.kind = TimeControlSpec::Kind::kTimeBank;
    tc.bank_initial = absl::Seconds(row.bank_initial_s);
    tc.bank_increment = absl::Seconds(row.bank_increment_s);
  }
  return tc;
}

absl::Duration TurnFloor(const TimeControlRow& tc) {
  if (tc.kind == TimeControlRow::Kind::kPerMove) return absl::Seconds(tc.per_move_s);
  return std::min(absl::Seconds(tc.bank_initial_s),
                  std::max(absl::Seconds(kHourSeconds), absl::Seconds(tc.bank_initial_s) / 3));
}

absl::Duration TurnTime(const TimeControlRow& tc, const SeatRow& seat) {
  if (tc.kind == TimeControlRow::Kind::kPerMove) return absl::Seconds(tc.per_move_s);
  return std::max(TurnFloor(tc),
                  absl::Milliseconds(seat.time_bank_ms.value_or(tc.bank_initial_s * 1000)));
}

absl::Duration TimeUsed(const SeatRow& seat, absl::Time now) {
  if (!seat.turn_started_at) return absl::ZeroDuration();
  absl::Time clock_now = now;
  if (seat.paused_until && *seat.paused_until > now) clock_now = *seat.paused_until;
  return std::max(absl::ZeroDuration(), clock_now - *seat.turn_started_at);
}

int64_t ChargedBankMs(const TimeControlRow& tc, int64_t bank_ms, absl::Duration used) {
  const int64_t cap = tc.bank_initial_s * 1000;
  const int64_t left = std::max<int64_t>(0, bank_ms - Ms(used));
  return std::min(cap, left + tc.bank_increment_s * 1000);
}

std::optional<int64_t> RemainingBankMs(const SeatRow& seat, absl::Time now) {
  if (!seat.time_bank_ms) return std::nullopt;
  int64_t remaining = *seat.time_bank_ms;
  if (seat.my_turn && seat.turn_started_at) {
    remaining = std::max<int64_t>(0, remaining - Ms(TimeUsed(seat, now)));
  }
  return remaining;
}

int RemindersDue(const SeatRow& seat, absl::Time now, double first, double second) {
  if (!seat.deadline || !seat.turn_started_at) return 0;
  if (seat.paused_until && *seat.paused_until > now) return 0;
  const absl::Duration total = *seat.deadline - *seat.turn_started_at;
  if (now >= *seat.turn_started_at + total * second) return 2;
  if (now >= *seat.turn_started_at + total * first) return 1;
  return 0;
}

absl::Duration VacationAllowanceLeft(const TimeControlRow& tc, const SeatRow& seat) {
  const int64_t allowance_ms = int64_t{tc.vacation_days} * kDaySeconds * 1000;
  return absl::Milliseconds(std::max<int64_t>(0, allowance_ms - seat.vacation_used_ms));
}

void PauseClock(const TimeControlRow& tc, SeatRow& seat, absl::Time now) {
  if (seat.paused_until && *seat.paused_until <= now) seat.paused_until.reset();  // over
  if (!seat.my_turn || !seat.turn_started_at || !seat.deadline) return;
  if (!seat.vacation_until || *seat.vacation_until <= now) return;
  if (seat.paused_until) return;
  // Whole milliseconds, as the allowance is counted.
  const int64_t pause_ms =
      std::min(Ms(*seat.vacation_until - now), Ms(VacationAllowanceLeft(tc, seat)));
  if (pause_ms <= 0) return;
  const absl::Duration pause = absl::Milliseconds(pause_ms);
  seat.paused_until = now + pause;
  *seat.turn_started_at += pause;
  *seat.deadline += pause;
  seat.vacation_used_ms += pause_ms;
}

void ResumeClock(SeatRow& seat, absl::Time now) {
  if (seat.paused_until && *seat.paused_until > now) {
    const int64_t unused_ms = std::min(Ms(*seat.paused_until - now), seat.vacation_used_ms);
    const absl::Duration unused = absl::Milliseconds(unused_ms);
    if (seat.turn_started_at) *seat.turn_started_at -= unused;
    if (seat.deadline) *seat.deadline -= unused;
    seat.vacation_used_ms -= unused_ms;
  }
  seat.paused_until.reset();
}

}  // namespace parlor::sessions
