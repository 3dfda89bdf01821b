// Picadice's view (no hidden information: every viewer sees the same), action texts and the
// mapping between action codes and the public PicadiceAction message.
#include <algorithm>
#include <array>

#include "absl/strings/str_cat.h"
#include "engine/games/picadice/picadice.h"
#include "engine/games/picadice/picadice_internal.h"
#include "parlor/games/v1/picadice.pb.h"

namespace parlor::games::picadice {

namespace pb = ::parlor::games::v1;
using internal::ColourName;
using internal::ColumnsText;
using internal::Encode;
using internal::NoBlackRow;

const google::protobuf::Descriptor* PicadiceGame::ActionDescriptor() const {
  return pb::PicadiceAction::descriptor();
}

const google::protobuf::Descriptor* PicadiceGame::ViewDescriptor() const {
  return pb::PicadiceView::descriptor();
}

void PicadiceState::ResampleHiddenImpl(int, engine::Rng&) {}

std::string PicadiceState::ActionToStringImpl(int, Action action) const {
  DecodedAction a;
  if (!DecodeAction(action, &a)) return absl::StrCat("malformed action ", action);
  auto raid_text = [&](int birds) {
    std::string text = absl::StrCat("steal from seat ", a.victim, "'s ", ColourName(a.colour),
                                    " row, ", ColumnsText(a.column, std::max(birds, 1)));
    if (a.destination == 0) return absl::StrCat(text, ", discard to the nest");
    return absl::StrCat(text, ", place at column ", a.destination);
  };
  std::array<int, kColours + 1> shown{};
  for (int face : dice_) ++shown[face];
  switch (static_cast<Kind>(a.kind)) {
    case Kind::kRoll:
      return "roll the dice";
    case Kind::kDiscardAll:
      return "discard all dice to the nest";
    case Kind::kUseColour:
      return absl::StrCat("use ", ColourName(a.colour), " at column ", a.column);
    case Kind::kStealFromNest:
      return absl::StrCat("take ", ColourName(a.colour), " from the nest to column ", a.column);
    case Kind::kCallPicaBirds:
      return absl::StrCat("call the Pica Birds: ", raid_text(shown[kBlack]));
    case Kind::kStealBlackFromNest:
      return absl::StrCat("take black from the nest: ", raid_text(nest_[kBlack - 1]));
  }
  return absl::StrCat("malformed action ", action);
}

std::unique_ptr<google::protobuf::Message> PicadiceState::ViewImpl(const engine::Viewer&) const {
  // No hidden information (rules doc section 4): every viewer gets the same view.
  auto view = std::make_unique<pb::PicadiceView>();
  view->set_players(num_players());
  view->set_team_play(team_play_);
  view->set_match_play(match_play_);
  view->set_match_target(match_target_);
  view->set_turn_limit(turn_limit_);
  for (int p = 0; p < num_players(); ++p) {
    pb::PicadiceGrid* grid = view->add_grids();
    grid->set_seat(p);
    grid->set_side(TeamOf(p));
    for (int colour = 1; colour <= kRows; ++colour) {
      pb::PicadiceRow* r = grid->add_rows();
      r->set_colour(static_cast<pb::PicadiceColour>(colour));
      for (int c = 0; c < kColumns; ++c) r->add_filled((row(p, colour) >> c & 1) != 0);
    }
    grid->set_completed_columns(CompletedColumns(grids_[p]));
    grid->set_counters(Counters(grids_[p]));
  }
  for (int colour = 1; colour <= kColours; ++colour) {
    pb::PicadiceColourCount* n = view->add_nest();
    n->set_colour(static_cast<pb::PicadiceColour>(colour));
    n->set_count(nest_[colour - 1]);
    pb::PicadiceColourCount* s = view->add_store();
    s->set_colour(static_cast<pb::PicadiceColour>(colour));
    s->set_count(store(colour));
  }
  const bool over = IsTerminal();
  view->set_phase(over ? pb::PICADICE_PHASE_GAME_OVER
                       : static_cast<pb::PicadicePhase>(static_cast<int>(phase_)));
  if (!over) view->set_player_to_act(player_to_act_);
  if (phase_ == Phase::kAfterRoll) {
    for (int face : dice_) view->add_dice(static_cast<pb::PicadiceColour>(face));
    view->set_triple_rolled(dice_[0] == dice_[1] && dice_[1] == dice_[2]);
  }
  view->set_turns_completed(turns_completed_);
  view->set_round(round_);
  for (int side = 0; side < NumSidesFast(); ++side) view->add_match_points(match_points_[side]);
  for (const RollOffRound& roll : roll_off_) {
    pb::PicadiceRollOffRound* out = view->add_roll_off();
    for (size_t i = 0; i < roll.seats.size(); ++i) {
      pb::PicadiceRollOffRoll* r = out->add_rolls();
      r->set_seat(roll.seats[i]);
      r->set_face(static_cast<pb::PicadiceColour>(roll.faces[i]));
    }
  }
  for (size_t i = 0; i < round_results_.size(); ++i) {
    const RoundResult& result = round_results_[i];
    pb::PicadiceRoundResult* out = view->add_round_results();
    out->set_round(static_cast<int>(i) + 1);
    if (result.winning_side >= 0) out->set_winning_side(result.winning_side);
    out->set_points(result.points);
    for (int p = 0; p < num_players(); ++p) {
      pb::PicadiceProgress* progress = out->add_players();
      progress->set_seat(p);
      progress->set_completed_columns(CompletedColumns(result.grids[p]));
      progress->set_counters(Counters(result.grids[p]));
    }
  }
  if (phase_ == Phase::kGameOver) {
    view->set_end_reason(static_cast<pb::PicadiceEndReason>(static_cast<int>(end_reason_)));
    if (end_reason_ != EndReason::kTurnLimit) {
      view->set_winning_side(round_results_.back().winning_side);
    }
  }
  const engine::State::Ending ending = GetEnding();
  for (int rank : ending.ranks) view->add_ranks(rank);
  view->set_game_over(over);
  view->set_end_reason_text(ending.reason);
  for (int seat : ending.forfeited_seats) view->add_forfeited_seats(seat);
  return view;
}

namespace {

absl::StatusOr<int> RowColour(pb::PicadiceColour colour, absl::string_view field) {
  const int value = static_cast<int>(colour);
  if (value == kBlack) return NoBlackRow(field);
  if (value < 1 || value > kRows) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ": MALFORMED_ACTION: must be a row colour (orange to purple); got ", value));
  }
  return value;
}

