// kadice tests: the rule cases of RULES.md, one test per case, named like the rulebook. Shared
// helpers: kadice_test_util.h.
#include "engine/games/kadice/kadice_test_util.h"

namespace parlor::games::kadice {
namespace {

// ---- 11.1-11.2 Setup: the dealer war and card wars -------------------------------------------

TEST(KadiceRuleCases, Case01_DealerWarWithATie_BenRollsTenAgainstSevenAndDeals) {
  std::vector<int32_t> outcomes;
  for (int top : {0, 1, 2, 3}) Append(outcomes, DeckOrder({top}));
  Append(outcomes, {6, 6, 2, 5});  // Ann and Ben tie on 6
  Append(outcomes, {3, 4, 5, 5});  // with two dice: Ann 3 + 4 = 7, Ben 5 + 5 = 10
  auto started =
      Game().NewGameWithOutcomes(4, DefaultOptions(), engine::Seed::FromUint64(1), outcomes);
  ASSERT_TRUE(started.ok()) << started.status();
  auto state = Own(*std::move(started));
  EXPECT_EQ(state->dealer(), kBen);
  EXPECT_EQ(state->current(), kBen) << "the dealer takes the first turn of round 1";
  EXPECT_EQ(state->phase(), Phase::kAwaitRoll);
  EXPECT_EQ(state->round(), 1);
  auto view = std::unique_ptr<v1::KadiceView>(
      static_cast<v1::KadiceView*>(state->View(engine::Viewer::Spectator()).release()));
  ASSERT_GE(view->events_size(), 1);
  const v1::KadiceRollOff& war = view->events(0).roll_off();
  EXPECT_EQ(war.card(), v1::KADICE_CARD_UNSPECIFIED);
  ASSERT_EQ(war.rounds_size(), 2);
  EXPECT_EQ(war.rounds(0).throws_size(), 4);
  ASSERT_EQ(war.rounds(1).throws_size(), 2);
  EXPECT_EQ(war.rounds(1).throws(0).total(), 7);
  EXPECT_EQ(war.rounds(1).throws(1).total(), 10);
  EXPECT_EQ(war.winner(), kBen);
}

TEST(KadiceRuleCases, Case02_CardWarsOneAfterAnother) {
  // Ann and Cat show FULL HOUSE, Ben 3 OF A KIND, Dan ALL ODDS.
  auto state = Start({.tops = {{kFullHouse, kThreeOfAKind},
                               {kThreeOfAKind, kSinglePair2},
                               {kFullHouse},
                               {kAllOdds}},
                      .after = {2, 5,           // FULL HOUSE war: Ann 2, Cat 5
                                4, 4,           // 3 OF A KIND war: 4 and 4
                                4, 5, 3, 3}});  // then with two dice: 9 and 6
  EXPECT_EQ(state->player(kAnn).active, kThreeOfAKind);
  EXPECT_EQ(state->player(kBen).active, kSinglePair2);
  EXPECT_EQ(state->player(kCat).active, kFullHouse);
  EXPECT_EQ(state->player(kDan).active, kAllOdds);
  EXPECT_EQ(state->player(kAnn).discard[0], kFullHouse);
  EXPECT_EQ(state->player(kBen).discard[0], kThreeOfAKind);
  EXPECT_EQ(state->player(kAnn).cards_left(), 16);
  EXPECT_EQ(state->player(kBen).cards_left(), 16);
  EXPECT_EQ(state->player(kCat).cards_left(), 17);
  EXPECT_EQ(state->phase(), Phase::kAwaitRoll) << "round 1 begins";
}

// ---- 11.3-11.9 Eliminations and requirements --------------------------------------------------

TEST(KadiceRuleCases, Case03_APlainElimination_BothPlayersSitOutTheRound) {
  auto state = Start({.tops = {{kThreeOfAKind}, {kSinglePair4}, {kSinglePair5}, {kTwoPairs}},
                      .after = {4, 4, 1, 2, 6}});
  APPLY(state, kAnn, Roll());
  APPLY(state, kAnn, Eliminate({kBen}));
  EXPECT_EQ(state->player(kBen).active, kNoCard);
  EXPECT_EQ(state->player(kBen).discard[0], kSinglePair4);
  EXPECT_FALSE(state->Eligible(kBen)) << "Ben takes no more turns this round";
  EXPECT_FALSE(state->Eligible(kAnn)) << "nor does Ann";
  EXPECT_EQ(state->player(kAnn).active, kThreeOfAKind) << "Ann's card stays in play";
  EXPECT_EQ(state->current(), kCat);
  // Cat may still eliminate Ann's 3 OF A KIND this round.
  auto cat = Edited(*state, [](StateProto& s) { Deciding(s, kCat, {2, 2, 2, 5, 6}); });
  EXPECT_TRUE(IsLegal(*cat, kCat, Eliminate({kAnn})));
}

TEST(KadiceRuleCases, Case04_ARequirementNotMet_SinglePairFiveNeedsTwoFives) {
  auto state = Start({.tops = {{kThreeOfAKind}, {kSinglePair4}, {kSinglePair5}, {kTwoPairs}},
                      .after = {4, 4, 1, 2, 6}});
  APPLY(state, kAnn, Roll());
  ExpectBroken(*state, kAnn, Eliminate({kCat}),
               "seat 2's SINGLE PAIR 5 needs two 5s; your dice [4,4,1,2,6] show none");
  ExpectBroken(*state, kAnn, Eliminate({kBen, kCat}), "SINGLE PAIR 5 needs two 5s");
}

TEST(KadiceRuleCases, Case05_TheSameDiceForSeveralCards) {
  auto state = Start({.tops = {{kThreeOfAKind}, {kSinglePair2}, {kTwoPairs}, {kAllEvens}},
                      .after = {2, 2, 4, 4, 6}});
  APPLY(state, kAnn, Roll());
  APPLY(state, kAnn, Eliminate({kBen, kCat, kDan}));
  // Nobody else can play this round, so it ends and the three reveal new cards.
  EXPECT_EQ(state->player(kBen).discard[0], kSinglePair2);
  EXPECT_EQ(state->player(kCat).discard[0], kTwoPairs);
  EXPECT_EQ(state->player(kDan).discard[0], kAllEvens);
}

TEST(KadiceRuleCases, Case06_WhatFourOfAKindMeets) {
  const Dice dice = D(5, 5, 5, 5, 2);
  for (Card met : {kSinglePair5, kThreeOfAKind, kFourOfAKind, kTwoPairs}) {
    EXPECT_TRUE(MeetsCard(dice, met)) << CardName(met);
  }
  for (Card unmet : {kFullHouse, kTenOrUnder, kTwentyFiveOrOver, kAllEvens, kAllOdds,
                     kSmallStraight, kLargeStraight, kKadice, kSinglePair2}) {
    EXPECT_FALSE(MeetsCard(dice, unmet)) << CardName(unmet);
  }
}

TEST(KadiceRuleCases, Case07_FiveOfAKindMakesAllDiceWildButFullHouseNeedsTwoNumbers) {
  auto state = Start({.tops = {{kTwentyFiveOrOver}, {kFullHouse}, {kSinglePair1}, {kSinglePair2}},
                      .after = {3, 3, 3, 3, 3}});
  APPLY(state, kAnn, Roll());
  EXPECT_TRUE(state->five_of_a_kind());
  ExpectBroken(*state, kAnn, Eliminate({kBen}),
               "FULL HOUSE needs three of one number and two of another");
  APPLY(state, kAnn, Set(3, 6));
  APPLY(state, kAnn, Set(4, 6));
  EXPECT_EQ(DiceOf(*state, kAnn), (std::vector<int>{3, 3, 3, 6, 6}));
  ExpectBroken(*state, kAnn, Set(4, 5), "die 4 has already been set in this roll");
  APPLY(state, kAnn, Eliminate({kBen}));
  EXPECT_EQ(state->player(kBen).active, kNoCard);
}

TEST(KadiceRuleCases, Case08_StraightsAndKadice) {
  EXPECT_TRUE(MeetsCard(D(1, 2, 3, 4, 4), kSmallStraight));
  EXPECT_FALSE(MeetsCard(D(1, 2, 3, 4, 4), kLargeStraight));
  EXPECT_FALSE(MeetsCard(D(1, 2, 3, 4, 4), kKadice)) << "it has a pair";
  EXPECT_TRUE(MeetsCard(D(1, 2, 3, 5, 6), kKadice));
  EXPECT_FALSE(MeetsCard(D(1, 2, 3, 5, 6), kSmallStraight));
  EXPECT_TRUE(MeetsCard(D(2, 3, 4, 5, 6), kSmallStraight));
  EXPECT_TRUE(MeetsCard(D(2, 3, 4, 5, 6), kLargeStraight));
  EXPECT_FALSE(MeetsCard(D(2, 3, 4, 5, 6), kKadice));
  EXPECT_TRUE(MeetsCard(D(1, 3, 4, 5, 6), kSmallStraight)) << "3-4-5-6";
  EXPECT_FALSE(MeetsCard(D(1, 3, 4, 5, 6), kKadice));
  EXPECT_TRUE(MeetsCard(D(6, 5, 4, 2, 1), kKadice)) << "order does not matter";
}

TEST(KadiceRuleCases, Case09_Totals) {
  EXPECT_TRUE(MeetsCard(D(1, 1, 2, 3, 3), kTenOrUnder)) << "total 10";
  EXPECT_FALSE(MeetsCard(D(2, 2, 2, 2, 3), kTenOrUnder)) << "total 11";
  EXPECT_TRUE(MeetsCard(D(5, 5, 5, 5, 5), kTwentyFiveOrOver));
  EXPECT_TRUE(MeetsCard(D(6, 6, 6, 6, 1), kTwentyFiveOrOver));
  EXPECT_FALSE(MeetsCard(D(6, 6, 6, 5, 1), kTwentyFiveOrOver)) << "total 24";
}

// ---- 11.10-11.14 Abilities that change dice -----------------------------------------------------

TEST(KadiceRuleCases, Case10_ThreeOfAKindShiftsOncePerTurn) {
  auto state = Start({.tops = {{kThreeOfAKind}, {kSinglePair4}, {kSinglePair1}, {kSinglePair2}},
                      .after = {4, 4, 5, 1, 2}});
  APPLY(state, kAnn, Roll());
  APPLY(state, kAnn, Shift(2, kDown));
  EXPECT_EQ(DiceOf(*state, kAnn), (std::vector<int>{4, 4, 4, 1, 2}));
  ExpectBroken(*state, kAnn, Shift(4, kUp), "your 3 OF A KIND shift is already used this turn");
  APPLY(state, kAnn, Eliminate({kBen}));
}

// Cat (10 OR UNDER) is the dealer and holds dice 0-2 showing [1,1,2] after her first turn.
Table HeldDiceTable(bool shift_on_first_turn) {
  Table table{.tops = {{kSinglePair1}, {kSinglePair2}, {kTenOrUnder}, {kTwoPairs}},
              .dealer = kCat,
              .after = {}};
  Append(table.after, shift_on_first_turn ? std::vector<int32_t>{1, 1, 3, 5, 5}
                                          : std::vector<int32_t>{1, 1, 2, 5, 5});
  for (int i = 0; i < 3; ++i) Append(table.after, kFiller);  // Dan, Ann, Ben
  Append(table.after, {4, 3});                               // Cat's second roll: dice 3 and 4
  return table;
}

TEST(KadiceRuleCases, Case11_HeldDiceCannotBeShifted) {
  auto state = Start(HeldDiceTable(false));
  APPLY(state, kCat, Roll());
  APPLY(state, kCat, Hold({0, 1, 2}));
  PlayFillerTurns(*state, 3);
  ASSERT_EQ(state->current(), kCat);
  APPLY(state, kCat, Roll());
  EXPECT_EQ(DiceOf(*state, kCat), (std::vector<int>{1, 1, 2, 4, 3}));
  ExpectBroken(*state, kCat, Shift(0, kDown), "die 0 was not rolled this turn");
  APPLY(state, kCat, Shift(3, kDown));
  EXPECT_EQ(DiceOf(*state, kCat), (std::vector<int>{1, 1, 2, 3, 3}));
  APPLY(state, kCat, Eliminate({kDan}));  // 1-1 and 3-3 meet Dan's 2 PAIRS
}

TEST(KadiceRuleCases, Case12_TenOrUnderShiftsOncePerRound) {
  auto state = Start(HeldDiceTable(true));
  APPLY(state, kCat, Roll());
  APPLY(state, kCat, Shift(2, kDown));  // [1,1,3,5,5] -> [1,1,2,5,5]
  APPLY(state, kCat, Hold({0, 1, 2}));
  PlayFillerTurns(*state, 3);
  APPLY(state, kCat, Roll());
  ExpectBroken(*state, kCat, Shift(3, kDown), "your 10 OR UNDER shift is already used this round");
  // In the next round she may shift again.
  APPLY(state, kCat, Hold());
  while (state->round() == 1) PlayFillerTurns(*state, 1);
  while (state->current() != kCat) PlayFillerTurns(*state, 1);
  APPLY(state, kCat, Roll());
  EXPECT_FALSE(state->player(kCat).round_shift_used);
  int shiftable = -1;
  for (int d = 0; d < kNumDice; ++d) {
    if (state->player(kCat).dice[d] > 1) shiftable = d;
  }
  ASSERT_GE(shiftable, 0);
  APPLY(state, kCat, Shift(shiftable, kDown));
}

TEST(KadiceRuleCases, Case13_TwentyFiveOrOverShiftsUpWithinOneToSix) {
  auto state = Start({.tops = {{kSinglePair1}, {kSinglePair2}, {kSinglePair3}, {kTwentyFiveOrOver}},
                      .dealer = kDan,
                      .after = {6, 6, 6, 5, 1}});
  APPLY(state, kDan, Roll());
  ExpectBroken(*state, kDan, Shift(0, kUp), "a 6 cannot be shifted up");
  ExpectBroken(*state, kDan, Shift(4, kDown), "25 OR OVER shifts up only");
  APPLY(state, kDan, Shift(3, kUp));
  EXPECT_EQ(DiceOf(*state, kDan), (std::vector<int>{6, 6, 6, 6, 1}));
  EXPECT_TRUE(MeetsCard(state->player(kDan).dice, kFourOfAKind));
}

TEST(KadiceRuleCases, Case14_WildNumber) {
  Table table{.tops = {{kFourOfAKind}, {kSinglePair1}, {kSinglePair2}, {kSinglePair6}},
              .dealer = kDan,
              .after = {}};
  Append(table.after, {1, 2, 3, 4, 6});                      // Dan's first roll; he holds die 4
  for (int i = 0; i < 3; ++i) Append(table.after, kFiller);  // Ann, Ben, Cat
  Append(table.after, {6, 6, 2, 2});                         // Dan's dice 0-3
  auto state = Start(table);
  APPLY(state, kDan, Roll());
  APPLY(state, kDan, Hold({4}));
  PlayFillerTurns(*state, 3);
  APPLY(state, kDan, Roll());
  EXPECT_EQ(DiceOf(*state, kDan), (std::vector<int>{6, 6, 2, 2, 6}));
  ExpectBroken(*state, kDan, Set(4, 2), "die 4 was not rolled this turn");
  ExpectBroken(*state, kDan, Set(2, 5), "die 2 shows 2, not your wild number 6");
  APPLY(state, kDan, Set(0, 2));
  APPLY(state, kDan, Set(1, 2));
  EXPECT_EQ(DiceOf(*state, kDan), (std::vector<int>{2, 2, 2, 2, 6}));
  ExpectBroken(*state, kDan, Set(0, 3), "die 0 has already been set in this roll");
  APPLY(state, kDan, Eliminate({kAnn}));
}

// ---- 11.15-11.20 Abilities without dice changes -------------------------------------------------

TEST(KadiceRuleCases, Case15_TwoPairsImmunityLastsUntilTheEndOfTheRound) {
  Table table{.tops = {{kSinglePair1}, {kTwoPairs}, {kThreeOfAKind, kKadice}, {kAllEvens}},
              .after = {}};
  Append(table.after, kFiller);                              // Ann
  Append(table.after, {3, 3, 3, 1, 2});                      // Ben eliminates Cat's 3 OF A KIND
  Append(table.after, {1, 1, 5, 5, 2});                      // Dan
  for (int i = 0; i < 4; ++i) Append(table.after, kFiller);  // Ann, Dan, Ann, Dan
  Append(table.after, kFiller);                              // round 2: Ben
  Append(table.after, kFiller);                              // Cat
  Append(table.after, {1, 1, 5, 5, 2});                      // Dan
  auto state = Start(table);
  PlayFillerTurns(*state, 1);
  APPLY(state, kBen, Roll());
  APPLY(state, kBen, Eliminate({kCat}));
  EXPECT_TRUE(state->player(kBen).immune);
  EXPECT_EQ(state->current(), kDan);
  APPLY(state, kDan, Roll());
  ExpectBroken(*state, kDan, Eliminate({kBen}),
               "seat 1's 2 PAIRS is immune until the end of this round");
  EXPECT_THAT(state->LegalActions(kDan), Not(Contains(Eliminate({kBen}))));
  APPLY(state, kDan, Hold());
  PlayFillerTurns(*state, 4);
  ASSERT_EQ(state->round(), 2);
  EXPECT_FALSE(state->player(kBen).immune);
  EXPECT_EQ(state->player(kBen).active, kTwoPairs) << "still in play";
  EXPECT_EQ(state->dealer(), kBen);
  PlayFillerTurns(*state, 2);  // Ben, Cat
  APPLY(state, kDan, Roll());
  APPLY(state, kDan, Eliminate({kBen}));
}

TEST(KadiceRuleCases, Case16_FullHouseKeepsItsTurns) {
  Table table{.tops = {{kFullHouse}, {kTwoPairs}, {kSinglePair1}, {kSinglePair2}}, .after = {}};
  Append(table.after, {2, 2, 5, 5, 1});
  Append(table.after, kFiller);  // Cat
  Append(table.after, kFiller);  // Dan
  auto state = Start(table);
  APPLY(state, kAnn, Roll());
  APPLY(state, kAnn, Eliminate({kBen}));
  EXPECT_FALSE(state->player(kAnn).finished);
  EXPECT_FALSE(state->Eligible(kBen));
  EXPECT_EQ(state->player(kAnn).held, 0) << "the elimination cleared her hold card";
  PlayFillerTurns(*state, 2);  // Cat, Dan
  ASSERT_EQ(state->current(), kAnn) << "Ann takes her second turn";
  APPLY(state, kAnn, Roll());
  EXPECT_EQ(state->player(kAnn).turns_taken, 2);
  EXPECT_EQ(state->rolled_mask(), 31) << "all five dice are rolled";
}

TEST(KadiceRuleCases, Case17_SmallStraightBonusRoll) {
  Table table{.tops = {{kSinglePair1}, {kSinglePair2}, {kSmallStraight}, {kLargeStraight}},
              .dealer = kCat,
              .after = {}};
  Append(table.after, {1, 2, 3, 3, 6});
  Append(table.after, {4, 5});  // the bonus roll of dice 3 and 4
  auto state = Start(table);
  APPLY(state, kCat, Roll());
  APPLY(state, kCat, Hold({0, 1, 2}));
  EXPECT_EQ(state->phase(), Phase::kDecide) << "DECIDE again within the same turn";
  EXPECT_EQ(state->current(), kCat);
  EXPECT_EQ(DiceOf(*state, kCat), (std::vector<int>{1, 2, 3, 4, 5}));
  EXPECT_EQ(state->player(kCat).turns_taken, 1) << "this was one turn";
  EXPECT_TRUE(IsLegal(*state, kCat, Eliminate({kDan})));
  // Had she held instead, her turn would have ended.
  APPLY(state, kCat, Hold());
  EXPECT_EQ(state->current(), kDan);
  PlayFillerTurns(*state, 3);  // Dan, Ann, Ben
  ASSERT_EQ(state->current(), kCat);
  APPLY(state, kCat, Roll());
  APPLY(state, kCat, Hold({0}));
  EXPECT_EQ(state->current(), kDan) << "her second turn has no bonus roll";
  EXPECT_EQ(state->phase(), Phase::kAwaitRoll);
}

TEST(KadiceRuleCases, Case18_AllEvensFreePick) {
  auto state = Start({.tops = {{kLargeStraight}, {kSinglePair4}, {kSinglePair6}, {kAllEvens}},
                      .dealer = kDan,
                      .after = {2, 4, 4, 6, 6}});
  APPLY(state, kDan, Roll());
  APPLY(state, kDan, Eliminate({kAnn, kBen, kCat}));  // Ann is the one free pick

  auto kadice = Start({.tops = {{kLargeStraight}, {kKadice}, {kSinglePair6}, {kAllEvens}},
                       .dealer = kDan,
                       .after = {2, 4, 4, 6, 6}});
  APPLY(kadice, kDan, Roll());
  ExpectBroken(*kadice, kDan, Eliminate({kAnn, kBen}),
               "ALL EVENS lets you eliminate 1 card whose requirement is not met; 2 of your "
               "targets are not met");
  EXPECT_TRUE(IsLegal(*kadice, kDan, Eliminate({kAnn, kCat})));
  EXPECT_TRUE(IsLegal(*kadice, kDan, Eliminate({kBen, kCat})));
}

TEST(KadiceRuleCases, Case19_FourOfAKindFreePicks) {
  auto state = Start({.tops = {{kKadice}, {kFourOfAKind}, {kAllEvens}, {kSinglePair5}},
                      .dealer = kBen,
                      .after = {5, 5, 5, 5, 1}});
  APPLY(state, kBen, Roll());
  APPLY(state, kBen, Eliminate({kAnn, kCat, kDan}));
  // (The round then ends; the new cards fight wars, so only the first discards are checked.)
  EXPECT_EQ(state->player(kAnn).discard[0], kKadice);
  EXPECT_EQ(state->player(kCat).discard[0], kAllEvens);
  EXPECT_EQ(state->player(kDan).discard[0], kSinglePair5);
}

TEST(KadiceRuleCases, Case20_KadiceTakesAllOrNothing) {
  auto state = Start(
      {.tops = {{kKadice}, {kSinglePair1}, {kTwoPairs}, {kSinglePair2}}, .after = {1, 2, 4, 5, 6}});
  APPLY(state, kAnn, Roll());
  ExpectBroken(*state, kAnn, Eliminate({kBen}),
               "a KA'DICE eliminates every other active card: name seat 1, seat 2 and seat 3");
  std::vector<Action> eliminations;
  for (Action a : state->LegalActions(kAnn)) {
    if (state->ActionKind(a) == kEliminate) eliminations.push_back(a);
  }
  EXPECT_EQ(eliminations, (std::vector<Action>{Eliminate({kBen, kCat, kDan})}));
  // If Cat's card were an immune 2 PAIRS: exactly Ben and Dan.
  auto immune = Edited(*state, [](StateProto& s) {
    s.mutable_players(kCat)->set_immune(true);
    s.mutable_players(kCat)->set_finished(true);
  });
  ExpectBroken(*immune, kAnn, Eliminate({kBen, kCat, kDan}), "seat 2's 2 PAIRS is immune");
  ExpectBroken(*immune, kAnn, Eliminate({kBen}), "name seat 1 and seat 3");
  APPLY(immune, kAnn, Eliminate({kBen, kDan}));
  APPLY(state, kAnn, Eliminate({kBen, kCat, kDan}));
  EXPECT_EQ(state->player(kBen).discard[0], kSinglePair1);
  EXPECT_EQ(state->player(kCat).discard[0], kTwoPairs);
  EXPECT_EQ(state->player(kDan).discard[0], kSinglePair2);
  EXPECT_EQ(state->round(), 2) << "nobody else can play: the round ends";
}

// ---- 11.21-11.25 Holding, turn order, the end
// ------------------------------------------------------

TEST(KadiceRuleCases, Case21_HoldingLimits) {
  auto state = Start({.tops = {{kSinglePair6}, {kSinglePair2}, {kSinglePair1}, {kSinglePair3}},
                      .after = {6, 5, 3, 2, 1, /*Ben*/ 1, 1, 2, 3, 4}});
  APPLY(state, kAnn, Roll());
  ExpectRefused(*state, kAnn, Hold({0, 1, 2, 3, 4}), absl::StatusCode::kInvalidArgument,
                "at most 4 dice may be held");
  APPLY(state, kAnn, Hold());
  EXPECT_EQ(state->player(kAnn).held, 0);
  EXPECT_EQ(state->current(), kBen) << "Hold {dice: []} ends the turn";
  APPLY(state, kBen, Roll());
  APPLY(state, kBen, Eliminate({kCat}));
  ExpectBroken(*state, kBen, Hold({0}), "your turn has ended");
}

TEST(KadiceRuleCases, Case22_TurnOrderAndTheEndOfARound) {
  Table table{
      .tops = {{kSinglePair1}, {kSinglePair2}, {kSinglePair3}, {kSinglePair5, kSmallStraight}},
      .dealer = kBen,
      .after = {}};
  Append(table.after, kFiller);          // Ben
  Append(table.after, {5, 5, 1, 2, 6});  // Cat eliminates Dan's SINGLE PAIR 5
  for (int i = 0; i < 5; ++i) Append(table.after, kFiller);
  auto state = Start(table);
  ASSERT_EQ(state->current(), kBen);
  PlayFillerTurns(*state, 1);
  APPLY(state, kCat, Roll());
  APPLY(state, kCat, Eliminate({kDan}));
  for (int expected : {kAnn, kBen, kAnn, kBen, kAnn}) {
    ASSERT_EQ(state->current(), expected);
    ASSERT_EQ(state->round(), 1);
    PlayFillerTurns(*state, 1);
  }
  EXPECT_EQ(state->round(), 2);
  EXPECT_EQ(state->dealer(), kCat) << "the dealer button moves to Cat";
  EXPECT_EQ(state->current(), kCat) << "Cat takes the first turn of the next round";
  EXPECT_EQ(state->player(kDan).active, kSmallStraight) << "Dan reveals a new active card";
  for (int s = 0; s < 4; ++s) EXPECT_EQ(state->player(s).turns_taken, 0);
}

TEST(KadiceRuleCases, Case23_TheLastPlayerWithCardsWinsAtOnce) {
  auto started = Game().NewGame(3, *Game().ParseOptions({}, 3), engine::Seed::FromUint64(3));
  ASSERT_TRUE(started.ok());
  auto state = Edited(**started, [](StateProto& s) {
    s.set_round(12);
    s.set_dealer(kBen);
    s.set_ghost_moments(1);
    GiveCards(s.mutable_players(kAnn), kThreeOfAKind, {kSinglePair1, kKadice});
    GiveCards(s.mutable_players(kBen), kSinglePair4, {});  // Ben's last card
    MakeGhost(s.mutable_players(kCat), 9, 1);
    for (int seat : {kAnn, kBen, kCat}) s.mutable_players(seat)->set_turns_taken(1);
    Deciding(s, kAnn, {4, 4, 1, 2, 6});
  });
  const uint64_t draws = state->rng_draws();
  APPLY(state, kAnn, Eliminate({kBen}));
  EXPECT_TRUE(state->IsTerminal()) << "the game ends at once";
  EXPECT_TRUE(state->player(kBen).ghost);
  EXPECT_EQ(state->rng_draws(), draws) << "no ghost roll";
  const engine::Outcome outcome = state->GetOutcome();
  EXPECT_EQ(outcome.ranks, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(outcome.scores, (std::vector<int64_t>{3, 0, 0}));
  EXPECT_THAT(outcome.reason, HasSubstr("only seat 0 has cards left"));
}

// Round 7 (or 8): Ann takes the round's last turn; Ben and Dan have used their turns.
void LastTurnOfRound(StateProto& s, int round) {
  s.set_round(round);
  s.set_dealer(kAnn);
  for (int seat : {kBen, kCat, kDan}) s.mutable_players(seat)->set_turns_taken(3);
  Deciding(s, kAnn, {3, 3, 1, 2, 6}, 3);
}

TEST(KadiceRuleCases, Case24_GhostRollAndRevival) {
  auto started = Game().NewGame(4, DefaultOptions(), engine::Seed::FromUint64(24));
  ASSERT_TRUE(started.ok());
  // Round 7: Cat's last card is eliminated; at the end of round 7 she does not roll.
  auto round7 = Edited(**started, [](StateProto& s) {
    GiveCards(s.mutable_players(kAnn), kThreeOfAKind, {kKadice});
    GiveCards(s.mutable_players(kBen), kSinglePair1, {kKadice});
    GiveCards(s.mutable_players(kCat), kSinglePair3, {});
    GiveCards(s.mutable_players(kDan), kTwoPairs, {kKadice});
    LastTurnOfRound(s, 7);
  });
  APPLY(round7, kAnn, Eliminate({kCat}));
  EXPECT_TRUE(round7->player(kCat).ghost);
  EXPECT_EQ(round7->player(kCat).ghost_round, 7);
  EXPECT_EQ(round7->round(), 8);
  for (const auto& event : round7->events()) {
    EXPECT_NE(event.kind, KadiceState::Event::kGhostRoll) << "no ghost roll in her own round";
  }
  // End of round 8: her ghost roll [2,2,5,5,1] meets Dan's 2 PAIRS; she is revived with the card
  // at index 15 of her discard pile (all 17 cards in canonical order): LARGE STRAIGHT.
  const engine::Seed seed = round7->seed();
  const uint64_t draw =
      DrawNumberGiving(seed, {{1, 6}, {1, 6}, {4, 6}, {4, 6}, {0, 6}, {kLargeStraight, 17}});
  auto round8 = Edited(
      *round7,
      [](StateProto& s) {
        GiveCards(s.mutable_players(kAnn), kLargeStraight, {kKadice});
        MakeGhost(s.mutable_players(kCat), 7, 1);
        s.set_ghost_moments(1);
        LastTurnOfRound(s, 8);
      },
      draw);
  ASSERT_NE(round8, nullptr);
  APPLY(round8, kAnn, Hold());
  const auto& events = round8->events();
  ASSERT_GE(events.size(), 3u);
  EXPECT_EQ(events[0].kind, KadiceState::Event::kGhostRoll);
  EXPECT_EQ(events[0].seat, kCat);
  EXPECT_EQ(events[0].dice, (std::vector<int8_t>{2, 2, 5, 5, 1}));
  EXPECT_TRUE(events[0].flag) << "the roll matches Dan's 2 PAIRS";
  EXPECT_EQ(events[0].card, kLargeStraight);
  EXPECT_EQ(round8->player(kDan).active, kTwoPairs) << "Dan's card is not affected";
  EXPECT_EQ(round8->player(kCat).discard_size, 16);
  EXPECT_EQ(round8->player(kCat).deck_size(), 0);
  EXPECT_EQ(round8->round(), 9);
  // Ann's active card is also LARGE STRAIGHT: Ann and Cat fight a war at the start of round 9.
  bool war = false;
  for (const auto& event : events) {
    if (event.kind == KadiceState::Event::kRollOff && event.card == kLargeStraight) {
      war = true;
      EXPECT_EQ(event.participants, Mask({kAnn, kCat}));
    }
  }
  EXPECT_TRUE(war);
}

TEST(KadiceRuleCases, Case25_OutOfTurnAndBadReleases) {
  Table table{.tops = {{kSinglePair1}, {kSinglePair2}, {kSinglePair3}, {kSinglePair4}},
              .after = {}};
  for (int i = 0; i < 4; ++i) Append(table.after, kFiller);
  auto state = Start(table);
  APPLY(state, kAnn, Roll());
  APPLY(state, kAnn, Hold({0, 1}));
  PlayFillerTurns(*state, 3);
  ASSERT_EQ(state->current(), kAnn);
  ExpectBroken(*state, kBen, Roll(), "it is seat 0's turn");
  ExpectBroken(*state, kAnn, Roll({3}), "die 3 is not held");
  APPLY(state, kAnn, Roll({1}));
  EXPECT_EQ(state->rolled_mask(), Mask({1, 2, 3, 4}));
}

}  // namespace
}  // namespace parlor::games::kadice
