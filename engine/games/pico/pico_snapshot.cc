// Pico's snapshot: the private PicoState message (pico_state.proto) written by SaveImpl and
// validated field by field by LoadImpl with the engine's snapshot kit
// (engine/core/snapshot_check.h).
#include <bit>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "engine/core/snapshot_check.h"
#include "engine/games/pico/pico.h"
#include "engine/games/pico/pico_internal.h"
#include "pico/pico_state.pb.h"

namespace parlor::games::pico {
namespace {

namespace check = engine::snapshot;
using check::Field;
using internal::AddCards;
using internal::WinnerOf;

constexpr uint16_t kAllCards = (1u << kNumCards) - 1;

// A stored card value: one of the 13 Pico cards.
absl::Status CheckCard(const Field& field, int32_t value) {
  return check::Require(CardIndex(value) >= 0, field,
                        absl::StrCat(value, " is not a Pico card (2..13 or 16)"));
}

// The cards of a repeated field as a mask: Pico cards, each at most once.
template <typename Repeated>
absl::Status CardsOf(const Field& field, const Repeated& values, uint16_t* mask) {
  *mask = 0;
  check::IdSet seen("card", 2, 16);
  for (int i = 0; i < values.size(); ++i) {
    PARLOR_RETURN_IF_ERROR(CheckCard(field[i], values[i]));
    PARLOR_RETURN_IF_ERROR(seen.Take(field[i], values[i]));
    *mask |= static_cast<uint16_t>(1u << CardIndex(values[i]));
  }
  return absl::OkStatus();
}

}  // namespace

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
  PARLOR_RETURN_IF_ERROR(check::Unpack(in, &proto));
  const int round = proto.round();
  PARLOR_RETURN_IF_ERROR(check::CheckRange(Field("round"), round, 1, rounds_));
  PARLOR_RETURN_IF_ERROR(CheckCard(Field("face_up_card"), proto.face_up_card()));
  const int face_up = CardIndex(proto.face_up_card());
  PARLOR_RETURN_IF_ERROR(check::CheckSize(Field("players"), proto.players_size(), 2));
  PARLOR_RETURN_IF_ERROR(
      check::CheckMaxSize(Field("tricks"), proto.tricks_size(), round * kMaxTricksPerRound));

  // Each player: the six cards dealt this round, split between the hand and the won pile.
  std::array<uint16_t, 2> dealt{}, hand{}, won{};
  std::array<int8_t, 2> pending = {-1, -1};
  for (int seat = 0; seat < 2; ++seat) {
    const engine::pico::PicoStatePlayer& p = proto.players(seat);
    const Field player = Field("players")[seat];
    PARLOR_RETURN_IF_ERROR(CardsOf(player("dealt"), p.dealt(), &dealt[seat]));
    PARLOR_RETURN_IF_ERROR(check::CheckSize(player("dealt"), p.dealt_size(), kHandSize));
    PARLOR_RETURN_IF_ERROR(CardsOf(player("hand"), p.hand(), &hand[seat]));
    PARLOR_RETURN_IF_ERROR(CardsOf(player("won"), p.won(), &won[seat]));
    PARLOR_RETURN_IF_ERROR(
        check::Require((hand[seat] & won[seat]) == 0 && (hand[seat] | won[seat]) == dealt[seat],
                       player, "hand and won must split the dealt cards"));
    PARLOR_RETURN_IF_ERROR(check::Require(hand[seat] != 0, player("hand"), "empty"));
    PARLOR_RETURN_IF_ERROR(check::CheckSize(player("round_scores"), p.round_scores_size(), round));
    if (p.pending_card() != 0) {
      const int card = CardIndex(p.pending_card());
      PARLOR_RETURN_IF_ERROR(check::Require(card >= 0 && (hand[seat] >> card & 1u) != 0,
                                            player("pending_card"),
                                            absl::StrCat(p.pending_card(), " is not in the hand")));
      pending[seat] = static_cast<int8_t>(card);
    }
  }
  PARLOR_RETURN_IF_ERROR(check::Require(
      (dealt[0] & dealt[1]) == 0 && (dealt[0] | dealt[1] | (1u << face_up)) == kAllCards,
      Field("players"), "the dealt hands and the face-up card must be the 13 cards"));
  PARLOR_RETURN_IF_ERROR(check::Require(pending[0] < 0 || pending[1] < 0,
                                        Field("players")[1]("pending_card"),
                                        "both players have a pending card"));

  // The tricks must account for every round's score and for this round's won piles.
  std::array<Trick, kMaxRounds * kMaxTricksPerRound> tricks{};
  std::array<std::array<int16_t, kMaxRounds>, 2> scores{};
  std::array<uint16_t, 2> won_now{};
  std::array<int, kMaxRounds> tricks_per_round{};
  for (int i = 0; i < proto.tricks_size(); ++i) {
    const engine::pico::PicoStateTrick& t = proto.tricks(i);
    const Field trick = Field("tricks")[i];
    // Oldest first: a trick's round is never before the previous trick's.
    const int first_round = i > 0 ? proto.tricks(i - 1).round() : 1;
    PARLOR_RETURN_IF_ERROR(check::CheckRange(trick("round"), t.round(), first_round, round));
    PARLOR_RETURN_IF_ERROR(check::CheckSize(trick("cards"), t.cards_size(), 2));
    PARLOR_RETURN_IF_ERROR(CheckCard(trick("cards", 0), t.cards(0)));
    PARLOR_RETURN_IF_ERROR(CheckCard(trick("cards", 1), t.cards(1)));
    PARLOR_RETURN_IF_ERROR(
        check::Require(t.cards(0) != t.cards(1), trick("cards"), "the two cards must differ"));
    PARLOR_RETURN_IF_ERROR(check::Require(++tricks_per_round[t.round() - 1] <= kMaxTricksPerRound,
                                          trick,
                                          absl::StrCat("more than 9 tricks in round ", t.round())));
    tricks[i] = {
        static_cast<int8_t>(t.round()),
        {static_cast<int8_t>(CardIndex(t.cards(0))), static_cast<int8_t>(CardIndex(t.cards(1)))}};
    const int winner = WinnerOf(tricks[i].cards);
    const int card = tricks[i].cards[winner];
    scores[winner][t.round() - 1] =
        static_cast<int16_t>(scores[winner][t.round() - 1] + kCardPoints[card]);
    if (t.round() == round) {
      PARLOR_RETURN_IF_ERROR(check::Require((won_now[winner] >> card & 1u) == 0, trick,
                                            "a card won twice in a round"));
      won_now[winner] |= static_cast<uint16_t>(1u << card);
    }
  }
  for (int seat = 0; seat < 2; ++seat) {
    const Field player = Field("players")[seat];
    PARLOR_RETURN_IF_ERROR(check::Require(won_now[seat] == won[seat], player("won"),
                                          "does not match this round's tricks"));
    for (int r = 0; r < round; ++r) {
      const int stored = proto.players(seat).round_scores(r);
      PARLOR_RETURN_IF_ERROR(check::Require(stored == scores[seat][r], player("round_scores", r),
                                            absl::StrCat(stored, " does not match round ", r + 1,
                                                         "'s tricks (", scores[seat][r], ")")));
    }
  }
  // A hand of one card ends the round, which only stays on the table as the last round.
  const bool over = std::popcount(hand[0]) == 1 || std::popcount(hand[1]) == 1;
  PARLOR_RETURN_IF_ERROR(
      check::Require(!over || (round == rounds_ && pending[0] < 0 && pending[1] < 0),
                     Field("players"), "a hand of one card before the last round ended"));

  round_ = round;
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