absl::StatusOr<int> Column(int32_t column, absl::string_view field) {
  if (column < 1 || column > kColumns) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": MALFORMED_ACTION: must be a column 1-4; got ", column));
  }
  return column;
}

absl::StatusOr<Action> RaidFromProto(Kind kind, bool has_raid, const pb::PicadiceRaid& raid,
                                     absl::string_view field) {
  if (!has_raid) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ".raid: MALFORMED_ACTION: the raid must be set"));
  }
  const std::string prefix = absl::StrCat(field, ".raid.");
  if (raid.victim_seat() < 0 || raid.victim_seat() >= kMaxPlayers) {
    return absl::InvalidArgumentError(absl::StrCat(
        prefix, "victim_seat: MALFORMED_ACTION: must be a seat 0-3; got ", raid.victim_seat()));
  }
  absl::StatusOr<int> row = RowColour(raid.row(), absl::StrCat(prefix, "row"));
  if (!row.ok()) return row.status();
  absl::StatusOr<int> from = Column(raid.from_column(), absl::StrCat(prefix, "from_column"));
  if (!from.ok()) return from.status();
  int destination = 0;
  switch (raid.destination_case()) {
    case pb::PicadiceRaid::kDiscard:
      break;
    case pb::PicadiceRaid::kPlaceAtColumn: {
      absl::StatusOr<int> at =
          Column(raid.place_at_column(), absl::StrCat(prefix, "place_at_column"));
      if (!at.ok()) return at.status();
      destination = *at;
      break;
    }
    default:
      return absl::InvalidArgumentError(
          absl::StrCat(prefix, "destination: MALFORMED_ACTION: set discard or place_at_column"));
  }
  return Encode(kind, raid.victim_seat(), *row, *from, destination);
}

}  // namespace

