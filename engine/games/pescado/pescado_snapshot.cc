// Pescado's snapshot: the private PescadoState message (pescado_state.proto) written by SaveImpl
// and validated field by field by LoadImpl with the engine's snapshot kit
// (engine/core/snapshot_check.h).
#include <algorithm>
#include <bit>

#include "absl/strings/str_cat.h"
#include "engine/core/snapshot_check.h"
#include "engine/games/pescado/pescado.h"
#include "engine/games/pescado/pescado_internal.h"
#include "pescado/pescado_state.pb.h"

namespace parlor::games::pescado {
namespace {

namespace check = engine::snapshot;
using check::Field;
using internal::Bit;
using internal::ValidTile;
using StateProto = ::parlor::engine::pescado::PescadoState;

}  // namespace

void PescadoState::SaveImpl(google::protobuf::Any* out) const {
  StateProto p;
  p.set_phase(static_cast<int32_t>(phase_));
  p.set_active_seat(active_);
  p.set_turn_counter(turn_);
  for (int i = stack_begin_; i < kNumTiles; ++i) p.add_stack(stack_[i]);
  for (int slot = 0; slot < kPoolSlots; ++slot) {
    auto* s = p.add_pool();
    s->set_tile_id(pool_[slot]);
    s->set_flipped(pool_flipped(slot));
  }
  for (int seat = 0; seat < num_players(); ++seat) {
    auto* sup = p.add_supplies();
    for (int i = 0; i < supply_size_[seat]; ++i) {
      auto* t = sup->add_tiles();
      t->set_tile_id(supply_[seat][i]);
      t->set_safe((exposed_[seat] & Bit(supply_[seat][i])) == 0);
    }
  }
  for (int i = 0; i < num_dice_; ++i) p.add_dice(dice_[i]);
  p.set_grey_dice_bought(grey_bought_);
  p.set_kept_mask(kept_mask_);
  if (has_snatch_) {
    auto* sn = p.mutable_snatch();
    sn->set_thrower_seat(snatch_.thrower);
    for (int8_t c : snatch_.dice) sn->add_snatch_dice(c);
    sn->set_rethrows(snatch_.rethrows);
    for (int t : SnatchSet()) sn->add_snatch_set(t);
    for (int seat = 0; seat < num_players(); ++seat) {
      auto* c = sn->add_claims();
      c->set_claimed(snatch_.claimed.Contains(seat));
      for (int i = 0; i < snatch_.claim_length[seat]; ++i) c->add_tile_ids(snatch_.claim[seat][i]);
      for (int i = 0; i < snatch_.received_length[seat]; ++i) {
        c->add_received_tile_ids(snatch_.received[seat][i]);
      }
    }
    sn->set_resolved(snatch_.resolved);
  }
  p.set_end_reason(static_cast<int32_t>(end_reason_));
  out->PackFrom(p);
}

absl::Status PescadoState::LoadImpl(const google::protobuf::Any& in) {
  StateProto p;
  PARLOR_RETURN_IF_ERROR(check::Unpack(in, &p));
  const int n = num_players();
  PARLOR_RETURN_IF_ERROR(check::CheckEnum(Field("phase"), p.phase(), 1, 5));
  const Phase phase = static_cast<Phase>(p.phase());
  const bool over = phase == Phase::kGameOver;
  const bool mid_turn = phase == Phase::kFirstThrowResolved || phase == Phase::kSecondThrowResolved;
  int expected_dice = 0;
  if (phase == Phase::kFirstThrowResolved) expected_dice = kWhiteDice;
  if (phase == Phase::kSecondThrowResolved) expected_dice = kWhiteDice + p.grey_dice_bought();
  // Every tile exactly once: stack, pool or a supply.
  check::IdSet tiles("tile", 1, kNumTiles);
  PARLOR_RETURN_IF_ERROR(check::FirstError({
      check::CheckSeat(Field("active_seat"), p.active_seat(), n),
      // The safety limit ends the game, so only a finished game shows it reached.
      check::CheckRange(Field("turn_counter"), p.turn_counter(), 0,
                        over ? kMaxTurns : kMaxTurns - 1),
      check::CheckMaxSize(Field("stack"), p.stack_size(), kNumTiles),
      check::CheckSize(Field("pool"), p.pool_size(), kPoolSlots),
      check::CheckSize(Field("supplies"), p.supplies_size(), n),
      check::CheckRange(Field("grey_dice_bought"), p.grey_dice_bought(), 0, kMaxGreyDice),
      check::Require(mid_turn || p.grey_dice_bought() == 0, Field("grey_dice_bought"),
                     "grey dice are bought only during a turn"),
      check::CheckSize(Field("dice"), p.dice_size(), expected_dice),
      check::CheckEachInRange(Field("dice"), p.dice(), 0, kNumColors - 1, "colour"),
      check::CheckBits(Field("kept_mask"), p.kept_mask(), 31),
      check::Require(p.kept_mask() == 0 || phase == Phase::kSecondThrowResolved, Field("kept_mask"),
                     "dice are kept only in the second throw"),
      check::Require(p.kept_mask() != 31 || p.grey_dice_bought() != 0, Field("kept_mask"),
                     "the second throw threw no die"),
      check::CheckEnum(Field("end_reason"), p.end_reason(), 0, 2),
      check::Require((p.end_reason() != 0) == over, Field("end_reason"),
                     "must be set exactly when the game is over"),
      tiles.TakeEach(Field("stack"), p.stack()),
  }));
  int empty = 0;
  int flipped = 0;
  for (int slot = 0; slot < kPoolSlots; ++slot) {
    const auto& s = p.pool(slot);
    const Field field = Field("pool")[slot];
    empty += s.tile_id() == 0;
    flipped += s.flipped();
    PARLOR_RETURN_IF_ERROR(check::FirstError({
        s.tile_id() == 0 ? absl::OkStatus() : tiles.Take(field("tile_id"), s.tile_id()),
        check::Require(!s.flipped() || s.tile_id() != 0, field("flipped"),
                       "an empty slot cannot be flipped"),
        check::Require(!s.flipped() || mid_turn, field("flipped"),
                       "tiles are flipped only during a turn"),
    }));
  }
  PARLOR_RETURN_IF_ERROR(check::FirstError({
      check::Require(mid_turn || over || empty == 0, Field("pool"),
                     "the pool is full between turns"),
      check::Require(flipped <= 2 * p.grey_dice_bought(), Field("pool"),
                     "more tiles flipped than the grey dice bought paid for"),
  }));
  const int predecessor = (p.active_seat() + n - 1) % n;
  for (int s = 0; s < n; ++s) {
    for (int i = 0; i < p.supplies(s).tiles_size(); ++i) {
      const auto& t = p.supplies(s).tiles(i);
      const Field field = Field("supplies")[s]("tiles", i);
      PARLOR_RETURN_IF_ERROR(tiles.Take(field("tile_id"), t.tile_id()));
      PARLOR_RETURN_IF_ERROR(
          check::Require(t.safe() || s == predecessor || s == p.active_seat(), field("safe"),
                         "only the active player and the predecessor can have exposed tiles"));
    }
  }
  PARLOR_RETURN_IF_ERROR(tiles.CheckAllTaken(Field()));

  // Snatch.
  Snatch snatch;
  if (p.has_snatch()) {
    const auto& sn = p.snatch();
    const Field field("snatch");
    PARLOR_RETURN_IF_ERROR(check::FirstError({
        check::CheckSeat(field("thrower_seat"), sn.thrower_seat(), n),
        check::CheckSize(field("snatch_dice"), sn.snatch_dice_size(), kWhiteDice),
        check::CheckEachInRange(field("snatch_dice"), sn.snatch_dice(), 0, kNumColors - 1,
                                "colour"),
        check::CheckRange(field("rethrows"), sn.rethrows(), 0, kMaxRethrows),
        check::CheckMaxSize(field("snatch_set"), sn.snatch_set_size(), kPoolSlots),
        check::CheckAscending(field("snatch_set"), sn.snatch_set()),
        check::CheckEachInRange(field("snatch_set"), sn.snatch_set(), 1, kNumTiles, "tile"),
        check::Require(sn.snatch_set_size() > 0 || sn.resolved(), field("snatch_set"),
                       "an open window needs tiles"),
        check::CheckSize(field("claims"), sn.claims_size(), n),
    }));
    std::copy(sn.snatch_dice().begin(), sn.snatch_dice().end(), snatch.dice.begin());
    snatch.thrower = static_cast<int8_t>(sn.thrower_seat());
    snatch.rethrows = static_cast<int16_t>(sn.rethrows());
    for (int t : sn.snatch_set()) snatch.set |= Bit(t);
    snatch.resolved = sn.resolved();
    for (int s = 0; s < n; ++s) {
      const auto& c = sn.claims(s);
      const Field claim = field("claims", s);
      check::IdSet claimed("tile", 1, kNumTiles);
      PARLOR_RETURN_IF_ERROR(check::FirstError({
          check::CheckMaxSize(claim("tile_ids"), c.tile_ids_size(), kMaxClaimLength),
          check::CheckMaxSize(claim("received_tile_ids"), c.received_tile_ids_size(),
                              kMaxClaimLength),
          check::Require(c.claimed() || c.tile_ids_size() == 0, claim("tile_ids"),
                         "an unclaimed seat with tiles"),
          check::Require(snatch.resolved || c.received_tile_ids_size() == 0,
                         claim("received_tile_ids"),
                         "tiles are received only when the window is resolved"),
          claimed.TakeEach(claim("tile_ids"), c.tile_ids()),
      }));
      for (int i = 0; i < c.tile_ids_size(); ++i) {
        PARLOR_RETURN_IF_ERROR(
            check::Require((snatch.set & Bit(c.tile_ids(i))) != 0, claim("tile_ids", i),
                           absl::StrCat("tile ", c.tile_ids(i), " is not in the snatch set")));
      }
      for (int i = 0; i < c.received_tile_ids_size(); ++i) {
        PARLOR_RETURN_IF_ERROR(check::Require(
            claimed.Contains(c.received_tile_ids(i)), claim("received_tile_ids", i),
            absl::StrCat("tile ", c.received_tile_ids(i), " was not claimed by this seat")));
      }
      if (c.claimed()) snatch.claimed.Insert(s);
      std::copy(c.tile_ids().begin(), c.tile_ids().end(), snatch.claim[s].begin());
      snatch.claim_length[s] = static_cast<int8_t>(c.tile_ids_size());
      std::copy(c.received_tile_ids().begin(), c.received_tile_ids().end(),
                snatch.received[s].begin());
      snatch.received_length[s] = static_cast<int8_t>(c.received_tile_ids_size());
    }
  }
  const bool window = phase == Phase::kSnatchWindow;
  PARLOR_RETURN_IF_ERROR(check::FirstError({
      check::Require(!window || (p.has_snatch() && !snatch.resolved), Field("snatch"),
                     "the snatch window needs an open snatch"),
      check::Require(!window || snatch.thrower == p.active_seat(), Field("snatch")("thrower_seat"),
                     "the thrower is the active player"),
      check::Require(!window || snatch.claimed.size() < n, Field("snatch")("claims"),
                     "every seat has claimed but the window is open"),
      check::Require(window || !p.has_snatch() || snatch.resolved, Field("snatch")("resolved"),
                     "an unresolved window outside the snatch phase"),
      check::Require(snatching_ || (!p.has_snatch() && !window), Field("snatch"),
                     "a snatch without the snatching option"),
  }));

  // Everything checked: take it over.
  phase_ = phase;
  active_ = static_cast<int8_t>(p.active_seat());
  turn_ = static_cast<int16_t>(p.turn_counter());
  end_reason_ = static_cast<EndReason>(p.end_reason());
  stack_begin_ = static_cast<int8_t>(kNumTiles - p.stack_size());
  stack_.fill(0);
  for (int i = 0; i < p.stack_size(); ++i) {
    stack_[stack_begin_ + i] = static_cast<int8_t>(p.stack(i));
  }
  flipped_slots_ = 0;
  for (int slot = 0; slot < kPoolSlots; ++slot) {
    pool_[slot] = static_cast<int8_t>(p.pool(slot).tile_id());
    if (p.pool(slot).flipped()) flipped_slots_ |= static_cast<uint8_t>(1u << slot);
  }
  supply_ = {};
  supply_size_ = {};
  exposed_ = {};
  for (int s = 0; s < n; ++s) {
    for (const auto& t : p.supplies(s).tiles()) {
      supply_[s][supply_size_[s]++] = static_cast<int8_t>(t.tile_id());
      if (!t.safe()) exposed_[s] |= Bit(t.tile_id());
    }
  }
  dice_ = {};
  num_dice_ = static_cast<int8_t>(p.dice_size());
  for (int i = 0; i < p.dice_size(); ++i) dice_[i] = static_cast<int8_t>(p.dice(i));
  grey_bought_ = static_cast<int8_t>(p.grey_dice_bought());
  kept_mask_ = static_cast<uint8_t>(p.kept_mask());
  has_snatch_ = p.has_snatch();
  snatch_ = snatch;
  RebuildDerived();
  if (phase_ == Phase::kSnatchWindow) {
    // The snatch set is exactly the face-up pool tiles matching the snatch dice.
    uint64_t expected = 0;
    for (uint64_t m = pool_up_; m != 0; m &= m - 1) {
      const int t = std::countr_zero(m);
      if (MatchesSnatchDice(t)) expected |= Bit(t);
    }
    PARLOR_RETURN_IF_ERROR(check::Require(expected == snatch_.set, Field("snatch")("snatch_set"),
                                          "does not match the pool and the snatch dice"));
  }
  return absl::OkStatus();
}

}  // namespace parlor::games::pescado
