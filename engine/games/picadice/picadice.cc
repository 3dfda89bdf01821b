#include "engine/games/picadice/picadice.h"

#include <algorithm>
#include <bit>
#include <utility>

#include "absl/strings/str_cat.h"
#include "parlor/games/v1/picadice.pb.h"
#include "picadice/picadice_state.pb.h"

namespace parlor::games::picadice {
namespace {

namespace pb = ::parlor::games::v1;
using engine::Chance;
using engine::Options;
using engine::SeatSet;

constexpr char kGameName[] = "picadice";

const char* ColourName(int colour) {
  static constexpr const char* kNames[] = {"?",    "orange", "yellow", "green",
                                           "blue", "purple", "black"};
  return colour >= 1 && colour <= kColours ? kNames[colour] : kNames[0];
}

const char* KindName(int kind) {
  static constexpr const char* kNames[] = {
      "?",         "Roll",          "StealFromNest", "StealBlackFromNest",
      "UseColour", "CallPicaBirds", "DiscardAll"};
  return kind >= 1 && kind <= 6 ? kNames[kind] : kNames[0];
}

// The k circles of a row starting at column s (1-based), as a 4-bit mask.
constexpr int RunMask(int start_column, int count) {
  return ((1 << count) - 1) << (start_column - 1);
}

// "columns 1 to 3", or "column 2" for a single circle.
std::string ColumnsText(int start_column, int count) {
  if (count == 1) return absl::StrCat("column ", start_column);
  return absl::StrCat("columns ", start_column, " to ", start_column + count - 1);
}

std::string CountersText(int count) {
  return count == 1 ? "1 counter" : absl::StrCat(count, " counters");
}

std::string BirdsText(int count) {
  return count == 1 ? "1 Pica Bird" : absl::StrCat(count, " Pica Birds");
}

absl::Status Malformed(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("MALFORMED_ACTION: ", what));
}

absl::Status NoBlackRow(absl::string_view field) {
  return absl::InvalidArgumentError(absl::StrCat(
      "NO_BLACK_ROW: ", field,
      " names black, which is never a row colour; black dice are used with CallPicaBirds and "
      "black nest counters with StealBlackFromNest"));
}

absl::Status Rule(absl::string_view code, absl::string_view text) {
  return absl::FailedPreconditionError(absl::StrCat(code, ": ", text));
}

Action Encode(Kind kind, int victim, int colour, int column, int destination) {
  return static_cast<Action>(kind) * 10000 + victim * 1000 + colour * 100 + column * 10 +
         destination;
}

bool IsRaid(int kind) {
  return kind == static_cast<int>(Kind::kStealBlackFromNest) ||
         kind == static_cast<int>(Kind::kCallPicaBirds);
}

bool IsPlacement(int kind) {
  return kind == static_cast<int>(Kind::kStealFromNest) ||
         kind == static_cast<int>(Kind::kUseColour);
}

int MaxRounds(bool match_play, int sides, int match_target) {
  return match_play ? sides * (match_target - 1) + 1 : 1;
}

}  // namespace

// ---- Action codes ------------------------------------------------------------------------------

Action RollAction() { return Encode(Kind::kRoll, 0, 0, 0, 0); }
Action DiscardAllAction() { return Encode(Kind::kDiscardAll, 0, 0, 0, 0); }
Action UseColourAction(int colour, int start_column) {
  return Encode(Kind::kUseColour, 0, colour, start_column, 0);
}
Action StealFromNestAction(int colour, int start_column) {
  return Encode(Kind::kStealFromNest, 0, colour, start_column, 0);
}
Action CallPicaBirdsAction(int victim, int row, int from_column, int destination) {
  return Encode(Kind::kCallPicaBirds, victim, row, from_column, destination);
}
Action StealBlackFromNestAction(int victim, int row, int from_column, int destination) {
  return Encode(Kind::kStealBlackFromNest, victim, row, from_column, destination);
}

bool DecodeAction(Action action, DecodedAction* out) {
  if (action < 10000 || action > 69999) return false;
  DecodedAction a;
  a.kind = static_cast<int>(action / 10000);
  a.victim = static_cast<int>(action / 1000 % 10);
  a.colour = static_cast<int>(action / 100 % 10);
  a.column = static_cast<int>(action / 10 % 10);
  a.destination = static_cast<int>(action % 10);
  *out = a;
  if (IsRaid(a.kind)) {
    return a.victim < kMaxPlayers && a.colour >= 1 && a.colour <= kColours && a.column >= 1 &&
           a.column <= kColumns && a.destination <= kColumns;
  }
  if (IsPlacement(a.kind)) {
    return a.victim == 0 && a.colour >= 1 && a.colour <= kColours && a.column >= 1 &&
           a.column <= kColumns && a.destination == 0;
  }
  return action % 10000 == 0;  // Roll, DiscardAll
}

// ---- State -------------------------------------------------------------------------------------

PicadiceState::PicadiceState(const PicadiceGame& game, int num_players,
                             std::shared_ptr<const Options> options)
    : State(game, num_players, std::move(options)) {
  team_play_ = this->options().GetBool("team_play");
  match_play_ = this->options().GetBool("match_play");
  match_target_ = static_cast<int>(this->options().Get("match_target"));
  turn_limit_ = num_players * static_cast<int>(this->options().Get("turn_limit_per_seat"));
}

int PicadiceState::CompletedColumns(uint32_t grid) {
  uint32_t columns = 0xF;
  for (int r = 0; r < kRows; ++r) columns &= grid >> (r * kColumns);
  return std::popcount(columns & 0xF);
}

int PicadiceState::Counters(uint32_t grid) { return std::popcount(grid); }

int PicadiceState::store(int colour) const {
  if (colour == kBlack) return kBlackCounters - nest_[kBlack - 1];
  int on_grids = 0;
  for (int p = 0; p < num_players(); ++p)
    on_grids += std::popcount(static_cast<unsigned>(row(p, colour)));
  return kCountersPerColour - nest_[colour - 1] - on_grids;
}

