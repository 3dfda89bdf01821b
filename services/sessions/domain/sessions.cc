#include "services/sessions/domain/sessions.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/notification.h"
#include "engine/bots/bot.h"
#include "engine/core/rng.h"
#include "google/protobuf/arena.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/util/time_util.h"
#include "services/common/core/crypto.h"
#include "services/common/core/logging.h"
#include "services/common/core/status_macros.h"
#include "services/common/grpc_status.h"
#include "services/sessions/domain/engine_glue.h"

namespace parlor::sessions {
namespace {

using google::protobuf::util::TimeUtil;

constexpr int64_t kHour = 3600;
constexpr int64_t kDay = 86400;
constexpr size_t kMaxKeyLength = 128;
constexpr size_t kMaxNameLength = 64;
constexpr size_t kMaxActionBytes = 16 * 1024;
constexpr int kMaxSeats = 32;

std::string Deterministic(const google::protobuf::Message& message) {
  std::string out;
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    message.SerializeToCodedStream(&coded);
  }
  return out;
}

bool IsLowerHex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

bool IsUuid(absl::string_view s) {
  if (s.size() != 36) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (s[i] != '-') return false;
    } else if (!IsLowerHex(s[i])) {
      return false;
    }
  }
  return true;
}

std::string NewUuid() {
  std::string b = RandomBytes(16);
  b[6] = static_cast<char>((b[6] & 0x0f) | 0x40);
  b[8] = static_cast<char>((b[8] & 0x3f) | 0x80);
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    out += kHex[(static_cast<unsigned char>(b[i]) >> 4) & 0xf];
    out += kHex[static_cast<unsigned char>(b[i]) & 0xf];
  }
  return out;
}

absl::Status CheckText(absl::string_view field, absl::string_view value, size_t max,
                       bool required) {
  if (value.empty()) {
    if (required) return absl::InvalidArgumentError(absl::StrCat(field, " is required"));
    return absl::OkStatus();
  }
  if (value.size() > max) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, " is too long (", value.size(), " bytes; at most ", max, ")"));
  }
  for (char c : value) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return absl::InvalidArgumentError(absl::StrCat(field, " contains control characters"));
    }
  }
  return absl::OkStatus();
}

// The game's name and options as sent, bounded before anything can echo them back in a refusal:
// an oversized echo would exceed the client's metadata limit, which then sees RESOURCE_EXHAUSTED
// instead of the reason.
absl::Status CheckGameAndOptions(const std::string& game,
                                 const google::protobuf::Map<std::string, std::string>& options) {
  if (game.empty()) return absl::InvalidArgumentError("game is required");
  PARLOR_RETURN_IF_ERROR(CheckText("game", game, kMaxNameLength, true));
  for (const auto& [name, value] : options) {
    PARLOR_RETURN_IF_ERROR(CheckText("options: an option name", name, kMaxNameLength, true));
    PARLOR_RETURN_IF_ERROR(
        CheckText(absl::StrCat("options: the value of ", name), value, kMaxNameLength, false));
  }
  return absl::OkStatus();
}

absl::StatusOr<TimeControlRow> ParseTimeControl(const v1::TimeControl& tc) {
  TimeControlRow row;
  if (tc.vacation_days() < 0 || tc.vacation_days() > 30) {
    return absl::InvalidArgumentError("time_control.vacation_days must be 0 to 30");
  }
  row.vacation_days = tc.vacation_days();
  auto whole_seconds = [](const google::protobuf::Duration& d, absl::string_view field, int64_t lo,
                          int64_t hi) -> absl::StatusOr<int64_t> {
    if (d.nanos() != 0 || d.seconds() < lo || d.seconds() > hi) {
      return absl::InvalidArgumentError(absl::StrCat(field, " must be whole seconds from ", lo,
                                                     " to ", hi, " (got ", d.seconds(), "s)"));
    }
    return d.seconds();
  };
  switch (tc.kind_case()) {
    case v1::TimeControl::kPerMove: {
      row.kind = TimeControlRow::Kind::kPerMove;
      PARLOR_ASSIGN_OR_RETURN(
          row.per_move_s,
          whole_seconds(tc.per_move().limit(), "time_control.per_move.limit", kHour, 14 * kDay));
      return row;
    }
    case v1::TimeControl::kTimeBank: {
      row.kind = TimeControlRow::Kind::kTimeBank;
      PARLOR_ASSIGN_OR_RETURN(row.bank_initial_s,
                              whole_seconds(tc.time_bank().initial(),
                                            "time_control.time_bank.initial", kHour, 30 * kDay));
      PARLOR_ASSIGN_OR_RETURN(
          row.bank_increment_s,
          whole_seconds(tc.time_bank().increment(), "time_control.time_bank.increment", 0,
                        row.bank_initial_s));
      return row;
    }
    default:
      return absl::InvalidArgumentError("time_control must set per_move or time_bank");
  }
}

v1::TimeControl TimeControlProto(const TimeControlRow& row) {
  v1::TimeControl tc;
  tc.set_vacation_days(row.vacation_days);
  if (row.kind == TimeControlRow::Kind::kPerMove) {
    tc.mutable_per_move()->mutable_limit()->set_seconds(row.per_move_s);
  } else {
    tc.mutable_time_bank()->mutable_initial()->set_seconds(row.bank_initial_s);
    tc.mutable_time_bank()->mutable_increment()->set_seconds(row.bank_increment_s);
  }
  return tc;
}

absl::StatusOr<bool> IsPublic(int visibility) {
  if (!v1::Visibility_IsValid(visibility)) {
    return absl::InvalidArgumentError(
        "visibility must be VISIBILITY_PRIVATE, VISIBILITY_PUBLIC or unset (private)");
  }
  return visibility == v1::VISIBILITY_PUBLIC;
}

// Who looks at a game: its seat, or -1 for a spectator of a public game. A private game is
// only for its seated players.
absl::StatusOr<int> ViewerSeat(const GameRow& row, int seat) {
  if (seat >= 0 || row.is_public) return seat;
  return absl::PermissionDeniedError(
      absl::StrCat("game ", row.game_id, " is private: only its seated players may see it"));
}

// What a viewer sees of the state: a seat's view, the spectator view, or everything once the
// game has ended (the seed is revealed then too, so nothing is hidden any more).
engine::Viewer ViewerFor(int seat, bool finished) {
  if (finished) return engine::Viewer::All();
  return seat >= 0 ? engine::Viewer::Seat(seat) : engine::Viewer::Spectator();
}

google::protobuf::Timestamp ToTimestamp(absl::Time t) {
  return TimeUtil::MicrosecondsToTimestamp(absl::ToUnixMicros(t));
}

// The stream of one computer decision (a computer seat, a timed-out or a forfeited seat): derived
// from the game's secret seed with its own domain separation (engine::BotDecisionRng), so nobody
// can foresee it while the game runs, a retried transaction decides the same, and once the seed
// is revealed anyone can recompute the decision from the seat, its bot's name (Seat.bot; the
// timeout bot for a timed-out seat, "random" for a forfeited one) and the position.
engine::Rng BotRng(const engine::State& state, int seat) {
  return engine::BotDecisionRng(state.seed(), seat, state.NumMoves());
}

// Options that make a game long, bounded in games against the computer (a game's log grows
// with them, and the computer plays most of it). The bound is the game's default.
struct BotGameOptionBound {
  const char* game;
  const char* option;
  int64_t max;
};
constexpr BotGameOptionBound kBotGameOptionBounds[] = {
    {"kadice", "max_rounds", 100},
    {"picadice", "turn_limit_per_seat", 150},
    {"picadice", "match_target", 5},
};

absl::Status CheckBotGameOptions(const engine::Game& game, const engine::Options& options) {
  for (const BotGameOptionBound& bound : kBotGameOptionBounds) {
    if (game.name() != bound.game || options.values().count(bound.option) == 0) continue;
    const int64_t value = options.Get(bound.option);
    if (value > bound.max) {
      return absl::InvalidArgumentError(
          absl::StrCat("options: ", bound.option, " must be at most ", bound.max,
                       " in a game against the computer (got ", value, ")"));
    }
  }
  return absl::OkStatus();
}

std::string JsonString(absl::string_view s) { return absl::StrCat("\"", JsonEscape(s), "\""); }

