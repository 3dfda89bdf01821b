// Pico's rule cases (RULES.md, "Rule cases"), named like the rulebook, plus views, options,
// serialization, resampling and the conformance suite.

#include "engine/games/pico/pico.h"

#include <algorithm>
#include <set>
#include <vector>

#include "engine/conformance/conformance.h"
#include "engine/core/registry.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "parlor/games/v1/pico.pb.h"
#include "pico/pico_state.pb.h"

namespace parlor::games::pico {
namespace {

using engine::Action;
using engine::Viewer;
using testing::ElementsAre;
using testing::HasSubstr;
using testing::IsEmpty;

constexpr int kAnn = 0;
constexpr int kBen = 1;

// Deal D: Ann 2 5 8 10 12 16, Ben 3 4 6 9 11 13, the 7 face up (the recorded shuffle order).
const std::vector<int32_t> kDealD = {2, 5, 8, 10, 12, 16, 3, 4, 6, 9, 11, 13, 7};

class PicoTest : public testing::Test {
 protected:
  std::unique_ptr<PicoState> NewGame(std::vector<int32_t> outcomes, int rounds = 2) {
    absl::StatusOr<std::unique_ptr<engine::State>> state = game_.NewGameWithOutcomes(
        2, engine::Options({{"rounds", rounds}}), engine::Seed::FromUint64(7), std::move(outcomes));
    EXPECT_TRUE(state.ok()) << state.status();
    if (!state.ok()) return nullptr;
    return std::unique_ptr<PicoState>(static_cast<PicoState*>(state->release()));
  }
  std::unique_ptr<PicoState> DealD(int rounds = 2) { return NewGame(kDealD, rounds); }

  // A deal in which Ann holds `ann_card` and Ben holds `ben_card` (the rest filled in order).
  std::unique_ptr<PicoState> DealWith(int ann_card, int ben_card) {
    std::vector<int32_t> rest;
    for (int v : kCardValues) {
      if (v != ann_card && v != ben_card) rest.push_back(v);
    }
    std::vector<int32_t> order = {ann_card};
    order.insert(order.end(), rest.begin(), rest.begin() + 5);
    order.push_back(ben_card);
    order.insert(order.end(), rest.begin() + 5, rest.end());
    return NewGame(order);
  }

  // One trick: Ann chooses first, then Ben.
  static void PlayTrick(engine::State& state, int ann_card, int ben_card) {
    ASSERT_TRUE(state.Apply(kAnn, ann_card).ok()) << "Ann plays " << ann_card;
    ASSERT_TRUE(state.Apply(kBen, ben_card).ok()) << "Ben plays " << ben_card;
  }

  static v1::PicoView ViewOf(const engine::State& state, const Viewer& viewer) {
    return static_cast<const v1::PicoView&>(*state.View(viewer));
  }
  static std::vector<int> Hand(const v1::PicoView& view, int seat) {
    return {view.players(seat).hand().begin(), view.players(seat).hand().end()};
  }

  // Plays cases 9, 10, 15 (Ann 10 / Ben 6), 17: the end of round 1 of deal D.
  std::unique_ptr<PicoState> DealDAfterRoundOne() {
    std::unique_ptr<PicoState> s = DealD();
    PlayTrick(*s, 12, 9);
    PlayTrick(*s, 5, 13);
    PlayTrick(*s, 10, 6);
    PlayTrick(*s, 2, 4);
    PlayTrick(*s, 16, 11);
    PlayTrick(*s, 8, 3);
    PlayTrick(*s, 8, 9);
    PlayTrick(*s, 2, 6);
    return s;
  }