absl::StatusOr<Action> PicadiceGame::ActionFromProto(
    const google::protobuf::Message& message) const {
  pb::PicadiceAction copy;
  const pb::PicadiceAction* action = dynamic_cast<const pb::PicadiceAction*>(&message);
  if (action == nullptr) {
    if (message.GetDescriptor()->full_name() != pb::PicadiceAction::descriptor()->full_name() ||
        !copy.ParseFromString(message.SerializeAsString())) {
      return absl::InvalidArgumentError(
          absl::StrCat("action: expected a ", pb::PicadiceAction::descriptor()->full_name(),
                       "; got ", message.GetDescriptor()->full_name()));
    }
    action = &copy;
  }
  switch (action->action_case()) {
    case pb::PicadiceAction::kRoll:
      return RollAction();
    case pb::PicadiceAction::kDiscardAll:
      return DiscardAllAction();
    case pb::PicadiceAction::kUseColour:
    case pb::PicadiceAction::kStealFromNest: {
      const bool use = action->action_case() == pb::PicadiceAction::kUseColour;
      const absl::string_view field = use ? "use_colour" : "steal_from_nest";
      const pb::PicadiceColour colour =
          use ? action->use_colour().colour() : action->steal_from_nest().colour();
      const int32_t start =
          use ? action->use_colour().start_column() : action->steal_from_nest().start_column();
      absl::StatusOr<int> c = RowColour(colour, absl::StrCat(field, ".colour"));
      if (!c.ok()) return c.status();
      absl::StatusOr<int> s = Column(start, absl::StrCat(field, ".start_column"));
      if (!s.ok()) return s.status();
      return Encode(use ? Kind::kUseColour : Kind::kStealFromNest, 0, *c, *s, 0);
    }
    case pb::PicadiceAction::kCallPicaBirds:
      return RaidFromProto(Kind::kCallPicaBirds, action->call_pica_birds().has_raid(),
                           action->call_pica_birds().raid(), "call_pica_birds");
    case pb::PicadiceAction::kStealBlackFromNest:
      return RaidFromProto(Kind::kStealBlackFromNest, action->steal_black_from_nest().has_raid(),
                           action->steal_black_from_nest().raid(), "steal_black_from_nest");
    case pb::PicadiceAction::ACTION_NOT_SET:
      break;
  }
  return absl::InvalidArgumentError(
      "action: MALFORMED_ACTION: set exactly one of roll, steal_from_nest, "
      "steal_black_from_nest, use_colour, call_pica_birds, discard_all");
}

std::unique_ptr<google::protobuf::Message> PicadiceGame::ActionToProto(Action action) const {
  auto out = std::make_unique<pb::PicadiceAction>();
  DecodedAction a;
  if (!DecodeAction(action, &a)) return out;
  auto fill_raid = [&](pb::PicadiceRaid* raid) {
    raid->set_victim_seat(a.victim);
    raid->set_row(static_cast<pb::PicadiceColour>(a.colour));
    raid->set_from_column(a.column);
    if (a.destination == 0) {
      raid->mutable_discard();
    } else {
      raid->set_place_at_column(a.destination);
    }
  };
  switch (static_cast<Kind>(a.kind)) {
    case Kind::kRoll:
      out->mutable_roll();
      break;
    case Kind::kDiscardAll:
      out->mutable_discard_all();
      break;
    case Kind::kUseColour:
      out->mutable_use_colour()->set_colour(static_cast<pb::PicadiceColour>(a.colour));
      out->mutable_use_colour()->set_start_column(a.column);
      break;
    case Kind::kStealFromNest:
      out->mutable_steal_from_nest()->set_colour(static_cast<pb::PicadiceColour>(a.colour));
      out->mutable_steal_from_nest()->set_start_column(a.column);
      break;
    case Kind::kCallPicaBirds:
      fill_raid(out->mutable_call_pica_birds()->mutable_raid());
      break;
    case Kind::kStealBlackFromNest:
      fill_raid(out->mutable_steal_black_from_nest()->mutable_raid());
      break;
  }
  return out;
}

}  // namespace parlor::games::picadice