absl::string_view CodeName(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kOk:
      return "ok";
    case absl::StatusCode::kInvalidArgument:
      return "invalid_argument";
    case absl::StatusCode::kFailedPrecondition:
      return "failed_precondition";
    case absl::StatusCode::kPermissionDenied:
      return "permission_denied";
    case absl::StatusCode::kAborted:
      return "aborted";
    case absl::StatusCode::kNotFound:
      return "not_found";
    case absl::StatusCode::kUnavailable:
      return "unavailable";
    default:
      return "error";
  }
}

// ABORTED for a stale expected_version, carrying the current version as a VersionConflict
// detail (sent to the client in the status details).
absl::Status StaleVersion(int64_t expected, int64_t current) {
  absl::Status status = absl::AbortedError(
      absl::StrCat("expected_version ", expected, " is stale: the game is at version ", current));
  v1::VersionConflict conflict;
  conflict.set_current_version(current);
  conflict.set_expected_version(expected);
  status.SetPayload(
      absl::StrCat("type.googleapis.com/", v1::VersionConflict::descriptor()->full_name()),
      absl::Cord(conflict.SerializeAsString()));
  return status;
}

// One state change being built inside a transaction.
struct Change {
  const GameRow* locked = nullptr;
  const engine::Game* game = nullptr;
  std::unique_ptr<engine::State> state;
  absl::Time now;
  GameRow after;
  std::vector<LogRow> log;
  std::vector<NotificationRow> notes;
  engine::SeatSet movers;
  std::vector<std::string> timed_out;  // for the observer
  // The player whose own request makes this change: the answer tells them whose turn it is, so
  // no "your turn" push goes to them (they are looking at the game).
  std::string answered_account;
  // Automatic play stopped at its per-request bound: the waiting computer seat is due at once,
  // so the sweeper continues the game.
  bool paced = false;
};

int64_t Ms(absl::Duration d) { return absl::ToInt64Milliseconds(d); }

// Applies one action or forfeit and logs it (the entry's bytes are filled in by Finish, from the
// one serialization of the change); charges the mover's time bank.
absl::Status ApplyLogged(Change& c, LogRow::Kind kind, int seat, engine::Action action,
                         LogRow::Cause cause, const std::string& account_id) {
  absl::Status status =
      kind == LogRow::Kind::kForfeit ? c.state->Forfeit(seat) : c.state->Apply(seat, action);
  if (!status.ok()) return status;
  LogRow row;
  row.version = c.state->NumMoves();
  row.kind = kind;
  row.cause = cause;
  row.seat = seat;
  row.action = kind == LogRow::Kind::kForfeit ? 0 : action;
  row.account_id = account_id;
  row.created_at = c.now;
  c.log.push_back(std::move(row));
  SeatRow& s = c.after.seats[seat];
  if (kind == LogRow::Kind::kAction &&
      c.after.time_control.kind == TimeControlRow::Kind::kTimeBank && s.my_turn &&
      s.turn_started_at && s.time_bank_ms && !c.movers.Contains(seat)) {
    const int64_t cap = c.after.time_control.bank_initial_s * 1000;
    int64_t bank = std::max<int64_t>(0, *s.time_bank_ms - Ms(c.now - *s.turn_started_at));
    bank = std::min(cap, bank + c.after.time_control.bank_increment_s * 1000);
    s.time_bank_ms = bank;
  }
  c.movers.Insert(seat);
  return absl::OkStatus();
}

// How much automatic play one request (or one sweep of a game) may do.
struct AutoPlayLimits {
  int moves = 100;
  absl::Duration budget = absl::Milliseconds(250);
};

bool IsAutoSeat(const Change& c, int seat) {
  return !c.after.seats[seat].bot.empty() || c.state->IsForfeited(seat);
}

// Whether the game had players and every one of them has forfeited (resigned or timed out):
// nobody is left to play it.
bool NoPlayerLeft(const Change& c) {
  bool any_player = false;
  for (const SeatRow& s : c.after.seats) {
    if (s.account_id.empty()) continue;
    any_player = true;
    if (!c.state->IsForfeited(s.seat)) return false;
  }
  return any_player;
}

// Ends a game nobody plays any more by the forfeit rules, at once: the computer seats withdraw
// one side at a time, lowest running score first (ties: higher seat first), until fewer than
// two sides remain; the players, who forfeited first, rank last, and the computer seats rank by
// their scores. A few log entries instead of the computer playing the game out.
absl::Status EndGameNobodyPlays(Change& c) {
  while (!c.state->IsTerminal()) {
    const std::vector<int64_t> scores = c.state->Scores();
    int withdraw = -1;
    for (int seat = 0; seat < c.state->num_players(); ++seat) {
      if (c.state->IsForfeited(seat)) continue;
      if (withdraw < 0 || scores[seat] <= scores[withdraw]) withdraw = seat;
    }
    if (withdraw < 0) return absl::InternalError("no seat left to withdraw in a game not over");
    PARLOR_RETURN_IF_ERROR(
        ApplyLogged(c, LogRow::Kind::kForfeit, withdraw, 0, LogRow::Cause::kSystem, ""));
  }
  return absl::OkStatus();
}

// Computer seats, and forfeited seats in games that go on, move at once, within `limits`; a game
// whose players have all forfeited ends instead. Sets c.paced when moves remain for the sweeper.
absl::Status AutoPlay(Change& c, const AutoPlayLimits& limits) {
  if (!c.state->IsTerminal() && NoPlayerLeft(c)) return EndGameNobodyPlays(c);
  const int64_t limit =
      c.game->MaxMoves(c.state->num_players(), c.state->options()) + c.state->num_players() + 1;
  const absl::Time started = absl::Now();
  int moves = 0;
  while (!c.state->IsTerminal() && c.state->NumMoves() <= limit) {
    int auto_seat = -1;
    for (int seat : c.state->ActingSeats().ToVector()) {
      if (IsAutoSeat(c, seat)) {
        auto_seat = seat;
        break;
      }
    }
    if (auto_seat < 0) return absl::OkStatus();
    if (moves > 0 && (moves >= limits.moves || absl::Now() - started >= limits.budget)) {
      c.paced = true;
      return absl::OkStatus();
    }
    const SeatRow& s = c.after.seats[auto_seat];
    const std::string bot_name =
        c.state->IsForfeited(auto_seat) || s.bot.empty() ? "random" : s.bot;
    absl::StatusOr<std::unique_ptr<bots::Bot>> bot = bots::MakeBot(bot_name);
    if (!bot.ok())
      return absl::InternalError(absl::StrCat("bot ", bot_name, ": ", bot.status().message()));
    engine::Rng rng = BotRng(*c.state, auto_seat);
    absl::StatusOr<engine::Action> action = (*bot)->Choose(*c.state, auto_seat, rng);
    if (!action.ok())
      return absl::InternalError(absl::StrCat("bot failed: ", action.status().message()));
    PARLOR_RETURN_IF_ERROR(
        ApplyLogged(c, LogRow::Kind::kAction, auto_seat, *action, LogRow::Cause::kBot, ""));
    ++moves;
  }
  return absl::OkStatus();
}

absl::Duration TurnTime(const GameRow& g, const SeatRow& s) {
  if (g.time_control.kind == TimeControlRow::Kind::kPerMove) {
    return absl::Seconds(g.time_control.per_move_s);
  }
  return absl::Milliseconds(s.time_bank_ms.value_or(g.time_control.bank_initial_s * 1000));
}

std::string ResultJson(const GameRow& g) {
  std::vector<std::string> seats;
  for (const SeatRow& s : g.seats) {
    seats.push_back(absl::StrCat("{\"seat\":", s.seat, ",\"account_id\":", JsonString(s.account_id),
                                 ",\"bot\":", JsonString(s.bot), ",\"team\":", s.team,
                                 ",\"forfeited\":", s.forfeited ? "true" : "false", ",\"rank\":",
                                 g.ranks[s.seat], ",\"score\":", g.scores[s.seat], "}"));
  }
  return absl::StrCat("{\"game_id\":", JsonString(g.game_id), ",\"game\":", JsonString(g.game),
                      ",\"ranked\":", g.ranked ? "true" : "false",
                      ",\"reason\":", JsonString(g.end_reason), ",\"seats\":[",
                      absl::StrJoin(seats, ","), "]}");
}

