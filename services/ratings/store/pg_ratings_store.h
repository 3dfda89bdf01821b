#ifndef PARLOR_SERVICES_RATINGS_STORE_PG_RATINGS_STORE_H_
#define PARLOR_SERVICES_RATINGS_STORE_PG_RATINGS_STORE_H_

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "services/common/db/pool.h"
#include "services/common/deletions/account_deletions.h"
#include "services/ratings/store/ratings_store.h"

namespace parlor::ratings {

// RatingsStore on PostgreSQL (schema `ratings`, migrations/ratings). All SQL is in store/sql.h.
// As an AccountDeletionSink it takes a deleted player off every board (ratings, history, voids
// and every snapshot).
class PgRatingsStore : public RatingsStore, public AccountDeletionSink {
 public:
  // Board-change counters per board; results spread over them by game id.
  static constexpr int kChangeShards = 16;

  explicit PgRatingsStore(DbPool* db) : db_(db) {}

  absl::Status SyncLadders(const model::LadderRegistry& ladders) override;
  absl::StatusOr<ReportOutcome> ApplyResult(const ValidatedResult& result, absl::Time now) override;
  absl::StatusOr<VoidOutcome> VoidResult(const model::LadderRegistry& ladders,
                                         const VoidRequest& request, absl::Time now) override;
  absl::StatusOr<std::vector<Season>> ListSeasons(absl::Time now) override;
  absl::StatusOr<Season> ResolveSeason(const std::string& season_id, absl::Time now) override;
  absl::Status AddSeason(const std::string& season_id, const std::string& display_name,
                         absl::Time start_time) override;
  absl::StatusOr<RatingRecord> GetRating(const model::LadderSpec& ladder, const Season& season,
                                         const std::string& account_id) override;
  absl::StatusOr<std::vector<RatingRecord>> GetRatings(const model::LadderRegistry& ladders,
                                                       const Season& season,
                                                       const std::string& account_id) override;
  absl::StatusOr<std::vector<HistoryEntry>> GetHistory(const std::string& account_id,
                                                       const std::string& ladder,
                                                       const std::string& season_id,
                                                       int64_t before_seq, int limit) override;
  absl::StatusOr<bool> BuildSnapshot(const model::LadderSpec& ladder, const std::string& season_id,
                                     absl::Time now, absl::Time as_of,
                                     absl::Duration max_age) override;
  absl::StatusOr<std::set<std::pair<std::string, std::string>>> ChangedBoards(
      absl::Time now) override;
  absl::Status DropSnapshotsSupersededBefore(absl::Time cutoff) override;
  absl::StatusOr<std::optional<BoardSnapshot>> LatestSnapshot(
      const std::string& ladder, const std::string& season_id) override;
  absl::StatusOr<BoardSnapshot> GetSnapshot(int64_t snapshot_id) override;
  absl::StatusOr<std::vector<BoardEntry>> BoardRange(const BoardSnapshot& snapshot, int64_t first,
                                                     int64_t last) override;
  absl::StatusOr<int64_t> BoardPosition(const BoardSnapshot& snapshot,
                                        const std::string& account_id) override;
  absl::StatusOr<Around> BoardAround(const BoardSnapshot& snapshot, const model::LadderSpec& ladder,
                                     const Season& season, const std::string& account_id,
                                     int before, int after) override;
  absl::StatusOr<int64_t> CountPlayers(const std::string& ladder,
                                       const std::string& season_id) override;

  absl::StatusOr<int64_t> HandledThrough() override;
  absl::Status Forget(const DeletedAccount& deleted) override;

 private:
  // A read of one or a few statements without BEGIN/COMMIT round trips (each statement sees its
  // own snapshot). libpqxx errors become UNAVAILABLE / INTERNAL as in DbPool::Transact.
  absl::Status Read(absl::string_view name,
                    const std::function<absl::Status(pqxx::nontransaction&)>& body);

  DbPool* db_;

  // The statements on a snapshot (BoardRange, BoardAround) name its table, so they are prepared
  // per connection and per snapshot: planning the around-me statement cost more than running it.
  // A connection keeps them for the kPreparedSnapshotsPerBoard snapshots of a board it read last
  // (the latest, and older ones that page tokens still walk); the statements of a snapshot
  // pushed out are dropped. Returns the statement's name ("<prefix><snapshot id>").
  static constexpr size_t kPreparedSnapshotsPerBoard = 3;
  std::string PrepareOnSnapshot(pqxx::connection_base& connection, const BoardSnapshot& snapshot,
                                const char* prefix, const std::string& definition);
  // Backend pid -> board ("ladder/season") -> snapshot ids with statements on that connection,
  // the most recently used last.
  std::mutex prepared_mu_;
  std::map<int, std::map<std::string, std::vector<int64_t>>> prepared_snapshots_;
};

}  // namespace parlor::ratings

#endif  // PARLOR_SERVICES_RATINGS_STORE_PG_RATINGS_STORE_H_