void PicadiceState::SetupImpl(Chance& chance) { StartRound(chance); }

void PicadiceState::StartRound(Chance& chance) {
  grids_.fill(0);
  nest_.fill(0);
  dice_.fill(0);
  turns_completed_ = 0;
  roll_off_.clear();
  // The roll-off (rules doc 3.7): everyone rolls, then only those tied for highest roll again.
  std::vector<int> contenders;
  for (int p = 0; p < num_players(); ++p) contenders.push_back(p);
  while (true) {
    RollOffRound roll;
    roll.seats = contenders;
    int highest = 0;
    for (size_t i = 0; i < contenders.size(); ++i) {
      roll.faces.push_back(chance.Roll(kColours));
      highest = std::max(highest, roll.faces.back());
    }
    contenders.clear();
    for (size_t i = 0; i < roll.seats.size(); ++i) {
      if (roll.faces[i] == highest) contenders.push_back(roll.seats[i]);
    }
    roll_off_.push_back(std::move(roll));
    if (contenders.size() == 1) break;
  }
  player_to_act_ = contenders[0];
  phase_ = Phase::kTurnStart;
}

std::unique_ptr<engine::State> PicadiceState::CloneImpl() const {
  return std::unique_ptr<engine::State>(new PicadiceState(*this));
}

SeatSet PicadiceState::ActingSeatsImpl() const {
  if (phase_ == Phase::kGameOver) return {};
  return SeatSet::Of(player_to_act_);
}

void PicadiceState::AppendPlacements(int seat, int colour, int count, Kind kind,
                                     std::vector<Action>* out) const {
  const int r = row(seat, colour);
  for (int s = 1; s + count - 1 <= kColumns; ++s) {
    if ((r & RunMask(s, count)) == 0) out->push_back(Encode(kind, 0, colour, s, 0));
  }
}

void PicadiceState::AppendRaids(int thief, int birds, Kind kind, std::vector<Action>* out) const {
  const bool may_place = kRows * kColumns - Counters(grids_[thief]) - birds >= 1;
  for (int victim = 0; victim < num_players(); ++victim) {
    if (victim == thief) continue;
    for (int colour = 1; colour <= kRows; ++colour) {
      const int victim_row = row(victim, colour);
      if (std::popcount(static_cast<unsigned>(victim_row)) < birds) continue;
      const int thief_row = row(thief, colour);
      for (int f = 1; f + birds - 1 <= kColumns; ++f) {
        const int taken = RunMask(f, birds);
        if ((victim_row & taken) != taken) continue;
        out->push_back(Encode(kind, victim, colour, f, 0));
        if (!may_place) continue;
        for (int s = 1; s + birds - 1 <= kColumns; ++s) {
          if ((thief_row & RunMask(s, birds)) == 0)
            out->push_back(Encode(kind, victim, colour, f, s));
        }
      }
    }
  }
}

void PicadiceState::LegalActionsImpl(int seat, std::vector<Action>* out) const {
  if (seat != player_to_act_) return;
  if (phase_ == Phase::kTurnStart) {
    out->push_back(RollAction());
    for (int colour = 1; colour <= kRows; ++colour) {
      const int k = nest_[colour - 1];
      if (k > 0) AppendPlacements(seat, colour, k, Kind::kStealFromNest, out);
    }
    if (nest_[kBlack - 1] > 0) AppendRaids(seat, nest_[kBlack - 1], Kind::kStealBlackFromNest, out);
  } else if (phase_ == Phase::kAfterRoll) {
    std::array<int, kColours + 1> shown{};
    for (int face : dice_) ++shown[face];
    for (int colour = 1; colour <= kRows; ++colour) {
      if (shown[colour] > 0) AppendPlacements(seat, colour, shown[colour], Kind::kUseColour, out);
    }
    if (shown[kBlack] > 0) AppendRaids(seat, shown[kBlack], Kind::kCallPicaBirds, out);
    out->push_back(DiscardAllAction());
  }
}

absl::Status PicadiceState::CheckShape(const DecodedAction& a, bool* decoded_ok) const {
  if (!*decoded_ok) {
    return Malformed(
        "the code is not a Picadice action (kind × 10000 + victim × 1000 + colour × 100 + "
        "column × 10 + destination; see picadice.h)");
  }
  if (IsRaid(a.kind) && a.victim >= num_players()) {
    return Malformed(absl::StrCat("the victim must be a seat of this game (0 to ",
                                  num_players() - 1, "); got ", a.victim));
  }
  if (a.colour == kBlack) {
    return NoBlackRow(IsRaid(a.kind) ? "the raid's row" : "the colour");
  }
  return absl::OkStatus();
}

absl::Status PicadiceState::CheckPlacement(int seat, int colour, int count,
                                           int start_column) const {
  if (start_column + count - 1 > kColumns) {
    return Rule("PLACEMENT_OFF_GRID",
                absl::StrCat(CountersText(count), " placed from column ", start_column,
                             " would run past column 4 of the ", ColourName(colour), " row"));
  }
  const int r = row(seat, colour);
  const int clash = r & RunMask(start_column, count);
  if (clash != 0) {
    return Rule("PLACEMENT_OCCUPIED",
                absl::StrCat("all counters must be placed beside each other on vacant circles; "
                             "column ",
                             std::countr_zero(static_cast<unsigned>(clash)) + 1, " of the ",
                             ColourName(colour), " row already holds a counter"));
  }
  return absl::OkStatus();
}

