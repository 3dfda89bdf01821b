#ifndef PARLOR_ENGINE_GAMES_PESCADO_PESCADO_TEST_UTIL_H_
#define PARLOR_ENGINE_GAMES_PESCADO_PESCADO_TEST_UTIL_H_

// Helpers shared by the pescado tests (pescado_*_test.cc): one test program, split by theme.

// The rule cases of RULES.md section 11, named like the rulebook, plus the
// rules behind them, every illegal-action message, options, views, protos and snapshots.
//
// Unless a test says otherwise: three players, Ann (seat 0), Ben (seat 1) and Cat (seat 2), in
// turn order Ann → Ben → Cat; snatching off. Chance is forced with NewGameWithOutcomes: the
// shuffle's resulting order (top of the stack first; the first six fill pool slots 0–5), the
// first player's index, then die faces 1..6 (1 yellow, 2 orange, 3 red, 4 blue, 5 green,
// 6 black).
#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "engine/core/rng.h"
#include "engine/games/pescado/pescado.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "parlor/games/v1/pescado.pb.h"
#include "pescado/pescado_state.pb.h"

namespace parlor::games::pescado {

using engine::Action;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;
namespace v1 = ::parlor::games::v1;

constexpr int kAnn = 0, kBen = 1, kCat = 2;

inline const PescadoGame& Game() {
  static const PescadoGame* game = new PescadoGame();
  return *game;
}

inline engine::Options Opts(bool snatching = false) {
  return engine::Options({{"snatching", snatching ? 1 : 0}});
}

// The stack order: the given tiles first, then every other tile ascending.
inline std::vector<int32_t> StackOrder(const std::vector<int>& first) {
  std::vector<int32_t> order(first.begin(), first.end());
  for (int t = 1; t <= kNumTiles; ++t) {
    if (std::find(first.begin(), first.end(), t) == first.end()) order.push_back(t);
  }
  return order;
}

// Die faces from colour letters, e.g. "YYOBG".
inline std::vector<int32_t> Faces(const std::string& letters) {
  std::vector<int32_t> faces;
  for (char c : letters) faces.push_back(static_cast<int32_t>(std::string("YORBGK").find(c)) + 1);
  return faces;
}

// A game with the given stack order, first player and later die throws (letters).
inline std::unique_ptr<PescadoState> NewGame(int players, const std::vector<int>& stack_top,
                                             int first, const std::vector<std::string>& throws,
                                             bool snatching = false) {
  std::vector<int32_t> outcomes = StackOrder(stack_top);
  outcomes.push_back(first);
  for (const std::string& t : throws) {
    for (int32_t f : Faces(t)) outcomes.push_back(f);
  }
  auto state = Game().NewGameWithOutcomes(players, Opts(snatching), engine::Seed::FromUint64(7),
                                          std::move(outcomes));
  EXPECT_TRUE(state.ok()) << state.status();
  return std::unique_ptr<PescadoState>(static_cast<PescadoState*>(state->release()));
}

inline std::string DiceString(const PescadoState& s) {
  std::string out;
  for (Color c : s.Dice()) out += ColorLetter(c);
  return out;
}

inline std::vector<int> Pool(const PescadoState& s) {
  std::vector<int> pool;
  for (int slot = 0; slot < kPoolSlots; ++slot) pool.push_back(s.pool_tile(slot));
  return pool;
}

inline bool IsLegal(const PescadoState& s, int seat, Action a) {
  const std::vector<Action> legal = s.LegalActions(seat);
  return std::find(legal.begin(), legal.end(), a) != legal.end();
}

// Applies and expects success (and that the action was listed as legal).
inline void Accept(PescadoState& s, int seat, Action a) {
  EXPECT_TRUE(IsLegal(s, seat, a)) << s.ActionToString(seat, a);
  absl::Status status = s.Apply(seat, a);
  ASSERT_TRUE(status.ok()) << status;
}

// Expects a refusal with this code and message part, the state byte-for-byte unchanged, and
// the action absent from the legal list.
inline void ExpectRejected(PescadoState& s, int seat, Action a, absl::StatusCode code,
                           const std::string& message) {
  const std::string before = s.SerializeToString();
  absl::Status status = s.Apply(seat, a);
  EXPECT_EQ(status.code(), code) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr(message));
  EXPECT_EQ(s.SerializeToString(), before) << "a refused action changed the state";
  EXPECT_FALSE(IsLegal(s, seat, a));
}

