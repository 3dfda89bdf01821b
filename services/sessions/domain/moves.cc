#include "services/sessions/domain/moves.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/bots/bot.h"
#include "google/protobuf/arena.h"
#include "services/common/core/logging.h"
#include "services/common/core/status_macros.h"
#include "services/common/core/utf8.h"
#include "services/sessions/domain/engine_glue.h"
#include "services/sessions/domain/time_control.h"

namespace parlor::sessions {
namespace {

// One state change being built.
struct Change {
  const GameRow* locked = nullptr;
  const engine::Game* game = nullptr;
  std::unique_ptr<engine::State> state;
  absl::Time now;
  GameRow after;
  std::vector<LogRow> log;
  std::vector<NotificationRow> notes;
  engine::SeatSet movers;
  // The player whose own request makes this change: the answer tells them whose turn it is, so
  // no "your turn" push goes to them (they are looking at the game).
  std::string answered_account;
  // Automatic play stopped at its per-request bound: the waiting computer seat is due at once,
  // so the sweeper continues the game.
  bool paced = false;
  // The state before the change's last action or forfeit, to describe that move in pushes.
  std::unique_ptr<engine::State> before_last;
  engine::State::LogForm snapshot_log = engine::State::LogForm::kSetupOnly;
};

Change StartChange(const DecisionContext& ctx, const GameRow& locked,
                   std::unique_ptr<engine::State> state) {
  Change c;
  c.locked = &locked;
  c.game = ctx.game;
  c.state = std::move(state);
  c.now = ctx.now;
  c.after = locked;
  c.snapshot_log = ctx.snapshot_log;
  return c;
}

// The stream of one computer decision (a computer seat, a timed-out or a forfeited seat): derived
// from the game's secret seed with its own domain separation (engine::BotDecisionRng), so nobody
// can foresee it while the game runs, a retried transaction decides the same, and once the seed
// is revealed anyone can recompute the decision from the seat, its bot's name (Seat.bot; the
// timeout bot for a timed-out seat, "random" for a forfeited one) and the position.
engine::Rng BotRng(const engine::State& state, int seat) {
  return engine::BotDecisionRng(state.seed(), seat, state.NumMoves());
}

// Applies one action or forfeit and logs it (the entry's bytes are filled in by Finish, from the
// one serialization of the change); charges the mover's time bank.
absl::Status ApplyLogged(Change& c, LogRow::Kind kind, int seat, engine::Action action,
                         LogRow::Cause cause, const std::string& account_id) {
  const bool forfeit = kind == LogRow::Kind::kForfeit;
  std::unique_ptr<engine::State> before = c.state->Clone();
  PARLOR_RETURN_IF_ERROR(forfeit ? c.state->Forfeit(seat) : c.state->Apply(seat, action));
  c.before_last = std::move(before);
  LogRow row;
  row.version = c.state->NumMoves();
  row.kind = kind;
  row.cause = cause;
  row.seat = seat;
  row.action = forfeit ? 0 : action;
  row.account_id = account_id;
  row.created_at = c.now;
  c.log.push_back(std::move(row));
  SeatRow& s = c.after.seats[seat];
  if (!forfeit && c.after.time_control.kind == TimeControlRow::Kind::kTimeBank && s.my_turn &&
      s.turn_started_at && s.time_bank_ms && !c.movers.Contains(seat)) {
    s.time_bank_ms = ChargedBankMs(c.after.time_control, *s.time_bank_ms, TimeUsed(s, c.now));
  }
  // The seat's own move ends a run of timeouts.
  if (cause == LogRow::Cause::kPlayer && !forfeit) s.timeouts_in_a_row = 0;
  c.movers.Insert(seat);
  return absl::OkStatus();
}

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

// The first acting seat the computer plays, or -1.
int NextAutoSeat(const Change& c) {
  for (int seat : c.state->ActingSeats().ToVector()) {
    if (IsAutoSeat(c, seat)) return seat;
  }
  return -1;
}

// The computer's move for `seat`: its own bot, or "random" for a forfeited seat.
absl::Status PlayAutoSeat(Change& c, int seat) {
  const SeatRow& s = c.after.seats[seat];
  const std::string bot_name = c.state->IsForfeited(seat) || s.bot.empty() ? "random" : s.bot;
  absl::StatusOr<std::unique_ptr<bots::Bot>> bot = bots::MakeBot(bot_name);
  if (!bot.ok()) {
    return absl::InternalError(absl::StrCat("bot ", bot_name, ": ", bot.status().message()));
  }
  engine::Rng rng = BotRng(*c.state, seat);
  absl::StatusOr<engine::Action> action = (*bot)->Choose(*c.state, seat, rng);
  if (!action.ok()) {
    return absl::InternalError(absl::StrCat("bot failed: ", action.status().message()));
  }
  return ApplyLogged(c, LogRow::Kind::kAction, seat, *action, LogRow::Cause::kBot, "");
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
    const int auto_seat = NextAutoSeat(c);
    if (auto_seat < 0) return absl::OkStatus();
    if (moves > 0 && (moves >= limits.moves || absl::Now() - started >= limits.budget)) {
      c.paced = true;
      return absl::OkStatus();
    }
    PARLOR_RETURN_IF_ERROR(PlayAutoSeat(c, auto_seat));
    ++moves;
  }
  return absl::OkStatus();
}

std::string JsonString(absl::string_view s) { return absl::StrCat("\"", JsonEscape(s), "\""); }

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

// The last move of a change, as one seat may see it: who moved and the words its own history
// shows for that move (a hidden choice stays hidden). Empty when the change made no move.
struct LastMove {
  std::string mover;
  std::string words;
};

LastMove LastMoveFor(const Change& c, const SeatRow& s) {
  if (c.before_last == nullptr || c.log.empty()) return {};
  engine::v1::LogEntry entry;
  if (!entry.ParseFromString(c.log.back().entry)) return {};
  if (entry.kind() == engine::v1::LogEntry::KIND_SETUP) return {};
  bool revealed = false;
  std::string words = DescribeMove(*c.before_last, entry, engine::Viewer::Seat(s.seat), &revealed);
  if (!revealed) {
    words =
        entry.kind() == engine::v1::LogEntry::KIND_FORFEIT ? "forfeited" : "made a hidden choice";
  }
  LastMove last;
  if (entry.seat() >= 0 && entry.seat() < static_cast<int>(c.after.seats.size())) {
    last.mover = CutUtf8(c.after.seats[entry.seat()].display_name, 64);
  }
  last.words = CutUtf8(words, 200);
  return last;
}

// A push's row: the game, the seat's opponents by display name (other sides; what "Your turn in
// Pico against Tess" needs), for a your-turn or reminder the turn's deadline ("expires_at_us",
// after which telling the player is pointless), and for a your-turn or game over the last move
// as that seat may see it. Only what that seat may see: no other hand, no hidden dice.
NotificationRow Note(const GameRow& g, const SeatRow& s, absl::string_view kind,
                     absl::string_view dedupe, absl::string_view text,
                     std::optional<absl::Time> expires = std::nullopt,
                     const LastMove& last_move = {}) {
  NotificationRow n;
  n.account_id = s.account_id;
  n.kind = std::string(kind);
  n.version = g.version;
  n.dedupe_key = std::string(dedupe);
  std::vector<std::string> opponents;
  for (const SeatRow& other : g.seats) {
    if (other.seat != s.seat && other.team != s.team) {
      opponents.push_back(JsonString(other.display_name));
    }
  }
  n.payload_json = absl::StrCat(
      "{\"game_id\":", JsonString(g.game_id), ",\"game\":", JsonString(g.game),
      ",\"version\":", g.version, ",\"seat\":", s.seat, ",\"text\":", JsonString(text),
      ",\"opponents\":[", absl::StrJoin(opponents, ","), "]",
      expires ? absl::StrCat(",\"expires_at_us\":", absl::ToUnixMicros(*expires)) : "",
      last_move.words.empty() ? ""
                              : absl::StrCat(",\"last_mover\":", JsonString(last_move.mover),
                                             ",\"last_move\":", JsonString(last_move.words)),
      "}");
  return n;
}

// The snapshot after the change, and the entries of the versions it added. The snapshot leaves
// the log out (its entries are the game's log rows), so neither its size nor the cost of
// writing it grows with the game. On an arena: a record with the whole log holds a message per
// move, and freeing them one by one was a large part of a move's CPU.
void SerializeChange(Change& c) {
  google::protobuf::Arena arena;
  auto* record = google::protobuf::Arena::CreateMessage<engine::v1::GameRecord>(&arena);
  c.state->SerializeInto(record, c.snapshot_log);
  c.after.snapshot = record->SerializeAsString();
  for (LogRow& row : c.log) {
    if (!row.entry.empty()) continue;
    if (std::optional<engine::v1::LogEntry> entry = c.state->LogEntryAt(row.version)) {
      row.entry = entry->SerializeAsString();
    }
  }
}

// A seat's turn after the change: over, starting (with its deadline, and a "your turn" notice
// for a player not looking at the game), or going on as it was.
void UpdateTurn(Change& c, SeatRow& s) {
  const GameRow& g = c.after;
  const engine::State& st = *c.state;
  const bool acting = !g.finished && st.ActingSeats().Contains(s.seat);
  const bool was_acting = c.locked->seats[s.seat].my_turn;
  const bool automatic = !s.bot.empty() || st.IsForfeited(s.seat);
  // A player's turn that ends while the game goes on (they moved, or the game moved on): their
  // pending "your turn" and reminders are dropped and the badge counts one game less. (A game
  // that ends tells each player "game over", which does the same.)
  if (was_acting && !acting && !g.finished && !automatic && !s.account_id.empty()) {
    c.notes.push_back(Note(g, s, "turn_over",
                           absl::StrCat("turnover:", g.game_id, ":", g.version, ":", s.seat),
                           "Your turn is over"));
  }
  if (!acting) {
    ResumeClock(s, c.now);  // a pause the turn does not use goes back to the allowance
    s.my_turn = false;
    s.turn_started_at.reset();
    s.deadline.reset();
    s.reminders_sent = 0;
    return;
  }
  if (was_acting && !c.movers.Contains(s.seat) && !(c.paced && automatic)) return;
  ResumeClock(s, c.now);
  s.my_turn = true;
  s.turn_started_at = c.now;
  // A computer seat left waiting by the bound on automatic play is due at once (the sweeper
  // plays on).
  s.deadline = c.paced && automatic ? c.now : c.now + TurnTime(g.time_control, s);
  s.reminders_sent = 0;
  // A turn that starts while its player is on vacation starts with its clock paused.
  if (!automatic) PauseClock(g.time_control, s, c.now);
  if (!automatic && s.account_id != c.answered_account) {
    c.notes.push_back(Note(g, s, "your_turn",
                           absl::StrCat("turn:", g.game_id, ":", g.version, ":", s.seat),
                           "It is your turn", s.deadline, LastMoveFor(c, s)));
  }
}

// Builds the rows after the change: snapshot, version, clocks, outcome, notifications.
Decision Finish(Change& c) {
  GameRow& g = c.after;
  const engine::State& st = *c.state;
  g.version = st.NumMoves();
  SerializeChange(c);
  g.acting_seats = ActingBits(st);
  g.updated_at = c.now;
  g.deadline.reset();
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
    UpdateTurn(c, s);
    if (s.deadline && (!g.deadline || *s.deadline < *g.deadline)) g.deadline = s.deadline;
  }
  Decision d;
  Mutation& m = d.mutation;
  if (g.finished && !c.log.empty()) {
    for (const SeatRow& s : g.seats) {
      if (!s.bot.empty()) continue;
      c.notes.push_back(Note(g, s, "game_over", absl::StrCat("over:", g.game_id, ":", s.seat),
                             absl::StrCat("The game has ended: ", g.end_reason), std::nullopt,
                             LastMoveFor(c, s)));
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
  d.state = std::move(c.state);
  return d;
}

// A seat whose deadline has passed: a ranked game's seat forfeits, a casual game's gets the
// timeout bot's move, unless this is its policy.casual_forfeit_after'th timeout in a row, which
// forfeits it too; its player is told.
absl::Status TimeOut(Change& c, const SeatRow& s, const TimeoutPolicy& policy,
                     std::vector<std::string>* timeouts) {
  const GameRow& locked = *c.locked;
  const int in_a_row = ++c.after.seats[s.seat].timeouts_in_a_row;
  const bool repeated =
      !locked.ranked && policy.casual_forfeit_after > 0 && in_a_row >= policy.casual_forfeit_after;
  if (locked.ranked || repeated) {
    PARLOR_RETURN_IF_ERROR(
        ApplyLogged(c, LogRow::Kind::kForfeit, s.seat, 0, LogRow::Cause::kTimeout, ""));
    timeouts->push_back("forfeit");
  } else {
    PARLOR_ASSIGN_OR_RETURN(std::unique_ptr<bots::Bot> bot, bots::MakeBot(policy.timeout_bot));
    engine::Rng rng = BotRng(*c.state, s.seat);
    PARLOR_ASSIGN_OR_RETURN(engine::Action action, bot->Choose(*c.state, s.seat, rng));
    PARLOR_RETURN_IF_ERROR(
        ApplyLogged(c, LogRow::Kind::kAction, s.seat, action, LogRow::Cause::kTimeout, ""));
    timeouts->push_back("bot");
  }
  if (!s.account_id.empty()) {
    c.notes.push_back(Note(
        locked, s, "timeout",
        absl::StrCat("timeout:", locked.game_id, ":", locked.version, ":", s.seat),
        locked.ranked ? "Your time ran out: you forfeited"
        : repeated ? absl::StrCat("Your time ran out ", in_a_row, " turns in a row: you forfeited")
                   : "Your time ran out: the computer moved for you"));
  }
  return absl::OkStatus();
}

// The reminders due for a running turn (none while its clock is paused by a vacation). Returns
// whether one fell due.
bool Remind(Change& c, const SeatRow& s) {
  const int due = RemindersDue(s, c.now, kFirstReminderFraction, kSecondReminderFraction);
  if (due <= s.reminders_sent) return false;
  c.after.seats[s.seat].reminders_sent = due;
  if (!s.account_id.empty()) {
    const GameRow& locked = *c.locked;
    c.notes.push_back(
        Note(locked, s, "reminder",
             absl::StrCat("reminder:", locked.game_id, ":", locked.version, ":", s.seat, ":", due),
             due == 1 ? "Half of your time for this move has passed"
                      : "Your time for this move is nearly up",
             s.deadline));
  }
  return true;
}

// One seat of a sweep; returns whether the game changed because of it. (A vacation needs
// nothing here: it moved the deadline when it paused the clock.)
absl::StatusOr<bool> SweepSeat(Change& c, const SeatRow& s, const TimeoutPolicy& policy,
                               std::vector<std::string>* timeouts) {
  if (!s.my_turn || !s.deadline || !s.turn_started_at) return false;
  const bool due = *s.deadline <= c.now;
  // A computer (or forfeited) seat left waiting by the bound on automatic play: the automatic
  // play after the sweep continues the game, another bounded chunk.
  if (due && IsAutoSeat(c, s.seat)) return true;
  if (due) {
    if (c.state->IsTerminal() || !c.state->ActingSeats().Contains(s.seat)) return false;
    PARLOR_RETURN_IF_ERROR(TimeOut(c, s, policy, timeouts));
    return true;
  }
  return Remind(c, s);
}

}  // namespace

int SeatOf(const GameRow& row, absl::string_view account_id) {
  for (const SeatRow& s : row.seats) {
    if (!s.account_id.empty() && s.account_id == account_id) return s.seat;
  }
  return -1;
}

bool LeavesAutoPlayDue(const GameRow& after) {
  if (after.finished) return false;
  for (const SeatRow& s : after.seats) {
    // The bound gives the waiting seat the change's own time as its deadline.
    if ((!s.bot.empty() || s.forfeited) && s.my_turn && s.deadline &&
        *s.deadline <= after.updated_at) {
      return true;
    }
  }
  return false;
}

absl::StatusOr<Decision> DecideNewGame(const DecisionContext& ctx, NewGameSpec spec) {
  const int n = static_cast<int>(spec.seats.size());
  PARLOR_ASSIGN_OR_RETURN(std::unique_ptr<engine::State> state,
                          ctx.game->NewGame(n, spec.options, spec.seed));
  for (SeatRow& s : spec.seats) {
    const int team = state->TeamOf(s.seat);
    if (s.team >= 0 && s.team != team) {
      return absl::InvalidArgumentError(
          absl::StrCat("seats[", s.seat, "].team is ", s.team,
                       " but the game's options put that seat on team ", team));
    }
    s.team = team;
    if (spec.time_control.kind == TimeControlRow::Kind::kTimeBank) {
      s.time_bank_ms = spec.time_control.bank_initial_s * 1000;
    }
  }
  GameRow before;  // nobody acting
  before.seats = spec.seats;
  Change c = StartChange(ctx, before, std::move(state));
  GameRow& g = c.after;
  g.game_id = spec.game_id;
  g.game = ctx.game->name();
  g.match_id = spec.match_id;
  g.ranked = spec.ranked;
  g.is_public = spec.is_public;
  g.num_players = n;
  for (const engine::OptionSpec& option : ctx.game->info().options) {
    g.options[option.name] = engine::FormatOptionValue(option, spec.options.Get(option.name));
  }
  g.seed_commitment = engine::SeedCommitment(spec.seed);
  g.time_control = spec.time_control;
  g.created_at = ctx.now;
  PARLOR_RETURN_IF_ERROR(AutoPlay(c, ctx.limits));
  LogRow setup;
  setup.version = 0;
  setup.kind = LogRow::Kind::kSetup;
  setup.cause = LogRow::Cause::kSystem;
  setup.seat = -1;
  setup.created_at = ctx.now;
  c.log.insert(c.log.begin(), std::move(setup));  // its entry comes from the one serialization
  return Finish(c);
}

absl::Status CheckCanMove(const GameRow& locked, int seat) {
  if (locked.finished) return absl::FailedPreconditionError("the game has ended");
  if (locked.seats[seat].forfeited) {
    return absl::PermissionDeniedError("your seat has forfeited this game");
  }
  return absl::OkStatus();
}

absl::StatusOr<Decision> DecideMove(const DecisionContext& ctx, const GameRow& locked,
                                    std::unique_ptr<engine::State> state,
                                    const MoveRequest& request) {
  const int seat = request.seat;
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
  PARLOR_RETURN_IF_ERROR(request.action.status());
  Change c = StartChange(ctx, locked, std::move(state));
  c.answered_account = request.account_id;
  PARLOR_RETURN_IF_ERROR(ApplyLogged(c, LogRow::Kind::kAction, seat, *request.action,
                                     LogRow::Cause::kPlayer, request.account_id));
  PARLOR_RETURN_IF_ERROR(AutoPlay(c, ctx.limits));
  Decision decision = Finish(c);
  // The sweeper may look at the game early, once per reminder interval rather than once per
  // move (see Mutation::keeps_earlier_wake_after).
  decision.mutation.keeps_earlier_wake_after = ctx.now;
  return decision;
}

absl::Status CheckCanResign(const GameRow& locked, int seat) {
  if (locked.finished) return absl::FailedPreconditionError("the game has ended");
  if (locked.seats[seat].forfeited) {
    return absl::FailedPreconditionError("your seat has already forfeited this game");
  }
  return absl::OkStatus();
}

absl::StatusOr<Decision> DecideResign(const DecisionContext& ctx, const GameRow& locked,
                                      std::unique_ptr<engine::State> state, int seat,
                                      const std::string& account_id) {
  Change c = StartChange(ctx, locked, std::move(state));
  PARLOR_RETURN_IF_ERROR(
      ApplyLogged(c, LogRow::Kind::kForfeit, seat, 0, LogRow::Cause::kPlayer, account_id));
  PARLOR_RETURN_IF_ERROR(AutoPlay(c, ctx.limits));
  return Finish(c);
}

absl::StatusOr<std::optional<Decision>> DecideTimeouts(const DecisionContext& ctx,
                                                       const GameRow& locked,
                                                       std::unique_ptr<engine::State> state,
                                                       const TimeoutPolicy& policy,
                                                       std::vector<std::string>* timeouts) {
  Change c = StartChange(ctx, locked, std::move(state));
  bool touched = false;
  for (const SeatRow& s : locked.seats) {
    PARLOR_ASSIGN_OR_RETURN(const bool changed, SweepSeat(c, s, policy, timeouts));
    touched = touched || changed;
  }
  if (!touched) return std::optional<Decision>();
  PARLOR_RETURN_IF_ERROR(AutoPlay(c, ctx.limits));
  return std::optional<Decision>(Finish(c));
}

std::optional<Mutation> DecideVacation(const GameRow& locked, absl::string_view account_id,
                                       absl::Time now, std::optional<absl::Time> until) {
  if (locked.finished) return std::nullopt;
  GameRow after = locked;
  bool changed = false;
  for (SeatRow& s : after.seats) {
    if (s.account_id.empty() || s.account_id != account_id) continue;
    const SeatRow before = s;
    if (until) {
      s.vacation_until = *until;
      if (!s.forfeited) PauseClock(after.time_control, s, now);
    } else {
      s.vacation_until.reset();
      ResumeClock(s, now);
    }
    changed = changed || s.vacation_until != before.vacation_until ||
              s.paused_until != before.paused_until || s.deadline != before.deadline;
  }
  if (!changed) return std::nullopt;
  after.deadline.reset();
  for (const SeatRow& s : after.seats) {
    if (s.deadline && (!after.deadline || *s.deadline < *after.deadline))
      after.deadline = s.deadline;
  }
  // The version stays: no move was made. (updated_at too: it orders ListMyGames by moves.)
  Mutation m;
  m.after = std::move(after);
  return m;
}

}  // namespace parlor::sessions