absl::Status PicadiceState::CheckRaid(int thief, int birds, const DecodedAction& a) const {
  if (a.victim == thief) {
    return Rule("CANNOT_ROB_SELF",
                "the Pica Birds steal counters from another player, never from their caller");
  }
  if (a.column + birds - 1 > kColumns) {
    return Rule("STEAL_OFF_GRID",
                absl::StrCat(BirdsText(birds), " take ", birds, " adjoining counters, and ",
                             ColumnsText(a.column, birds), " runs past column 4"));
  }
  const int taken = RunMask(a.column, birds);
  if ((row(a.victim, a.colour) & taken) != taken) {
    return Rule("STEAL_RUN_NOT_FILLED",
                absl::StrCat("all Pica Birds must be used together and multiple counters can "
                             "only be stolen when they are adjoining: ",
                             BirdsText(birds), " need counters in ", ColumnsText(a.column, birds),
                             " of seat ", a.victim, "'s ", ColourName(a.colour), " row"));
  }
  if (a.destination == 0) return absl::OkStatus();
  if (absl::Status s = CheckPlacement(thief, a.colour, birds, a.destination); !s.ok()) return s;
  if (kRows * kColumns - Counters(grids_[thief]) - birds < 1) {
    return Rule("PICA_BIRD_CANNOT_WIN",
                "the Pica Bird can never be used to win the game and cannot fill the final "
                "vacant space on a player's grid; discard the stolen counters instead");
  }
  return absl::OkStatus();
}

absl::Status PicadiceState::NotYourTurnImpl(int seat) const {
  // Whatever was sent, well-formed or not (engine/GAMES.md, "Refusals").
  return Rule("NOT_YOUR_TURN",
              absl::StrCat("it is seat ", player_to_act_, "'s turn, not seat ", seat, "'s"));
}

absl::Status PicadiceState::GameOverImpl(int) const {
  // Whatever was sent, well-formed or not (engine/GAMES.md, "Refusals").
  return Rule("GAME_OVER", "the game has ended; no further action is accepted");
}

absl::Status PicadiceState::CheckActionImpl(int seat, Action action) const {
  DecodedAction a;
  bool ok = DecodeAction(action, &a);
  if (absl::Status s = CheckShape(a, &ok); !s.ok()) return s;
  if (seat != player_to_act_) return NotYourTurnImpl(seat);
  const Kind kind = static_cast<Kind>(a.kind);
  const bool at_turn_start =
      kind == Kind::kRoll || kind == Kind::kStealFromNest || kind == Kind::kStealBlackFromNest;
  if (at_turn_start && phase_ != Phase::kTurnStart) {
    return Rule("WRONG_PHASE", absl::StrCat(KindName(a.kind),
                                            " is only allowed at the start of a turn, and the "
                                            "dice have been rolled: use them"));
  }
  if (!at_turn_start && phase_ != Phase::kAfterRoll) {
    return Rule("WRONG_PHASE", absl::StrCat(KindName(a.kind),
                                            " is only allowed after rolling the dice; the turn "
                                            "begins with Roll or a steal from the nest"));
  }
  std::array<int, kColours + 1> shown{};
  for (int face : dice_) ++shown[face];  // zeros in TURN_START land in shown[0]
  switch (kind) {
    case Kind::kRoll:
    case Kind::kDiscardAll:
      return absl::OkStatus();
    case Kind::kUseColour:
      if (shown[a.colour] == 0) {
        return Rule("COLOUR_NOT_ROLLED",
                    absl::StrCat("only a colour from the dice roll can be used, and no die shows ",
                                 ColourName(a.colour)));
      }
      return CheckPlacement(seat, a.colour, shown[a.colour], a.column);
    case Kind::kStealFromNest: {
      const int k = nest_[a.colour - 1];
      if (k == 0) {
        return Rule("NEST_COLOUR_EMPTY",
                    absl::StrCat("the nest holds no ", ColourName(a.colour), " counters to steal"));
      }
      return CheckPlacement(seat, a.colour, k, a.column);
    }
    case Kind::kCallPicaBirds:
      if (shown[kBlack] == 0) {
        return Rule("NO_PICA_BIRDS",
                    "the Pica Birds are called with the black colour of the roll, and no die "
                    "shows black");
      }
      return CheckRaid(seat, shown[kBlack], a);
    case Kind::kStealBlackFromNest:
      if (nest_[kBlack - 1] == 0) {
        return Rule("NEST_COLOUR_EMPTY", "the nest holds no black counters to steal");
      }
      return CheckRaid(seat, nest_[kBlack - 1], a);
  }
  return Malformed("unknown kind");
}

void PicadiceState::Discard(int colour, int count) {
  int& circle = nest_[colour - 1];
  circle += count;
  // More than 4: four go back to the store and the balance remains (rules doc 6.1).
  while (circle > kNestMax) circle -= kNestMax;
}

void PicadiceState::Raid(int thief, int birds, const DecodedAction& a) {
  const int shift = (a.colour - 1) * kColumns;
  grids_[a.victim] &= ~(static_cast<uint32_t>(RunMask(a.column, birds)) << shift);
  if (a.destination == 0) {
    Discard(a.colour, birds);
  } else {
    grids_[thief] |= static_cast<uint32_t>(RunMask(a.destination, birds)) << shift;
  }
}

