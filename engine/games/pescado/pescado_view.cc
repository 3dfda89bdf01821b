// Pescado's action codes and their texts, the mapping between codes and the public PescadoAction
// message, the views (what each viewer may see: the stack order and sealed claims are hidden) and
// the hidden information a bot must not peek at.
#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/games/pescado/pescado.h"
#include "engine/games/pescado/pescado_internal.h"
#include "parlor/games/v1/pescado.pb.h"

namespace parlor::games::pescado {
namespace {

using engine::Action;
namespace v1 = ::parlor::games::v1;
using internal::Bit;
using internal::TileLabel;
using internal::ValidTile;

uint32_t Reverse5(uint32_t mask) {
  uint32_t r = 0;
  for (int i = 0; i < kWhiteDice; ++i) {
    if (mask >> i & 1u) r |= 1u << (kWhiteDice - 1 - i);
  }
  return r;
}

v1::PescadoColor ToProtoColor(int c) { return static_cast<v1::PescadoColor>(c + 1); }

void FillTile(int id, v1::PescadoTile* out) {
  out->set_id(id);
  for (Color c : Tile(id).fish) out->add_fish(ToProtoColor(c));
  out->set_points(Tile(id).points);
}

}  // namespace

// ---- Action codes ------------------------------------------------------------------------------

namespace {
inline Action Code(ActionType kind, Action payload) {
  return (static_cast<Action>(kind) << kKindShift) | payload;
}
}  // namespace

Action EncodeThrowFirst() { return Code(ActionType::kThrowFirst, 0); }
Action EncodeTakeTile(int tile) { return Code(ActionType::kTakeTile, tile); }
Action EncodeBuyGreyDie(int tile_a, int tile_b) {
  const int low = std::min(tile_a, tile_b), high = std::max(tile_a, tile_b);
  return Code(ActionType::kBuyGreyDie, low * 64 + high);
}
Action EncodeThrowSecond(uint32_t keep_mask) {
  keep_mask &= 0x1f;
  return Code(ActionType::kThrowSecond,
              static_cast<Action>(std::popcount(keep_mask)) << 5 | (31 - Reverse5(keep_mask)));
}
Action EncodeEndTurn() { return Code(ActionType::kEndTurn, 0); }
Action EncodeSnatchClaim(std::span<const int> tiles) {
  const size_t n = std::min<size_t>(tiles.size(), kMaxClaimLength);
  Action payload = static_cast<Action>(n) << 36;
  for (size_t i = 0; i < n; ++i) {
    payload |= static_cast<Action>(tiles[i] & 63) << (6 * (5 - i));
  }
  return Code(ActionType::kSnatchClaim, payload);
}

DecodedAction DecodeAction(Action action) {
  DecodedAction d;
  if (action < 0) return d;
  const Action kind = action >> kKindShift;
  const Action payload = action & kPayloadMask;
  switch (kind) {
    case 1:
    case 5:
      if (payload == 0) d.kind = static_cast<ActionType>(kind);
      break;
    case 2:
      if (payload <= 63) {
        d.kind = ActionType::kTakeTile;
        d.tile = static_cast<int>(payload);
      }
      break;
    case 3:
      if (payload < 64 * 64) {
        d.kind = ActionType::kBuyGreyDie;
        d.tile_low = static_cast<int>(payload / 64);
        d.tile_high = static_cast<int>(payload % 64);
      }
      break;
    case 4: {
      const int count = static_cast<int>(payload >> 5);
      const uint32_t mask = Reverse5(31 - static_cast<uint32_t>(payload & 31));
      if (payload < (6 << 5) && std::popcount(mask) == count) {
        d.kind = ActionType::kThrowSecond;
        d.keep_mask = mask;
      }
      break;
    }
    case 6: {
      const int length = static_cast<int>(payload >> 36);
      if (length > kMaxClaimLength) break;
      bool ok = true;
      for (int i = 0; i < kMaxClaimLength; ++i) {
        const int t = static_cast<int>(payload >> (6 * (5 - i)) & 63);
        if (i < length) {
          d.claim[i] = static_cast<int8_t>(t);
        } else if (t != 0) {
          ok = false;  // fields past the length must be empty
        }
      }
      if (ok) {
        d.kind = ActionType::kSnatchClaim;
        d.claim_length = length;
      }
      break;
    }
    default:
      break;
  }
  return d;
}

const google::protobuf::Descriptor* PescadoGame::ActionDescriptor() const {
  return v1::PescadoAction::descriptor();
}

const google::protobuf::Descriptor* PescadoGame::ViewDescriptor() const {
  return v1::PescadoView::descriptor();
}

absl::StatusOr<Action> PescadoGame::ActionFromProto(
    const google::protobuf::Message& message) const {
  if (message.GetDescriptor() != v1::PescadoAction::descriptor()) {
    return absl::InvalidArgumentError(
        absl::StrCat("action: expected parlor.games.v1.PescadoAction; got ",
                     message.GetDescriptor()->full_name()));
  }
  const auto& action = static_cast<const v1::PescadoAction&>(message);
  auto check_tile = [](absl::string_view field, int64_t t) -> absl::Status {
    if (t < 1 || t > kNumTiles) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ": ", t, " is not a tile id; tiles are 1 to 36"));
    }
    return absl::OkStatus();
  };
  switch (action.kind_case()) {
    case v1::PescadoAction::kThrowFirst:
      return EncodeThrowFirst();
    case v1::PescadoAction::kTakeTile: {
      const int32_t t = action.take_tile().tile_id();
      if (absl::Status s = check_tile("take_tile.tile_id", t); !s.ok()) return s;
      return EncodeTakeTile(t);
    }
    case v1::PescadoAction::kBuyGreyDie: {
      const auto& ids = action.buy_grey_die().tile_ids();
      if (ids.size() != 2) {
        return absl::InvalidArgumentError(absl::StrCat(
            "buy_grey_die.tile_ids: a grey die costs exactly two tiles; got ", ids.size()));
      }
      for (int32_t t : ids) {
        if (absl::Status s = check_tile("buy_grey_die.tile_ids", t); !s.ok()) return s;
      }
      if (ids[0] == ids[1]) {
        return absl::InvalidArgumentError("buy_grey_die.tile_ids: name two different tiles");
      }
      return EncodeBuyGreyDie(ids[0], ids[1]);
    }
    case v1::PescadoAction::kThrowSecond: {
      uint32_t mask = 0;
      for (int32_t d : action.throw_second().keep_dice()) {
        if (d < 0 || d >= kWhiteDice) {
          return absl::InvalidArgumentError(absl::StrCat(
              "throw_second.keep_dice: die ", d, " is not a white die; white dice are 0 to 4"));
        }
        if (mask >> d & 1u) {
          return absl::InvalidArgumentError(
              absl::StrCat("throw_second.keep_dice: die ", d, " is listed twice"));
        }
        mask |= 1u << d;
      }
      return EncodeThrowSecond(mask);
    }
    case v1::PescadoAction::kEndTurn:
      return EncodeEndTurn();
    case v1::PescadoAction::kSnatchClaim: {
      const auto& ids = action.snatch_claim().tile_ids();
      if (ids.size() > kMaxClaimLength) {
        return absl::InvalidArgumentError(absl::StrCat(
            "snatch_claim.tile_ids: a claim lists at most 6 tiles (the pool); got ", ids.size()));
      }
      uint64_t seen = 0;
      std::vector<int> tiles;
      for (int32_t t : ids) {
        if (absl::Status s = check_tile("snatch_claim.tile_ids", t); !s.ok()) return s;
        if (seen & Bit(t)) {
          return absl::InvalidArgumentError(
              absl::StrCat("snatch_claim.tile_ids: tile ", t, " is listed twice"));
        }
        seen |= Bit(t);
        tiles.push_back(t);
      }
      return EncodeSnatchClaim(tiles);
    }
    case v1::PescadoAction::KIND_NOT_SET:
      break;
  }
  return absl::InvalidArgumentError("kind: no action is set");
}

