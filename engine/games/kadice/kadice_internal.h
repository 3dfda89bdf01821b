#ifndef PARLOR_ENGINE_GAMES_KADICE_KADICE_INTERNAL_H_
#define PARLOR_ENGINE_GAMES_KADICE_KADICE_INTERNAL_H_

// Helpers shared by KA'DICE!'s own source files (rules, view, snapshot); not for use outside the
// folder.

#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/games/kadice/kadice.h"

namespace parlor::games::kadice::internal {

// Where each kind of action code starts (kadice.h documents the codes).
inline constexpr int kRollBase = 100;
inline constexpr int kSetDieBase = 200;
inline constexpr int kShiftDieBase = 300;
inline constexpr int kEliminateBase = 400;
inline constexpr int kHoldBase = 500;
inline constexpr uint32_t kAllDice = (1u << kNumDice) - 1;

inline std::string SeatName(int seat) { return absl::StrCat("seat ", seat); }

// "die 3", "dice 0, 1".
inline std::string DiceList(uint32_t mask) {
  std::vector<int> items;
  for (uint32_t m = mask; m != 0; m &= m - 1) items.push_back(std::countr_zero(m));
  return absl::StrCat(items.size() == 1 ? "die " : "dice ", absl::StrJoin(items, ", "));
}

// "seat 1, seat 2 and seat 3".
inline std::string SeatListWords(uint32_t mask) {
  std::vector<std::string> names;
  for (uint32_t m = mask; m != 0; m &= m - 1) names.push_back(SeatName(std::countr_zero(m)));
  if (names.size() <= 1) return absl::StrJoin(names, "");
  const std::string last = names.back();
  names.pop_back();
  return absl::StrCat(absl::StrJoin(names, ", "), " and ", last);
}

}  // namespace parlor::games::kadice::internal

#endif  // PARLOR_ENGINE_GAMES_KADICE_KADICE_INTERNAL_H_