void PicadiceState::ApplyImpl(int seat, Action action, Chance& chance) {
  DecodedAction a;
  DecodeAction(action, &a);
  const Kind kind = static_cast<Kind>(a.kind);
  if (kind == Kind::kRoll) {
    for (int& die : dice_) die = chance.Roll(kColours);
    phase_ = Phase::kAfterRoll;
    return;
  }
  if (kind == Kind::kStealFromNest) {
    int& circle = nest_[a.colour - 1];
    grids_[seat] |= static_cast<uint32_t>(RunMask(a.column, circle)) << ((a.colour - 1) * kColumns);
    circle = 0;
    EndTurn(seat, /*triple=*/false, chance);
    return;
  }
  if (kind == Kind::kStealBlackFromNest) {
    const int birds = nest_[kBlack - 1];
    nest_[kBlack - 1] = 0;  // the black counters go back to the store and become birds
    Raid(seat, birds, a);
    EndTurn(seat, /*triple=*/false, chance);
    return;
  }
  // After a roll: one use of the dice, then every unused die goes to the nest.
  const bool triple = dice_[0] == dice_[1] && dice_[1] == dice_[2];
  std::array<int, kColours + 1> shown{};
  for (int face : dice_) ++shown[face];
  if (kind == Kind::kUseColour) {
    grids_[seat] |= static_cast<uint32_t>(RunMask(a.column, shown[a.colour]))
                    << ((a.colour - 1) * kColumns);
    shown[a.colour] = 0;
  } else if (kind == Kind::kCallPicaBirds) {
    Raid(seat, shown[kBlack], a);
    shown[kBlack] = 0;  // the black dice became the birds
  }
  for (int colour = 1; colour <= kColours; ++colour) {
    if (shown[colour] > 0) Discard(colour, shown[colour]);
  }
  dice_.fill(0);
  EndTurn(seat, triple, chance);
}

void PicadiceState::EndTurn(int seat, bool triple, Chance& chance) {
  ++turns_completed_;
  phase_ = Phase::kTurnStart;
  const bool filled = grids_[seat] == kFullGrid;
  if (!filled && turns_completed_ < turn_limit_) {
    if (!triple) player_to_act_ = (seat + 1) % num_players();
    return;
  }
  RoundResult result;
  result.grids.assign(grids_.begin(), grids_.begin() + num_players());
  if (!filled) {
    round_results_.push_back(std::move(result));
    phase_ = Phase::kGameOver;
    end_reason_ = EndReason::kTurnLimit;
    return;
  }
  const int side = TeamOf(seat);
  result.winning_side = side;
  if (match_play_) {
    int lowest = kColumns;
    for (int p = 0; p < num_players(); ++p) {
      if (TeamOf(p) != side) lowest = std::min(lowest, CompletedColumns(grids_[p]));
    }
    result.points = kColumns - lowest;
    match_points_[side] += result.points;
  }
  round_results_.push_back(std::move(result));
  if (!match_play_) {
    phase_ = Phase::kGameOver;
    end_reason_ = EndReason::kGridFilled;
  } else if (match_points_[side] >= match_target_) {
    phase_ = Phase::kGameOver;
    end_reason_ = EndReason::kMatchTargetReached;
  } else {
    ++round_;
    StartRound(chance);
  }
}

int PicadiceState::ProgressKey(const std::vector<uint32_t>& grids, int side) const {
  int best = 0;
  for (int p = 0; p < num_players(); ++p) {
    if (TeamOf(p) != side) continue;
    best = std::max(best, CompletedColumns(grids[p]) * 100 + Counters(grids[p]));
  }
  return best;
}

