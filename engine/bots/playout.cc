// The hard bot's guided playout policies (see PlayoutPolicyFor in bot.h). Each one sees only what
// every player sees in the determinization it is handed: a hand, the dice, the tiles on the table;
// never an opponent's pending choice.

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <functional>
#include <vector>

#include "engine/bots/bot.h"
#include "engine/games/pescado/pescado.h"
#include "engine/games/pico/pico.h"

namespace parlor::bots {

using engine::Action;
using engine::Rng;
using engine::State;

namespace {

// Pico: the card with the best mean result of this one trick against each card the opponent
// holds (a win scores the card's points, a loss gives the opponent's card's points), as the greedy
// bot judges it, without its sampling noise. Ties are broken at random.
Action PicoPolicy(const State& state, int seat, const std::vector<Action>& legal, Rng& rng) {
  namespace p = games::pico;
  // kTrick[i][j]: the points card i gains (won) or gives away (lost) against card j.
  static constexpr auto kTrick = [] {
    std::array<std::array<int8_t, p::kNumCards>, p::kNumCards> trick{};
    for (int i = 0; i < p::kNumCards; ++i) {
      for (int j = 0; j < p::kNumCards; ++j) {
        if (i == j) continue;
        trick[i][j] = static_cast<int8_t>(p::Beats(p::kCardValues[i], p::kCardValues[j])
                                              ? p::kCardPoints[i]
                                              : -p::kCardPoints[j]);
      }
    }
    return trick;
  }();
  const auto* pico = dynamic_cast<const p::PicoState*>(&state);
  if (pico == nullptr) return legal[rng.Uniform(legal.size())];
  const uint32_t theirs = pico->hand(1 - seat);
  int best = -1000;
  Action choice = legal[0];
  uint64_t ties = 0;
  for (Action a : legal) {
    const int mine = p::CardIndex(a);
    if (mine < 0) continue;
    int value = 0;
    for (uint32_t m = theirs; m != 0; m &= m - 1) value += kTrick[mine][std::countr_zero(m)];
    if (value > best) {
      best = value;
      choice = a;
      ties = 1;
    } else if (value == best && rng.Uniform(++ties) == 0) {
      choice = a;
    }
  }
  return choice;
}

// Pescado. The chance that `dice` fresh dice show at least need[c] of every colour c, for the needs
// of one tile (at most three fish): exact, by counting the 6^dice throws once per shape of need.
double ChanceToShow(std::array<int, games::pescado::kNumColors> need, int dice) {
  // Shapes of a need of at most three fish, by its counts sorted descending.
  static const std::vector<std::array<int, 3>> kShapes = {
      {0, 0, 0}, {1, 0, 0}, {2, 0, 0}, {1, 1, 0}, {3, 0, 0}, {2, 1, 0}, {1, 1, 1}};
  constexpr int kMaxDice = games::pescado::kMaxDice;
  static const std::vector<std::array<double, kMaxDice + 1>> kTable = [] {
    std::vector<std::array<double, kMaxDice + 1>> table(kShapes.size());
    for (size_t s = 0; s < kShapes.size(); ++s) {
      for (int n = 0; n <= kMaxDice; ++n) {
        int throws = 1;
        for (int i = 0; i < n; ++i) throws *= 6;
        int hits = 0;
        for (int code = 0; code < throws; ++code) {
          std::array<int, 6> counts{};
          for (int i = 0, x = code; i < n; ++i, x /= 6) ++counts[x % 6];
          hits += counts[0] >= kShapes[s][0] && counts[1] >= kShapes[s][1] &&
                  counts[2] >= kShapes[s][2];
        }
        table[s][n] = static_cast<double>(hits) / throws;
      }
    }
    return table;
  }();
  std::sort(need.begin(), need.end(), std::greater<int>());
  const std::array<int, 3> shape = {need[0], need[1], need[2]};
  const auto it = std::find(kShapes.begin(), kShapes.end(), shape);
  if (it == kShapes.end() || dice < 0 || dice > kMaxDice) return 0.0;
  return kTable[static_cast<size_t>(it - kShapes.begin())][dice];
}

// Pescado: take every matching tile, the most valuable first (one from the predecessor's supply
// before a pool tile of the same value: it is safe at once and the opponent loses it); before
// the second throw keep the white dice that already show part of the catchable tile with the best
// points times chance of completing it (a predecessor's tile counting double) and throw the rest,
// buying no grey die; after the second throw end the turn once nothing more matches.
Action PescadoPolicy(const State& state, int seat, const std::vector<Action>& legal, Rng& rng) {
  namespace p = games::pescado;
  const auto* pescado = dynamic_cast<const p::PescadoState*>(&state);
  if (pescado == nullptr) return legal[rng.Uniform(legal.size())];
  if (pescado->phase() != p::Phase::kFirstThrowResolved &&
      pescado->phase() != p::Phase::kSecondThrowResolved) {
    return legal[rng.Uniform(legal.size())];
  }
  const int predecessor = pescado->predecessor();
  std::vector<int> exposed;
  if (predecessor != seat) {
    for (int tile : pescado->Supply(predecessor)) {
      if (!pescado->IsSafe(tile)) exposed.push_back(tile);
    }
  }
  auto from_predecessor = [&](int tile) {
    return std::find(exposed.begin(), exposed.end(), tile) != exposed.end();
  };
  // The best tile to take now.
  int best_take = 0;
  int best_take_value = -1;
  for (Action a : legal) {
    const p::DecodedAction d = p::DecodeAction(a);
    if (d.kind != p::ActionType::kTakeTile) continue;
    const int value = 2 * p::Tile(d.tile).points + (from_predecessor(d.tile) ? 1 : 0);
    if (value > best_take_value) {
      best_take_value = value;
      best_take = d.tile;
    }
  }
  if (best_take != 0) return p::EncodeTakeTile(best_take);
  if (pescado->phase() == p::Phase::kSecondThrowResolved) return p::EncodeEndTurn();
  // Before the second throw: aim at one catchable tile.
  const std::vector<p::Color> dice = pescado->Dice();
  if (static_cast<int>(dice.size()) < p::kWhiteDice) return legal[rng.Uniform(legal.size())];
  std::vector<int> catchable = exposed;
  for (int slot = 0; slot < p::kPoolSlots; ++slot) {
    const int tile = pescado->pool_tile(slot);
    if (tile != 0 && !pescado->pool_flipped(slot)) catchable.push_back(tile);
  }
  double best = -1.0;
  uint32_t best_keep = 0;
  for (int tile : catchable) {
    std::array<int, p::kNumColors> need{};
    for (int c = 0; c < p::kNumColors; ++c) need[c] = p::Tile(tile).need[c];
    uint32_t keep = 0;
    for (int i = 0; i < p::kWhiteDice; ++i) {
      const int c = dice[i];
      if (need[c] > 0) {
        --need[c];
        keep |= 1u << i;
      }
    }
    const int thrown = p::kWhiteDice - std::popcount(keep) + pescado->grey_dice_bought();
    const double value =
        p::Tile(tile).points * (from_predecessor(tile) ? 2.0 : 1.0) * ChanceToShow(need, thrown);
    if (value > best) {
      best = value;
      best_keep = keep;
    }
  }
  const Action throw_second = p::EncodeThrowSecond(best_keep);
  if (std::binary_search(legal.begin(), legal.end(), throw_second)) return throw_second;
  return legal[rng.Uniform(legal.size())];
}

int PicoHiddenChooser(const State& state, int observer, std::vector<Action>* options) {
  const auto* pico = dynamic_cast<const games::pico::PicoState*>(&state);
  if (pico == nullptr || observer < 0 || observer > 1) return -1;
  const int other = 1 - observer;
  if (pico->pending_card(other) == 0) return -1;
  options->clear();
  for (int i = 0; i < games::pico::kNumCards; ++i) {
    if (pico->hand(other) >> i & 1u) options->push_back(games::pico::kCardValues[i]);
  }
  return other;
}

Action PicoHiddenChoice(const State& state, int seat) {
  const auto* pico = dynamic_cast<const games::pico::PicoState*>(&state);
  return pico == nullptr ? 0 : pico->pending_card(seat);
}

}  // namespace

HiddenChoiceModel HiddenChoiceModelFor(const engine::Game& game) {
  if (game.name() == "pico") return {PicoHiddenChooser, PicoHiddenChoice};
  return {};
}

PlayoutPolicy PlayoutPolicyFor(const engine::Game& game) {
  if (game.name() == "pico") return PicoPolicy;
  if (game.name() == "pescado") return PescadoPolicy;
  return nullptr;
}

}  // namespace parlor::bots
