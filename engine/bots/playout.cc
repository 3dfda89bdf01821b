// The hard bot's guided playout policies (see PlayoutPolicyFor in bot.h). Each one sees only what
// every player sees in the determinization it is handed: a hand, the dice, the tiles on the table;
// never an opponent's pending choice.

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/bots/bot.h"
#include "engine/games/kadice/kadice.h"
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

// KA'DICE!: the key of a multiset of kept dice, the count of each face as a base-5 digit.
constexpr int kKeptKeys = 5 * 5 * 5 * 5 * 5 * 5;
int KeptKey(const games::kadice::Dice& dice, uint32_t mask) {
  static constexpr std::array<int, 7> kDigit = {0, 1, 5, 25, 125, 625, 3125};
  int key = 0;
  for (uint32_t m = mask; m != 0; m &= m - 1) key += kDigit[dice[std::countr_zero(m)]];
  return key;
}

// KA'DICE!: for every multiset of at most four kept dice and every card, the chance that
// throwing the other dice makes all five meet the card's requirement (rules 7), exact: every
// throw of five dice counted once for each way of keeping at most four of them, since the kept
// values do not change the distribution of the thrown ones.
const std::vector<std::array<float, games::kadice::kNumCards>>& KeptOdds() {
  namespace k = games::kadice;
  static const std::vector<std::array<float, k::kNumCards>> kOdds = [] {
    std::vector<std::array<int, k::kNumCards>> hits(kKeptKeys);
    std::vector<int> throws(kKeptKeys, 0);
    k::Dice dice{};
    for (int code = 0; code < 7776; ++code) {
      for (int i = 0, x = code; i < k::kNumDice; ++i, x /= 6) {
        dice[i] = static_cast<int8_t>(1 + x % 6);
      }
      const uint32_t met = k::MetCards(dice);
      for (uint32_t mask = 0; mask < 31; ++mask) {
        if (std::popcount(mask) > k::kMaxHeld) continue;
        const int key = KeptKey(dice, mask);
        ++throws[key];
        for (uint32_t m = met; m != 0; m &= m - 1) ++hits[key][std::countr_zero(m)];
      }
    }
    std::vector<std::array<float, k::kNumCards>> odds(kKeptKeys);
    for (int key = 0; key < kKeptKeys; ++key) {
      for (int c = 0; c < k::kNumCards; ++c) {
        odds[key][c] = throws[key] > 0 ? static_cast<float>(hits[key][c]) / throws[key] : 0.0f;
      }
    }
    return odds;
  }();
  return kOdds;
}

// KA'DICE!: eliminate as many cards as the dice allow; otherwise change a die when that makes the
// dice meet a target or improves the best hold, then hold the dice with the best chance that the
// next throw of the others meets a target's requirement; before a throw, release the held dice
// that lower that chance. A target is an opponent's active card that is not immune; with several,
// the chances are added (the expected number of cards met).
Action KadicePolicy(const State& state, int seat, const std::vector<Action>& legal, Rng& rng) {
  namespace k = games::kadice;
  const auto* kadice = dynamic_cast<const k::KadiceState*>(&state);
  if (kadice == nullptr) return legal[rng.Uniform(legal.size())];
  uint32_t targets = 0;
  for (int s = 0; s < kadice->num_players(); ++s) {
    const k::KadiceState::Player& p = kadice->player(s);
    if (s != seat && p.active >= 0 && !p.immune) targets |= 1u << p.active;
  }
  const auto& odds = KeptOdds();
  auto chance = [&](const k::Dice& dice, uint32_t keep) {
    const std::array<float, k::kNumCards>& row = odds[KeptKey(dice, keep)];
    double sum = 0.0;
    for (uint32_t m = targets; m != 0; m &= m - 1) sum += row[std::countr_zero(m)];
    return sum;
  };
  // The best hold of `dice`: 1 + cards met when they already meet a target (eliminate now),
  // else the best chance over every hold of at most four dice.
  auto best_hold = [&](const k::Dice& dice) {
    const uint32_t met = k::MetCards(dice) & targets;
    if (met != 0) return 1.0 + std::popcount(met);
    double best = 0.0;
    for (uint32_t mask = 0; mask < 31; ++mask) {
      if (std::popcount(mask) <= k::kMaxHeld) best = std::max(best, chance(dice, mask));
    }
    return best;
  };
  const k::KadiceState::Player& me = kadice->player(seat);
  const k::Dice& dice = me.dice;
  double best = -1.0;
  Action choice = legal[0];
  uint64_t ties = 0;
  auto consider = [&](Action a, double value) {
    if (value > best + 1e-9) {
      best = value;
      choice = a;
      ties = 1;
    } else if (value > best - 1e-9 && rng.Uniform(++ties) == 0) {
      choice = a;
    }
  };
  if (kadice->phase() == k::Phase::kAwaitRoll) {
    for (Action a : legal) {
      const absl::StatusOr<k::DecodedAction> d = k::DecodeAction(a);
      if (d.ok() && d->kind == k::kRoll) consider(a, chance(dice, me.held & ~d->mask));
    }
    return choice;
  }
  const double hold_now = best_hold(dice);
  for (Action a : legal) {
    const absl::StatusOr<k::DecodedAction> d = k::DecodeAction(a);
    if (!d.ok()) continue;
    switch (d->kind) {
      case k::kEliminate:
        consider(a, 100.0 + std::popcount(d->mask));
        break;
      case k::kHold:
        consider(a, chance(dice, d->mask));
        break;
      case k::kSetDie:
      case k::kShiftDie: {
        k::Dice changed = dice;
        if (d->kind == k::kSetDie) {
          changed[d->die] = static_cast<int8_t>(d->value);
        } else {
          changed[d->die] = static_cast<int8_t>(changed[d->die] + (d->value == k::kUp ? 1 : -1));
        }
        // Only a strict improvement: a change that gains nothing is not made.
        const double value = best_hold(changed);
        if (value > hold_now + 1e-6) consider(a, value + 50.0 * (value >= 1.0));
        break;
      }
      default:
        break;
    }
  }
  return choice;
}