std::vector<int> PicadiceState::SideRanks() const {
  const int sides = NumSidesFast();
  std::vector<int64_t> keys(sides, 0);
  const RoundResult* last = round_results_.empty() ? nullptr : &round_results_.back();
  for (int side = 0; side < sides; ++side) {
    const std::vector<uint32_t> current(grids_.begin(), grids_.begin() + num_players());
    const std::vector<uint32_t>& grids = last != nullptr ? last->grids : current;
    const bool won = last != nullptr && last->winning_side == side;
    keys[side] = (match_play_ ? int64_t{match_points_[side]} * 1'000'000 : 0) +
                 (won ? 100'000 : 0) + ProgressKey(grids, side);
  }
  std::vector<int> ranks(sides, 1);
  for (int side = 0; side < sides; ++side) {
    for (int other = 0; other < sides; ++other) {
      if (keys[other] > keys[side]) ++ranks[side];
    }
  }
  return ranks;
}

std::vector<int> PicadiceState::RanksImpl() const {
  const std::vector<int> side_ranks = SideRanks();
  std::vector<int> ranks(num_players());
  for (int p = 0; p < num_players(); ++p) ranks[p] = side_ranks[TeamOf(p)];
  return ranks;
}

std::vector<int64_t> PicadiceState::ScoresImpl() const {
  // Match play: the side's match points. A single game has no points; its measure of progress is
  // the side's completed columns (a full grid is 4).
  std::vector<int64_t> scores(num_players());
  for (int p = 0; p < num_players(); ++p) {
    const int side = TeamOf(p);
    if (match_play_) {
      scores[p] = match_points_[side];
    } else {
      const std::vector<uint32_t>& grids =
          round_results_.empty()
              ? std::vector<uint32_t>(grids_.begin(), grids_.begin() + num_players())
              : round_results_.back().grids;
      int best = 0;
      for (int q = 0; q < num_players(); ++q) {
        if (TeamOf(q) == side) best = std::max(best, CompletedColumns(grids[q]));
      }
      scores[p] = best;
    }
  }
  return scores;
}

std::string PicadiceState::EndReasonImpl() const {
  switch (end_reason_) {
    case EndReason::kGridFilled:
      return absl::StrCat("GRID_FILLED: seat ", player_to_act_, " filled their grid");
    case EndReason::kMatchTargetReached:
      return absl::StrCat("MATCH_TARGET_REACHED: side ", round_results_.back().winning_side,
                          " reached ", match_target_, " match points");
    case EndReason::kTurnLimit:
      return absl::StrCat("TURN_LIMIT: ", turn_limit_,
                          " turns were completed in the round without a winner");
    case EndReason::kNone:
      break;
  }
  return "the game is not over";
}

double PicadiceState::Heuristic(int seat) const {
  const int sides = NumSidesFast();
  const int mine = TeamOf(seat);
  if (IsTerminal()) {
    const std::vector<int> ranks = GetOutcome().ranks;
    return (sides - ranks[seat]) * 1000.0;
  }
  // A side's value: counters on its best grid, with a bonus for completed columns (they decide
  // match points and ranks) and, in a match, its match points.
  auto value = [&](int side) {
    double best = 0;
    for (int p = 0; p < num_players(); ++p) {
      if (TeamOf(p) != side) continue;
      best = std::max(best, Counters(grids_[p]) + 0.5 * CompletedColumns(grids_[p]));
    }
    return best + (match_play_ ? 25.0 * match_points_[side] : 0.0);
  };
  double best_other = -1e9;
  for (int side = 0; side < sides; ++side) {
    if (side != mine) best_other = std::max(best_other, value(side));
  }
  return value(mine) - best_other;
}

int PicadiceState::ActionKindImpl(Action action) const {
  DecodedAction a;
  if (!DecodeAction(action, &a)) return 0;
  return a.kind - 1;
}

void PicadiceState::ResampleHiddenImpl(int, engine::Rng&) {}

std::string PicadiceState::ActionToStringImpl(int, Action action) const {
  DecodedAction a;
  if (!DecodeAction(action, &a)) return absl::StrCat("malformed action ", action);
  auto raid_text = [&](int birds) {
    std::string text = absl::StrCat("steal from seat ", a.victim, "'s ", ColourName(a.colour),
                                    " row, ", ColumnsText(a.column, std::max(birds, 1)));
    if (a.destination == 0) return absl::StrCat(text, ", discard to the nest");
    return absl::StrCat(text, ", place at column ", a.destination);
  };
  std::array<int, kColours + 1> shown{};
  for (int face : dice_) ++shown[face];
  switch (static_cast<Kind>(a.kind)) {
    case Kind::kRoll:
      return "roll the dice";
    case Kind::kDiscardAll:
      return "discard all dice to the nest";
    case Kind::kUseColour:
      return absl::StrCat("use ", ColourName(a.colour), " at column ", a.column);
    case Kind::kStealFromNest:
      return absl::StrCat("take ", ColourName(a.colour), " from the nest to column ", a.column);
    case Kind::kCallPicaBirds:
      return absl::StrCat("call the Pica Birds: ", raid_text(shown[kBlack]));
    case Kind::kStealBlackFromNest:
      return absl::StrCat("take black from the nest: ", raid_text(nest_[kBlack - 1]));
  }
  return absl::StrCat("malformed action ", action);
}

std::unique_ptr<google::protobuf::Message> PicadiceState::ViewImpl(const engine::Viewer&) const {
  // No hidden information (rules doc section 4): every viewer gets the same view.
  auto view = std::make_unique<pb::PicadiceView>();
  view->set_players(num_players());
  view->set_team_play(team_play_);
  view->set_match_play(match_play_);
  view->set_match_target(match_target_);
  view->set_turn_limit(turn_limit_);
  for (int p = 0; p < num_players(); ++p) {
    pb::PicadiceGrid* grid = view->add_grids();
    grid->set_seat(p);
    grid->set_side(TeamOf(p));
    for (int colour = 1; colour <= kRows; ++colour) {
      pb::PicadiceRow* r = grid->add_rows();
      r->set_colour(static_cast<pb::PicadiceColour>(colour));
      for (int c = 0; c < kColumns; ++c) r->add_filled((row(p, colour) >> c & 1) != 0);
    }
    grid->set_completed_columns(CompletedColumns(grids_[p]));
    grid->set_counters(Counters(grids_[p]));
  }
  for (int colour = 1; colour <= kColours; ++colour) {
    pb::PicadiceColourCount* n = view->add_nest();
    n->set_colour(static_cast<pb::PicadiceColour>(colour));
    n->set_count(nest_[colour - 1]);
    pb::PicadiceColourCount* s = view->add_store();
    s->set_colour(static_cast<pb::PicadiceColour>(colour));
    s->set_count(store(colour));
  }
  const bool over = IsTerminal();
  view->set_phase(over ? pb::PICADICE_PHASE_GAME_OVER
                       : static_cast<pb::PicadicePhase>(static_cast<int>(phase_)));
  if (!over) view->set_player_to_act(player_to_act_);
  if (phase_ == Phase::kAfterRoll) {
    for (int face : dice_) view->add_dice(static_cast<pb::PicadiceColour>(face));
    view->set_triple_rolled(dice_[0] == dice_[1] && dice_[1] == dice_[2]);
  }
  view->set_turns_completed(turns_completed_);
  view->set_round(round_);
  for (int side = 0; side < NumSidesFast(); ++side) view->add_match_points(match_points_[side]);
  for (const RollOffRound& roll : roll_off_) {
    pb::PicadiceRollOffRound* out = view->add_roll_off();
    for (size_t i = 0; i < roll.seats.size(); ++i) {
      pb::PicadiceRollOffRoll* r = out->add_rolls();
      r->set_seat(roll.seats[i]);
      r->set_face(static_cast<pb::PicadiceColour>(roll.faces[i]));
    }
  }
  for (size_t i = 0; i < round_results_.size(); ++i) {
    const RoundResult& result = round_results_[i];
    pb::PicadiceRoundResult* out = view->add_round_results();
    out->set_round(static_cast<int>(i) + 1);
    if (result.winning_side >= 0) out->set_winning_side(result.winning_side);
    out->set_points(result.points);
    for (int p = 0; p < num_players(); ++p) {
      pb::PicadiceProgress* progress = out->add_players();
      progress->set_seat(p);
      progress->set_completed_columns(CompletedColumns(result.grids[p]));
      progress->set_counters(Counters(result.grids[p]));
    }
  }
  if (phase_ == Phase::kGameOver) {
    view->set_end_reason(static_cast<pb::PicadiceEndReason>(static_cast<int>(end_reason_)));
    if (end_reason_ != EndReason::kTurnLimit) {
      view->set_winning_side(round_results_.back().winning_side);
    }
  }
  const engine::State::Ending ending = GetEnding();
  for (int rank : ending.ranks) view->add_ranks(rank);
  view->set_game_over(over);
  view->set_end_reason_text(ending.reason);
  for (int seat : ending.forfeited_seats) view->add_forfeited_seats(seat);
  return view;
}

// ---- Snapshot ----------------------------------------------------------------------------------

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

namespace {

absl::Status Bad(absl::string_view what) { return absl::InvalidArgumentError(what); }

}  // namespace

absl::Status PicadiceState::LoadImpl(const google::protobuf::Any& in) {
  engine::picadice::PicadiceState s;
  if (!in.Is<engine::picadice::PicadiceState>() || !in.UnpackTo(&s)) {
    return Bad("not a parlor.engine.picadice.PicadiceState");
  }
  const int n = num_players();
  const int sides = NumSidesFast();
  if (s.phase() < pb::PICADICE_PHASE_TURN_START || s.phase() > pb::PICADICE_PHASE_GAME_OVER) {
    return Bad(absl::StrCat("phase: unknown value ", static_cast<int>(s.phase())));
  }
  const Phase phase = static_cast<Phase>(static_cast<int>(s.phase()));
  const bool over = phase == Phase::kGameOver;
  if (s.player_to_act() < 0 || s.player_to_act() >= n) {
    return Bad(absl::StrCat("player_to_act: ", s.player_to_act(), " is not a seat"));
  }
  if (phase == Phase::kAfterRoll) {
    if (s.dice_size() != kDice) return Bad("dice: AFTER_ROLL needs exactly 3 dice");
    for (int face : s.dice()) {
      if (face < 1 || face > kColours) return Bad(absl::StrCat("dice: face ", face, " is not 1-6"));
    }
  } else if (s.dice_size() != 0) {
    return Bad("dice: only AFTER_ROLL has dice");
  }
  if (s.grids_size() != n) return Bad(absl::StrCat("grids: need one per seat (", n, ")"));
  for (uint32_t g : s.grids()) {
    if (g > kFullGrid) return Bad("grids: only the low 20 bits may be set");
  }
  if (s.nest_size() != kColours) return Bad("nest: need 6 counts");
  for (int count : s.nest()) {
    if (count < 0 || count > kNestMax)
      return Bad(absl::StrCat("nest: count ", count, " is not 0-4"));
  }
  for (int colour = 1; colour <= kRows; ++colour) {
    int used = s.nest(colour - 1);
    for (uint32_t g : s.grids()) used += std::popcount((g >> ((colour - 1) * kColumns)) & 0xF);
    if (used > kCountersPerColour) {
      return Bad(absl::StrCat("grids/nest: more than 20 ", ColourName(colour), " counters"));
    }
  }
  const int max_rounds = MaxRounds(match_play_, sides, match_target_);
  if (s.round() < 1 || s.round() > max_rounds) {
    return Bad(absl::StrCat("round: ", s.round(), " is not 1-", max_rounds));
  }
  if (s.turns_completed() < 0 || s.turns_completed() > turn_limit_ ||
      (!over && s.turns_completed() == turn_limit_)) {
    return Bad(absl::StrCat("turns_completed: ", s.turns_completed(), " is outside the turn limit ",
                            turn_limit_));
  }
  // The roll-off: all seats, then the seats tied for highest, until one is highest alone.
  if (s.roll_off_size() == 0 || s.roll_off_size() > 1000) return Bad("roll_off: missing");
  std::vector<int> expected;
  for (int p = 0; p < n; ++p) expected.push_back(p);
  std::vector<RollOffRound> roll_off;
  for (const engine::picadice::RollOffRound& r : s.roll_off()) {
    if (expected.size() < 2 && !roll_off.empty()) return Bad("roll_off: rolls after a winner");
    if (r.seats_size() != static_cast<int>(expected.size()) ||
        !std::equal(expected.begin(), expected.end(), r.seats().begin()) ||
        r.faces_size() != r.seats_size()) {
      return Bad("roll_off: a roll-off round must hold the seats tied for highest");
    }
    int highest = 0;
    for (int face : r.faces()) {
      if (face < 1 || face > kColours) return Bad("roll_off: face is not 1-6");
      highest = std::max(highest, face);
    }
    RollOffRound round;
    round.seats.assign(r.seats().begin(), r.seats().end());
    round.faces.assign(r.faces().begin(), r.faces().end());
    expected.clear();
    for (size_t i = 0; i < round.seats.size(); ++i) {
      if (round.faces[i] == highest) expected.push_back(round.seats[i]);
    }
    roll_off.push_back(std::move(round));
  }
  if (expected.size() != 1) return Bad("roll_off: the roll-off has no single winner");
  // Finished rounds, and the match points they scored.
  if (s.round_results_size() != s.round() - (over ? 0 : 1)) {
    return Bad("round_results: need one per finished round");
  }
  if (s.match_points_size() != sides) return Bad("match_points: need one per side");
  std::array<int, kMaxPlayers> points{};
  std::vector<RoundResult> results;
  for (int i = 0; i < s.round_results_size(); ++i) {
    const engine::picadice::RoundResult& r = s.round_results(i);
    const bool last = i + 1 == s.round_results_size();
    RoundResult result;
    if (r.grids_size() != n) return Bad("round_results: need one grid per seat");
    result.grids.assign(r.grids().begin(), r.grids().end());
    result.winning_side = r.winning_side();
    result.points = r.points();
    for (uint32_t g : result.grids) {
      if (g > kFullGrid) return Bad("round_results: only the low 20 bits may be set");
    }
    if (result.winning_side < -1 || result.winning_side >= sides) {
      return Bad("round_results: winning_side is not a side");
    }
    if (result.winning_side == -1 && !(last && over)) {
      return Bad("round_results: only the final round may end without a winner");
    }
    int lowest = kColumns;
    bool winner_full = false;
    for (int p = 0; p < n; ++p) {
      const bool full = result.grids[p] == kFullGrid;
      if (TeamOf(p) == result.winning_side) {
        winner_full = winner_full || full;
      } else {
        if (full) return Bad("round_results: a losing player has a full grid");
        lowest = std::min(lowest, CompletedColumns(result.grids[p]));
      }
    }
    if (result.winning_side >= 0 && !winner_full) {
      return Bad("round_results: the winning side has no full grid");
    }
    const int expected_points = match_play_ && result.winning_side >= 0 ? kColumns - lowest : 0;
    if (result.points != expected_points) return Bad("round_results: wrong points");
    if (result.winning_side >= 0) points[result.winning_side] += result.points;
    for (int side = 0; side < sides; ++side) {
      if (points[side] >= match_target_ && !(last && over)) {
        return Bad("round_results: the match target was reached before the last round");
      }
    }
    results.push_back(std::move(result));
  }
  for (int side = 0; side < sides; ++side) {
    if (s.match_points(side) != points[side]) {
      return Bad("match_points: do not match the round results");
    }
  }
  const int end = static_cast<int>(s.end_reason());
  if (!over) {
    if (end != 0) return Bad("end_reason: set before the game is over");
    for (uint32_t g : s.grids()) {
      if (g == kFullGrid) return Bad("grids: a full grid ends the round");
    }
  } else {
    const RoundResult& last = results.back();
    if (!std::equal(last.grids.begin(), last.grids.end(), s.grids().begin())) {
      return Bad("grids: must be the last round's grids when the game is over");
    }
    if (s.turns_completed() == 0) return Bad("turns_completed: a finished round has turns");
    bool consistent = false;
    if (end == pb::PICADICE_END_REASON_GRID_FILLED) {
      consistent = !match_play_ && last.winning_side >= 0;
    } else if (end == pb::PICADICE_END_REASON_MATCH_TARGET_REACHED) {
      consistent =
          match_play_ && last.winning_side >= 0 && points[last.winning_side] >= match_target_;
    } else if (end == pb::PICADICE_END_REASON_TURN_LIMIT) {
      consistent = last.winning_side == -1 && s.turns_completed() == turn_limit_;
    }
    if (!consistent) return Bad("end_reason: does not match the last round");
    if (last.winning_side >= 0 && TeamOf(s.player_to_act()) != last.winning_side) {
      return Bad("player_to_act: must be the player who filled the grid");
    }
    if (last.winning_side >= 0 && s.grids(s.player_to_act()) != kFullGrid) {
      return Bad("player_to_act: must be the player who filled the grid");
    }
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

// ---- Game --------------------------------------------------------------------------------------

PicadiceGame::PicadiceGame()
    : Game(engine::GameInfo{
          .name = kGameName,
          .display_name = "Picadice",
          .summary =
              "A dice race for 2 to 4 players: fill your grid of 5 coloured rows by 4 columns "
              "first. Roll three dice and place one colour, send the black Pica Birds to steal "
              "a neighbour's counters, or raid the shared nest. Triples earn another turn; "
              "doubles (2 v 2) and match play to a points target are options.",
          .min_players = 2,
          .max_players = 4,
          .has_teams = true,
          .options =
              {
                  engine::OptionSpec::Bool(
                      "team_play",
                      "Doubles: seats 0 and 1 play against seats 2 and 3; one filled grid wins "
                      "for the team (4 players only).",
                      false),
                  engine::OptionSpec::Bool("match_play",
                                           "Play rounds until a side reaches match_target "
                                           "points (4 minus the lowest opponent's completed "
                                           "columns per won round).",
                                           false),
                  engine::OptionSpec::Int("match_target",
                                          "Match points that win a match (5 in Championship "
                                          "play); ignored unless match_play.",
                                          5, 1, 25),
                  engine::OptionSpec::Int("turn_limit_per_seat",
                                          "Stall guard: a round ends without a winner after "
                                          "players times this many completed turns.",
                                          150, 25, 1000),
              },
          .action_kinds = {"roll", "steal_from_nest", "steal_black_from_nest", "use_colour",
                           "call_pica_birds", "discard_all"},
      }) {}

const google::protobuf::Descriptor* PicadiceGame::ActionDescriptor() const {
  return pb::PicadiceAction::descriptor();
}

const google::protobuf::Descriptor* PicadiceGame::ViewDescriptor() const {
  return pb::PicadiceView::descriptor();
}

absl::Status PicadiceGame::ValidateSetup(int num_players, const Options& options) const {
  if (options.GetBool("team_play") && num_players != 4) {
    return absl::InvalidArgumentError(absl::StrCat(
        "team_play: doubles is two teams of two and needs exactly 4 players; got ", num_players));
  }
  return absl::OkStatus();
}

std::unique_ptr<engine::State> PicadiceGame::CreateState(
    int num_players, std::shared_ptr<const Options> options) const {
  return std::make_unique<PicadiceState>(*this, num_players, std::move(options));
}

int64_t PicadiceGame::MaxMoves(int num_players, const Options& options) const {
  const int sides = options.GetBool("team_play") ? 2 : num_players;
  const int64_t rounds = MaxRounds(options.GetBool("match_play"), sides,
                                   static_cast<int>(options.Get("match_target")));
  // Every turn is at most two moves (Roll, then one use); every seat may forfeit once.
  return rounds * num_players * options.Get("turn_limit_per_seat") * 2 + num_players;
}

namespace {

absl::StatusOr<int> RowColour(pb::PicadiceColour colour, absl::string_view field) {
  const int value = static_cast<int>(colour);
  if (value == kBlack) return NoBlackRow(field);
  if (value < 1 || value > kRows) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ": MALFORMED_ACTION: must be a row colour (orange to purple); got ", value));
  }
  return value;
}

absl::StatusOr<int> Column(int32_t column, absl::string_view field) {
  if (column < 1 || column > kColumns) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": MALFORMED_ACTION: must be a column 1-4; got ", column));
  }
  return column;
}

