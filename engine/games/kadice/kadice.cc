// KA'DICE!'s rules: the cards, the game's metadata, rounds, turns, card wars, legal actions and
// their checks, applying them and the outcome. Action codes and messages, texts and views:
// kadice_view.cc; the snapshot: kadice_snapshot.cc.
#include "engine/games/kadice/kadice.h"

#include <algorithm>
#include <bit>
#include <numeric>
#include <span>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/games/kadice/kadice_internal.h"

namespace parlor::games::kadice {
namespace {

using engine::Action;
using internal::kAllDice;
using internal::kEliminateBase;
using internal::kHoldBase;
using internal::kRollBase;
using internal::SeatListWords;
using internal::SeatName;

constexpr const char* kCardNames[kNumCards] = {
    "SINGLE PAIR 1",  "SINGLE PAIR 2", "SINGLE PAIR 3", "SINGLE PAIR 4", "SINGLE PAIR 5",
    "SINGLE PAIR 6",  "3 OF A KIND",   "10 OR UNDER",   "25 OR OVER",    "2 PAIRS",
    "SMALL STRAIGHT", "FULL HOUSE",    "ALL EVENS",     "ALL ODDS",      "4 OF A KIND",
    "LARGE STRAIGHT", "KA'DICE"};

bool IsSinglePair(int card) { return card >= kSinglePair1 && card <= kSinglePair6; }
int WildNumber(int card) { return card - kSinglePair1 + 1; }
std::string DiceString(const Dice& dice) {
  return absl::StrCat("[", dice[0], ",", dice[1], ",", dice[2], ",", dice[3], ",", dice[4], "]");
}

// Why `dice` do not meet `card`'s requirement: "needs two 5s; your dice [4,4,1,2,6] show none".
std::string UnmetReason(int card, const Dice& dice) {
  const std::string shown = DiceString(dice);
  if (IsSinglePair(card)) {
    const int n = WildNumber(card);
    const int count = static_cast<int>(std::count(dice.begin(), dice.end(), n));
    return absl::StrCat("needs two ", n, "s; your dice ", shown, " show ",
                        count == 0 ? "none" : "only one");
  }
  const int total = std::accumulate(dice.begin(), dice.end(), 0);
  switch (card) {
    case kThreeOfAKind:
      return absl::StrCat("needs three dice showing the same number; your dice ", shown, " do not");
    case kTenOrUnder:
      return absl::StrCat("needs a total of 10 or less; your dice ", shown, " total ", total);
    case kTwentyFiveOrOver:
      return absl::StrCat("needs a total of 25 or more; your dice ", shown, " total ", total);
    case kTwoPairs:
      return absl::StrCat("needs two pairs; your dice ", shown, " do not show them");
    case kSmallStraight:
      return absl::StrCat("needs four consecutive numbers; your dice ", shown, " do not show them");
    case kFullHouse:
      return absl::StrCat("needs three of one number and two of another; your dice ", shown,
                          " do not show that");
    case kAllEvens:
      return absl::StrCat("needs all five dice even; your dice ", shown, " are not");
    case kAllOdds:
      return absl::StrCat("needs all five dice odd; your dice ", shown, " are not");
    case kFourOfAKind:
      return absl::StrCat("needs four dice showing the same number; your dice ", shown, " do not");
    case kLargeStraight:
      return absl::StrCat("needs five consecutive numbers; your dice ", shown, " do not show them");
    default:
      return absl::StrCat("needs five different numbers with no four in a row; your dice ", shown,
                          " do not show that");
  }
}

absl::Status Refuse(absl::string_view message) { return absl::FailedPreconditionError(message); }

}  // namespace

// ---- Cards and dice --------------------------------------------------------------------------

std::string CardName(int card) {
  if (card < 0 || card >= kNumCards) return "no card";
  return kCardNames[card];
}

uint32_t MetCards(const Dice& dice) {
  int count[7] = {0, 0, 0, 0, 0, 0, 0};
  int total = 0;
  uint32_t shown = 0;  // bit v-1 for each value v shown
  for (int8_t d : dice) {
    ++count[d];
    total += d;
    shown |= 1u << (d - 1);
  }
  int max_count = 0, pairs = 0;
  bool has_three = false, has_two = false;
  uint32_t met = 0;
  for (int v = 1; v <= 6; ++v) {
    max_count = std::max(max_count, count[v]);
    pairs += count[v] / 2;
    has_three |= count[v] == 3;
    has_two |= count[v] == 2;
    if (count[v] >= 2) met |= 1u << (kSinglePair1 + v - 1);
  }
  if (max_count >= 3) met |= 1u << kThreeOfAKind;
  if (max_count >= 4) met |= 1u << kFourOfAKind;
  if (total <= 10) met |= 1u << kTenOrUnder;
  if (total >= 25) met |= 1u << kTwentyFiveOrOver;
  if (pairs >= 2) met |= 1u << kTwoPairs;
  if (has_three && has_two) met |= 1u << kFullHouse;
  const bool small_straight = (shown & 0b001111) == 0b001111 || (shown & 0b011110) == 0b011110 ||
                              (shown & 0b111100) == 0b111100;
  if (small_straight) met |= 1u << kSmallStraight;
  if (shown == 0b011111 || shown == 0b111110) met |= 1u << kLargeStraight;
  if ((shown & 0b010101) == 0) met |= 1u << kAllEvens;  // no 1, 3 or 5
  if ((shown & 0b101010) == 0) met |= 1u << kAllOdds;   // no 2, 4 or 6
  if (std::popcount(shown) == 5 && !small_straight) met |= 1u << kKadice;
  return met;
}

bool IsFiveOfAKind(const Dice& dice) {
  return dice[0] == dice[1] && dice[1] == dice[2] && dice[2] == dice[3] && dice[3] == dice[4];
}

// ---- Game ------------------------------------------------------------------------------------

KadiceGame::KadiceGame()
    : engine::Game(engine::GameInfo{
          .name = "kadice",
          .display_name = "KA'DICE!",
          .summary =
              "Each player has a deck of 17 combination cards and five dice; the top card is the "
              "active card, and rolling the combination on an opponent's active card eliminates "
              "it. Rounds of up to three turns: roll, use your card's ability, eliminate or hold "
              "up to four dice. Players without cards become ghosts who may be revived by a "
              "lucky roll; the last player with cards wins.",
          .min_players = kMinPlayers,
          .max_players = kMaxPlayers,
          .has_teams = false,
          .options = {engine::OptionSpec::Int(
              "max_rounds",
              "If the game has not ended when this round ends, it ends then and players are "
              "ranked by cards left.",
              100, 30, 500)},
          .action_kinds = {"roll", "set_die", "shift_die", "eliminate", "hold"},
          .choices_public = true,
      }) {}

int64_t KadiceGame::MaxMoves(int num_players, const engine::Options& options) const {
  // Per turn at most: Roll, then for each of at most two rolls (turn roll, bonus roll) five
  // SetDie, one ShiftDie and a final Eliminate or Hold. Three turns per player per round. Plus
  // one forfeit per seat.
  constexpr int64_t kMovesPerTurn = 1 + 2 * (kNumDice + 1 + 1);
  return options.Get("max_rounds") * num_players * kMaxTurnsPerRound * kMovesPerTurn + num_players;
}

std::unique_ptr<engine::State> KadiceGame::CreateState(
    int num_players, std::shared_ptr<const engine::Options> options) const {
  return std::make_unique<KadiceState>(*this, num_players, std::move(options));
}

// ---- State: setup and flow -------------------------------------------------------------------

KadiceState::KadiceState(const engine::Game& game, int num_players,
                         std::shared_ptr<const engine::Options> options)
    : engine::State(game, num_players, options),
      max_rounds_(static_cast<int>(options->Get("max_rounds"))) {}

std::unique_ptr<engine::State> KadiceState::CloneImpl() const {
  return std::unique_ptr<engine::State>(new KadiceState(*this));
}

void KadiceState::SetupImpl(engine::Chance& chance) {
  // 1. Each player's 17 cards are shuffled into the deck (recorded order: top card first).
  for (int seat = 0; seat < num_players(); ++seat) {
    std::array<int32_t, kNumCards> order;
    std::iota(order.begin(), order.end(), 0);
    chance.Shuffle(order);
    Player& p = players_[seat];
    for (int i = 0; i < kNumCards; ++i) p.deck[i] = static_cast<int8_t>(order[i]);
    p.deck_top = 0;
  }
  round_ = 1;
  // 2. Dealer war.
  dealer_ = static_cast<int8_t>(
      RollOff(static_cast<uint8_t>((1u << num_players()) - 1), kNoCard, chance));
  // 3. Active cards.
  for (int seat = 0; seat < num_players(); ++seat) {
    Player& p = players_[seat];
    p.active = p.deck[p.deck_top++];
  }
  // 4. Wars; 5. the first turn of round 1.
  PushRoundStart();
  FightWars(chance);
  if (phase_ == Phase::kGameOver) return;
  StartRoundTurns();
}

void KadiceState::PushRoundStart() {
  Event event;
  event.kind = Event::kRoundStart;
  event.seat = dealer_;
  event.round = round_;
  events_.push_back(std::move(event));
}

int KadiceState::RollOff(uint8_t participants, int card, engine::Chance& chance) {
  Event event;
  event.kind = Event::kRollOff;
  event.card = static_cast<int8_t>(card);
  event.participants = participants;
  uint32_t tied = participants;
  int dice_each = 1;
  int winner = -1;
  for (int roll = 0; roll < kMaxRollOffRolls && winner < 0; ++roll) {
    int best = -1;
    uint32_t best_seats = 0;
    for (uint32_t m = tied; m != 0; m &= m - 1) {
      const int seat = std::countr_zero(m);
      int total = 0;
      for (int d = 0; d < dice_each; ++d) {
        const int face = chance.Roll(6);
        event.dice.push_back(static_cast<int8_t>(face));
        total += face;
      }
      if (total > best) {
        best = total;
        best_seats = 1u << seat;
      } else if (total == best) {
        best_seats |= 1u << seat;
      }
    }
    if (std::popcount(best_seats) == 1) winner = std::countr_zero(best_seats);
    tied = best_seats;
    dice_each = std::min(dice_each + 1, kNumDice);
  }
  if (winner < 0) {
    // Still tied after 50 rolls: drawn by lot among those tied (rules 5.2.3).
    int pick = chance.Uniform(std::popcount(tied));
    uint32_t m = tied;
    while (pick-- > 0) m &= m - 1;
    winner = std::countr_zero(m);
    event.flag = true;
  }
  event.seat = static_cast<int8_t>(winner);
  events_.push_back(std::move(event));
  return winner;
}

void KadiceState::Discard(int seat, int moment) {
  Player& p = players_[seat];
  p.discard[p.discard_size++] = p.active;
  p.active = kNoCard;
  if (p.deck_size() == 0) {
    p.ghost = true;
    p.ghost_round = round_;
    p.ghost_moment = static_cast<int16_t>(moment);
    p.held = 0;
  }
}

void KadiceState::FightWars(engine::Chance& chance) {
  while (true) {
    uint32_t seen = 0, duplicated = 0;
    for (int seat = 0; seat < num_players(); ++seat) {
      const Player& p = players_[seat];
      if (p.active < 0) continue;
      const uint32_t bit = 1u << p.active;
      if (seen & bit) duplicated |= bit;
      seen |= bit;
    }
    if (duplicated == 0) return;
    const int card = std::countr_zero(duplicated);
    uint8_t participants = 0;
    for (int seat = 0; seat < num_players(); ++seat) {
      if (players_[seat].active == card) participants |= static_cast<uint8_t>(1u << seat);
    }
    const int winner = RollOff(participants, card, chance);
    const int moment = ghost_moments_ + 1;
    bool ghosted = false;
    for (int seat = 0; seat < num_players(); ++seat) {
      if (seat == winner || !(participants >> seat & 1u)) continue;
      Player& p = players_[seat];
      Discard(seat, moment);
      if (p.ghost) {
        ghosted = true;
      } else {
        p.active = p.deck[p.deck_top++];
      }
    }
    if (ghosted) ghost_moments_ = static_cast<int16_t>(moment);
    if (NonGhostCount() <= 1) {
      EndGame(EndReason::kLastPlayer);
      return;
    }
  }
}

int KadiceState::NonGhostCount() const {
  int count = 0;
  for (int seat = 0; seat < num_players(); ++seat) count += players_[seat].ghost ? 0 : 1;
  return count;
}

bool KadiceState::Eligible(int seat) const {
  const Player& p = players_[seat];
  return !p.ghost && p.active >= 0 && p.turns_taken < kMaxTurnsPerRound && !p.finished;
}

int KadiceState::NextEligibleAfter(int seat) const {
  for (int i = 1; i <= num_players(); ++i) {
    const int s = (seat + i) % num_players();
    if (Eligible(s)) return s;
  }
  return -1;
}

void KadiceState::StartRoundTurns() {
  // The dealer if eligible, otherwise the first eligible player after the dealer (5.4).
  const int first = Eligible(dealer_) ? dealer_ : NextEligibleAfter(dealer_);
  current_ = static_cast<int8_t>(first);
  phase_ = Phase::kAwaitRoll;
  rolled_mask_ = set_mask_ = 0;
  five_of_a_kind_ = turn_shift_used_ = bonus_pending_ = false;
}

void KadiceState::EndGame(EndReason reason) {
  phase_ = Phase::kGameOver;
  end_reason_ = reason;
  current_ = -1;
  rolled_mask_ = set_mask_ = 0;
  five_of_a_kind_ = turn_shift_used_ = bonus_pending_ = false;
}

void KadiceState::EndTurn(engine::Chance& chance) {
  last_player_ = current_;
  const int next = NextEligibleAfter(current_);
  rolled_mask_ = set_mask_ = 0;
  five_of_a_kind_ = turn_shift_used_ = bonus_pending_ = false;
  if (next >= 0) {
    current_ = static_cast<int8_t>(next);
    phase_ = Phase::kAwaitRoll;
    return;
  }
  EndRound(chance);
}

void KadiceState::EndRound(engine::Chance& chance) {
  // 1. The round limit.
  if (round_ >= max_rounds_) {
    EndGame(EndReason::kRoundLimit);
    return;
  }
  // 2. Ghost rolls, compared with the cards in play when the round's last turn ended.
  uint32_t cards_in_play = 0;
  for (int seat = 0; seat < num_players(); ++seat) {
    if (players_[seat].active >= 0) cards_in_play |= 1u << players_[seat].active;
  }
  uint32_t matched = 0;
  std::array<int, kMaxPlayers> ghost_event{-1, -1, -1, -1};
  for (int i = 0; i < num_players(); ++i) {
    const int seat = (dealer_ + i) % num_players();
    Player& p = players_[seat];
    if (!p.ghost || p.ghost_round >= round_) continue;
    for (int d = 0; d < kNumDice; ++d) p.dice[d] = static_cast<int8_t>(chance.Roll(6));
    const bool match = IsFiveOfAKind(p.dice) || (MetCards(p.dice) & cards_in_play) != 0;
    if (match) matched |= 1u << seat;
    ghost_event[seat] = static_cast<int>(events_.size());
    events_.push_back({.kind = Event::kGhostRoll,
                       .seat = static_cast<int8_t>(seat),
                       .flag = match,
                       .dice = {p.dice.begin(), p.dice.end()}});
  }
  // 3. Revivals, in the same order: one card drawn at random from the discard pile.
  for (int i = 0; i < num_players(); ++i) {
    const int seat = (dealer_ + i) % num_players();
    if (!(matched >> seat & 1u)) continue;
    Player& p = players_[seat];
    const int pick = chance.Uniform(p.discard_size);
    p.active = p.discard[pick];
    std::copy(p.discard.begin() + pick + 1, p.discard.begin() + p.discard_size,
              p.discard.begin() + pick);
    --p.discard_size;
    p.ghost = false;
    p.held = 0;
    events_[ghost_event[seat]].card = p.active;
  }
  // 4. The dealer button moves to the next player who is not a ghost.
  for (int i = 1; i <= num_players(); ++i) {
    const int seat = (dealer_ + i) % num_players();
    if (!players_[seat].ghost) {
      dealer_ = static_cast<int8_t>(seat);
      break;
    }
  }
  // 5. The next round; per-round marks reset.
  ++round_;
  for (int seat = 0; seat < num_players(); ++seat) {
    Player& p = players_[seat];
    p.turns_taken = 0;
    p.finished = p.immune = p.round_shift_used = false;
  }
  PushRoundStart();
  // 6. New active cards; 7. wars; 8. the first turn.
  for (int seat = 0; seat < num_players(); ++seat) {
    Player& p = players_[seat];
    if (!p.ghost && p.active < 0) p.active = p.deck[p.deck_top++];
  }
  FightWars(chance);
  if (phase_ == Phase::kGameOver) return;
  StartRoundTurns();
}

void KadiceState::RollDice(uint8_t mask, engine::Chance& chance) {
  Player& p = players_[current_];
  for (int d = 0; d < kNumDice; ++d) {
    if (mask >> d & 1u) p.dice[d] = static_cast<int8_t>(chance.Roll(6));
  }
  rolled_mask_ |= mask;
  BeginDecide();
}

void KadiceState::BeginDecide() {
  phase_ = Phase::kDecide;
  set_mask_ = 0;
  five_of_a_kind_ = IsFiveOfAKind(players_[current_].dice);
}

void KadiceState::ApplyImpl(int seat, Action code, engine::Chance& chance) {
  events_.clear();
  const DecodedAction action = *DecodeAction(code);
  Player& me = players_[seat];
  switch (action.kind) {
    case kRoll: {
      me.held &= static_cast<uint8_t>(~action.mask);
      ++me.turns_taken;
      rolled_mask_ = 0;
      turn_shift_used_ = false;
      // SMALL STRAIGHT's bonus roll follows a Hold on the first roll of the first turn.
      bonus_pending_ = me.active == kSmallStraight && me.turns_taken == 1;
      RollDice(static_cast<uint8_t>(kAllDice & ~me.held), chance);
      return;
    }
    case kSetDie:
      me.dice[action.die] = static_cast<int8_t>(action.value);
      set_mask_ |= static_cast<uint8_t>(1u << action.die);
      return;
    case kShiftDie:
      me.dice[action.die] =
          static_cast<int8_t>(me.dice[action.die] + (action.value == kUp ? 1 : -1));
      if (me.active == kThreeOfAKind) {
        turn_shift_used_ = true;
      } else {
        me.round_shift_used = true;
      }
      return;
    case kEliminate: {
      const int moment = ghost_moments_ + 1;
      bool ghosted = false;
      for (uint32_t m = action.mask; m != 0; m &= m - 1) {
        const int target = std::countr_zero(m);
        Discard(target, moment);
        ghosted |= players_[target].ghost;
      }
      if (ghosted) ghost_moments_ = static_cast<int16_t>(moment);
      me.held = 0;
      if (me.active == kTwoPairs) me.immune = true;
      if (me.active != kFullHouse) me.finished = true;
      if (NonGhostCount() <= 1) {
        EndGame(EndReason::kLastPlayer);
        return;
      }
      EndTurn(chance);
      return;
    }
    case kHold:
      me.held = static_cast<uint8_t>(action.mask);
      if (bonus_pending_) {
        bonus_pending_ = false;
        RollDice(static_cast<uint8_t>(kAllDice & ~me.held), chance);
        return;
      }
      EndTurn(chance);
      return;
  }
}

// ---- State: legality -------------------------------------------------------------------------

engine::SeatSet KadiceState::ActingSeatsImpl() const {
  if (phase_ == Phase::kGameOver) return {};
  return engine::SeatSet::Of(current_);
}

uint32_t KadiceState::TargetableSeats() const {
  uint32_t seats = 0;
  for (int s = 0; s < num_players(); ++s) {
    if (s != current_ && players_[s].active >= 0 && !players_[s].immune) seats |= 1u << s;
  }
  return seats;
}

int KadiceState::FreePicks(uint32_t met) const {
  switch (players_[current_].active) {
    case kAllEvens:
      return met >> kAllEvens & 1u;
    case kAllOdds:
      return met >> kAllOdds & 1u;
    case kFourOfAKind:
      return (met >> kFourOfAKind & 1u) ? 2 : 0;
    case kLargeStraight:
      return (met >> kLargeStraight & 1u) ? 2 : 0;
    default:
      return 0;
  }
}

bool KadiceState::KadiceSweep(uint32_t met) const {
  return players_[current_].active == kKadice && (met >> kKadice & 1u);
}

void KadiceState::LegalActionsImpl(int seat, std::vector<Action>* out) const {
  const Player& me = players_[seat];
  if (phase_ == Phase::kAwaitRoll) {
    for (int rank = 0; rank < 32; ++rank) {
      if ((SubsetFromRank5(rank) & ~me.held) == 0) out->push_back(kRollBase + rank);
    }
    return;
  }
  // SetDie, by die then value.
  const bool wild_number = IsSinglePair(me.active);
  const int n = WildNumber(me.active);
  for (int die = 0; die < kNumDice; ++die) {
    if (set_mask_ >> die & 1u) continue;
    const bool wild =
        five_of_a_kind_ || (wild_number && (rolled_mask_ >> die & 1u) && me.dice[die] == n);
    if (!wild) continue;
    for (int value = 1; value <= 6; ++value) {
      if (value != me.dice[die]) out->push_back(SetDieAction(die, value));
    }
  }
  // ShiftDie, by die, UP before DOWN.
  bool can_up = false, can_down = false;
  if (me.active == kThreeOfAKind && !turn_shift_used_) can_up = can_down = true;
  if (me.active == kTenOrUnder && !me.round_shift_used) can_down = true;
  if (me.active == kTwentyFiveOrOver && !me.round_shift_used) can_up = true;
  if (can_up || can_down) {
    for (int die = 0; die < kNumDice; ++die) {
      if (!(rolled_mask_ >> die & 1u)) continue;
      if (can_up && me.dice[die] < 6) out->push_back(ShiftDieAction(die, kUp));
      if (can_down && me.dice[die] > 1) out->push_back(ShiftDieAction(die, kDown));
    }
  }
  // Eliminate, target sets by size then lexicographically.
  const uint32_t targetable = TargetableSeats();
  if (targetable != 0) {
    const uint32_t met = MetCards(me.dice);
    if (KadiceSweep(met)) {
      out->push_back(EliminateAction(targetable));
    } else {
      uint32_t met_seats = 0;
      for (uint32_t m = targetable; m != 0; m &= m - 1) {
        const int s = std::countr_zero(m);
        if (met >> players_[s].active & 1u) met_seats |= 1u << s;
      }
      const int free = FreePicks(met);
      for (int rank = 1; rank < 16; ++rank) {
        const uint32_t targets = SubsetFromRank4(rank);
        if ((targets & ~targetable) != 0) continue;
        if (std::popcount(targets & ~met_seats) <= free) out->push_back(kEliminateBase + rank);
      }
    }
  }
  // Hold: every subset of at most four dice (ranks 0..30; rank 31 is all five).
  for (int rank = 0; rank < 31; ++rank) out->push_back(kHoldBase + rank);
}

absl::Status KadiceState::NotYourTurnImpl(int seat) const {
  if (seat == last_player_) {
    return Refuse(absl::StrCat("your turn has ended; it is ", SeatName(current_), "'s turn"));
  }
  return Refuse(absl::StrCat("it is ", SeatName(current_), "'s turn"));
}

absl::Status KadiceState::CheckActionImpl(int seat, Action code) const {
  absl::StatusOr<DecodedAction> action = DecodeAction(code);
  if (!action.ok()) return action.status();
  return CheckDecoded(seat, *action);
}

absl::Status KadiceState::CheckDecoded(int seat, const DecodedAction& action) const {
  const Player& me = players_[seat];
  // (1) Malformed fields, before anything in the state (RULES.md section 6, step 5).
  if (action.kind == kEliminate) {
    if (action.mask == 0) {
      return absl::InvalidArgumentError("eliminate.targets: name at least one card to eliminate");
    }
    if (action.mask >> num_players() != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("eliminate.targets: seat ", 31 - std::countl_zero(action.mask),
                       " does not exist; this game has seats 0 to ", num_players() - 1));
    }
  }
  if (action.kind == kHold && std::popcount(action.mask) > kMaxHeld) {
    return absl::InvalidArgumentError("hold.dice: at most 4 dice may be held");
  }
  // (2) Legality: the action must belong to the current phase (step 6 of the order).
  if (phase_ == Phase::kAwaitRoll && action.kind != kRoll) {
    return Refuse("roll first: a turn begins with a roll");
  }
  if (phase_ == Phase::kDecide && action.kind == kRoll) {
    return Refuse(
        "you have already rolled this turn: change dice, eliminate, or hold to end your turn");
  }
  // (3) The action's own rules (the rest of step 6).
  switch (action.kind) {
    case kRoll: {
      const uint32_t not_held = action.mask & ~static_cast<uint32_t>(me.held);
      if (not_held != 0)
        return Refuse(absl::StrCat("die ", std::countr_zero(not_held), " is not held"));
      return absl::OkStatus();
    }
    case kSetDie:
      return CheckSetDie(action.die, action.value);
    case kShiftDie:
      return CheckShiftDie(action.die, action.value);
    case kEliminate:
      return CheckEliminate(action.mask);
    case kHold:
      return absl::OkStatus();
  }
  return absl::OkStatus();
}