NotificationRow Note(const GameRow& g, const SeatRow& s, absl::string_view kind,
                     absl::string_view dedupe, absl::string_view text) {
  NotificationRow n;
  n.account_id = s.account_id;
  n.kind = std::string(kind);
  n.version = g.version;
  n.dedupe_key = std::string(dedupe);
  n.payload_json = absl::StrCat("{\"game_id\":", JsonString(g.game_id),
                                ",\"game\":", JsonString(g.game), ",\"version\":", g.version,
                                ",\"seat\":", s.seat, ",\"text\":", JsonString(text), "}");
  return n;
}

// Builds the rows after the change: snapshot, version, clocks, outcome, notifications.
Mutation Finish(Change& c) {
  GameRow& g = c.after;
  const engine::State& st = *c.state;
  g.version = st.NumMoves();
  // One serialization per change (the record holds the whole log, so this is the costly part):
  // the snapshot, and the entries of the versions this change added (log index = version).
  // On an arena: the record holds a message per move, and freeing them one by one was a large
  // part of a move's CPU.
  google::protobuf::Arena arena;
  auto* record = google::protobuf::Arena::CreateMessage<engine::v1::GameRecord>(&arena);
  st.SerializeInto(record);
  g.snapshot = record->SerializeAsString();
  for (LogRow& row : c.log) {
    if (row.entry.empty() && row.version >= 0 && row.version < record->log_size()) {
      row.entry = record->log(static_cast<int>(row.version)).SerializeAsString();
    }
  }
  g.acting_seats = ActingBits(st);
  g.updated_at = c.now;
  g.deadline.reset();
  const bool moved = !c.log.empty();
  if (st.IsTerminal()) {
    g.finished = true;
    g.acting_seats = 0;
    const engine::Outcome outcome = st.GetOutcome();
    g.ranks = outcome.ranks;
    g.scores = outcome.scores;
    g.end_reason = outcome.reason;
  }
  for (SeatRow& s : g.seats) {
    s.forfeited = st.IsForfeited(s.seat);
    const bool acting = !g.finished && st.ActingSeats().Contains(s.seat);
    const bool was_acting = c.locked->seats[s.seat].my_turn;
    if (!acting) {
      s.my_turn = false;
      s.turn_started_at.reset();
      s.deadline.reset();
      s.reminders_sent = 0;
    } else if (const bool automatic = !s.bot.empty() || st.IsForfeited(s.seat);
               !was_acting || c.movers.Contains(s.seat) || (c.paced && automatic)) {
      s.my_turn = true;
      s.turn_started_at = c.now;
      // A computer seat left waiting by the bound on automatic play is due at once (the
      // sweeper plays on).
      s.deadline = c.paced && automatic ? c.now : c.now + TurnTime(g, s);
      s.reminders_sent = 0;
      if (!automatic && s.account_id != c.answered_account) {
        c.notes.push_back(Note(g, s, "your_turn",
                               absl::StrCat("turn:", g.game_id, ":", g.version, ":", s.seat),
                               "It is your turn"));
      }
    }
    if (s.deadline && (!g.deadline || *s.deadline < *g.deadline)) g.deadline = s.deadline;
  }
  Mutation m;
  if (g.finished && moved) {
    for (const SeatRow& s : g.seats) {
      if (s.bot.empty()) {
        c.notes.push_back(Note(g, s, "game_over", absl::StrCat("over:", g.game_id, ":", s.seat),
                               absl::StrCat("The game has ended: ", g.end_reason)));
      }
    }
    m.result = ResultRow{ResultJson(g)};
  }
  m.after = g;
  m.log = std::move(c.log);
  m.notifications = std::move(c.notes);
  std::vector<std::string> accounts;
  for (const SeatRow& s : g.seats) {
    if (!s.account_id.empty()) accounts.push_back(s.account_id);
  }
  m.notify_payload = absl::StrCat(g.game_id, ":", g.version, ":", absl::StrJoin(accounts, ","));
  return m;
}

}  // namespace

Sessions::Sessions(GameStore* store, const engine::Registry* games,
                   std::function<absl::Time()> clock, Options options, SessionsObserver* observer)
    : store_(store),
      games_(games),
      clock_(std::move(clock)),
      options_(std::move(options)),
      observer_(observer != nullptr ? observer : &null_observer_),
      page_tokens_(options_.page_token_secret),
      states_(options_.state_cache_entries) {}

absl::Status Sessions::ValidateGameId(absl::string_view game_id) {
  if (game_id.empty()) return absl::InvalidArgumentError("game_id is required");
  if (!IsUuid(game_id)) {
    return absl::InvalidArgumentError("game_id must be a lower-case UUID (as Game.game_id)");
  }
  return absl::OkStatus();
}

absl::StatusOr<const engine::Game*> Sessions::FindGame(absl::string_view name) const {
  absl::StatusOr<const engine::Game*> game = games_->Find(name);
  if (!game.ok()) return absl::InvalidArgumentError(game.status().message());
  return game;
}

int Sessions::SeatOf(const GameRow& row, const std::string& account_id) const {
  for (const SeatRow& s : row.seats) {
    if (!s.account_id.empty() && s.account_id == account_id) return s.seat;
  }
  return -1;
}

absl::StatusOr<v1::Game> Sessions::Summary(const GameRow& row, int my_seat) const {
  v1::Game out;
  out.set_game_id(row.game_id);
  out.set_game(row.game);
  for (const auto& [k, v] : row.options) (*out.mutable_options())[k] = v;
  out.set_ranked(row.ranked);
  out.set_status(row.finished ? v1::GAME_STATUS_FINISHED : v1::GAME_STATUS_ACTIVE);
  out.set_version(row.version);
  for (const SeatRow& s : row.seats) {
    v1::Seat* seat = out.add_seats();
    seat->set_seat(s.seat);
    seat->set_account_id(s.account_id);
    seat->set_display_name(s.display_name);
    seat->set_team(s.team);
    seat->set_bot(s.bot);
    seat->set_forfeited(s.forfeited);
    if (s.time_bank_ms) {
      int64_t remaining = *s.time_bank_ms;
      if (s.my_turn && s.turn_started_at) {
        remaining = std::max<int64_t>(0, remaining - Ms(clock_() - *s.turn_started_at));
      }
      *seat->mutable_time_bank_remaining() = TimeUtil::MillisecondsToDuration(remaining);
    }
    *seat->mutable_vacation_used() = TimeUtil::MillisecondsToDuration(s.vacation_used_ms);
    if (s.my_turn) out.add_acting_seats(s.seat);
  }
  out.set_my_seat(my_seat);
  out.set_my_turn(my_seat >= 0 && (row.acting_seats >> my_seat & 1u) != 0);
  *out.mutable_time_control() = TimeControlProto(row.time_control);
  if (row.deadline) *out.mutable_deadline() = ToTimestamp(*row.deadline);
  out.set_seed_commitment(row.seed_commitment);
  if (row.finished) {
    PARLOR_ASSIGN_OR_RETURN(engine::v1::GameRecord record, ParseRecord(row.snapshot));
    PARLOR_ASSIGN_OR_RETURN(engine::Seed seed, engine::Seed::FromBytes(record.seed()));
    out.set_seed(seed.ToHex());
    v1::Outcome* outcome = out.mutable_outcome();
    for (int r : row.ranks) outcome->add_ranks(r);
    for (int64_t s : row.scores) outcome->add_scores(s);
    outcome->set_reason(row.end_reason);
  }
  *out.mutable_create_time() = ToTimestamp(row.created_at);
  *out.mutable_update_time() = ToTimestamp(row.updated_at);
  out.set_match_id(row.match_id);
  out.set_visibility(row.is_public ? v1::VISIBILITY_PUBLIC : v1::VISIBILITY_PRIVATE);
  return out;
}

