#ifndef PARLOR_SERVICES_MATCHMAKING_DOMAIN_TIME_CONTROLS_H_
#define PARLOR_SERVICES_MATCHMAKING_DOMAIN_TIME_CONTROLS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

// The published time controls players choose from for games against people (Enqueue and
// Challenge), and the visibility of those games. Tickets only meet tickets with the same time
// control and visibility; the match's game is created with them.
namespace parlor::matchmaking {

struct TimeControlChoice {
  // Its value in parlor.matchmaking.v1.TimeControl (0, unset, means the default).
  int number = 0;
  // The name tickets, challenges and matches store ("per_move_1d").
  std::string name;
  // What a client shows ("1 day per move").
  std::string label;
  // Per move: the limit. Time bank: its initial bank and the increment per move (per_move_s 0).
  int64_t per_move_s = 0;
  int64_t bank_initial_s = 0;
  int64_t bank_increment_s = 0;
  // Vacation days each player may use in the game.
  int vacation_days = 7;
};

// Every published time control, in the proto's order.
const std::vector<TimeControlChoice>& TimeControlChoices();

// The default (unset): 72 hours per move, 7 vacation days, as before players could choose.
const TimeControlChoice& DefaultTimeControl();

// The choice with this proto value (0: the default). INVALID_ARGUMENT naming the field and the
// choices for any other value.
absl::StatusOr<const TimeControlChoice*> FindTimeControl(int number);

// The choice stored under `name`; the default for a name not in the set.
const TimeControlChoice& TimeControlNamed(const std::string& name);

// "private" (0, unset, or 1) or "public" (2), from parlor.matchmaking.v1.GameVisibility;
// INVALID_ARGUMENT for any other value.
absl::StatusOr<std::string> VisibilityName(int number);
// The proto value of a stored visibility.
int VisibilityNumber(const std::string& name);

}  // namespace parlor::matchmaking

#endif  // PARLOR_SERVICES_MATCHMAKING_DOMAIN_TIME_CONTROLS_H_
