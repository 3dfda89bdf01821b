#ifndef PARLOR_SERVICES_RATINGS_DOMAIN_RATINGS_SERVICE_H_
#define PARLOR_SERVICES_RATINGS_DOMAIN_RATINGS_SERVICE_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"
#include "services/ratings/domain/read_cache.h"
#include "services/ratings/domain/types.h"
#include "services/ratings/model/ladder.h"
#include "services/ratings/store/ratings_store.h"

namespace parlor::ratings {

// The ratings metrics:
//   parlor_ratings_updates_total{ladder}                 rated games applied
//   parlor_ratings_update_duration_seconds               ReportResult processing time
//   parlor_ratings_players{ladder}                       players rated this season
//   parlor_ratings_rejected_reports_total{reason}        refused reports
//   parlor_ratings_snapshot_build_seconds                leaderboard snapshot build time
class RatingsMetrics {
 public:
  explicit RatingsMetrics(prometheus::Registry& registry);
  void Updated(const std::string& ladder, double seconds);
  void Rejected(RejectReason reason);
  void Players(const std::string& ladder, int64_t players);
  void SnapshotBuilt(double seconds);

 private:
  prometheus::Family<prometheus::Counter>* updates_;
  prometheus::Histogram* duration_;
  prometheus::Family<prometheus::Gauge>* players_;
  prometheus::Family<prometheus::Counter>* rejected_;
  prometheus::Histogram* snapshot_build_;
};

struct BoardPage {
  std::string season_id;
  std::optional<BoardSnapshot> snapshot;  // unset when the board has no snapshot yet
  std::vector<BoardEntry> entries;
  int64_t next_position = 0;  // 0 when this is the last page
};

struct AroundMe {
  std::optional<BoardSnapshot> snapshot;
  std::vector<BoardEntry> entries;
  int64_t my_position = 0;
  RatingRecord my_rating;
};

struct HistoryPage {
  std::vector<HistoryEntry> entries;
  int64_t next_before_seq = 0;  // 0 when this is the last page
};

// The ratings domain: validates results, applies them through the store, serves ratings,
// boards and history, and keeps leaderboard snapshots fresh. No gRPC here.
class RatingsService {
 public:
  using Clock = std::function<absl::Time()>;
  struct Options {
    // A snapshot replaced by a newer one stays readable this long (page walks in progress).
    absl::Duration snapshot_retention = absl::Minutes(10);
    // How often the background refresher looks for changed boards.
    absl::Duration refresh_interval = absl::Seconds(15);
    // A board is rebuilt at least this often even when no result changed it, so that idle
    // players' grown deviations reorder it and inactive players leave it.
    absl::Duration snapshot_max_age = absl::Hours(1);
  };

  RatingsService(const model::LadderRegistry* ladders, RatingsStore* store, RatingsMetrics* metrics,
                 Clock clock, Options options);
  ~RatingsService();

  const model::LadderRegistry& ladders() const { return *ladders_; }

  absl::StatusOr<ReportOutcome> ReportResult(const GameResult& result);

  // Voids a rated result (see RatingsStore::VoidResult) after checking the request.
  absl::StatusOr<VoidOutcome> VoidResult(const VoidRequest& request);

  absl::StatusOr<RatingRecord> GetRating(const std::string& account_id, const std::string& ladder,
                                         const std::string& season_id);
  absl::StatusOr<std::vector<RatingRecord>> GetMyRatings(const std::string& account_id,
                                                         const std::string& season_id);
  // `snapshot_id` 0 = the latest snapshot of (ladder, season_id; "" = current); otherwise that
  // snapshot (a page token pins it, and so its season, even after a new season began), which
  // must belong to `ladder` (and `season_id` if given). Positions start after `after_position`.
  absl::StatusOr<BoardPage> GetLeaderboard(const std::string& ladder, const std::string& season_id,
                                           int64_t snapshot_id, int64_t after_position,
                                           int page_size);
  absl::StatusOr<AroundMe> GetLeaderboardAroundMe(const std::string& ladder, const Season& season,
                                                  const std::string& account_id, int before,
                                                  int after);
  absl::StatusOr<HistoryPage> GetRatingHistory(const std::string& account_id,
                                               const std::string& ladder,
                                               const std::string& season_id, int64_t before_seq,
                                               int page_size);
  absl::StatusOr<std::vector<Season>> ListSeasons();
  // Season `season_id` ("" = current); NOT_FOUND if unknown.
  absl::StatusOr<Season> ResolveSeason(const std::string& season_id);
  absl::Status AddSeason(const std::string& season_id, const std::string& display_name,
                         absl::Time start_time);

  // Builds a snapshot of every board that changed (every ladder, every season), drops expired
  // snapshots and refreshes the player gauges. Returns how many snapshots were built.
  absl::StatusOr<int> RefreshBoards();
  // Runs RefreshBoards every options.refresh_interval on a background thread until destroyed.
  void StartRefresher();
  void StopRefresher();
  // Passes the refresher has finished, successful or not (for tests).
  int refresher_passes() const { return refresher_passes_.load(); }

