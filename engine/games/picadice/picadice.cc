// Picadice's rules: the game's metadata, action codes, the round's set-up, legal actions and their
// checks, applying them and the outcome. Views and action messages: picadice_view.cc; the
// snapshot: picadice_snapshot.cc.
#include "engine/games/picadice/picadice.h"

#include <algorithm>
#include <bit>
#include <utility>

#include "absl/strings/str_cat.h"
#include "engine/games/picadice/picadice_internal.h"

namespace parlor::games::picadice {
namespace {

using engine::Chance;
using engine::Options;
using engine::SeatSet;
using internal::ColourName;
using internal::ColumnsText;
using internal::Encode;
using internal::MaxRounds;
using internal::NoBlackRow;

constexpr char kGameName[] = "picadice";

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

std::string CountersText(int count) {
  return count == 1 ? "1 counter" : absl::StrCat(count, " counters");
}

std::string BirdsText(int count) {
  return count == 1 ? "1 Pica Bird" : absl::StrCat(count, " Pica Birds");
}

absl::Status Malformed(absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("MALFORMED_ACTION: ", what));
}

absl::Status Rule(absl::string_view code, absl::string_view text) {
  return absl::FailedPreconditionError(absl::StrCat(code, ": ", text));
}

bool IsRaid(int kind) {
  return kind == static_cast<int>(Kind::kStealBlackFromNest) ||
         kind == static_cast<int>(Kind::kCallPicaBirds);
}

bool IsPlacement(int kind) {
  return kind == static_cast<int>(Kind::kStealFromNest) ||
         kind == static_cast<int>(Kind::kUseColour);
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
          .choices_public = true,
      }) {}

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

void Register(engine::Registry& registry) { registry.Add(std::make_unique<PicadiceGame>()); }

}  // namespace parlor::games::picadice