absl::Status KadiceState::CheckSetDie(int die, int value) const {
  const Player& me = players_[current_];
  if (me.dice[die] == value) return Refuse(absl::StrCat("die ", die, " already shows ", value));
  if (set_mask_ >> die & 1u) {
    return Refuse(absl::StrCat("die ", die, " has already been set in this roll"));
  }
  if (five_of_a_kind_) return absl::OkStatus();
  if (!(rolled_mask_ >> die & 1u)) {
    return Refuse(absl::StrCat("die ", die, " was not rolled this turn"));
  }
  if (IsSinglePair(me.active)) {
    const int n = WildNumber(me.active);
    if (me.dice[die] != n) {
      return Refuse(
          absl::StrCat("die ", die, " shows ", me.dice[die], ", not your wild number ", n));
    }
    return absl::OkStatus();
  }
  return Refuse("your roll was not a five of a kind and your card gives no wild dice");
}

absl::Status KadiceState::CheckShiftDie(int die, int direction) const {
  const Player& me = players_[current_];
  const int card = me.active;
  if (card != kThreeOfAKind && card != kTenOrUnder && card != kTwentyFiveOrOver) {
    return Refuse("your card has no shift ability");
  }
  if (card == kTenOrUnder && direction == kUp) return Refuse("10 OR UNDER shifts down only");
  if (card == kTwentyFiveOrOver && direction == kDown) return Refuse("25 OR OVER shifts up only");
  if (!(rolled_mask_ >> die & 1u)) {
    return Refuse(absl::StrCat("die ", die, " was not rolled this turn"));
  }
  if (direction == kUp && me.dice[die] >= 6) return Refuse("a 6 cannot be shifted up");
  if (direction == kDown && me.dice[die] <= 1) return Refuse("a 1 cannot be shifted down");
  if (card == kThreeOfAKind && turn_shift_used_) {
    return Refuse("your 3 OF A KIND shift is already used this turn");
  }
  if (card != kThreeOfAKind && me.round_shift_used) {
    return Refuse(absl::StrCat("your ", CardName(card), " shift is already used this round"));
  }
  return absl::OkStatus();
}

