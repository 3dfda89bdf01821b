// kadice tests: the rules beyond the numbered cases: refusals, legal-action order, options, bounds
// and outcomes. Shared helpers: kadice_test_util.h.
#include "engine/games/kadice/kadice_test_util.h"

namespace parlor::games::kadice {
namespace {

TEST(KadiceRefusals, AnOutOfTurnMessageIsToldWhoseTurnItIsWhateverItsShape) {
  auto state = Start({.tops = {{kThreeOfAKind}, {kSinglePair4}, {kSinglePair5}, {kTwoPairs}},
                      .after = {4, 4, 1, 2, 6}});
  APPLY(state, kAnn, Roll());
  // Dan sends {"eliminate":{"targets":[]}} during Ann's turn: not "name at least one card".
  v1::KadiceAction empty_eliminate;
  empty_eliminate.mutable_eliminate();
  google::protobuf::Any any;
  any.PackFrom(empty_eliminate);
  const absl::Status dan = state->CheckMessage(kDan, any).status();
  EXPECT_EQ(dan.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(dan.message(), "it is seat 0's turn");
  // Ann, whose turn it is, is told what is wrong with the message.
  const absl::Status ann = state->CheckMessage(kAnn, any).status();
  EXPECT_EQ(ann.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(ann.message()), HasSubstr("eliminate.targets"));
  // A well-formed message gets exactly what its code gets.
  v1::KadiceAction ben;
  ben.mutable_eliminate()->add_targets(kBen);
  any.PackFrom(ben);
  EXPECT_EQ(state->CheckMessage(kDan, any).status(), state->CheckAction(kDan, Eliminate({kBen})));
  EXPECT_EQ(*state->CheckMessage(kAnn, any), Eliminate({kBen}));
}

// ---- Further rules ------------------------------------------------------------------------------

TEST(KadiceRules, FiveOfAKindIsJudgedAsRolledNotAfterAShift) {
  auto state = Start({.tops = {{kThreeOfAKind}, {kSinglePair1}, {kSinglePair2}, {kSinglePair3}},
                      .after = {4, 4, 4, 4, 5}});
  APPLY(state, kAnn, Roll());
  APPLY(state, kAnn, Shift(4, kDown));
  EXPECT_EQ(DiceOf(*state, kAnn), (std::vector<int>{4, 4, 4, 4, 4}));
  EXPECT_FALSE(state->five_of_a_kind());
  ExpectBroken(*state, kAnn, Set(0, 1),
               "your roll was not a five of a kind and your card gives no wild dice");
}

TEST(KadiceRules, FiveOfAKindCountsHeldDice) {
  Table table{.tops = {{kSinglePair1}, {kSinglePair2}, {kSinglePair3}, {kSinglePair4}},
              .after = {}};
  Append(table.after, {6, 6, 1, 2, 3});
  for (int i = 0; i < 3; ++i) Append(table.after, kFiller);
  Append(table.after, {6, 6, 6});
  auto state = Start(table);
  APPLY(state, kAnn, Roll());
  APPLY(state, kAnn, Hold({0, 1}));
  PlayFillerTurns(*state, 3);
  APPLY(state, kAnn, Roll());
  EXPECT_TRUE(state->five_of_a_kind());
  APPLY(state, kAnn, Set(0, 1)) << "every die is wild, held ones included";
}

TEST(KadiceRules, WildNumberNeedsTheDieToShowTheNumber) {
  auto state = Start({.tops = {{kSinglePair3}, {kSinglePair1}, {kSinglePair2}, {kSinglePair4}},
                      .after = {3, 3, 1, 2, 6}});
  APPLY(state, kAnn, Roll());
  ExpectBroken(*state, kAnn, Set(0, 3), "die 0 already shows 3");
  APPLY(state, kAnn, Set(0, 4));
  APPLY(state, kAnn, Set(1, 4));
  EXPECT_THAT(state->LegalActions(kAnn), Not(Contains(Set(2, 5))));
}

TEST(KadiceRules, ShiftRefusals) {
  auto no_shift = Start({.tops = {{kSinglePair1}, {kSinglePair2}, {kSinglePair3}, {kSinglePair4}},
                         .after = {6, 5, 3, 2, 1}});
  APPLY(no_shift, kAnn, Roll());
  ExpectBroken(*no_shift, kAnn, Shift(0, kDown), "your card has no shift ability");
  auto ten = Start({.tops = {{kTenOrUnder}, {kSinglePair2}, {kSinglePair3}, {kSinglePair4}},
                    .after = {1, 5, 3, 2, 1}});
  APPLY(ten, kAnn, Roll());
  ExpectBroken(*ten, kAnn, Shift(1, kUp), "10 OR UNDER shifts down only");
  ExpectBroken(*ten, kAnn, Shift(0, kDown), "a 1 cannot be shifted down");
  ExpectBroken(*ten, kAnn, Set(1, 1),
               "your roll was not a five of a kind and your card gives no wild dice");
}

TEST(KadiceRules, EliminateRefusals) {
  auto state = Start({.tops = {{kThreeOfAKind}, {kSinglePair4}, {kSinglePair1}, {kSinglePair2}},
                      .after = {4, 4, 1, 1, 2, /*Ben*/ 6, 5, 3, 2, 1, /*Cat*/ 4, 4, 3, 2, 1}});
  APPLY(state, kAnn, Roll());
  ExpectBroken(*state, kAnn, Eliminate({kAnn, kBen}), "you cannot eliminate your own card");
  APPLY(state, kAnn, Eliminate({kBen, kCat}));
  ASSERT_EQ(state->current(), kDan);
  auto dan = Edited(*state, [](StateProto& s) { Deciding(s, kDan, {4, 4, 3, 3, 6}); });
  ExpectBroken(*dan, kDan, Eliminate({kBen}), "seat 1 has no active card");
  ExpectRefused(*dan, kDan, EliminateAction(0), absl::StatusCode::kInvalidArgument,
                "eliminate.targets");
}

TEST(KadiceRules, WrongPhaseRefusals) {
  auto state = Start(
      {.tops = {{kSinglePair1}, {kSinglePair2}, {kSinglePair3}, {kSinglePair4}}, .after = kFiller});
  ExpectBroken(*state, kAnn, Hold(), "roll first");
  ExpectBroken(*state, kAnn, Set(0, 1), "roll first");
  APPLY(state, kAnn, Roll());
  ExpectBroken(*state, kAnn, Roll(), "you have already rolled this turn");
  ExpectRefused(*state, kAnn, 999, absl::StatusCode::kInvalidArgument, "no KA'DICE action");
  ExpectRefused(*state, kAnn, -5, absl::StatusCode::kInvalidArgument, "no KA'DICE action");
  ExpectRefused(*state, kAnn, 207, absl::StatusCode::kInvalidArgument, "no KA'DICE action");
}

TEST(KadiceRules, AMalformedActionIsRefusedForItsShapeBeforeTheWrongPhase) {
  // Shape (RULES.md section 6, step 5) comes before legality (step 6), "roll first" included:
  // an empty target list or five dice to hold are malformed in every phase.
  auto state = Start({.tops = {{kSinglePair1}, {kSinglePair2}}, .after = {2, 2, 1, 3, 4}});
  ExpectRefused(*state, kAnn, EliminateAction(0), absl::StatusCode::kInvalidArgument,
                "eliminate.targets: name at least one card");
  ExpectRefused(*state, kAnn, Eliminate({kCat}), absl::StatusCode::kInvalidArgument,
                "seat 2 does not exist");
  ExpectRefused(*state, kAnn, Hold({0, 1, 2, 3, 4}), absl::StatusCode::kInvalidArgument,
                "at most 4 dice");
  ExpectBroken(*state, kAnn, Eliminate({kBen}), "roll first");
}

TEST(KadiceRules, TwoPlayerSeatsBeyondTheTableAreMalformed) {
  auto state = Start({.tops = {{kSinglePair1}, {kSinglePair2}}, .after = {2, 2, 1, 3, 4}});
  APPLY(state, kAnn, Roll());
  ExpectRefused(*state, kAnn, Eliminate({kCat}), absl::StatusCode::kInvalidArgument,
                "seat 2 does not exist");
}

TEST(KadiceRules, AWarLostWithTheLastCardMakesAGhostAndEndsTheGame) {
  auto started = Game().NewGame(2, *Game().ParseOptions({}, 2), engine::Seed::FromUint64(5));
  ASSERT_TRUE(started.ok());
  // Round 5: Ann's card was eliminated; her deck holds only SINGLE PAIR 2, which Ben has active.
  // She reveals it at the start of round 6 and loses the war, 1 against 6.
  const uint64_t draw = DrawNumberGiving((*started)->seed(), {{0, 6}, {5, 6}});
  auto state = Edited(
      **started,
      [](StateProto& s) {
        s.set_round(5);
        s.set_dealer(kAnn);
        GiveCards(s.mutable_players(kAnn), -1, {kSinglePair2});
        GiveCards(s.mutable_players(kBen), kSinglePair2, {kKadice});
        s.mutable_players(kAnn)->set_turns_taken(1);
        Deciding(s, kBen, {1, 2, 3, 5, 6}, 3);
      },
      draw);
  APPLY(state, kBen, Hold());
  ASSERT_TRUE(state->IsTerminal());
  EXPECT_TRUE(state->player(kAnn).ghost);
  EXPECT_EQ(state->player(kAnn).ghost_round, 6);
  EXPECT_EQ(state->player(kBen).active, kSinglePair2) << "the war's winner keeps the card";
  EXPECT_EQ(state->GetOutcome().ranks, (std::vector<int>{2, 1}));
}

TEST(KadiceRules, RoundLimitRanksByCardsLeft) {
  auto started = Game().NewGame(3, *Game().ParseOptions({{"max_rounds", "30"}}, 3),
                                engine::Seed::FromUint64(9));
  ASSERT_TRUE(started.ok());
  auto state = Edited(**started, [](StateProto& s) {
    s.set_round(30);
    s.set_dealer(kAnn);
    GiveCards(s.mutable_players(kAnn), kThreeOfAKind, {kKadice, kAllOdds});            // 3 cards
    GiveCards(s.mutable_players(kBen), kSinglePair1, {kKadice, kAllOdds, kAllEvens});  // 4
    GiveCards(s.mutable_players(kCat), kSinglePair2, {kKadice, kAllOdds});             // 3
    for (int seat : {kBen, kCat}) s.mutable_players(seat)->set_turns_taken(3);
    Deciding(s, kAnn, {1, 2, 3, 5, 5}, 3);
  });
  APPLY(state, kAnn, Hold());
  ASSERT_TRUE(state->IsTerminal());
  EXPECT_EQ(state->end_reason(), EndReason::kRoundLimit);
  EXPECT_EQ(state->GetOutcome().ranks, (std::vector<int>{2, 1, 2}));
}

TEST(KadiceRules, GhostsRankByWhenTheyBecameGhostsAndShareARankTogether) {
  auto started = Game().NewGame(4, DefaultOptions(), engine::Seed::FromUint64(11));
  ASSERT_TRUE(started.ok());
  auto state = Edited(**started, [](StateProto& s) {
    s.set_ghost_moments(1);
    MakeGhost(s.mutable_players(kDan), 1, 1);
    GiveCards(s.mutable_players(kAnn), kFourOfAKind, {});
    GiveCards(s.mutable_players(kBen), kSinglePair1, {});
    GiveCards(s.mutable_players(kCat), kSinglePair2, {});
    Deciding(s, kAnn, {6, 6, 6, 6, 1});
  });
  APPLY(state, kAnn, Eliminate({kBen, kCat}));  // two free picks
  ASSERT_TRUE(state->IsTerminal());
  EXPECT_EQ(state->GetOutcome().ranks, (std::vector<int>{1, 2, 2, 4}));
}

TEST(KadiceRules, GhostRollFiveOfAKindRevivesAndTheDealerSkipsGhosts) {
  auto started = Game().NewGame(3, *Game().ParseOptions({}, 3), engine::Seed::FromUint64(12));
  ASSERT_TRUE(started.ok());
  const uint64_t draw = DrawNumberGiving(
      (*started)->seed(), {{0, 6}, {0, 6}, {0, 6}, {0, 6}, {0, 6}, {0, 17}});  // [1,1,1,1,1]
  auto state = Edited(
      **started,
      [](StateProto& s) {
        s.set_round(4);
        s.set_dealer(kAnn);
        s.set_ghost_moments(1);
        MakeGhost(s.mutable_players(kBen), 2, 1);
        GiveCards(s.mutable_players(kAnn), kAllEvens, {kKadice});
        GiveCards(s.mutable_players(kCat), kAllOdds, {kKadice});
        s.mutable_players(kCat)->set_turns_taken(3);
        Deciding(s, kAnn, {1, 2, 3, 5, 5}, 3);
      },
      draw);
  APPLY(state, kAnn, Hold());
  // [1,1,1,1,1] meets ALL ODDS anyway; it is also a five of a kind. Ben gets SINGLE PAIR 1 back.
  EXPECT_FALSE(state->player(kBen).ghost);
  EXPECT_EQ(state->player(kBen).active, kSinglePair1);
  EXPECT_EQ(state->dealer(), kBen) << "a player just revived can receive the button";
}

TEST(KadiceRules, RollOffStillTiedAfterFiftyRollsIsDecidedByLot) {
  std::vector<int32_t> outcomes;
  for (int top : {0, 1}) Append(outcomes, DeckOrder({top}));
  for (int roll = 1; roll <= kMaxRollOffRolls; ++roll) {
    for (int i = 0; i < 2 * std::min(roll, kNumDice); ++i) outcomes.push_back(6);
  }
  outcomes.push_back(1);  // the lot: the second of the tied players
  auto started = Game().NewGameWithOutcomes(2, *Game().ParseOptions({}, 2),
                                            engine::Seed::FromUint64(1), outcomes);
  ASSERT_TRUE(started.ok()) << started.status();
  auto state = Own(*std::move(started));
  EXPECT_EQ(state->dealer(), kBen);
  ASSERT_FALSE(state->events().empty());
  EXPECT_TRUE(state->events()[0].flag);
}

TEST(KadiceRules, AGhostRollMayMatchAnImmuneCard) {
  auto started = Game().NewGame(3, *Game().ParseOptions({}, 3), engine::Seed::FromUint64(13));
  ASSERT_TRUE(started.ok());
  // [1,1,3,3,5] meets only Ann's 2 PAIRS, which is immune this round; the pick is index 0.
  const uint64_t draw =
      DrawNumberGiving((*started)->seed(), {{0, 6}, {0, 6}, {2, 6}, {2, 6}, {4, 6}, {0, 17}});
  auto state = Edited(
      **started,
      [](StateProto& s) {
        s.set_round(4);
        s.set_dealer(kAnn);
        s.set_ghost_moments(1);
        MakeGhost(s.mutable_players(kBen), 2, 1);
        GiveCards(s.mutable_players(kAnn), kTwoPairs, {kKadice});
        s.mutable_players(kAnn)->set_immune(true);
        s.mutable_players(kAnn)->set_finished(true);
        GiveCards(s.mutable_players(kCat), kSinglePair6, {kKadice});
        Deciding(s, kCat, {1, 2, 3, 5, 5}, 3);
      },
      draw);
  APPLY(state, kCat, Hold());
  EXPECT_FALSE(state->player(kBen).ghost)
      << "matching does not eliminate, so immunity is no shield";
  EXPECT_EQ(state->player(kBen).active, kSinglePair1);
  EXPECT_EQ(state->player(kAnn).active, kTwoPairs) << "the matched card is not affected";
}

TEST(KadiceRules, DealerWarOnlyTheTiedLeadersRollAgainWithOneMoreDie) {
  std::vector<int32_t> outcomes;
  for (int top : {0, 1, 2}) Append(outcomes, DeckOrder({top}));
  Append(outcomes, {5, 5, 5});           // all tied
  Append(outcomes, {6, 6, 6, 5, 6, 6});  // Ann 12, Ben 11, Cat 12
  Append(outcomes, {1, 1, 1, 2, 2, 2});  // Ann 3, Cat 6
  auto started = Game().NewGameWithOutcomes(3, *Game().ParseOptions({}, 3),
                                            engine::Seed::FromUint64(1), outcomes);
  ASSERT_TRUE(started.ok()) << started.status();
  auto state = Own(*std::move(started));
  EXPECT_EQ(state->dealer(), kCat);
  auto view = ViewOf(*state, engine::Viewer::Spectator());
  const v1::KadiceRollOff& war = view->events(0).roll_off();
  ASSERT_EQ(war.rounds_size(), 3);
  EXPECT_EQ(war.rounds(1).throws_size(), 3);
  ASSERT_EQ(war.rounds(2).throws_size(), 2);
  EXPECT_EQ(war.rounds(2).throws(0).dice_size(), 3);
  EXPECT_EQ(war.rounds(2).throws(1).seat(), kCat);
}

TEST(KadiceRules, ABonusRollCanBeAFiveOfAKind) {
  auto state = Start({.tops = {{kSinglePair1}, {kSinglePair2}, {kSmallStraight}, {kSinglePair3}},
                      .dealer = kCat,
                      .after = {4, 4, 4, 1, 2, /*bonus*/ 4, 4}});
  APPLY(state, kCat, Roll());
  EXPECT_FALSE(state->five_of_a_kind());
  APPLY(state, kCat, Hold({0, 1, 2}));
  EXPECT_TRUE(state->five_of_a_kind());
  APPLY(state, kCat, Set(0, 1));
}

// ---- Options, views, protos, snapshots
// ------------------------------------------------------------

TEST(KadiceOptions, DefaultsAndValidation) {
  EXPECT_EQ(DefaultOptions().Get("max_rounds"), 100);
  for (const char* bad : {"29", "501", "x"}) {
    auto options = Game().ParseOptions({{"max_rounds", bad}}, 4);
    EXPECT_EQ(options.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(std::string(options.status().message()), HasSubstr("max_rounds"));
  }
  EXPECT_TRUE(Game().ParseOptions({{"max_rounds", "30"}}, 2).ok());
  EXPECT_TRUE(Game().ParseOptions({{"max_rounds", "500"}}, 3).ok());
  EXPECT_FALSE(Game().ParseOptions({{"goodie_card", "1"}}, 4).ok()) << "not supported";
  for (int players : {1, 5}) {
    EXPECT_EQ(Game().NewGame(players, DefaultOptions(), engine::Seed{}).status().code(),
              absl::StatusCode::kInvalidArgument);
  }
  EXPECT_EQ(Game().MaxMoves(4, DefaultOptions()), 100 * 4 * 3 * 15 + 4);
}

}  // namespace
}  // namespace parlor::games::kadice
