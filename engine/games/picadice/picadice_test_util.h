#ifndef PARLOR_ENGINE_GAMES_PICADICE_PICADICE_TEST_UTIL_H_
#define PARLOR_ENGINE_GAMES_PICADICE_PICADICE_TEST_UTIL_H_

// Helpers shared by the picadice tests (picadice_*_test.cc): one test program, split by theme.

// Picadice rules, case by case. The numbered tests are the rule cases of
// RULES.md section 10, named as there. Seats A, B, C, D are 0, 1, 2, 3.
#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/games/picadice/picadice.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "parlor/games/v1/picadice.pb.h"
#include "picadice/picadice_state.pb.h"

namespace parlor::games::picadice {

namespace pb = ::parlor::games::v1;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr int A = 0, B = 1, C = 2, D = 3;
constexpr int kOrange = 1, kYellow = 2, kGreen = 3, kBlue = 4, kPurple = 5;
constexpr int kBlackFace = 6;
constexpr int kDiscard = 0;

using Snapshot = engine::picadice::PicadiceState;

// "##.." -> the 4-bit row (bit j-1 for column j).
inline uint32_t RowBits(const std::string& pattern) {
  uint32_t bits = 0;
  for (int j = 0; j < 4; ++j) {
    if (pattern[j] == '#') bits |= 1u << j;
  }
  return bits;
}

// A grid from rows named by colour; rows not named are empty.
inline uint32_t Grid(const std::map<int, std::string>& rows) {
  uint32_t grid = 0;
  for (const auto& [colour, pattern] : rows) grid |= RowBits(pattern) << ((colour - 1) * 4);
  return grid;
}

// "Full except <colour> <pattern>".
inline uint32_t FullExcept(int colour, const std::string& pattern) {
  std::map<int, std::string> rows;
  for (int c = 1; c <= 5; ++c) rows[c] = c == colour ? pattern : "####";
  return Grid(rows);
}

inline uint32_t AllRows(const std::string& pattern) {
  return Grid({{1, pattern}, {2, pattern}, {3, pattern}, {4, pattern}, {5, pattern}});
}

inline std::string RowOf(const PicadiceState& s, int seat, int colour) {
  std::string out;
  for (int j = 0; j < 4; ++j) out += (s.row(seat, colour) >> j & 1) ? '#' : '.';
  return out;
}

class PicadiceTest : public ::testing::Test {
 protected:
  engine::Options Opts(int players, const std::map<std::string, std::string>& raw = {}) {
    absl::StatusOr<engine::Options> options = game_.ParseOptions(raw, players);
    EXPECT_TRUE(options.ok()) << options.status();
    return *options;
  }

  // A new game whose chance outcomes start with `outcomes` (roll-off faces, then dice).
  std::unique_ptr<PicadiceState> Start(int players, std::vector<int32_t> outcomes,
                                       const std::map<std::string, std::string>& raw = {}) {
    absl::StatusOr<std::unique_ptr<engine::State>> state = game_.NewGameWithOutcomes(
        players, Opts(players, raw), engine::Seed::FromUint64(7), std::move(outcomes));
    EXPECT_TRUE(state.ok()) << state.status();
    return std::unique_ptr<PicadiceState>(static_cast<PicadiceState*>(state->release()));
  }

  // A two-player (or `players`) game in which A won the roll-off and is in TURN_START.
  std::unique_ptr<PicadiceState> AToAct(int players = 2,
                                        const std::map<std::string, std::string>& raw = {},
                                        std::vector<int32_t> dice = {}) {
    std::vector<int32_t> outcomes = {kBlackFace};
    for (int p = 1; p < players; ++p) outcomes.push_back(kOrange);
    outcomes.insert(outcomes.end(), dice.begin(), dice.end());
    return Start(players, outcomes, raw);
  }

  // "A has rolled (x, y, z)": A won the roll-off and took Roll, the dice showing x, y, z.
  std::unique_ptr<PicadiceState> ARolled(std::vector<int32_t> dice, int players = 2,
                                         const std::map<std::string, std::string>& raw = {}) {
    std::unique_ptr<PicadiceState> s = AToAct(players, raw, dice);
    EXPECT_TRUE(s->Apply(A, RollAction()).ok());
    EXPECT_EQ(s->phase(), Phase::kAfterRoll);
    return s;
  }

  // The same game with its snapshot edited (grids, nest, turns): loaded through LoadImpl, so
  // every position used here passes the snapshot validation.
  std::unique_ptr<PicadiceState> With(const PicadiceState& s,
                                      const std::function<void(Snapshot&)>& edit) {
    engine::v1::GameRecord record = s.Serialize();
    Snapshot snapshot;
    EXPECT_TRUE(record.state().UnpackTo(&snapshot));
    edit(snapshot);
    record.mutable_state()->PackFrom(snapshot);
    absl::StatusOr<std::unique_ptr<engine::State>> loaded = game_.Deserialize(record);
    EXPECT_TRUE(loaded.ok()) << loaded.status();
    if (!loaded.ok()) return nullptr;
    return std::unique_ptr<PicadiceState>(static_cast<PicadiceState*>(loaded->release()));
  }

  std::unique_ptr<PicadiceState> WithGrids(const PicadiceState& s, std::vector<uint32_t> grids,
                                           std::map<int, int> nest = {}) {
    return With(s, [&](Snapshot& snap) {
      for (size_t p = 0; p < grids.size(); ++p) snap.set_grids(static_cast<int>(p), grids[p]);
      for (const auto& [colour, count] : nest) snap.set_nest(colour - 1, count);
    });
  }

  // Applies an action that must be rejected; checks the code, the status kind and that nothing
  // changed.
  void ExpectRejected(PicadiceState& s, int seat, Action action, const std::string& code,
                      absl::StatusCode kind = absl::StatusCode::kFailedPrecondition) {
    const std::string before = s.SerializeToString();
    const std::vector<Action> legal = s.LegalActions(seat);
    absl::Status status = s.Apply(seat, action);
    EXPECT_EQ(status.code(), kind) << status;
    EXPECT_THAT(std::string(status.message()), HasSubstr(code));
    EXPECT_EQ(s.SerializeToString(), before) << "a rejected action changed the state";
    EXPECT_FALSE(std::binary_search(legal.begin(), legal.end(), action));
  }

  void ExpectApplied(PicadiceState& s, int seat, Action action) {
    const std::vector<Action> legal = s.LegalActions(seat);
    EXPECT_TRUE(std::binary_search(legal.begin(), legal.end(), action))
        << s.ActionToString(seat, action) << " is not listed as legal";
    absl::Status status = s.Apply(seat, action);
    ASSERT_TRUE(status.ok()) << status;
  }

  PicadiceGame game_;
};

}  // namespace parlor::games::picadice

#endif  // PARLOR_ENGINE_GAMES_PICADICE_PICADICE_TEST_UTIL_H_
