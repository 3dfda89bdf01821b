#ifndef PARLOR_SERVICES_SESSIONS_STORE_ROWS_H_
#define PARLOR_SERVICES_SESSIONS_STORE_ROWS_H_

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"

// The rows of the sessions schema as the domain reads and writes them: plain values, no database
// and no protos, so that the domain's decisions (domain/moves.h) can be built and tested alone.
namespace parlor::sessions {

// One seat of a stored game.
struct SeatRow {
  int seat = 0;
  std::string account_id;  // empty for a computer seat
  std::string bot;         // empty for a player
  std::string display_name;
  int team = 0;
  bool forfeited = false;
  bool my_turn = false;
  std::optional<absl::Time> turn_started_at;
  std::optional<absl::Time> deadline;
  int reminders_sent = 0;
  std::optional<int64_t> time_bank_ms;
  int64_t vacation_used_ms = 0;
  // The seat's player is on vacation until then (shown to everyone; stale once past).
  std::optional<absl::Time> vacation_until;
  // The running turn's clock is stopped until then (a vacation within the game's allowance):
  // turn_started_at and deadline were moved forward by the pause (time_control.h).
  std::optional<absl::Time> paused_until;
  // How many of the seat's turns in a row ended by a timeout; a move of its own resets it.
  int timeouts_in_a_row = 0;
};

struct TimeControlRow {
  enum class Kind { kPerMove, kTimeBank };
  Kind kind = Kind::kPerMove;
  int64_t per_move_s = 0;
  int64_t bank_initial_s = 0;
  int64_t bank_increment_s = 0;
  int vacation_days = 0;
};

// A stored game (games row plus its seats).
struct GameRow {
  std::string game_id;
  std::string game;
  std::string match_id;
  bool ranked = false;
  bool finished = false;
  int64_t version = 0;
  int num_players = 0;
  std::map<std::string, std::string> options;  // readable values
  std::string snapshot;                        // engine GameRecord bytes
  std::string seed_commitment;
  uint32_t acting_seats = 0;
  TimeControlRow time_control;
  std::optional<absl::Time> deadline;
  std::vector<int> ranks;
  std::vector<int64_t> scores;
  std::string end_reason;
  absl::Time created_at;
  absl::Time updated_at;
  // Anyone signed in may watch (spectator view); otherwise only the seated players.
  bool is_public = false;
  std::vector<SeatRow> seats;
};

// One entry of the append-only action log.
struct LogRow {
  enum class Kind { kSetup, kAction, kForfeit };
  enum class Cause { kSystem, kPlayer, kBot, kTimeout };
  int64_t version = 0;
  Kind kind = Kind::kSetup;
  Cause cause = Cause::kSystem;
  int seat = -1;
  int64_t action = 0;
  std::string account_id;  // the submitting player, if any
  std::string entry;       // engine LogEntry bytes
  absl::Time created_at;
};

struct NotificationRow {
  std::string account_id;
  std::string kind;  // your_turn, reminder, game_over, timeout
  int64_t version = 0;
  std::string dedupe_key;
  std::string payload_json;
};

struct ResultRow {
  std::string payload_json;
};

// An answer stored under an idempotency key.
struct StoredAnswer {
  std::string request_hash;  // 32 bytes
  int64_t version = 0;
  std::string response;  // serialized response message
};

struct IdempotencyKeyRef {
  std::string account_id;
  std::string key;
};

// Everything one state change writes, in one transaction.
struct Mutation {
  // The game row and every seat as they are after the change.
  GameRow after;
  std::vector<LogRow> log;
  std::vector<NotificationRow> notifications;
  std::optional<ResultRow> result;
  // Stored under the request's idempotency key (SubmitAction).
  std::optional<StoredAnswer> answer;
  // Sent on the NOTIFY channel at commit (the streams' wake-up).
  std::string notify_payload;
  // Set (to when the change was decided) by a change that may leave the game's stored wake time
  // (the sweeper's next look, NextSweepAt) in place when it is still ahead of this moment and no
  // later than the new one: a move, whose row update then changes no indexed column (HOT,
  // migration 0019). The sweeper looks early, finds nothing due, and its write (unset: exact)
  // stores the exact time. Unset, the exact time is stored.
  std::optional<absl::Time> keeps_earlier_wake_after;
};

// What CreateGame writes.
struct NewGame {
  GameRow game;
  // The setup entry (version 0), then any computer moves made at once.
  std::vector<LogRow> log;
  std::string request_hash;  // of the creating request, for match idempotency
  std::vector<NotificationRow> notifications;
  // Set when the game ended before anyone but the computer acted.
  std::optional<ResultRow> result;
  std::string notify_payload;
};

// A player's record in games against people (sessions.player_records, kept by a trigger in the
// transaction that ends each game).
struct PlayerRecordRow {
  std::string account_id;
  int64_t finished = 0;
  int64_t resigned = 0;
  int64_t timed_out = 0;
};

// Reminders fall due at these fractions of a turn's time (the sweeper's decisions and its work
// list, NextSweepAt, follow the same two numbers).
inline constexpr double kFirstReminderFraction = 0.5;
inline constexpr double kSecondReminderFraction = 0.9;

// The first moment at which the sweeper has something to do for the game: the earliest, over the
// seats whose turn runs on a clock, of the deadline and the next reminder (never before a paused
// clock restarts). nullopt when there is none: the game has ended, or no running turn has a
// clock. The games row keeps it (wake_at), so that a sweep reads the due games and no others.
inline std::optional<absl::Time> NextSweepAt(const GameRow& game) {
  if (game.finished) return std::nullopt;
  std::optional<absl::Time> next;
  for (const SeatRow& s : game.seats) {
    if (!s.my_turn || !s.deadline || !s.turn_started_at) continue;
    absl::Time at = *s.deadline;
    if (s.reminders_sent < 2) {
      const double fraction =
          s.reminders_sent == 0 ? kFirstReminderFraction : kSecondReminderFraction;
      absl::Time reminder = *s.turn_started_at + (*s.deadline - *s.turn_started_at) * fraction;
      if (s.paused_until) reminder = std::max(reminder, *s.paused_until);
      at = std::min(at, reminder);
    }
    if (!next || at < *next) next = at;
  }
  return next;
}

enum class ListFilter { kAll = 0, kMyTurn = 1, kWaiting = 2, kFinished = 3 };

struct ListCursor {
  absl::Time updated_at;
  std::string game_id;
};

}  // namespace parlor::sessions

#endif  // PARLOR_SERVICES_SESSIONS_STORE_ROWS_H_
