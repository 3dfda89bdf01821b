#ifndef PARLOR_ENGINE_GAMES_KADICE_KADICE_TEST_UTIL_H_
#define PARLOR_ENGINE_GAMES_KADICE_KADICE_TEST_UTIL_H_

// Helpers shared by the kadice tests (kadice_*_test.cc): one test program, split by theme.

// KA'DICE! rule cases (RULES.md section 11), named like the rulebook, plus the
// refusals, options, views, protos and snapshots.
//
// Unless a test says otherwise: four players, Ann, Ben, Cat and Dan in seats 0-3. Dice are the
// values of dice 0-4. Chance is forced with Game::NewGameWithOutcomes: first each player's deck
// order (top card first), then the dealer war, then every die in the order the engine rolls it.
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "engine/games/kadice/kadice.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kadice/kadice_state.pb.h"
#include "parlor/games/v1/kadice.pb.h"

namespace parlor::games::kadice {

using engine::Action;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;
using StateProto = ::parlor::engine::kadice::KadiceState;

constexpr int kAnn = 0, kBen = 1, kCat = 2, kDan = 3;
const std::vector<int32_t> kFiller = {6, 5, 3, 2, 1};  // a roll that changes nothing

inline const KadiceGame& Game() {
  static const KadiceGame* game = new KadiceGame();
  return *game;
}

inline engine::Options DefaultOptions() { return *Game().ParseOptions({}, 4); }

inline uint32_t Mask(std::initializer_list<int> items) {
  uint32_t mask = 0;
  for (int i : items) mask |= 1u << i;
  return mask;
}
inline Action Roll(std::initializer_list<int> release = {}) { return RollAction(Mask(release)); }
inline Action Hold(std::initializer_list<int> dice = {}) { return HoldAction(Mask(dice)); }
inline Action Eliminate(std::initializer_list<int> targets) {
  return EliminateAction(Mask(targets));
}
inline Action Set(int die, int value) { return SetDieAction(die, value); }
inline Action Shift(int die, ShiftDirection direction) { return ShiftDieAction(die, direction); }

// A deck order with the given cards on top, then the others in canonical order.
inline std::vector<int32_t> DeckOrder(const std::vector<int>& top) {
  std::vector<int32_t> order(top.begin(), top.end());
  for (int c = 0; c < kNumCards; ++c) {
    if (std::find(top.begin(), top.end(), c) == top.end()) order.push_back(c);
  }
  return order;
}

inline void Append(std::vector<int32_t>& out, const std::vector<int32_t>& more) {
  out.insert(out.end(), more.begin(), more.end());
}

struct Table {
  std::vector<std::vector<int>> tops;  // per seat: the top cards of the deck
  int dealer = kAnn;                   // wins the dealer war with a 6 against 1s
  std::vector<int32_t> after;          // every later chance outcome, in order
};

inline std::unique_ptr<KadiceState> Own(std::unique_ptr<engine::State> state) {
  return std::unique_ptr<KadiceState>(static_cast<KadiceState*>(state.release()));
}

inline std::unique_ptr<KadiceState> Start(const Table& table) {
  const int n = static_cast<int>(table.tops.size());
  std::vector<int32_t> outcomes;
  for (const auto& top : table.tops) Append(outcomes, DeckOrder(top));
  for (int s = 0; s < n; ++s) outcomes.push_back(s == table.dealer ? 6 : 1);
  Append(outcomes, table.after);
  auto state = Game().NewGameWithOutcomes(n, *Game().ParseOptions({}, n),
                                          engine::Seed::FromUint64(7), outcomes);
  EXPECT_TRUE(state.ok()) << state.status();
  return Own(*std::move(state));
}

#define APPLY(state, seat, action) ASSERT_EQ((state)->Apply(seat, action), absl::OkStatus())

// The action is refused with `code` and a message containing `words`, and nothing changes.
inline void ExpectRefused(engine::State& state, int seat, Action action, absl::StatusCode code,
                          const std::string& words) {
  const std::string before = state.SerializeToString();
  const absl::Status status = state.Apply(seat, action);
  EXPECT_EQ(status.code(), code) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr(words));
  EXPECT_EQ(state.SerializeToString(), before) << "a refused action changed the state";
  EXPECT_EQ(state.CheckAction(seat, action).code(), code);
}
inline void ExpectBroken(engine::State& state, int seat, Action action, const std::string& rule) {
  ExpectRefused(state, seat, action, absl::StatusCode::kFailedPrecondition, rule);
}