std::unique_ptr<google::protobuf::Message> PescadoGame::ActionToProto(Action action) const {
  auto out = std::make_unique<v1::PescadoAction>();
  const DecodedAction d = DecodeAction(action);
  switch (d.kind) {
    case ActionType::kThrowFirst:
      out->mutable_throw_first();
      break;
    case ActionType::kTakeTile:
      out->mutable_take_tile()->set_tile_id(d.tile);
      break;
    case ActionType::kBuyGreyDie:
      out->mutable_buy_grey_die()->add_tile_ids(d.tile_low);
      out->mutable_buy_grey_die()->add_tile_ids(d.tile_high);
      break;
    case ActionType::kThrowSecond: {
      auto* ts = out->mutable_throw_second();
      for (int i = 0; i < kWhiteDice; ++i) {
        if (d.keep_mask >> i & 1u) ts->add_keep_dice(i);
      }
      break;
    }
    case ActionType::kEndTurn:
      out->mutable_end_turn();
      break;
    case ActionType::kSnatchClaim: {
      auto* sc = out->mutable_snatch_claim();
      for (int i = 0; i < d.claim_length; ++i) sc->add_tile_ids(d.claim[i]);
      break;
    }
    case ActionType::kInvalid:
      break;
  }
  return out;
}

std::string PescadoState::ActionToStringImpl(int, Action action) const {
  const DecodedAction d = DecodeAction(action);
  auto label = [](int t) { return ValidTile(t) ? TileLabel(t) : absl::StrCat(t); };
  switch (d.kind) {
    case ActionType::kThrowFirst:
      return "throw first";
    case ActionType::kTakeTile:
      return absl::StrCat("take ", label(d.tile));
    case ActionType::kBuyGreyDie:
      return absl::StrCat("buy a grey die, flipping ", label(d.tile_low), " and ",
                          label(d.tile_high));
    case ActionType::kThrowSecond: {
      std::vector<int> kept;
      for (int i = 0; i < kWhiteDice; ++i) {
        if (d.keep_mask >> i & 1u) kept.push_back(i);
      }
      if (kept.empty()) return "throw second, keeping no die";
      return absl::StrCat("throw second, keeping ", kept.size() == 1 ? "die " : "dice ",
                          absl::StrJoin(kept, ", "));
    }
    case ActionType::kEndTurn:
      return "end turn";
    case ActionType::kSnatchClaim: {
      if (d.claim_length == 0) return "snatch claim: pass";
      std::vector<std::string> tiles;
      for (int i = 0; i < d.claim_length; ++i) tiles.push_back(label(d.claim[i]));
      return absl::StrCat("snatch claim: ", absl::StrJoin(tiles, ", "));
    }
    case ActionType::kInvalid:
      break;
  }
  return absl::StrCat("invalid action ", action);
}