absl::Status Sessions::Create(const std::string& match_key, const std::string& request_hash,
                              const std::string& match_id, const engine::Game& game,
                              const std::map<std::string, std::string>& raw_options,
                              std::vector<SeatRow> seats, bool ranked, bool is_public,
                              const v1::TimeControl& tc, v1::Game* out, bool* created) {
  const int n = static_cast<int>(seats.size());
  PARLOR_ASSIGN_OR_RETURN(engine::Options options, game.ParseOptions(raw_options, n));
  PARLOR_ASSIGN_OR_RETURN(TimeControlRow time_control, ParseTimeControl(tc));
  PARLOR_ASSIGN_OR_RETURN(engine::Seed seed, engine::Seed::FromBytes(RandomBytes(32)));
  PARLOR_ASSIGN_OR_RETURN(std::unique_ptr<engine::State> state, game.NewGame(n, options, seed));
  for (SeatRow& s : seats) {
    const int team = state->TeamOf(s.seat);
    if (s.team >= 0 && s.team != team) {
      return absl::InvalidArgumentError(
          absl::StrCat("seats[", s.seat, "].team is ", s.team,
                       " but the game's options put that seat on team ", team));
    }
    s.team = team;
    if (time_control.kind == TimeControlRow::Kind::kTimeBank) {
      s.time_bank_ms = time_control.bank_initial_s * 1000;
    }
  }
  const absl::Time now = clock_();
  GameRow locked;  // "before": nobody acting
  locked.seats = seats;
  Change c;
  c.locked = &locked;
  c.game = &game;
  c.state = std::move(state);
  c.now = now;
  c.after.game_id = NewUuid();
  c.after.game = game.name();
  c.after.match_id = match_id;
  c.after.ranked = ranked;
  c.after.is_public = is_public;
  c.after.num_players = n;
  for (const engine::OptionSpec& spec : game.info().options) {
    c.after.options[spec.name] = engine::FormatOptionValue(spec, options.Get(spec.name));
  }
  c.after.seed_commitment = engine::SeedCommitment(seed);
  c.after.time_control = time_control;
  c.after.created_at = now;
  c.after.seats = seats;
  PARLOR_RETURN_IF_ERROR(
      AutoPlay(c, AutoPlayLimits{options_.auto_moves_per_request, options_.auto_play_budget}));
  const engine::v1::GameRecord record = c.state->Serialize();
  LogRow setup;
  setup.version = 0;
  setup.kind = LogRow::Kind::kSetup;
  setup.cause = LogRow::Cause::kSystem;
  setup.seat = -1;
  setup.entry = record.log(0).SerializeAsString();
  setup.created_at = now;
  c.log.insert(c.log.begin(), std::move(setup));
  Mutation m = Finish(c);
  NewGame ng;
  ng.game = m.after;
  ng.log = std::move(m.log);
  ng.request_hash = request_hash;
  ng.notifications = std::move(m.notifications);
  // A game the computer played to its end at creation is reported like any other.
  ng.result = std::move(m.result);
  ng.notify_payload = m.notify_payload;
  PARLOR_ASSIGN_OR_RETURN(GameRow stored, store_->CreateGame(ng, match_key, created));
  int my_seat = -1;
  PARLOR_ASSIGN_OR_RETURN(*out, Summary(stored, my_seat));
  return absl::OkStatus();
}

absl::Status Sessions::CreateGame(const v1::CreateGameRequest& request,
                                  v1::CreateGameResponse* response) {
  response->Clear();
  PARLOR_RETURN_IF_ERROR(CheckText("match_id", request.match_id(), kMaxKeyLength, true));
  PARLOR_RETURN_IF_ERROR(CheckGameAndOptions(request.game(), request.options()));
  PARLOR_ASSIGN_OR_RETURN(const engine::Game* game, FindGame(request.game()));
  if (request.seats_size() < 1 || request.seats_size() > kMaxSeats) {
    return absl::InvalidArgumentError(absl::StrCat(
        "seats: between 1 and ", kMaxSeats, " seats are needed (got ", request.seats_size(), ")"));
  }
  if (!request.has_time_control()) return absl::InvalidArgumentError("time_control is required");
  PARLOR_ASSIGN_OR_RETURN(const bool is_public, IsPublic(request.visibility()));
  std::vector<SeatRow> seats;
  for (int i = 0; i < request.seats_size(); ++i) {
    const v1::SeatSpec& spec = request.seats(i);
    const std::string field = absl::StrCat("seats[", i, "]");
    SeatRow s;
    s.seat = i;
    s.team = spec.has_team() ? spec.team() : -1;
    if (spec.account_id().empty() == spec.bot().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ": set exactly one of account_id and bot"));
    }
    if (!spec.account_id().empty()) {
      if (!IsUuid(spec.account_id())) {
        return absl::InvalidArgumentError(
            absl::StrCat(field, ".account_id must be a lower-case UUID"));
      }
      for (const SeatRow& other : seats) {
        if (other.account_id == spec.account_id()) {
          return absl::InvalidArgumentError(
              absl::StrCat(field, ".account_id is already seated at seat ", other.seat));
        }
      }
      s.account_id = spec.account_id();
      PARLOR_RETURN_IF_ERROR(CheckText(absl::StrCat(field, ".display_name"), spec.display_name(),
                                       kMaxNameLength, true));
      s.display_name = spec.display_name();
    } else {
      if (request.ranked()) {
        return absl::InvalidArgumentError(
            absl::StrCat(field, ": ranked games cannot have computer seats"));
      }
      absl::StatusOr<std::unique_ptr<bots::Bot>> bot = bots::MakeBot(spec.bot());
      if (!bot.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(field, ".bot: ", bot.status().message()));
      }
      s.bot = spec.bot();
      PARLOR_RETURN_IF_ERROR(CheckText(absl::StrCat(field, ".display_name"), spec.display_name(),
                                       kMaxNameLength, false));
      s.display_name = spec.display_name().empty() ? absl::StrCat("Computer (", s.bot, ")")
                                                   : spec.display_name();
    }
    if (spec.has_team() && (spec.team() < 0 || spec.team() >= kMaxSeats)) {
      return absl::InvalidArgumentError(absl::StrCat(field, ".team must be 0 to 31"));
    }
    seats.push_back(std::move(s));
  }
  const std::string hash = Sha256(Deterministic(request));
  std::map<std::string, std::string> raw(request.options().begin(), request.options().end());
  bool created = false;
  PARLOR_RETURN_IF_ERROR(Create(request.match_id(), hash, request.match_id(), *game, raw,
                                std::move(seats), request.ranked(), is_public,
                                request.time_control(), response->mutable_game(), &created));
  response->set_created(created);
  return absl::OkStatus();
}

absl::Status Sessions::CreateBotGame(const std::string& account_id,
                                     const v1::CreateBotGameRequest& request,
                                     v1::CreateBotGameResponse* response) {
  response->Clear();
  PARLOR_RETURN_IF_ERROR(CheckText("request_id", request.request_id(), kMaxKeyLength, true));
  PARLOR_RETURN_IF_ERROR(CheckGameAndOptions(request.game(), request.options()));
  PARLOR_ASSIGN_OR_RETURN(const engine::Game* game, FindGame(request.game()));
  const int n = request.num_players();
  if (n < game->info().min_players || n > game->info().max_players) {
    return absl::InvalidArgumentError(absl::StrCat("num_players must be ", game->info().min_players,
                                                   " to ", game->info().max_players, " for ",
                                                   game->name(), " (got ", n, ")"));
  }
  if (request.my_seat() < 0 || request.my_seat() >= n) {
    return absl::InvalidArgumentError(absl::StrCat("my_seat must be 0 to ", n - 1));
  }
  std::string bot = request.bot().empty() ? "random" : request.bot();
  if (absl::StatusOr<std::unique_ptr<bots::Bot>> b = bots::MakeBot(bot); !b.ok()) {
    // The levels, for an engine that does not register them: the seat then shows the bot
    // that plays, so the game's decisions can still be recomputed from Seat.bot.
    static const std::map<std::string, std::string>* const kLevels =
        new std::map<std::string, std::string>{
            {"easy", "random"}, {"medium", "greedy"}, {"hard", "mc"}};
    auto level = kLevels->find(bot);
    if (level == kLevels->end()) {
      return absl::InvalidArgumentError(absl::StrCat("bot: ", b.status().message()));
    }
    bot = level->second;
  }
  PARLOR_RETURN_IF_ERROR(CheckText("display_name", request.display_name(), kMaxNameLength, false));
  PARLOR_ASSIGN_OR_RETURN(const bool is_public, IsPublic(request.visibility()));
  v1::TimeControl tc = request.time_control();
  if (!request.has_time_control()) tc.mutable_per_move()->mutable_limit()->set_seconds(7 * kDay);
  std::vector<SeatRow> seats;
  for (int i = 0; i < n; ++i) {
    SeatRow s;
    s.seat = i;
    s.team = -1;
    if (i == request.my_seat()) {
      s.account_id = account_id;
      s.display_name = request.display_name().empty() ? "Player" : request.display_name();
    } else {
      s.bot = bot;
      s.display_name = absl::StrCat("Computer (", bot, ")");
    }
    seats.push_back(std::move(s));
  }
  v1::CreateBotGameRequest canonical = request;
  const std::string hash = Sha256(absl::StrCat(account_id, "\n", Deterministic(canonical)));
  std::map<std::string, std::string> raw(request.options().begin(), request.options().end());
  PARLOR_ASSIGN_OR_RETURN(const engine::Options parsed, game->ParseOptions(raw, n));
  PARLOR_RETURN_IF_ERROR(CheckBotGameOptions(*game, parsed));
  PARLOR_RETURN_IF_ERROR(ParseTimeControl(tc).status());
  const std::string match_key = absl::StrCat("bot:", account_id, ":", request.request_id());
  // A retry of a request that created its game gets that game whatever the quotas say now.
  PARLOR_ASSIGN_OR_RETURN(const bool retry, store_->MatchExists(match_key));
  if (!retry) PARLOR_RETURN_IF_ERROR(CheckQuotas(account_id));
  bool created = false;
  absl::Status status = Create(match_key, hash, "", *game, raw, std::move(seats), false, is_public,
                               tc, response->mutable_game(), &created);
  if (absl::IsAlreadyExists(status)) {
    // The store names its internal key; the caller knows the request id.
    return absl::AlreadyExistsError(
        absl::StrCat("request_id '", request.request_id(),
                     "' was already used to create a game with different settings; use a fresh "
                     "request_id for a new game"));
  }
  PARLOR_RETURN_IF_ERROR(status);
  response->mutable_game()->set_my_seat(request.my_seat());
  response->set_created(created);
  // Refresh the summary for the caller (my_turn, and any computer moves made at creation).
  PARLOR_ASSIGN_OR_RETURN(*response->mutable_game(),
                          GameSummary(account_id, response->game().game_id()));
  return absl::OkStatus();
}