inline bool IsLegal(const engine::State& state, int seat, Action action) {
  const std::vector<Action> legal = state.LegalActions(seat);
  return std::find(legal.begin(), legal.end(), action) != legal.end();
}

inline std::vector<int> DiceOf(const KadiceState& state, int seat) {
  const Dice& d = state.player(seat).dice;
  return {d.begin(), d.end()};
}

inline Dice D(int a, int b, int c, int d, int e) {
  return {static_cast<int8_t>(a), static_cast<int8_t>(b), static_cast<int8_t>(c),
          static_cast<int8_t>(d), static_cast<int8_t>(e)};
}

inline bool MeetsCard(const Dice& dice, Card card) { return Meets(dice, card); }

inline std::unique_ptr<v1::KadiceView> ViewOf(const engine::State& state,
                                              const engine::Viewer& viewer) {
  return std::unique_ptr<v1::KadiceView>(
      static_cast<v1::KadiceView*>(state.View(viewer).release()));
}

// ---- Positions built from a snapshot ------------------------------------------------------------

// Gives a player the active card and deck; every other card is in the discard pile.
inline void GiveCards(StateProto::Player* p, int active, const std::vector<int>& deck) {
  p->clear_deck();
  p->clear_discard();
  p->set_active(active);
  for (int c : deck) p->add_deck(c);
  for (int c = 0; c < kNumCards; ++c) {
    if (c != active && std::find(deck.begin(), deck.end(), c) == deck.end()) p->add_discard(c);
  }
}

inline void MakeGhost(StateProto::Player* p, int ghost_round, int moment) {
  GiveCards(p, -1, {});
  p->set_ghost(true);
  p->set_ghost_round(ghost_round);
  p->set_ghost_moment(moment);
  p->set_held(0);
}

// `seat` has rolled `dice` (all five rolled) and must decide.
inline void Deciding(StateProto& s, int seat, const std::vector<int>& dice, int turns_taken = 1) {
  s.set_phase(1);
  s.set_current(seat);
  s.set_rolled_mask(31);
  s.set_set_mask(0);
  s.set_five_of_a_kind(std::count(dice.begin(), dice.end(), dice[0]) == 5);
  s.set_turn_shift_used(false);
  s.set_bonus_pending(false);
  StateProto::Player* p = s.mutable_players(seat);
  p->clear_dice();
  for (int d : dice) p->add_dice(d);
  p->set_held(0);
  p->set_turns_taken(turns_taken);
}

// A copy of `state` with its snapshot edited (and, optionally, its random stream moved to draw
// number `rng_draws`, so that the next chance outcomes are known).
inline std::unique_ptr<KadiceState> Edited(const engine::State& state,
                                           const std::function<void(StateProto&)>& edit,
                                           std::optional<uint64_t> rng_draws = std::nullopt) {
  engine::v1::GameRecord record = state.Serialize();
  StateProto proto;
  EXPECT_TRUE(record.state().UnpackTo(&proto));
  proto.clear_events();
  edit(proto);
  record.mutable_state()->PackFrom(proto);
  if (rng_draws.has_value()) record.set_rng_draws(*rng_draws);
  auto loaded = Game().Deserialize(record);
  EXPECT_TRUE(loaded.ok()) << loaded.status();
  if (!loaded.ok()) return nullptr;
  return Own(*std::move(loaded));
}

// The first draw number from which the seed draws exactly `wanted` (value, sides) in order.
inline uint64_t DrawNumberGiving(const engine::Seed& seed,
                                 const std::vector<std::pair<int, int>>& wanted) {
  const engine::CounterRng rng(seed);
  for (uint64_t k = 1000;; ++k) {
    bool all = true;
    for (size_t i = 0; i < wanted.size() && all; ++i) {
      const auto [value, sides] = wanted[i];
      all = static_cast<int>(rng.Uniform(k + i, static_cast<uint64_t>(sides))) == value;
    }
    if (all) return k;
  }
}

inline void PlayFillerTurns(KadiceState& state, int count) {
  for (int i = 0; i < count; ++i) {
    const int seat = state.current();
    ASSERT_EQ(state.Apply(seat, RollAction(state.player(seat).held)), absl::OkStatus());
    ASSERT_EQ(state.Apply(seat, Hold()), absl::OkStatus());
  }
}

}  // namespace parlor::games::kadice

#endif  // PARLOR_ENGINE_GAMES_KADICE_KADICE_TEST_UTIL_H_