  PicoGame game_;
};

TEST_F(PicoTest, Case1ANineBeatsASevenBecauseNineIsAtMostTwiceSeven) {
  std::unique_ptr<PicoState> s = DealWith(9, 7);
  PlayTrick(*s, 9, 7);
  EXPECT_EQ(s->won(kAnn), 1u << CardIndex(9));
  EXPECT_EQ(s->total(kAnn), 3);
  EXPECT_EQ(s->total(kBen), 0);
}

TEST_F(PicoTest, Case2AnEightBeatsAFourBecauseExactlyTwiceIsNotMoreThanTwice) {
  std::unique_ptr<PicoState> s = DealWith(8, 4);
  PlayTrick(*s, 8, 4);
  EXPECT_EQ(s->total(kAnn), 3);
  EXPECT_EQ(s->total(kBen), 0);
  EXPECT_TRUE(Beats(8, 4));
}

TEST_F(PicoTest, Case3AThreeBeatsAnEightBecauseEightIsMoreThanTwiceThree) {
  std::unique_ptr<PicoState> s = DealWith(3, 8);
  PlayTrick(*s, 3, 8);
  EXPECT_EQ(s->total(kAnn), 1);
  EXPECT_EQ(s->total(kBen), 0);
}

TEST_F(PicoTest, Case4AFourBeatsANineBecauseNineIsMoreThanTwiceFour) {
  std::unique_ptr<PicoState> s = DealWith(9, 4);
  PlayTrick(*s, 9, 4);
  EXPECT_EQ(s->total(kBen), 1);
  EXPECT_EQ(s->total(kAnn), 0);
}

TEST_F(PicoTest, Case5AnEightBeatsAFiveBecauseEightIsAtMostTwiceFive) {
  std::unique_ptr<PicoState> s = DealWith(5, 8);
  PlayTrick(*s, 5, 8);
  EXPECT_EQ(s->total(kBen), 3);
  EXPECT_EQ(s->total(kAnn), 0);
}

TEST_F(PicoTest, Case6ASixteenBeatsAnEightButASevenBeatsASixteen) {
  std::unique_ptr<PicoState> s = DealWith(16, 8);
  PlayTrick(*s, 16, 8);
  EXPECT_EQ(s->total(kAnn), 4);
  std::unique_ptr<PicoState> t = DealWith(16, 7);
  PlayTrick(*t, 16, 7);
  EXPECT_EQ(t->total(kBen), 2) << "16 > 2x7 = 14, so the 7 wins and scores its 2 dots";
  EXPECT_EQ(t->total(kAnn), 0);
}

TEST_F(PicoTest, Case7AThreeBeatsATwoButATwoBeatsAFive) {
  std::unique_ptr<PicoState> s = DealWith(2, 3);
  PlayTrick(*s, 2, 3);
  EXPECT_EQ(s->total(kBen), 1);
  EXPECT_EQ(s->total(kAnn), 0);
  std::unique_ptr<PicoState> t = DealWith(2, 5);
  PlayTrick(*t, 2, 5);
  EXPECT_EQ(t->total(kAnn), 1) << "5 > 2x2 = 4, so the 2 wins";
  EXPECT_EQ(t->total(kBen), 0);
}

TEST_F(PicoTest, EveryPairOfCardsFollowsTheBeatsTable) {
  // The rulebook's table: each card beats exactly the cards listed.
  const std::vector<std::pair<int, std::vector<int>>> table = {
      {2, {5, 6, 7, 8, 9, 10, 11, 12, 13, 16}},
      {3, {2, 7, 8, 9, 10, 11, 12, 13, 16}},
      {4, {2, 3, 9, 10, 11, 12, 13, 16}},
      {5, {3, 4, 11, 12, 13, 16}},
      {6, {3, 4, 5, 13, 16}},
      {7, {4, 5, 6, 16}},
      {8, {4, 5, 6, 7}},
      {9, {5, 6, 7, 8}},
      {10, {5, 6, 7, 8, 9}},
      {11, {6, 7, 8, 9, 10}},
      {12, {6, 7, 8, 9, 10, 11}},
      {13, {7, 8, 9, 10, 11, 12}},
      {16, {8, 9, 10, 11, 12, 13}}};
  for (const auto& [card, beaten] : table) {
    for (int other : kCardValues) {
      if (other == card) continue;
      const bool listed = std::find(beaten.begin(), beaten.end(), other) != beaten.end();
      EXPECT_EQ(Beats(card, other), listed) << card << " against " << other;
    }
  }
}

TEST_F(PicoTest, Case8SetupShowsBothHandsTheFaceUpCardAndBothMayAct) {
  std::unique_ptr<PicoState> s = DealD();
  const v1::PicoView view = ViewOf(*s, Viewer::Seat(kAnn));
  EXPECT_THAT(Hand(view, kAnn), ElementsAre(2, 5, 8, 10, 12, 16));
  EXPECT_THAT(Hand(view, kBen), ElementsAre(3, 4, 6, 9, 11, 13));
  EXPECT_EQ(view.face_up_card(), 7);
  EXPECT_EQ(view.players(kAnn).total(), 0);
  EXPECT_EQ(view.players(kBen).total(), 0);
  EXPECT_EQ(view.round(), 1);
  EXPECT_EQ(view.trick(), 1);
  EXPECT_THAT(view.acting_seats(), ElementsAre(0, 1));
  EXPECT_THAT(s->LegalActions(kAnn), ElementsAre(2, 5, 8, 10, 12, 16));
  EXPECT_THAT(s->LegalActions(kBen), ElementsAre(3, 4, 6, 9, 11, 13));
}

TEST_F(PicoTest, Case9TheHigherCardWinsAndTheLoserReturnsToTheHand) {
  std::unique_ptr<PicoState> s = DealD();
  PlayTrick(*s, 12, 9);
  const v1::PicoView view = ViewOf(*s, Viewer::Spectator());
  EXPECT_THAT(view.players(kAnn).won(), ElementsAre(12));
  EXPECT_EQ(view.players(kAnn).total(), 3);
  EXPECT_EQ(view.players(kBen).total(), 0);
  EXPECT_THAT(Hand(view, kAnn), ElementsAre(2, 5, 8, 10, 16));
  EXPECT_THAT(Hand(view, kBen), ElementsAre(3, 4, 6, 9, 11, 13));
  ASSERT_EQ(view.tricks_size(), 1);
  EXPECT_THAT(view.tricks(0).cards(), ElementsAre(12, 9));
  EXPECT_EQ(view.tricks(0).winning_card(), 12);
  EXPECT_EQ(view.tricks(0).winner_seat(), kAnn);
  EXPECT_EQ(view.tricks(0).points(), 3);
  EXPECT_EQ(view.trick(), 2);
}

TEST_F(PicoTest, Case10TheLowerCardWinsAndScoresItsOwnDots) {
  std::unique_ptr<PicoState> s = DealD();
  PlayTrick(*s, 12, 9);
  PlayTrick(*s, 5, 13);
  EXPECT_EQ(s->total(kAnn), 5) << "the 5 scores 2 (its own points), not the 13's 3";
  EXPECT_EQ(s->total(kBen), 0);
  EXPECT_THAT(s->LegalActions(kBen), ElementsAre(3, 4, 6, 9, 11, 13));
}

TEST_F(PicoTest, Case11TheFaceUpCardCannotBePlayed) {
  std::unique_ptr<PicoState> s = DealD();
  const std::string before = s->SerializeToString();
  const absl::Status status = s->Apply(kAnn, 7);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(status.message(), "card 7 is not in your hand: it is the face-up card");
  EXPECT_EQ(s->SerializeToString(), before);
  EXPECT_TRUE(s->ActingSeats().Contains(kAnn));
}

TEST_F(PicoTest, Case12OnlyYourOwnCardsOnlyRealCards) {
  std::unique_ptr<PicoState> s = DealD();
  absl::Status status = s->Apply(kAnn, 13);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(status.message(), "card 13 is not in your hand: it is in your opponent's hand");
  status = s->Apply(kAnn, 14);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "there is no Pico card 14; cards are 2 to 13 and 16");
  PlayTrick(*s, 12, 9);
  const std::string before = s->SerializeToString();
  status = s->Apply(kAnn, 12);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(status.message(), "card 12 is not in your hand: you won it this round");
  status = s->Apply(kBen, 12);
  EXPECT_EQ(status.message(), "card 12 is not in your hand: your opponent won it this round");
  EXPECT_EQ(s->SerializeToString(), before);
}

TEST_F(PicoTest, Case13AChoiceCannotBeChanged) {
  std::unique_ptr<PicoState> s = DealD();
  PlayTrick(*s, 12, 9);
  PlayTrick(*s, 5, 13);
  ASSERT_TRUE(s->Apply(kAnn, 10).ok());
  const std::string before = s->SerializeToString();
  const absl::Status status = s->Apply(kAnn, 2);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(status.message(), "you already chose a card for this trick; wait for your opponent");
  EXPECT_EQ(s->pending_card(kAnn), 10);
  EXPECT_EQ(s->SerializeToString(), before);
  // A card that does not exist gets the same answer: whether the seat may act comes before the
  // shape of what it sent (engine/GAMES.md, "Refusals").
  EXPECT_EQ(s->Apply(kAnn, 14).message(),
            "you already chose a card for this trick; wait for your opponent");
  EXPECT_EQ(s->Apply(kBen, 14).code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(PicoTest, Case14ThePendingCardIsSecret) {
  std::unique_ptr<PicoState> s = DealD();
  PlayTrick(*s, 12, 9);
  PlayTrick(*s, 5, 13);
  ASSERT_TRUE(s->Apply(kAnn, 10).ok());
  const v1::PicoView ben = ViewOf(*s, Viewer::Seat(kBen));
  EXPECT_TRUE(ben.players(kAnn).has_chosen());
  EXPECT_EQ(ben.players(kAnn).pending_card(), 0);
  EXPECT_THAT(Hand(ben, kAnn), ElementsAre(2, 8, 10, 16));
  const v1::PicoView ann = ViewOf(*s, Viewer::Seat(kAnn));
  EXPECT_EQ(ann.players(kAnn).pending_card(), 10);
  EXPECT_THAT(Hand(ann, kAnn), ElementsAre(2, 8, 10, 16));
  EXPECT_THAT(s->LegalActions(kAnn), IsEmpty());
  EXPECT_THAT(s->LegalActions(kBen), ElementsAre(3, 4, 6, 9, 11, 13));
  const v1::PicoView spectator = ViewOf(*s, Viewer::Spectator());
  EXPECT_EQ(spectator.players(kAnn).pending_card(), 0);
  EXPECT_TRUE(spectator.players(kAnn).has_chosen());
  for (int seat : {kAnn, kBen}) {
    EXPECT_EQ(spectator.players(seat).SerializeAsString(), ben.players(seat).SerializeAsString())
        << "a spectator sees what Ben sees";
  }
  EXPECT_EQ(ViewOf(*s, Viewer::All()).players(kAnn).pending_card(), 10);
}

TEST_F(PicoTest, Case14BensViewIsTheSameWhicheverCardAnnChose) {
  std::unique_ptr<PicoState> chose_10 = DealD();
  std::unique_ptr<PicoState> chose_2 = DealD();
  ASSERT_TRUE(chose_10->Apply(kAnn, 10).ok());
  ASSERT_TRUE(chose_2->Apply(kAnn, 2).ok());
  for (const Viewer& viewer : {Viewer::Seat(kBen), Viewer::Spectator()}) {
    EXPECT_EQ(ViewOf(*chose_10, viewer).SerializeAsString(),
              ViewOf(*chose_2, viewer).SerializeAsString());
  }
  EXPECT_EQ(chose_10->LegalActions(kBen), chose_2->LegalActions(kBen));
  EXPECT_NE(ViewOf(*chose_10, Viewer::Seat(kAnn)).SerializeAsString(),
            ViewOf(*chose_2, Viewer::Seat(kAnn)).SerializeAsString());
}

TEST_F(PicoTest, Case15OrderOfChoosingDoesNotMatter) {
  std::unique_ptr<PicoState> ann_first = DealD();
  std::unique_ptr<PicoState> ben_first = DealD();
  for (PicoState* s : {ann_first.get(), ben_first.get()}) {
    PlayTrick(*s, 12, 9);
    PlayTrick(*s, 5, 13);
  }
  ASSERT_TRUE(ann_first->Apply(kAnn, 10).ok());
  ASSERT_TRUE(ann_first->Apply(kBen, 6).ok());
  ASSERT_TRUE(ben_first->Apply(kBen, 6).ok());
  ASSERT_TRUE(ben_first->Apply(kAnn, 10).ok());
  EXPECT_EQ(ann_first->total(kAnn), 8);
  EXPECT_EQ(ann_first->total(kBen), 0);
  EXPECT_EQ(ViewOf(*ann_first, Viewer::All()).SerializeAsString(),
            ViewOf(*ben_first, Viewer::All()).SerializeAsString());
}

TEST_F(PicoTest, Case16ALosingCardCanBePlayedAgainAtOnce) {
  std::unique_ptr<PicoState> s = DealD();
  PlayTrick(*s, 12, 9);
  PlayTrick(*s, 5, 13);
  PlayTrick(*s, 10, 6);
  EXPECT_THAT(s->LegalActions(kBen), testing::Contains(6));
  EXPECT_TRUE(s->Apply(kBen, 6).ok());
}

TEST_F(PicoTest, Case17ARoundEndsTheMomentAPlayerHasOneCard) {
  std::unique_ptr<PicoState> s = DealD();
  PlayTrick(*s, 12, 9);
  PlayTrick(*s, 5, 13);
  PlayTrick(*s, 10, 6);
  PlayTrick(*s, 2, 4);
  EXPECT_EQ(s->total(kBen), 1);
  PlayTrick(*s, 16, 11);
  EXPECT_EQ(s->total(kAnn), 12);
  PlayTrick(*s, 8, 3);
  EXPECT_EQ(s->total(kBen), 2);
  PlayTrick(*s, 8, 9);
  EXPECT_EQ(s->total(kBen), 5);
  const v1::PicoView before = ViewOf(*s, Viewer::Spectator());
  EXPECT_THAT(Hand(before, kAnn), ElementsAre(2, 8));
  EXPECT_THAT(Hand(before, kBen), ElementsAre(6, 11, 13));
  PlayTrick(*s, 2, 6);
  EXPECT_EQ(s->round(), 2) << "round 1 ended at once after 8 tricks";
  EXPECT_EQ(s->round_score(kAnn, 1), 13);
  EXPECT_EQ(s->round_score(kBen, 1), 5);
  const v1::PicoView after = ViewOf(*s, Viewer::Spectator());
  EXPECT_EQ(std::count_if(after.tricks().begin(), after.tricks().end(),
                          [](const v1::PicoTrick& t) { return t.round() == 1; }),
            8)
      << "nobody plays a ninth trick";
  EXPECT_EQ(after.tricks(7).winning_card(), 2);
  EXPECT_EQ(after.tricks(7).trick(), 8);
}

TEST_F(PicoTest, Case18CardsLeftInHandScoreNothing) {
  std::unique_ptr<PicoState> s = DealDAfterRoundOne();
  // Ann's 8 (3 points) and Ben's 6, 11 and 13 (8 points) are not counted.
  EXPECT_EQ(s->total(kAnn), 13);
  EXPECT_EQ(s->total(kBen), 5);
  const v1::PicoView view = ViewOf(*s, Viewer::Spectator());
  EXPECT_THAT(view.players(kAnn).round_scores(), ElementsAre(13, 0));
  EXPECT_THAT(view.players(kBen).round_scores(), ElementsAre(5, 0));
}

TEST_F(PicoTest, Case19TheReturnRoundSwapsTheDealtHands) {
  std::unique_ptr<PicoState> s = DealDAfterRoundOne();
  const v1::PicoView view = ViewOf(*s, Viewer::Seat(kAnn));
  EXPECT_EQ(view.round(), 2);
  EXPECT_EQ(view.trick(), 1);
  EXPECT_THAT(Hand(view, kAnn), ElementsAre(3, 4, 6, 9, 11, 13));
  EXPECT_THAT(Hand(view, kBen), ElementsAre(2, 5, 8, 10, 12, 16));
  EXPECT_THAT(view.players(kAnn).won(), IsEmpty());
  EXPECT_EQ(view.face_up_card(), 7);
  EXPECT_EQ(s->round_score(kAnn, 2), 0);
  EXPECT_EQ(s->round_score(kBen, 2), 0);
  EXPECT_EQ(view.players(kAnn).total(), 13);
  EXPECT_EQ(view.players(kBen).total(), 5);
  EXPECT_THAT(view.acting_seats(), ElementsAre(0, 1));
  // No chance in a return round: the log entry that ended round 1 drew nothing.
  const engine::v1::GameRecord record = s->Serialize();
  EXPECT_EQ(record.log(record.log_size() - 1).outcomes_size(), 0);
}

TEST_F(PicoTest, Case20EqualTotalsAreADraw) {
  std::unique_ptr<PicoState> s = DealDAfterRoundOne();
  PlayTrick(*s, 13, 16);
  EXPECT_EQ(s->round_score(kBen, 2), 4);
  PlayTrick(*s, 3, 8);
  EXPECT_EQ(s->round_score(kAnn, 2), 1);
  PlayTrick(*s, 4, 12);
  EXPECT_EQ(s->round_score(kAnn, 2), 2);
  PlayTrick(*s, 6, 10);
  EXPECT_EQ(s->round_score(kBen, 2), 7);
  PlayTrick(*s, 11, 12);
  EXPECT_EQ(s->round_score(kBen, 2), 10);
  PlayTrick(*s, 13, 5);
  EXPECT_EQ(s->round_score(kBen, 2), 12);
  PlayTrick(*s, 9, 8);
  EXPECT_EQ(s->round_score(kAnn, 2), 5);
  EXPECT_FALSE(s->IsTerminal());
  PlayTrick(*s, 6, 2);
  EXPECT_EQ(s->round_score(kBen, 2), 13);
  ASSERT_TRUE(s->IsTerminal());
  EXPECT_EQ(s->round(), 2);
  const engine::Outcome outcome = s->GetOutcome();
  EXPECT_THAT(outcome.scores, ElementsAre(18, 18));
  EXPECT_THAT(outcome.ranks, ElementsAre(1, 1));
  EXPECT_EQ(outcome.reason, "both rounds played");
  const v1::PicoView view = ViewOf(*s, Viewer::Spectator());
  EXPECT_TRUE(view.game_over());
  EXPECT_THAT(view.ranks(), ElementsAre(1, 1));
  EXPECT_THAT(Hand(view, kBen), ElementsAre(8));
}

TEST_F(PicoTest, Case21AShutoutRound) {
  std::unique_ptr<PicoState> s = DealD();
  PlayTrick(*s, 16, 9);
  PlayTrick(*s, 12, 11);
  PlayTrick(*s, 10, 9);
  PlayTrick(*s, 8, 6);
  EXPECT_EQ(s->round(), 1);
  PlayTrick(*s, 5, 4);
  EXPECT_EQ(s->round(), 2) << "the round ends after trick 5";
  EXPECT_EQ(s->round_score(kBen, 1), 0);
  EXPECT_EQ(s->round_score(kAnn, 1), 4 + 3 + 3 + 3 + 2);
  const v1::PicoView view = ViewOf(*s, Viewer::Spectator());
  EXPECT_EQ(view.tricks_size(), 5);
}

TEST_F(PicoTest, Case22NothingHappensAfterTheEnd) {
  std::unique_ptr<PicoState> s = DealD();
  // Two shutout rounds end the game quickly.
  for (auto [a, b] : std::vector<std::pair<int, int>>{{16, 9}, {12, 11}, {10, 9}, {8, 6}, {5, 4}}) {
    PlayTrick(*s, a, b);
  }
  for (auto [a, b] : std::vector<std::pair<int, int>>{{13, 12}, {11, 10}, {9, 8}, {6, 5}, {4, 2}}) {
    PlayTrick(*s, a, b);
  }
  ASSERT_TRUE(s->IsTerminal());
  EXPECT_THAT(s->LegalActions(kAnn), IsEmpty());
  EXPECT_THAT(s->LegalActions(kBen), IsEmpty());
  EXPECT_TRUE(s->ActingSeats().empty());
  const std::string before = s->SerializeToString();
  for (int seat : {kAnn, kBen}) {
    const absl::Status status = s->Apply(seat, 2);
    EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_EQ(status.message(), "the game is over");
  }
  EXPECT_EQ(s->SerializeToString(), before);
  EXPECT_THAT(s->GetOutcome().ranks, ElementsAre(1, 2));
  EXPECT_THAT(s->GetOutcome().scores, ElementsAre(15 + 12, 0));
}

TEST_F(PicoTest, Case23FourRoundsDealAFreshShuffleForRoundThree) {
  // Round 3 is dealt from the next recorded shuffle: Ann 3 4 5 6 7 8, Ben 9..13 16, 2 face up.
  std::vector<int32_t> outcomes = kDealD;
  for (int v : {3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16, 2}) outcomes.push_back(v);
  std::unique_ptr<PicoState> s = NewGame(outcomes, /*rounds=*/4);
  for (auto [a, b] : std::vector<std::pair<int, int>>{{16, 9}, {12, 11}, {10, 9}, {8, 6}, {5, 4}}) {
    PlayTrick(*s, a, b);
  }
  EXPECT_EQ(s->round(), 2);
  for (auto [a, b] : std::vector<std::pair<int, int>>{{13, 12}, {11, 10}, {9, 8}, {6, 5}, {4, 2}}) {
    PlayTrick(*s, a, b);
  }
  ASSERT_FALSE(s->IsTerminal()) << "with rounds = 4, round 2 does not end the game";
  EXPECT_EQ(s->round(), 3);
  v1::PicoView view = ViewOf(*s, Viewer::Spectator());
  EXPECT_EQ(view.face_up_card(), 2);
  EXPECT_THAT(Hand(view, kAnn), ElementsAre(3, 4, 5, 6, 7, 8));
  EXPECT_THAT(Hand(view, kBen), ElementsAre(9, 10, 11, 12, 13, 16));
  const engine::v1::GameRecord record = s->Serialize();
  EXPECT_EQ(record.log(record.log_size() - 1).outcomes_size(), 13)
      << "the round-3 shuffle is recorded with the move that ended round 2";
  // Round 3: Ben wins five in a row, each time with the higher card (at most twice Ann's).
  for (auto [a, b] : std::vector<std::pair<int, int>>{{8, 9}, {7, 10}, {6, 11}, {7, 12}, {8, 13}}) {
    PlayTrick(*s, a, b);
  }
  EXPECT_EQ(s->round(), 4);
  view = ViewOf(*s, Viewer::Spectator());
  EXPECT_THAT(Hand(view, kAnn), ElementsAre(9, 10, 11, 12, 13, 16));
  EXPECT_THAT(Hand(view, kBen), ElementsAre(3, 4, 5, 6, 7, 8));
  EXPECT_EQ(view.face_up_card(), 2);
  for (auto [a, b] :
       std::vector<std::pair<int, int>>{{16, 8}, {13, 7}, {12, 6}, {11, 6}, {10, 6}}) {
    PlayTrick(*s, a, b);
  }
  ASSERT_TRUE(s->IsTerminal());
  // Round scores: Ann 15, 12, 0, 16; Ben 0, 0, 15, 0.
  EXPECT_EQ(s->round_score(kAnn, 2), 12);
  EXPECT_EQ(s->round_score(kBen, 3), 15);
  EXPECT_EQ(s->total(kAnn), 15 + 12 + 0 + 16);
  EXPECT_EQ(s->total(kBen), 0 + 0 + 15 + 0);
  EXPECT_EQ(s->GetOutcome().reason, "all 4 rounds played");
}

TEST_F(PicoTest, Case23RoundThreeIsDrawnFromTheSeededStreamWhenItBegins) {
  absl::StatusOr<std::unique_ptr<engine::State>> s = game_.NewGameWithOutcomes(
      2, engine::Options({{"rounds", 4}}), engine::Seed::FromUint64(99), kDealD);
  ASSERT_TRUE(s.ok());
  engine::State& state = **s;
  for (auto [a, b] : std::vector<std::pair<int, int>>{{16, 9},
                                                      {12, 11},
                                                      {10, 9},
                                                      {8, 6},
                                                      {5, 4},
                                                      {13, 12},
                                                      {11, 10},
                                                      {9, 8},
                                                      {6, 5},
                                                      {4, 2}}) {
    PlayTrick(state, a, b);
  }
  const engine::v1::GameRecord record = state.Serialize();
  const auto& shuffle = record.log(record.log_size() - 1).outcomes();
  ASSERT_EQ(shuffle.size(), 13);
  const auto* pico = static_cast<const PicoState*>(&state);
  EXPECT_EQ(pico->face_up_card(), shuffle[12]);
  // The first deal was given, not drawn; replaying with the seed check must flag the setup.
  EXPECT_FALSE(game_.Replay(record, /*check_seed=*/true).ok());
  EXPECT_TRUE(game_.Replay(record, /*check_seed=*/false).ok());
}

TEST_F(PicoTest, Case24OddRoundCountsAreRefused) {
  absl::StatusOr<engine::Options> parsed = game_.ParseOptions({{"rounds", "3"}}, 2);
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(parsed.status().message(), "rounds must be 2, 4 or 6");
  absl::StatusOr<std::unique_ptr<engine::State>> s =
      game_.NewGame(2, engine::Options({{"rounds", 3}}), engine::Seed::FromUint64(1));
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.status().message(), "rounds must be 2, 4 or 6");
  EXPECT_TRUE(game_.ParseOptions({{"rounds", "6"}}, 2).ok());
  for (const char* bad : {"8", "0", "-2", "1", "5", "two"}) {
    absl::Status refused = game_.ParseOptions({{"rounds", bad}}, 2).status();
    EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_EQ(refused.message(), "rounds must be 2, 4 or 6") << bad;
  }
  EXPECT_EQ(game_.ParseOptions({}, 3).status().code(), absl::StatusCode::kInvalidArgument)
      << "Pico is for exactly 2 players";
  EXPECT_EQ(game_.ParseOptions({}, 2)->Get("rounds"), 2) << "the default is 2 rounds";
}

TEST_F(PicoTest, ActionProtoRejectsCardsThatDoNotExist) {
  for (int card : {0, 1, 14, 15, 17, -2}) {
    v1::PicoAction action;
    action.set_card(card);
    const absl::StatusOr<Action> code = game_.ActionFromProto(action);
    EXPECT_EQ(code.status().code(), absl::StatusCode::kInvalidArgument) << card;
    EXPECT_THAT(code.status().message(), HasSubstr("card")) << card;
  }
  v1::PicoAction sixteen;
  sixteen.set_card(16);
  EXPECT_EQ(*game_.ActionFromProto(sixteen), 16);
  EXPECT_EQ(static_cast<v1::PicoAction&>(*game_.ActionToProto(16)).card(), 16);
  EXPECT_EQ(DealD()->ActionToString(kAnn, 16), "play 16");
}

TEST_F(PicoTest, ResampleHiddenRedrawsTheOpponentsPendingCardAmongItsHand) {
  std::unique_ptr<PicoState> s = DealD();
  ASSERT_TRUE(s->Apply(kAnn, 10).ok());
  std::set<int> seen;
  engine::Rng rng(5);
  for (int i = 0; i < 200; ++i) {
    std::unique_ptr<engine::State> copy = s->ResampleHidden(kBen, rng);
    const int pending = static_cast<const PicoState&>(*copy).pending_card(kAnn);
    EXPECT_THAT(s->LegalActions(kAnn), IsEmpty());
    seen.insert(pending);
  }
  EXPECT_EQ(seen, (std::set<int>{2, 5, 8, 10, 12, 16}));
  // Ann's own view of her own choice never changes.
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(static_cast<const PicoState&>(*s->ResampleHidden(kAnn, rng)).pending_card(kAnn), 10);
  }
}

TEST_F(PicoTest, HeuristicIsTheScoreDifference) {
  std::unique_ptr<PicoState> s = DealD();
  PlayTrick(*s, 12, 9);
  EXPECT_EQ(s->Heuristic(kAnn), 3.0);
  EXPECT_EQ(s->Heuristic(kBen), -3.0);
}

TEST_F(PicoTest, SerializationRoundTripsAndRejectsDamagedSnapshots) {
  std::unique_ptr<PicoState> s = DealD();
  PlayTrick(*s, 12, 9);
  ASSERT_TRUE(s->Apply(kBen, 4).ok());
  engine::v1::GameRecord record = s->Serialize();
  absl::StatusOr<std::unique_ptr<engine::State>> loaded = game_.Deserialize(record);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ((*loaded)->SerializeToString(), s->SerializeToString());

  engine::pico::PicoState snapshot;
  ASSERT_TRUE(record.state().UnpackTo(&snapshot));
  auto rejects = [&](auto damage) {
    engine::pico::PicoState bad = snapshot;
    damage(bad);
    engine::v1::GameRecord damaged = record;
    damaged.mutable_state()->PackFrom(bad);
    return game_.Deserialize(damaged).status().code() == absl::StatusCode::kInvalidArgument;
  };
  EXPECT_TRUE(rejects([](auto& p) { p.set_round(0); }));
  EXPECT_TRUE(rejects([](auto& p) { p.set_round(3); }));
  EXPECT_TRUE(rejects([](auto& p) { p.set_face_up_card(14); }));
  EXPECT_TRUE(rejects([](auto& p) { p.set_face_up_card(2); }));
  EXPECT_TRUE(rejects([](auto& p) { p.mutable_players(0)->add_hand(12); }));
  EXPECT_TRUE(rejects([](auto& p) { p.mutable_players(0)->clear_won(); }));
  EXPECT_TRUE(rejects([](auto& p) { p.mutable_players(0)->set_pending_card(3); }));
  EXPECT_TRUE(rejects([](auto& p) { p.mutable_players(0)->set_pending_card(2); }))
      << "both players pending";
  EXPECT_TRUE(rejects([](auto& p) { p.mutable_players(0)->set_round_scores(0, 4); }));
  EXPECT_TRUE(rejects([](auto& p) { p.mutable_tricks(0)->set_cards(1, 12); }));
  EXPECT_TRUE(rejects([](auto& p) { p.clear_tricks(); }));
  EXPECT_TRUE(rejects([](auto& p) { p.mutable_players()->RemoveLast(); }));
  engine::v1::GameRecord wrong_type = record;
  wrong_type.mutable_state()->PackFrom(engine::v1::GameRecord());
  EXPECT_FALSE(game_.Deserialize(wrong_type).ok());
}

TEST_F(PicoTest, AForfeitEndsTheGameWithTheForfeiterLast) {
  std::unique_ptr<PicoState> s = DealD();
  PlayTrick(*s, 12, 9);
  ASSERT_TRUE(s->Forfeit(kBen).ok());
  ASSERT_TRUE(s->IsTerminal());
  const engine::Outcome outcome = s->GetOutcome();
  EXPECT_THAT(outcome.ranks, ElementsAre(1, 2));
  EXPECT_EQ(outcome.reason, "seat 1 forfeited");
  const v1::PicoView view = ViewOf(*s, Viewer::Spectator());
  EXPECT_TRUE(view.game_over());
  EXPECT_TRUE(view.players(kBen).forfeited());
  // Forfeiting while ahead still loses.
  std::unique_ptr<PicoState> t = DealD();
  PlayTrick(*t, 12, 9);
  ASSERT_TRUE(t->Forfeit(kAnn).ok());
  EXPECT_THAT(t->GetOutcome().ranks, ElementsAre(2, 1));
}

TEST_F(PicoTest, AGameOfSixRoundsEndsAfterSixRounds) {
  absl::StatusOr<std::unique_ptr<engine::State>> s =
      game_.NewGame(2, engine::Options({{"rounds", 6}}), engine::Seed::FromUint64(3));
  ASSERT_TRUE(s.ok());
  engine::Rng rng(3);
  int moves = 0;
  while (!(*s)->IsTerminal()) {
    const std::vector<int> acting = (*s)->ActingSeats().ToVector();
    const int seat = acting[rng.Uniform(acting.size())];
    const std::vector<Action> legal = (*s)->LegalActions(seat);
    ASSERT_TRUE((*s)->Apply(seat, legal[rng.Uniform(legal.size())]).ok());
    ++moves;
  }
  EXPECT_EQ(static_cast<const PicoState&>(**s).round(), 6);
  EXPECT_LE(moves, game_.MaxMoves(2, (*s)->options()));
  EXPECT_EQ((*s)->GetOutcome().reason, "all 6 rounds played");
  EXPECT_TRUE(game_.Replay((*s)->Serialize(), /*check_seed=*/true).ok());
}

TEST_F(PicoTest, RegistersAsPico) {
  engine::Registry registry;
  Register(registry);
  absl::StatusOr<const engine::Game*> found = registry.Find("pico");
  ASSERT_TRUE(found.ok());
  EXPECT_EQ((*found)->info().display_name, "Pico");
}

TEST(PicoConformance, Passes) {
  PicoGame game;
  const conformance::ConformanceFigures figures =
      conformance::RunConformance(game, {.playouts = 500});
  EXPECT_EQ(figures.failures, 0);
}

}  // namespace
}  // namespace parlor::games::pico