absl::StatusOr<Action> RaidFromProto(Kind kind, bool has_raid, const pb::PicadiceRaid& raid,
                                     absl::string_view field) {
  if (!has_raid) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ".raid: MALFORMED_ACTION: the raid must be set"));
  }
  const std::string prefix = absl::StrCat(field, ".raid.");
  if (raid.victim_seat() < 0 || raid.victim_seat() >= kMaxPlayers) {
    return absl::InvalidArgumentError(absl::StrCat(
        prefix, "victim_seat: MALFORMED_ACTION: must be a seat 0-3; got ", raid.victim_seat()));
  }
  absl::StatusOr<int> row = RowColour(raid.row(), absl::StrCat(prefix, "row"));
  if (!row.ok()) return row.status();
  absl::StatusOr<int> from = Column(raid.from_column(), absl::StrCat(prefix, "from_column"));
  if (!from.ok()) return from.status();
  int destination = 0;
  switch (raid.destination_case()) {
    case pb::PicadiceRaid::kDiscard:
      break;
    case pb::PicadiceRaid::kPlaceAtColumn: {
      absl::StatusOr<int> at =
          Column(raid.place_at_column(), absl::StrCat(prefix, "place_at_column"));
      if (!at.ok()) return at.status();
      destination = *at;
      break;
    }
    default:
      return absl::InvalidArgumentError(
          absl::StrCat(prefix, "destination: MALFORMED_ACTION: set discard or place_at_column"));
  }
  return Encode(kind, raid.victim_seat(), *row, *from, destination);
}

}  // namespace

