// KA'DICE! rule cases (RULES.md section 11), named like the rulebook, plus the
// refusals, options, views, protos and snapshots.
//
// Unless a test says otherwise: four players, Ann, Ben, Cat and Dan in seats 0-3. Dice are the
// values of dice 0-4. Chance is forced with Game::NewGameWithOutcomes: first each player's deck
// order (top card first), then the dealer war, then every die in the order the engine rolls it.
#include "engine/games/kadice/kadice.h"

#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kadice/kadice_state.pb.h"
#include "parlor/games/v1/kadice.pb.h"

namespace parlor::games::kadice {
namespace {

using engine::Action;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;
using StateProto = ::parlor::engine::kadice::KadiceState;

constexpr int kAnn = 0, kBen = 1, kCat = 2, kDan = 3;
const std::vector<int32_t> kFiller = {6, 5, 3, 2, 1};  // a roll that changes nothing

const KadiceGame& Game() {
  static const KadiceGame* game = new KadiceGame();
  return *game;
}

engine::Options DefaultOptions() { return *Game().ParseOptions({}, 4); }

uint32_t Mask(std::initializer_list<int> items) {
  uint32_t mask = 0;
  for (int i : items) mask |= 1u << i;
  return mask;
}
Action Roll(std::initializer_list<int> release = {}) { return RollAction(Mask(release)); }
Action Hold(std::initializer_list<int> dice = {}) { return HoldAction(Mask(dice)); }
Action Eliminate(std::initializer_list<int> targets) { return EliminateAction(Mask(targets)); }
Action Set(int die, int value) { return SetDieAction(die, value); }
Action Shift(int die, ShiftDirection direction) { return ShiftDieAction(die, direction); }

// A deck order with the given cards on top, then the others in canonical order.
std::vector<int32_t> DeckOrder(const std::vector<int>& top) {
  std::vector<int32_t> order(top.begin(), top.end());
  for (int c = 0; c < kNumCards; ++c) {
    if (std::find(top.begin(), top.end(), c) == top.end()) order.push_back(c);
  }
  return order;
}

void Append(std::vector<int32_t>& out, const std::vector<int32_t>& more) {
  out.insert(out.end(), more.begin(), more.end());
}

struct Table {
  std::vector<std::vector<int>> tops;  // per seat: the top cards of the deck
  int dealer = kAnn;                   // wins the dealer war with a 6 against 1s
  std::vector<int32_t> after;          // every later chance outcome, in order
};

std::unique_ptr<KadiceState> Own(std::unique_ptr<engine::State> state) {
  return std::unique_ptr<KadiceState>(static_cast<KadiceState*>(state.release()));
}

std::unique_ptr<KadiceState> Start(const Table& table) {
  const int n = static_cast<int>(table.tops.size());
  std::vector<int32_t> outcomes;
  for (const auto& top : table.tops) Append(outcomes, DeckOrder(top));
  for (int s = 0; s < n; ++s) outcomes.push_back(s == table.dealer ? 6 : 1);
  Append(outcomes, table.after);
  auto state = Game().NewGameWithOutcomes(n, *Game().ParseOptions({}, n),
                                          engine::Seed::FromUint64(7), outcomes);
  EXPECT_TRUE(state.ok()) << state.status();
  return Own(*std::move(state));
}

#define APPLY(state, seat, action) ASSERT_EQ((state)->Apply(seat, action), absl::OkStatus())

// The action is refused with `code` and a message containing `words`, and nothing changes.
void ExpectRefused(engine::State& state, int seat, Action action, absl::StatusCode code,
                   const std::string& words) {
  const std::string before = state.SerializeToString();
  const absl::Status status = state.Apply(seat, action);
  EXPECT_EQ(status.code(), code) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr(words));
  EXPECT_EQ(state.SerializeToString(), before) << "a refused action changed the state";
  EXPECT_EQ(state.CheckAction(seat, action).code(), code);
}
void ExpectBroken(engine::State& state, int seat, Action action, const std::string& rule) {
  ExpectRefused(state, seat, action, absl::StatusCode::kFailedPrecondition, rule);
}

bool IsLegal(const engine::State& state, int seat, Action action) {
  const std::vector<Action> legal = state.LegalActions(seat);
  return std::find(legal.begin(), legal.end(), action) != legal.end();
}

std::vector<int> DiceOf(const KadiceState& state, int seat) {
  const Dice& d = state.player(seat).dice;
  return {d.begin(), d.end()};
}

Dice D(int a, int b, int c, int d, int e) {
  return {static_cast<int8_t>(a), static_cast<int8_t>(b), static_cast<int8_t>(c),
          static_cast<int8_t>(d), static_cast<int8_t>(e)};
}

bool MeetsCard(const Dice& dice, Card card) { return Meets(dice, card); }

std::unique_ptr<v1::KadiceView> ViewOf(const engine::State& state, const engine::Viewer& viewer) {
  return std::unique_ptr<v1::KadiceView>(
      static_cast<v1::KadiceView*>(state.View(viewer).release()));
}

// ---- Positions built from a snapshot ------------------------------------------------------------

// Gives a player the active card and deck; every other card is in the discard pile.
void GiveCards(StateProto::Player* p, int active, const std::vector<int>& deck) {
  p->clear_deck();
  p->clear_discard();
  p->set_active(active);
  for (int c : deck) p->add_deck(c);
  for (int c = 0; c < kNumCards; ++c) {
    if (c != active && std::find(deck.begin(), deck.end(), c) == deck.end()) p->add_discard(c);
  }
}

void MakeGhost(StateProto::Player* p, int ghost_round, int moment) {
  GiveCards(p, -1, {});
  p->set_ghost(true);
  p->set_ghost_round(ghost_round);
  p->set_ghost_moment(moment);
  p->set_held(0);
}

// `seat` has rolled `dice` (all five rolled) and must decide.
void Deciding(StateProto& s, int seat, const std::vector<int>& dice, int turns_taken = 1) {
  s.set_phase(1);
  s.set_current(seat);
  s.set_rolled_mask(31);
  s.set_set_mask(0);
  s.set_five_of_a_kind(std::count(dice.begin(), dice.end(), dice[0]) == 5);
  s.set_turn_shift_used(false);
  s.set_bonus_pending(false);
  StateProto::Player* p = s.mutable_players(seat);
  p->clear_dice();
  for (int d : dice) p->add_dice(d);
  p->set_held(0);
  p->set_turns_taken(turns_taken);
}

// A copy of `state` with its snapshot edited (and, optionally, its random stream moved to draw
// number `rng_draws`, so that the next chance outcomes are known).
std::unique_ptr<KadiceState> Edited(const engine::State& state,
                                    const std::function<void(StateProto&)>& edit,
                                    std::optional<uint64_t> rng_draws = std::nullopt) {
  engine::v1::GameRecord record = state.Serialize();
  StateProto proto;
  EXPECT_TRUE(record.state().UnpackTo(&proto));
  proto.clear_events();
  edit(proto);
  record.mutable_state()->PackFrom(proto);
  if (rng_draws.has_value()) record.set_rng_draws(*rng_draws);
  auto loaded = Game().Deserialize(record);
  EXPECT_TRUE(loaded.ok()) << loaded.status();
  if (!loaded.ok()) return nullptr;
  return Own(*std::move(loaded));
}

// The first draw number from which the seed draws exactly `wanted` (value, sides) in order.
uint64_t DrawNumberGiving(const engine::Seed& seed,
                          const std::vector<std::pair<int, int>>& wanted) {
  const engine::CounterRng rng(seed);
  for (uint64_t k = 1000;; ++k) {
    bool all = true;
    for (size_t i = 0; i < wanted.size() && all; ++i) {
      const auto [value, sides] = wanted[i];
      all = static_cast<int>(rng.Uniform(k + i, static_cast<uint64_t>(sides))) == value;
    }
    if (all) return k;
  }
}

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

void PlayFillerTurns(KadiceState& state, int count) {
  for (int i = 0; i < count; ++i) {
    const int seat = state.current();
    ASSERT_EQ(state.Apply(seat, RollAction(state.player(seat).held)), absl::OkStatus());
    ASSERT_EQ(state.Apply(seat, Hold()), absl::OkStatus());
  }
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

TEST(KadiceViews, DeckOrdersAreHiddenFromEveryoneButTheRevealAllView) {
  auto state =
      Start({.tops = {{kKadice, kFullHouse}, {kSinglePair2}, {kSinglePair3}, {kSinglePair4}},
             .after = kFiller});
  APPLY(state, kAnn, Roll());
  auto spectator = ViewOf(*state, engine::Viewer::Spectator());
  auto own = ViewOf(*state, engine::Viewer::Seat(kAnn));
  auto all = ViewOf(*state, engine::Viewer::All());
  for (const auto* view : {spectator.get(), own.get()}) {
    for (const auto& player : view->players()) EXPECT_EQ(player.deck_order_size(), 0);
    EXPECT_EQ(view->players(kAnn).deck_size(), 16);
    EXPECT_EQ(view->players(kAnn).active_card(), v1::KADICE_CARD_KADICE);
  }
  ASSERT_EQ(all->players(kAnn).deck_order_size(), 16);
  EXPECT_EQ(all->players(kAnn).deck_order(0), v1::KADICE_CARD_FULL_HOUSE);
  // A seat sees exactly what a spectator sees.
  own->set_viewer_seat(-1);
  EXPECT_EQ(own->SerializeAsString(), spectator->SerializeAsString());
  EXPECT_EQ(spectator->phase(), v1::KADICE_PHASE_DECIDE);
  EXPECT_EQ(spectator->turn().rolled_dice_size(), 5);
  EXPECT_EQ(spectator->players(kAnn).dice(0), 6);
}

TEST(KadiceViews, ResampleRedrawsDeckOrdersButNotTheViews) {
  auto state = Start(
      {.tops = {{kKadice}, {kSinglePair2}, {kSinglePair3}, {kSinglePair4}}, .after = kFiller});
  engine::Rng rng(42);
  bool deck_changed = false;
  for (int observer = 0; observer < 4; ++observer) {
    auto copy = state->ResampleHidden(observer, rng);
    for (const engine::Viewer& viewer :
         {engine::Viewer::Seat(observer), engine::Viewer::Spectator()}) {
      EXPECT_EQ(ViewOf(*copy, viewer)->SerializeAsString(),
                ViewOf(*state, viewer)->SerializeAsString());
    }
    EXPECT_EQ(copy->LegalActions(observer), state->LegalActions(observer));
    const auto& resampled = static_cast<const KadiceState&>(*copy).player(observer);
    EXPECT_EQ(resampled.active, state->player(observer).active);
    deck_changed |= resampled.deck != state->player(observer).deck;
    std::vector<int8_t> a(resampled.deck.begin() + 1, resampled.deck.end());
    std::vector<int8_t> b(state->player(observer).deck.begin() + 1,
                          state->player(observer).deck.end());
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    EXPECT_EQ(a, b) << "the same cards remain in the deck";
  }
  EXPECT_TRUE(deck_changed);
}

TEST(KadiceProto, ActionsConvertBothWays) {
  for (Action code = 100; code < 540; ++code) {
    if (!DecodeAction(code).ok()) continue;
    auto proto = Game().ActionToProto(code);
    auto back = Game().ActionFromProto(*proto);
    if (code == EliminateAction(0)) {
      EXPECT_FALSE(back.ok()) << "no targets";
      continue;
    }
    ASSERT_TRUE(back.ok()) << code << ": " << back.status();
    EXPECT_EQ(*back, code);
  }
  v1::KadiceAction unordered;
  unordered.mutable_eliminate()->add_targets(3);
  unordered.mutable_eliminate()->add_targets(1);
  EXPECT_EQ(*Game().ActionFromProto(unordered), Eliminate({1, 3})) << "sets in any order";
}

TEST(KadiceProto, OutOfRangeFieldsAreRejectedNamingTheField) {
  auto expect_bad = [](const v1::KadiceAction& action, const std::string& field) {
    auto code = Game().ActionFromProto(action);
    EXPECT_EQ(code.status().code(), absl::StatusCode::kInvalidArgument) << field;
    EXPECT_THAT(std::string(code.status().message()), HasSubstr(field));
  };
  v1::KadiceAction action;
  expect_bad(action, "action");
  action.mutable_set_die()->set_die(5);
  action.mutable_set_die()->set_value(3);
  expect_bad(action, "set_die.die");
  action.mutable_set_die()->set_die(0);
  action.mutable_set_die()->set_value(7);
  expect_bad(action, "set_die.value");
  action.mutable_set_die()->set_value(0);
  expect_bad(action, "set_die.value");
  action.mutable_shift_die()->set_die(-1);
  action.mutable_shift_die()->set_direction(v1::KADICE_SHIFT_DIRECTION_UP);
  expect_bad(action, "shift_die.die");
  action.mutable_shift_die()->set_die(1);
  action.mutable_shift_die()->set_direction(v1::KADICE_SHIFT_DIRECTION_UNSPECIFIED);
  expect_bad(action, "shift_die.direction");
  action.mutable_roll()->add_release(1);
  action.mutable_roll()->add_release(1);
  expect_bad(action, "die 1 is listed twice");
  action.mutable_roll()->clear_release();
  action.mutable_roll()->add_release(5);
  expect_bad(action, "roll.release");
  action.mutable_hold()->add_dice(2);
  action.mutable_hold()->add_dice(2);
  expect_bad(action, "hold.dice: die 2 is listed twice");
  action.mutable_eliminate()->add_targets(4);
  expect_bad(action, "eliminate.targets");
  action.mutable_eliminate()->clear_targets();
  expect_bad(action, "eliminate.targets");
  action.mutable_eliminate()->add_targets(-1);
  expect_bad(action, "eliminate.targets");
}

TEST(KadiceSnapshot, RoundTripAndReplay) {
  auto state = Start({.tops = {{kSinglePair6}, {kSinglePair2}, {kSinglePair1}, {kSinglePair3}},
                      .after = {6, 5, 3, 2, 1, /*Ben*/ 1, 1, 2, 3, 4}});
  APPLY(state, kAnn, Roll());
  APPLY(state, kAnn, Hold({0, 1}));
  APPLY(state, kBen, Roll());
  APPLY(state, kBen, Eliminate({kCat}));
  const engine::v1::GameRecord record = state->Serialize();
  auto loaded = Game().Deserialize(record);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ((*loaded)->SerializeToString(), state->SerializeToString());
  auto replayed = Game().Replay(record, false);
  ASSERT_TRUE(replayed.ok()) << replayed.status();
  EXPECT_EQ((*replayed)->SerializeToString(), state->SerializeToString());
}

TEST(KadiceSnapshot, DamagedSnapshotsAreRejected) {
  auto started = Game().NewGame(4, DefaultOptions(), engine::Seed::FromUint64(2));
  ASSERT_TRUE(started.ok());
  const std::vector<std::function<void(StateProto&)>> damages = {
      [](StateProto& s) { s.mutable_players(0)->add_deck(3); },
      [](StateProto& s) { s.mutable_players(1)->set_dice(2, 7); },
      [](StateProto& s) { s.mutable_players(1)->set_held(31); },
      [](StateProto& s) { s.mutable_players()->RemoveLast(); },
      [](StateProto& s) { s.set_round(0); },
      [](StateProto& s) { s.set_phase(9); },
      [](StateProto& s) { s.set_current(7); },
      [](StateProto& s) { s.set_dealer(-1); },
      [](StateProto& s) { s.mutable_players(2)->set_turns_taken(4); },
      [](StateProto& s) { s.mutable_players(2)->set_active(-1); },
      [](StateProto& s) { s.mutable_players(3)->set_ghost(true); },
      [](StateProto& s) { s.add_events()->set_kind(9); },
      [](StateProto& s) { s.set_end_reason(1); },
  };
  for (size_t i = 0; i < damages.size(); ++i) {
    engine::v1::GameRecord record = (*started)->Serialize();
    StateProto proto;
    ASSERT_TRUE(record.state().UnpackTo(&proto));
    damages[i](proto);
    record.mutable_state()->PackFrom(proto);
    EXPECT_EQ(Game().Deserialize(record).status().code(), absl::StatusCode::kInvalidArgument)
        << "damage " << i;
  }
  engine::v1::GameRecord garbage = (*started)->Serialize();
  garbage.mutable_state()->set_value("\xff\xff\xff");
  EXPECT_FALSE(Game().Deserialize(garbage).ok());
}

}  // namespace
}  // namespace parlor::games::kadice
