#include "engine/games/pico/pico.h"

#include <bit>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "parlor/games/v1/pico.pb.h"
#include "pico/pico_state.pb.h"

namespace parlor::games::pico {
namespace {

using engine::Action;
using engine::SeatSet;
using engine::Viewer;

constexpr uint16_t kAllCards = (1u << kNumCards) - 1;

absl::Status NoSuchCard(int64_t value) {
  return absl::InvalidArgumentError(
      absl::StrCat("there is no Pico card ", value, "; cards are 2 to 13 and 16"));
}

// Card values of a mask, ascending.
template <typename Repeated>
void AddCards(uint16_t mask, Repeated* out) {
  for (uint32_t m = mask; m != 0; m &= m - 1) out->Add(kCardValues[std::countr_zero(m)]);
}

// A mask from card values; false on a value that is no card or a repeated card.
template <typename Repeated>
bool MaskOf(const Repeated& values, uint16_t* mask) {
  *mask = 0;
  for (int32_t v : values) {
    const int i = CardIndex(v);
    if (i < 0 || (*mask >> i & 1u) != 0) return false;
    *mask |= static_cast<uint16_t>(1u << i);
  }
  return true;
}

int WinnerOf(const std::array<int8_t, 2>& cards) {
  return Beats(kCardValues[cards[0]], kCardValues[cards[1]]) ? 0 : 1;
}

}  // namespace

// ---- PicoGame ---------------------------------------------------------------------------------

PicoGame::PicoGame()
    : Game({.name = "pico",
            .display_name = "Pico",
            .summary = "A two-player bluffing card game with 13 numbered cards. In each trick both "
                       "players secretly pick a card at the same time; the larger number wins, "
                       "unless it is more than double the other, which then wins instead. The "
                       "winning card scores its dots; the losing card goes back to its owner's "
                       "hand. A round stops when a player is down to one card; in the return "
                       "round the players swap the hands they were dealt. Higher total wins.",
            .min_players = 2,
            .max_players = 2,
            .has_teams = false,
            .options = {engine::OptionSpec::IntOneOf(
                "rounds",
                "How many rounds the game has: 2, 4 or 6; each pair of rounds is a fresh deal and "
                "its return round with the hands swapped.",
                2, {2, 4, 6}, "rounds must be 2, 4 or 6")},
            .action_kinds = {"play_card"}}) {}

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

int64_t PicoGame::MaxMoves(int, const engine::Options& options) const {
  // Two choices per trick, at most 9 tricks per round, and one forfeit (which ends the game).
  return options.Get("rounds") * kMaxTricksPerRound * 2 + 1;
}

absl::Status PicoGame::ValidateSetup(int, const engine::Options& options) const {
  const int64_t rounds = options.Get("rounds");
  if (rounds != 2 && rounds != 4 && rounds != 6) {
    return absl::InvalidArgumentError("rounds must be 2, 4 or 6");
  }
  return absl::OkStatus();
}

std::unique_ptr<engine::State> PicoGame::CreateState(
    int, std::shared_ptr<const engine::Options> options) const {
  return std::make_unique<PicoState>(*this, std::move(options));
}

void Register(engine::Registry& registry) { registry.Add(std::make_unique<PicoGame>()); }

// ---- PicoState --------------------------------------------------------------------------------

PicoState::PicoState(const engine::Game& game, std::shared_ptr<const engine::Options> options)
    : State(game, 2, options), rounds_(static_cast<int>(options->Get("rounds"))) {}

std::unique_ptr<engine::State> PicoState::CloneImpl() const {
  return std::unique_ptr<engine::State>(new PicoState(*this));
}

void PicoState::Deal(engine::Chance& chance) {
  std::array<int32_t, kNumCards> order;
  for (int i = 0; i < kNumCards; ++i) order[i] = kCardValues[i];
  chance.Shuffle(order);
  for (int seat = 0; seat < 2; ++seat) {
    dealt_[seat] = 0;
    for (int k = 0; k < kHandSize; ++k) {
      dealt_[seat] |= static_cast<uint16_t>(1u << CardIndex(order[seat * kHandSize + k]));
    }
  }
  face_up_ = CardIndex(order[2 * kHandSize]);
}

void PicoState::SetupImpl(engine::Chance& chance) {
  Deal(chance);
  hand_ = dealt_;
  won_ = {0, 0};
}

int PicoState::TricksThisRound() const { return std::popcount(won_[0]) + std::popcount(won_[1]); }

int PicoState::total(int seat) const {
  int sum = 0;
  for (int r = 0; r < round_; ++r) sum += round_scores_[seat][r];
  return sum;
}

SeatSet PicoState::ActingSeatsImpl() const {
  SeatSet seats;
  if (IsTerminalImpl()) return seats;
  for (int seat = 0; seat < 2; ++seat) {
    if (pending_[seat] < 0) seats.Insert(seat);
  }
  return seats;
}

// Only the last round can end with a hand of one card: any earlier round is followed at once by
// the next round's full hands.
bool PicoState::IsTerminalImpl() const {
  return std::popcount(hand_[0]) == 1 || std::popcount(hand_[1]) == 1;
}

void PicoState::LegalActionsImpl(int seat, std::vector<Action>* out) const {
  for (uint32_t m = hand_[seat]; m != 0; m &= m - 1) {
    out->push_back(kCardValues[std::countr_zero(m)]);
  }
}

absl::Status PicoState::CheckActionImpl(int seat, Action action) const {
  const int card = CardIndex(action);
  if (card < 0) return NoSuchCard(action);
  const uint16_t bit = static_cast<uint16_t>(1u << card);
  if ((hand_[seat] & bit) != 0) return absl::OkStatus();
  const std::string prefix = absl::StrCat("card ", action, " is not in your hand: ");
  if (card == face_up_) {
    return absl::FailedPreconditionError(absl::StrCat(prefix, "it is the face-up card"));
  }
  if ((hand_[1 - seat] & bit) != 0) {
    return absl::FailedPreconditionError(absl::StrCat(prefix, "it is in your opponent's hand"));
  }
  if ((won_[seat] & bit) != 0) {
    return absl::FailedPreconditionError(absl::StrCat(prefix, "you won it this round"));
  }
  return absl::FailedPreconditionError(absl::StrCat(prefix, "your opponent won it this round"));
}

absl::Status PicoState::NotYourTurnImpl(int) const {
  // In a game not over, a seat may not act only when it has already chosen; whatever it sent
  // (engine/GAMES.md, "Refusals").
  return absl::FailedPreconditionError(
      "you already chose a card for this trick; wait for your opponent");
}

void PicoState::ApplyImpl(int seat, Action action, engine::Chance& chance) {
  const int card = CardIndex(action);
  const int other = 1 - seat;
  if (pending_[other] < 0) {
    pending_[seat] = static_cast<int8_t>(card);
    return;
  }
  // Both have chosen: reveal and resolve.
  pending_[seat] = static_cast<int8_t>(card);
  Trick& trick = tricks_[num_tricks_++];
  trick.round = static_cast<int8_t>(round_);
  trick.cards = pending_;
  const int winner = WinnerOf(trick.cards);
  const int winning_card = trick.cards[winner];
  const uint16_t bit = static_cast<uint16_t>(1u << winning_card);
  hand_[winner] &= static_cast<uint16_t>(~bit);
  won_[winner] |= bit;
  round_scores_[winner][round_ - 1] =
      static_cast<int16_t>(round_scores_[winner][round_ - 1] + kCardPoints[winning_card]);
  pending_ = {-1, -1};
  if (std::popcount(hand_[winner]) != 1 || round_ == rounds_) return;
  // The round is over and another follows in the same step.
  ++round_;
  if (round_ % 2 == 0) {
    std::swap(dealt_[0], dealt_[1]);  // the return round: each plays the other's dealt hand
  } else {
    Deal(chance);
  }
  hand_ = dealt_;
  won_ = {0, 0};
}

std::vector<int> PicoState::RanksImpl() const {
  const int a = total(0), b = total(1);
  if (a == b) return {1, 1};
  return a > b ? std::vector<int>{1, 2} : std::vector<int>{2, 1};
}

std::vector<int64_t> PicoState::ScoresImpl() const { return {total(0), total(1)}; }

std::string PicoState::EndReasonImpl() const {
  return rounds_ == 2 ? "both rounds played" : absl::StrCat("all ", rounds_, " rounds played");
}

std::string PicoState::ActionToStringImpl(int, Action action) const {
  if (CardIndex(action) < 0) return absl::StrCat("play ", action, " (no such card)");
  return absl::StrCat("play ", action);
}

double PicoState::Heuristic(int seat) const {
  if (IsTerminal()) return State::Heuristic(seat);
  return total(seat) - total(1 - seat);
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

void PicoState::SaveImpl(google::protobuf::Any* out) const {
  engine::pico::PicoState proto;
  proto.set_round(round_);
  proto.set_face_up_card(kCardValues[face_up_]);
  for (int seat = 0; seat < 2; ++seat) {
    engine::pico::PicoStatePlayer* player = proto.add_players();
    AddCards(dealt_[seat], player->mutable_dealt());
    AddCards(hand_[seat], player->mutable_hand());
    AddCards(won_[seat], player->mutable_won());
    for (int r = 0; r < round_; ++r) player->add_round_scores(round_scores_[seat][r]);
    player->set_pending_card(pending_card(seat));
  }
  for (int i = 0; i < num_tricks_; ++i) {
    engine::pico::PicoStateTrick* trick = proto.add_tricks();
    trick->set_round(tricks_[i].round);
    trick->add_cards(kCardValues[tricks_[i].cards[0]]);
    trick->add_cards(kCardValues[tricks_[i].cards[1]]);
  }
  out->PackFrom(proto);
}

absl::Status PicoState::LoadImpl(const google::protobuf::Any& in) {
  engine::pico::PicoState proto;
  if (!in.Is<engine::pico::PicoState>() || !in.UnpackTo(&proto)) {
    return absl::InvalidArgumentError("state: not a parlor.engine.pico.PicoState");
  }
  if (proto.round() < 1 || proto.round() > rounds_) {
    return absl::InvalidArgumentError(
        absl::StrCat("round: ", proto.round(), " is outside 1..", rounds_));
  }
  const int face_up = CardIndex(proto.face_up_card());
  if (face_up < 0) return absl::InvalidArgumentError("face_up_card: not a Pico card");
  if (proto.players_size() != 2) return absl::InvalidArgumentError("players: need 2");
  if (proto.tricks_size() > proto.round() * kMaxTricksPerRound) {
    return absl::InvalidArgumentError("tricks: more than 9 per round");
  }
  std::array<uint16_t, 2> dealt{}, hand{}, won{};
  std::array<int8_t, 2> pending = {-1, -1};
  std::array<std::array<int16_t, kMaxRounds>, 2> scores{};
  for (int seat = 0; seat < 2; ++seat) {
    const engine::pico::PicoStatePlayer& p = proto.players(seat);
    const std::string where = absl::StrCat("players[", seat, "].");
    if (!MaskOf(p.dealt(), &dealt[seat]) || std::popcount(dealt[seat]) != kHandSize) {
      return absl::InvalidArgumentError(absl::StrCat(where, "dealt: need 6 different cards"));
    }
    if (!MaskOf(p.hand(), &hand[seat]) || !MaskOf(p.won(), &won[seat]) ||
        (hand[seat] & won[seat]) != 0 || (hand[seat] | won[seat]) != dealt[seat]) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, "hand and won must split the dealt cards"));
    }
    if (std::popcount(hand[seat]) < 1) {
      return absl::InvalidArgumentError(absl::StrCat(where, "hand: empty"));
    }
    if (p.round_scores_size() != proto.round()) {
      return absl::InvalidArgumentError(absl::StrCat(where, "round_scores: need one per round"));
    }
    if (p.pending_card() != 0) {
      const int card = CardIndex(p.pending_card());
      if (card < 0 || (hand[seat] >> card & 1u) == 0) {
        return absl::InvalidArgumentError(absl::StrCat(where, "pending_card: not in the hand"));
      }
      pending[seat] = static_cast<int8_t>(card);
    }
  }
  if ((dealt[0] & dealt[1]) != 0 || (dealt[0] | dealt[1] | (1u << face_up)) != kAllCards) {
    return absl::InvalidArgumentError("the dealt hands and the face-up card must be the 13 cards");
  }
  if (pending[0] >= 0 && pending[1] >= 0) {
    return absl::InvalidArgumentError("pending_card: both players have a pending card");
  }
  // The tricks must account for every round's score and for this round's won piles.
  std::array<Trick, kMaxRounds * kMaxTricksPerRound> tricks{};
  std::array<uint16_t, 2> won_now{};
  std::array<int, kMaxRounds> tricks_per_round{};
  for (int i = 0; i < proto.tricks_size(); ++i) {
    const engine::pico::PicoStateTrick& t = proto.tricks(i);
    const std::string where = absl::StrCat("tricks[", i, "]: ");
    if (t.round() < 1 || t.round() > proto.round() ||
        (i > 0 && t.round() < proto.tricks(i - 1).round())) {
      return absl::InvalidArgumentError(absl::StrCat(where, "bad round"));
    }
    if (t.cards_size() != 2 || CardIndex(t.cards(0)) < 0 || CardIndex(t.cards(1)) < 0 ||
        t.cards(0) == t.cards(1)) {
      return absl::InvalidArgumentError(absl::StrCat(where, "need two different cards"));
    }
    if (++tricks_per_round[t.round() - 1] > kMaxTricksPerRound) {
      return absl::InvalidArgumentError(absl::StrCat(where, "more than 9 tricks in a round"));
    }
    tricks[i] = {
        static_cast<int8_t>(t.round()),
        {static_cast<int8_t>(CardIndex(t.cards(0))), static_cast<int8_t>(CardIndex(t.cards(1)))}};
    const int winner = WinnerOf(tricks[i].cards);
    const int card = tricks[i].cards[winner];
    scores[winner][t.round() - 1] =
        static_cast<int16_t>(scores[winner][t.round() - 1] + kCardPoints[card]);
    if (t.round() == proto.round()) {
      if ((won_now[winner] >> card & 1u) != 0) {
        return absl::InvalidArgumentError(absl::StrCat(where, "a card won twice in a round"));
      }
      won_now[winner] |= static_cast<uint16_t>(1u << card);
    }
  }
  if (won_now != won) {
    return absl::InvalidArgumentError("won: the won piles do not match this round's tricks");
  }
  for (int seat = 0; seat < 2; ++seat) {
    for (int r = 0; r < proto.round(); ++r) {
      if (proto.players(seat).round_scores(r) != scores[seat][r]) {
        return absl::InvalidArgumentError(absl::StrCat("players[", seat, "].round_scores: round ",
                                                       r + 1, " does not match its tricks"));
      }
    }
  }
  // A hand of one card ends the round, which only stays on the table as the last round.
  const bool over = std::popcount(hand[0]) == 1 || std::popcount(hand[1]) == 1;
  if (over && (proto.round() != rounds_ || pending[0] >= 0 || pending[1] >= 0)) {
    return absl::InvalidArgumentError("hand: a hand of one card before the last round ended");
  }
  round_ = proto.round();
  face_up_ = face_up;
  dealt_ = dealt;
  hand_ = hand;
  won_ = won;
  pending_ = pending;
  round_scores_ = scores;
  num_tricks_ = proto.tricks_size();
  tricks_ = tricks;
  return absl::OkStatus();
}

}  // namespace parlor::games::pico
