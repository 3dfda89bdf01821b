// pescado tests: the rules beyond the numbered cases: refusals, legal-action order, options, bounds
// and outcomes. Shared helpers: pescado_test_util.h.
#include "engine/games/pescado/pescado_test_util.h"

namespace parlor::games::pescado {
namespace {

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

TEST(PescadoIllegal, AMalformedActionIsRefusedForItsShapeBeforeTheWrongPhase) {
  // Shape (RULES.md section 6, step 5) comes before legality (step 6), "throw first" included.
  auto s = CasesGame();
  ExpectRejected(*s, kAnn, EncodeBuyGreyDie(29, 29), absl::StatusCode::kInvalidArgument,
                 "tile_ids: name two different tiles");
  ExpectRejected(*s, kAnn, EncodeTakeTile(37), absl::StatusCode::kInvalidArgument, "tile_id");
  ExpectFailedPrecondition(*s, kAnn, EncodeTakeTile(7), "throw first");
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
