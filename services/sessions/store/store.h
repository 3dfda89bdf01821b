#ifndef PARLOR_SERVICES_SESSIONS_STORE_STORE_H_
#define PARLOR_SERVICES_SESSIONS_STORE_STORE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "services/common/db/pool.h"
#include "services/sessions/store/versioned_cache.h"

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

enum class ListFilter { kAll = 0, kMyTurn = 1, kWaiting = 2, kFinished = 3 };

struct ListCursor {
  absl::Time updated_at;
  std::string game_id;
};

// The sessions schema, behind named transactions. Every method blocks (worker pool only) and
// returns absl::Status; no libpqxx exception escapes.
class GameStore {
 public:
  // `snapshot_cache_entries`: how many games' newest snapshots to keep in memory (0: none).
  explicit GameStore(DbPool* db, size_t snapshot_cache_entries = kDefaultSnapshotCacheEntries)
      : db_(db), snapshots_(snapshot_cache_entries) {}

  static constexpr size_t kDefaultSnapshotCacheEntries = 5000;

  // Inserts the game, its seats and its setup log entry. When `match_key` (a match id) is already
  // taken, nothing is written and the existing game is returned with *created = false; a
  // different request under the same key is ALREADY_EXISTS.
  absl::StatusOr<GameRow> CreateGame(const NewGame& game, absl::string_view match_key,
                                     bool* created);

  // NOT_FOUND when there is no such game.
  absl::StatusOr<GameRow> GetGame(absl::string_view game_id);

  // The caller's games, newest activity first; `cursor` continues after a previous page.
  absl::StatusOr<std::vector<GameRow>> ListGames(absl::string_view account_id, ListFilter filter,
                                                 const std::optional<ListCursor>& cursor,
                                                 int limit);

  // Public games of one status ('finished' when `finished`), optionally of one game (empty =
  // any), newest activity first; `cursor` continues after a previous page.
  absl::StatusOr<std::vector<GameRow>> ListPublicGames(absl::string_view game, bool finished,
                                                       const std::optional<ListCursor>& cursor,
                                                       int limit);

  // Deletes up to `limit` idempotency keys created before `cutoff`; returns how many it deleted.
  absl::StatusOr<int> DeleteIdempotencyKeysBefore(absl::Time cutoff, int limit);

  // Log entries with version >= from_version, in order, at most `limit`.
  absl::StatusOr<std::vector<LogRow>> GetLog(absl::string_view game_id, int64_t from_version,
                                             int limit);

  // The decision inside a state-change transaction: given the locked game (and the answer
  // already stored under the request's idempotency key, if any), either a Mutation to write, or
  // nullopt to write nothing, or an error that rolls back. It may run more than once (the
  // transaction is retried on serialization failures), so it must have no other effects.
  using Decide = std::function<absl::StatusOr<std::optional<Mutation>>(
      const GameRow& locked, const std::optional<StoredAnswer>& stored)>;

  // One transaction: lock the game row FOR UPDATE, read its seats and the idempotency key,
  // decide, then write the game row, seats, log entries, idempotency answer, outbox rows and the
  // NOTIFY, and commit. NOT_FOUND when the game does not exist.
  absl::Status UpdateGame(absl::string_view txn_name, absl::string_view game_id,
                          const std::optional<IdempotencyKeyRef>& key, const Decide& decide);

  // One state change of UpdateGames.
  struct GameUpdate {
    std::string game_id;
    std::optional<IdempotencyKeyRef> key;
    Decide decide;
  };
  // Group commit: the state changes of several distinct games in one transaction (one locked
  // read of every game, in game id order, then one write of every change, and one commit), so
  // that the database's per-statement and per-commit work is shared by the batch. Each update is
  // decided on its own: an error or a no-op of one writes nothing for it and does not stop the
  // others. Returns one status per update, in order; when the transaction itself fails (the
  // database is unreachable, the commit's outcome is unknown), every update gets that failure.
  // `decided`, when set, is called once every update has been decided, before the write (a
  // group committer lets the next batch start deciding while this one writes).
  std::vector<absl::Status> UpdateGames(absl::string_view txn_name,
                                        const std::vector<GameUpdate>& updates,
                                        const std::function<void()>& decided = nullptr);

  // Ids of active games with a deadline or reminder due at `now`, locked FOR UPDATE SKIP LOCKED
  // only for the duration of the listing (each is then handled with UpdateGame).
  absl::StatusOr<std::vector<std::string>> DueGames(absl::Time now, int limit);

  // Whether a game was created under `match_key` (a match id, or a CreateBotGame request key).
  absl::StatusOr<bool> MatchExists(absl::string_view match_key);

  // What an account's games hold, for its quotas: games in progress (any kind); games against
  // the computer (no match id) created after `hour_ago`, and the oldest of them; log entries of
  // the games it sits in created after `day_ago`, and the oldest of those games.
  struct AccountUsage {
    int64_t active_games = 0;
    int64_t bot_games_last_hour = 0;
    std::optional<absl::Time> oldest_bot_game_in_hour;
    int64_t actions_last_day = 0;
    std::optional<absl::Time> oldest_game_in_day;
  };
  absl::StatusOr<AccountUsage> GetAccountUsage(absl::string_view account_id, absl::Time hour_ago,
                                               absl::Time day_ago);

  // The account's running or planned vacation.
  struct Vacation {
    absl::Time started_at;
    absl::Time ends_at;
  };
  absl::StatusOr<std::optional<Vacation>> GetVacation(absl::string_view account_id);
  // FAILED_PRECONDITION when a vacation is already running at `start`.
  absl::Status StartVacation(absl::string_view account_id, absl::Time start, absl::Time end);
  // FAILED_PRECONDITION when none is running at `now`.
  absl::Status EndVacation(absl::string_view account_id, absl::Time now);

  // A notification claimed for delivery.
  struct PendingNotification {
    int64_t id = 0;
    std::string game_id;
    NotificationRow row;
    int attempts = 0;
  };
  // Claims up to `limit` due notifications for `lease` (other replicas skip them meanwhile).
  absl::StatusOr<std::vector<PendingNotification>> ClaimNotifications(absl::Time now,
                                                                      absl::Duration lease,
                                                                      int limit);
  absl::Status MarkNotificationSent(int64_t id, absl::Time now);
  absl::Status MarkNotificationFailed(int64_t id, absl::Time retry_at, absl::string_view error);

  // Claims up to `limit` due results: {game_id, attempts}.
  absl::StatusOr<std::vector<std::pair<std::string, int>>> ClaimResults(absl::Time now,
                                                                        absl::Duration lease,
                                                                        int limit);
  // `note` records why a row was acknowledged without sending (e.g. a casual game with bots).
  absl::Status MarkResultAcked(absl::string_view game_id, absl::Time now, absl::string_view note);
  absl::Status MarkResultFailed(absl::string_view game_id, absl::Time retry_at,
                                absl::string_view error);

  // Outbox rows not yet delivered: {notifications, results}.
  absl::StatusOr<std::pair<int64_t, int64_t>> PendingOutbox();
  // Games per (game, status).
  absl::StatusOr<std::map<std::pair<std::string, std::string>, int64_t>> CountGames();

  DbPool& db() { return *db_; }

 private:
  DbPool* db_;
  SnapshotCache snapshots_;
};

}  // namespace parlor::sessions

#endif  // PARLOR_SERVICES_SESSIONS_STORE_STORE_H_
