#include "services/matchmaking/domain/time_controls.h"

#include "absl/strings/str_cat.h"

namespace parlor::matchmaking {
namespace {

constexpr int64_t kHour = 3600;
constexpr int64_t kDay = 24 * kHour;
constexpr int kDefaultNumber = 3;

}  // namespace

const std::vector<TimeControlChoice>& TimeControlChoices() {
  static const std::vector<TimeControlChoice>* const choices = new std::vector<TimeControlChoice>{
      {1, "per_move_1h", "1 hour per move", kHour, 0, 0, 7},
      {2, "per_move_1d", "1 day per move", kDay, 0, 0, 7},
      {3, "per_move_3d", "3 days per move", 3 * kDay, 0, 0, 7},
      {4, "per_move_7d", "7 days per move", 7 * kDay, 0, 0, 7},
      {5, "bank_3d_plus_1d", "3-day time bank, +1 day per move", 0, 3 * kDay, kDay, 7},
  };
  return *choices;
}

const TimeControlChoice& DefaultTimeControl() { return TimeControlChoices()[kDefaultNumber - 1]; }

absl::StatusOr<const TimeControlChoice*> FindTimeControl(int number) {
  if (number == 0) return &DefaultTimeControl();
  for (const TimeControlChoice& c : TimeControlChoices()) {
    if (c.number == number) return &c;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "time_control: unknown value ", number, "; ListTimeControls lists the choices (1 to ",
      TimeControlChoices().size(), "; unset means 3 days per move)"));
}

const TimeControlChoice& TimeControlNamed(const std::string& name) {
  for (const TimeControlChoice& c : TimeControlChoices()) {
    if (c.name == name) return c;
  }
  return DefaultTimeControl();
}

absl::StatusOr<std::string> VisibilityName(int number) {
  if (number == 0 || number == 1) return std::string("private");
  if (number == 2) return std::string("public");
  return absl::InvalidArgumentError(absl::StrCat(
      "visibility: unknown value ", number,
      "; use GAME_VISIBILITY_PRIVATE (1, also when unset) or GAME_VISIBILITY_PUBLIC (2)"));
}

int VisibilityNumber(const std::string& name) { return name == "public" ? 2 : 1; }

}  // namespace parlor::matchmaking