absl::Status KadiceState::CheckEliminate(uint32_t targets) const {
  const Player& me = players_[current_];
  if (targets >> current_ & 1u) return Refuse("you cannot eliminate your own card");
  for (uint32_t m = targets; m != 0; m &= m - 1) {
    const int s = std::countr_zero(m);
    if (players_[s].active < 0) return Refuse(absl::StrCat(SeatName(s), " has no active card"));
  }
  for (uint32_t m = targets; m != 0; m &= m - 1) {
    const int s = std::countr_zero(m);
    if (players_[s].immune) {
      return Refuse(absl::StrCat(SeatName(s), "'s ", CardName(players_[s].active),
                                 " is immune until the end of this round"));
    }
  }
  const uint32_t met = MetCards(me.dice);
  if (KadiceSweep(met)) {
    const uint32_t all = TargetableSeats();
    if (targets != all) {
      return Refuse(
          absl::StrCat("a KA'DICE eliminates every other active card: name ", SeatListWords(all)));
    }
    return absl::OkStatus();
  }
  uint32_t unmet = 0;
  for (uint32_t m = targets; m != 0; m &= m - 1) {
    const int s = std::countr_zero(m);
    if (!(met >> players_[s].active & 1u)) unmet |= 1u << s;
  }
  const int free = FreePicks(met);
  if (std::popcount(unmet) <= free) return absl::OkStatus();
  if (free == 0) {
    const int s = std::countr_zero(unmet);
    return Refuse(absl::StrCat(SeatName(s), "'s ", CardName(players_[s].active), " ",
                               UnmetReason(players_[s].active, me.dice)));
  }
  return Refuse(absl::StrCat(CardName(me.active), " lets you eliminate ", free, " card",
                             free == 1 ? "" : "s", " whose requirement is not met; ",
                             std::popcount(unmet), " of your targets are not met"));
}

