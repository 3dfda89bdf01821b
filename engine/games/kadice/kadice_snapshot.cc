// KA'DICE!'s snapshot: the private KadiceState message (kadice_state.proto) written by SaveImpl
// and validated field by field by LoadImpl with the engine's snapshot kit
// (engine/core/snapshot_check.h).
#include <algorithm>
#include <array>
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
  PARLOR_RETURN_IF_ERROR(check::FirstError({
      check::CheckSize(Field("players"), proto.players_size(), n),
      check::CheckRange(Field("round"), proto.round(), 1, max_rounds_),
      check::CheckSeat(Field("dealer"), proto.dealer(), n),
      check::CheckEnum(Field("phase"), proto.phase(), 0, 2),
      check::CheckSeatOrNone(Field("last_player"), proto.last_player(), n),
      check::CheckBits(Field("rolled_mask"), proto.rolled_mask(), kAllDice),
      check::CheckBits(Field("set_mask"), proto.set_mask(), kAllDice),
      check::CheckEnum(Field("end_reason"), proto.end_reason(), 0, 2),
      check::Require((proto.end_reason() != 0) == (proto.phase() == 2), Field("end_reason"),
                     "must be set exactly when the game is over"),
      check::CheckRange(Field("ghost_moments"), proto.ghost_moments(), 0, kMaxGhostMoments),
  }));

  std::array<Player, kMaxPlayers> players{};
  for (int s = 0; s < n; ++s) {
    const KadiceState_Player& in = proto.players(s);
    const Field where = Field("players")[s];
    // The player's 17 cards, each once: the deck, the active card and the discard pile; five dice
    // (0: not rolled yet).
    check::IdSet cards("card", 0, kNumCards - 1);
    PARLOR_RETURN_IF_ERROR(check::FirstError({
        check::CheckMaxSize(where("deck"), in.deck_size(), kNumCards),
        check::CheckMaxSize(where("discard"), in.discard_size(), kNumCards),
        cards.TakeEach(where("deck"), in.deck()),
        in.active() == -1 ? absl::OkStatus() : cards.Take(where("active"), in.active()),
        cards.TakeEach(where("discard"), in.discard()),
        cards.CheckAllTaken(where),
        check::CheckSize(where("dice"), in.dice_size(), kNumDice),
        check::CheckEachInRange(where("dice"), in.dice(), 0, 6, "die value"),
        check::CheckBits(where("held"), in.held(), kAllDice),
        check::Require(std::popcount(in.held()) <= kMaxHeld, where("held"),
                       "at most 4 dice are held"),
        check::CheckRange(where("ghost_round"), in.ghost_round(), 0, proto.round()),
        check::CheckRange(where("ghost_moment"), in.ghost_moment(), 0, proto.ghost_moments()),
        check::CheckRange(where("turns_taken"), in.turns_taken(), 0, kMaxTurnsPerRound),
    }));
    Player& p = players[s];
    p.deck_top = static_cast<int8_t>(kNumCards - in.deck_size());
    std::copy(in.deck().begin(), in.deck().end(), p.deck.begin() + p.deck_top);
    p.active = static_cast<int8_t>(in.active());
    std::copy(in.discard().begin(), in.discard().end(), p.discard.begin());
    p.discard_size = static_cast<int8_t>(in.discard_size());
    std::copy(in.dice().begin(), in.dice().end(), p.dice.begin());
    p.held = static_cast<uint8_t>(in.held());
    p.ghost = in.ghost();
    p.ghost_round = static_cast<int16_t>(in.ghost_round());
    p.ghost_moment = static_cast<int16_t>(in.ghost_moment());
    p.turns_taken = static_cast<int8_t>(in.turns_taken());
    p.finished = in.finished();
    p.immune = in.immune();
    p.round_shift_used = in.round_shift_used();
    for (int d = 0; d < kNumDice; ++d) {
      PARLOR_RETURN_IF_ERROR(check::Require(!(p.held >> d & 1u) || p.dice[d] != 0, where("held"),
                                            absl::StrCat("die ", d, " is held without a value")));
    }
    PARLOR_RETURN_IF_ERROR(check::FirstError({
        check::Require(p.ghost == (p.active < 0 && p.deck_size() == 0), where("ghost"),
                       "a ghost is exactly a player with no card left"),
        check::Require(!p.ghost || p.held == 0, where("held"), "a ghost holds no dice"),
        check::Require(!p.ghost || p.ghost_moment != 0, where("ghost_moment"),
                       "missing for a ghost"),
        check::Require(!p.immune || p.active == kTwoPairs, where("immune"),
                       "only an active 2 PAIRS can be immune"),
    }));
  }

  const Phase phase = static_cast<Phase>(proto.phase());
  const bool marks = proto.rolled_mask() != 0 || proto.set_mask() != 0 || proto.five_of_a_kind() ||
                     proto.turn_shift_used() || proto.bonus_pending();
  if (phase != Phase::kGameOver) {
    int non_ghosts = 0;
    check::IdSet active_cards("card", 0, kNumCards - 1);
    for (int s = 0; s < n; ++s) {
      non_ghosts += players[s].ghost ? 0 : 1;
      if (players[s].active < 0) continue;
      PARLOR_RETURN_IF_ERROR(active_cards.Take(Field("players")[s]("active"), players[s].active));
    }
    PARLOR_RETURN_IF_ERROR(check::Require(non_ghosts >= 2, Field("players"),
                                          "a running game has at least two players with cards"));
    const int current = proto.current();
    PARLOR_RETURN_IF_ERROR(check::CheckSeat(Field("current"), current, n));
    const Player& c = players[current];
    const bool rolling = phase == Phase::kAwaitRoll;
    PARLOR_RETURN_IF_ERROR(check::FirstError({
        check::Require(!c.ghost && c.active >= 0 && !c.finished, Field("current"),
                       "this player may not play now"),
        check::Require(!rolling || c.turns_taken < kMaxTurnsPerRound, Field("current"),
                       "has no turn left"),
        check::Require(!rolling || !marks, Field(), "the turn marks must be clear before the roll"),
        check::Require(rolling || c.turns_taken != 0, Field("current"), "has not rolled"),
        check::Require(
            rolling || (proto.set_mask() & ~proto.rolled_mask()) == 0 || proto.five_of_a_kind(),
            Field("set_mask"), "only rolled dice can be set"),
        check::Require(rolling || std::find(c.dice.begin(), c.dice.end(), 0) == c.dice.end(),
                       Field("players")[current]("dice"),
                       "the current player's dice must have values"),
        check::Require(rolling || proto.rolled_mask() != 0, Field("rolled_mask"), "nothing rolled"),
        check::Require(!proto.bonus_pending() || (c.active == kSmallStraight && c.turns_taken == 1),
                       Field("bonus_pending"), "only on SMALL STRAIGHT's first turn"),
        check::Require(!proto.turn_shift_used() || c.active == kThreeOfAKind,
                       Field("turn_shift_used"), "only 3 OF A KIND shifts once per turn"),
    }));
  } else {
    PARLOR_RETURN_IF_ERROR(check::Require(!marks && proto.current() == -1, Field(),
                                          "a finished game has no turn in progress"));
  }

  PARLOR_RETURN_IF_ERROR(check::CheckMaxSize(Field("events"), proto.events_size(), kMaxEvents));
  std::vector<Event> events;
  for (int i = 0; i < proto.events_size(); ++i) {
    const KadiceState_Event& in = proto.events(i);
    const Field where = Field("events")[i];
    PARLOR_RETURN_IF_ERROR(check::FirstError({
        check::CheckEnum(where("kind"), in.kind(), 1, 3),
        check::CheckSeat(where("seat"), in.seat(), n),
        check::CheckRange(where("card"), in.card(), -1, kNumCards - 1, "card or -1"),
        check::CheckBits(where("participants"), in.participants(), (1u << n) - 1),
        check::CheckRange(where("round"), in.round(), 0, max_rounds_),
        check::CheckMaxSize(where("dice"), in.dice_size(), kMaxEventDice),
        check::CheckEachInRange(where("dice"), in.dice(), 1, 6, "face"),
        check::Require(in.kind() != Event::kGhostRoll || in.dice_size() == kNumDice, where("dice"),
                       "a ghost roll has five dice"),
        // Fewer could never be decided: the view would rebuild its rounds without end.
        check::Require(in.kind() != Event::kRollOff || std::popcount(in.participants()) >= 2,
                       where("participants"), "a roll-off is between two seats or more"),
    }));
    Event e;
    e.kind = static_cast<Event::Kind>(in.kind());
    e.seat = static_cast<int8_t>(in.seat());
    e.card = static_cast<int8_t>(in.card());
    e.flag = in.flag();
    e.participants = static_cast<uint8_t>(in.participants());
    e.round = static_cast<int16_t>(in.round());
    e.dice.assign(in.dice().begin(), in.dice().end());
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
