#include "engine/games/pescado/pescado.h"

#include <algorithm>
#include <bit>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "parlor/games/v1/pescado.pb.h"
#include "pescado/pescado_state.pb.h"

namespace parlor::games::pescado {
namespace {

using engine::Action;
namespace v1 = ::parlor::games::v1;

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

inline uint64_t Bit(int tile) { return uint64_t{1} << tile; }

uint32_t Reverse5(uint32_t mask) {
  uint32_t r = 0;
  for (int i = 0; i < kWhiteDice; ++i) {
    if (mask >> i & 1u) r |= 1u << (kWhiteDice - 1 - i);
  }
  return r;
}

std::string TileLabel(int tile) { return absl::StrCat(tile, " (", Tile(tile).name, ")"); }

std::string SeatName(int seat) { return absl::StrCat("seat ", seat); }

v1::PescadoColor ToProtoColor(int c) { return static_cast<v1::PescadoColor>(c + 1); }

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

namespace {

bool ValidTile(int t) { return t >= 1 && t <= kNumTiles; }

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

namespace {
void FillTile(int id, v1::PescadoTile* out) {
  out->set_id(id);
  for (Color c : Tile(id).fish) out->add_fish(ToProtoColor(c));
  out->set_points(Tile(id).points);
}
}  // namespace

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

// ---- State: snapshot ---------------------------------------------------------------------------

using StateProto = ::parlor::engine::pescado::PescadoState;

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
  if (!in.UnpackTo(&p)) {
    return absl::InvalidArgumentError("state: not a parlor.engine.pescado.PescadoState");
  }
  auto bad = [](absl::string_view what) {
    return absl::InvalidArgumentError(absl::StrCat("state: ", what));
  };
  const int n = num_players();
  if (p.phase() < 1 || p.phase() > 5) return bad("phase out of range");
  const Phase phase = static_cast<Phase>(p.phase());
  if (p.active_seat() < 0 || p.active_seat() >= n) return bad("active_seat out of range");
  if (p.turn_counter() < 0 || p.turn_counter() > kMaxTurns) return bad("turn_counter out of range");
  if (phase != Phase::kGameOver && p.turn_counter() >= kMaxTurns) {
    return bad("turn_counter has reached the safety limit but the game is not over");
  }
  const bool mid_turn = phase == Phase::kFirstThrowResolved || phase == Phase::kSecondThrowResolved;

  // Every tile exactly once: stack, pool or a supply.
  uint64_t seen = 0;
  auto place = [&](int t) -> bool {
    if (!ValidTile(t) || (seen & Bit(t))) return false;
    seen |= Bit(t);
    return true;
  };
  if (p.stack_size() > kNumTiles) return bad("stack too long");
  for (int t : p.stack()) {
    if (!place(t)) return bad("stack: a tile id is out of range or repeated");
  }
  if (p.pool_size() != kPoolSlots) return bad("pool must have six slots");
  int empty = 0;
  for (const auto& s : p.pool()) {
    if (s.tile_id() == 0) {
      ++empty;
      if (s.flipped()) return bad("pool: an empty slot cannot be flipped");
      continue;
    }
    if (!place(s.tile_id())) return bad("pool: a tile id is out of range or repeated");
    if (s.flipped() && phase != Phase::kFirstThrowResolved &&
        phase != Phase::kSecondThrowResolved) {
      return bad("pool: tiles are flipped only during a turn");
    }
  }
  if (!mid_turn && phase != Phase::kGameOver && empty > 0) {
    return bad("pool: the pool is full between turns");
  }
  if (p.supplies_size() != n) return bad("supplies: one per seat");
  const int pred = (p.active_seat() + n - 1) % n;
  for (int s = 0; s < n; ++s) {
    for (const auto& t : p.supplies(s).tiles()) {
      if (!place(t.tile_id())) return bad("supplies: a tile id is out of range or repeated");
      if (!t.safe() && s != pred && s != p.active_seat()) {
        return bad("supplies: only the active player and the predecessor can have exposed tiles");
      }
    }
  }
  if (seen != ((uint64_t{1} << (kNumTiles + 1)) - 2)) return bad("the 36 tiles are not all there");

  // Dice.
  if (p.grey_dice_bought() < 0 || p.grey_dice_bought() > kMaxGreyDice) {
    return bad("grey_dice_bought out of range");
  }
  if (!mid_turn && p.grey_dice_bought() != 0) return bad("grey dice are bought only during a turn");
  int flipped = 0;
  for (const auto& s : p.pool()) flipped += s.flipped();
  if (flipped > 2 * p.grey_dice_bought()) {
    return bad("pool: more tiles flipped than the grey dice bought paid for");
  }
  int expected_dice = 0;
  if (phase == Phase::kFirstThrowResolved) expected_dice = kWhiteDice;
  if (phase == Phase::kSecondThrowResolved) expected_dice = kWhiteDice + p.grey_dice_bought();
  if (p.dice_size() != expected_dice) return bad("dice: wrong number for the phase");
  for (int c : p.dice()) {
    if (c < 0 || c >= kNumColors) return bad("dice: colour out of range");
  }
  if (p.kept_mask() < 0 || p.kept_mask() > 31) return bad("kept_mask out of range");
  if (phase != Phase::kSecondThrowResolved && p.kept_mask() != 0) {
    return bad("kept_mask: dice are kept only in the second throw");
  }
  if (phase == Phase::kSecondThrowResolved && p.kept_mask() == 31 && p.grey_dice_bought() == 0) {
    return bad("kept_mask: the second throw threw no die");
  }
  if (p.end_reason() < 0 || p.end_reason() > 2) return bad("end_reason out of range");
  if ((p.end_reason() != 0) != (phase == Phase::kGameOver)) {
    return bad("end_reason must be set exactly when the game is over");
  }