absl::Status Sessions::CheckQuotas(const std::string& account_id) {
  if (options_.max_active_games <= 0 && options_.max_bot_games_per_hour <= 0 &&
      options_.max_actions_per_day <= 0) {
    return absl::OkStatus();
  }
  const absl::Time now = clock_();
  PARLOR_ASSIGN_OR_RETURN(
      const GameStore::AccountUsage usage,
      store_->GetAccountUsage(account_id, now - absl::Hours(1), now - absl::Hours(24)));
  auto wait_until = [&](std::optional<absl::Time> oldest, absl::Duration window) {
    return std::max(absl::Seconds(1), oldest ? absl::Ceil(*oldest + window - now, absl::Seconds(1))
                                             : absl::Seconds(1));
  };
  if (options_.max_active_games > 0 && usage.active_games >= options_.max_active_games) {
    observer_->QuotaRefused("active_games");
    return absl::ResourceExhaustedError(
        absl::StrCat("you have ", usage.active_games, " games in progress, the most allowed (",
                     options_.max_active_games, "); finish or resign one before starting another"));
  }
  if (options_.max_bot_games_per_hour > 0 &&
      usage.bot_games_last_hour >= options_.max_bot_games_per_hour) {
    observer_->QuotaRefused("games_per_hour");
    return WithRetryDelay(absl::ResourceExhaustedError(absl::StrCat(
                              "you have started ", usage.bot_games_last_hour,
                              " games against the computer in the last hour, the most allowed (",
                              options_.max_bot_games_per_hour, "); retry after the delay given")),
                          wait_until(usage.oldest_bot_game_in_hour, absl::Hours(1)));
  }
  if (options_.max_actions_per_day > 0 && usage.actions_last_day >= options_.max_actions_per_day) {
    observer_->QuotaRefused("actions_per_day");
    return WithRetryDelay(absl::ResourceExhaustedError(absl::StrCat(
                              "your games of the last 24 hours hold ", usage.actions_last_day,
                              " moves, the most allowed (", options_.max_actions_per_day,
                              "); retry after the delay given")),
                          wait_until(usage.oldest_game_in_day, absl::Hours(24)));
  }
  return absl::OkStatus();
}

absl::StatusOr<v1::Game> Sessions::GameSummary(const std::string& account_id,
                                               absl::string_view game_id) {
  PARLOR_RETURN_IF_ERROR(ValidateGameId(game_id));
  PARLOR_ASSIGN_OR_RETURN(GameRow row, store_->GetGame(game_id));
  PARLOR_ASSIGN_OR_RETURN(const int seat, ViewerSeat(row, SeatOf(row, account_id)));
  return Summary(row, seat);
}

absl::Status Sessions::GetGame(const std::string& account_id, const v1::GetGameRequest& request,
                               v1::GetGameResponse* response) {
  response->Clear();
  PARLOR_RETURN_IF_ERROR(ValidateGameId(request.game_id()));
  PARLOR_ASSIGN_OR_RETURN(GameRow row, store_->GetGame(request.game_id()));
  PARLOR_ASSIGN_OR_RETURN(const int seat, ViewerSeat(row, SeatOf(row, account_id)));
  PARLOR_ASSIGN_OR_RETURN(const engine::Game* game, FindGame(row.game));
  std::unique_ptr<engine::State> state;
  if (std::shared_ptr<const engine::State> cached = states_.Get(row.game_id, row.version)) {
    state = cached->Clone();
  } else {
    PARLOR_ASSIGN_OR_RETURN(state, LoadState(*game, row.snapshot));
  }
  PARLOR_ASSIGN_OR_RETURN(*response->mutable_game(), Summary(row, seat));
  // A seated player keeps its seat's view after the end (as before); a spectator sees the
  // spectator view while the game runs and everything once it has ended.
  *response->mutable_view() =
      ViewAny(*state, seat >= 0 ? engine::Viewer::Seat(seat) : ViewerFor(seat, row.finished));
  if (seat >= 0 && !row.finished && !row.seats[seat].forfeited) {
    for (auto& a : LegalActionsAny(*state, seat)) *response->add_legal_actions() = std::move(a);
  }
  return absl::OkStatus();
}

absl::Status Sessions::ListMyGames(const std::string& account_id,
                                   const v1::ListMyGamesRequest& request,
                                   v1::ListMyGamesResponse* response) {
  response->Clear();
  if (!v1::GameFilter_IsValid(request.filter())) {
    return absl::InvalidArgumentError("filter is not a known GameFilter value");
  }
  if (request.page_size() < 0 || request.page_size() > 100) {
    return absl::InvalidArgumentError("page_size must be 0 to 100");
  }
  const int page_size = request.page_size() == 0 ? 20 : request.page_size();
  const std::string fingerprint = absl::StrCat(account_id, "/", request.filter());
  std::optional<ListCursor> cursor;
  if (!request.page_token().empty()) {
    if (request.page_token().size() > 512) {
      return absl::InvalidArgumentError("page_token is not one this server issued");
    }
    PARLOR_ASSIGN_OR_RETURN(std::string raw,
                            page_tokens_.Decode(request.page_token(), fingerprint));
    std::pair<std::string, std::string> parts = absl::StrSplit(raw, absl::MaxSplits('|', 1));
    int64_t micros = 0;
    if (!absl::SimpleAtoi(parts.first, &micros) || !IsUuid(parts.second)) {
      return absl::InvalidArgumentError("page_token is not one this server issued");
    }
    cursor = ListCursor{absl::FromUnixMicros(micros), parts.second};
  }
  PARLOR_ASSIGN_OR_RETURN(std::vector<GameRow> rows,
                          store_->ListGames(account_id, static_cast<ListFilter>(request.filter()),
                                            cursor, page_size + 1));
  const bool more = static_cast<int>(rows.size()) > page_size;
  if (more) rows.resize(page_size);
  for (const GameRow& row : rows) {
    PARLOR_ASSIGN_OR_RETURN(*response->add_games(), Summary(row, SeatOf(row, account_id)));
  }
  if (more && !rows.empty()) {
    // The seat rows carry the game's updated_at, which is the sort key.
    response->set_next_page_token(page_tokens_.Encode(
        absl::StrCat(absl::ToUnixMicros(rows.back().updated_at), "|", rows.back().game_id),
        fingerprint));
  }
  return absl::OkStatus();
}

