// KA'DICE!'s snapshot: the private KadiceState message (kadice_state.proto) written by SaveImpl
// and validated field by field by LoadImpl with the engine's snapshot kit
// (engine/core/snapshot_check.h).
#include <bit>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "engine/core/snapshot_check.h"
#include "engine/games/kadice/kadice.h"
#include "engine/games/kadice/kadice_internal.h"
#include "kadice/kadice_state.pb.h"

namespace parlor::games::kadice {
namespace {

namespace check = engine::snapshot;
using check::Field;
using internal::kAllDice;
using ::parlor::engine::kadice::KadiceState_Event;
using ::parlor::engine::kadice::KadiceState_Player;
using StateProto = ::parlor::engine::kadice::KadiceState;

// More than any game can record (a ghost moment per ghost roll); a bound for damaged snapshots.
constexpr int kMaxGhostMoments = 10000;
constexpr int kMaxEvents = 64;
// A roll-off throws at most 1 + 2 + 3 + 4 + 5 * 46 dice per participant.
constexpr int kMaxEventDice = kMaxPlayers * 240;

}  // namespace

void KadiceState::SaveImpl(google::protobuf::Any* out) const {
  StateProto proto;
  proto.set_round(round_);
  proto.set_dealer(dealer_);
  proto.set_phase(static_cast<int>(phase_));
  proto.set_current(current_);
  proto.set_last_player(last_player_);
  proto.set_rolled_mask(rolled_mask_);
  proto.set_set_mask(set_mask_);
  proto.set_five_of_a_kind(five_of_a_kind_);
  proto.set_turn_shift_used(turn_shift_used_);
  proto.set_bonus_pending(bonus_pending_);
  proto.set_end_reason(static_cast<int>(end_reason_));
  proto.set_ghost_moments(ghost_moments_);
  for (int s = 0; s < num_players(); ++s) {
    const Player& p = players_[s];
    KadiceState_Player* out_player = proto.add_players();
    for (int i = p.deck_top; i < kNumCards; ++i) out_player->add_deck(p.deck[i]);
    out_player->set_active(p.active);
    for (int i = 0; i < p.discard_size; ++i) out_player->add_discard(p.discard[i]);
    for (int8_t d : p.dice) out_player->add_dice(d);
    out_player->set_held(p.held);
    out_player->set_ghost(p.ghost);
    out_player->set_ghost_round(p.ghost_round);
    out_player->set_ghost_moment(p.ghost_moment);
    out_player->set_turns_taken(p.turns_taken);
    out_player->set_finished(p.finished);
    out_player->set_immune(p.immune);
    out_player->set_round_shift_used(p.round_shift_used);
  }
  for (const Event& e : events_) {
    KadiceState_Event* out_event = proto.add_events();
    out_event->set_kind(e.kind);
    out_event->set_seat(e.seat);
    out_event->set_card(e.card);
    out_event->set_flag(e.flag);
    out_event->set_participants(e.participants);
    out_event->set_round(e.round);
    for (int8_t d : e.dice) out_event->add_dice(d);
  }
  out->PackFrom(proto);
}

absl::Status KadiceState::LoadImpl(const google::protobuf::Any& in) {
  StateProto proto;
  PARLOR_RETURN_IF_ERROR(check::Unpack(in, &proto));
  const int n = num_players();
  PARLOR_RETURN_IF_ERROR(check::CheckSize(Field("players"), proto.players_size(), n));
  PARLOR_RETURN_IF_ERROR(check::CheckRange(Field("round"), proto.round(), 1, max_rounds_));
  PARLOR_RETURN_IF_ERROR(check::CheckSeat(Field("dealer"), proto.dealer(), n));
  PARLOR_RETURN_IF_ERROR(check::CheckEnum(Field("phase"), proto.phase(), 0, 2));
  PARLOR_RETURN_IF_ERROR(check::CheckSeatOrNone(Field("last_player"), proto.last_player(), n));
  PARLOR_RETURN_IF_ERROR(check::CheckBits(Field("rolled_mask"), proto.rolled_mask(), kAllDice));
  PARLOR_RETURN_IF_ERROR(check::CheckBits(Field("set_mask"), proto.set_mask(), kAllDice));
  PARLOR_RETURN_IF_ERROR(check::CheckEnum(Field("end_reason"), proto.end_reason(), 0, 2));
  PARLOR_RETURN_IF_ERROR(check::Require((proto.end_reason() != 0) == (proto.phase() == 2),
                                        Field("end_reason"),
                                        "must be set exactly when the game is over"));
  PARLOR_RETURN_IF_ERROR(
      check::CheckRange(Field("ghost_moments"), proto.ghost_moments(), 0, kMaxGhostMoments));

  std::array<Player, kMaxPlayers> players{};
  for (int s = 0; s < n; ++s) {
    const KadiceState_Player& in_player = proto.players(s);
    Player& p = players[s];
    const Field where = Field("players")[s];
    // The player's 17 cards, each once: the deck, the active card and the discard pile.
    check::IdSet cards("card", 0, kNumCards - 1);
    PARLOR_RETURN_IF_ERROR(check::CheckMaxSize(where("deck"), in_player.deck_size(), kNumCards));
    p.deck_top = static_cast<int8_t>(kNumCards - in_player.deck_size());
    for (int i = 0; i < in_player.deck_size(); ++i) {
      PARLOR_RETURN_IF_ERROR(cards.Take(where("deck", i), in_player.deck(i)));
      p.deck[p.deck_top + i] = static_cast<int8_t>(in_player.deck(i));
    }
    if (in_player.active() != -1) {
      PARLOR_RETURN_IF_ERROR(cards.Take(where("active"), in_player.active()));
    }
    p.active = static_cast<int8_t>(in_player.active());
    PARLOR_RETURN_IF_ERROR(
        check::CheckMaxSize(where("discard"), in_player.discard_size(), kNumCards));
    for (int i = 0; i < in_player.discard_size(); ++i) {
      PARLOR_RETURN_IF_ERROR(cards.Take(where("discard", i), in_player.discard(i)));
      p.discard[i] = static_cast<int8_t>(in_player.discard(i));
    }
    p.discard_size = static_cast<int8_t>(in_player.discard_size());
    PARLOR_RETURN_IF_ERROR(cards.CheckAllTaken(where));
    // Dice: 0 is a die not rolled yet.
    PARLOR_RETURN_IF_ERROR(check::CheckSize(where("dice"), in_player.dice_size(), kNumDice));
    for (int d = 0; d < kNumDice; ++d) {
      PARLOR_RETURN_IF_ERROR(check::CheckRange(where("dice", d), in_player.dice(d), 0, 6));
      p.dice[d] = static_cast<int8_t>(in_player.dice(d));
    }
    PARLOR_RETURN_IF_ERROR(check::CheckBits(where("held"), in_player.held(), kAllDice));
    PARLOR_RETURN_IF_ERROR(check::Require(std::popcount(in_player.held()) <= kMaxHeld,
                                          where("held"), "at most 4 dice are held"));
    p.held = static_cast<uint8_t>(in_player.held());
    for (int d = 0; d < kNumDice; ++d) {
      PARLOR_RETURN_IF_ERROR(check::Require(!(p.held >> d & 1u) || p.dice[d] != 0, where("held"),
                                            absl::StrCat("die ", d, " is held without a value")));
    }
    p.ghost = in_player.ghost();
    PARLOR_RETURN_IF_ERROR(
        check::CheckRange(where("ghost_round"), in_player.ghost_round(), 0, proto.round()));
    p.ghost_round = static_cast<int16_t>(in_player.ghost_round());
    PARLOR_RETURN_IF_ERROR(check::CheckRange(where("ghost_moment"), in_player.ghost_moment(), 0,
                                             proto.ghost_moments()));
    p.ghost_moment = static_cast<int16_t>(in_player.ghost_moment());
    PARLOR_RETURN_IF_ERROR(
        check::CheckRange(where("turns_taken"), in_player.turns_taken(), 0, kMaxTurnsPerRound));
    p.turns_taken = static_cast<int8_t>(in_player.turns_taken());
    p.finished = in_player.finished();
    p.immune = in_player.immune();
    p.round_shift_used = in_player.round_shift_used();
    PARLOR_RETURN_IF_ERROR(check::Require(p.ghost == (p.active < 0 && p.deck_size() == 0),
                                          where("ghost"),
                                          "a ghost is exactly a player with no card left"));
    PARLOR_RETURN_IF_ERROR(
        check::Require(!p.ghost || p.held == 0, where("held"), "a ghost holds no dice"));
    PARLOR_RETURN_IF_ERROR(check::Require(!p.ghost || p.ghost_moment != 0, where("ghost_moment"),
                                          "missing for a ghost"));
    PARLOR_RETURN_IF_ERROR(check::Require(!p.immune || p.active == kTwoPairs, where("immune"),
                                          "only an active 2 PAIRS can be immune"));
  }

  const Phase phase = static_cast<Phase>(proto.phase());
  const bool marks = proto.rolled_mask() != 0 || proto.set_mask() != 0 || proto.five_of_a_kind() ||
                     proto.turn_shift_used() || proto.bonus_pending();
  if (phase != Phase::kGameOver) {
    int non_ghosts = 0;
    for (int s = 0; s < n; ++s) non_ghosts += players[s].ghost ? 0 : 1;
    PARLOR_RETURN_IF_ERROR(check::Require(non_ghosts >= 2, Field("players"),
                                          "a running game has at least two players with cards"));
    check::IdSet active_cards("card", -1, kNumCards - 1);
    for (int s = 0; s < n; ++s) {
      if (players[s].active < 0) continue;
      PARLOR_RETURN_IF_ERROR(active_cards.Take(Field("players")[s]("active"), players[s].active));
    }
    const int current = proto.current();
    PARLOR_RETURN_IF_ERROR(check::CheckSeat(Field("current"), current, n));
    const Player& c = players[current];
    PARLOR_RETURN_IF_ERROR(check::Require(!c.ghost && c.active >= 0 && !c.finished,
                                          Field("current"), "this player may not play now"));
    if (phase == Phase::kAwaitRoll) {
      PARLOR_RETURN_IF_ERROR(
          check::Require(c.turns_taken < kMaxTurnsPerRound, Field("current"), "has no turn left"));
      PARLOR_RETURN_IF_ERROR(
          check::Require(!marks, Field(), "the turn marks must be clear before the roll"));
    } else {
      PARLOR_RETURN_IF_ERROR(
          check::Require(c.turns_taken != 0, Field("current"), "has not rolled"));
      PARLOR_RETURN_IF_ERROR(
          check::Require((proto.set_mask() & ~proto.rolled_mask()) == 0 || proto.five_of_a_kind(),
                         Field("set_mask"), "only rolled dice can be set"));
      for (int d = 0; d < kNumDice; ++d) {
        PARLOR_RETURN_IF_ERROR(check::Require(c.dice[d] != 0, Field("players")[current]("dice", d),
                                              "the current player's dice must have values"));
      }
      PARLOR_RETURN_IF_ERROR(
          check::Require(proto.rolled_mask() != 0, Field("rolled_mask"), "nothing rolled"));
    }
    PARLOR_RETURN_IF_ERROR(
        check::Require(!proto.bonus_pending() || (c.active == kSmallStraight && c.turns_taken == 1),
                       Field("bonus_pending"), "only on SMALL STRAIGHT's first turn"));
    PARLOR_RETURN_IF_ERROR(check::Require(!proto.turn_shift_used() || c.active == kThreeOfAKind,
                                          Field("turn_shift_used"),
                                          "only 3 OF A KIND shifts once per turn"));
  } else {
    PARLOR_RETURN_IF_ERROR(check::Require(!marks && proto.current() == -1, Field(),
                                          "a finished game has no turn in progress"));
  }

  PARLOR_RETURN_IF_ERROR(check::CheckMaxSize(Field("events"), proto.events_size(), kMaxEvents));
  std::vector<Event> events;
  for (int i = 0; i < proto.events_size(); ++i) {
    const KadiceState_Event& in_event = proto.events(i);
    const Field where = Field("events")[i];
    Event e;
    PARLOR_RETURN_IF_ERROR(check::CheckEnum(where("kind"), in_event.kind(), 1, 3));
    e.kind = static_cast<Event::Kind>(in_event.kind());
    PARLOR_RETURN_IF_ERROR(check::CheckSeat(where("seat"), in_event.seat(), n));
    e.seat = static_cast<int8_t>(in_event.seat());
    PARLOR_RETURN_IF_ERROR(
        check::CheckRange(where("card"), in_event.card(), -1, kNumCards - 1, "card or -1"));
    e.card = static_cast<int8_t>(in_event.card());
    e.flag = in_event.flag();
    PARLOR_RETURN_IF_ERROR(
        check::CheckBits(where("participants"), in_event.participants(), (1u << n) - 1));
    e.participants = static_cast<uint8_t>(in_event.participants());
    PARLOR_RETURN_IF_ERROR(check::CheckRange(where("round"), in_event.round(), 0, max_rounds_));
    e.round = static_cast<int16_t>(in_event.round());
    PARLOR_RETURN_IF_ERROR(check::CheckMaxSize(where("dice"), in_event.dice_size(), kMaxEventDice));
    for (int d = 0; d < in_event.dice_size(); ++d) {
      PARLOR_RETURN_IF_ERROR(check::CheckRange(where("dice", d), in_event.dice(d), 1, 6, "face"));
      e.dice.push_back(static_cast<int8_t>(in_event.dice(d)));
    }
    PARLOR_RETURN_IF_ERROR(check::Require(e.kind != Event::kGhostRoll || e.dice.size() == kNumDice,
                                          where("dice"), "a ghost roll has five dice"));
    events.push_back(std::move(e));
  }

  players_ = players;
  round_ = static_cast<int16_t>(proto.round());
  dealer_ = static_cast<int8_t>(proto.dealer());
  phase_ = phase;
  current_ = static_cast<int8_t>(proto.current());
  last_player_ = static_cast<int8_t>(proto.last_player());
  rolled_mask_ = static_cast<uint8_t>(proto.rolled_mask());
  set_mask_ = static_cast<uint8_t>(proto.set_mask());
  five_of_a_kind_ = proto.five_of_a_kind();
  turn_shift_used_ = proto.turn_shift_used();
  bonus_pending_ = proto.bonus_pending();
  end_reason_ = static_cast<EndReason>(proto.end_reason());
  ghost_moments_ = static_cast<int16_t>(proto.ghost_moments());
  events_ = std::move(events);
  return absl::OkStatus();
}

}  // namespace parlor::games::kadice