inline void ExpectFailedPrecondition(PescadoState& s, int seat, Action a,
                                     const std::string& message) {
  ExpectRejected(s, seat, a, absl::StatusCode::kFailedPrecondition, message);
}

inline uint32_t Keep(std::initializer_list<int> dice) {
  uint32_t mask = 0;
  for (int d : dice) mask |= 1u << d;
  return mask;
}

inline v1::PescadoView ViewOf(const PescadoState& s, const engine::Viewer& viewer) {
  v1::PescadoView view;
  view.CopyFrom(*s.View(viewer));
  return view;
}

inline std::vector<std::pair<int, bool>> SupplyWithSafety(const PescadoState& s, int seat) {
  std::vector<std::pair<int, bool>> out;
  for (int t : s.Supply(seat)) out.push_back({t, s.IsSafe(t)});
  return out;
}

// A state built from a snapshot edited by `edit` (for end-of-game positions that would take a
// long scripted game to reach).
inline std::unique_ptr<PescadoState> FromSnapshot(
    int players, const std::function<void(engine::pescado::PescadoState&)>& edit,
    bool snatching = false) {
  auto fresh = Game().NewGame(players, Opts(snatching), engine::Seed::FromUint64(3));
  EXPECT_TRUE(fresh.ok());
  engine::v1::GameRecord record = (*fresh)->Serialize();
  engine::pescado::PescadoState proto;
  EXPECT_TRUE(record.state().UnpackTo(&proto));
  edit(proto);
  record.mutable_state()->PackFrom(proto);
  auto loaded = Game().Deserialize(record);
  EXPECT_TRUE(loaded.ok()) << loaded.status();
  if (!loaded.ok()) return nullptr;
  return std::unique_ptr<PescadoState>(static_cast<PescadoState*>(loaded->release()));
}

// The game of cases 1–12: pool 1, 7, 14, 19, 25, 29; the next stack tiles 12, 2, 3, 4, 5.
inline std::unique_ptr<PescadoState> CasesGame() {
  return NewGame(3, {1, 7, 14, 19, 25, 29, 12, 2, 3, 4, 5}, kAnn,
                 {"YYOBG",   // Ann's first throw (case 1)
                  "ORGK",    // Ann's second throw: dice 0, 1, 2 and a grey die (case 3)
                  "YOBBR",   // Ben's first throw (case 7)
                  "KKKKKK",  // Ben's second throw: five white dice and a grey die (case 9)
                  "ORGBB",   // Cat's first throw (case 10)
                  "YY"});    // Cat's second throw: two grey dice only (case 11)
}

inline void PlayCase1(PescadoState& s) {
  Accept(s, kAnn, EncodeThrowFirst());
  for (int t : {7, 19, 25}) Accept(s, kAnn, EncodeTakeTile(t));
}

inline void PlayCases1To3(PescadoState& s) {
  PlayCase1(s);
  Accept(s, kAnn, EncodeBuyGreyDie(1, 14));
  Accept(s, kAnn, EncodeThrowSecond(Keep({3, 4})));
}

inline void PlayCases1To6(PescadoState& s) {
  PlayCases1To3(s);
  Accept(s, kAnn, EncodeTakeTile(29));
  Accept(s, kAnn, EncodeEndTurn());
}

inline void PlayCases1To7(PescadoState& s) {
  PlayCases1To6(s);
  Accept(s, kBen, EncodeThrowFirst());
  Accept(s, kBen, EncodeTakeTile(19));
  Accept(s, kBen, EncodeTakeTile(12));
}

inline std::unique_ptr<PescadoState> Case15Game() {
  return NewGame(3, {3, 5, 10, 11, 28, 34, 30, 31, 32}, kAnn, {"RRRBG"}, /*snatching=*/true);
}

}  // namespace parlor::games::pescado

#endif  // PARLOR_ENGINE_GAMES_PESCADO_PESCADO_TEST_UTIL_H_