absl::Status Sessions::ListPublicGames(const std::string& account_id,
                                       const v1::ListPublicGamesRequest& request,
                                       v1::ListPublicGamesResponse* response) {
  response->Clear();
  if (!request.game().empty()) {
    PARLOR_RETURN_IF_ERROR(CheckText("game", request.game(), kMaxNameLength, false));
    PARLOR_RETURN_IF_ERROR(FindGame(request.game()).status());
  }
  if (request.status() != v1::GAME_STATUS_UNSPECIFIED &&
      request.status() != v1::GAME_STATUS_ACTIVE && request.status() != v1::GAME_STATUS_FINISHED) {
    return absl::InvalidArgumentError(
        "status must be GAME_STATUS_ACTIVE (or unset) or GAME_STATUS_FINISHED");
  }
  const bool finished = request.status() == v1::GAME_STATUS_FINISHED;
  if (request.page_size() < 0 || request.page_size() > 100) {
    return absl::InvalidArgumentError("page_size must be 0 to 100");
  }
  const int page_size = request.page_size() == 0 ? 20 : request.page_size();
  // Tokens are bound to the listing they continue, not to the caller: a public page is the same
  // for everyone.
  const std::string fingerprint =
      absl::StrCat("public/", request.game(), "/", finished ? "finished" : "active");
  std::optional<ListCursor> cursor;
  if (!request.page_token().empty()) {
    if (request.page_token().size() > 512) {
      return absl::InvalidArgumentError("page_token is not one this server issued");
    }
    PARLOR_ASSIGN_OR_RETURN(std::string raw,
                            page_tokens_.Decode(request.page_token(), fingerprint));
    std::pair<std::string, std::string> parts = absl::StrSplit(raw, absl::MaxSplits('|', 1));
    int64_t micros = 0;
    if (!absl::SimpleAtoi(parts.first, &micros) || !IsUuid(parts.second)) {
      return absl::InvalidArgumentError("page_token is not one this server issued");
    }
    cursor = ListCursor{absl::FromUnixMicros(micros), parts.second};
  }
  PARLOR_ASSIGN_OR_RETURN(std::vector<GameRow> rows,
                          store_->ListPublicGames(request.game(), finished, cursor, page_size + 1));
  const bool more = static_cast<int>(rows.size()) > page_size;
  if (more) rows.resize(page_size);
  for (const GameRow& row : rows) {
    PARLOR_ASSIGN_OR_RETURN(*response->add_games(), Summary(row, SeatOf(row, account_id)));
  }
  if (more && !rows.empty()) {
    response->set_next_page_token(page_tokens_.Encode(
        absl::StrCat(absl::ToUnixMicros(rows.back().updated_at), "|", rows.back().game_id),
        fingerprint));
  }
  return absl::OkStatus();
}

absl::Status Sessions::SubmitAction(const std::string& account_id,
                                    const v1::SubmitActionRequest& request,
                                    v1::SubmitActionResponse* response) {
  absl::Notification finished;
  absl::Status result;
  SubmitActionAsync(account_id, request, response, [&](absl::Status status) {
    result = std::move(status);
    finished.Notify();
  });
  finished.WaitForNotification();
  return result;
}

// What the decision and the completion of one SubmitAction share; the caller keeps `request` and
// `response` until `done` is called.
struct Sessions::SubmitCall {
  std::string account_id;
  const v1::SubmitActionRequest* request = nullptr;
  std::string hash;
  std::string game_name;
  v1::SubmitActionResponse answer;
  // The state this change leaves, to keep loaded once (and only if) it has committed.
  std::shared_ptr<const engine::State> committed;
  int64_t committed_version = -1;
  absl::Time started;
  GameStore::Decide decide;
  // The decision found no answer under the key and a newer version than expected. When the two
  // copies of one request reach two replicas at once, the second's locked read waits for the
  // first's lock and then sees the newer game row but (READ COMMITTED re-reads only locked rows)
  // not the key the first stored; a second transaction, with a fresh snapshot, finds it.
  bool stale = false;
  bool rechecked = false;
};

void Sessions::Commit(const std::shared_ptr<SubmitCall>& call,
                      std::function<void(absl::Status)> finish) {
  const IdempotencyKeyRef key{call->account_id, call->request->idempotency_key()};
  if (options_.group_committer != nullptr) {
    options_.group_committer->UpdateAsync("sessions.submit_action", call->request->game_id(), key,
                                          call->decide, std::move(finish));
  } else {
    finish(
        store_->UpdateGame("sessions.submit_action", call->request->game_id(), key, call->decide));
  }
}

void Sessions::SubmitActionAsync(const std::string& account_id,
                                 const v1::SubmitActionRequest& request,
                                 v1::SubmitActionResponse* response,
                                 std::function<void(absl::Status)> done) {
  response->Clear();
  if (absl::Status valid = ValidateSubmit(request); !valid.ok()) {
    done(std::move(valid));
    return;
  }
  auto call = std::make_shared<SubmitCall>();
  call->account_id = account_id;
  call->request = &request;
  call->hash = Sha256(absl::StrCat(request.game_id(), "\n", request.expected_version(), "\n",
                                   Deterministic(request.action())));
  call->started = absl::Now();
  // The decision holds the call by plain pointer (the call owns it; the completion keeps the
  // call alive until the transaction has finished).
  SubmitCall* const self = call.get();
  call->decide = [this, self](const GameRow& locked, const std::optional<StoredAnswer>& stored)
      -> absl::StatusOr<std::optional<Mutation>> {
    const v1::SubmitActionRequest& request = *self->request;
    const std::string& account_id = self->account_id;
    const std::string& hash = self->hash;
    v1::SubmitActionResponse& answer = self->answer;
    std::shared_ptr<const engine::State>& committed = self->committed;
    self->game_name = locked.game;
    self->stale = false;
    answer.Clear();
    committed.reset();
    const int seat = SeatOf(locked, account_id);
    if (seat < 0) return absl::NotFoundError(absl::StrCat("no game with id ", locked.game_id));
    if (stored) {
      if (stored->request_hash != hash) {
        return absl::InvalidArgumentError(
            "idempotency_key was already used for a different request; use a fresh key per "
            "move");
      }
      if (!answer.ParseFromString(stored->response)) {
        return absl::DataLossError("stored answer does not parse");
      }
      return std::optional<Mutation>();
    }
    if (locked.version != request.expected_version()) {
      self->stale = true;
      return StaleVersion(request.expected_version(), locked.version);
    }
    if (locked.finished) return absl::FailedPreconditionError("the game has ended");
    if (locked.seats[seat].forfeited) {
      return absl::PermissionDeniedError("your seat has forfeited this game");
    }
    PARLOR_ASSIGN_OR_RETURN(const engine::Game* game, FindGame(locked.game));
    std::unique_ptr<engine::State> state;
    if (std::shared_ptr<const engine::State> loaded = states_.Get(locked.game_id, locked.version)) {
      state = loaded->Clone();
    } else {
      PARLOR_ASSIGN_OR_RETURN(state, LoadState(*game, locked.snapshot));
    }
    if ((locked.acting_seats >> seat & 1u) == 0) {
      // A seat that has made its choice of a simultaneous step (a Pico card, a Pescado claim)
      // gets the engine's own refusal ("you already chose ..."); otherwise it is not its turn.
      const absl::Status engine_refusal = state->CheckAction(seat, 0);
      if (absl::IsFailedPrecondition(engine_refusal) &&
          absl::StrContains(engine_refusal.message(), "already")) {
        return engine_refusal;
      }
      std::vector<int> acting;
      for (const SeatRow& s : locked.seats) {
        if (s.my_turn) acting.push_back(s.seat);
      }
      return absl::PermissionDeniedError(absl::StrCat("it is not your turn (you are seat ", seat,
                                                      "; waiting for seat ",
                                                      absl::StrJoin(acting, ", "), ")"));
    }
    PARLOR_ASSIGN_OR_RETURN(engine::Action action, game->ActionFromAny(request.action()));
    Change c;
    c.locked = &locked;
    c.game = game;
    c.state = std::move(state);
    c.now = clock_();
    c.after = locked;
    c.answered_account = account_id;
    PARLOR_RETURN_IF_ERROR(
        ApplyLogged(c, LogRow::Kind::kAction, seat, action, LogRow::Cause::kPlayer, account_id));
    PARLOR_RETURN_IF_ERROR(
        AutoPlay(c, AutoPlayLimits{options_.auto_moves_per_request, options_.auto_play_budget}));
    Mutation m = Finish(c);
    PARLOR_ASSIGN_OR_RETURN(*answer.mutable_game(), Summary(m.after, seat));
    *answer.mutable_view() = ViewAny(*c.state, engine::Viewer::Seat(seat));
    if (!m.after.finished) {
      for (auto& a : LegalActionsAny(*c.state, seat)) *answer.add_legal_actions() = std::move(a);
    }
    m.answer = StoredAnswer{hash, m.after.version, answer.SerializeAsString()};
    self->committed_version = m.after.version;
    committed = std::move(c.state);
    return std::optional<Mutation>(std::move(m));
  };
  auto finish = [this, call, response, done = std::move(done)](absl::Status status) {
    observer_->ActionResult(call->game_name.empty() ? "unknown" : call->game_name,
                            CodeName(status.code()));
    if (status.ok()) {
      if (call->committed) {
        states_.Put(call->request->game_id(), call->committed_version, std::move(call->committed));
      }
      observer_->CommitDuration(absl::Now() - call->started);
      *response = std::move(call->answer);
    }
    done(std::move(status));
  };
  auto first = [this, call, finish = std::move(finish)](absl::Status status) mutable {
    if (absl::IsAborted(status) && call->stale && !call->rechecked) {
      call->rechecked = true;
      Commit(call, std::move(finish));
      return;
    }
    finish(std::move(status));
  };
  Commit(call, std::move(first));
}

