// picadice tests: views (what each viewer sees), action messages and texts. Shared helpers:
// picadice_test_util.h.
#include "engine/games/picadice/picadice_test_util.h"

namespace parlor::games::picadice {
namespace {

// ---- Views, protos and snapshots ------------------------------------------------------------

TEST_F(PicadiceTest, EveryViewerSeesTheSameView) {
  auto s = WithGrids(*ARolled({kBlackFace, kOrange, kOrange}, 3),
                     {Grid({{kGreen, "##.."}}), 0, Grid({{kBlue, "#..."}})}, {{kPurple, 2}});
  const std::string spectator = s->View(engine::Viewer::Spectator())->SerializeAsString();
  EXPECT_EQ(s->View(engine::Viewer::All())->SerializeAsString(), spectator);
  for (int seat = 0; seat < 3; ++seat) {
    EXPECT_EQ(s->View(engine::Viewer::Seat(seat))->SerializeAsString(), spectator);
  }
  auto view = s->View(engine::Viewer::Seat(B));
  const auto& v = static_cast<const pb::PicadiceView&>(*view);
  EXPECT_EQ(v.players(), 3);
  EXPECT_EQ(v.phase(), pb::PICADICE_PHASE_AFTER_ROLL);
  EXPECT_EQ(v.player_to_act(), A);
  EXPECT_THAT(v.dice(), ElementsAre(pb::PICADICE_COLOUR_BLACK, pb::PICADICE_COLOUR_ORANGE,
                                    pb::PICADICE_COLOUR_ORANGE));
  EXPECT_FALSE(v.triple_rolled());
  ASSERT_EQ(v.grids_size(), 3);
  EXPECT_EQ(v.grids(A).rows(kGreen - 1).colour(), pb::PICADICE_COLOUR_GREEN);
  EXPECT_THAT(v.grids(A).rows(kGreen - 1).filled(), ElementsAre(true, true, false, false));
  ASSERT_EQ(v.nest_size(), 6);
  EXPECT_EQ(v.nest(kPurple - 1).colour(), pb::PICADICE_COLOUR_PURPLE);
  EXPECT_EQ(v.nest(kPurple - 1).count(), 2);
  EXPECT_EQ(v.store(kPurple - 1).count(), 18);
  EXPECT_EQ(v.store(kBlackFace - 1).count(), 4);
  EXPECT_EQ(v.turn_limit(), 450);
  EXPECT_EQ(v.round(), 1);
  EXPECT_EQ(v.match_points_size(), 3);
  ASSERT_EQ(v.roll_off_size(), 1);
  EXPECT_EQ(v.roll_off(0).rolls(0).face(), pb::PICADICE_COLOUR_BLACK);
  EXPECT_FALSE(v.has_winning_side());
  EXPECT_EQ(v.ranks_size(), 0);
}

TEST_F(PicadiceTest, TheFinalViewShowsTheOutcome) {
  auto s = WithGrids(*AToAct(), {FullExcept(kGreen, "###."), 0}, {{kGreen, 1}});
  ExpectApplied(*s, A, StealFromNestAction(kGreen, 4));
  auto view = s->View(engine::Viewer::Spectator());
  const auto& v = static_cast<const pb::PicadiceView&>(*view);
  EXPECT_EQ(v.phase(), pb::PICADICE_PHASE_GAME_OVER);
  EXPECT_FALSE(v.has_player_to_act());
  EXPECT_EQ(v.end_reason(), pb::PICADICE_END_REASON_GRID_FILLED);
  EXPECT_EQ(v.winning_side(), A);
  EXPECT_THAT(v.ranks(), ElementsAre(1, 2));
  ASSERT_EQ(v.round_results_size(), 1);
  EXPECT_EQ(v.round_results(0).players(A).completed_columns(), 4);
}

TEST_F(PicadiceTest, ActionProtosRoundTrip) {
  auto s = WithGrids(*ARolled({kBlackFace, kOrange, kBlue}, 3),
                     {0, Grid({{kOrange, "###."}}), AllRows("##..")}, {});
  std::vector<Action> actions = s->LegalActions(A);
  actions.push_back(RollAction());
  actions.push_back(StealFromNestAction(kPurple, 2));
  actions.push_back(StealBlackFromNestAction(C, kYellow, 3, 2));
  ASSERT_GT(actions.size(), 20u);
  for (Action action : actions) {
    std::unique_ptr<google::protobuf::Message> proto = game_.ActionToProto(action);
    absl::StatusOr<Action> back = game_.ActionFromProto(*proto);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(*back, action) << proto->ShortDebugString();
  }
  pb::PicadiceAction call;
  call.mutable_call_pica_birds()->mutable_raid()->set_victim_seat(1);
  call.mutable_call_pica_birds()->mutable_raid()->set_row(pb::PICADICE_COLOUR_PURPLE);
  call.mutable_call_pica_birds()->mutable_raid()->set_from_column(1);
  call.mutable_call_pica_birds()->mutable_raid()->set_place_at_column(3);
  EXPECT_EQ(*game_.ActionFromProto(call), 51513);
  google::protobuf::Any any;
  any.PackFrom(call);
  EXPECT_EQ(*game_.ActionFromAny(any), 51513);
}

TEST_F(PicadiceTest, ActionProtosWithOutOfRangeFieldsAreRejected) {
  auto expect_bad = [&](const pb::PicadiceAction& action, const std::string& field) {
    absl::StatusOr<Action> code = game_.ActionFromProto(action);
    ASSERT_FALSE(code.ok()) << action.ShortDebugString();
    EXPECT_EQ(code.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(code.status().message()), HasSubstr(field));
  };
  expect_bad(pb::PicadiceAction(), "action");
  pb::PicadiceAction use;
  use.mutable_use_colour()->set_start_column(1);
  expect_bad(use, "use_colour.colour");  // unspecified
  use.mutable_use_colour()->set_colour(static_cast<pb::PicadiceColour>(9));
  expect_bad(use, "use_colour.colour");
  use.mutable_use_colour()->set_colour(pb::PICADICE_COLOUR_BLACK);
  expect_bad(use, "NO_BLACK_ROW");
  use.mutable_use_colour()->set_colour(pb::PICADICE_COLOUR_ORANGE);
  for (int column : {0, 5, -1}) {
    use.mutable_use_colour()->set_start_column(column);
    expect_bad(use, "use_colour.start_column");
  }
  pb::PicadiceAction steal;
  steal.mutable_steal_from_nest()->set_colour(pb::PICADICE_COLOUR_GREEN);
  expect_bad(steal, "steal_from_nest.start_column");
  pb::PicadiceAction birds;
  birds.mutable_call_pica_birds();
  expect_bad(birds, "call_pica_birds.raid");
  pb::PicadiceRaid* raid = birds.mutable_call_pica_birds()->mutable_raid();
  raid->set_victim_seat(1);
  raid->set_row(pb::PICADICE_COLOUR_BLUE);
  raid->set_from_column(2);
  expect_bad(birds, "destination");
  raid->set_place_at_column(5);
  expect_bad(birds, "place_at_column");
  raid->mutable_discard();
  EXPECT_TRUE(game_.ActionFromProto(birds).ok());
  raid->set_victim_seat(4);
  expect_bad(birds, "victim_seat");
  raid->set_victim_seat(-1);
  expect_bad(birds, "victim_seat");
  raid->set_victim_seat(1);
  raid->set_from_column(0);
  expect_bad(birds, "from_column");
  raid->set_from_column(1);
  raid->set_row(pb::PICADICE_COLOUR_BLACK);
  expect_bad(birds, "NO_BLACK_ROW");
  pb::PicadiceAction nest_birds;
  nest_birds.mutable_steal_black_from_nest();
  expect_bad(nest_birds, "steal_black_from_nest.raid");
  // Another game's message.
  pb::PicadiceView view;
  EXPECT_EQ(game_.ActionFromProto(view).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(PicadiceTest, ActionsReadLikeTheRules) {
  auto s = ARolled({kBlackFace, kBlackFace, kBlue});
  EXPECT_EQ(s->ActionToString(A, UseColourAction(kBlue, 2)), "use blue at column 2");
  EXPECT_EQ(s->ActionToString(A, CallPicaBirdsAction(B, kPurple, 1, 3)),
            "call the Pica Birds: steal from seat 1's purple row, columns 1 to 2, place at "
            "column 3");
  EXPECT_EQ(s->ActionToString(A, DiscardAllAction()), "discard all dice to the nest");
  EXPECT_EQ(s->ActionKind(RollAction()), 0);
  EXPECT_EQ(s->ActionKind(CallPicaBirdsAction(B, kPurple, 1, 3)), 4);
  EXPECT_EQ(game_.info().action_kinds.size(), 6u);
}

}  // namespace
}  // namespace parlor::games::picadice
