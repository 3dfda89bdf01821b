// Pescado's snapshot: the private PescadoState message (pescado_state.proto) written by SaveImpl
// and validated field by field by LoadImpl with the engine's snapshot kit
// (engine/core/snapshot_check.h).
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

// A die's colour: 0..5 (yellow, orange, red, blue, green, black).
absl::Status CheckColour(const Field& field, int colour) {
  return check::CheckRange(field, colour, 0, kNumColors - 1, "colour");
}

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
  PARLOR_RETURN_IF_ERROR(check::CheckSeat(Field("active_seat"), p.active_seat(), n));
  // The safety limit ends the game, so only a finished game shows it reached.
  PARLOR_RETURN_IF_ERROR(check::CheckRange(Field("turn_counter"), p.turn_counter(), 0,
                                           over ? kMaxTurns : kMaxTurns - 1));

  // Every tile exactly once: stack, pool or a supply.
  check::IdSet tiles("tile", 1, kNumTiles);
  PARLOR_RETURN_IF_ERROR(check::CheckMaxSize(Field("stack"), p.stack_size(), kNumTiles));
  for (int i = 0; i < p.stack_size(); ++i) {
    PARLOR_RETURN_IF_ERROR(tiles.Take(Field("stack", i), p.stack(i)));
  }
  PARLOR_RETURN_IF_ERROR(check::CheckSize(Field("pool"), p.pool_size(), kPoolSlots));
  int empty = 0;
  int flipped = 0;
  for (int slot = 0; slot < kPoolSlots; ++slot) {
    const auto& s = p.pool(slot);
    const Field field = Field("pool")[slot];
    if (s.tile_id() == 0) {
      ++empty;
      PARLOR_RETURN_IF_ERROR(
          check::Require(!s.flipped(), field("flipped"), "an empty slot cannot be flipped"));
      continue;
    }
    PARLOR_RETURN_IF_ERROR(tiles.Take(field("tile_id"), s.tile_id()));
    PARLOR_RETURN_IF_ERROR(check::Require(!s.flipped() || mid_turn, field("flipped"),
                                          "tiles are flipped only during a turn"));
    flipped += s.flipped();
  }
  PARLOR_RETURN_IF_ERROR(check::Require(mid_turn || over || empty == 0, Field("pool"),
                                        "the pool is full between turns"));
  PARLOR_RETURN_IF_ERROR(check::CheckSize(Field("supplies"), p.supplies_size(), n));
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

  // Dice.
  PARLOR_RETURN_IF_ERROR(
      check::CheckRange(Field("grey_dice_bought"), p.grey_dice_bought(), 0, kMaxGreyDice));
  PARLOR_RETURN_IF_ERROR(check::Require(mid_turn || p.grey_dice_bought() == 0,
                                        Field("grey_dice_bought"),
                                        "grey dice are bought only during a turn"));
  PARLOR_RETURN_IF_ERROR(check::Require(flipped <= 2 * p.grey_dice_bought(), Field("pool"),
                                        "more tiles flipped than the grey dice bought paid for"));
  int expected_dice = 0;
  if (phase == Phase::kFirstThrowResolved) expected_dice = kWhiteDice;
  if (phase == Phase::kSecondThrowResolved) expected_dice = kWhiteDice + p.grey_dice_bought();
  PARLOR_RETURN_IF_ERROR(check::CheckSize(Field("dice"), p.dice_size(), expected_dice));
  for (int i = 0; i < p.dice_size(); ++i) {
    PARLOR_RETURN_IF_ERROR(CheckColour(Field("dice", i), p.dice(i)));
  }
  PARLOR_RETURN_IF_ERROR(check::CheckBits(Field("kept_mask"), p.kept_mask(), 31));
  if (phase != Phase::kSecondThrowResolved) {
    PARLOR_RETURN_IF_ERROR(check::Require(p.kept_mask() == 0, Field("kept_mask"),
                                          "dice are kept only in the second throw"));
  }
  PARLOR_RETURN_IF_ERROR(check::Require(p.kept_mask() != 31 || p.grey_dice_bought() != 0,
                                        Field("kept_mask"), "the second throw threw no die"));
  PARLOR_RETURN_IF_ERROR(check::CheckEnum(Field("end_reason"), p.end_reason(), 0, 2));
  PARLOR_RETURN_IF_ERROR(check::Require((p.end_reason() != 0) == over, Field("end_reason"),
                                        "must be set exactly when the game is over"));

  // Snatch.
  Snatch snatch;
  if (p.has_snatch()) {
    const auto& sn = p.snatch();
    const Field field("snatch");
    PARLOR_RETURN_IF_ERROR(check::CheckSeat(field("thrower_seat"), sn.thrower_seat(), n));
    PARLOR_RETURN_IF_ERROR(
        check::CheckSize(field("snatch_dice"), sn.snatch_dice_size(), kWhiteDice));
    for (int i = 0; i < kWhiteDice; ++i) {
      PARLOR_RETURN_IF_ERROR(CheckColour(field("snatch_dice", i), sn.snatch_dice(i)));
      snatch.dice[i] = static_cast<int8_t>(sn.snatch_dice(i));
    }
    PARLOR_RETURN_IF_ERROR(check::CheckRange(field("rethrows"), sn.rethrows(), 0, kMaxRethrows));
    snatch.thrower = static_cast<int8_t>(sn.thrower_seat());
    snatch.rethrows = static_cast<int16_t>(sn.rethrows());
    PARLOR_RETURN_IF_ERROR(
        check::CheckMaxSize(field("snatch_set"), sn.snatch_set_size(), kPoolSlots));
    PARLOR_RETURN_IF_ERROR(check::CheckAscending(field("snatch_set"), sn.snatch_set()));
    for (int i = 0; i < sn.snatch_set_size(); ++i) {
      PARLOR_RETURN_IF_ERROR(
          check::CheckRange(field("snatch_set", i), sn.snatch_set(i), 1, kNumTiles, "tile"));
      snatch.set |= Bit(sn.snatch_set(i));
    }
    PARLOR_RETURN_IF_ERROR(check::Require(sn.snatch_set_size() > 0 || sn.resolved(),
                                          field("snatch_set"), "an open window needs tiles"));
    snatch.resolved = sn.resolved();
    PARLOR_RETURN_IF_ERROR(check::CheckSize(field("claims"), sn.claims_size(), n));
    for (int s = 0; s < n; ++s) {
      const auto& c = sn.claims(s);
      const Field claim = field("claims", s);
      if (c.claimed()) snatch.claimed.Insert(s);
      PARLOR_RETURN_IF_ERROR(
          check::CheckMaxSize(claim("tile_ids"), c.tile_ids_size(), kMaxClaimLength));
      PARLOR_RETURN_IF_ERROR(check::CheckMaxSize(claim("received_tile_ids"),
                                                 c.received_tile_ids_size(), kMaxClaimLength));
      PARLOR_RETURN_IF_ERROR(check::Require(c.claimed() || c.tile_ids_size() == 0,
                                            claim("tile_ids"), "an unclaimed seat with tiles"));
      check::IdSet claimed("tile", 1, kNumTiles);
      for (int i = 0; i < c.tile_ids_size(); ++i) {
        const int t = c.tile_ids(i);
        PARLOR_RETURN_IF_ERROR(claimed.Take(claim("tile_ids", i), t));
        PARLOR_RETURN_IF_ERROR(
            check::Require((snatch.set & Bit(t)) != 0, claim("tile_ids", i),
                           absl::StrCat("tile ", t, " is not in the snatch set")));
        snatch.claim[s][i] = static_cast<int8_t>(t);
      }
      snatch.claim_length[s] = static_cast<int8_t>(c.tile_ids_size());
      for (int i = 0; i < c.received_tile_ids_size(); ++i) {
        const int t = c.received_tile_ids(i);
        PARLOR_RETURN_IF_ERROR(
            check::Require(claimed.Contains(t), claim("received_tile_ids", i),
                           absl::StrCat("tile ", t, " was not claimed by this seat")));
        snatch.received[s][i] = static_cast<int8_t>(t);
      }
      snatch.received_length[s] = static_cast<int8_t>(c.received_tile_ids_size());
      PARLOR_RETURN_IF_ERROR(check::Require(snatch.resolved || c.received_tile_ids_size() == 0,
                                            claim("received_tile_ids"),
                                            "tiles are received only when the window is resolved"));
    }
  }
  if (phase == Phase::kSnatchWindow) {
    PARLOR_RETURN_IF_ERROR(check::Require(p.has_snatch() && !snatch.resolved, Field("snatch"),
                                          "the snatch window needs an open snatch"));
    PARLOR_RETURN_IF_ERROR(check::Require(snatch.thrower == p.active_seat(),
                                          Field("snatch")("thrower_seat"),
                                          "the thrower is the active player"));
    PARLOR_RETURN_IF_ERROR(check::Require(snatch.claimed.size() < n, Field("snatch")("claims"),
                                          "every seat has claimed but the window is open"));
  } else {
    PARLOR_RETURN_IF_ERROR(check::Require(!p.has_snatch() || snatch.resolved,
                                          Field("snatch")("resolved"),
                                          "an unresolved window outside the snatch phase"));
  }
  PARLOR_RETURN_IF_ERROR(
      check::Require(snatching_ || (!p.has_snatch() && phase != Phase::kSnatchWindow),
                     Field("snatch"), "a snatch without the snatching option"));

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
