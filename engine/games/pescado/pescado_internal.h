#ifndef PARLOR_ENGINE_GAMES_PESCADO_PESCADO_INTERNAL_H_
#define PARLOR_ENGINE_GAMES_PESCADO_PESCADO_INTERNAL_H_

// Helpers shared by Pescado's own source files (rules, view, snapshot); not for use outside the
// folder.

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "engine/games/pescado/pescado.h"

namespace parlor::games::pescado::internal {

// A tile's bit in a set of tiles.
inline uint64_t Bit(int tile) { return uint64_t{1} << tile; }

inline bool ValidTile(int t) { return t >= 1 && t <= kNumTiles; }

// "12 (RRB)".
inline std::string TileLabel(int tile) { return absl::StrCat(tile, " (", Tile(tile).name, ")"); }

}  // namespace parlor::games::pescado::internal

#endif  // PARLOR_ENGINE_GAMES_PESCADO_PESCADO_INTERNAL_H_
