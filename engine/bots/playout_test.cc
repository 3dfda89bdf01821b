// The hard bot's guided playouts and its model of a hidden choice already made, on positions
// from the games' rule cases (a playout move is what a sensible player would do, seen from what
// every player sees).

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "engine/bots/bot.h"
#include "engine/core/rng.h"
#include "engine/games/kadice/kadice.h"
#include "engine/games/pescado/pescado.h"
#include "engine/games/pico/pico.h"
#include "gtest/gtest.h"

namespace parlor::bots {
namespace {

using engine::Action;

constexpr int kAnn = 0;
constexpr int kBen = 1;

// Pico's deal D: Ann 2 5 8 10 12 16, Ben 3 4 6 9 11 13, the 7 face up.
std::unique_ptr<engine::State> PicoDealD(const games::pico::PicoGame& game) {
  absl::StatusOr<std::unique_ptr<engine::State>> state =
      game.NewGameWithOutcomes(2, engine::Options({{"rounds", 2}}), engine::Seed::FromUint64(7),
                               {2, 5, 8, 10, 12, 16, 3, 4, 6, 9, 11, 13, 7});
  EXPECT_TRUE(state.ok()) << state.status();
  return state.ok() ? *std::move(state) : nullptr;
}

TEST(GuidedPlayouts, PicoPlaysTheCardWithTheBestTrickAgainstTheOpponentsHand) {
  // Against Ben's 3 4 6 9 11 13 Ann's 16 takes the 9, the 11 and the 13 (4 points each) and loses
  // only to the 3, the 4 (1 point each) and the 6 (2 points): +8 over the six cards, more than any
  // other card (the 12: +4; the 5: +3; the 2: +2; the 10: -2; the 8: -4).
  games::pico::PicoGame game;
  std::unique_ptr<engine::State> state = PicoDealD(game);
  ASSERT_NE(state, nullptr);
  const PlayoutPolicy policy = PlayoutPolicyFor(game);
  ASSERT_NE(policy, nullptr);
  engine::Rng rng(1);
  EXPECT_EQ(policy(*state, kAnn, state->LegalActions(kAnn), rng), 16);
  // Ben's best is the 3: it beats the 2, 8, 10, 12 and 16 (1 point each) and loses only to the 5
  // (2 points): +3. His choice does not depend on whether Ann has chosen, since he cannot see her
  // card.
  EXPECT_EQ(policy(*state, kBen, state->LegalActions(kBen), rng), 3);
  ASSERT_TRUE(state->Apply(kAnn, 2).ok());
  EXPECT_EQ(policy(*state, kBen, state->LegalActions(kBen), rng), 3);
}

TEST(GuidedPlayouts, PicoHiddenChoiceIsTheOpponentsFaceDownCardAmongItsWholeHand) {
  games::pico::PicoGame game;
  std::unique_ptr<engine::State> state = PicoDealD(game);
  ASSERT_NE(state, nullptr);
  const HiddenChoiceModel model = HiddenChoiceModelFor(game);
  ASSERT_NE(model.chooser, nullptr);
  std::vector<Action> options;
  // Nobody has chosen: nothing is hidden.
  EXPECT_EQ(model.chooser(*state, kBen, &options), -1);
  ASSERT_TRUE(state->Apply(kAnn, 10).ok());
  // Ann laid the 10 face down: Ben knows she chose, not which of her six cards.
  EXPECT_EQ(model.chooser(*state, kBen, &options), kAnn);
  EXPECT_EQ(options, (std::vector<Action>{2, 5, 8, 10, 12, 16}));
  EXPECT_EQ(model.chooser(*state, kAnn, &options), -1);
  EXPECT_EQ(model.choice(*state, kAnn), 10);
  // A game without such choices has no model.
  games::pescado::PescadoGame pescado;
  EXPECT_EQ(HiddenChoiceModelFor(pescado).chooser, nullptr);
}

TEST(GuidedPlayouts, PescadoTakesTheBestTileThenThrowsForTheMostPromisingOne) {
  namespace p = games::pescado;
  p::PescadoGame game;
  // Pool: YYY, YYO, YBG, YOB, RBG, RGK (tiles 1, 7, 25, 19, 34, 36); Ann first; her first throw
  // shows yellow, yellow, orange, blue, black; the second throw (dice 2, 3 and 4) yellow, red,
  // red.
  std::vector<int32_t> outcomes = {1, 7, 25, 19, 34, 36};
  for (int t = 1; t <= p::kNumTiles; ++t) {
    if (std::find(outcomes.begin(), outcomes.end(), t) == outcomes.end()) outcomes.push_back(t);
  }
  outcomes.push_back(kAnn);
  for (int32_t face : {1, 1, 2, 4, 6, 1, 3, 3}) outcomes.push_back(face);
  absl::StatusOr<std::unique_ptr<engine::State>> created = game.NewGameWithOutcomes(
      2, engine::Options({{"snatching", 0}}), engine::Seed::FromUint64(7), std::move(outcomes));
  ASSERT_TRUE(created.ok()) << created.status();
  engine::State& state = **created;
  const PlayoutPolicy policy = PlayoutPolicyFor(game);
  ASSERT_NE(policy, nullptr);
  engine::Rng rng(1);
  auto play = [&]() {
    const Action a = policy(state, kAnn, state.LegalActions(kAnn), rng);
    EXPECT_TRUE(state.Apply(kAnn, a).ok()) << state.ActionToString(kAnn, a);
    return a;
  };
  ASSERT_TRUE(state.Apply(kAnn, p::EncodeThrowFirst()).ok());
  // Y Y O B K catches YYO (2 points) and YOB (1 point): the more valuable first.
  EXPECT_EQ(play(), p::EncodeTakeTile(7));
  EXPECT_EQ(play(), p::EncodeTakeTile(19));
  // Left: YYY (two yellows kept, one more in three dice: 42% of 3 points), YBG (42% of 1), RBG
  // and RGK (two colours in four dice): it keeps the two yellow dice, buying no grey die.
  EXPECT_EQ(play(), p::EncodeThrowSecond(0b00011));
  // Y Y + Y R R: the YYY is caught, then nothing else matches and the turn ends.
  EXPECT_EQ(play(), p::EncodeTakeTile(1));
  EXPECT_EQ(play(), p::EncodeEndTurn());
}

// KA'DICE! with two players: Ann's deck has `ann` on top, Ben's `ben`, the other cards follow in
// their canonical order; Ann wins the dealer war (6 against 1) and takes the first turn; `dice`
// are the later throws, die by die.
std::unique_ptr<engine::State> KadiceDeal(const games::kadice::KadiceGame& game, int ann, int ben,
                                          const std::vector<int32_t>& dice) {
  std::vector<int32_t> outcomes;
  for (int top : {ann, ben}) {
    outcomes.push_back(top);
    for (int c = 0; c < games::kadice::kNumCards; ++c) {
      if (c != top) outcomes.push_back(c);
    }
  }
  outcomes.push_back(6);
  outcomes.push_back(1);
  outcomes.insert(outcomes.end(), dice.begin(), dice.end());
  absl::StatusOr<std::unique_ptr<engine::State>> state = game.NewGameWithOutcomes(
      2, *game.ParseOptions({}, 2), engine::Seed::FromUint64(7), std::move(outcomes));
  EXPECT_TRUE(state.ok()) << state.status();
  return state.ok() ? *std::move(state) : nullptr;
}

TEST(GuidedPlayouts, KadiceHoldsTheDiceMostLikelyToMeetTheOpponentsCard) {
  namespace k = games::kadice;
  k::KadiceGame game;
  // Ann (TWO PAIRS: no dice ability) throws 5 1 2 3 6 against Ben's SINGLE PAIR 5. Keeping the 5
  // and throwing four dice shows another 5 with 1 - (5/6)^4 = 52%; keeping nothing, two 5s among
  // five dice come 20% of the time; keeping more than the 5 leaves fewer dice for the second.
  std::unique_ptr<engine::State> state =
      KadiceDeal(game, k::kTwoPairs, k::kSinglePair5, {5, 1, 2, 3, 6});
  ASSERT_NE(state, nullptr);
  const PlayoutPolicy policy = PlayoutPolicyFor(game);
  ASSERT_NE(policy, nullptr);
  engine::Rng rng(1);
  ASSERT_TRUE(state->Apply(kAnn, policy(*state, kAnn, state->LegalActions(kAnn), rng)).ok());
  EXPECT_EQ(policy(*state, kAnn, state->LegalActions(kAnn), rng), k::HoldAction(0b00001));
  // The position after the turn is judged by that chance: holding the 5 is worth 5 points per
  // unit of chance more than holding nothing, (4026 - 1526) / 7776 more (a card is 10).
  const LeafHeuristic leaf = LeafHeuristicFor(game);
  ASSERT_NE(leaf, nullptr);
  std::unique_ptr<engine::State> five = state->Clone();
  ASSERT_TRUE(five->Apply(kAnn, k::HoldAction(0b00001)).ok());
  std::unique_ptr<engine::State> none = state->Clone();
  ASSERT_TRUE(none->Apply(kAnn, k::HoldAction(0)).ok());
  EXPECT_NEAR(leaf(*five, kAnn) - leaf(*none, kAnn), 5.0 * 2500.0 / 7776.0, 1e-4);
  EXPECT_NEAR(leaf(*five, kBen), -leaf(*five, kAnn), 1e-9);
}

TEST(GuidedPlayouts, KadiceShiftsADieWhenThatMeetsTheCardThenEliminatesIt) {
  namespace k = games::kadice;
  k::KadiceGame game;
  // Ann (3 OF A KIND: shift one die up or down) throws 5 1 2 3 6 against Ben's SINGLE PAIR 5:
  // shifting the 6 down shows two 5s, and she eliminates Ben's card.
  std::unique_ptr<engine::State> state =
      KadiceDeal(game, k::kThreeOfAKind, k::kSinglePair5, {5, 1, 2, 3, 6});
  ASSERT_NE(state, nullptr);
  const PlayoutPolicy policy = PlayoutPolicyFor(game);
  engine::Rng rng(1);
  ASSERT_TRUE(state->Apply(kAnn, k::RollAction(0)).ok());
  const Action shift = policy(*state, kAnn, state->LegalActions(kAnn), rng);
  EXPECT_EQ(shift, k::ShiftDieAction(4, k::kDown));
  ASSERT_TRUE(state->Apply(kAnn, shift).ok());
  EXPECT_EQ(policy(*state, kAnn, state->LegalActions(kAnn), rng), k::EliminateAction(0b10));
}

}  // namespace
}  // namespace parlor::bots
