// pescado tests: views (what each viewer sees), action messages and texts. Shared helpers:
// pescado_test_util.h.
#include "engine/games/pescado/pescado_test_util.h"

namespace parlor::games::pescado {
namespace {

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

}  // namespace
}  // namespace parlor::games::pescado