absl::StatusOr<Action> PicadiceGame::ActionFromProto(
    const google::protobuf::Message& message) const {
  pb::PicadiceAction copy;
  const pb::PicadiceAction* action = dynamic_cast<const pb::PicadiceAction*>(&message);
  if (action == nullptr) {
    if (message.GetDescriptor()->full_name() != pb::PicadiceAction::descriptor()->full_name() ||
        !copy.ParseFromString(message.SerializeAsString())) {
      return absl::InvalidArgumentError(
          absl::StrCat("action: expected a ", pb::PicadiceAction::descriptor()->full_name(),
                       "; got ", message.GetDescriptor()->full_name()));
    }
    action = &copy;
  }
  switch (action->action_case()) {
    case pb::PicadiceAction::kRoll:
      return RollAction();
    case pb::PicadiceAction::kDiscardAll:
      return DiscardAllAction();
    case pb::PicadiceAction::kUseColour:
    case pb::PicadiceAction::kStealFromNest: {
      const bool use = action->action_case() == pb::PicadiceAction::kUseColour;
      const absl::string_view field = use ? "use_colour" : "steal_from_nest";
      const pb::PicadiceColour colour =
          use ? action->use_colour().colour() : action->steal_from_nest().colour();
      const int32_t start =
          use ? action->use_colour().start_column() : action->steal_from_nest().start_column();
      absl::StatusOr<int> c = RowColour(colour, absl::StrCat(field, ".colour"));
      if (!c.ok()) return c.status();
      absl::StatusOr<int> s = Column(start, absl::StrCat(field, ".start_column"));
      if (!s.ok()) return s.status();
      return Encode(use ? Kind::kUseColour : Kind::kStealFromNest, 0, *c, *s, 0);
    }
    case pb::PicadiceAction::kCallPicaBirds:
      return RaidFromProto(Kind::kCallPicaBirds, action->call_pica_birds().has_raid(),
                           action->call_pica_birds().raid(), "call_pica_birds");
    case pb::PicadiceAction::kStealBlackFromNest:
      return RaidFromProto(Kind::kStealBlackFromNest, action->steal_black_from_nest().has_raid(),
                           action->steal_black_from_nest().raid(), "steal_black_from_nest");
    case pb::PicadiceAction::ACTION_NOT_SET:
      break;
  }
  return absl::InvalidArgumentError(
      "action: MALFORMED_ACTION: set exactly one of roll, steal_from_nest, "
      "steal_black_from_nest, use_colour, call_pica_birds, discard_all");
}