 private:
  absl::Time Now() const { return clock_(); }
  // A stored rating as it stands at `now`: the deviation grown for the time since the player's
  // last rated game on the ladder (what their next game would start from), the conservative
  // rating and provisional state recomputed from it, and `inactive` set. Every read shows this.
  RatingRecord AsOf(const model::LadderSpec& ladder, RatingRecord record, absl::Time now) const;
  // The time a season's ratings are shown as of: now, or the season's end once it is over (a
  // finished season's board is its final standing).
  absl::Time ShownAt(const Season& season) const;
  // Makes the database list every ladder (once per process; the schema may not exist yet when the
  // service is constructed, before migrations ran).
  absl::Status EnsureLadders();

  const model::LadderRegistry* ladders_;
  RatingsStore* store_;
  RatingsMetrics* metrics_;
  Clock clock_;
  Options options_;

  std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::thread refresher_;
  std::atomic<int> refresher_passes_{0};
  std::atomic<bool> ladders_synced_{false};

  // Read caches (a leaderboard read is then one transaction). Seasons change only when one is
  // scheduled, snapshots every refresh; both are re-read after kCacheTtl of wall time, and
  // dropped at once when this process changes them. Concurrent misses of one key wait for one
  // load (SingleFlight): an expiry under load costs one database read, not one per caller.
  static constexpr absl::Duration kCacheTtl = absl::Seconds(1);
  absl::StatusOr<std::optional<BoardSnapshot>> CachedLatestSnapshot(const std::string& ladder,
                                                                    const std::string& season_id);
  // A snapshot by id (page tokens), re-read after kCacheTtl so a dropped one is noticed.
  absl::StatusOr<BoardSnapshot> CachedSnapshot(int64_t snapshot_id);
  // Positions first..last of a snapshot. A snapshot's board never changes, so its pages are kept
  // (the most recent kMaxCachedPages of them) without expiry: the top pages, which most players
  // read, then cost no database round trip.
  absl::StatusOr<std::vector<BoardEntry>> CachedBoardRange(const BoardSnapshot& snapshot,
                                                           int64_t first, int64_t last);
  void InvalidateCaches();
  std::mutex cache_mu_;
  // Bumped by InvalidateCaches: a load that began before is neither stored nor joined after.
  uint64_t cache_generation_ = 0;
  std::vector<Season> seasons_cache_;
  absl::Time seasons_cached_at_ = absl::InfinitePast();
  std::map<std::pair<std::string, std::string>, std::pair<absl::Time, std::optional<BoardSnapshot>>>
      snapshot_cache_;
  std::map<int64_t, std::pair<absl::Time, BoardSnapshot>> snapshot_by_id_cache_;
  static constexpr size_t kMaxCachedPages = 256;
  using PageKey = std::tuple<int64_t, int64_t, int64_t>;  // snapshot id, first, last position
  std::map<PageKey, std::shared_ptr<const std::vector<BoardEntry>>> page_cache_;
  std::deque<PageKey> page_cache_order_;  // oldest first, for eviction

  // GetLeaderboardAroundMe's part from the snapshot (the caller's position on it and the entries
  // around it), kept per (snapshot, account, before, after). A snapshot never changes, so after
  // a player's first read of a snapshot only their live row is read from the database (one
  // prepared primary-key lookup) instead of planning a three-table statement on every call.
  struct AroundWindow {
    int64_t position = 0;  // 0: not on the snapshot
    std::vector<BoardEntry> entries;
  };
  using AroundKey = std::tuple<int64_t, std::string, int, int>;  // snapshot, account, before, after
  // What one load of a window brings: the window and, read in the same statement, the caller's
  // live row (unset when they have none this season).
  struct AroundLoad {
    std::shared_ptr<const AroundWindow> window;
    std::optional<RatingRecord> mine;
  };
  // Bound of the around-me cache in board entries (each window costs its entries + 1), about
  // 25 MB: some 9,000 players' windows of 5 + 5.
  static constexpr size_t kMaxCachedAroundEntries = 100000;
  LruCache<AroundKey, std::shared_ptr<const AroundWindow>> around_cache_{kMaxCachedAroundEntries};

  using SeasonsKey = uint64_t;                                       // cache generation
  using LatestKey = std::tuple<uint64_t, std::string, std::string>;  // generation, ladder, season
  using SnapshotKey = std::pair<uint64_t, int64_t>;                  // generation, snapshot id
  SingleFlight<SeasonsKey, std::vector<Season>> seasons_flight_;
  SingleFlight<LatestKey, std::optional<BoardSnapshot>> latest_flight_;
  SingleFlight<SnapshotKey, BoardSnapshot> snapshot_flight_;
  SingleFlight<PageKey, std::shared_ptr<const std::vector<BoardEntry>>> page_flight_;
  SingleFlight<AroundKey, AroundLoad> around_flight_;
};

}  // namespace parlor::ratings

#endif  // PARLOR_SERVICES_RATINGS_DOMAIN_RATINGS_SERVICE_H_
