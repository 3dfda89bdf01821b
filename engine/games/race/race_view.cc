// Race's wire side: the Action proto mapping, action texts, views and resampling.
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "engine/games/race/race.h"
#include "parlor/games/v1/race.pb.h"

namespace parlor::games::race {

using engine::Action;
using engine::Viewer;

const google::protobuf::Descriptor* RaceGame::ActionDescriptor() const {
  return v1::RaceAction::descriptor();
}

const google::protobuf::Descriptor* RaceGame::ViewDescriptor() const {
  return v1::RaceView::descriptor();
}

absl::StatusOr<Action> RaceGame::ActionFromProto(const google::protobuf::Message& action) const {
  if (action.GetDescriptor() != v1::RaceAction::descriptor()) {
    return absl::InvalidArgumentError(
        absl::StrCat("action: race expects a ", v1::RaceAction::descriptor()->full_name(),
                     "; got a ", action.GetDescriptor()->full_name()));
  }
  const auto& race = static_cast<const v1::RaceAction&>(action);
  if (race.boost()) {
    if (race.add() != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("add: leave it 0 when playing the boost (got ", race.add(), ")"));
    }
    return kBoost;
  }
  if (race.add() < 1 || race.add() > 3) {
    return absl::InvalidArgumentError(
        absl::StrCat("add: 1, 2 or 3, or set boost (got ", race.add(), ")"));
  }
  return Action{race.add()};
}

std::unique_ptr<google::protobuf::Message> RaceGame::ActionToProto(Action action) const {
  auto proto = std::make_unique<v1::RaceAction>();
  if (action == kBoost) {
    proto->set_boost(true);
  } else {
    proto->set_add(static_cast<int32_t>(action));
  }
  return proto;
}

std::string RaceState::ActionToStringImpl(int, Action action) const {
  // The boost's value is not named: before it is played it is the mover's secret.
  if (action == kBoost) return "play the boost card";
  if (action < 1 || action > 3) return absl::StrCat("action ", action, " (no such action)");
  return absl::StrCat("add ", action);
}

std::unique_ptr<google::protobuf::Message> RaceState::ViewImpl(const Viewer& viewer) const {
  auto view = std::make_unique<v1::RaceView>();
  view->set_viewer_seat(viewer.kind == Viewer::Kind::kSeat ? viewer.seat : -1);
  view->set_target(target_);
  view->set_total(total_);
  for (int seat = 0; seat < num_players(); ++seat) {
    const Player& p = players_[seat];
    v1::RacePlayer* player = view->add_players();
    player->set_seat(seat);
    player->set_boost_played(p.boost_played);
    const bool sees_boost = p.boost_played || viewer.kind == Viewer::Kind::kAll ||
                            (viewer.kind == Viewer::Kind::kSeat && viewer.seat == seat);
    if (sees_boost) player->set_boost(p.boost);
    player->set_added(p.added);
    player->set_forfeited(IsForfeited(seat));
  }
  for (int seat : ActingSeats().ToVector()) view->add_acting_seats(seat);
  const Ending ending = GetEnding();
  view->set_game_over(ending.over);
  for (int rank : ending.ranks) view->add_ranks(rank);
  view->set_end_reason(ending.reason);
  for (int seat : ending.forfeited_seats) view->add_forfeited_seats(seat);
  return view;
}

void RaceState::ResampleHiddenImpl(int observer, engine::Rng& rng) {
  // Every other seat's unplayed boost card could be any of the three.
  for (int seat = 0; seat < num_players(); ++seat) {
    if (seat == observer || players_[seat].boost_played) continue;
    players_[seat].boost = kMinBoost + static_cast<int>(rng.Uniform(kMaxBoost - kMinBoost + 1));
  }
}

}  // namespace parlor::games::race
