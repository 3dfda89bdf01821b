#ifndef PARLOR_SERVICES_SESSIONS_STORE_STORE_H_
#define PARLOR_SERVICES_SESSIONS_STORE_STORE_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "services/common/db/pool.h"
#include "services/sessions/store/game_row_cache.h"
#include "services/sessions/store/rows.h"
#include "services/sessions/store/sessions_store.h"
#include "services/sessions/store/versioned_cache.h"

namespace parlor::sessions {

// The sessions schema in PostgreSQL, behind named transactions (SessionsStore), plus what only
// the server's background work needs: group commit, the outboxes, gauges. Every method blocks
// (worker pool only) and returns absl::Status; no libpqxx exception escapes.
class PgSessionsStore : public SessionsStore {
 public:
  // `snapshot_cache_entries`: how many games' newest snapshots, and rows as this server last
  // wrote them, to keep in memory (0: none).
  explicit PgSessionsStore(DbPool* db, size_t snapshot_cache_entries = kDefaultSnapshotCacheEntries)
      : db_(db), snapshots_(snapshot_cache_entries), rows_(snapshot_cache_entries) {}

  static constexpr size_t kDefaultSnapshotCacheEntries = 5000;

  absl::StatusOr<GameRow> CreateGame(const NewGame& game, absl::string_view match_key,
                                     bool* created) override;
  absl::StatusOr<GameRow> GetGame(absl::string_view game_id) override;
  absl::StatusOr<std::vector<GameRow>> GetGames(const std::vector<std::string>& game_ids) override;
  absl::StatusOr<GameRow> GetGameSeenBy(absl::string_view game_id, absl::string_view account_id,
                                        int64_t* seen) override;
  absl::StatusOr<std::vector<GameRow>> ListGames(absl::string_view account_id, ListFilter filter,
                                                 const std::optional<ListCursor>& cursor,
                                                 int limit) override;
  absl::StatusOr<std::vector<GameRow>> ListPublicGames(absl::string_view game, bool finished,
                                                       const std::optional<ListCursor>& cursor,
                                                       int limit) override;
  absl::StatusOr<int> DeleteIdempotencyKeysBefore(absl::Time cutoff, int limit) override;
  absl::StatusOr<std::vector<LogRow>> GetLog(absl::string_view game_id, int64_t from_version,
                                             int limit) override;

  // One transaction: lock the game row FOR UPDATE, read its seats and the idempotency key,
  // decide, then write the game row, seats, log entries, idempotency answer, outbox rows and the
  // NOTIFY, and commit. NOT_FOUND when the game does not exist. A game whose row this server
  // wrote last is decided on the row held and written without the locked read; the write checks
  // the row's stamp and the key, and on a change the decision is made again on the locked row.
  absl::Status UpdateGame(absl::string_view txn_name, absl::string_view game_id,
                          const std::optional<IdempotencyKeyRef>& key,
                          const Decide& decide) override;

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

  // Locked FOR UPDATE SKIP LOCKED only for the duration of the listing.
  absl::StatusOr<std::vector<std::string>> DueGames(absl::Time now, int limit) override;
  absl::StatusOr<bool> MatchExists(absl::string_view match_key) override;
  absl::StatusOr<AccountUsage> GetAccountUsage(absl::string_view account_id, absl::Time hour_ago,
                                               absl::Time day_ago) override;
  absl::StatusOr<VacationsByAccount> GetVacations(
      const std::vector<std::string>& account_ids) override;
  absl::Status ChangeVacation(absl::string_view account_id, const VacationChange& change) override;
  absl::StatusOr<std::vector<PlayerRecordRow>> GetPlayerRecords(
      const std::vector<std::string>& account_ids) override;

  // A notification taken for delivery (OutboxStore::DeliverNotifications).
  struct PendingNotification {
    int64_t id = 0;
    std::string game_id;
    NotificationRow row;
    // Which attempt this delivery is (1 for the first).
    int attempts = 0;
    // When the state change that wrote the row happened (its transaction's clock).
    absl::Time created_at;
  };

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
  // Games in progress per game. (Not finished ones: those only accumulate, and counting them
  // read the whole table.)
  absl::StatusOr<std::map<std::string, int64_t>> CountGamesInProgress();

  DbPool& db() { return *db_; }

  // The OIDs of the composite types whose arrays kWriteMutations takes in binary form (a binary
  // array names its element type). Catalog OIDs of one database, looked up once.
  struct WriteTypes {
    uint32_t game = 0;
    uint32_t seat = 0;
    uint32_t action = 0;
    uint32_t key = 0;
    uint32_t notification = 0;
    uint32_t result = 0;
  };

  // How reads of game rows went (GameRowCache). GetGame's: the stamp matched this server's own
  // write, the stamp did not match (the whole row was read after it), or the whole row was read
  // at once. A batch's locked read, per game: the row held was the stored one, or the database
  // sent the row.
  struct GameReads {
    int64_t stamp_matched = 0;
    int64_t stamp_missed = 0;
    int64_t whole = 0;
    int64_t locked_held = 0;
    int64_t locked_whole = 0;
    // Games written without a locked read (decided on the rows held), and batches whose write
    // found a game or key changed and were decided again on the locked rows.
    int64_t unlocked_written = 0;
    int64_t unlocked_retried = 0;
  };
  GameReads game_reads() const {
    return GameReads{reads_.stamp_matched.load(),   reads_.stamp_missed.load(),
                     reads_.whole.load(),           reads_.locked_held.load(),
                     reads_.locked_whole.load(),    reads_.unlocked_written.load(),
                     reads_.unlocked_retried.load()};
  }

 private:
  // GetGame's one statement; with `seen_by`, also that account's seen version into `seen`.
  absl::StatusOr<GameRow> ReadGameWithSeats(absl::string_view game_id,
                                            std::optional<absl::string_view> seen_by,
                                            int64_t* seen);
  // UpdateGames, with `first` run at the start of its transaction (its error rolls back the
  // whole transaction, returned as the transaction's status). `results` gets one status per
  // update.
  absl::Status RunUpdates(absl::string_view txn_name,
                          const std::function<absl::Status(pqxx::work&)>& first,
                          const std::vector<GameUpdate>& updates,
                          const std::function<void()>& decided, std::vector<absl::Status>* results);
  // Keeps each committed update's row (`written`, moved from) under the transaction `txid`.
  void CacheWritten(const std::vector<GameUpdate>& updates,
                    const std::vector<absl::Status>& results,
                    std::vector<std::optional<GameRow>>& written, uint64_t txid);

  // WriteTypes, read from the catalog on the first write and again after a write that failed
  // with INTERNAL (ForgetWriteTypesAfter).
  absl::StatusOr<WriteTypes> write_types();
  void ForgetWriteTypesAfter(const absl::Status& status);

  DbPool* db_;
  absl::Mutex write_types_mu_;
  std::optional<WriteTypes> write_types_ ABSL_GUARDED_BY(write_types_mu_);
  SnapshotCache snapshots_;
  GameRowCache rows_;
  struct {
    std::atomic<int64_t> stamp_matched{0};
    std::atomic<int64_t> stamp_missed{0};
    std::atomic<int64_t> whole{0};
    std::atomic<int64_t> locked_held{0};
    std::atomic<int64_t> locked_whole{0};
    std::atomic<int64_t> unlocked_written{0};
    std::atomic<int64_t> unlocked_retried{0};
  } reads_;
};

// The name the rest of the service knew the PostgreSQL store by.
using GameStore = PgSessionsStore;

}  // namespace parlor::sessions

#endif  // PARLOR_SERVICES_SESSIONS_STORE_STORE_H_
