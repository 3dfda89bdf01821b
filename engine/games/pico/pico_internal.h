#ifndef PARLOR_ENGINE_GAMES_PICO_PICO_INTERNAL_H_
#define PARLOR_ENGINE_GAMES_PICO_PICO_INTERNAL_H_

// Helpers shared by Pico's own source files (rules, view, snapshot); not for use outside the
// folder.

#include <array>
#include <bit>
#include <cstdint>

#include "engine/games/pico/pico.h"

namespace parlor::games::pico::internal {

// Card values of a mask, ascending.
template <typename Repeated>
void AddCards(uint16_t mask, Repeated* out) {
  for (uint32_t m = mask; m != 0; m &= m - 1) out->Add(kCardValues[std::countr_zero(m)]);
}

// The seat whose card wins a trick (cards by index, indexed by seat).
inline int WinnerOf(const std::array<int8_t, 2>& cards) {
  return Beats(kCardValues[cards[0]], kCardValues[cards[1]]) ? 0 : 1;
}

}  // namespace parlor::games::pico::internal

#endif  // PARLOR_ENGINE_GAMES_PICO_PICO_INTERNAL_H_