  // Snatch.
  Snatch snatch;
  if (p.has_snatch()) {
    const auto& sn = p.snatch();
    if (sn.thrower_seat() < 0 || sn.thrower_seat() >= n) return bad("snatch: thrower out of range");
    if (sn.snatch_dice_size() != kWhiteDice) return bad("snatch: five snatch dice");
    for (int i = 0; i < kWhiteDice; ++i) {
      if (sn.snatch_dice(i) < 0 || sn.snatch_dice(i) >= kNumColors) {
        return bad("snatch: dice colour out of range");
      }
      snatch.dice[i] = static_cast<int8_t>(sn.snatch_dice(i));
    }
    if (sn.rethrows() < 0 || sn.rethrows() > kMaxRethrows)
      return bad("snatch: rethrows out of range");
    snatch.thrower = static_cast<int8_t>(sn.thrower_seat());
    snatch.rethrows = static_cast<int16_t>(sn.rethrows());
    if (sn.snatch_set_size() > kPoolSlots) return bad("snatch: set too large");
    int previous = 0;
    for (int t : sn.snatch_set()) {
      if (!ValidTile(t) || t <= previous) return bad("snatch: set must be ascending tile ids");
      previous = t;
      snatch.set |= Bit(t);
    }
    if (sn.snatch_set_size() == 0 && !sn.resolved())
      return bad("snatch: an open window needs tiles");
    snatch.resolved = sn.resolved();
    if (sn.claims_size() != n) return bad("snatch: one claim per seat");
    for (int s = 0; s < n; ++s) {
      const auto& c = sn.claims(s);
      if (c.claimed()) snatch.claimed.Insert(s);
      if (c.tile_ids_size() > kMaxClaimLength || c.received_tile_ids_size() > kMaxClaimLength) {
        return bad("snatch: claim too long");
      }
      if (!c.claimed() && c.tile_ids_size() > 0) return bad("snatch: unclaimed seat with tiles");
      uint64_t claim_seen = 0;
      for (int i = 0; i < c.tile_ids_size(); ++i) {
        const int t = c.tile_ids(i);
        if (!ValidTile(t) || !(snatch.set & Bit(t)) || (claim_seen & Bit(t))) {
          return bad("snatch: a claim names a tile outside the snatch set or twice");
        }
        claim_seen |= Bit(t);
        snatch.claim[s][i] = static_cast<int8_t>(t);
      }
      snatch.claim_length[s] = static_cast<int8_t>(c.tile_ids_size());
      for (int i = 0; i < c.received_tile_ids_size(); ++i) {
        const int t = c.received_tile_ids(i);
        if (!ValidTile(t) || !(claim_seen & Bit(t))) {
          return bad("snatch: a seat received a tile it did not claim");
        }
        snatch.received[s][i] = static_cast<int8_t>(t);
      }
      snatch.received_length[s] = static_cast<int8_t>(c.received_tile_ids_size());
      if (!snatch.resolved && c.received_tile_ids_size() > 0) {
        return bad("snatch: tiles are received only when the window is resolved");
      }
    }
  }
  if (phase == Phase::kSnatchWindow) {
    if (!p.has_snatch() || snatch.resolved) return bad("snatch window without an open snatch");
    if (snatch.thrower != p.active_seat()) return bad("snatch: the thrower is the active player");
    if (snatch.claimed.size() >= n) return bad("snatch: every seat has claimed but it is open");
    if (!snatching_) return bad("snatch window without the snatching option");
  } else if (p.has_snatch() && !snatch.resolved) {
    return bad("snatch: an unresolved window outside the snatch phase");
  }
  if (p.has_snatch() && !snatching_) return bad("snatch without the snatching option");

  // Everything checked: take it over.
  phase_ = phase;
  active_ = static_cast<int8_t>(p.active_seat());
  turn_ = static_cast<int16_t>(p.turn_counter());
  end_reason_ = static_cast<EndReason>(p.end_reason());
  stack_begin_ = static_cast<int8_t>(kNumTiles - p.stack_size());
  stack_.fill(0);
  for (int i = 0; i < p.stack_size(); ++i)
    stack_[stack_begin_ + i] = static_cast<int8_t>(p.stack(i));
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
    if (expected != snatch_.set) return bad("snatch: the set does not match the pool and dice");
  }
  return absl::OkStatus();
}

}  // namespace parlor::games::pescado
