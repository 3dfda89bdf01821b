// The hard bot's guided playouts and its model of a hidden choice already made, on positions
// from the games' rule cases (a playout move is what a sensible player would do, seen from what
// every player sees).

#include <memory>
#include <string>
#include <vector>

#include "engine/bots/bot.h"
#include "engine/core/rng.h"
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

}  // namespace
}  // namespace parlor::bots