std::unique_ptr<google::protobuf::Message> PicadiceGame::ActionToProto(Action action) const {
  auto out = std::make_unique<pb::PicadiceAction>();
  DecodedAction a;
  if (!DecodeAction(action, &a)) return out;
  auto fill_raid = [&](pb::PicadiceRaid* raid) {
    raid->set_victim_seat(a.victim);
    raid->set_row(static_cast<pb::PicadiceColour>(a.colour));
    raid->set_from_column(a.column);
    if (a.destination == 0) {
      raid->mutable_discard();
    } else {
      raid->set_place_at_column(a.destination);
    }
  };
  switch (static_cast<Kind>(a.kind)) {
    case Kind::kRoll:
      out->mutable_roll();
      break;
    case Kind::kDiscardAll:
      out->mutable_discard_all();
      break;
    case Kind::kUseColour:
      out->mutable_use_colour()->set_colour(static_cast<pb::PicadiceColour>(a.colour));
      out->mutable_use_colour()->set_start_column(a.column);
      break;
    case Kind::kStealFromNest:
      out->mutable_steal_from_nest()->set_colour(static_cast<pb::PicadiceColour>(a.colour));
      out->mutable_steal_from_nest()->set_start_column(a.column);
      break;
    case Kind::kCallPicaBirds:
      fill_raid(out->mutable_call_pica_birds()->mutable_raid());
      break;
    case Kind::kStealBlackFromNest:
      fill_raid(out->mutable_steal_black_from_nest()->mutable_raid());
      break;
  }
  return out;
}

void Register(engine::Registry& registry) { registry.Add(std::make_unique<PicadiceGame>()); }

}  // namespace parlor::games::picadice
