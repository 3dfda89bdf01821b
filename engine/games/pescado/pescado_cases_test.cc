// pescado tests: the rule cases of RULES.md, one test per case, named like the rulebook. Shared
// helpers: pescado_test_util.h.
#include "engine/games/pescado/pescado_test_util.h"

namespace parlor::games::pescado {
namespace {

// ---- Rule cases 1–12: one continuous game ------------------------------------------------------

TEST(PescadoRuleCases, Case12ActingOutOfTurn) {
  auto s = CasesGame();
  // During Ann's turn, Ben sends TakeTile {12}: rejected, it is Ann's turn.
  ExpectFailedPrecondition(*s, kBen, EncodeTakeTile(12), "it is seat 0's turn");
  // Ben sends SnatchClaim {tiles: []}: rejected, it is Ann's turn (a seat that may not act is
  // told so whatever it sends).
  ExpectFailedPrecondition(*s, kBen, EncodeSnatchClaim({}), "it is seat 0's turn");
  Accept(*s, kAnn, EncodeThrowFirst());
  ExpectFailedPrecondition(*s, kBen, EncodeTakeTile(12), "it is seat 0's turn");
  ExpectFailedPrecondition(*s, kCat, EncodeEndTurn(), "it is seat 0's turn");
  ExpectFailedPrecondition(*s, kAnn, EncodeSnatchClaim({}), "no snatch window is open");
}

TEST(PescadoRuleCases, Case1OneThrowSeveralTilesTheSameDice) {
  auto s = CasesGame();
  Accept(*s, kAnn, EncodeThrowFirst());
  EXPECT_EQ(DiceString(*s), "YYOBG");
  EXPECT_EQ(s->phase(), Phase::kFirstThrowResolved);
  // Ann takes 7, then 19, then 25: each is accepted, although the yellow dice serve all three.
  Accept(*s, kAnn, EncodeTakeTile(7));
  Accept(*s, kAnn, EncodeTakeTile(19));
  Accept(*s, kAnn, EncodeTakeTile(25));
  // The three tiles lie exposed in Ann's supply.
  EXPECT_THAT(SupplyWithSafety(*s, kAnn),
              ElementsAre(std::pair(7, false), std::pair(19, false), std::pair(25, false)));
  EXPECT_THAT(Pool(*s), ElementsAre(1, 0, 14, 0, 0, 29));
  // Tile 1 needs three yellow and the dice show two.
  ExpectFailedPrecondition(*s, kAnn, EncodeTakeTile(1),
                           "tile 1 (YYY) does not match the dice: it needs 3 yellow; the dice "
                           "show 2 yellow");
  // Tile 14 needs two green, one shown.
  ExpectFailedPrecondition(*s, kAnn, EncodeTakeTile(14), "it needs 2 green; the dice show 1 green");
  // Tile 29 needs red, none shown.
  ExpectFailedPrecondition(*s, kAnn, EncodeTakeTile(29), "it needs 1 red; the dice show no red");
}

TEST(PescadoRuleCases, Case2PayingForAGreyDie) {
  auto s = CasesGame();
  PlayCase1(*s);
  // Tile 7 is in Ann's own supply: only face-up pool tiles and the predecessor's exposed tiles
  // can be flipped.
  ExpectFailedPrecondition(*s, kAnn, EncodeBuyGreyDie(7, 14),
                           "tile 7 is in your own supply; only face-up pool tiles and your "
                           "predecessor's exposed tiles can be flipped");
  Accept(*s, kAnn, EncodeBuyGreyDie(1, 14));
  EXPECT_TRUE(s->pool_flipped(0));
  EXPECT_TRUE(s->pool_flipped(2));
  EXPECT_EQ(s->pool_tile(0), 1) << "a flipped tile stays in its slot";
  EXPECT_EQ(s->grey_dice_bought(), 1);
  // Two different tiles are needed.
  ExpectRejected(*s, kAnn, EncodeBuyGreyDie(29, 29), absl::StatusCode::kInvalidArgument,
                 "name two different tiles");
  // No second grey die can be bought: only tile 29 is still flippable.
  for (Action a : s->LegalActions(kAnn)) {
    EXPECT_NE(DecodeAction(a).kind, ActionType::kBuyGreyDie) << s->ActionToString(kAnn, a);
  }
  ExpectFailedPrecondition(*s, kAnn, EncodeBuyGreyDie(1, 29),
                           "tile 1 is already flipped face down this turn");
}

TEST(PescadoRuleCases, Case3SecondThrowWithKeptDiceAndAGreyDie) {
  auto s = CasesGame();
  PlayCase1(*s);
  Accept(*s, kAnn, EncodeBuyGreyDie(1, 14));
  // Ann keeps the blue and the green die; dice 0, 1, 2 and one grey die show O, R, G and K.
  Accept(*s, kAnn, EncodeThrowSecond(Keep({3, 4})));
  EXPECT_EQ(s->phase(), Phase::kSecondThrowResolved);
  EXPECT_EQ(DiceString(*s), "ORGBGK");
  Accept(*s, kAnn, EncodeTakeTile(29));
  // Tile 14 (GGB) matches but is flipped face down until the end of this turn.
  ExpectFailedPrecondition(*s, kAnn, EncodeTakeTile(14),
                           "tile 14 is flipped face down until the end of this turn");
  // Tile 1 is flipped (and would need three yellow).
  ExpectFailedPrecondition(*s, kAnn, EncodeTakeTile(1),
                           "tile 1 is flipped face down until the end of this turn");
  const v1::PescadoView view = ViewOf(*s, engine::Viewer::Spectator());
  ASSERT_EQ(view.dice_size(), 6);
  EXPECT_FALSE(view.dice(0).kept());
  EXPECT_TRUE(view.dice(3).kept());
  EXPECT_TRUE(view.dice(4).kept());
  EXPECT_EQ(view.dice(5).index(), 5);
  EXPECT_EQ(view.dice(5).color(), v1::PESCADO_COLOR_BLACK);
}

TEST(PescadoRuleCases, Case4AtLeastOneDieMustBeThrown) {
  auto s = NewGame(3, {1, 7, 14, 19, 25, 29}, kAnn, {"YORBG", "K"});
  Accept(*s, kAnn, EncodeThrowFirst());
  ExpectFailedPrecondition(*s, kAnn, EncodeThrowSecond(Keep({0, 1, 2, 3, 4})),
                           "the second throw must throw at least one die");
  Accept(*s, kAnn, EncodeBuyGreyDie(1, 14));
  // Now the same message is accepted and only the grey die is thrown.
  Accept(*s, kAnn, EncodeThrowSecond(Keep({0, 1, 2, 3, 4})));
  EXPECT_EQ(DiceString(*s), "YORBGK") << "the white dice keep their faces and count";
  EXPECT_TRUE(IsLegal(*s, kAnn, EncodeTakeTile(25))) << "YBG matches kept white dice";
}

TEST(PescadoRuleCases, Case5EachThrowCountsOnlyForItself) {
  auto s = NewGame(3, {20, 1, 2, 3, 4, 5}, kAnn, {"YOGRR", "YYRRB"});
  Accept(*s, kAnn, EncodeThrowFirst());
  EXPECT_TRUE(IsLegal(*s, kAnn, EncodeTakeTile(20)));
  Accept(*s, kAnn, EncodeThrowSecond(Keep({})));
  EXPECT_EQ(DiceString(*s), "YYRRB");
  ExpectFailedPrecondition(*s, kAnn, EncodeTakeTile(20),
                           "tile 20 (YOG) does not match the dice: it needs 1 orange and 1 green; "
                           "the dice show no orange and no green");
}

TEST(PescadoRuleCases, Case6EndOfTurn) {
  auto s = CasesGame();
  PlayCases1To3(*s);
  Accept(*s, kAnn, EncodeTakeTile(29));
  Accept(*s, kAnn, EncodeEndTurn());
  // Tiles 1 and 14 are turned face up and stay in slots 0 and 2; slots 1, 3, 4, 5 are refilled
  // with the top four stack tiles in that order.
  EXPECT_THAT(Pool(*s), ElementsAre(1, 12, 14, 2, 3, 4));
  for (int slot = 0; slot < kPoolSlots; ++slot) EXPECT_FALSE(s->pool_flipped(slot));
  EXPECT_EQ(s->turn_counter(), 1);
  EXPECT_EQ(s->stack_size(), 26);
  EXPECT_THAT(SupplyWithSafety(*s, kAnn), ElementsAre(std::pair(7, false), std::pair(19, false),
                                                      std::pair(25, false), std::pair(29, false)));
  EXPECT_EQ(s->active_seat(), kBen);
  EXPECT_EQ(s->phase(), Phase::kAwaitFirstThrow);
  EXPECT_EQ(s->grey_dice_bought(), 0);
  EXPECT_THAT(s->Dice(), IsEmpty());
}

TEST(PescadoRuleCases, Case7StealingFromThePredecessor) {
  auto s = CasesGame();
  PlayCases1To6(*s);
  Accept(*s, kBen, EncodeThrowFirst());
  EXPECT_EQ(DiceString(*s), "YOBBR");
  Accept(*s, kBen, EncodeTakeTile(19));
  EXPECT_THAT(SupplyWithSafety(*s, kBen), ElementsAre(std::pair(19, true)))
      << "a tile caught from the predecessor is safe at once";
  EXPECT_THAT(s->Supply(kAnn), ElementsAre(7, 25, 29));
  ExpectFailedPrecondition(*s, kBen, EncodeTakeTile(7),
                           "it needs 2 yellow; the dice show 1 yellow");
  ExpectFailedPrecondition(*s, kBen, EncodeTakeTile(25),
                           "it needs 1 green; the dice show no green");
  Accept(*s, kBen, EncodeTakeTile(12));
  EXPECT_THAT(SupplyWithSafety(*s, kBen), ElementsAre(std::pair(19, true), std::pair(12, false)));
}

TEST(PescadoRuleCases, Case8FlippingThePredecessorsTilesProtectsThem) {
  auto s = CasesGame();
  PlayCases1To7(*s);
  Accept(*s, kBen, EncodeBuyGreyDie(7, 25));
  EXPECT_TRUE(s->IsSafe(7));
  EXPECT_TRUE(s->IsSafe(25));
  EXPECT_FALSE(s->IsSafe(29));
  EXPECT_THAT(s->Supply(kAnn), ElementsAre(7, 25, 29)) << "flipped tiles stay with Ann";
  EXPECT_EQ(s->grey_dice_bought(), 1);
  Accept(*s, kBen, EncodeThrowSecond(Keep({})));
  ExpectFailedPrecondition(*s, kBen, EncodeTakeTile(7), "tile 7 is in seat 0's supply and is safe");
}

TEST(PescadoRuleCases, Case9ThePredecessorsRemainingTilesBecomeSafe) {
  auto s = CasesGame();
  PlayCases1To7(*s);
  Accept(*s, kBen, EncodeBuyGreyDie(7, 25));
  Accept(*s, kBen, EncodeThrowSecond(Keep({})));
  EXPECT_EQ(DiceString(*s), "KKKKKK");
  EXPECT_FALSE(IsLegal(*s, kBen, EncodeTakeTile(29)));
  Accept(*s, kBen, EncodeEndTurn());
  EXPECT_THAT(SupplyWithSafety(*s, kAnn),
              ElementsAre(std::pair(7, true), std::pair(25, true), std::pair(29, true)));
  EXPECT_THAT(SupplyWithSafety(*s, kBen), ElementsAre(std::pair(19, true), std::pair(12, false)));
  EXPECT_EQ(s->active_seat(), kCat);
  EXPECT_EQ(s->predecessor(), kBen);
}

void PlayCases1To9(PescadoState& s) {
  PlayCases1To7(s);
  Accept(s, kBen, EncodeBuyGreyDie(7, 25));
  Accept(s, kBen, EncodeThrowSecond(Keep({})));
  Accept(s, kBen, EncodeEndTurn());
}

TEST(PescadoRuleCases, Case10SafeTilesCannotBeCaught) {
  auto s = CasesGame();
  PlayCases1To9(*s);
  Accept(*s, kCat, EncodeThrowFirst());
  EXPECT_EQ(DiceString(*s), "ORGBB");
  ExpectFailedPrecondition(*s, kCat, EncodeTakeTile(29),
                           "tile 29 is in seat 0's supply and is safe");
  Accept(*s, kCat, EncodeTakeTile(12));
  EXPECT_THAT(SupplyWithSafety(*s, kCat), ElementsAre(std::pair(12, true)));
  EXPECT_THAT(s->Supply(kBen), ElementsAre(19));
}

TEST(PescadoRuleCases, Case11GreyDiceLimitAndTiming) {
  auto s = CasesGame();
  PlayCases1To9(*s);
  Accept(*s, kCat, EncodeThrowFirst());
  EXPECT_THAT(Pool(*s), ElementsAre(1, 5, 14, 2, 3, 4));
  Accept(*s, kCat, EncodeBuyGreyDie(1, 2));
  Accept(*s, kCat, EncodeBuyGreyDie(3, 4));
  ExpectFailedPrecondition(*s, kCat, EncodeBuyGreyDie(5, 14), "both grey dice are already bought");
  Accept(*s, kCat, EncodeThrowSecond(Keep({0, 1, 2, 3, 4})));
  EXPECT_EQ(DiceString(*s), "ORGBBYY") << "seven dice: five kept white and two grey";
  ExpectFailedPrecondition(*s, kCat, EncodeBuyGreyDie(5, 14),
                           "grey dice can only be bought before the second throw");
}

// ---- Rule cases 13–14: the end ---------------------------------------------------------------

TEST(PescadoRuleCases, Case13ThePoolCannotBeRefilled) {
  // Ann flipped two pool tiles and took the other four; three tiles are left in the stack.
  auto s = FromSnapshot(3, [](engine::pescado::PescadoState& p) {
    p.set_phase(4);
    p.set_active_seat(kAnn);
    p.set_turn_counter(25);
    p.clear_stack();
    for (int t : {30, 31, 32}) p.add_stack(t);
    p.clear_pool();
    for (int slot = 0; slot < kPoolSlots; ++slot) {
      auto* s = p.add_pool();
      if (slot < 2) {
        s->set_tile_id(33 + slot);
        s->set_flipped(true);
      }
    }
    p.clear_supplies();
    for (int seat = 0; seat < 3; ++seat) {
      auto* sup = p.add_supplies();
      for (int t = 1 + seat; t <= 29; t += 3) {
        auto* st = sup->add_tiles();
        st->set_tile_id(t);
        st->set_safe(true);
      }
    }
    // Ann's tiles of this turn are exposed; 35 and 36 complete the set.
    for (int t : {35, 36}) {
      auto* st = p.mutable_supplies(kAnn)->add_tiles();
      st->set_tile_id(t);
      st->set_safe(false);
    }
    p.clear_dice();
    for (int i = 0; i < 6; ++i) p.add_dice(i);
    p.set_grey_dice_bought(1);
  });
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->stack_size(), 3);
  Accept(*s, kAnn, EncodeEndTurn());
  EXPECT_EQ(s->phase(), Phase::kGameOver);
  EXPECT_TRUE(s->IsTerminal());
  EXPECT_EQ(s->stack_size(), 3) << "nothing is drawn";
  EXPECT_THAT(Pool(*s), ElementsAre(33, 34, 0, 0, 0, 0));
  EXPECT_FALSE(s->pool_flipped(0)) << "flipped tiles were turned back first";
  EXPECT_EQ(s->turn_counter(), 26);
  EXPECT_EQ(s->GetOutcome().reason, "the pool cannot be refilled");
  EXPECT_THAT(s->ActingSeats().ToVector(), IsEmpty());
  ExpectFailedPrecondition(*s, kBen, EncodeThrowFirst(), "the game is over");
}

TEST(PescadoRuleCases, Case14ScoringAndTieBreak) {
  // The final supplies of the case; the game ends here through the safety limit (the scoring is
  // the same for both ends).
  auto s = FromSnapshot(3, [](engine::pescado::PescadoState& p) {
    p.set_phase(4);
    p.set_active_seat(kBen);
    p.set_turn_counter(kMaxTurns - 1);
    std::map<int, std::vector<std::pair<int, bool>>> supplies = {
        {kAnn, {{1, true}, {19, true}, {20, true}}},
        {kBen, {{2, false}, {9, true}}},
        {kCat, {{8, true}, {28, true}, {33, true}}}};
    std::set<int> used = {1, 19, 20, 2, 9, 8, 28, 33};
    p.clear_supplies();
    for (int seat = 0; seat < 3; ++seat) {
      auto* sup = p.add_supplies();
      for (auto [t, safe] : supplies[seat]) {
        auto* st = sup->add_tiles();
        st->set_tile_id(t);
        st->set_safe(safe);
      }
    }
    p.clear_pool();
    p.clear_stack();
    std::vector<int> rest;
    for (int t = 1; t <= kNumTiles; ++t) {
      if (!used.count(t)) rest.push_back(t);
    }
    for (int slot = 0; slot < kPoolSlots; ++slot) p.add_pool()->set_tile_id(rest[slot]);
    for (size_t i = kPoolSlots; i < rest.size(); ++i) p.add_stack(rest[i]);
    p.clear_dice();
    for (int i = 0; i < 5; ++i) p.add_dice(i);
  });
  ASSERT_NE(s, nullptr);
  Accept(*s, kBen, EncodeEndTurn());
  ASSERT_TRUE(s->IsTerminal());
  const engine::Outcome outcome = s->GetOutcome();
  // Ann 3 + 1 + 1 = 5 in 3 tiles; Ben 3 + 2 = 5 in 2 tiles; Cat 2 + 1 + 1 = 4.
  EXPECT_THAT(outcome.scores, ElementsAre(5, 5, 4));
  // Ben 1st (equal points, fewer tiles), Ann 2nd, Cat 3rd. Ben's exposed tile counts.
  EXPECT_THAT(outcome.ranks, ElementsAre(2, 1, 3));
  EXPECT_EQ(outcome.reason, "the safety limit of 200 turns");
  const v1::PescadoView view = ViewOf(*s, engine::Viewer::Spectator());
  EXPECT_EQ(view.phase(), v1::PESCADO_PHASE_GAME_OVER);
  EXPECT_EQ(view.players(kBen).rank(), 1);
  EXPECT_EQ(view.players(kBen).score(), 5);
  EXPECT_EQ(view.players(kBen).tile_count(), 2);
}

// ---- Rule cases 15–18: snatching -------------------------------------------------------------

TEST(PescadoRuleCases, Case15ASnatchRoundAndItsDraft) {
  auto s = Case15Game();
  Accept(*s, kAnn, EncodeThrowFirst());
  EXPECT_EQ(s->phase(), Phase::kSnatchWindow);
  // 10 and 28 need orange, 5 needs three green.
  EXPECT_THAT(s->SnatchSet(), ElementsAre(3, 11, 34));
  EXPECT_THAT(s->ActingSeats().ToVector(), ElementsAre(kAnn, kBen, kCat))
      << "the window opens for all three at once";
  const std::vector<int> ben = {3, 11}, cat = {3, 34, 11}, ann = {3, 11, 34};
  Accept(*s, kBen, EncodeSnatchClaim(ben));
  EXPECT_THAT(s->ActingSeats().ToVector(), ElementsAre(kAnn, kCat));
  Accept(*s, kCat, EncodeSnatchClaim(cat));
  Accept(*s, kAnn, EncodeSnatchClaim(ann));
  // Draft order Ben, Cat, Ann. First pass: Ben 3; Cat 34; Ann 11. Second pass: nothing left.
  EXPECT_THAT(SupplyWithSafety(*s, kBen), ElementsAre(std::pair(3, true)));
  EXPECT_THAT(SupplyWithSafety(*s, kCat), ElementsAre(std::pair(34, true)));
  EXPECT_THAT(SupplyWithSafety(*s, kAnn), ElementsAre(std::pair(11, true)));
  // The pool (5, 10, 28) is refilled with three stack tiles into slots 0, 3 and 5.
  EXPECT_THAT(Pool(*s), ElementsAre(30, 5, 10, 31, 28, 32));
  EXPECT_EQ(s->turn_counter(), 1);
  EXPECT_EQ(s->active_seat(), kAnn);
  EXPECT_EQ(s->phase(), Phase::kAwaitFirstThrow);
  EXPECT_THAT(s->Dice(), IsEmpty()) << "the triggering throw is not used for anything else";
  // After resolution all claims are public.
  const v1::PescadoView view = ViewOf(*s, engine::Viewer::Spectator());
  ASSERT_TRUE(view.has_snatch());
  EXPECT_TRUE(view.snatch().resolved());
  EXPECT_THAT(view.snatch().draft_order(), ElementsAre(kBen, kCat, kAnn));
  ASSERT_EQ(view.snatch().claims_size(), 3);
  EXPECT_THAT(view.snatch().claims(kBen).tile_ids(), ElementsAre(3, 11));
  EXPECT_THAT(view.snatch().claims(kBen).received_tile_ids(), ElementsAre(3));
  EXPECT_THAT(view.snatch().claims(kCat).received_tile_ids(), ElementsAre(34));
  EXPECT_THAT(view.snatch().claims(kAnn).received_tile_ids(), ElementsAre(11));
}

TEST(PescadoRuleCases, Case16ClaimsThatAreRejected) {
  auto s = Case15Game();
  Accept(*s, kAnn, EncodeThrowFirst());
  ExpectFailedPrecondition(*s, kBen, EncodeSnatchClaim(std::vector<int>{3, 10}),
                           "tile 10 (RRO) does not match the snatch dice: it needs 1 orange; the "
                           "snatch dice show no orange");
  ExpectRejected(*s, kBen, EncodeSnatchClaim(std::vector<int>{3, 3}),
                 absl::StatusCode::kInvalidArgument, "tile 3 is listed twice");
  ExpectFailedPrecondition(*s, kBen, EncodeSnatchClaim(std::vector<int>{1}),
                           "tile 1 is not in the pool; only pool tiles can be snatched");
  Accept(*s, kBen, EncodeSnatchClaim(std::vector<int>{3, 11}));
  ExpectFailedPrecondition(*s, kBen, EncodeSnatchClaim(std::vector<int>{34}),
                           "you have already claimed in this snatch window");
  ExpectFailedPrecondition(*s, kBen, EncodeThrowFirst(),
                           "you have already claimed in this snatch window");
  ExpectFailedPrecondition(*s, kAnn, EncodeTakeTile(3), "a snatch window is open");
  // Until Cat and Ann have claimed, they see only that Ben has claimed, not what.
  for (const engine::Viewer& viewer :
       {engine::Viewer::Seat(kAnn), engine::Viewer::Seat(kCat), engine::Viewer::Spectator()}) {
    const v1::PescadoView view = ViewOf(*s, viewer);
    EXPECT_TRUE(view.players(kBen).claimed());
    EXPECT_FALSE(view.players(kCat).claimed());
    EXPECT_EQ(view.snatch().claims_size(), 0);
    EXPECT_FALSE(view.snatch().resolved());
  }
  const v1::PescadoView own = ViewOf(*s, engine::Viewer::Seat(kBen));
  ASSERT_EQ(own.snatch().claims_size(), 1);
  EXPECT_EQ(own.snatch().claims(0).seat(), kBen);
  EXPECT_THAT(own.snatch().claims(0).tile_ids(), ElementsAre(3, 11));
  const v1::PescadoView all = ViewOf(*s, engine::Viewer::All());
  ASSERT_EQ(all.snatch().claims_size(), 3) << "the reveal-all view shows every claim";
  EXPECT_THAT(all.snatch().claims(kBen).tile_ids(), ElementsAre(3, 11));
}

TEST(PescadoRuleCases, Case17NoTileMatchesTheTriplet) {
  auto s = NewGame(3, {3, 4, 6, 10, 12, 35}, kAnn, {"GGGYO", "RROKB"}, /*snatching=*/true);
  Accept(*s, kAnn, EncodeThrowFirst());
  EXPECT_EQ(s->phase(), Phase::kSnatchWindow)
      << "the window opens although the re-throw is no triplet";
  // 12 needs two blue; 3 needs three red.
  EXPECT_THAT(s->SnatchSet(), ElementsAre(10, 35));
  const v1::PescadoView view = ViewOf(*s, engine::Viewer::Spectator());
  EXPECT_EQ(view.snatch().rethrows(), 1);
  EXPECT_THAT(view.snatch().snatch_dice(),
              ElementsAre(v1::PESCADO_COLOR_RED, v1::PESCADO_COLOR_RED, v1::PESCADO_COLOR_ORANGE,
                          v1::PESCADO_COLOR_BLACK, v1::PESCADO_COLOR_BLUE));
}

TEST(PescadoRuleCases, Case18NoSnatchOnTheSecondThrow) {
  auto s = NewGame(3, {4, 12, 30, 31, 32, 33}, kAnn, {"YORBG", "BBBYOR"}, /*snatching=*/true);
  Accept(*s, kAnn, EncodeThrowFirst());
  EXPECT_EQ(s->phase(), Phase::kFirstThrowResolved);
  Accept(*s, kAnn, EncodeBuyGreyDie(32, 33));
  Accept(*s, kAnn, EncodeThrowSecond(Keep({})));
  EXPECT_EQ(DiceString(*s), "BBBYOR");
  EXPECT_EQ(s->phase(), Phase::kSecondThrowResolved);
  EXPECT_TRUE(IsLegal(*s, kAnn, EncodeTakeTile(4)));
  EXPECT_TRUE(IsLegal(*s, kAnn, EncodeTakeTile(12)));
  Accept(*s, kAnn, EncodeTakeTile(4));
}

}  // namespace
}  // namespace parlor::games::pescado