// ---- State: views ------------------------------------------------------------------------------

std::unique_ptr<google::protobuf::Message> PescadoState::ViewImpl(
    const engine::Viewer& viewer) const {
  auto view = std::make_unique<v1::PescadoView>();
  const bool all = viewer.kind == engine::Viewer::Kind::kAll;
  const int me = viewer.kind == engine::Viewer::Kind::kSeat ? viewer.seat : -1;
  view->set_viewpoint(all       ? v1::PESCADO_VIEWPOINT_ALL
                      : me >= 0 ? v1::PESCADO_VIEWPOINT_SEAT
                                : v1::PESCADO_VIEWPOINT_SPECTATOR);
  view->set_viewer_seat(me);
  view->set_num_players(num_players());
  view->set_snatching(snatching_);
  // Over by the rules or by a forfeit: every viewer sees the outcome's ranks and reason.
  const engine::State::Ending ending = GetEnding();
  const bool over = ending.over;
  view->set_phase(over ? v1::PESCADO_PHASE_GAME_OVER : static_cast<v1::PescadoPhase>(phase_));
  view->set_active_seat(over ? -1 : active_);
  view->set_predecessor_seat(over ? -1 : predecessor());
  view->set_turn_counter(turn_);
  view->set_max_turns(kMaxTurns);
  for (int slot = 0; slot < kPoolSlots; ++slot) {
    v1::PescadoPoolSlot* s = view->add_pool();
    s->set_slot(slot);
    if (pool_[slot] != 0) FillTile(pool_[slot], s->mutable_tile());
    s->set_flipped(pool_flipped(slot));
  }
  std::vector<int> stack(stack_.begin() + stack_begin_, stack_.end());
  if (!all) std::sort(stack.begin(), stack.end());  // the order is secret
  for (int t : stack) view->add_stack_tile_ids(t);
  for (int i = 0; i < num_dice_; ++i) {
    v1::PescadoDie* die = view->add_dice();
    die->set_index(i);
    die->set_color(ToProtoColor(dice_[i]));
    die->set_kept(i < kWhiteDice && (kept_mask_ >> i & 1u));
  }
  view->set_grey_dice_bought(grey_bought_);
  const std::vector<int>& ranks = ending.ranks;
  for (int s = 0; s < num_players(); ++s) {
    v1::PescadoPlayer* p = view->add_players();
    p->set_seat(s);
    for (int i = 0; i < supply_size_[s]; ++i) {
      v1::PescadoSupplyTile* st = p->add_supply();
      FillTile(supply_[s][i], st->mutable_tile());
      st->set_safe((exposed_[s] & Bit(supply_[s][i])) == 0);
    }
    p->set_score(Points(s));
    p->set_tile_count(supply_size_[s]);
    p->set_claimed(!over && phase_ == Phase::kSnatchWindow && snatch_.claimed.Contains(s));
    if (over) p->set_rank(ranks[s]);
    p->set_forfeited(IsForfeited(s));
  }
  if (!over && (phase_ == Phase::kFirstThrowResolved || phase_ == Phase::kSecondThrowResolved)) {
    for (uint64_t m = TakeableMask(); m != 0; m &= m - 1) {
      view->add_takeable_tile_ids(std::countr_zero(m));
    }
  }
  if (!over && phase_ == Phase::kFirstThrowResolved && grey_bought_ < kMaxGreyDice &&
      std::popcount(FlippableMask()) >= 2) {
    for (uint64_t m = FlippableMask(); m != 0; m &= m - 1) {
      view->add_flippable_tile_ids(std::countr_zero(m));
    }
  }
  if (has_snatch_) {
    v1::PescadoSnatch* sn = view->mutable_snatch();
    sn->set_thrower_seat(snatch_.thrower);
    for (int8_t c : snatch_.dice) sn->add_snatch_dice(ToProtoColor(c));
    sn->set_rethrows(snatch_.rethrows);
    for (int t : SnatchSet()) sn->add_snatch_set(t);
    for (int k = 1; k <= num_players(); ++k)
      sn->add_draft_order((snatch_.thrower + k) % num_players());
    sn->set_resolved(snatch_.resolved);
    for (int s = 0; s < num_players(); ++s) {
      // A sealed claim is shown only to its author (and to the reveal-all view).
      const bool visible = snatch_.resolved || all || (s == me && snatch_.claimed.Contains(s));
      if (!visible) continue;
      v1::PescadoClaim* c = sn->add_claims();
      c->set_seat(s);
      for (int i = 0; i < snatch_.claim_length[s]; ++i) c->add_tile_ids(snatch_.claim[s][i]);
      for (int i = 0; i < snatch_.received_length[s]; ++i) {
        c->add_received_tile_ids(snatch_.received[s][i]);
      }
    }
  }
  if (over) view->mutable_outcome()->set_reason(ending.reason);
  view->set_game_over(over);
  for (int rank : ranks) view->add_ranks(rank);
  view->set_end_reason(ending.reason);
  for (int seat : ending.forfeited_seats) view->add_forfeited_seats(seat);
  return view;
}

// ---- State: hidden information -----------------------------------------------------------------

void PescadoState::ResampleHiddenImpl(int observer, engine::Rng& rng) {
  // The stack order is unseen by everyone.
  rng.Shuffle(std::span<int8_t>(stack_.data() + stack_begin_, stack_.end()));
  // Other players' sealed claims in an open window: any claim they could have made.
  if (phase_ != Phase::kSnatchWindow) return;
  const std::vector<int> set = SnatchSet();
  for (int s = 0; s < num_players(); ++s) {
    if (s == observer || !snatch_.claimed.Contains(s)) continue;
    std::vector<int> tiles = set;
    rng.Shuffle(std::span<int>(tiles));
    const int length = static_cast<int>(rng.Uniform(tiles.size() + 1));
    snatch_.claim_length[s] = static_cast<int8_t>(length);
    snatch_.claim[s].fill(0);
    for (int i = 0; i < length; ++i) snatch_.claim[s][i] = static_cast<int8_t>(tiles[i]);
  }
}

}  // namespace parlor::games::pescado