// KA'DICE!: the leaf judgement (LeafHeuristicFor). Each player's chance q that their next throw
// meets a target: 1 for the player deciding with dice that already meet one, else the best chance
// over the dice they may keep (any four of the five while deciding, any of the held ones before
// a throw, since held dice can be released). Worth kKadiceChanceWeight points per unit of q
// against the opponents' average, a card being ten.
constexpr double kKadiceChanceWeight = 5.0;
double KadiceLeaf(const State& state, int seat) {
  namespace k = games::kadice;
  const auto* kadice = dynamic_cast<const k::KadiceState*>(&state);
  if (kadice == nullptr || kadice->phase() == k::Phase::kGameOver) return state.Heuristic(seat);
  const auto& odds = KeptOdds();
  const int n = kadice->num_players();
  auto chance_of = [&](int p) {
    const k::KadiceState::Player& player = kadice->player(p);
    if (player.ghost || player.active < 0) return 0.0;
    uint32_t targets = 0;
    for (int s = 0; s < n; ++s) {
      const k::KadiceState::Player& other = kadice->player(s);
      if (s != p && other.active >= 0 && !other.immune) targets |= 1u << other.active;
    }
    if (targets == 0) return 0.0;
    const bool deciding = kadice->phase() == k::Phase::kDecide && kadice->current() == p;
    if (deciding && (k::MetCards(player.dice) & targets) != 0) return 1.0;
    const uint32_t may_keep = deciding ? 31u : player.held;
    double best = 0.0;
    for (uint32_t mask = 0; mask < 32; ++mask) {
      if ((mask & ~may_keep) != 0 || std::popcount(mask) > k::kMaxHeld) continue;
      const std::array<float, k::kNumCards>& row = odds[KeptKey(player.dice, mask)];
      double sum = 0.0;
      for (uint32_t m = targets; m != 0; m &= m - 1) sum += row[std::countr_zero(m)];
      best = std::max(best, sum);
    }
    return best;
  };
  double others_cards = 0.0;
  double others_chance = 0.0;
  for (int s = 0; s < n; ++s) {
    if (s == seat) continue;
    others_cards += kadice->player(s).cards_left();
    others_chance += chance_of(s);
  }
  const k::KadiceState::Player& me = kadice->player(seat);
  return 10.0 * (me.cards_left() - others_cards / (n - 1)) + (me.immune ? 1.0 : 0.0) +
         kKadiceChanceWeight * (chance_of(seat) - others_chance / (n - 1));
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

LeafHeuristic LeafHeuristicFor(const engine::Game& game) {
  if (game.name() == "kadice") return KadiceLeaf;
  return nullptr;
}

PlayoutPolicy PlayoutPolicyFor(const engine::Game& game) {
  if (game.name() == "pico") return PicoPolicy;
  if (game.name() == "pescado") return PescadoPolicy;
  if (game.name() == "kadice") return KadicePolicy;
  return nullptr;
}

}  // namespace parlor::bots