// ---- State: outcome, text, views -------------------------------------------------------------

std::vector<int> KadiceState::RanksImpl() const {
  // Players with cards first, by cards left (more is better); then ghosts, the later they
  // became ghosts the better; equal keys share a rank.
  auto key = [this](int s) {
    const Player& p = players_[s];
    return p.ghost ? std::pair<int, int>{1, -p.ghost_moment}
                   : std::pair<int, int>{0, -p.cards_left()};
  };
  std::vector<int> ranks(num_players(), 1);
  for (int s = 0; s < num_players(); ++s) {
    for (int o = 0; o < num_players(); ++o) {
      if (key(o) < key(s)) ++ranks[s];
    }
  }
  return ranks;
}

std::vector<int64_t> KadiceState::ScoresImpl() const {
  std::vector<int64_t> scores(num_players());
  for (int s = 0; s < num_players(); ++s) scores[s] = players_[s].cards_left();
  return scores;
}

std::string KadiceState::EndReasonImpl() const {
  if (end_reason_ == EndReason::kRoundLimit) {
    return absl::StrCat("round ", round_, " ended: the round limit; ranked by cards left");
  }
  for (int s = 0; s < num_players(); ++s) {
    if (!players_[s].ghost) return absl::StrCat("only ", SeatName(s), " has cards left");
  }
  return "no player has cards left";
}

