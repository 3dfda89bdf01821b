// KA'DICE!'s action codes and their texts, the mapping between codes and the public KadiceAction
// message, the views (what each viewer may see: the order of every deck is hidden) and the hidden
// information a bot must not peek at.
#include <algorithm>
#include <bit>
#include <span>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/games/kadice/kadice.h"
#include "engine/games/kadice/kadice_internal.h"
#include "parlor/games/v1/kadice.pb.h"

namespace parlor::games::kadice {
namespace {

using engine::Action;
using internal::DiceList;
using internal::kEliminateBase;
using internal::kHoldBase;
using internal::kRollBase;
using internal::kSetDieBase;
using internal::kShiftDieBase;
using internal::SeatListWords;
using internal::SeatName;

// The subsets of {0..n-1} sorted by size, then lexicographically by their sorted elements.
template <int kBits>
struct SubsetOrder {
  std::array<uint8_t, 1 << kBits> rank_of{};
  std::array<uint8_t, 1 << kBits> mask_at{};

  static constexpr bool Before(uint32_t a, uint32_t b) {
    const int size_a = std::popcount(a), size_b = std::popcount(b);
    if (size_a != size_b) return size_a < size_b;
    // Same size: compare sorted element lists lexicographically.
    while (a != 0 && b != 0) {
      const int low_a = std::countr_zero(a), low_b = std::countr_zero(b);
      if (low_a != low_b) return low_a < low_b;
      a &= a - 1;
      b &= b - 1;
    }
    return false;
  }

  constexpr SubsetOrder() {
    constexpr int n = 1 << kBits;
    for (int i = 0; i < n; ++i) mask_at[i] = static_cast<uint8_t>(i);
    // Insertion sort: small and constexpr-friendly.
    for (int i = 1; i < n; ++i) {
      for (int j = i; j > 0 && Before(mask_at[j], mask_at[j - 1]); --j) {
        const uint8_t t = mask_at[j];
        mask_at[j] = mask_at[j - 1];
        mask_at[j - 1] = t;
      }
    }
    for (int i = 0; i < n; ++i) rank_of[mask_at[i]] = static_cast<uint8_t>(i);
  }
};

constexpr SubsetOrder<5> kDiceSubsets;
constexpr SubsetOrder<4> kSeatSubsets;

v1::KadiceCard CardProto(int card) {
  return card < 0 ? v1::KADICE_CARD_UNSPECIFIED : static_cast<v1::KadiceCard>(card + 1);
}

}  // namespace

// ---- Action codes ----------------------------------------------------------------------------

int SubsetRank5(uint32_t mask) { return kDiceSubsets.rank_of[mask & 31]; }
uint32_t SubsetFromRank5(int rank) { return kDiceSubsets.mask_at[rank & 31]; }
int SubsetRank4(uint32_t mask) { return kSeatSubsets.rank_of[mask & 15]; }
uint32_t SubsetFromRank4(int rank) { return kSeatSubsets.mask_at[rank & 15]; }

Action RollAction(uint32_t release_mask) { return kRollBase + SubsetRank5(release_mask); }
Action SetDieAction(int die, int value) { return kSetDieBase + 10 * die + value; }
Action ShiftDieAction(int die, ShiftDirection direction) {
  return kShiftDieBase + 10 * die + direction;
}
Action EliminateAction(uint32_t target_mask) { return kEliminateBase + SubsetRank4(target_mask); }
Action HoldAction(uint32_t dice_mask) { return kHoldBase + SubsetRank5(dice_mask); }

absl::StatusOr<DecodedAction> DecodeAction(Action action) {
  auto bad = [action]() {
    return absl::InvalidArgumentError(
        absl::StrCat("action code ", action, " is no KA'DICE action"));
  };
  if (action < kRollBase || action >= kHoldBase + 32) return bad();
  const int kind = static_cast<int>(action / 100);
  const int payload = static_cast<int>(action % 100);
  DecodedAction decoded;
  switch (kind) {
    case 1:
      if (payload >= 32) return bad();
      decoded.kind = kRoll;
      decoded.mask = SubsetFromRank5(payload);
      return decoded;
    case 2:
      if (payload / 10 >= kNumDice || payload % 10 < 1 || payload % 10 > 6) return bad();
      decoded.kind = kSetDie;
      decoded.die = payload / 10;
      decoded.value = payload % 10;
      return decoded;
    case 3:
      if (payload / 10 >= kNumDice || payload % 10 > 1) return bad();
      decoded.kind = kShiftDie;
      decoded.die = payload / 10;
      decoded.value = payload % 10;
      return decoded;
    case 4:
      if (payload >= 16) return bad();
      decoded.kind = kEliminate;
      decoded.mask = SubsetFromRank4(payload);
      return decoded;
    default:
      decoded.kind = kHold;
      decoded.mask = SubsetFromRank5(payload);
      return decoded;
  }
}

const google::protobuf::Descriptor* KadiceGame::ActionDescriptor() const {
  return v1::KadiceAction::descriptor();
}

const google::protobuf::Descriptor* KadiceGame::ViewDescriptor() const {
  return v1::KadiceView::descriptor();
}

namespace {

// A list of distinct indices in [0, limit) as a bit mask; INVALID_ARGUMENT naming `field`.
absl::StatusOr<uint32_t> IndexList(const google::protobuf::RepeatedField<int32_t>& items, int limit,
                                   absl::string_view field, absl::string_view what) {
  uint32_t mask = 0;
  for (int32_t item : items) {
    if (item < 0 || item >= limit) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ": ", what, " ", item, " is outside 0-", limit - 1));
    }
    if (mask >> item & 1u) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ": ", what, " ", item, " is listed twice"));
    }
    mask |= 1u << item;
  }
  return mask;
}

