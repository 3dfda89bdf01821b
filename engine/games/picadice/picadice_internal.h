#ifndef PARLOR_ENGINE_GAMES_PICADICE_PICADICE_INTERNAL_H_
#define PARLOR_ENGINE_GAMES_PICADICE_PICADICE_INTERNAL_H_

// Helpers shared by Picadice's own source files (rules, view, snapshot); not for use outside the
// folder.

#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "engine/games/picadice/picadice.h"

namespace parlor::games::picadice::internal {

inline const char* ColourName(int colour) {
  static constexpr const char* kNames[] = {"?",    "orange", "yellow", "green",
                                           "blue", "purple", "black"};
  return colour >= 1 && colour <= kColours ? kNames[colour] : kNames[0];
}

// "columns 1 to 3", or "column 2" for a single circle.
inline std::string ColumnsText(int start_column, int count) {
  if (count == 1) return absl::StrCat("column ", start_column);
  return absl::StrCat("columns ", start_column, " to ", start_column + count - 1);
}

inline absl::Status NoBlackRow(absl::string_view field) {
  return absl::InvalidArgumentError(absl::StrCat(
      "NO_BLACK_ROW: ", field,
      " names black, which is never a row colour; black dice are used with CallPicaBirds and "
      "black nest counters with StealBlackFromNest"));
}

inline Action Encode(Kind kind, int victim, int colour, int column, int destination) {
  return static_cast<Action>(kind) * 10000 + victim * 1000 + colour * 100 + column * 10 +
         destination;
}

inline int MaxRounds(bool match_play, int sides, int match_target) {
  return match_play ? sides * (match_target - 1) + 1 : 1;
}

}  // namespace parlor::games::picadice::internal

#endif  // PARLOR_ENGINE_GAMES_PICADICE_PICADICE_INTERNAL_H_
