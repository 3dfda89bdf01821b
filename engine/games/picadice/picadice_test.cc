// Picadice rules, case by case. The numbered tests are the rule cases of
// RULES.md section 10, named as there. Seats A, B, C, D are 0, 1, 2, 3.
#include "engine/games/picadice/picadice.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "parlor/games/v1/picadice.pb.h"
#include "picadice/picadice_state.pb.h"

namespace parlor::games::picadice {
namespace {

namespace pb = ::parlor::games::v1;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr int A = 0, B = 1, C = 2, D = 3;
constexpr int kOrange = 1, kYellow = 2, kGreen = 3, kBlue = 4, kPurple = 5;
constexpr int kBlackFace = 6;
constexpr int kDiscard = 0;

using Snapshot = engine::picadice::PicadiceState;

// "##.." -> the 4-bit row (bit j-1 for column j).
uint32_t RowBits(const std::string& pattern) {
  uint32_t bits = 0;
  for (int j = 0; j < 4; ++j) {
    if (pattern[j] == '#') bits |= 1u << j;
  }
  return bits;
}

// A grid from rows named by colour; rows not named are empty.
uint32_t Grid(const std::map<int, std::string>& rows) {
  uint32_t grid = 0;
  for (const auto& [colour, pattern] : rows) grid |= RowBits(pattern) << ((colour - 1) * 4);
  return grid;
}

// "Full except <colour> <pattern>".
uint32_t FullExcept(int colour, const std::string& pattern) {
  std::map<int, std::string> rows;
  for (int c = 1; c <= 5; ++c) rows[c] = c == colour ? pattern : "####";
  return Grid(rows);
}

uint32_t AllRows(const std::string& pattern) {
  return Grid({{1, pattern}, {2, pattern}, {3, pattern}, {4, pattern}, {5, pattern}});
}

std::string RowOf(const PicadiceState& s, int seat, int colour) {
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

// ---- Section 10: the rule cases -----------------------------------------------------------------

TEST_F(PicadiceTest, Case01_PopulatingWithAPairPlacesBothCountersAndDiscardsTheThirdDie) {
  auto s = ARolled({kOrange, kOrange, kBlue});
  ExpectApplied(*s, A, UseColourAction(kOrange, 1));
  EXPECT_EQ(RowOf(*s, A, kOrange), "##..");
  EXPECT_EQ(s->nest(kBlue), 1);
  for (int c : {kOrange, kYellow, kGreen, kPurple, kBlackFace}) EXPECT_EQ(s->nest(c), 0);
  EXPECT_EQ(s->store(kOrange), 18);
  EXPECT_EQ(s->store(kBlue), 19);
  EXPECT_EQ(s->turns_completed(), 1);
  EXPECT_EQ(s->player_to_act(), B);
  EXPECT_EQ(s->phase(), Phase::kTurnStart);
}

TEST_F(PicadiceTest, Case02_NewCountersNeedNotTouchOldOnes) {
  auto rolled = ARolled({kGreen, kGreen, kYellow});
  auto s = WithGrids(*rolled, {Grid({{kGreen, "#..."}}), 0});
  auto other = s->Clone();
  ExpectApplied(*s, A, UseColourAction(kGreen, 3));
  EXPECT_EQ(RowOf(*s, A, kGreen), "#.##");
  EXPECT_EQ(s->nest(kYellow), 1);
  // Starting at column 2 would also have been legal.
  auto& alt = static_cast<PicadiceState&>(*other);
  ExpectApplied(alt, A, UseColourAction(kGreen, 2));
  EXPECT_EQ(RowOf(alt, A, kGreen), "###.");
}

TEST_F(PicadiceTest, Case03_NewCountersSitSideBySideAndAreNeverSplitAroundAnOldOne) {
  auto s = WithGrids(*ARolled({kOrange, kOrange, kPurple}), {Grid({{kOrange, ".#.."}}), 0});
  ExpectRejected(*s, A, UseColourAction(kOrange, 1), "PLACEMENT_OCCUPIED");
  ExpectApplied(*s, A, UseColourAction(kOrange, 3));
  EXPECT_EQ(RowOf(*s, A, kOrange), ".###");
  EXPECT_EQ(s->nest(kPurple), 1);
}

TEST_F(PicadiceTest, Case04_NoPlacementPastColumn4) {
  auto s = ARolled({kBlue, kBlue, kBlue});
  ExpectRejected(*s, A, UseColourAction(kBlue, 3), "PLACEMENT_OFF_GRID");
  EXPECT_THAT(s->LegalActions(A), ElementsAre(UseColourAction(kBlue, 1), UseColourAction(kBlue, 2),
                                              DiscardAllAction()));
}

TEST_F(PicadiceTest, Case05_AColourThatCannotFitWholeCannotBeUsed) {
  auto s = WithGrids(*ARolled({kPurple, kPurple, kPurple}), {Grid({{kPurple, ".#.."}}), 0});
  EXPECT_THAT(s->LegalActions(A), ElementsAre(DiscardAllAction()));
  ExpectApplied(*s, A, DiscardAllAction());
  EXPECT_EQ(s->nest(kPurple), 3);
  EXPECT_EQ(RowOf(*s, A, kPurple), ".#..");
  EXPECT_EQ(s->turns_completed(), 1);
  EXPECT_EQ(s->player_to_act(), A);  // the triple's extra turn
  EXPECT_EQ(s->phase(), Phase::kTurnStart);
}

TEST_F(PicadiceTest, Case06_OnlyARolledColourCanBeUsed) {
  auto s = ARolled({kOrange, kBlue, kGreen});
  ExpectRejected(*s, A, UseColourAction(kYellow, 1), "COLOUR_NOT_ROLLED");
}

TEST_F(PicadiceTest, Case07_BlackIsNeverPlaced) {
  auto s = ARolled({kBlackFace, kOrange, kBlue});
  ExpectRejected(*s, A, UseColourAction(kBlackFace, 1), "NO_BLACK_ROW",
                 absl::StatusCode::kInvalidArgument);
}

TEST_F(PicadiceTest, Case08_DiscardingEverythingBlackIncluded) {
  auto s = ARolled({kBlackFace, kOrange, kOrange});
  ExpectApplied(*s, A, DiscardAllAction());
  EXPECT_EQ(s->nest(kBlackFace), 1);
  EXPECT_EQ(s->nest(kOrange), 2);
  EXPECT_EQ(s->store(kBlackFace), 3);
  EXPECT_EQ(s->store(kOrange), 18);
  EXPECT_EQ(s->player_to_act(), B);
}

TEST_F(PicadiceTest, Case09_AnUnusedBlackDieBecomesABlackCounter) {
  auto s = ARolled({kBlackFace, kYellow, kOrange});
  ExpectApplied(*s, A, UseColourAction(kYellow, 2));
  EXPECT_EQ(RowOf(*s, A, kYellow), ".#..");
  EXPECT_EQ(s->nest(kBlackFace), 1);
  EXPECT_EQ(s->nest(kOrange), 1);
}

TEST_F(PicadiceTest, Case10_NestOverflowSendsFourBackToTheStore) {
  auto s = WithGrids(*ARolled({kGreen, kGreen, kBlue}), {0, 0}, {{kGreen, 3}});
  ExpectApplied(*s, A, UseColourAction(kBlue, 1));
  EXPECT_EQ(RowOf(*s, A, kBlue), "#...");
  EXPECT_EQ(s->nest(kGreen), 1);  // 3 + 2 = 5 > 4: four go back, one stays
  EXPECT_EQ(s->store(kGreen), 19);
}

TEST_F(PicadiceTest, Case11_FourCountersStayInTheNest) {
  auto s = WithGrids(*ARolled({kOrange, kOrange, kYellow}), {0, 0}, {{kOrange, 2}});
  ExpectApplied(*s, A, UseColourAction(kYellow, 4));
  EXPECT_EQ(RowOf(*s, A, kYellow), "...#");
  EXPECT_EQ(s->nest(kOrange), 4);
  EXPECT_EQ(s->store(kOrange), 16);
}

TEST_F(PicadiceTest, Case12_OnePicaBirdStealsOneCounter) {
  auto s = WithGrids(*ARolled({kBlackFace, kOrange, kBlue}), {0, Grid({{kOrange, "###."}})});
  ExpectApplied(*s, A, CallPicaBirdsAction(B, kOrange, 3, 1));
  EXPECT_EQ(RowOf(*s, B, kOrange), "##..");
  EXPECT_EQ(RowOf(*s, A, kOrange), "#...");
  EXPECT_EQ(s->nest(kOrange), 1);
  EXPECT_EQ(s->nest(kBlue), 1);
  EXPECT_EQ(s->nest(kBlackFace), 0);  // the black die became the bird
}

TEST_F(PicadiceTest, Case13_TwoBirdsNeedTwoAdjoiningCounters) {
  auto s = WithGrids(*ARolled({kBlackFace, kBlackFace, kGreen}), {0, Grid({{kPurple, "#.#."}})});
  ExpectRejected(*s, A, CallPicaBirdsAction(B, kPurple, 1, kDiscard), "STEAL_RUN_NOT_FILLED");
  EXPECT_THAT(
      s->LegalActions(A),
      ElementsAre(UseColourAction(kGreen, 1), UseColourAction(kGreen, 2),
                  UseColourAction(kGreen, 3), UseColourAction(kGreen, 4), DiscardAllAction()));
}

TEST_F(PicadiceTest, Case14_TwoBirdsMayTakeTwoCountersFromALongerRun) {
  auto s = WithGrids(*ARolled({kBlackFace, kBlackFace, kPurple}), {0, Grid({{kYellow, "###."}})});
  auto other = s->Clone();
  ExpectApplied(*s, A, CallPicaBirdsAction(B, kYellow, 2, 3));
  EXPECT_EQ(RowOf(*s, B, kYellow), "#...");
  EXPECT_EQ(RowOf(*s, A, kYellow), "..##");
  EXPECT_EQ(s->nest(kPurple), 1);
  // from_column 1 would also have been legal.
  auto& alt = static_cast<PicadiceState&>(*other);
  ExpectApplied(alt, A, CallPicaBirdsAction(B, kYellow, 1, 3));
  EXPECT_EQ(RowOf(alt, B, kYellow), "..#.");
}

TEST_F(PicadiceTest, Case15_AStealCannotRunPastColumn4) {
  auto s = WithGrids(*ARolled({kBlackFace, kBlackFace, kOrange}), {0, Grid({{kBlue, "####"}})});
  ExpectRejected(*s, A, CallPicaBirdsAction(B, kBlue, 4, kDiscard), "STEAL_OFF_GRID");
}

TEST_F(PicadiceTest, Case16_NoRobbingYourself) {
  auto s = WithGrids(*ARolled({kBlackFace, kOrange, kOrange}), {Grid({{kGreen, "##.."}}), 0});
  ExpectRejected(*s, A, CallPicaBirdsAction(A, kGreen, 1, kDiscard), "CANNOT_ROB_SELF");
}

TEST_F(PicadiceTest, Case17_NoBlackDieNoBirds) {
  auto s = WithGrids(*ARolled({kOrange, kBlue, kBlue}), {0, Grid({{kOrange, "#..."}})});
  ExpectRejected(*s, A, CallPicaBirdsAction(B, kOrange, 1, kDiscard), "NO_PICA_BIRDS");
}

TEST_F(PicadiceTest, Case18_ThePicaBirdCannotFillTheLastSpace) {
  auto s = WithGrids(*ARolled({kBlackFace, kBlackFace, kBlue}),
                     {FullExcept(kOrange, "##.."), Grid({{kOrange, "##.."}})});
  ExpectRejected(*s, A, CallPicaBirdsAction(B, kOrange, 1, 3), "PICA_BIRD_CANNOT_WIN");
  EXPECT_THAT(s->LegalActions(A),
              ElementsAre(CallPicaBirdsAction(B, kOrange, 1, kDiscard), DiscardAllAction()));
  ExpectApplied(*s, A, CallPicaBirdsAction(B, kOrange, 1, kDiscard));
  EXPECT_EQ(RowOf(*s, B, kOrange), "....");
  EXPECT_EQ(s->nest(kOrange), 2);
  EXPECT_EQ(s->nest(kBlue), 1);
  EXPECT_EQ(20 - PicadiceState::Counters(s->grid(A)), 2);
  EXPECT_EQ(s->player_to_act(), B);
}

TEST_F(PicadiceTest, Case19_TakingAColourFromTheNest) {
  auto s = WithGrids(*AToAct(), {Grid({{kBlue, "#..."}}), 0}, {{kBlue, 3}});
  EXPECT_THAT(s->LegalActions(A), ElementsAre(RollAction(), StealFromNestAction(kBlue, 2)));
  const uint64_t draws = s->rng_draws();
  ExpectApplied(*s, A, StealFromNestAction(kBlue, 2));
  EXPECT_EQ(RowOf(*s, A, kBlue), "####");
  EXPECT_EQ(s->nest(kBlue), 0);
  EXPECT_EQ(s->rng_draws(), draws);  // no dice were rolled
  EXPECT_EQ(s->player_to_act(), B);
}

TEST_F(PicadiceTest, Case20_NestCountersMustFitWhole) {
  auto s = WithGrids(*AToAct(), {Grid({{kYellow, ".#.."}}), 0}, {{kYellow, 3}});
  ExpectRejected(*s, A, StealFromNestAction(kYellow, 1), "PLACEMENT_OCCUPIED");
  ExpectRejected(*s, A, StealFromNestAction(kYellow, 3), "PLACEMENT_OFF_GRID");
  EXPECT_THAT(s->LegalActions(A), ElementsAre(RollAction()));
}

TEST_F(PicadiceTest, Case21_AnEmptyNestColourCannotBeTaken) {
  auto s = WithGrids(*AToAct(), {0, 0}, {{kOrange, 1}});
  ExpectRejected(*s, A, StealFromNestAction(kGreen, 1), "NEST_COLOUR_EMPTY");
}

TEST_F(PicadiceTest, Case22_BlackNestCountersBecomeBirds) {
  auto s = WithGrids(*AToAct(), {0, Grid({{kPurple, ".##."}})}, {{kBlackFace, 2}});
  ExpectApplied(*s, A, StealBlackFromNestAction(B, kPurple, 2, 1));
  EXPECT_EQ(s->nest(kBlackFace), 0);
  EXPECT_EQ(s->store(kBlackFace), 4);
  EXPECT_EQ(RowOf(*s, B, kPurple), "....");
  EXPECT_EQ(RowOf(*s, A, kPurple), "##..");
  EXPECT_EQ(s->player_to_act(), B);
}

TEST_F(PicadiceTest, Case23_ANestColourMayWin) {
  auto s = WithGrids(*AToAct(), {FullExcept(kGreen, "###."), 0}, {{kGreen, 1}});
  ExpectApplied(*s, A, StealFromNestAction(kGreen, 4));
  ASSERT_TRUE(s->IsTerminal());
  EXPECT_EQ(s->end_reason(), EndReason::kGridFilled);
  engine::Outcome outcome = s->GetOutcome();
  EXPECT_THAT(outcome.ranks, ElementsAre(1, 2));
  EXPECT_THAT(outcome.reason, HasSubstr("GRID_FILLED"));
}

TEST_F(PicadiceTest, Case24_WinningFromARollStillSendsTheUnusedDiceToTheNest) {
  auto s = WithGrids(*ARolled({kYellow, kYellow, kBlackFace}), {FullExcept(kYellow, "#..#"), 0});
  ExpectApplied(*s, A, UseColourAction(kYellow, 2));
  EXPECT_EQ(s->nest(kBlackFace), 1);
  ASSERT_TRUE(s->IsTerminal());
  EXPECT_THAT(s->GetOutcome().ranks, ElementsAre(1, 2));
}

TEST_F(PicadiceTest, Case25_ATripleEarnsAnExtraTurn) {
  auto s = ARolled({kGreen, kGreen, kGreen});
  ExpectApplied(*s, A, UseColourAction(kGreen, 2));
  EXPECT_EQ(RowOf(*s, A, kGreen), ".###");
  EXPECT_EQ(s->turns_completed(), 1);
  EXPECT_EQ(s->player_to_act(), A);
  EXPECT_EQ(s->phase(), Phase::kTurnStart);
}

TEST_F(PicadiceTest, Case26_TripleBlackStealsThreeAndEarnsAnExtraTurn) {
  auto s = WithGrids(*ARolled({kBlackFace, kBlackFace, kBlackFace}),
                     {Grid({{kBlue, "#..."}}), Grid({{kBlue, "###."}})});
  ExpectApplied(*s, A, CallPicaBirdsAction(B, kBlue, 1, 2));
  EXPECT_EQ(RowOf(*s, B, kBlue), "....");
  EXPECT_EQ(RowOf(*s, A, kBlue), "####");
  for (int c = 1; c <= 6; ++c) EXPECT_EQ(s->nest(c), 0) << "colour " << c;
  EXPECT_EQ(s->player_to_act(), A);
  EXPECT_EQ(s->phase(), Phase::kTurnStart);
}

TEST_F(PicadiceTest, Case27_ActingOutOfTurn) {
  auto s = AToAct();
  ExpectRejected(*s, B, RollAction(), "NOT_YOUR_TURN");
}

TEST_F(PicadiceTest, Case28_ActingInTheWrongPhase) {
  auto s = AToAct(2, {}, {kOrange, kBlue, kGreen});
  ExpectRejected(*s, A, DiscardAllAction(), "WRONG_PHASE");
  ASSERT_TRUE(s->Apply(A, RollAction()).ok());
  ExpectRejected(*s, A, RollAction(), "WRONG_PHASE");
  ExpectRejected(*s, A, StealFromNestAction(kOrange, 1), "WRONG_PHASE");
}

TEST_F(PicadiceTest, Case29_TheRollOffIsRerolledOnlyByThoseTiedForHighest) {
  // A blue, B black, C black; B and C roll again: B orange, C green. Then C's turn rolls
  // (orange, yellow, green) and so on, none a triple.
  auto s = Start(3, {kBlue, kBlackFace, kBlackFace, kOrange, kGreen,  //
                     kOrange, kYellow, kGreen, kOrange, kYellow, kGreen, kOrange, kYellow, kGreen,
                     kOrange, kYellow, kGreen});
  ASSERT_EQ(s->roll_off().size(), 2u);
  EXPECT_THAT(s->roll_off()[0].seats, ElementsAre(A, B, C));
  EXPECT_THAT(s->roll_off()[0].faces, ElementsAre(kBlue, kBlackFace, kBlackFace));
  EXPECT_THAT(s->roll_off()[1].seats, ElementsAre(B, C));
  EXPECT_THAT(s->roll_off()[1].faces, ElementsAre(kOrange, kGreen));
  std::vector<int> order;
  for (int turn = 0; turn < 4; ++turn) {
    const int seat = s->player_to_act();
    order.push_back(seat);
    ASSERT_TRUE(s->Apply(seat, RollAction()).ok());
    ASSERT_TRUE(s->Apply(seat, DiscardAllAction()).ok());
  }
  EXPECT_THAT(order, ElementsAre(C, A, B, C));
}

TEST_F(PicadiceTest, Case30_CountingCompletedColumns) {
  const uint32_t b = FullExcept(kPurple, "##.#");
  EXPECT_EQ(PicadiceState::CompletedColumns(b), 3);
  EXPECT_EQ(PicadiceState::Counters(b), 19);
  auto s = WithGrids(*AToAct(), {0, b});
  auto view = s->View(engine::Viewer::Spectator());
  const auto& v = static_cast<const pb::PicadiceView&>(*view);
  EXPECT_EQ(v.grids(B).completed_columns(), 3);
  EXPECT_EQ(v.grids(B).counters(), 19);
}

TEST_F(PicadiceTest, Case31_MatchPointScoringAndTheNextRound) {
  const std::map<std::string, std::string> match = {{"match_play", "true"}};
  auto s = WithGrids(*ARolled({kOrange, kPurple, kPurple}, 2, match),
                     {FullExcept(kOrange, "###."), Grid({{kOrange, "#.#."},
                                                         {kYellow, "#.#."},
                                                         {kGreen, "#.##"},
                                                         {kBlue, "#.#."},
                                                         {kPurple, "###."}})});
  EXPECT_EQ(PicadiceState::CompletedColumns(s->grid(B)), 2);
  ExpectApplied(*s, A, UseColourAction(kOrange, 4));
  EXPECT_FALSE(s->IsTerminal());
  ASSERT_EQ(s->round_results().size(), 1u);
  EXPECT_EQ(s->round_results()[0].winning_side, A);
  EXPECT_EQ(s->round_results()[0].points, 2);  // 4 − 2
  EXPECT_EQ(s->match_points(A), 2);
  EXPECT_EQ(s->match_points(B), 0);
  // Round 2 from an empty board, with a new roll-off.
  EXPECT_EQ(s->round(), 2);
  EXPECT_EQ(s->grid(A), 0u);
  EXPECT_EQ(s->grid(B), 0u);
  for (int c = 1; c <= 5; ++c) {
    EXPECT_EQ(s->nest(c), 0);
    EXPECT_EQ(s->store(c), 20);
  }
  EXPECT_EQ(s->nest(kBlackFace), 0);
  EXPECT_EQ(s->store(kBlackFace), 4);
  EXPECT_EQ(s->turns_completed(), 0);
  EXPECT_EQ(s->phase(), Phase::kTurnStart);
  ASSERT_FALSE(s->roll_off().empty());
  const RollOffRound& last = s->roll_off().back();
  int best = 0;
  for (size_t i = 0; i < last.seats.size(); ++i) {
    if (last.faces[i] > last.faces[best]) best = static_cast<int>(i);
  }
  EXPECT_EQ(s->player_to_act(), last.seats[best]);
  // The roll-off was drawn while applying the winning action, so it is in that action's log.
  engine::v1::GameRecord record = s->Serialize();
  EXPECT_GE(record.log(record.log_size() - 1).outcomes_size(), 2);
}

TEST_F(PicadiceTest, Case32_TheLowestScoringOpponentIsTheOneWithFewestCompletedColumns) {
  auto s =
      WithGrids(*ARolled({kOrange, kPurple, kPurple}, 3, {{"match_play", "true"}}),
                {FullExcept(kOrange, "###."), AllRows("##.."),
                 Grid({{kOrange, "####"}, {kYellow, "####"}, {kGreen, "####"}, {kBlue, "###."}})});
  ExpectApplied(*s, A, UseColourAction(kOrange, 4));
  ASSERT_EQ(s->round_results().size(), 1u);
  EXPECT_EQ(s->round_results()[0].points, 4);  // 4 − 0: C, not B, has the fewest columns
  EXPECT_EQ(s->match_points(A), 4);
}

TEST_F(PicadiceTest, Case33_DoublesScoringDeductsTheLowerPartnerOfTheOpposingTeam) {
  auto s = WithGrids(
      *ARolled({kOrange, kPurple, kPurple}, 4, {{"team_play", "true"}, {"match_play", "true"}}),
      {FullExcept(kOrange, "###."), 0, AllRows("###."), AllRows("#...")});
  ExpectApplied(*s, A, UseColourAction(kOrange, 4));
  ASSERT_EQ(s->round_results().size(), 1u);
  EXPECT_EQ(s->round_results()[0].winning_side, 0);
  EXPECT_EQ(s->round_results()[0].points, 3);  // 4 − 1 (D)
  EXPECT_EQ(s->match_points(0), 3);
  EXPECT_EQ(s->match_points(1), 0);
  EXPECT_THAT(s->Scores(), ElementsAre(3, 3, 0, 0));
}

TEST_F(PicadiceTest, Case34_RanksOfAFourPlayerGameCountColumnsBeforeCounters) {
  auto s =
      WithGrids(*ARolled({kOrange, kPurple, kPurple}, 4),
                {FullExcept(kOrange, "###."),
                 Grid({{kOrange, "####"},
                       {kYellow, "####"},
                       {kGreen, "###."},
                       {kBlue, "##.."},
                       {kPurple, "##.."}}),
                 Grid({{kOrange, "###."},
                       {kYellow, "###."},
                       {kGreen, "##.."},
                       {kBlue, "##.."},
                       {kPurple, "##.."}}),
                 Grid({{kOrange, "####"}, {kYellow, "####"}, {kGreen, "####"}, {kBlue, "####"}})});
  ExpectApplied(*s, A, UseColourAction(kOrange, 4));
  ASSERT_TRUE(s->IsTerminal());
  EXPECT_THAT(s->GetOutcome().ranks, ElementsAre(1, 2, 3, 4));
}

TEST_F(PicadiceTest, Case35_TheTurnLimitEndsTheRoundWithoutAWinner) {
  auto rolled = ARolled({kOrange, kBlue, kGreen});
  EXPECT_EQ(rolled->turn_limit(), 300);
  auto s = With(*rolled, [](Snapshot& snap) {
    snap.set_turns_completed(299);
    snap.set_grids(A, Grid({{kOrange, "####"},
                            {kYellow, "####"},
                            {kGreen, "####"},
                            {kBlue, "####"},
                            {kPurple, "#..."}}));
    snap.set_grids(B, Grid({{kOrange, "####"},
                            {kYellow, "####"},
                            {kGreen, "##.."},
                            {kBlue, "##.."},
                            {kPurple, "##.."}}));
  });
  ExpectApplied(*s, A, DiscardAllAction());
  ASSERT_TRUE(s->IsTerminal());
  EXPECT_EQ(s->end_reason(), EndReason::kTurnLimit);
  engine::Outcome outcome = s->GetOutcome();
  EXPECT_THAT(outcome.reason, HasSubstr("TURN_LIMIT"));
  EXPECT_THAT(outcome.ranks, ElementsAre(2, 1));
}

// ---- Further rules ------------------------------------------------------------------------------

TEST_F(PicadiceTest, UsingAColourUsesEveryDieOfThatColour) {
  // Two yellow dice: one yellow counter alone can never be placed.
  auto s = ARolled({kYellow, kYellow, kOrange});
  for (Action a : s->LegalActions(A)) {
    DecodedAction d;
    ASSERT_TRUE(DecodeAction(a, &d));
    if (d.kind == static_cast<int>(Kind::kUseColour) && d.colour == kYellow) {
      EXPECT_LE(d.column, 3) << "two counters from column 4 would run off the row";
    }
  }
  ExpectApplied(*s, A, UseColourAction(kYellow, 3));
  EXPECT_EQ(RowOf(*s, A, kYellow), "..##");
  EXPECT_EQ(s->nest(kOrange), 1);
}

TEST_F(PicadiceTest, StolenCountersMayBeDiscardedEvenWhenTheyCouldBePlaced) {
  auto s = WithGrids(*ARolled({kBlackFace, kGreen, kOrange}), {0, Grid({{kGreen, "##.."}})});
  ExpectApplied(*s, A, CallPicaBirdsAction(B, kGreen, 2, kDiscard));
  EXPECT_EQ(RowOf(*s, B, kGreen), "#...");
  EXPECT_EQ(RowOf(*s, A, kGreen), "....");
  // One stolen green plus the green die: the nest receives both.
  EXPECT_EQ(s->nest(kGreen), 2);
  EXPECT_EQ(s->nest(kOrange), 1);
  EXPECT_EQ(s->store(kGreen), 17);
}

TEST_F(PicadiceTest, StolenAndDiscardedDiceOfOneColourOverflowOnce) {
  // Nest orange 4; a bird discards one stolen orange and the two orange dice go there too:
  // 4 + 1 = 5 -> 1, then 1 + 2 = 3 (in any order the nest ends at 3).
  auto s = WithGrids(*ARolled({kBlackFace, kOrange, kOrange}), {0, Grid({{kOrange, "#..."}})},
                     {{kOrange, 4}});
  ExpectApplied(*s, A, CallPicaBirdsAction(B, kOrange, 1, kDiscard));
  EXPECT_EQ(s->nest(kOrange), 3);
  EXPECT_EQ(s->store(kOrange), 17);
}

TEST_F(PicadiceTest, BlackCountersOverflowLikeAnyColour) {
  auto s = WithGrids(*ARolled({kBlackFace, kBlackFace, kBlackFace}), {0, 0}, {{kBlackFace, 3}});
  // No counters anywhere to steal: the birds cannot fly, only DiscardAll remains.
  EXPECT_THAT(s->LegalActions(A), ElementsAre(DiscardAllAction()));
  ExpectApplied(*s, A, DiscardAllAction());
  EXPECT_EQ(s->nest(kBlackFace), 2);  // 3 + 3 = 6 -> 2
  EXPECT_EQ(s->store(kBlackFace), 2);
  EXPECT_EQ(s->player_to_act(), A);  // a black triple is a triple
}

TEST_F(PicadiceTest, FourBlackNestCountersStealFourAdjoiningCounters) {
  auto s = WithGrids(*AToAct(), {0, Grid({{kGreen, "####"}})}, {{kBlackFace, 4}});
  ExpectRejected(*s, A, StealBlackFromNestAction(B, kGreen, 2, kDiscard), "STEAL_OFF_GRID");
  ExpectApplied(*s, A, StealBlackFromNestAction(B, kGreen, 1, 1));
  EXPECT_EQ(RowOf(*s, A, kGreen), "####");
  EXPECT_EQ(RowOf(*s, B, kGreen), "....");
  EXPECT_EQ(s->store(kBlackFace), 4);
  EXPECT_EQ(s->player_to_act(), B);  // a nest steal never earns an extra turn
}

TEST_F(PicadiceTest, BlackNestCountersWithNothingToStealCannotBeTaken) {
  auto s = WithGrids(*AToAct(), {0, Grid({{kGreen, "#.#."}})}, {{kBlackFace, 2}});
  EXPECT_THAT(s->LegalActions(A), ElementsAre(RollAction()));
  ExpectRejected(*s, A, StealBlackFromNestAction(B, kGreen, 1, kDiscard), "STEAL_RUN_NOT_FILLED");
}

TEST_F(PicadiceTest, AnEmptyBlackNestCannotBeTaken) {
  auto s = WithGrids(*AToAct(), {0, Grid({{kGreen, "#..."}})});
  ExpectRejected(*s, A, StealBlackFromNestAction(B, kGreen, 1, kDiscard), "NEST_COLOUR_EMPTY");
}

TEST_F(PicadiceTest, ThePicaBirdMayLeaveOneVacantCircleAnywhereInTheGrid) {
  // A has 3 vacant circles: orange ".." plus one purple. Two stolen oranges leave one vacancy.
  uint32_t a = FullExcept(kOrange, "##..") & ~(1u << (4 * 4));  // purple column 1 vacant
  auto s = WithGrids(*ARolled({kBlackFace, kBlackFace, kBlue}), {a, Grid({{kOrange, "##.."}})});
  ExpectApplied(*s, A, CallPicaBirdsAction(B, kOrange, 1, 3));
  EXPECT_EQ(20 - PicadiceState::Counters(s->grid(A)), 1);
  EXPECT_FALSE(s->IsTerminal());
}

TEST_F(PicadiceTest, ADoublesPartnerMayBeRobbed) {
  auto s = WithGrids(*ARolled({kBlackFace, kOrange, kYellow}, 4, {{"team_play", "true"}}),
                     {0, Grid({{kBlue, "#..."}}), 0, 0});
  ExpectApplied(*s, A, CallPicaBirdsAction(B, kBlue, 1, 4));
  EXPECT_EQ(RowOf(*s, A, kBlue), "...#");
}

TEST_F(PicadiceTest, InDoublesOneFilledGridWinsForTheTeam) {
  // B (A's partner) fills the grid: A and B share rank 1; C and D share the next rank, which is
  // 3 in the engine's per-seat competition ranking (two seats are ahead of them).
  auto start = AToAct(4, {{"team_play", "true"}});
  auto s = With(*start, [](Snapshot& snap) {
    snap.set_player_to_act(B);
    snap.set_grids(B, FullExcept(kGreen, "###."));
    snap.set_grids(C, AllRows("##.."));
    snap.set_nest(kGreen - 1, 1);
  });
  EXPECT_EQ(s->TeamOf(A), s->TeamOf(B));
  EXPECT_NE(s->TeamOf(B), s->TeamOf(C));
  EXPECT_EQ(s->NumSides(), 2);
  ExpectApplied(*s, B, StealFromNestAction(kGreen, 4));
  ASSERT_TRUE(s->IsTerminal());
  // Sides are ranked (rules 8.4, 8.6): the winning team 1, the other team 2, not 3.
  EXPECT_THAT(s->GetOutcome().ranks, ElementsAre(1, 1, 2, 2));
}

TEST_F(PicadiceTest, TeamPlayNeedsFourPlayers) {
  for (int players : {2, 3}) {
    absl::StatusOr<engine::Options> options = game_.ParseOptions({{"team_play", "true"}}, players);
    ASSERT_FALSE(options.ok());
    EXPECT_EQ(options.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(options.status().message()), HasSubstr("team_play"));
  }
  EXPECT_TRUE(game_.ParseOptions({{"team_play", "true"}}, 4).ok());
}

TEST_F(PicadiceTest, OptionsHaveTheirDefaultsAndRangesAreChecked) {
  engine::Options defaults = Opts(2);
  EXPECT_FALSE(defaults.GetBool("team_play"));
  EXPECT_FALSE(defaults.GetBool("match_play"));
  EXPECT_EQ(defaults.Get("match_target"), 5);
  EXPECT_EQ(defaults.Get("turn_limit_per_seat"), 150);
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"match_target", "0"},           {"match_target", "26"},  {"turn_limit_per_seat", "24"},
      {"turn_limit_per_seat", "1001"}, {"match_play", "maybe"}, {"colour_count", "6"}};
  for (const auto& [name, value] : bad) {
    absl::StatusOr<engine::Options> options = game_.ParseOptions({{name, value}}, 2);
    ASSERT_FALSE(options.ok()) << name << "=" << value;
    EXPECT_EQ(options.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(options.status().message()), HasSubstr(name));
  }
  for (int players : {1, 5}) {
    EXPECT_EQ(game_.ParseOptions({}, players).status().code(), absl::StatusCode::kInvalidArgument);
  }
  // Typed values are checked at creation too.
  engine::Options typed(
      {{"team_play", 1}, {"match_play", 0}, {"match_target", 5}, {"turn_limit_per_seat", 150}});
  EXPECT_EQ(game_.NewGame(3, typed, engine::Seed::FromUint64(1)).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(PicadiceTest, MaxMovesBoundsEveryRoundOfAMatch) {
  EXPECT_EQ(game_.MaxMoves(2, Opts(2)), 2 * 150 * 2 + 2);
  // A match lasts at most sides × (target − 1) + 1 rounds.
  EXPECT_EQ(game_.MaxMoves(4, Opts(4, {{"team_play", "true"}, {"match_play", "true"}})),
            (2 * 4 + 1) * 4 * 150 * 2 + 4);
}

TEST_F(PicadiceTest, AFilledGridWinsEvenOnTheTurnThatReachesTheLimit) {
  auto s = With(*ARolled({kOrange, kPurple, kPurple}), [](Snapshot& snap) {
    snap.set_turns_completed(299);
    snap.set_grids(A, FullExcept(kOrange, "###."));
  });
  ExpectApplied(*s, A, UseColourAction(kOrange, 4));
  EXPECT_EQ(s->end_reason(), EndReason::kGridFilled);
}

TEST_F(PicadiceTest, TheTurnLimitEndsTheRoundEvenAfterATriple) {
  auto s = With(*ARolled({kOrange, kOrange, kOrange}),
                [](Snapshot& snap) { snap.set_turns_completed(299); });
  ExpectApplied(*s, A, DiscardAllAction());
  EXPECT_EQ(s->end_reason(), EndReason::kTurnLimit);
  EXPECT_THAT(s->GetOutcome().ranks, ElementsAre(1, 1));  // nobody placed anything: a draw
}

TEST_F(PicadiceTest, ExtraTurnsChainOnFurtherTriples) {
  auto s =
      AToAct(2, {}, {kGreen, kGreen, kGreen, kYellow, kYellow, kYellow, kBlue, kOrange, kGreen});
  ASSERT_TRUE(s->Apply(A, RollAction()).ok());
  ASSERT_TRUE(s->Apply(A, DiscardAllAction()).ok());
  EXPECT_EQ(s->player_to_act(), A);
  ASSERT_TRUE(s->Apply(A, RollAction()).ok());
  ASSERT_TRUE(s->Apply(A, UseColourAction(kYellow, 1)).ok());
  EXPECT_EQ(s->player_to_act(), A);
  ASSERT_TRUE(s->Apply(A, RollAction()).ok());
  ASSERT_TRUE(s->Apply(A, DiscardAllAction()).ok());
  EXPECT_EQ(s->player_to_act(), B);
  EXPECT_EQ(s->turns_completed(), 3);
}

TEST_F(PicadiceTest, AMatchEndsWhenASideReachesTheTarget) {
  auto s = With(
      *ARolled({kOrange, kPurple, kPurple}, 2, {{"match_play", "true"}, {"match_target", "4"}}),
      [](Snapshot& snap) {
        // Round 2 of the match; A won round 1 by 3 points.
        snap.set_round(2);
        snap.set_match_points(A, 3);
        engine::picadice::RoundResult* r = snap.add_round_results();
        r->set_winning_side(A);
        r->set_points(3);
        r->add_grids(kFullGrid);
        r->add_grids(AllRows("#..."));
        snap.set_grids(A, FullExcept(kOrange, "###."));
        snap.set_grids(B, AllRows("###."));
      });
  ExpectApplied(*s, A, UseColourAction(kOrange, 4));
  ASSERT_TRUE(s->IsTerminal());
  EXPECT_EQ(s->end_reason(), EndReason::kMatchTargetReached);
  EXPECT_EQ(s->match_points(A), 4);  // 3 + (4 − 3)
  EXPECT_THAT(s->Scores(), ElementsAre(4, 0));
  EXPECT_THAT(s->GetOutcome().ranks, ElementsAre(1, 2));
}

TEST_F(PicadiceTest, MatchRanksFollowPointsThenTheLastRound) {
  // Three players; a stalled second round: A 2 points, B 2 points, C 0. B made more progress
  // in the stalled round, so B ranks above A.
  auto s =
      With(*ARolled({kOrange, kBlue, kGreen}, 3, {{"match_play", "true"}}), [](Snapshot& snap) {
        snap.set_round(3);
        snap.set_match_points(A, 2);
        snap.set_match_points(B, 2);
        for (int winner : {A, B}) {
          engine::picadice::RoundResult* r = snap.add_round_results();
          r->set_winning_side(winner);
          r->set_points(2);
          for (int p = 0; p < 3; ++p) {
            r->add_grids(p == winner ? kFullGrid : AllRows("##.."));
          }
        }
        snap.set_turns_completed(449);
        snap.set_grids(A, AllRows("#..."));
        snap.set_grids(B, AllRows("##.."));
        snap.set_grids(C, AllRows("###."));
      });
  ExpectApplied(*s, A, DiscardAllAction());
  ASSERT_TRUE(s->IsTerminal());
  EXPECT_EQ(s->end_reason(), EndReason::kTurnLimit);
  EXPECT_THAT(s->GetOutcome().ranks, ElementsAre(2, 1, 3));
}

// ---- Rejections -----------------------------------------------------------------------------

TEST_F(PicadiceTest, MalformedCodesAreInvalidArguments) {
  auto s = AToAct();
  for (Action bad : {Action{0}, Action{-1}, Action{9999}, Action{70000}, Action{10001},
                     Action{20150}, Action{20610 + 5}, Action{40100}, Action{40150}, Action{51016},
                     Action{51050}, Action{60010}}) {
    ExpectRejected(*s, A, bad, "MALFORMED_ACTION", absl::StatusCode::kInvalidArgument);
  }
  // A victim who is not a seat of this two-player game.
  ExpectRejected(*s, A, StealBlackFromNestAction(3, kGreen, 1, kDiscard), "MALFORMED_ACTION",
                 absl::StatusCode::kInvalidArgument);
  ExpectRejected(*s, A, StealBlackFromNestAction(B, kBlackFace, 1, kDiscard), "NO_BLACK_ROW",
                 absl::StatusCode::kInvalidArgument);
  ExpectRejected(*s, A, StealFromNestAction(kBlackFace, 1), "NO_BLACK_ROW",
                 absl::StatusCode::kInvalidArgument);
  // Whose turn it is comes before the shape (engine/GAMES.md, "Refusals").
  ExpectRejected(*s, B, Action{12345}, "NOT_YOUR_TURN");
}

TEST_F(PicadiceTest, NothingIsAcceptedOnceTheGameIsOver) {
  auto s = WithGrids(*AToAct(), {FullExcept(kGreen, "###."), 0}, {{kGreen, 1}});
  ExpectApplied(*s, A, StealFromNestAction(kGreen, 4));
  ASSERT_TRUE(s->IsTerminal());
  EXPECT_TRUE(s->LegalActions(A).empty());
  EXPECT_TRUE(s->LegalActions(B).empty());
  ExpectRejected(*s, B, RollAction(), "GAME_OVER");
  ExpectRejected(*s, A, DiscardAllAction(), "GAME_OVER");
  // Once the game is over, that is the answer whatever is sent (engine/GAMES.md, "Refusals").
  ExpectRejected(*s, A, Action{12345}, "GAME_OVER");
}

TEST_F(PicadiceTest, RejectionMessagesNameTheRule) {
  auto s = WithGrids(*ARolled({kBlackFace, kBlackFace, kGreen}),
                     {Grid({{kGreen, "#..."}}), Grid({{kBlue, "##.."}})});
  const std::vector<std::pair<Action, std::string>> cases = {
      {UseColourAction(kGreen, 1), "PLACEMENT_OCCUPIED"},
      {UseColourAction(kOrange, 1), "COLOUR_NOT_ROLLED"},
      {CallPicaBirdsAction(B, kBlue, 2, kDiscard), "STEAL_RUN_NOT_FILLED"},
      {CallPicaBirdsAction(B, kBlue, 4, kDiscard), "STEAL_OFF_GRID"},
      {CallPicaBirdsAction(A, kGreen, 1, kDiscard), "CANNOT_ROB_SELF"},
      {CallPicaBirdsAction(B, kBlue, 1, 4), "PLACEMENT_OFF_GRID"},
      {StealBlackFromNestAction(B, kBlue, 1, kDiscard), "WRONG_PHASE"},
  };
  for (const auto& [action, code] : cases) ExpectRejected(*s, A, action, code);
  ExpectApplied(*s, A, CallPicaBirdsAction(B, kBlue, 1, 2));
  EXPECT_EQ(RowOf(*s, A, kBlue), ".##.");
}

// ---- Views, protos and snapshots ------------------------------------------------------------

TEST_F(PicadiceTest, EveryViewerSeesTheSameView) {
  auto s = WithGrids(*ARolled({kBlackFace, kOrange, kOrange}, 3),
                     {Grid({{kGreen, "##.."}}), 0, Grid({{kBlue, "#..."}})}, {{kPurple, 2}});
  const std::string spectator = s->View(engine::Viewer::Spectator())->SerializeAsString();
  EXPECT_EQ(s->View(engine::Viewer::All())->SerializeAsString(), spectator);
  for (int seat = 0; seat < 3; ++seat) {
    EXPECT_EQ(s->View(engine::Viewer::Seat(seat))->SerializeAsString(), spectator);
  }
  auto view = s->View(engine::Viewer::Seat(B));
  const auto& v = static_cast<const pb::PicadiceView&>(*view);
  EXPECT_EQ(v.players(), 3);
  EXPECT_EQ(v.phase(), pb::PICADICE_PHASE_AFTER_ROLL);
  EXPECT_EQ(v.player_to_act(), A);
  EXPECT_THAT(v.dice(), ElementsAre(pb::PICADICE_COLOUR_BLACK, pb::PICADICE_COLOUR_ORANGE,
                                    pb::PICADICE_COLOUR_ORANGE));
  EXPECT_FALSE(v.triple_rolled());
  ASSERT_EQ(v.grids_size(), 3);
  EXPECT_EQ(v.grids(A).rows(kGreen - 1).colour(), pb::PICADICE_COLOUR_GREEN);
  EXPECT_THAT(v.grids(A).rows(kGreen - 1).filled(), ElementsAre(true, true, false, false));
  ASSERT_EQ(v.nest_size(), 6);
  EXPECT_EQ(v.nest(kPurple - 1).colour(), pb::PICADICE_COLOUR_PURPLE);
  EXPECT_EQ(v.nest(kPurple - 1).count(), 2);
  EXPECT_EQ(v.store(kPurple - 1).count(), 18);
  EXPECT_EQ(v.store(kBlackFace - 1).count(), 4);
  EXPECT_EQ(v.turn_limit(), 450);
  EXPECT_EQ(v.round(), 1);
  EXPECT_EQ(v.match_points_size(), 3);
  ASSERT_EQ(v.roll_off_size(), 1);
  EXPECT_EQ(v.roll_off(0).rolls(0).face(), pb::PICADICE_COLOUR_BLACK);
  EXPECT_FALSE(v.has_winning_side());
  EXPECT_EQ(v.ranks_size(), 0);
}

TEST_F(PicadiceTest, TheFinalViewShowsTheOutcome) {
  auto s = WithGrids(*AToAct(), {FullExcept(kGreen, "###."), 0}, {{kGreen, 1}});
  ExpectApplied(*s, A, StealFromNestAction(kGreen, 4));
  auto view = s->View(engine::Viewer::Spectator());
  const auto& v = static_cast<const pb::PicadiceView&>(*view);
  EXPECT_EQ(v.phase(), pb::PICADICE_PHASE_GAME_OVER);
  EXPECT_FALSE(v.has_player_to_act());
  EXPECT_EQ(v.end_reason(), pb::PICADICE_END_REASON_GRID_FILLED);
  EXPECT_EQ(v.winning_side(), A);
  EXPECT_THAT(v.ranks(), ElementsAre(1, 2));
  ASSERT_EQ(v.round_results_size(), 1);
  EXPECT_EQ(v.round_results(0).players(A).completed_columns(), 4);
}

TEST_F(PicadiceTest, ActionProtosRoundTrip) {
  auto s = WithGrids(*ARolled({kBlackFace, kOrange, kBlue}, 3),
                     {0, Grid({{kOrange, "###."}}), AllRows("##..")}, {});
  std::vector<Action> actions = s->LegalActions(A);
  actions.push_back(RollAction());
  actions.push_back(StealFromNestAction(kPurple, 2));
  actions.push_back(StealBlackFromNestAction(C, kYellow, 3, 2));
  ASSERT_GT(actions.size(), 20u);
  for (Action action : actions) {
    std::unique_ptr<google::protobuf::Message> proto = game_.ActionToProto(action);
    absl::StatusOr<Action> back = game_.ActionFromProto(*proto);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(*back, action) << proto->ShortDebugString();
  }
  pb::PicadiceAction call;
  call.mutable_call_pica_birds()->mutable_raid()->set_victim_seat(1);
  call.mutable_call_pica_birds()->mutable_raid()->set_row(pb::PICADICE_COLOUR_PURPLE);
  call.mutable_call_pica_birds()->mutable_raid()->set_from_column(1);
  call.mutable_call_pica_birds()->mutable_raid()->set_place_at_column(3);
  EXPECT_EQ(*game_.ActionFromProto(call), 51513);
  google::protobuf::Any any;
  any.PackFrom(call);
  EXPECT_EQ(*game_.ActionFromAny(any), 51513);
}

TEST_F(PicadiceTest, ActionProtosWithOutOfRangeFieldsAreRejected) {
  auto expect_bad = [&](const pb::PicadiceAction& action, const std::string& field) {
    absl::StatusOr<Action> code = game_.ActionFromProto(action);
    ASSERT_FALSE(code.ok()) << action.ShortDebugString();
    EXPECT_EQ(code.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(code.status().message()), HasSubstr(field));
  };
  expect_bad(pb::PicadiceAction(), "action");
  pb::PicadiceAction use;
  use.mutable_use_colour()->set_start_column(1);
  expect_bad(use, "use_colour.colour");  // unspecified
  use.mutable_use_colour()->set_colour(static_cast<pb::PicadiceColour>(9));
  expect_bad(use, "use_colour.colour");
  use.mutable_use_colour()->set_colour(pb::PICADICE_COLOUR_BLACK);
  expect_bad(use, "NO_BLACK_ROW");
  use.mutable_use_colour()->set_colour(pb::PICADICE_COLOUR_ORANGE);
  for (int column : {0, 5, -1}) {
    use.mutable_use_colour()->set_start_column(column);
    expect_bad(use, "use_colour.start_column");
  }
  pb::PicadiceAction steal;
  steal.mutable_steal_from_nest()->set_colour(pb::PICADICE_COLOUR_GREEN);
  expect_bad(steal, "steal_from_nest.start_column");
  pb::PicadiceAction birds;
  birds.mutable_call_pica_birds();
  expect_bad(birds, "call_pica_birds.raid");
  pb::PicadiceRaid* raid = birds.mutable_call_pica_birds()->mutable_raid();
  raid->set_victim_seat(1);
  raid->set_row(pb::PICADICE_COLOUR_BLUE);
  raid->set_from_column(2);
  expect_bad(birds, "destination");
  raid->set_place_at_column(5);
  expect_bad(birds, "place_at_column");
  raid->mutable_discard();
  EXPECT_TRUE(game_.ActionFromProto(birds).ok());
  raid->set_victim_seat(4);
  expect_bad(birds, "victim_seat");
  raid->set_victim_seat(-1);
  expect_bad(birds, "victim_seat");
  raid->set_victim_seat(1);
  raid->set_from_column(0);
  expect_bad(birds, "from_column");
  raid->set_from_column(1);
  raid->set_row(pb::PICADICE_COLOUR_BLACK);
  expect_bad(birds, "NO_BLACK_ROW");
  pb::PicadiceAction nest_birds;
  nest_birds.mutable_steal_black_from_nest();
  expect_bad(nest_birds, "steal_black_from_nest.raid");
  // Another game's message.
  pb::PicadiceView view;
  EXPECT_EQ(game_.ActionFromProto(view).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(PicadiceTest, SerializeDeserializeAndReplayReproduceTheState) {
  auto s = Start(3, {}, {{"match_play", "true"}, {"match_target", "2"}});
  engine::Rng rng(5);
  int moves = 0;
  while (!s->IsTerminal() && moves < 5000) {
    const int seat = s->player_to_act();
    std::vector<Action> legal = s->LegalActions(seat);
    ASSERT_TRUE(s->Apply(seat, legal[rng.Uniform(legal.size())]).ok());
    ++moves;
    if (moves % 37 == 0) {
      absl::StatusOr<std::unique_ptr<engine::State>> loaded = game_.Deserialize(s->Serialize());
      ASSERT_TRUE(loaded.ok()) << loaded.status();
      EXPECT_EQ((*loaded)->SerializeToString(), s->SerializeToString());
    }
  }
  ASSERT_TRUE(s->IsTerminal());
  EXPECT_EQ(s->end_reason(), EndReason::kMatchTargetReached);
  EXPECT_GE(s->round(), 1);
  absl::StatusOr<std::unique_ptr<engine::State>> replayed = game_.Replay(s->Serialize(), true);
  ASSERT_TRUE(replayed.ok()) << replayed.status();
  EXPECT_EQ((*replayed)->SerializeToString(), s->SerializeToString());
}

TEST_F(PicadiceTest, DamagedSnapshotsAreRefused) {
  auto s = ARolled({kOrange, kBlue, kGreen}, 3);
  const std::vector<std::pair<std::string, std::function<void(Snapshot&)>>> damages = {
      {"phase", [](Snapshot& x) { x.set_phase(static_cast<pb::PicadicePhase>(7)); }},
      {"player_to_act", [](Snapshot& x) { x.set_player_to_act(3); }},
      {"dice", [](Snapshot& x) { x.set_dice(0, 7); }},
      {"dice", [](Snapshot& x) { x.add_dice(1); }},
      {"dice", [](Snapshot& x) { x.set_phase(pb::PICADICE_PHASE_TURN_START); }},
      {"grids", [](Snapshot& x) { x.add_grids(0); }},
      {"grids", [](Snapshot& x) { x.set_grids(0, 1u << 20); }},
      {"grids", [](Snapshot& x) { x.set_grids(0, kFullGrid); }},
      {"nest", [](Snapshot& x) { x.set_nest(2, 5); }},
      {"nest", [](Snapshot& x) { x.set_nest(2, -1); }},
      {"nest", [](Snapshot& x) { x.add_nest(0); }},
      {"turns_completed", [](Snapshot& x) { x.set_turns_completed(450); }},
      {"turns_completed", [](Snapshot& x) { x.set_turns_completed(-1); }},
      {"round", [](Snapshot& x) { x.set_round(2); }},
      {"round", [](Snapshot& x) { x.set_round(0); }},
      {"roll_off", [](Snapshot& x) { x.clear_roll_off(); }},
      {"roll_off", [](Snapshot& x) { x.mutable_roll_off(0)->set_faces(0, 1); }},
      {"roll_off", [](Snapshot& x) { x.mutable_roll_off(0)->add_seats(3); }},
      {"match_points", [](Snapshot& x) { x.add_match_points(0); }},
      {"match_points", [](Snapshot& x) { x.set_match_points(0, 1); }},
      {"end_reason", [](Snapshot& x) { x.set_end_reason(pb::PICADICE_END_REASON_GRID_FILLED); }},
      {"round_results", [](Snapshot& x) { x.add_round_results(); }},
  };
  for (const auto& [what, damage] : damages) {
    engine::v1::GameRecord record = s->Serialize();
    Snapshot snapshot;
    ASSERT_TRUE(record.state().UnpackTo(&snapshot));
    damage(snapshot);
    record.mutable_state()->PackFrom(snapshot);
    absl::StatusOr<std::unique_ptr<engine::State>> loaded = game_.Deserialize(record);
    EXPECT_FALSE(loaded.ok()) << "accepted damage to " << what;
    if (!loaded.ok()) {
      EXPECT_EQ(loaded.status().code(), absl::StatusCode::kInvalidArgument);
    }
  }
  // Bytes that are not a snapshot at all.
  engine::v1::GameRecord record = s->Serialize();
  record.mutable_state()->set_value("\xff\xff\xff garbage");
  EXPECT_FALSE(game_.Deserialize(record).ok());
  record.mutable_state()->PackFrom(pb::PicadiceView());
  EXPECT_FALSE(game_.Deserialize(record).ok());
}

TEST_F(PicadiceTest, RandomlyCorruptedSnapshotsNeverCrashAndLoadOnlyIfPlayable) {
  auto s = WithGrids(*ARolled({kBlackFace, kOrange, kOrange}, 4, {{"match_play", "true"}}),
                     {Grid({{kGreen, "##.."}}), AllRows("#..."), 0, Grid({{kBlue, "###."}})},
                     {{kPurple, 2}, {kBlackFace, 1}});
  const engine::v1::GameRecord record = s->Serialize();
  const std::string bytes = record.state().value();
  engine::Rng rng(99);
  int loaded_count = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::string damaged = bytes;
    const int flips = 1 + static_cast<int>(rng.Uniform(3));
    for (int f = 0; f < flips; ++f) {
      damaged[rng.Uniform(damaged.size())] ^= static_cast<char>(1 + rng.Uniform(255));
    }
    engine::v1::GameRecord copy = record;
    copy.mutable_state()->set_value(damaged);
    absl::StatusOr<std::unique_ptr<engine::State>> loaded = game_.Deserialize(copy);
    if (!loaded.ok()) {
      EXPECT_EQ(loaded.status().code(), absl::StatusCode::kInvalidArgument);
      continue;
    }
    ++loaded_count;
    // Whatever loads is a consistent position: it plays to its next decision and saves again.
    engine::State& state = **loaded;
    EXPECT_EQ(game_.Deserialize(state.Serialize()).ok(), true);
    for (int seat = 0; seat < 4; ++seat) {
      for (Action a : state.LegalActions(seat)) {
        std::unique_ptr<engine::State> clone = state.Clone();
        EXPECT_TRUE(clone->Apply(seat, a).ok()) << state.ActionToString(seat, a);
      }
    }
  }
  EXPECT_GT(loaded_count, 0);  // some flips land on harmless values (e.g. a grid bit)
}

TEST_F(PicadiceTest, ActionsReadLikeTheRules) {
  auto s = ARolled({kBlackFace, kBlackFace, kBlue});
  EXPECT_EQ(s->ActionToString(A, UseColourAction(kBlue, 2)), "use blue at column 2");
  EXPECT_EQ(s->ActionToString(A, CallPicaBirdsAction(B, kPurple, 1, 3)),
            "call the Pica Birds: steal from seat 1's purple row, columns 1 to 2, place at "
            "column 3");
  EXPECT_EQ(s->ActionToString(A, DiscardAllAction()), "discard all dice to the nest");
  EXPECT_EQ(s->ActionKind(RollAction()), 0);
  EXPECT_EQ(s->ActionKind(CallPicaBirdsAction(B, kPurple, 1, 3)), 4);
  EXPECT_EQ(game_.info().action_kinds.size(), 6u);
}

}  // namespace
}  // namespace parlor::games::picadice
