// The rule cases of RULES.md section 11, named like the rulebook, plus the
// rules behind them, every illegal-action message, options, views, protos and snapshots.
//
// Unless a test says otherwise: three players, Ann (seat 0), Ben (seat 1) and Cat (seat 2), in
// turn order Ann → Ben → Cat; snatching off. Chance is forced with NewGameWithOutcomes: the
// shuffle's resulting order (top of the stack first; the first six fill pool slots 0–5), the
// first player's index, then die faces 1..6 (1 yellow, 2 orange, 3 red, 4 blue, 5 green,
// 6 black).
#include "engine/games/pescado/pescado.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "engine/core/rng.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "parlor/games/v1/pescado.pb.h"
#include "pescado/pescado_state.pb.h"

namespace parlor::games::pescado {
namespace {

using engine::Action;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;
namespace v1 = ::parlor::games::v1;

constexpr int kAnn = 0, kBen = 1, kCat = 2;

const PescadoGame& Game() {
  static const PescadoGame* game = new PescadoGame();
  return *game;
}

engine::Options Opts(bool snatching = false) {
  return engine::Options({{"snatching", snatching ? 1 : 0}});
}

// The stack order: the given tiles first, then every other tile ascending.
std::vector<int32_t> StackOrder(const std::vector<int>& first) {
  std::vector<int32_t> order(first.begin(), first.end());
  for (int t = 1; t <= kNumTiles; ++t) {
    if (std::find(first.begin(), first.end(), t) == first.end()) order.push_back(t);
  }
  return order;
}

// Die faces from colour letters, e.g. "YYOBG".
std::vector<int32_t> Faces(const std::string& letters) {
  std::vector<int32_t> faces;
  for (char c : letters) faces.push_back(static_cast<int32_t>(std::string("YORBGK").find(c)) + 1);
  return faces;
}

// A game with the given stack order, first player and later die throws (letters).
std::unique_ptr<PescadoState> NewGame(int players, const std::vector<int>& stack_top, int first,
                                      const std::vector<std::string>& throws,
                                      bool snatching = false) {
  std::vector<int32_t> outcomes = StackOrder(stack_top);
  outcomes.push_back(first);
  for (const std::string& t : throws) {
    for (int32_t f : Faces(t)) outcomes.push_back(f);
  }
  auto state = Game().NewGameWithOutcomes(players, Opts(snatching), engine::Seed::FromUint64(7),
                                          std::move(outcomes));
  EXPECT_TRUE(state.ok()) << state.status();
  return std::unique_ptr<PescadoState>(static_cast<PescadoState*>(state->release()));
}

std::string DiceString(const PescadoState& s) {
  std::string out;
  for (Color c : s.Dice()) out += ColorLetter(c);
  return out;
}

std::vector<int> Pool(const PescadoState& s) {
  std::vector<int> pool;
  for (int slot = 0; slot < kPoolSlots; ++slot) pool.push_back(s.pool_tile(slot));
  return pool;
}

bool IsLegal(const PescadoState& s, int seat, Action a) {
  const std::vector<Action> legal = s.LegalActions(seat);
  return std::find(legal.begin(), legal.end(), a) != legal.end();
}

// Applies and expects success (and that the action was listed as legal).
void Accept(PescadoState& s, int seat, Action a) {
  EXPECT_TRUE(IsLegal(s, seat, a)) << s.ActionToString(seat, a);
  absl::Status status = s.Apply(seat, a);
  ASSERT_TRUE(status.ok()) << status;
}

// Expects a refusal with this code and message part, the state byte-for-byte unchanged, and
// the action absent from the legal list.
void ExpectRejected(PescadoState& s, int seat, Action a, absl::StatusCode code,
                    const std::string& message) {
  const std::string before = s.SerializeToString();
  absl::Status status = s.Apply(seat, a);
  EXPECT_EQ(status.code(), code) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr(message));
  EXPECT_EQ(s.SerializeToString(), before) << "a refused action changed the state";
  EXPECT_FALSE(IsLegal(s, seat, a));
}

void ExpectFailedPrecondition(PescadoState& s, int seat, Action a, const std::string& message) {
  ExpectRejected(s, seat, a, absl::StatusCode::kFailedPrecondition, message);
}

uint32_t Keep(std::initializer_list<int> dice) {
  uint32_t mask = 0;
  for (int d : dice) mask |= 1u << d;
  return mask;
}

v1::PescadoView ViewOf(const PescadoState& s, const engine::Viewer& viewer) {
  v1::PescadoView view;
  view.CopyFrom(*s.View(viewer));
  return view;
}

std::vector<std::pair<int, bool>> SupplyWithSafety(const PescadoState& s, int seat) {
  std::vector<std::pair<int, bool>> out;
  for (int t : s.Supply(seat)) out.push_back({t, s.IsSafe(t)});
  return out;
}

// A state built from a snapshot edited by `edit` (for end-of-game positions that would take a
// long scripted game to reach).
std::unique_ptr<PescadoState> FromSnapshot(
    int players, const std::function<void(engine::pescado::PescadoState&)>& edit,
    bool snatching = false) {
  auto fresh = Game().NewGame(players, Opts(snatching), engine::Seed::FromUint64(3));
  EXPECT_TRUE(fresh.ok());
  engine::v1::GameRecord record = (*fresh)->Serialize();
  engine::pescado::PescadoState proto;
  EXPECT_TRUE(record.state().UnpackTo(&proto));
  edit(proto);
  record.mutable_state()->PackFrom(proto);
  auto loaded = Game().Deserialize(record);
  EXPECT_TRUE(loaded.ok()) << loaded.status();
  if (!loaded.ok()) return nullptr;
  return std::unique_ptr<PescadoState>(static_cast<PescadoState*>(loaded->release()));
}

// ---- The tiles and the match predicate (sections 3.2 and 7) ------------------------------------

TEST(PescadoTiles, ThirtySixTilesSixTwelveEighteenSixtyPointsEighteenFishPerColour) {
  std::map<int, int> by_points;
  std::array<int, kNumColors> fish{};
  int total = 0;
  std::set<std::string> names;
  for (int id = 1; id <= kNumTiles; ++id) {
    const TileInfo& t = Tile(id);
    ++by_points[t.points];
    total += t.points;
    for (Color c : t.fish) ++fish[c];
    std::string sorted = t.name;
    std::sort(sorted.begin(), sorted.end());
    names.insert(sorted);
  }
  EXPECT_EQ(by_points[3], 6);
  EXPECT_EQ(by_points[2], 12);
  EXPECT_EQ(by_points[1], 18);
  EXPECT_EQ(total, 60);
  for (int c = 0; c < kNumColors; ++c) EXPECT_EQ(fish[c], 18) << ColorName(static_cast<Color>(c));
  EXPECT_EQ(names.size(), 36u) << "every tile is a different combination";
  EXPECT_EQ(std::string(Tile(13).name), "BBG");
  EXPECT_EQ(std::string(Tile(29).name), "ORG");
  EXPECT_EQ(std::string(Tile(36).name), "RGK");
  EXPECT_EQ(names.count("OQR"), 0u);
  EXPECT_EQ(names.count("ORY"), 0u) << "YOR is left out";
  EXPECT_EQ(names.count("BGK"), 0u) << "BGK is left out";
}

TEST(PescadoTiles, ADieHelpsEveryTileOfTheThrowBecauseDiceAreNotUsedUp) {
  // Dice Y, Y, O, B, G: YYO, YOB and YBG match at once; YYY, GGB and ORG do not.
  auto s = NewGame(3, {1, 7, 14, 19, 25, 29}, kAnn, {"YYOBG"});
  Accept(*s, kAnn, EncodeThrowFirst());
  std::vector<Action> legal = s->LegalActions(kAnn);
  std::vector<int> takeable;
  for (Action a : legal) {
    if (DecodeAction(a).kind == ActionType::kTakeTile) takeable.push_back(DecodeAction(a).tile);
  }
  EXPECT_THAT(takeable, ElementsAre(7, 19, 25));
}

// ---- Setup (section 3.4) -----------------------------------------------------------------------

TEST(PescadoSetup, SixTilesFromTheTopFillTheSlotsInOrderAndTheFirstPlayerIsDrawn) {
  auto s = NewGame(4, {10, 20, 30, 5, 15, 25}, 2, {});
  EXPECT_THAT(Pool(*s), ElementsAre(10, 20, 30, 5, 15, 25));
  EXPECT_EQ(s->stack_size(), 30);
  EXPECT_EQ(s->active_seat(), 2);
  EXPECT_EQ(s->phase(), Phase::kAwaitFirstThrow);
  EXPECT_EQ(s->turn_counter(), 0);
  for (int seat = 0; seat < 4; ++seat) EXPECT_THAT(s->Supply(seat), IsEmpty());
  EXPECT_THAT(s->LegalActions(2), ElementsAre(EncodeThrowFirst()));
  EXPECT_THAT(s->LegalActions(0), IsEmpty());
}

// ---- Rule cases 1–12: one continuous game ------------------------------------------------------

// The game of cases 1–12: pool 1, 7, 14, 19, 25, 29; the next stack tiles 12, 2, 3, 4, 5.
std::unique_ptr<PescadoState> CasesGame() {
  return NewGame(3, {1, 7, 14, 19, 25, 29, 12, 2, 3, 4, 5}, kAnn,
                 {"YYOBG",   // Ann's first throw (case 1)
                  "ORGK",    // Ann's second throw: dice 0, 1, 2 and a grey die (case 3)
                  "YOBBR",   // Ben's first throw (case 7)
                  "KKKKKK",  // Ben's second throw: five white dice and a grey die (case 9)
                  "ORGBB",   // Cat's first throw (case 10)
                  "YY"});    // Cat's second throw: two grey dice only (case 11)
}

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

TEST(PescadoIllegal, AMalformedActionIsRefusedForItsShapeBeforeTheWrongPhase) {
  // Shape (RULES.md section 6, step 5) comes before legality (step 6), "throw first" included.
  auto s = CasesGame();
  ExpectRejected(*s, kAnn, EncodeBuyGreyDie(29, 29), absl::StatusCode::kInvalidArgument,
                 "tile_ids: name two different tiles");
  ExpectRejected(*s, kAnn, EncodeTakeTile(37), absl::StatusCode::kInvalidArgument, "tile_id");
  ExpectFailedPrecondition(*s, kAnn, EncodeTakeTile(7), "throw first");
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

void PlayCase1(PescadoState& s) {
  Accept(s, kAnn, EncodeThrowFirst());
  for (int t : {7, 19, 25}) Accept(s, kAnn, EncodeTakeTile(t));
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

void PlayCases1To3(PescadoState& s) {
  PlayCase1(s);
  Accept(s, kAnn, EncodeBuyGreyDie(1, 14));
  Accept(s, kAnn, EncodeThrowSecond(Keep({3, 4})));
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

void PlayCases1To6(PescadoState& s) {
  PlayCases1To3(s);
  Accept(s, kAnn, EncodeTakeTile(29));
  Accept(s, kAnn, EncodeEndTurn());
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

void PlayCases1To7(PescadoState& s) {
  PlayCases1To6(s);
  Accept(s, kBen, EncodeThrowFirst());
  Accept(s, kBen, EncodeTakeTile(19));
  Accept(s, kBen, EncodeTakeTile(12));
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

TEST(PescadoEnd, TiesInPointsAndTilesShareTheRank) {
  auto s = FromSnapshot(3, [](engine::pescado::PescadoState& p) {
    p.set_phase(4);
    p.set_active_seat(kAnn);
    p.set_turn_counter(kMaxTurns - 1);
    // Ann: 7 (2) + 19 (1) = 3 in 2; Ben: 8 (2) + 20 (1) = 3 in 2; Cat: 1 (3) = 3 in 1.
    std::map<int, std::vector<int>> supplies = {{kAnn, {7, 19}}, {kBen, {8, 20}}, {kCat, {1}}};
    std::set<int> used = {7, 19, 8, 20, 1};
    p.clear_supplies();
    for (int seat = 0; seat < 3; ++seat) {
      auto* sup = p.add_supplies();
      for (int t : supplies[seat]) {
        auto* st = sup->add_tiles();
        st->set_tile_id(t);
        st->set_safe(true);
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
  Accept(*s, kAnn, EncodeEndTurn());
  ASSERT_TRUE(s->IsTerminal());
  // Cat wins on fewer tiles; Ann and Ben are equal in both and share second place.
  EXPECT_THAT(s->GetOutcome().ranks, ElementsAre(2, 2, 1));
}

// ---- Rule cases 15–18: snatching -------------------------------------------------------------

std::unique_ptr<PescadoState> Case15Game() {
  return NewGame(3, {3, 5, 10, 11, 28, 34, 30, 31, 32}, kAnn, {"RRRBG"}, /*snatching=*/true);
}

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

// ---- More snatching rules ----------------------------------------------------------------------

TEST(PescadoSnatch, WithSnatchingOnAOneColourTileIsNeverCaughtWithAFirstThrow) {
  auto s = NewGame(2, {1, 7, 30, 31, 32, 33}, kAnn, {"YYYOB"}, /*snatching=*/true);
  Accept(*s, kAnn, EncodeThrowFirst());
  EXPECT_EQ(s->phase(), Phase::kSnatchWindow);
  EXPECT_THAT(s->SnatchSet(), ElementsAre(1, 7));
  EXPECT_FALSE(IsLegal(*s, kAnn, EncodeTakeTile(1)));
}

TEST(PescadoSnatch, WithoutTheOptionATripletIsAnOrdinaryThrow) {
  auto s = NewGame(2, {1, 7, 30, 31, 32, 33}, kAnn, {"YYYOB"});
  Accept(*s, kAnn, EncodeThrowFirst());
  EXPECT_EQ(s->phase(), Phase::kFirstThrowResolved);
  Accept(*s, kAnn, EncodeTakeTile(1));
}

TEST(PescadoSnatch, PassesRepeatUntilNoTileIsGivenOutOnePerPlayerPerPass) {
  // Four players; Ann (seat 0) throws; draft order 1, 2, 3, 0.
  auto s = NewGame(4, {3, 5, 10, 11, 28, 34}, 0, {"RRRBG"}, /*snatching=*/true);
  Accept(*s, 0, EncodeThrowFirst());
  Accept(*s, 2, EncodeSnatchClaim(std::vector<int>{3, 11, 34}));
  Accept(*s, 0, EncodeSnatchClaim(std::vector<int>{11}));
  Accept(*s, 3, EncodeSnatchClaim(std::vector<int>{}));
  Accept(*s, 1, EncodeSnatchClaim(std::vector<int>{3}));
  // Pass 1: seat 1 gets 3; seat 2's 3 is gone, gets 11; seat 3 passes; seat 0's 11 is gone.
  // Pass 2: seat 2 gets 34. Pass 3: nothing.
  EXPECT_THAT(s->Supply(1), ElementsAre(3));
  EXPECT_THAT(s->Supply(2), ElementsAre(11, 34));
  EXPECT_THAT(s->Supply(3), IsEmpty());
  EXPECT_THAT(s->Supply(0), IsEmpty());
  EXPECT_EQ(s->active_seat(), 0);
}

TEST(PescadoSnatch, TheOrderInWhichClaimsArriveDoesNotMatter) {
  const std::vector<std::vector<int>> claims = {{3, 11, 34}, {34, 3}, {11}};
  std::string first;
  for (std::vector<int> order : {std::vector<int>{0, 1, 2}, {2, 1, 0}, {1, 2, 0}}) {
    auto s = Case15Game();
    Accept(*s, kAnn, EncodeThrowFirst());
    for (int seat : order) Accept(*s, seat, EncodeSnatchClaim(claims[seat]));
    std::string supplies;
    for (int seat = 0; seat < 3; ++seat) {
      for (int t : s->Supply(seat)) absl::StrAppend(&supplies, seat, ":", t, " ");
    }
    if (first.empty()) first = supplies;
    EXPECT_EQ(supplies, first);
  }
}

TEST(PescadoSnatch, ARoundWhereEveryonePassesStillEndsAndTheThrowerStartsAgain) {
  auto s = Case15Game();
  Accept(*s, kAnn, EncodeThrowFirst());
  for (int seat : {kAnn, kBen, kCat}) Accept(*s, seat, EncodeSnatchClaim(std::vector<int>{}));
  EXPECT_EQ(s->phase(), Phase::kAwaitFirstThrow);
  EXPECT_EQ(s->active_seat(), kAnn);
  EXPECT_EQ(s->turn_counter(), 1);
  EXPECT_THAT(Pool(*s), ElementsAre(3, 5, 10, 11, 28, 34)) << "unreceived tiles stay face up";
}

TEST(PescadoSnatch, ThePredecessorsExposedTilesStayExposedAcrossTheRestart) {
  // Ann's turn leaves 19 exposed; Ben then throws a triplet and the round restarts his turn.
  auto s = NewGame(2, {19, 3, 11, 34, 5, 10, 30, 31, 32, 33}, kAnn, {"YOBKK", "KKKKK", "RRRBG"},
                   /*snatching=*/true);
  Accept(*s, kAnn, EncodeThrowFirst());
  Accept(*s, kAnn, EncodeTakeTile(19));
  Accept(*s, kAnn, EncodeThrowSecond(Keep({})));
  Accept(*s, kAnn, EncodeEndTurn());
  Accept(*s, kBen, EncodeThrowFirst());
  ASSERT_EQ(s->phase(), Phase::kSnatchWindow);
  EXPECT_THAT(s->SnatchSet(), ElementsAre(3, 11, 34)) << "supplies never count in a snatch round";
  Accept(*s, kAnn, EncodeSnatchClaim(std::vector<int>{3}));
  Accept(*s, kBen, EncodeSnatchClaim(std::vector<int>{11}));
  EXPECT_EQ(s->active_seat(), kBen);
  EXPECT_EQ(s->predecessor(), kAnn);
  EXPECT_FALSE(s->IsSafe(19));
  EXPECT_THAT(SupplyWithSafety(*s, kAnn), ElementsAre(std::pair(19, false), std::pair(3, true)));
}

TEST(PescadoSnatch, AHundredReThrowsWithoutAMatchOpenNoWindow) {
  // Pool without any tile a triplet of yellow or a rainbow throw can match.
  std::vector<std::string> throws = {"YYYRB"};
  for (int i = 0; i < kMaxRethrows; ++i) throws.push_back("YRBGK");
  auto s = NewGame(2, {2, 3, 4, 5, 6, 7}, kAnn, throws, /*snatching=*/true);
  Accept(*s, kAnn, EncodeThrowFirst());
  EXPECT_EQ(s->phase(), Phase::kAwaitFirstThrow);
  EXPECT_EQ(s->active_seat(), kAnn);
  EXPECT_EQ(s->turn_counter(), 1) << "the snatch round counts as a turn";
  const engine::v1::GameRecord record = s->Serialize();
  EXPECT_EQ(record.log(1).outcomes_size(), 5 * (1 + kMaxRethrows));
  const v1::PescadoView view = ViewOf(*s, engine::Viewer::Spectator());
  EXPECT_EQ(view.snatch().rethrows(), kMaxRethrows);
  EXPECT_THAT(view.snatch().snatch_set(), IsEmpty());
}

TEST(PescadoSnatch, SixMatchingTilesGiveNineteenFiftySevenClaimsByLengthThenLexicographically) {
  auto s = NewGame(2, {19, 20, 22, 23, 25, 28}, kAnn, {"KKKYO", "YORBG"}, /*snatching=*/true);
  Accept(*s, kAnn, EncodeThrowFirst());
  ASSERT_EQ(s->phase(), Phase::kSnatchWindow);
  EXPECT_THAT(s->SnatchSet(), ElementsAre(19, 20, 22, 23, 25, 28));
  const std::vector<Action> legal = s->LegalActions(kBen);
  EXPECT_EQ(legal.size(), 1957u);
  EXPECT_TRUE(std::is_sorted(legal.begin(), legal.end()));
  EXPECT_EQ(legal[0], EncodeSnatchClaim(std::vector<int>{}));
  EXPECT_EQ(legal[1], EncodeSnatchClaim(std::vector<int>{19}));
  EXPECT_EQ(legal[7], EncodeSnatchClaim(std::vector<int>{19, 20}));
  EXPECT_EQ(legal[8], EncodeSnatchClaim(std::vector<int>{19, 22}));
  EXPECT_EQ(legal.back(), EncodeSnatchClaim(std::vector<int>{28, 25, 23, 22, 20, 19}));
}

TEST(PescadoSnatch, TheGameEndsAfterASnatchRoundWhenThePoolCannotBeRefilled) {
  // Case 15's window, two players, one tile left in the stack.
  auto s = FromSnapshot(
      2,
      [](engine::pescado::PescadoState& p) {
        p.set_phase(3);
        p.set_active_seat(kAnn);
        p.set_turn_counter(40);
        p.clear_pool();
        for (int t : {3, 5, 10, 11, 28, 34}) p.add_pool()->set_tile_id(t);
        p.clear_stack();
        p.add_stack(36);
        p.clear_supplies();
        auto* ann = p.add_supplies();
        auto* ben = p.add_supplies();
        for (int t = 1; t < 36; ++t) {
          if (t == 3 || t == 5 || t == 10 || t == 11 || t == 28 || t == 34) continue;
          auto* st = (t % 2 ? ann : ben)->add_tiles();
          st->set_tile_id(t);
          st->set_safe(true);
        }
        p.clear_dice();
        auto* sn = p.mutable_snatch();
        sn->set_thrower_seat(kAnn);
        for (int c : {2, 2, 2, 3, 4}) sn->add_snatch_dice(c);  // R, R, R, B, G
        for (int t : {3, 11, 34}) sn->add_snatch_set(t);
        sn->add_claims();
        sn->add_claims();
      },
      /*snatching=*/true);
  ASSERT_NE(s, nullptr);
  EXPECT_THAT(s->ActingSeats().ToVector(), ElementsAre(kAnn, kBen));
  Accept(*s, kAnn, EncodeSnatchClaim(std::vector<int>{3}));
  Accept(*s, kBen, EncodeSnatchClaim(std::vector<int>{11, 34}));
  // Ben receives 11 and 34 over two passes, Ann 3: three empty slots, one stack tile.
  EXPECT_THAT(s->Supply(kBen).back(), 34);
  EXPECT_TRUE(s->IsTerminal());
  EXPECT_EQ(s->turn_counter(), 41);
  EXPECT_EQ(s->stack_size(), 1) << "nothing is drawn";
  EXPECT_EQ(s->GetOutcome().reason, "the pool cannot be refilled");
}

// ---- Other illegal actions and their messages --------------------------------------------------

TEST(PescadoIllegal, EveryActionKindOutOfPlaceIsRefusedWithWhatFits) {
  auto s = CasesGame();
  ExpectFailedPrecondition(*s, kAnn, EncodeTakeTile(7), "throw first");
  ExpectFailedPrecondition(*s, kAnn, EncodeBuyGreyDie(1, 7), "throw first");
  ExpectFailedPrecondition(*s, kAnn, EncodeThrowSecond(0), "throw first");
  ExpectFailedPrecondition(*s, kAnn, EncodeEndTurn(), "throw first");
  Accept(*s, kAnn, EncodeThrowFirst());
  ExpectFailedPrecondition(*s, kAnn, EncodeThrowFirst(), "the first throw has already been made");
  ExpectFailedPrecondition(*s, kAnn, EncodeEndTurn(), "the second throw is compulsory");
  Accept(*s, kAnn, EncodeThrowSecond(0));
  ExpectFailedPrecondition(*s, kAnn, EncodeThrowSecond(0),
                           "the second throw has already been made");
  ExpectFailedPrecondition(*s, kAnn, EncodeThrowFirst(), "the first throw has already been made");
  ExpectFailedPrecondition(*s, kAnn, EncodeSnatchClaim({}), "no snatch window is open");
}

TEST(PescadoIllegal, TilesOutOfPlayAndMalformedCodes) {
  auto s = CasesGame();
  PlayCase1(*s);
  ExpectFailedPrecondition(*s, kAnn, EncodeTakeTile(12),
                           "tile 12 is not in play: it is still in the stack");
  ExpectFailedPrecondition(*s, kAnn, EncodeTakeTile(7), "tile 7 is already in your supply");
  ExpectFailedPrecondition(*s, kAnn, EncodeBuyGreyDie(1, 12), "tile 12 is not in play");
  ExpectRejected(*s, kAnn, EncodeTakeTile(0), absl::StatusCode::kInvalidArgument, "tile_id");
  ExpectRejected(*s, kAnn, EncodeTakeTile(37), absl::StatusCode::kInvalidArgument, "tile_id");
  ExpectRejected(*s, kAnn, EncodeBuyGreyDie(0, 14), absl::StatusCode::kInvalidArgument, "tile_ids");
  ExpectRejected(*s, kAnn, -1, absl::StatusCode::kInvalidArgument, "not a Pescado action");
  ExpectRejected(*s, kAnn, Action{9} << kKindShift, absl::StatusCode::kInvalidArgument,
                 "not a Pescado action");
  ExpectRejected(*s, kAnn, EncodeEndTurn() + 1, absl::StatusCode::kInvalidArgument,
                 "not a Pescado action");
  // A BuyGreyDie code with the higher id first is not the canonical code of any action.
  ExpectRejected(*s, kAnn, (Action{3} << kKindShift) | (14 * 64 + 1),
                 absl::StatusCode::kInvalidArgument, "");
  ExpectRejected(*s, 7, EncodeThrowFirst(), absl::StatusCode::kInvalidArgument,
                 "seat 7 does not exist");
}

TEST(PescadoIllegal, AFlippedPredecessorTileIsAlreadySafe) {
  auto s = CasesGame();
  PlayCases1To7(*s);
  Accept(*s, kBen, EncodeBuyGreyDie(7, 25));
  ExpectFailedPrecondition(*s, kBen, EncodeBuyGreyDie(7, 29), "tile 7 is already safe");
}

// ---- Legal action lists (section 6.7) ----------------------------------------------------------

TEST(PescadoLegalActions, FirstThrowResolvedListsTakesThenGreyDicePairsThenThrowsInOrder) {
  auto s = CasesGame();
  Accept(*s, kAnn, EncodeThrowFirst());
  const std::vector<Action> legal = s->LegalActions(kAnn);
  EXPECT_TRUE(std::is_sorted(legal.begin(), legal.end()));
  // 3 takes, C(6,2) = 15 pairs, 31 throws (keeping all five needs a grey die).
  EXPECT_EQ(legal.size(), 3u + 15u + 31u);
  EXPECT_EQ(legal[0], EncodeTakeTile(7));
  EXPECT_EQ(legal[3], EncodeBuyGreyDie(1, 7));
  EXPECT_EQ(legal[17], EncodeBuyGreyDie(25, 29));
  // ThrowSecond by number kept, then lexicographically by the kept indices.
  EXPECT_EQ(legal[18], EncodeThrowSecond(Keep({})));
  EXPECT_EQ(legal[19], EncodeThrowSecond(Keep({0})));
  EXPECT_EQ(legal[23], EncodeThrowSecond(Keep({4})));
  EXPECT_EQ(legal[24], EncodeThrowSecond(Keep({0, 1})));
  EXPECT_EQ(legal[25], EncodeThrowSecond(Keep({0, 2})));
  EXPECT_EQ(legal[28], EncodeThrowSecond(Keep({1, 2})));
  EXPECT_EQ(legal.back(), EncodeThrowSecond(Keep({1, 2, 3, 4})));
  Accept(*s, kAnn, EncodeBuyGreyDie(1, 7));
  EXPECT_EQ(s->LegalActions(kAnn).back(), EncodeThrowSecond(Keep({0, 1, 2, 3, 4})));
}

TEST(PescadoLegalActions, SecondThrowResolvedListsTakesThenEndTurn) {
  auto s = CasesGame();
  PlayCases1To3(*s);
  EXPECT_THAT(s->LegalActions(kAnn), ElementsAre(EncodeTakeTile(29), EncodeEndTurn()));
}

// ---- Options and setup validation --------------------------------------------------------------

TEST(PescadoOptions, SnatchingDefaultsToOffAndIsValidated) {
  auto parsed = Game().ParseOptions({}, 3);
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->Get("snatching"), 0);
  auto on = Game().ParseOptions({{"snatching", "true"}}, 2);
  ASSERT_TRUE(on.ok());
  EXPECT_EQ(on->Get("snatching"), 1);
  auto bad = Game().ParseOptions({{"snatching", "sometimes"}}, 3);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("snatching"));
  auto unknown = Game().ParseOptions({{"grey_dice", "3"}}, 3);
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(unknown.status().message()), HasSubstr("grey_dice"));
  auto bad_value = Game().NewGame(3, engine::Options({{"snatching", 2}}), engine::Seed{});
  EXPECT_EQ(bad_value.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(bad_value.status().message()), HasSubstr("snatching"));
  for (int players : {1, 5}) {
    auto game = Game().NewGame(players, Opts(), engine::Seed{});
    EXPECT_EQ(game.status().code(), absl::StatusCode::kInvalidArgument) << players;
  }
  EXPECT_EQ(Game().info().min_players, 2);
  EXPECT_EQ(Game().info().max_players, 4);
  EXPECT_EQ(Game().info().action_kinds.size(), 6u);
}

// ---- Views -------------------------------------------------------------------------------------

TEST(PescadoViews, OnlyTheStackOrderIsHiddenAndFaceDownTilesArePublic) {
  auto s = CasesGame();
  PlayCase1(*s);
  Accept(*s, kAnn, EncodeBuyGreyDie(1, 14));
  const v1::PescadoView spectator = ViewOf(*s, engine::Viewer::Spectator());
  const v1::PescadoView ben = ViewOf(*s, engine::Viewer::Seat(kBen));
  const v1::PescadoView all = ViewOf(*s, engine::Viewer::All());
  // A flipped tile's identity is public.
  EXPECT_EQ(spectator.pool(0).tile().id(), 1);
  EXPECT_TRUE(spectator.pool(0).flipped());
  EXPECT_THAT(
      spectator.pool(0).tile().fish(),
      ElementsAre(v1::PESCADO_COLOR_YELLOW, v1::PESCADO_COLOR_YELLOW, v1::PESCADO_COLOR_YELLOW));
  EXPECT_FALSE(spectator.pool(1).has_tile());
  // The stack's contents are public, in id order; its order only for the reveal-all view.
  ASSERT_EQ(spectator.stack_tile_ids_size(), 30);
  EXPECT_TRUE(std::is_sorted(spectator.stack_tile_ids().begin(), spectator.stack_tile_ids().end()));
  EXPECT_EQ(all.stack_tile_ids(0), 12);
  EXPECT_EQ(all.stack_tile_ids(1), 2);
  // A seat sees exactly what a spectator sees (no private information outside a claim).
  v1::PescadoView ben_as_spectator = ben;
  ben_as_spectator.set_viewpoint(v1::PESCADO_VIEWPOINT_SPECTATOR);
  ben_as_spectator.set_viewer_seat(-1);
  EXPECT_EQ(ben_as_spectator.SerializeAsString(), spectator.SerializeAsString());
  EXPECT_EQ(spectator.active_seat(), kAnn);
  EXPECT_EQ(spectator.predecessor_seat(), kCat);
  EXPECT_EQ(spectator.grey_dice_bought(), 1);
  EXPECT_THAT(spectator.takeable_tile_ids(), IsEmpty());
  EXPECT_THAT(spectator.flippable_tile_ids(), IsEmpty()) << "only tile 29 is left to flip";
  ASSERT_EQ(spectator.players_size(), 3);
  EXPECT_EQ(spectator.players(kAnn).score(), 4);
  EXPECT_FALSE(spectator.players(kAnn).supply(0).safe());
}

TEST(PescadoViews, ResamplingRedrawsTheStackAndOthersClaimsButNoView) {
  auto s = Case15Game();
  Accept(*s, kAnn, EncodeThrowFirst());
  Accept(*s, kBen, EncodeSnatchClaim(std::vector<int>{3, 11}));
  Accept(*s, kCat, EncodeSnatchClaim(std::vector<int>{34}));
  engine::Rng rng(99);
  bool stack_changed = false, claim_changed = false;
  for (int i = 0; i < 20; ++i) {
    auto copy = s->ResampleHidden(kAnn, rng);
    const auto& c = static_cast<const PescadoState&>(*copy);
    EXPECT_EQ(ViewOf(c, engine::Viewer::Seat(kAnn)).SerializeAsString(),
              ViewOf(*s, engine::Viewer::Seat(kAnn)).SerializeAsString());
    EXPECT_EQ(ViewOf(c, engine::Viewer::Spectator()).SerializeAsString(),
              ViewOf(*s, engine::Viewer::Spectator()).SerializeAsString());
    EXPECT_EQ(c.LegalActions(kAnn), s->LegalActions(kAnn));
    const v1::PescadoView a = ViewOf(c, engine::Viewer::All());
    const v1::PescadoView b = ViewOf(*s, engine::Viewer::All());
    if (a.stack_tile_ids(0) != b.stack_tile_ids(0)) stack_changed = true;
    if (a.snatch().claims(kBen).SerializeAsString() !=
        b.snatch().claims(kBen).SerializeAsString()) {
      claim_changed = true;
    }
  }
  EXPECT_TRUE(stack_changed);
  EXPECT_TRUE(claim_changed);
}

// ---- Protos ------------------------------------------------------------------------------------

absl::StatusOr<Action> FromText(const std::function<void(v1::PescadoAction&)>& fill) {
  v1::PescadoAction a;
  fill(a);
  return Game().ActionFromProto(a);
}

TEST(PescadoProto, OutOfRangeAndMalformedFieldsAreRejectedNamingTheField) {
  struct Case {
    std::function<void(v1::PescadoAction&)> fill;
    std::string field;
  };
  const std::vector<Case> cases = {
      {[](v1::PescadoAction&) {}, "kind"},
      {[](v1::PescadoAction& a) { a.mutable_take_tile()->set_tile_id(0); }, "take_tile.tile_id"},
      {[](v1::PescadoAction& a) { a.mutable_take_tile()->set_tile_id(37); }, "take_tile.tile_id"},
      {[](v1::PescadoAction& a) { a.mutable_buy_grey_die()->add_tile_ids(3); },
       "buy_grey_die.tile_ids"},
      {[](v1::PescadoAction& a) {
         for (int t : {1, 2, 3}) a.mutable_buy_grey_die()->add_tile_ids(t);
       },
       "buy_grey_die.tile_ids"},
      {[](v1::PescadoAction& a) {
         a.mutable_buy_grey_die()->add_tile_ids(29);
         a.mutable_buy_grey_die()->add_tile_ids(29);
       },
       "buy_grey_die.tile_ids: name two different tiles"},
      {[](v1::PescadoAction& a) {
         a.mutable_buy_grey_die()->add_tile_ids(-4);
         a.mutable_buy_grey_die()->add_tile_ids(29);
       },
       "buy_grey_die.tile_ids"},
      {[](v1::PescadoAction& a) { a.mutable_throw_second()->add_keep_dice(5); },
       "throw_second.keep_dice: die 5 is not a white die"},
      {[](v1::PescadoAction& a) {
         a.mutable_throw_second()->add_keep_dice(2);
         a.mutable_throw_second()->add_keep_dice(2);
       },
       "throw_second.keep_dice: die 2 is listed twice"},
      {[](v1::PescadoAction& a) {
         for (int t : {1, 2, 3, 4, 5, 6, 7}) a.mutable_snatch_claim()->add_tile_ids(t);
       },
       "snatch_claim.tile_ids"},
      {[](v1::PescadoAction& a) {
         a.mutable_snatch_claim()->add_tile_ids(3);
         a.mutable_snatch_claim()->add_tile_ids(3);
       },
       "snatch_claim.tile_ids: tile 3 is listed twice"},
      {[](v1::PescadoAction& a) { a.mutable_snatch_claim()->add_tile_ids(99); },
       "snatch_claim.tile_ids"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<Action> a = FromText(c.fill);
    EXPECT_EQ(a.status().code(), absl::StatusCode::kInvalidArgument) << c.field;
    EXPECT_THAT(std::string(a.status().message()), HasSubstr(c.field));
  }
  engine::v1::GameRecord other;
  EXPECT_EQ(Game().ActionFromProto(other).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(PescadoProto, SetsAreOrderFreeAndEveryActionRoundTrips) {
  auto a = FromText([](v1::PescadoAction& p) {
    p.mutable_buy_grey_die()->add_tile_ids(14);
    p.mutable_buy_grey_die()->add_tile_ids(1);
  });
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a, EncodeBuyGreyDie(1, 14));
  auto keep = FromText([](v1::PescadoAction& p) {
    p.mutable_throw_second()->add_keep_dice(4);
    p.mutable_throw_second()->add_keep_dice(3);
  });
  ASSERT_TRUE(keep.ok());
  EXPECT_EQ(*keep, EncodeThrowSecond(Keep({3, 4})));
  std::vector<Action> all = {EncodeThrowFirst(), EncodeEndTurn(),
                             EncodeSnatchClaim(std::vector<int>{}),
                             EncodeSnatchClaim(std::vector<int>{36, 1, 20, 3, 4, 5})};
  for (int t = 1; t <= kNumTiles; ++t) {
    all.push_back(EncodeTakeTile(t));
    for (int u = t + 1; u <= kNumTiles; ++u) all.push_back(EncodeBuyGreyDie(t, u));
  }
  for (uint32_t m = 0; m < 32; ++m) all.push_back(EncodeThrowSecond(m));
  for (Action code : all) {
    std::unique_ptr<google::protobuf::Message> proto = Game().ActionToProto(code);
    absl::StatusOr<Action> back = Game().ActionFromProto(*proto);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(*back, code);
  }
  // The kind of every action for the kind-first bot.
  auto s = CasesGame();
  EXPECT_EQ(Game().info().action_kinds[s->ActionKind(EncodeBuyGreyDie(1, 2))], "buy_grey_die");
  EXPECT_EQ(Game().info().action_kinds[s->ActionKind(EncodeSnatchClaim({}))], "snatch_claim");
}

// ---- Snapshots ---------------------------------------------------------------------------------

TEST(PescadoSnapshot, SerializeDeserializeAndReplayGiveTheSameBytes) {
  auto s = Case15Game();
  Accept(*s, kAnn, EncodeThrowFirst());
  Accept(*s, kBen, EncodeSnatchClaim(std::vector<int>{3, 11}));
  for (const PescadoState* state : {s.get()}) {
    const engine::v1::GameRecord record = state->Serialize();
    auto loaded = Game().Deserialize(record);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    EXPECT_EQ((*loaded)->SerializeToString(), state->SerializeToString());
    auto replayed = Game().Replay(record, /*check_seed=*/false);
    ASSERT_TRUE(replayed.ok()) << replayed.status();
    EXPECT_EQ((*replayed)->SerializeToString(), state->SerializeToString());
  }
}

TEST(PescadoSnapshot, DamagedSnapshotsAreRejectedNeverLoaded) {
  auto fresh = Game().NewGame(3, Opts(), engine::Seed::FromUint64(5));
  ASSERT_TRUE(fresh.ok());
  const engine::v1::GameRecord good = (*fresh)->Serialize();
  engine::pescado::PescadoState base;
  ASSERT_TRUE(good.state().UnpackTo(&base));
  const std::vector<std::function<void(engine::pescado::PescadoState&)>> damage = {
      [](auto& p) { p.set_phase(0); },
      [](auto& p) { p.set_phase(6); },
      [](auto& p) { p.set_active_seat(3); },
      [](auto& p) { p.set_active_seat(-1); },
      [](auto& p) { p.set_turn_counter(200); },
      [](auto& p) { p.set_turn_counter(-1); },
      [](auto& p) { p.set_stack(0, p.stack(1)); },
      [](auto& p) { p.set_stack(0, 37); },
      [](auto& p) { p.mutable_stack()->RemoveLast(); },
      [](auto& p) { p.mutable_pool()->RemoveLast(); },
      [](auto& p) { p.mutable_pool(0)->set_flipped(true); },
      [](auto& p) { p.mutable_pool(0)->set_tile_id(0); },
      [](auto& p) { p.mutable_supplies()->RemoveLast(); },
      [](auto& p) { p.add_dice(1); },
      [](auto& p) { p.set_grey_dice_bought(1); },
      [](auto& p) { p.set_kept_mask(3); },
      [](auto& p) { p.set_end_reason(1); },
      [](auto& p) {
        p.set_phase(2);
        for (int i = 0; i < 5; ++i) p.add_dice(7);
      },
      [](auto& p) { p.set_phase(3); },
      [](auto& p) {
        p.set_phase(2);
        for (int i = 0; i < 5; ++i) p.add_dice(1);
        p.mutable_pool(0)->set_flipped(true);  // no grey die was bought
      },
      [](auto& p) {
        auto* sn = p.mutable_snatch();
        sn->set_thrower_seat(0);
        for (int i = 0; i < 5; ++i) sn->add_snatch_dice(0);
      },
  };
  for (size_t i = 0; i < damage.size(); ++i) {
    engine::pescado::PescadoState p = base;
    damage[i](p);
    engine::v1::GameRecord record = good;
    record.mutable_state()->PackFrom(p);
    auto loaded = Game().Deserialize(record);
    EXPECT_EQ(loaded.status().code(), absl::StatusCode::kInvalidArgument) << "damage " << i;
  }
  engine::v1::GameRecord wrong_type = good;
  wrong_type.mutable_state()->PackFrom(good);
  EXPECT_FALSE(Game().Deserialize(wrong_type).ok());
}

TEST(PescadoSnapshot, RandomlyCorruptedSnapshotsNeverCrashAndLoadOnlyIfPlayable) {
  // A snatch window in the middle of a game, then random byte damage to its snapshot.
  auto s = Case15Game();
  Accept(*s, kAnn, EncodeThrowFirst());
  Accept(*s, kBen, EncodeSnatchClaim(std::vector<int>{3, 11}));
  const engine::v1::GameRecord good = s->Serialize();
  engine::Rng rng(2024);
  int loaded_count = 0;
  for (int i = 0; i < 3000; ++i) {
    engine::v1::GameRecord record = good;
    std::string bytes = record.state().value();
    const int flips = 1 + static_cast<int>(rng.Uniform(4));
    for (int f = 0; f < flips; ++f) {
      bytes[rng.Uniform(bytes.size())] = static_cast<char>(rng.Uniform(256));
    }
    record.mutable_state()->set_value(bytes);
    auto loaded = Game().Deserialize(record);
    if (!loaded.ok()) {
      EXPECT_EQ(loaded.status().code(), absl::StatusCode::kInvalidArgument);
      continue;
    }
    ++loaded_count;
    engine::State& state = **loaded;
    for (int seat = 0; seat < 3; ++seat) {
      for (Action a : state.LegalActions(seat)) {
        EXPECT_TRUE(state.CheckAction(seat, a).ok());
        auto copy = state.Clone();
        EXPECT_TRUE(copy->Apply(seat, a).ok());
      }
      state.View(engine::Viewer::Seat(seat));
    }
    state.View(engine::Viewer::All());
    auto again = Game().Deserialize(state.Serialize());
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_EQ((*again)->SerializeToString(), state.SerializeToString());
  }
  EXPECT_GT(loaded_count, 0) << "some damage (e.g. to a claim) still gives a valid position";
}

// ---- Seeded random playouts --------------------------------------------------------------------

TEST(PescadoPlayouts, RandomGamesEndWithinTheBoundAndReplayBitForBit) {
  for (int game = 0; game < 60; ++game) {
    const int players = 2 + game % 3;
    const bool snatching = game % 2 == 0;
    auto started = Game().NewGame(players, Opts(snatching), engine::Seed::FromUint64(1000 + game));
    ASSERT_TRUE(started.ok());
    std::unique_ptr<engine::State> s = std::move(*started);
    engine::Rng rng(game);
    int64_t moves = 0;
    while (!s->IsTerminal()) {
      const std::vector<int> seats = s->ActingSeats().ToVector();
      ASSERT_FALSE(seats.empty());
      const int seat = seats[rng.Uniform(seats.size())];
      const std::vector<Action> legal = s->LegalActions(seat);
      ASSERT_FALSE(legal.empty());
      ASSERT_TRUE(std::is_sorted(legal.begin(), legal.end()));
      // Prefer taking: a purely random bot rarely ends a game through the pool.
      Action a = legal[rng.Uniform(legal.size())];
      if (DecodeAction(legal[0]).kind == ActionType::kTakeTile && rng.Uniform(2) == 0) a = legal[0];
      ASSERT_TRUE(s->Apply(seat, a).ok());
      ++moves;
      ASSERT_LE(moves, Game().MaxMoves(players, s->options()));
    }
    const engine::v1::GameRecord record = s->Serialize();
    auto replayed = Game().Replay(record, /*check_seed=*/true);
    ASSERT_TRUE(replayed.ok()) << replayed.status();
    EXPECT_EQ((*replayed)->SerializeToString(), s->SerializeToString());
    const engine::Outcome outcome = s->GetOutcome();
    EXPECT_EQ(outcome.ranks.size(), static_cast<size_t>(players));
    int total = 0;
    for (int64_t score : outcome.scores) total += static_cast<int>(score);
    EXPECT_LE(total, 60);
  }
}

}  // namespace
}  // namespace parlor::games::pescado
