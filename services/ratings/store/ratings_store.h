#ifndef PARLOR_SERVICES_RATINGS_STORE_RATINGS_STORE_H_
#define PARLOR_SERVICES_RATINGS_STORE_RATINGS_STORE_H_

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "services/ratings/domain/types.h"
#include "services/ratings/model/ladder.h"

namespace parlor::ratings {

// Persistence of the ratings service. Every method is one transaction; all block (run them on a
// worker pool). Errors: NOT_FOUND for an unknown season, FAILED_PRECONDITION as documented,
// UNAVAILABLE / INTERNAL from the database.
class RatingsStore {
 public:
  virtual ~RatingsStore() = default;

  // Makes ratings.ladders list every ladder of the registry.
  virtual absl::Status SyncLadders(const model::LadderRegistry& ladders) = 0;

  // Applies one validated result in one transaction: records the game id (a replay with the same
  // digest returns the first outcome with `replayed`; another digest is FAILED_PRECONDITION),
  // then, for a ranked game, locks every player's row of the current season in account-id order
  // (creating missing rows first, in the same order, from the player's latest earlier season
  // soft-reset, or the ladder's starting rating), rates the game with the ladder's model, and
  // writes the new ratings and one history row per player.
  virtual absl::StatusOr<ReportOutcome> ApplyResult(const ValidatedResult& result,
                                                    absl::Time now) = 0;

  // Voids a rated result in one transaction: removes the game's history rows (kept in the
  // audit), recomputes every player it touched by replaying, in the order they were applied,
  // every later result on the ladder that involves a recomputed player (which recomputes that
  // result's other players too), rewrites those history rows and rating rows, and records the
  // void with each changed row before and after. Voiding a voided result changes nothing and
  // returns the first void's record with `replayed`. NOT_FOUND for a game id never reported;
  // FAILED_PRECONDITION for a casual game (it changed no rating).
  virtual absl::StatusOr<VoidOutcome> VoidResult(const model::LadderRegistry& ladders,
                                                 const VoidRequest& request, absl::Time now) = 0;

  // Seasons, oldest first, the one current at `now` marked.
  virtual absl::StatusOr<std::vector<Season>> ListSeasons(absl::Time now) = 0;
  // The season with `season_id`, or the current one for an empty id. NOT_FOUND if unknown.
  virtual absl::StatusOr<Season> ResolveSeason(const std::string& season_id, absl::Time now) = 0;
  // Schedules a new season from `start_time`, which must be later than every existing season's
  // start (FAILED_PRECONDITION otherwise; ALREADY_EXISTS for a used id).
  virtual absl::Status AddSeason(const std::string& season_id, const std::string& display_name,
                                 absl::Time start_time) = 0;

  // The player's rating on `ladder` in `season`: the stored row, or (season_games 0) the latest
  // earlier season's soft-reset, or the starting rating.
  virtual absl::StatusOr<RatingRecord> GetRating(const model::LadderSpec& ladder,
                                                 const Season& season,
                                                 const std::string& account_id) = 0;
  // The same for every ladder the player has a rating on up to `season`.
  virtual absl::StatusOr<std::vector<RatingRecord>> GetRatings(const model::LadderRegistry& ladders,
                                                               const Season& season,
                                                               const std::string& account_id) = 0;

  // History, newest first, entries with seq < before_seq (0 = from the newest). Empty
  // season_id = every season.
  virtual absl::StatusOr<std::vector<HistoryEntry>> GetHistory(const std::string& account_id,
                                                               const std::string& ladder,
                                                               const std::string& season_id,
                                                               int64_t before_seq, int limit) = 0;

  // Leaderboards.
  // Builds a new snapshot of (ladder, season) if the board changed since the latest one, or that
  // one was taken more than `max_age` before `now`, or there is none; marks the previous one
  // superseded. Returns whether one was built. Safe on every replica at once (an advisory lock
  // lets one build; the others skip).
  //
  // The board holds, as of `as_of` (`now` for the current season; a finished season's end, so
  // that its final board, rebuilt after a void or an erased account, is the board as the season
  // ended, whenever that was): the season's players, and those who played the ladder in an
  // earlier season but not yet in this one (their latest earlier rating, soft-reset as
  // model::LadderSpec::ApplySeasonReset does), each with their deviation grown for the time since
  // their last rated game on the ladder; then those neither provisional by that deviation nor
  // inactive (no rated game within the ladder's inactive_days), best conservative rating first.
  // The stored columns are the ratings as of the last game (after the reset for the carried
  // ones), so that a read can grow them to its own time; `conservative` is the one the board is
  // ordered by, as of `as_of`.
  virtual absl::StatusOr<bool> BuildSnapshot(const model::LadderSpec& ladder,
                                             const std::string& season_id, absl::Time now,
                                             absl::Time as_of, absl::Duration max_age) = 0;
  // The (ladder, season) boards of seasons started by `now` that changed since their latest
  // snapshot or have none (one statement: a refresh builds only these, and the current season's
  // boards by age, instead of visiting every board of every season).
  virtual absl::StatusOr<std::set<std::pair<std::string, std::string>>> ChangedBoards(
      absl::Time now) = 0;
  // Drops snapshots superseded before `cutoff`.
  virtual absl::Status DropSnapshotsSupersededBefore(absl::Time cutoff) = 0;
  // The latest snapshot of a board, if any.
  virtual absl::StatusOr<std::optional<BoardSnapshot>> LatestSnapshot(
      const std::string& ladder, const std::string& season_id) = 0;
  // FAILED_PRECONDITION when the snapshot no longer exists.
  virtual absl::StatusOr<BoardSnapshot> GetSnapshot(int64_t snapshot_id) = 0;
  // Entries with position in [first, last], in order. FAILED_PRECONDITION if dropped.
  virtual absl::StatusOr<std::vector<BoardEntry>> BoardRange(const BoardSnapshot& snapshot,
                                                             int64_t first, int64_t last) = 0;
  // The player's position on the snapshot, or 0.
  virtual absl::StatusOr<int64_t> BoardPosition(const BoardSnapshot& snapshot,
                                                const std::string& account_id) = 0;
  // In one round trip: the player's current row on (ladder, season) if they have one, their
  // position on the snapshot (0 if not on the board) and the entries from position − before to
  // position + after. FAILED_PRECONDITION if the snapshot was dropped.
  struct Around {
    std::optional<RatingRecord> mine;
    int64_t position = 0;
    std::vector<BoardEntry> entries;
  };
  virtual absl::StatusOr<Around> BoardAround(const BoardSnapshot& snapshot,
                                             const model::LadderSpec& ladder, const Season& season,
                                             const std::string& account_id, int before,
                                             int after) = 0;
  // Players with a rating on (ladder, season), provisional ones included.
  virtual absl::StatusOr<int64_t> CountPlayers(const std::string& ladder,
                                               const std::string& season_id) = 0;
};

}  // namespace parlor::ratings

#endif  // PARLOR_SERVICES_RATINGS_STORE_RATINGS_STORE_H_
