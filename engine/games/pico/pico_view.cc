// Pico's views (what each viewer may see), the hidden choice a bot must not peek at, and the
// mapping between action codes and the public PicoAction message.
#include <bit>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "engine/games/pico/pico.h"
#include "engine/games/pico/pico_internal.h"
#include "parlor/games/v1/pico.pb.h"

namespace parlor::games::pico {

using engine::Action;
using engine::Viewer;
using internal::AddCards;
using internal::WinnerOf;

const google::protobuf::Descriptor* PicoGame::ActionDescriptor() const {
  return v1::PicoAction::descriptor();
}

const google::protobuf::Descriptor* PicoGame::ViewDescriptor() const {
  return v1::PicoView::descriptor();
}

absl::StatusOr<Action> PicoGame::ActionFromProto(const google::protobuf::Message& action) const {
  if (action.GetDescriptor() != v1::PicoAction::descriptor()) {
    return absl::InvalidArgumentError(
        absl::StrCat("action: pico expects a ", v1::PicoAction::descriptor()->full_name(),
                     "; got a ", action.GetDescriptor()->full_name()));
  }
  const int32_t card = static_cast<const v1::PicoAction&>(action).card();
  if (CardIndex(card) < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("card: there is no Pico card ", card, "; cards are 2 to 13 and 16"));
  }
  return Action{card};
}

std::unique_ptr<google::protobuf::Message> PicoGame::ActionToProto(Action action) const {
  auto proto = std::make_unique<v1::PicoAction>();
  proto->set_card(static_cast<int32_t>(action));
  return proto;
}

std::string PicoState::ActionToStringImpl(int, Action action) const {
  if (CardIndex(action) < 0) return absl::StrCat("play ", action, " (no such card)");
  return absl::StrCat("play ", action);
}

std::unique_ptr<google::protobuf::Message> PicoState::ViewImpl(const Viewer& viewer) const {
  auto view = std::make_unique<v1::PicoView>();
  switch (viewer.kind) {
    case Viewer::Kind::kSeat:
      view->set_viewer(v1::PICO_VIEWER_SEAT);
      view->set_viewer_seat(viewer.seat);
      break;
    case Viewer::Kind::kSpectator:
      view->set_viewer(v1::PICO_VIEWER_SPECTATOR);
      break;
    case Viewer::Kind::kAll:
      view->set_viewer(v1::PICO_VIEWER_ALL);
      break;
  }
  view->set_rounds(rounds_);
  view->set_round(round_);
  view->set_trick(trick());
  view->set_face_up_card(kCardValues[face_up_]);
  for (int seat = 0; seat < 2; ++seat) {
    v1::PicoPlayer* player = view->add_players();
    player->set_seat(seat);
    AddCards(hand_[seat], player->mutable_hand());
    AddCards(won_[seat], player->mutable_won());
    for (int r = 0; r < round_; ++r) player->add_round_scores(round_scores_[seat][r]);
    player->set_total(total(seat));
    player->set_has_chosen(pending_[seat] >= 0);
    const bool sees_choice = viewer.kind == Viewer::Kind::kAll ||
                             (viewer.kind == Viewer::Kind::kSeat && viewer.seat == seat);
    if (sees_choice) player->set_pending_card(pending_card(seat));
    player->set_forfeited(IsForfeited(seat));
  }
  int trick_in_round = 0;
  for (int i = 0; i < num_tricks_; ++i) {
    const Trick& t = tricks_[i];
    trick_in_round = i > 0 && tricks_[i - 1].round == t.round ? trick_in_round + 1 : 1;
    v1::PicoTrick* out = view->add_tricks();
    out->set_round(t.round);
    out->set_trick(trick_in_round);
    out->add_cards(kCardValues[t.cards[0]]);
    out->add_cards(kCardValues[t.cards[1]]);
    const int winner = WinnerOf(t.cards);
    out->set_winning_card(kCardValues[t.cards[winner]]);
    out->set_winner_seat(winner);
    out->set_points(kCardPoints[t.cards[winner]]);
  }
  for (int seat : ActingSeats().ToVector()) view->add_acting_seats(seat);
  if (IsTerminal()) {
    view->set_game_over(true);
    const engine::Outcome outcome = GetOutcome();
    for (int rank : outcome.ranks) view->add_ranks(rank);
    view->set_end_reason(outcome.reason);
  }
  for (int seat : GetEnding().forfeited_seats) view->add_forfeited_seats(seat);
  return view;
}

void PicoState::ResampleHiddenImpl(int observer, engine::Rng& rng) {
  // The only hidden thing besides the seed is the opponent's pending choice: any card of its
  // hand is as likely as the real one from the observer's side.
  const int other = 1 - observer;
  if (pending_[other] < 0) return;
  const int n = std::popcount(hand_[other]);
  uint32_t m = hand_[other];
  for (uint64_t k = rng.Uniform(static_cast<uint64_t>(n)); k > 0; --k) m &= m - 1;
  pending_[other] = static_cast<int8_t>(std::countr_zero(m));
}

}  // namespace parlor::games::pico
