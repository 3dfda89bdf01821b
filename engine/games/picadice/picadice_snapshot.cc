// Picadice's snapshot: the private PicadiceState message (picadice_state.proto) written by
// SaveImpl and validated field by field by LoadImpl with the engine's snapshot kit
// (engine/core/snapshot_check.h).
#include <algorithm>
#include <array>
#include <bit>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "engine/core/snapshot_check.h"
#include "engine/games/picadice/picadice.h"
#include "engine/games/picadice/picadice_internal.h"
#include "parlor/games/v1/picadice.pb.h"
#include "picadice/picadice_state.pb.h"

namespace parlor::games::picadice {
namespace {

namespace check = engine::snapshot;
namespace pb = ::parlor::games::v1;
using check::Field;
using internal::ColourName;
using internal::MaxRounds;

// A grid: the 20 circles, one bit each.
absl::Status CheckGrid(const Field& field, uint32_t grid) {
  return check::CheckBits(field, grid, kFullGrid);
}

// A die's face: 1..6 (black is 6).
absl::Status CheckFace(const Field& field, int face) {
  return check::CheckRange(field, face, 1, kColours, "face");
}

}  // namespace

void PicadiceState::SaveImpl(google::protobuf::Any* out) const {
  engine::picadice::PicadiceState s;
  s.set_phase(static_cast<pb::PicadicePhase>(static_cast<int>(phase_)));
  s.set_player_to_act(player_to_act_);
  if (phase_ == Phase::kAfterRoll) {
    for (int face : dice_) s.add_dice(face);
  }
  for (int p = 0; p < num_players(); ++p) s.add_grids(grids_[p]);
  for (int n : nest_) s.add_nest(n);
  s.set_turns_completed(turns_completed_);
  s.set_round(round_);
  for (int side = 0; side < NumSidesFast(); ++side) s.add_match_points(match_points_[side]);
  for (const RollOffRound& roll : roll_off_) {
    engine::picadice::RollOffRound* r = s.add_roll_off();
    for (int seat : roll.seats) r->add_seats(seat);
    for (int face : roll.faces) r->add_faces(face);
  }
  for (const RoundResult& result : round_results_) {
    engine::picadice::RoundResult* r = s.add_round_results();
    r->set_winning_side(result.winning_side);
    r->set_points(result.points);
    for (uint32_t g : result.grids) r->add_grids(g);
  }
  s.set_end_reason(static_cast<pb::PicadiceEndReason>(static_cast<int>(end_reason_)));
  out->PackFrom(s);
}

absl::Status PicadiceState::LoadImpl(const google::protobuf::Any& in) {
  engine::picadice::PicadiceState s;
  PARLOR_RETURN_IF_ERROR(check::Unpack(in, &s));
  const int n = num_players();
  const int sides = NumSidesFast();
  PARLOR_RETURN_IF_ERROR(check::CheckEnum(Field("phase"), s.phase(), pb::PICADICE_PHASE_TURN_START,
                                          pb::PICADICE_PHASE_GAME_OVER));
  const Phase phase = static_cast<Phase>(static_cast<int>(s.phase()));
  const bool over = phase == Phase::kGameOver;
  PARLOR_RETURN_IF_ERROR(check::FirstError({
      check::CheckSeat(Field("player_to_act"), s.player_to_act(), n),
      check::CheckSize(Field("dice"), s.dice_size(), phase == Phase::kAfterRoll ? kDice : 0),
      check::CheckEachInRange(Field("dice"), s.dice(), 1, kColours, "face"),
      check::CheckSize(Field("grids"), s.grids_size(), n),
      check::CheckSize(Field("nest"), s.nest_size(), kColours),
      check::CheckEachInRange(Field("nest"), s.nest(), 0, kNestMax, "count"),
      check::CheckRange(Field("round"), s.round(), 1, MaxRounds(match_play_, sides, match_target_)),
      // The turn limit ends the round, so only a finished game shows it reached.
      check::CheckRange(Field("turns_completed"), s.turns_completed(), 0,
                        over ? turn_limit_ : turn_limit_ - 1),
      check::CheckSizeRange(Field("roll_off"), s.roll_off_size(), 1, 1000),
      check::CheckSize(Field("round_results"), s.round_results_size(), s.round() - (over ? 0 : 1)),
      check::CheckSize(Field("match_points"), s.match_points_size(), sides),
  }));
  for (int p = 0; p < n; ++p) PARLOR_RETURN_IF_ERROR(CheckGrid(Field("grids", p), s.grids(p)));
  for (int colour = 1; colour <= kRows; ++colour) {
    int used = s.nest(colour - 1);
    for (uint32_t g : s.grids()) used += std::popcount((g >> ((colour - 1) * kColumns)) & 0xF);
    PARLOR_RETURN_IF_ERROR(check::Require(
        used <= kCountersPerColour, Field("grids"),
        absl::StrCat("with the nest, more than 20 ", ColourName(colour), " counters")));
  }

  // The roll-off: all seats, then the seats tied for highest, until one is highest alone.
  std::vector<int> expected;
  for (int p = 0; p < n; ++p) expected.push_back(p);
  std::vector<RollOffRound> roll_off;
  for (int i = 0; i < s.roll_off_size(); ++i) {
    const engine::picadice::RollOffRound& r = s.roll_off(i);
    const Field field = Field("roll_off")[i];
    PARLOR_RETURN_IF_ERROR(
        check::Require(expected.size() >= 2 || roll_off.empty(), field, "a roll after a winner"));
    PARLOR_RETURN_IF_ERROR(
        check::Require(r.seats_size() == static_cast<int>(expected.size()) &&
                           std::equal(expected.begin(), expected.end(), r.seats().begin()),
                       field("seats"), "must be the seats tied for highest in the round before"));
    PARLOR_RETURN_IF_ERROR(check::CheckSize(field("faces"), r.faces_size(), r.seats_size()));
    int highest = 0;
    for (int k = 0; k < r.faces_size(); ++k) {
      PARLOR_RETURN_IF_ERROR(CheckFace(field("faces", k), r.faces(k)));
      highest = std::max(highest, r.faces(k));
    }
    RollOffRound round;
    round.seats.assign(r.seats().begin(), r.seats().end());
    round.faces.assign(r.faces().begin(), r.faces().end());
    expected.clear();
    for (size_t k = 0; k < round.seats.size(); ++k) {
      if (round.faces[k] == highest) expected.push_back(round.seats[k]);
    }
    roll_off.push_back(std::move(round));
  }
  PARLOR_RETURN_IF_ERROR(
      check::Require(expected.size() == 1, Field("roll_off"), "the roll-off has no single winner"));

  // Finished rounds, and the match points they scored.
  std::array<int, kMaxPlayers> points{};
  std::vector<RoundResult> results;
  for (int i = 0; i < s.round_results_size(); ++i) {
    const engine::picadice::RoundResult& r = s.round_results(i);
    const Field field = Field("round_results")[i];
    const bool last = i + 1 == s.round_results_size();
    RoundResult result;
    PARLOR_RETURN_IF_ERROR(check::CheckSize(field("grids"), r.grids_size(), n));
    for (int p = 0; p < n; ++p) PARLOR_RETURN_IF_ERROR(CheckGrid(field("grids", p), r.grids(p)));
    result.grids.assign(r.grids().begin(), r.grids().end());
    result.winning_side = r.winning_side();
    result.points = r.points();
    PARLOR_RETURN_IF_ERROR(
        check::CheckRange(field("winning_side"), result.winning_side, -1, sides - 1, "side"));
    PARLOR_RETURN_IF_ERROR(check::Require(result.winning_side >= 0 || (last && over),
                                          field("winning_side"),
                                          "only the final round may end without a winner"));
    int lowest = kColumns;
    bool winner_full = false;
    for (int p = 0; p < n; ++p) {
      const bool full = result.grids[p] == kFullGrid;
      if (TeamOf(p) == result.winning_side) {
        winner_full = winner_full || full;
      } else {
        PARLOR_RETURN_IF_ERROR(
            check::Require(!full, field("grids", p), "a losing player has a full grid"));
        lowest = std::min(lowest, CompletedColumns(result.grids[p]));
      }
    }
    PARLOR_RETURN_IF_ERROR(check::Require(result.winning_side < 0 || winner_full, field("grids"),
                                          "the winning side has no full grid"));
    const int expected_points = match_play_ && result.winning_side >= 0 ? kColumns - lowest : 0;
    PARLOR_RETURN_IF_ERROR(check::Require(
        result.points == expected_points, field("points"),
        absl::StrCat(result.points, " is not the round's ", expected_points, " points")));
    if (result.winning_side >= 0) points[result.winning_side] += result.points;
    for (int side = 0; side < sides; ++side) {
      PARLOR_RETURN_IF_ERROR(check::Require(points[side] < match_target_ || (last && over), field,
                                            "the match target was reached before the last round"));
    }
    results.push_back(std::move(result));
  }
  for (int side = 0; side < sides; ++side) {
    PARLOR_RETURN_IF_ERROR(check::Require(
        s.match_points(side) == points[side], Field("match_points", side),
        absl::StrCat(s.match_points(side), " is not the round results' ", points[side])));
  }

  const int end = static_cast<int>(s.end_reason());
  if (!over) {
    PARLOR_RETURN_IF_ERROR(
        check::Require(end == 0, Field("end_reason"), "set before the game is over"));
    for (int p = 0; p < n; ++p) {
      PARLOR_RETURN_IF_ERROR(
          check::Require(s.grids(p) != kFullGrid, Field("grids", p), "a full grid ends the round"));
    }
  } else {
    const RoundResult& last = results.back();
    PARLOR_RETURN_IF_ERROR(
        check::Require(std::equal(last.grids.begin(), last.grids.end(), s.grids().begin()),
                       Field("grids"), "must be the last round's grids when the game is over"));
    PARLOR_RETURN_IF_ERROR(check::Require(s.turns_completed() != 0, Field("turns_completed"),
                                          "a finished round has turns"));
    bool consistent = false;
    if (end == pb::PICADICE_END_REASON_GRID_FILLED) {
      consistent = !match_play_ && last.winning_side >= 0;
    } else if (end == pb::PICADICE_END_REASON_MATCH_TARGET_REACHED) {
      consistent =
          match_play_ && last.winning_side >= 0 && points[last.winning_side] >= match_target_;
    } else if (end == pb::PICADICE_END_REASON_TURN_LIMIT) {
      consistent = last.winning_side == -1 && s.turns_completed() == turn_limit_;
    }
    PARLOR_RETURN_IF_ERROR(
        check::Require(consistent, Field("end_reason"), "does not match the last round"));
    PARLOR_RETURN_IF_ERROR(
        check::Require(last.winning_side < 0 || (TeamOf(s.player_to_act()) == last.winning_side &&
                                                 s.grids(s.player_to_act()) == kFullGrid),
                       Field("player_to_act"), "must be the player who filled the grid"));
  }

  phase_ = phase;
  player_to_act_ = s.player_to_act();
  dice_.fill(0);
  for (int i = 0; i < s.dice_size(); ++i) dice_[i] = s.dice(i);
  grids_.fill(0);
  for (int p = 0; p < n; ++p) grids_[p] = s.grids(p);
  for (int c = 0; c < kColours; ++c) nest_[c] = s.nest(c);
  turns_completed_ = s.turns_completed();
  round_ = s.round();
  match_points_ = points;
  roll_off_ = std::move(roll_off);
  round_results_ = std::move(results);
  end_reason_ = static_cast<EndReason>(end);
  return absl::OkStatus();
}

}  // namespace parlor::games::picadice
