// picadice tests: the rules beyond the numbered cases: refusals, legal-action order, options,
// bounds and outcomes. Shared helpers: picadice_test_util.h.
#include "engine/games/picadice/picadice_test_util.h"

namespace parlor::games::picadice {
namespace {

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

}  // namespace
}  // namespace parlor::games::picadice