absl::Status CheckDieIndex(int die, absl::string_view field) {
  if (die < 0 || die >= kNumDice) {
    return absl::InvalidArgumentError(absl::StrCat(field, ": die ", die, " is outside 0-4"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Action> KadiceGame::ActionFromProto(const google::protobuf::Message& message) const {
  if (message.GetDescriptor() != v1::KadiceAction::descriptor()) {
    return absl::InvalidArgumentError(
        absl::StrCat("action: expected parlor.games.v1.KadiceAction; got ",
                     message.GetDescriptor()->full_name()));
  }
  const auto& action = static_cast<const v1::KadiceAction&>(message);
  switch (action.action_case()) {
    case v1::KadiceAction::kRoll: {
      absl::StatusOr<uint32_t> mask =
          IndexList(action.roll().release(), kNumDice, "roll.release", "die");
      if (!mask.ok()) return mask.status();
      return RollAction(*mask);
    }
    case v1::KadiceAction::kSetDie: {
      const v1::KadiceSetDie& set = action.set_die();
      if (absl::Status s = CheckDieIndex(set.die(), "set_die.die"); !s.ok()) return s;
      if (set.value() < 1 || set.value() > 6) {
        return absl::InvalidArgumentError(
            absl::StrCat("set_die.value: ", set.value(), " is outside 1-6"));
      }
      return SetDieAction(set.die(), set.value());
    }
    case v1::KadiceAction::kShiftDie: {
      const v1::KadiceShiftDie& shift = action.shift_die();
      if (absl::Status s = CheckDieIndex(shift.die(), "shift_die.die"); !s.ok()) return s;
      if (shift.direction() == v1::KADICE_SHIFT_DIRECTION_UP)
        return ShiftDieAction(shift.die(), kUp);
      if (shift.direction() == v1::KADICE_SHIFT_DIRECTION_DOWN) {
        return ShiftDieAction(shift.die(), kDown);
      }
      return absl::InvalidArgumentError("shift_die.direction: must be UP or DOWN");
    }
    case v1::KadiceAction::kEliminate: {
      absl::StatusOr<uint32_t> mask =
          IndexList(action.eliminate().targets(), kMaxPlayers, "eliminate.targets", "seat");
      if (!mask.ok()) return mask.status();
      if (*mask == 0) {
        return absl::InvalidArgumentError("eliminate.targets: name at least one card to eliminate");
      }
      return EliminateAction(*mask);
    }
    case v1::KadiceAction::kHold: {
      absl::StatusOr<uint32_t> mask = IndexList(action.hold().dice(), kNumDice, "hold.dice", "die");
      if (!mask.ok()) return mask.status();
      return HoldAction(*mask);
    }
    default:
      return absl::InvalidArgumentError(
          "action: set one of roll, set_die, shift_die, eliminate, hold");
  }
}

std::unique_ptr<google::protobuf::Message> KadiceGame::ActionToProto(Action code) const {
  auto proto = std::make_unique<v1::KadiceAction>();
  absl::StatusOr<DecodedAction> action = DecodeAction(code);
  if (!action.ok()) return proto;
  auto add_all = [](uint32_t mask, google::protobuf::RepeatedField<int32_t>* out) {
    for (uint32_t m = mask; m != 0; m &= m - 1) out->Add(std::countr_zero(m));
  };
  switch (action->kind) {
    case kRoll:
      add_all(action->mask, proto->mutable_roll()->mutable_release());
      break;
    case kSetDie:
      proto->mutable_set_die()->set_die(action->die);
      proto->mutable_set_die()->set_value(action->value);
      break;
    case kShiftDie:
      proto->mutable_shift_die()->set_die(action->die);
      proto->mutable_shift_die()->set_direction(
          action->value == kUp ? v1::KADICE_SHIFT_DIRECTION_UP : v1::KADICE_SHIFT_DIRECTION_DOWN);
      break;
    case kEliminate:
      add_all(action->mask, proto->mutable_eliminate()->mutable_targets());
      break;
    case kHold:
      add_all(action->mask, proto->mutable_hold()->mutable_dice());
      break;
  }
  return proto;
}

std::string KadiceState::ActionToStringImpl(int, Action code) const {
  absl::StatusOr<DecodedAction> action = DecodeAction(code);
  if (!action.ok()) return absl::StrCat("invalid action ", code);
  switch (action->kind) {
    case kRoll:
      return action->mask == 0 ? "roll" : absl::StrCat("roll, releasing ", DiceList(action->mask));
    case kSetDie:
      return absl::StrCat("set die ", action->die, " to ", action->value);
    case kShiftDie:
      return absl::StrCat("shift die ", action->die, action->value == kUp ? " up" : " down");
    case kEliminate:
      return absl::StrCat("eliminate the card of ", SeatListWords(action->mask));
    case kHold:
      return action->mask == 0 ? "hold no dice" : absl::StrCat("hold ", DiceList(action->mask));
  }
  return "";
}

std::unique_ptr<google::protobuf::Message> KadiceState::ViewImpl(
    const engine::Viewer& viewer) const {
  auto view = std::make_unique<v1::KadiceView>();
  const bool all = viewer.kind == engine::Viewer::Kind::kAll;
  view->set_viewer_seat(viewer.kind == engine::Viewer::Kind::kSeat ? viewer.seat : -1);
  view->set_reveal_all(all);
  // Over by the rules or by a forfeit: every viewer sees the outcome's ranks and reason.
  const engine::State::Ending ending = GetEnding();
  const bool over = ending.over;
  view->set_phase(over                          ? v1::KADICE_PHASE_GAME_OVER
                  : phase_ == Phase::kAwaitRoll ? v1::KADICE_PHASE_AWAIT_ROLL
                                                : v1::KADICE_PHASE_DECIDE);
  view->set_round(round_);
  view->set_max_rounds(max_rounds_);
  view->set_dealer(dealer_);
  view->set_current_seat(over ? -1 : current_);
  const std::vector<int>& ranks = ending.ranks;
  view->set_end_reason(ending.reason);
  view->set_game_over(over);
  for (int rank : ranks) view->add_ranks(rank);
  for (int seat : ending.forfeited_seats) view->add_forfeited_seats(seat);
  for (int s = 0; s < num_players(); ++s) {
    const Player& p = players_[s];
    v1::KadicePlayer* out = view->add_players();
    out->set_seat(s);
    out->set_active_card(CardProto(p.active));
    out->set_deck_size(p.deck_size());
    out->set_cards_left(p.cards_left());
    for (int i = 0; i < p.discard_size; ++i) out->add_discard(CardProto(p.discard[i]));
    for (int8_t d : p.dice) out->add_dice(d);
    for (int d = 0; d < kNumDice; ++d) {
      if (p.held >> d & 1u) out->add_held_dice(d);
    }
    out->set_ghost(p.ghost);
    out->set_ghost_round(p.ghost_round);
    out->set_turns_taken(p.turns_taken);
    out->set_finished(p.finished);
    out->set_immune(p.immune);
    out->set_round_shift_used(p.round_shift_used);
    out->set_eligible(!over && Eligible(s));
    out->set_forfeited(IsForfeited(s));
    // The deck order is hidden from everyone, its owner included (rules 4).
    if (all) {
      for (int i = p.deck_top; i < kNumCards; ++i) out->add_deck_order(CardProto(p.deck[i]));
    }
    if (!ranks.empty()) out->set_rank(ranks[s]);
  }
  if (!over) {
    v1::KadiceTurn* turn = view->mutable_turn();
    turn->set_seat(current_);
    for (int d = 0; d < kNumDice; ++d) {
      if (rolled_mask_ >> d & 1u) turn->add_rolled_dice(d);
      if (set_mask_ >> d & 1u) turn->add_set_dice(d);
    }
    turn->set_five_of_a_kind(five_of_a_kind_);
    turn->set_turn_shift_used(turn_shift_used_);
    turn->set_bonus_roll_next(bonus_pending_);
  }
  for (const Event& e : events_) {
    v1::KadiceEvent* out = view->add_events();
    switch (e.kind) {
      case Event::kRollOff: {
        v1::KadiceRollOff* roll_off = out->mutable_roll_off();
        roll_off->set_card(CardProto(e.card));
        for (uint32_t m = e.participants; m != 0; m &= m - 1) {
          roll_off->add_participants(std::countr_zero(m));
        }
        // Rebuild the rolls from the dice in throw order: the tied seats throw one more die.
        uint32_t tied = e.participants;
        int dice_each = 1;
        size_t next = 0;
        while (next < e.dice.size() && tied != 0) {
          v1::KadiceRollOffRound* roll = roll_off->add_rounds();
          int best = -1;
          uint32_t best_seats = 0;
          for (uint32_t m = tied; m != 0; m &= m - 1) {
            v1::KadiceRollOffThrow* thrown = roll->add_throws();
            const int s = std::countr_zero(m);
            thrown->set_seat(s);
            int total = 0;
            for (int d = 0; d < dice_each && next < e.dice.size(); ++d) {
              thrown->add_dice(e.dice[next]);
              total += e.dice[next++];
            }
            thrown->set_total(total);
            if (total > best) {
              best = total;
              best_seats = 1u << s;
            } else if (total == best) {
              best_seats |= 1u << s;
            }
          }
          tied = best_seats;
          dice_each = std::min(dice_each + 1, kNumDice);
        }
        roll_off->set_winner(e.seat);
        roll_off->set_decided_by_lot(e.flag);
        break;
      }
      case Event::kGhostRoll: {
        v1::KadiceGhostRoll* ghost = out->mutable_ghost_roll();
        ghost->set_seat(e.seat);
        for (int8_t d : e.dice) ghost->add_dice(d);
        ghost->set_matched(e.flag);
        ghost->set_revived_card(CardProto(e.card));
        break;
      }
      case Event::kRoundStart:
        out->mutable_round_start()->set_round(e.round);
        out->mutable_round_start()->set_dealer(e.seat);
        break;
    }
  }
  return view;
}

void KadiceState::ResampleHiddenImpl(int, engine::Rng& rng) {
  // Nobody sees any deck's order: every player's remaining deck is reshuffled.
  for (int s = 0; s < num_players(); ++s) {
    Player& p = players_[s];
    rng.Shuffle(std::span<int8_t>(p.deck.data() + p.deck_top, p.deck.data() + kNumCards));
  }
}

}  // namespace parlor::games::kadice