absl::Status Sessions::ValidateSubmit(const v1::SubmitActionRequest& request) {
  PARLOR_RETURN_IF_ERROR(ValidateGameId(request.game_id()));
  PARLOR_RETURN_IF_ERROR(
      CheckText("idempotency_key", request.idempotency_key(), kMaxKeyLength, true));
  if (request.expected_version() < 0) {
    return absl::InvalidArgumentError("expected_version must be >= 0");
  }
  if (!request.has_action() || request.action().type_url().empty()) {
    return absl::InvalidArgumentError("action is required (an Any holding the game's Action)");
  }
  if (request.action().ByteSizeLong() > kMaxActionBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("action is too large (at most ", kMaxActionBytes, " bytes)"));
  }
  return absl::OkStatus();
}

absl::Status Sessions::Resign(const std::string& account_id, const v1::ResignRequest& request,
                              v1::ResignResponse* response) {
  response->Clear();
  PARLOR_RETURN_IF_ERROR(ValidateGameId(request.game_id()));
  // Resign carries no expected version, so it decides on the version it read first: when the
  // game changed between that read and the lock, the locked read's seat rows may predate the
  // change (READ COMMITTED re-reads only the locked game row), and the resignation is decided
  // again on fresh rows.
  constexpr int kAttempts = 3;
  for (int attempt = 1;; ++attempt) {
    PARLOR_ASSIGN_OR_RETURN(const GameRow seen, store_->GetGame(request.game_id()));
    bool changed_meanwhile = false;
    absl::Status status = store_->UpdateGame(
        "sessions.resign", request.game_id(), std::nullopt,
        [&](const GameRow& locked,
            const std::optional<StoredAnswer>&) -> absl::StatusOr<std::optional<Mutation>> {
          changed_meanwhile = false;
          const int seat = SeatOf(locked, account_id);
          if (seat < 0) {
            return absl::NotFoundError(absl::StrCat("no game with id ", locked.game_id));
          }
          if (locked.finished) return absl::FailedPreconditionError("the game has ended");
          if (locked.seats[seat].forfeited) {
            return absl::FailedPreconditionError("your seat has already forfeited this game");
          }
          if (locked.version != seen.version) {
            changed_meanwhile = true;
            return std::optional<Mutation>();
          }
          PARLOR_ASSIGN_OR_RETURN(const engine::Game* game, FindGame(locked.game));
          Change c;
          c.locked = &locked;
          c.game = game;
          PARLOR_ASSIGN_OR_RETURN(c.state, LoadState(*game, locked.snapshot));
          c.now = clock_();
          c.after = locked;
          PARLOR_RETURN_IF_ERROR(
              ApplyLogged(c, LogRow::Kind::kForfeit, seat, 0, LogRow::Cause::kPlayer, account_id));
          PARLOR_RETURN_IF_ERROR(AutoPlay(
              c, AutoPlayLimits{options_.auto_moves_per_request, options_.auto_play_budget}));
          Mutation m = Finish(c);
          PARLOR_ASSIGN_OR_RETURN(*response->mutable_game(), Summary(m.after, seat));
          return std::optional<Mutation>(std::move(m));
        });
    if (!status.ok() || !changed_meanwhile) return status;
    if (attempt == kAttempts) {
      return absl::AbortedError("the game kept changing while you resigned; try again");
    }
  }
}

absl::Status Sessions::WatchEvents(const std::string& account_id, absl::string_view game_id,
                                   int64_t after_version, int limit,
                                   std::vector<v1::WatchGameResponse>* out) {
  v1::GetHistoryRequest request;
  request.set_game_id(std::string(game_id));
  request.set_from_version(after_version + 1);
  request.set_page_size(limit);
  v1::GetHistoryResponse history;
  PARLOR_RETURN_IF_ERROR(GetHistory(account_id, request, &history));
  if (history.events().empty()) return absl::OkStatus();
  PARLOR_ASSIGN_OR_RETURN(v1::Game summary, GameSummary(account_id, game_id));
  for (const v1::HistoryEvent& event : history.events()) {
    v1::WatchGameResponse r;
    *r.mutable_event() = event;
    *r.mutable_game() = summary;
    out->push_back(std::move(r));
  }
  return absl::OkStatus();
}

absl::Status Sessions::GetHistory(const std::string& account_id,
                                  const v1::GetHistoryRequest& request,
                                  v1::GetHistoryResponse* response) {
  response->Clear();
  PARLOR_RETURN_IF_ERROR(ValidateGameId(request.game_id()));
  if (request.from_version() < 0) return absl::InvalidArgumentError("from_version must be >= 0");
  if (request.page_size() < 0 || request.page_size() > 200) {
    return absl::InvalidArgumentError("page_size must be 0 to 200");
  }
  const int page_size = request.page_size() == 0 ? 50 : request.page_size();
  PARLOR_ASSIGN_OR_RETURN(GameRow row, store_->GetGame(request.game_id()));
  PARLOR_ASSIGN_OR_RETURN(const int seat, ViewerSeat(row, SeatOf(row, account_id)));
  response->set_current_version(row.version);
  if (request.from_version() > row.version) return absl::OkStatus();
  const int64_t to = std::min<int64_t>(row.version, request.from_version() + page_size - 1);
  PARLOR_ASSIGN_OR_RETURN(const engine::Game* game, FindGame(row.game));
  PARLOR_ASSIGN_OR_RETURN(engine::v1::GameRecord record, ParseRecord(row.snapshot));
  const int64_t first = std::max<int64_t>(0, request.from_version() - 1);
  PARLOR_ASSIGN_OR_RETURN(std::vector<std::unique_ptr<engine::State>> states,
                          StatesBetween(*game, record, first, to));
  PARLOR_ASSIGN_OR_RETURN(std::vector<LogRow> log,
                          store_->GetLog(request.game_id(), request.from_version(),
                                         static_cast<int>(to - request.from_version() + 1)));
  const engine::Viewer viewer = ViewerFor(seat, row.finished);
  for (const LogRow& entry : log) {
    const int64_t v = entry.version;
    if (v - first >= static_cast<int64_t>(states.size())) break;
    v1::HistoryEvent* event = response->add_events();
    event->set_version(v);
    event->set_seat(entry.seat);
    switch (entry.kind) {
      case LogRow::Kind::kSetup:
        event->set_kind(v1::EVENT_KIND_SETUP);
        break;
      case LogRow::Kind::kAction:
        event->set_kind(v1::EVENT_KIND_ACTION);
        break;
      case LogRow::Kind::kForfeit:
        event->set_kind(v1::EVENT_KIND_FORFEIT);
        break;
    }
    switch (entry.cause) {
      case LogRow::Cause::kSystem:
        event->set_cause(v1::EVENT_CAUSE_SYSTEM);
        break;
      case LogRow::Cause::kPlayer:
        event->set_cause(v1::EVENT_CAUSE_PLAYER);
        break;
      case LogRow::Cause::kBot:
        event->set_cause(v1::EVENT_CAUSE_BOT);
        break;
      case LogRow::Cause::kTimeout:
        event->set_cause(v1::EVENT_CAUSE_TIMEOUT);
        break;
    }
    const engine::State& at = *states[v - first];
    if (v == 0) {
      event->set_description("the game was set up");
    } else {
      event->set_description(
          DescribeMove(*states[v - first - 1], record.log(static_cast<int>(v)), viewer));
    }
    // While the game runs, the caller sees its own seat's view (a spectator the spectator
    // view); afterwards, everything.
    *event->mutable_view() = ViewAny(at, viewer);
    *event->mutable_time() = ToTimestamp(entry.created_at);
  }
  return absl::OkStatus();
}

