// kadice tests: views (what each viewer sees), action messages and texts. Shared helpers:
// kadice_test_util.h.
#include "engine/games/kadice/kadice_test_util.h"

namespace parlor::games::kadice {
namespace {

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

}  // namespace
}  // namespace parlor::games::kadice
