// picadice tests: the rule cases of RULES.md, one test per case, named like the rulebook. Shared
// helpers: picadice_test_util.h.
#include "engine/games/picadice/picadice_test_util.h"

namespace parlor::games::picadice {
namespace {

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

}  // namespace
}  // namespace parlor::games::picadice
