// Pescado's rules: the tiles, the game's metadata, legal actions and their checks, throws,
// catches, snatch rounds and the outcome. Action codes and messages, texts and views:
// pescado_view.cc; the snapshot: pescado_snapshot.cc.
#include "engine/games/pescado/pescado.h"

#include <algorithm>
#include <bit>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/games/pescado/pescado_internal.h"

namespace parlor::games::pescado {
namespace {

using engine::Action;
using internal::Bit;
using internal::TileLabel;
using internal::ValidTile;

constexpr const char* kTileNames[kNumTiles] = {
    "YYY", "OOO", "RRR", "BBB", "GGG", "KKK",  // 1–6: one colour, 3 points
    "YYO", "OOY", "OOR", "RRO", "RRB", "BBR",  // 7–18: two colours, 2 points
    "BBG", "GGB", "GGK", "KKG", "KKY", "YYK",  //
    "YOB", "YOG", "YOK", "YRB", "YRG", "YRK",  // 19–36: three colours, 1 point
    "YBG", "YBK", "YGK", "ORB", "ORG", "ORK",  //
    "OBG", "OBK", "OGK", "RBG", "RBK", "RGK",
};

Color ColorFromLetter(char letter) {
  switch (letter) {
    case 'Y':
      return kYellow;
    case 'O':
      return kOrange;
    case 'R':
      return kRed;
    case 'B':
      return kBlue;
    case 'G':
      return kGreen;
    default:
      return kBlack;
  }
}

std::array<TileInfo, kNumTiles + 1> BuildTiles() {
  std::array<TileInfo, kNumTiles + 1> tiles{};
  for (int id = 1; id <= kNumTiles; ++id) {
    TileInfo& t = tiles[id];
    t.name = kTileNames[id - 1];
    for (int i = 0; i < 3; ++i) {
      t.fish[i] = ColorFromLetter(t.name[i]);
      ++t.need[t.fish[i]];
    }
    int distinct = 0;
    for (int c = 0; c < kNumColors; ++c) {
      if (t.need[c] > 0) ++distinct;
      t.need_nibbles |= static_cast<uint32_t>(t.need[c]) << (4 * c);
    }
    t.points = 4 - distinct;
  }
  return tiles;
}

const std::array<TileInfo, kNumTiles + 1>& Tiles() {
  static const std::array<TileInfo, kNumTiles + 1> tiles = BuildTiles();
  return tiles;
}

// Every dice-count nibble is at most 7 and every need nibble at most 3, so adding 8 to each count
// nibble and subtracting the need never borrows across nibbles; bit 3 of a nibble survives iff
// count >= need.
constexpr uint32_t kNibbleHighBits = 0x888888;
inline bool NibblesCover(uint32_t counts, uint32_t need) {
  return (((counts | kNibbleHighBits) - need) & kNibbleHighBits) == kNibbleHighBits;
}

std::string SeatName(int seat) { return absl::StrCat("seat ", seat); }

// The ThrowSecond codes of every keep mask, ascending (built once).
struct ThrowSecondTable {
  std::array<Action, 32> codes;
};
const ThrowSecondTable& ThrowSecondCodes() {
  static const ThrowSecondTable table = [] {
    ThrowSecondTable t{};
    for (uint32_t m = 0; m < 32; ++m) t.codes[m] = EncodeThrowSecond(m);
    std::sort(t.codes.begin(), t.codes.end());
    return t;
  }();
  return table;
}

}  // namespace

const TileInfo& Tile(int id) { return Tiles()[id]; }

char ColorLetter(Color c) { return "YORBGK"[c]; }

const char* ColorName(Color c) {
  static constexpr const char* kNames[] = {"yellow", "orange", "red", "blue", "green", "black"};
  return kNames[c];
}

namespace {

// Step 5 of the checks: malformed fields (INVALID_ARGUMENT naming the field).
absl::Status CheckFields(const DecodedAction& d) {
  switch (d.kind) {
    case ActionType::kTakeTile:
      if (!ValidTile(d.tile)) {
        return absl::InvalidArgumentError(
            absl::StrCat("tile_id: ", d.tile, " is not a tile id; tiles are 1 to 36"));
      }
      break;
    case ActionType::kBuyGreyDie:
      for (int t : {d.tile_low, d.tile_high}) {
        if (!ValidTile(t)) {
          return absl::InvalidArgumentError(
              absl::StrCat("tile_ids: ", t, " is not a tile id; tiles are 1 to 36"));
        }
      }
      if (d.tile_low >= d.tile_high) {
        return absl::InvalidArgumentError("tile_ids: name two different tiles");
      }
      break;
    case ActionType::kSnatchClaim: {
      uint64_t seen = 0;
      for (int i = 0; i < d.claim_length; ++i) {
        const int t = d.claim[i];
        if (!ValidTile(t)) {
          return absl::InvalidArgumentError(
              absl::StrCat("tile_ids: ", t, " is not a tile id; tiles are 1 to 36"));
        }
        if (seen & Bit(t)) {
          return absl::InvalidArgumentError(absl::StrCat("tile_ids: tile ", t, " is listed twice"));
        }
        seen |= Bit(t);
      }
      break;
    }
    default:
      break;
  }
  return absl::OkStatus();
}

}  // namespace

// ---- Game --------------------------------------------------------------------------------------

PescadoGame::PescadoGame()
    : Game(engine::GameInfo{
          .name = "pescado",
          .display_name = "Pescado",
          .summary =
              "Two to four players throw colour dice to catch tiles showing three fish; a tile is "
              "caught when its colours appear among the dice. Each turn has two throws, the second "
              "with up to two extra grey dice paid for by flipping tiles, and a player may also "
              "catch the tiles the previous player caught. The game ends when the pool of six "
              "tiles cannot be refilled; most points wins, fewer tiles breaks a tie.",
          .min_players = 2,
          .max_players = kMaxPlayers,
          .has_teams = false,
          .options = {engine::OptionSpec::Bool(
              "snatching",
              "Play the snatching variant: a first throw with three white dice of one colour "
              "opens a sealed claim window in which every player may claim matching pool tiles.",
              false)},
          .action_kinds = {"throw_first", "take_tile", "buy_grey_die", "throw_second", "end_turn",
                           "snatch_claim"},
      }) {}

int64_t PescadoGame::MaxMoves(int num_players, const engine::Options&) const {
  // Each turn or snatch round advances the counter, which stops the game at kMaxTurns. A turn
  // has at most ThrowFirst, 36 takes (each tile can be caught at most once per turn), two grey
  // dice, ThrowSecond and EndTurn; a snatch round has ThrowFirst and one claim per seat. Forfeits
  // add at most one entry per seat.
  const int64_t per_turn = std::max<int64_t>(1 + kNumTiles + kMaxGreyDice + 2, 1 + num_players);
  return kMaxTurns * per_turn + num_players;
}

std::unique_ptr<engine::State> PescadoGame::CreateState(
    int num_players, std::shared_ptr<const engine::Options> options) const {
  return std::make_unique<PescadoState>(*this, num_players, std::move(options));
}

void Register(engine::Registry& registry) { registry.Add(std::make_unique<PescadoGame>()); }

// ---- State: queries ----------------------------------------------------------------------------

PescadoState::PescadoState(const engine::Game& game, int num_players,
                           std::shared_ptr<const engine::Options> options)
    : State(game, num_players, std::move(options)) {
  snatching_ = this->options().GetBool("snatching");
  where_.fill(kInStack);
}

std::unique_ptr<engine::State> PescadoState::CloneImpl() const {
  return std::unique_ptr<engine::State>(new PescadoState(*this));
}

std::vector<int> PescadoState::Supply(int seat) const {
  return std::vector<int>(supply_[seat].begin(), supply_[seat].begin() + supply_size_[seat]);
}

bool PescadoState::IsSafe(int tile) const {
  const int w = where_[tile];
  return w >= kInSupply && w < kInSupply + kMaxPlayers &&
         (exposed_[w - kInSupply] & Bit(tile)) == 0;
}

std::vector<Color> PescadoState::Dice() const {
  std::vector<Color> dice;
  for (int i = 0; i < num_dice_; ++i) dice.push_back(static_cast<Color>(dice_[i]));
  return dice;
}

int PescadoState::Points(int seat) const {
  int points = 0;
  for (int i = 0; i < supply_size_[seat]; ++i) points += Tile(supply_[seat][i]).points;
  return points;
}

std::vector<int> PescadoState::SnatchSet() const {
  std::vector<int> set;
  for (uint64_t m = snatch_.set; m != 0; m &= m - 1) set.push_back(std::countr_zero(m));
  return set;
}

bool PescadoState::Matches(int tile) const {
  return NibblesCover(dice_nibbles_, Tile(tile).need_nibbles);
}

bool PescadoState::MatchesSnatchDice(int tile) const {
  uint32_t counts = 0;
  for (int8_t c : snatch_.dice) counts += 1u << (4 * c);
  return NibblesCover(counts, Tile(tile).need_nibbles);
}

uint64_t PescadoState::TakeableMask() const {
  uint64_t takeable = 0;
  for (uint64_t m = CatchableMask(); m != 0; m &= m - 1) {
    const int t = std::countr_zero(m);
    if (Matches(t)) takeable |= Bit(t);
  }
  return takeable;
}

uint64_t PescadoState::FlippableMask() const { return CatchableMask(); }

engine::SeatSet PescadoState::ActingSeatsImpl() const {
  switch (phase_) {
    case Phase::kGameOver:
      return {};
    case Phase::kSnatchWindow: {
      engine::SeatSet seats;
      for (int s = 0; s < num_players(); ++s) {
        if (!snatch_.claimed.Contains(s)) seats.Insert(s);
      }
      return seats;
    }
    default:
      return engine::SeatSet::Of(active_);
  }
}

// ---- State: legal actions and checks -----------------------------------------------------------

void PescadoState::LegalActionsImpl(int, std::vector<Action>* out) const {
  switch (phase_) {
    case Phase::kAwaitFirstThrow:
      out->push_back(EncodeThrowFirst());
      return;
    case Phase::kFirstThrowResolved: {
      for (uint64_t m = TakeableMask(); m != 0; m &= m - 1) {
        out->push_back(EncodeTakeTile(std::countr_zero(m)));
      }
      if (grey_bought_ < kMaxGreyDice) {
        const uint64_t flippable = FlippableMask();
        for (uint64_t a = flippable; a != 0; a &= a - 1) {
          const int low = std::countr_zero(a);
          for (uint64_t b = a & (a - 1); b != 0; b &= b - 1) {
            out->push_back(EncodeBuyGreyDie(low, std::countr_zero(b)));
          }
        }
      }
      // The table is ascending and keep-all (the only code throwing no white die) is last.
      const ThrowSecondTable& table = ThrowSecondCodes();
      const int n = grey_bought_ > 0 ? 32 : 31;
      out->insert(out->end(), table.codes.begin(), table.codes.begin() + n);
      return;
    }
    case Phase::kSecondThrowResolved:
      for (uint64_t m = TakeableMask(); m != 0; m &= m - 1) {
        out->push_back(EncodeTakeTile(std::countr_zero(m)));
      }
      out->push_back(EncodeEndTurn());
      return;
    case Phase::kSnatchWindow:
      AppendClaims(out);
      return;
    case Phase::kGameOver:
      return;
  }
}

void PescadoState::AppendClaims(std::vector<Action>* out) const {
  const std::vector<int> set = SnatchSet();
  const int n = static_cast<int>(set.size());
  // Ordered lists of distinct tiles, by length then lexicographically: for each length, a
  // depth-first walk over the ascending set yields the lists in lexicographic order.
  std::array<int, kMaxClaimLength> chosen{};
  for (int length = 0; length <= n; ++length) {
    uint32_t used = 0;
    auto walk = [&](auto&& self, int depth) -> void {
      if (depth == length) {
        out->push_back(EncodeSnatchClaim(std::span<const int>(chosen.data(), length)));
        return;
      }
      for (int i = 0; i < n; ++i) {
        if (used >> i & 1u) continue;
        used |= 1u << i;
        chosen[depth] = set[i];
        self(self, depth + 1);
        used &= ~(1u << i);
      }
    };
    walk(walk, 0);
  }
}

absl::Status PescadoState::NotYourTurnImpl(int) const {
  // Whatever was sent (engine/GAMES.md, "Refusals").
  if (phase_ == Phase::kSnatchWindow) {
    return absl::FailedPreconditionError("you have already claimed in this snatch window");
  }
  return absl::FailedPreconditionError(absl::StrCat("it is ", SeatName(active_), "'s turn"));
}

absl::Status PescadoState::CheckKindFits(int, ActionType kind) const {
  switch (phase_) {
    case Phase::kAwaitFirstThrow:
      if (kind == ActionType::kThrowFirst) return absl::OkStatus();
      if (kind == ActionType::kSnatchClaim) {
        return absl::FailedPreconditionError("no snatch window is open");
      }
      return absl::FailedPreconditionError("throw first");
    case Phase::kFirstThrowResolved:
      switch (kind) {
        case ActionType::kTakeTile:
        case ActionType::kBuyGreyDie:
        case ActionType::kThrowSecond:
          return absl::OkStatus();
        case ActionType::kThrowFirst:
          return absl::FailedPreconditionError("the first throw has already been made");
        case ActionType::kEndTurn:
          return absl::FailedPreconditionError(
              "the second throw is compulsory: throw again before ending the turn");
        default:
          return absl::FailedPreconditionError("no snatch window is open");
      }
    case Phase::kSecondThrowResolved:
      switch (kind) {
        case ActionType::kTakeTile:
        case ActionType::kEndTurn:
          return absl::OkStatus();
        case ActionType::kThrowFirst:
          return absl::FailedPreconditionError("the first throw has already been made");
        case ActionType::kBuyGreyDie:
          return absl::FailedPreconditionError(
              "grey dice can only be bought before the second throw");
        case ActionType::kThrowSecond:
          return absl::FailedPreconditionError("the second throw has already been made");
        default:
          return absl::FailedPreconditionError("no snatch window is open");
      }
    case Phase::kSnatchWindow:
      if (kind == ActionType::kSnatchClaim) return absl::OkStatus();
      return absl::FailedPreconditionError(
          "a snatch window is open: every player must send a snatch claim first");
    case Phase::kGameOver:
      break;
  }
  return absl::FailedPreconditionError("the game is over");
}

std::string PescadoState::Shortfall(int tile, const std::array<int8_t, kNumColors>& counts,
                                    absl::string_view dice_name) const {
  const TileInfo& info = Tile(tile);
  std::vector<std::string> needs, shows;
  for (int c = 0; c < kNumColors; ++c) {
    if (info.need[c] <= counts[c]) continue;
    const char* name = ColorName(static_cast<Color>(c));
    needs.push_back(absl::StrCat(info.need[c], " ", name));
    shows.push_back(counts[c] == 0 ? absl::StrCat("no ", name)
                                   : absl::StrCat(counts[c], " ", name));
  }
  return absl::StrCat("it needs ", absl::StrJoin(needs, " and "), "; ", dice_name, " show ",
                      absl::StrJoin(shows, " and "));
}

std::string PescadoState::WhyNotCatchable(int seat, int tile) const {
  const int w = where_[tile];
  if (w == kInStack)
    return absl::StrCat("tile ", tile, " is not in play: it is still in the stack");
  if (w < kPoolSlots) {
    return absl::StrCat("tile ", tile, " is flipped face down until the end of this turn");
  }
  const int owner = w - kInSupply;
  if (owner == seat) return absl::StrCat("tile ", tile, " is already in your supply");
  if (IsSafe(tile)) {
    return absl::StrCat("tile ", tile, " is in ", SeatName(owner), "'s supply and is safe");
  }
  return absl::StrCat("tile ", tile, " is in ", SeatName(owner),
                      "'s supply; only your predecessor's exposed tiles can be caught");
}

std::string PescadoState::WhyNotFlippable(int seat, int tile) const {
  const int w = where_[tile];
  if (w == kInStack)
    return absl::StrCat("tile ", tile, " is not in play: it is still in the stack");
  if (w < kPoolSlots) {
    return absl::StrCat("tile ", tile, " is already flipped face down this turn");
  }
  const int owner = w - kInSupply;
  if (owner == seat) {
    return absl::StrCat("tile ", tile,
                        " is in your own supply; only face-up pool tiles and your predecessor's "
                        "exposed tiles can be flipped");
  }
  if (IsSafe(tile)) return absl::StrCat("tile ", tile, " is already safe");
  return absl::StrCat("tile ", tile, " is in ", SeatName(owner),
                      "'s supply; only face-up pool tiles and your predecessor's exposed tiles "
                      "can be flipped");
}

absl::Status PescadoState::CheckActionImpl(int seat, Action action) const {
  const DecodedAction d = DecodeAction(action);
  if (d.kind == ActionType::kInvalid) {
    return absl::InvalidArgumentError(absl::StrCat("action ", action, " is not a Pescado action"));
  }
  // Shape before legality (RULES.md section 6, steps 5 and 6): the fields are checked without
  // looking at the state, then whether the kind of action fits the phase.
  if (absl::Status s = CheckFields(d); !s.ok()) return s;
  if (absl::Status s = CheckKindFits(seat, d.kind); !s.ok()) return s;
  switch (d.kind) {
    case ActionType::kThrowFirst:
    case ActionType::kEndTurn:
      return absl::OkStatus();
    case ActionType::kTakeTile: {
      if ((CatchableMask() & Bit(d.tile)) == 0) {
        return absl::FailedPreconditionError(WhyNotCatchable(seat, d.tile));
      }
      if (!Matches(d.tile)) {
        std::array<int8_t, kNumColors> counts{};
        for (int c = 0; c < kNumColors; ++c) counts[c] = dice_nibbles_ >> (4 * c) & 15;
        return absl::FailedPreconditionError(
            absl::StrCat("tile ", TileLabel(d.tile),
                         " does not match the dice: ", Shortfall(d.tile, counts, "the dice")));
      }
      return absl::OkStatus();
    }
    case ActionType::kBuyGreyDie:
      if (grey_bought_ >= kMaxGreyDice) {
        return absl::FailedPreconditionError("both grey dice are already bought");
      }
      for (int t : {d.tile_low, d.tile_high}) {
        if ((FlippableMask() & Bit(t)) == 0) {
          return absl::FailedPreconditionError(WhyNotFlippable(seat, t));
        }
      }
      return absl::OkStatus();
    case ActionType::kThrowSecond:
      if (std::popcount(d.keep_mask) == kWhiteDice && grey_bought_ == 0) {
        return absl::FailedPreconditionError("the second throw must throw at least one die");
      }
      return absl::OkStatus();
    case ActionType::kSnatchClaim: {
      std::array<int8_t, kNumColors> counts{};
      for (int8_t c : snatch_.dice) ++counts[c];
      for (int i = 0; i < d.claim_length; ++i) {
        const int t = d.claim[i];
        if (snatch_.set & Bit(t)) continue;
        if (where_[t] >= kPoolSlots) {
          return absl::FailedPreconditionError(
              absl::StrCat("tile ", t, " is not in the pool; only pool tiles can be snatched"));
        }
        return absl::FailedPreconditionError(absl::StrCat(
            "tile ", TileLabel(t),
            " does not match the snatch dice: ", Shortfall(t, counts, "the snatch dice")));
      }
      return absl::OkStatus();
    }
    case ActionType::kInvalid:
      break;
  }
  return absl::InvalidArgumentError("not a Pescado action");
}

// ---- State: setup and effects ------------------------------------------------------------------

void PescadoState::SetupImpl(engine::Chance& chance) {
  std::array<int32_t, kNumTiles> order{};
  for (int i = 0; i < kNumTiles; ++i) order[i] = i + 1;
  chance.Shuffle(order);
  for (int i = 0; i < kNumTiles; ++i) stack_[i] = static_cast<int8_t>(order[i]);
  stack_begin_ = 0;
  for (int slot = 0; slot < kPoolSlots; ++slot) pool_[slot] = stack_[stack_begin_++];
  active_ = static_cast<int8_t>(chance.Uniform(num_players()));
  phase_ = Phase::kAwaitFirstThrow;
  RebuildDerived();
}

void PescadoState::CountDice() {
  dice_nibbles_ = 0;
  for (int i = 0; i < num_dice_; ++i) dice_nibbles_ += 1u << (4 * dice_[i]);
}

void PescadoState::ThrowWhite(engine::Chance& chance, uint32_t keep_mask) {
  for (int i = 0; i < kWhiteDice; ++i) {
    if ((keep_mask >> i & 1u) == 0) dice_[i] = static_cast<int8_t>(chance.Roll(kNumColors) - 1);
  }
}

void PescadoState::AddToSupply(int seat, int tile, bool safe) {
  supply_[seat][supply_size_[seat]++] = static_cast<int8_t>(tile);
  where_[tile] = static_cast<int8_t>(kInSupply + seat);
  if (!safe) exposed_[seat] |= Bit(tile);
}

void PescadoState::RemoveFromSupply(int seat, int tile) {
  auto& s = supply_[seat];
  const auto end = s.begin() + supply_size_[seat];
  std::copy(std::find(s.begin(), end, tile) + 1, end, std::find(s.begin(), end, tile));
  --supply_size_[seat];
  exposed_[seat] &= ~Bit(tile);
}

void PescadoState::StartSnatchRound(engine::Chance& chance) {
  has_snatch_ = true;
  snatch_ = Snatch{};
  snatch_.thrower = active_;
  for (int rethrows = 0;; ++rethrows) {
    for (int i = 0; i < kWhiteDice; ++i) snatch_.dice[i] = dice_[i];
    snatch_.rethrows = static_cast<int16_t>(rethrows);
    snatch_.set = 0;
    for (uint64_t m = pool_up_; m != 0; m &= m - 1) {
      const int t = std::countr_zero(m);
      if (NibblesCover(dice_nibbles_, Tile(t).need_nibbles)) snatch_.set |= Bit(t);
    }
    if (snatch_.set != 0 || rethrows == kMaxRethrows) break;
    ThrowWhite(chance, 0);
    CountDice();
  }
  num_dice_ = 0;
  dice_nibbles_ = 0;
  if (snatch_.set == 0) {
    // 100 re-throws without a match: no window opens; the round ends with nobody receiving a
    // tile (RULES.md 5.4 step 2).
    snatch_.resolved = true;
    FinishRound(/*next_player=*/false);
    return;
  }
  phase_ = Phase::kSnatchWindow;
}

void PescadoState::ResolveSnatch() {
  const int n = num_players();
  uint64_t given = 0;
  std::array<int, kMaxPlayers> next{};  // position in each claim list
  for (bool gave = true; gave;) {
    gave = false;
    for (int k = 1; k <= n; ++k) {
      const int seat = (snatch_.thrower + k) % n;
      while (next[seat] < snatch_.claim_length[seat] &&
             (given & Bit(snatch_.claim[seat][next[seat]]))) {
        ++next[seat];
      }
      if (next[seat] == snatch_.claim_length[seat]) continue;
      const int t = snatch_.claim[seat][next[seat]++];
      given |= Bit(t);
      snatch_.received[seat][snatch_.received_length[seat]++] = static_cast<int8_t>(t);
      const int slot = where_[t];
      pool_[slot] = 0;
      pool_up_ &= ~Bit(t);
      AddToSupply(seat, t, /*safe=*/true);
      gave = true;
    }
  }
  snatch_.resolved = true;
  FinishRound(/*next_player=*/false);
}

void PescadoState::FinishRound(bool next_player) {
  ++turn_;
  int empty = 0;
  for (int slot = 0; slot < kPoolSlots; ++slot) empty += pool_[slot] == 0;
  num_dice_ = 0;
  dice_nibbles_ = 0;
  grey_bought_ = 0;
  kept_mask_ = 0;
  if (kNumTiles - stack_begin_ < empty) {
    phase_ = Phase::kGameOver;
    end_reason_ = EndReason::kPoolCannotBeRefilled;
    return;
  }
  for (int slot = 0; slot < kPoolSlots; ++slot) {
    if (pool_[slot] != 0) continue;
    const int t = stack_[stack_begin_++];
    pool_[slot] = static_cast<int8_t>(t);
    where_[t] = static_cast<int8_t>(slot);
    pool_up_ |= Bit(t);
  }
  if (turn_ >= kMaxTurns) {
    phase_ = Phase::kGameOver;
    end_reason_ = EndReason::kSafetyLimit;
    return;
  }
  if (next_player) active_ = static_cast<int8_t>((active_ + 1) % num_players());
  phase_ = Phase::kAwaitFirstThrow;
}

void PescadoState::ApplyImpl(int seat, Action action, engine::Chance& chance) {
  const DecodedAction d = DecodeAction(action);
  switch (d.kind) {
    case ActionType::kThrowFirst: {
      num_dice_ = kWhiteDice;
      grey_bought_ = 0;
      kept_mask_ = 0;
      ThrowWhite(chance, 0);
      CountDice();
      bool triplet = false;
      for (int c = 0; c < kNumColors; ++c) triplet |= (dice_nibbles_ >> (4 * c) & 15) >= 3;
      if (snatching_ && triplet) {
        StartSnatchRound(chance);
      } else {
        phase_ = Phase::kFirstThrowResolved;
      }
      return;
    }
    case ActionType::kTakeTile: {
      const int w = where_[d.tile];
      if (w < kPoolSlots) {
        pool_[w] = 0;
        pool_up_ &= ~Bit(d.tile);
        AddToSupply(seat, d.tile, /*safe=*/false);
      } else {
        // From the predecessor: safe at once (RULES.md interpretation 11).
        RemoveFromSupply(w - kInSupply, d.tile);
        AddToSupply(seat, d.tile, /*safe=*/true);
      }
      return;
    }
    case ActionType::kBuyGreyDie:
      for (int t : {d.tile_low, d.tile_high}) {
        const int w = where_[t];
        if (w < kPoolSlots) {
          flipped_slots_ |= static_cast<uint8_t>(1u << w);
          pool_up_ &= ~Bit(t);
        } else {
          exposed_[w - kInSupply] &= ~Bit(t);
        }
      }
      ++grey_bought_;
      return;
    case ActionType::kThrowSecond:
      kept_mask_ = static_cast<uint8_t>(d.keep_mask);
      ThrowWhite(chance, d.keep_mask);
      for (int g = 0; g < grey_bought_; ++g) {
        dice_[kWhiteDice + g] = static_cast<int8_t>(chance.Roll(kNumColors) - 1);
      }
      num_dice_ = static_cast<int8_t>(kWhiteDice + grey_bought_);
      CountDice();
      phase_ = Phase::kSecondThrowResolved;
      return;
    case ActionType::kEndTurn: {
      for (int slot = 0; slot < kPoolSlots; ++slot) {
        if (flipped_slots_ >> slot & 1u) pool_up_ |= Bit(pool_[slot]);
      }
      flipped_slots_ = 0;
      exposed_[predecessor()] = 0;
      FinishRound(/*next_player=*/true);
      return;
    }
    case ActionType::kSnatchClaim:
      snatch_.claimed.Insert(seat);
      snatch_.claim_length[seat] = static_cast<int8_t>(d.claim_length);
      for (int i = 0; i < d.claim_length; ++i) snatch_.claim[seat][i] = d.claim[i];
      if (snatch_.claimed.size() == num_players()) ResolveSnatch();
      return;
    case ActionType::kInvalid:
      return;
  }
}

void PescadoState::RebuildDerived() {
  where_.fill(kInStack);
  pool_up_ = 0;
  for (int slot = 0; slot < kPoolSlots; ++slot) {
    const int t = pool_[slot];
    if (t == 0) continue;
    where_[t] = static_cast<int8_t>(slot);
    if ((flipped_slots_ >> slot & 1u) == 0) pool_up_ |= Bit(t);
  }
  for (int s = 0; s < num_players(); ++s) {
    for (int i = 0; i < supply_size_[s]; ++i)
      where_[supply_[s][i]] = static_cast<int8_t>(kInSupply + s);
  }
  CountDice();
}

// ---- State: outcome ----------------------------------------------------------------------------

std::vector<int64_t> PescadoState::ScoresImpl() const {
  std::vector<int64_t> scores(num_players());
  for (int s = 0; s < num_players(); ++s) scores[s] = Points(s);
  return scores;
}

std::vector<int> PescadoState::RanksImpl() const {
  const int n = num_players();
  std::vector<int> ranks(n, 1);
  for (int s = 0; s < n; ++s) {
    for (int o = 0; o < n; ++o) {
      const int ps = Points(s), po = Points(o);
      if (po > ps || (po == ps && supply_size_[o] < supply_size_[s])) ++ranks[s];
    }
  }
  return ranks;
}

std::string PescadoState::EndReasonImpl() const {
  switch (end_reason_) {
    case EndReason::kPoolCannotBeRefilled:
      return "the pool cannot be refilled";
    case EndReason::kSafetyLimit:
      return "the safety limit of 200 turns";
    case EndReason::kNone:
      break;
  }
  return "the game is not over";
}

double PescadoState::Heuristic(int seat) const {
  if (IsTerminal()) return State::Heuristic(seat);
  // Safe tiles are points for good; exposed tiles may still be caught by the next player, so
  // they count a little less, and a rival's exposed tile is a chance for whoever sits after it.
  auto value = [&](int s) {
    double v = 0;
    for (int i = 0; i < supply_size_[s]; ++i) {
      const int t = supply_[s][i];
      v += (exposed_[s] & Bit(t)) ? 0.75 * Tile(t).points : Tile(t).points;
    }
    return v;
  };
  double best_other = -1e9;
  for (int s = 0; s < num_players(); ++s) {
    if (s != seat) best_other = std::max(best_other, value(s));
  }
  return value(seat) - best_other;
}

int PescadoState::ActionKindImpl(Action action) const {
  const ActionType kind = DecodeAction(action).kind;
  return kind == ActionType::kInvalid ? 0 : static_cast<int>(kind) - 1;
}

}  // namespace parlor::games::pescado