absl::Status Sessions::StartVacation(const std::string& account_id,
                                     const v1::StartVacationRequest& request,
                                     v1::StartVacationResponse* response) {
  response->Clear();
  const google::protobuf::Duration& d = request.duration();
  if (d.seconds() < kHour || d.seconds() > 30 * kDay || d.nanos() != 0) {
    return absl::InvalidArgumentError("duration must be whole seconds from 1 hour to 30 days");
  }
  const absl::Time now = clock_();
  const absl::Time end = now + absl::Seconds(d.seconds());
  PARLOR_RETURN_IF_ERROR(store_->StartVacation(account_id, now, end));
  *response->mutable_end_time() = ToTimestamp(end);
  return absl::OkStatus();
}

absl::Status Sessions::EndVacation(const std::string& account_id, const v1::EndVacationRequest&,
                                   v1::EndVacationResponse* response) {
  response->Clear();
  return store_->EndVacation(account_id, clock_());
}

absl::StatusOr<int> Sessions::ForgetExpiredIdempotencyKeys() {
  const absl::Time cutoff = clock_() - options_.idempotency_key_retention;
  int total = 0;
  for (int batch = 0; batch < options_.idempotency_key_batches; ++batch) {
    PARLOR_ASSIGN_OR_RETURN(const int deleted, store_->DeleteIdempotencyKeysBefore(
                                                   cutoff, options_.idempotency_key_batch));
    total += deleted;
    if (deleted < options_.idempotency_key_batch) break;
  }
  return total;
}

absl::StatusOr<int> Sessions::Sweep(int limit) {
  const absl::Time now = clock_();
  PARLOR_ASSIGN_OR_RETURN(std::vector<std::string> ids, store_->DueGames(now, limit));
  int changed = 0;
  for (const std::string& id : ids) {
    // Vacations of the game's players (read before the transaction; a vacation starting in
    // between only takes effect at the next sweep).
    std::map<std::string, GameStore::Vacation> vacations;
    // The version this sweep decides on. Another replica's sweeper (or a move) may change the
    // game between the listing and the lock; the locked read then has the new game row but, in
    // READ COMMITTED, seat rows from before the wait, so such a game is left to the next sweep
    // rather than timed out twice on stale seats.
    int64_t seen_version = -1;
    if (absl::StatusOr<GameRow> row = store_->GetGame(id); row.ok()) {
      seen_version = row->version;
      for (const SeatRow& s : row->seats) {
        if (s.account_id.empty() || !s.my_turn) continue;
        absl::StatusOr<std::optional<GameStore::Vacation>> v = store_->GetVacation(s.account_id);
        if (v.ok() && v->has_value() && (*v)->started_at <= now && now < (*v)->ends_at) {
          vacations[s.account_id] = **v;
        }
      }
    }
    std::vector<std::pair<std::string, std::string>> timeouts;
    bool wrote = false;
    absl::Status status = store_->UpdateGame(
        "sessions.sweep", id, std::nullopt,
        [&](const GameRow& locked,
            const std::optional<StoredAnswer>&) -> absl::StatusOr<std::optional<Mutation>> {
          timeouts.clear();
          wrote = false;
          if (locked.finished || locked.version != seen_version) return std::optional<Mutation>();
          PARLOR_ASSIGN_OR_RETURN(const engine::Game* game, FindGame(locked.game));
          Change c;
          c.locked = &locked;
          c.game = game;
          PARLOR_ASSIGN_OR_RETURN(c.state, LoadState(*game, locked.snapshot));
          c.now = now;
          c.after = locked;
          bool touched = false;
          for (const SeatRow& s : locked.seats) {
            if (!s.my_turn || !s.deadline || !s.turn_started_at) continue;
            if (*s.deadline <= now && IsAutoSeat(c, s.seat)) {
              // A computer (or forfeited) seat left waiting by the bound on automatic play: the
              // automatic play below continues the game, another bounded chunk.
              touched = true;
              continue;
            }
            SeatRow& seat = c.after.seats[s.seat];
            if (*s.deadline <= now && vacations.count(s.account_id) > 0) {
              // On vacation: the clock is paused (the deadline moves) within the allowance.
              const int64_t allowance_ms = int64_t{locked.time_control.vacation_days} * kDay * 1000;
              const int64_t left_ms = allowance_ms - s.vacation_used_ms;
              if (left_ms > 0) {
                const int64_t pause_ms =
                    std::min(left_ms, Ms(vacations[s.account_id].ends_at - now));
                seat.deadline = now + absl::Milliseconds(pause_ms);
                seat.turn_started_at = *s.turn_started_at + absl::Milliseconds(pause_ms);
                seat.vacation_used_ms += pause_ms;
                touched = true;
                continue;
              }
            }
            if (*s.deadline <= now) {
              if (c.state->IsTerminal() || !c.state->ActingSeats().Contains(s.seat)) continue;
              touched = true;
              if (locked.ranked) {
                PARLOR_RETURN_IF_ERROR(
                    ApplyLogged(c, LogRow::Kind::kForfeit, s.seat, 0, LogRow::Cause::kTimeout, ""));
                timeouts.push_back({locked.game, "forfeit"});
              } else {
                PARLOR_ASSIGN_OR_RETURN(std::unique_ptr<bots::Bot> bot,
                                        bots::MakeBot(options_.timeout_bot));
                engine::Rng rng = BotRng(*c.state, s.seat);
                PARLOR_ASSIGN_OR_RETURN(engine::Action action, bot->Choose(*c.state, s.seat, rng));
                PARLOR_RETURN_IF_ERROR(ApplyLogged(c, LogRow::Kind::kAction, s.seat, action,
                                                   LogRow::Cause::kTimeout, ""));
                timeouts.push_back({locked.game, "bot"});
              }
              if (!s.account_id.empty()) {
                c.notes.push_back(
                    Note(locked, s, "timeout",
                         absl::StrCat("timeout:", locked.game_id, ":", locked.version, ":", s.seat),
                         locked.ranked ? "Your time ran out: you forfeited"
                                       : "Your time ran out: the computer moved "
                                         "for you"));
              }
              continue;
            }
            // While its player is on vacation the clock is paused: no reminders either.
            if (vacations.count(s.account_id) > 0) continue;
            const absl::Duration total = *s.deadline - *s.turn_started_at;
            int due = 0;
            if (now >= *s.turn_started_at + total * options_.second_reminder) {
              due = 2;
            } else if (now >= *s.turn_started_at + total * options_.first_reminder) {
              due = 1;
            }
            if (due > s.reminders_sent) {
              touched = true;
              seat.reminders_sent = due;
              if (!s.account_id.empty()) {
                c.notes.push_back(Note(locked, s, "reminder",
                                       absl::StrCat("reminder:", locked.game_id, ":",
                                                    locked.version, ":", s.seat, ":", due),
                                       due == 1 ? "Half of your time for this move has passed"
                                                : "Your time for this move is nearly up"));
              }
            }
          }
          if (!touched) return std::optional<Mutation>();
          PARLOR_RETURN_IF_ERROR(AutoPlay(
              c, AutoPlayLimits{options_.auto_moves_per_request, options_.auto_play_budget}));
          Mutation m = Finish(c);
          wrote = true;
          return std::optional<Mutation>(std::move(m));
        });
    if (!status.ok()) {
      spdlog::warn("sweeper: game {}: {}", id, status.ToString());
      continue;
    }
    for (const auto& [game, policy] : timeouts) observer_->Timeout(game, policy);
    if (wrote) ++changed;
  }
  return changed;
}

}  // namespace parlor::sessions