int KadiceState::ActionKindImpl(Action code) const {
  absl::StatusOr<DecodedAction> action = DecodeAction(code);
  return action.ok() ? action->kind : 0;
}

double KadiceState::Heuristic(int seat) const {
  if (phase_ == Phase::kGameOver) return engine::State::Heuristic(seat);
  // Cards are what counts: own cards against the opponents' average.
  double others = 0;
  for (int s = 0; s < num_players(); ++s) {
    if (s != seat) others += players_[s].cards_left();
  }
  double value = 10.0 * players_[seat].cards_left() - 10.0 * others / (num_players() - 1);
  if (players_[seat].immune) value += 1.0;
  // Held dice that already form part of a combination make the next roll likelier to hit.
  const Player& me = players_[seat];
  std::array<int, 7> count{};
  for (int d = 0; d < kNumDice; ++d) {
    if (me.held >> d & 1u) ++count[me.dice[d]];
  }
  const int best = *std::max_element(count.begin() + 1, count.end());
  if (best >= 2) value += 0.5 * (best - 1);
  // Deciding with dice that already meet opponents' cards: worth a little less than the
  // elimination itself, so that abilities which set one up are preferred and eliminating wins.
  if (phase_ == Phase::kDecide && current_ == seat) {
    const uint32_t met = MetCards(me.dice);
    const uint32_t targetable = TargetableSeats();
    int hits = 0;
    for (uint32_t m = targetable; m != 0; m &= m - 1) {
      hits += (met >> players_[std::countr_zero(m)].active) & 1u;
    }
    if (KadiceSweep(met)) hits = std::popcount(targetable);
    hits = std::min(std::popcount(targetable), hits + FreePicks(met));
    value += 2.0 * hits;
  }
  return value;
}

void Register(engine::Registry& registry) { registry.Add(std::make_unique<KadiceGame>()); }

}  // namespace parlor::games::kadice
