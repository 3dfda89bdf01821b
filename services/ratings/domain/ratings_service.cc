#include "services/ratings/domain/ratings_service.h"

#include <algorithm>
#include <set>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "services/common/core/logging.h"
#include "services/common/core/thread_name.h"
#include "services/ratings/domain/validation.h"

namespace parlor::ratings {
namespace {

const std::vector<double>& DurationBuckets() {
  static const std::vector<double> b = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                        0.05,   0.1,   0.25,   0.5,   1,    2.5};
  return b;
}

// What RatingsService::ShownAt says, at `now`.
absl::Time SeasonTimeAt(const Season& season, absl::Time now) {
  return season.end_time && *season.end_time < now ? *season.end_time : now;
}

}  // namespace

RatingsMetrics::RatingsMetrics(prometheus::Registry& registry) {
  updates_ = &prometheus::BuildCounter()
                  .Name("parlor_ratings_updates_total")
                  .Help("Rated games applied to a ladder")
                  .Register(registry);
  duration_ = &prometheus::BuildHistogram()
                   .Name("parlor_ratings_update_duration_seconds")
                   .Help("Time to process one ReportResult, database transaction included")
                   .Register(registry)
                   .Add({}, DurationBuckets());
  players_ = &prometheus::BuildGauge()
                  .Name("parlor_ratings_players")
                  .Help("Players with a rating on the ladder in the current season")
                  .Register(registry);
  rejected_ = &prometheus::BuildCounter()
                   .Name("parlor_ratings_rejected_reports_total")
                   .Help("ReportResult calls refused, by reason")
                   .Register(registry);
  // Every reason from the start (zero), so that the panel and rules have data before a refusal.
  for (RejectReason reason :
       {RejectReason::kBadField, RejectReason::kUnknownGame, RejectReason::kBadSeats,
        RejectReason::kBadPlacements, RejectReason::kConflict}) {
    rejected_->Add({{"reason", RejectReasonName(reason)}});
  }
  snapshot_build_ = &prometheus::BuildHistogram()
                         .Name("parlor_ratings_snapshot_build_seconds")
                         .Help("Time to build one leaderboard snapshot")
                         .Register(registry)
                         .Add({}, std::vector<double>{0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30});
}

void RatingsMetrics::Updated(const std::string& ladder, double seconds) {
  updates_->Add({{"ladder", ladder}}).Increment();
  duration_->Observe(seconds);
}

void RatingsMetrics::Rejected(RejectReason reason) {
  rejected_->Add({{"reason", RejectReasonName(reason)}}).Increment();
}

void RatingsMetrics::Players(const std::string& ladder, int64_t players) {
  players_->Add({{"ladder", ladder}}).Set(static_cast<double>(players));
}

void RatingsMetrics::SnapshotBuilt(double seconds) { snapshot_build_->Observe(seconds); }

RatingsService::RatingsService(const model::LadderRegistry* ladders, RatingsStore* store,
                               RatingsMetrics* metrics, Clock clock, Options options)
    : ladders_(ladders),
      store_(store),
      metrics_(metrics),
      clock_(std::move(clock)),
      options_(options) {}

RatingsService::~RatingsService() { StopRefresher(); }

absl::Status RatingsService::EnsureLadders() {
  if (ladders_synced_.load()) return absl::OkStatus();
  absl::Status s = store_->SyncLadders(*ladders_);
  if (s.ok()) ladders_synced_.store(true);
  return s;
}

absl::StatusOr<ReportOutcome> RatingsService::ReportResult(const GameResult& result) {
  const absl::Time start = absl::Now();
  if (absl::Status s = EnsureLadders(); !s.ok()) return s;
  RejectReason reason = RejectReason::kNone;
  absl::StatusOr<ValidatedResult> valid = ValidateResult(result, *ladders_, Now(), &reason);
  if (!valid.ok()) {
    if (metrics_ != nullptr) metrics_->Rejected(reason);
    return valid.status();
  }
  absl::StatusOr<ReportOutcome> outcome = store_->ApplyResult(*valid, Now());
  if (!outcome.ok()) {
    if (metrics_ != nullptr && outcome.status().code() == absl::StatusCode::kFailedPrecondition) {
      metrics_->Rejected(RejectReason::kConflict);
    }
    return outcome.status();
  }
  if (metrics_ != nullptr && outcome->applied && !outcome->replayed) {
    metrics_->Updated(outcome->ladder, absl::ToDoubleSeconds(absl::Now() - start));
  }
  return outcome;
}

absl::StatusOr<VoidOutcome> RatingsService::VoidResult(const VoidRequest& request) {
  if (absl::Status s = ValidateVoid(request); !s.ok()) return s;
  if (absl::Status s = EnsureLadders(); !s.ok()) return s;
  absl::StatusOr<VoidOutcome> outcome = store_->VoidResult(*ladders_, request, Now());
  if (outcome.ok() && outcome->voided) {
    spdlog::info("voided result {} on {} by {} ({} later results replayed): {}", request.game_id,
                 outcome->ladder, request.operator_id, outcome->replayed_games, request.reason);
  }
  return outcome;
}

absl::StatusOr<Season> RatingsService::ResolveSeason(const std::string& season_id) {
  if (!season_id.empty() && !ValidSeasonId(season_id)) {
    return absl::InvalidArgumentError("season_id must be 1-32 characters of a-z, 0-9 and '-'");
  }
  absl::StatusOr<std::vector<Season>> seasons = ListSeasons();
  if (!seasons.ok()) return seasons.status();
  for (const Season& s : *seasons) {
    if (season_id.empty() ? s.current : s.season_id == season_id) return s;
  }
  if (season_id.empty()) return absl::FailedPreconditionError("no season has started yet");
  return absl::NotFoundError(absl::StrCat("no season \"", season_id, "\""));
}

void RatingsService::InvalidateCaches() {
  std::lock_guard<std::mutex> lock(cache_mu_);
  ++cache_generation_;
  seasons_cached_at_ = absl::InfinitePast();
  snapshot_cache_.clear();
  snapshot_by_id_cache_.clear();
}

absl::StatusOr<BoardSnapshot> RatingsService::CachedSnapshot(int64_t snapshot_id) {
  uint64_t generation = 0;
  {
    std::lock_guard<std::mutex> lock(cache_mu_);
    auto it = snapshot_by_id_cache_.find(snapshot_id);
    if (it != snapshot_by_id_cache_.end() && absl::Now() - it->second.first < kCacheTtl) {
      return it->second.second;
    }
    generation = cache_generation_;
  }
  return snapshot_flight_.Do({generation, snapshot_id}, [&]() -> absl::StatusOr<BoardSnapshot> {
    absl::StatusOr<BoardSnapshot> snapshot = store_->GetSnapshot(snapshot_id);
    if (!snapshot.ok()) return snapshot.status();
    std::lock_guard<std::mutex> lock(cache_mu_);
    if (generation == cache_generation_) {
      if (snapshot_by_id_cache_.size() >= kMaxCachedPages) snapshot_by_id_cache_.clear();
      snapshot_by_id_cache_[snapshot_id] = {absl::Now(), *snapshot};
    }
    return snapshot;
  });
}

absl::StatusOr<std::vector<BoardEntry>> RatingsService::CachedBoardRange(
    const BoardSnapshot& snapshot, int64_t first, int64_t last) {
  using Page = std::shared_ptr<const std::vector<BoardEntry>>;
  const PageKey key{snapshot.snapshot_id, first, last};
  {
    std::lock_guard<std::mutex> lock(cache_mu_);
    auto it = page_cache_.find(key);
    if (it != page_cache_.end()) return *it->second;
  }
  absl::StatusOr<Page> page = page_flight_.Do(key, [&]() -> absl::StatusOr<Page> {
    absl::StatusOr<std::vector<BoardEntry>> entries = store_->BoardRange(snapshot, first, last);
    if (!entries.ok()) return entries.status();
    auto loaded = std::make_shared<const std::vector<BoardEntry>>(*std::move(entries));
    std::lock_guard<std::mutex> lock(cache_mu_);
    if (page_cache_.emplace(key, loaded).second) {
      page_cache_order_.push_back(key);
      while (page_cache_order_.size() > kMaxCachedPages) {
        page_cache_.erase(page_cache_order_.front());
        page_cache_order_.pop_front();
      }
    }
    return loaded;
  });
  if (!page.ok()) return page.status();
  return **page;
}

absl::StatusOr<std::optional<BoardSnapshot>> RatingsService::CachedLatestSnapshot(
    const std::string& ladder, const std::string& season_id) {
  const auto key = std::make_pair(ladder, season_id);
  uint64_t generation = 0;
  {
    std::lock_guard<std::mutex> lock(cache_mu_);
    auto it = snapshot_cache_.find(key);
    if (it != snapshot_cache_.end() && absl::Now() - it->second.first < kCacheTtl) {
      return it->second.second;
    }
    generation = cache_generation_;
  }
  return latest_flight_.Do({generation, ladder, season_id},
                           [&]() -> absl::StatusOr<std::optional<BoardSnapshot>> {
                             absl::StatusOr<std::optional<BoardSnapshot>> latest =
                                 store_->LatestSnapshot(ladder, season_id);
                             if (!latest.ok()) return latest.status();
                             std::lock_guard<std::mutex> lock(cache_mu_);
                             if (generation == cache_generation_)
                               snapshot_cache_[key] = {absl::Now(), *latest};
                             return latest;
                           });
}

absl::Time RatingsService::ShownAt(const Season& season) const {
  return SeasonTimeAt(season, Now());
}

RatingRecord RatingsService::AsOf(const model::LadderSpec& ladder, RatingRecord record,
                                  absl::Time now) const {
  if (!record.last_game_time) {
    record.inactive = true;  // never played the ladder: nothing has grown
    return record;
  }
  const double idle_days = absl::ToDoubleHours(now - *record.last_game_time) / 24.0;
  if (idle_days > 0) record.rating = ladder.Idle(record.rating, idle_days);
  record.conservative = ladder.Conservative(record.rating);
  record.provisional = ladder.Provisional(record.rating);
  record.inactive = idle_days > ladder.inactive_days;
  return record;
}

absl::StatusOr<RatingRecord> RatingsService::GetRating(const std::string& account_id,
                                                       const std::string& ladder,
                                                       const std::string& season_id) {
  absl::StatusOr<std::string> account = CanonicalAccountId(account_id, "account_id");
  if (!account.ok()) return account.status();
  absl::StatusOr<const model::LadderSpec*> spec = ladders_->Find(ladder);
  if (!spec.ok()) return spec.status();
  absl::StatusOr<Season> season = ResolveSeason(season_id);
  if (!season.ok()) return season.status();
  absl::StatusOr<RatingRecord> record = store_->GetRating(**spec, *season, *account);
  if (!record.ok()) return record.status();
  return AsOf(**spec, *std::move(record), ShownAt(*season));
}

absl::StatusOr<std::vector<RatingRecord>> RatingsService::GetMyRatings(
    const std::string& account_id, const std::string& season_id) {
  absl::StatusOr<std::string> account = CanonicalAccountId(account_id, "caller");
  if (!account.ok()) return account.status();
  absl::StatusOr<Season> season = ResolveSeason(season_id);
  if (!season.ok()) return season.status();
  absl::StatusOr<std::vector<RatingRecord>> records =
      store_->GetRatings(*ladders_, *season, *account);
  if (!records.ok()) return records.status();
  const absl::Time now = ShownAt(*season);
  for (RatingRecord& r : *records) {
    if (auto spec = ladders_->Find(r.ladder); spec.ok()) r = AsOf(**spec, std::move(r), now);
  }
  return records;
}

absl::StatusOr<BoardPage> RatingsService::GetLeaderboard(const std::string& ladder,
                                                         const std::string& season_id,
                                                         int64_t snapshot_id,
                                                         int64_t after_position, int page_size) {
  absl::StatusOr<const model::LadderSpec*> spec = ladders_->Find(ladder);
  if (!spec.ok()) return spec.status();
  BoardPage page;
  if (snapshot_id == 0) {
    absl::StatusOr<Season> season = ResolveSeason(season_id);
    if (!season.ok()) return season.status();
    page.season_id = season->season_id;
    absl::StatusOr<std::optional<BoardSnapshot>> latest =
        CachedLatestSnapshot(ladder, season->season_id);
    if (!latest.ok()) return latest.status();
    page.snapshot = *latest;
  } else {
    absl::StatusOr<BoardSnapshot> snapshot = CachedSnapshot(snapshot_id);
    if (!snapshot.ok()) return snapshot.status();
    if (snapshot->ladder != ladder || (!season_id.empty() && snapshot->season_id != season_id)) {
      return absl::InvalidArgumentError("page_token belongs to another leaderboard");
    }
    page.snapshot = *snapshot;
    page.season_id = snapshot->season_id;
  }
  if (!page.snapshot) return page;
  absl::StatusOr<std::vector<BoardEntry>> entries =
      CachedBoardRange(*page.snapshot, after_position + 1, after_position + page_size);
  if (!entries.ok()) return entries.status();
  page.entries = *std::move(entries);
  absl::StatusOr<Season> season = ResolveSeason(page.season_id);
  if (!season.ok()) return season.status();
  const absl::Time now = ShownAt(*season);
  for (BoardEntry& e : page.entries) e.record = AsOf(**spec, std::move(e.record), now);
  const int64_t last = after_position + static_cast<int64_t>(page.entries.size());
  if (static_cast<int>(page.entries.size()) == page_size && last < page.snapshot->players) {
    page.next_position = last;
  }
  return page;
}

absl::StatusOr<AroundMe> RatingsService::GetLeaderboardAroundMe(const std::string& ladder,
                                                                const Season& season,
                                                                const std::string& account_id,
                                                                int before, int after) {
  absl::StatusOr<const model::LadderSpec*> spec = ladders_->Find(ladder);
  if (!spec.ok()) return spec.status();
  absl::StatusOr<std::string> account = CanonicalAccountId(account_id, "caller");
  if (!account.ok()) return account.status();
  AroundMe out;
  absl::StatusOr<std::optional<BoardSnapshot>> latest =
      CachedLatestSnapshot(ladder, season.season_id);
  if (!latest.ok()) return latest.status();
  out.snapshot = *latest;
  std::optional<RatingRecord> mine;  // the live row, when this call's own statement read it
  if (out.snapshot) {
    const AroundKey key{out.snapshot->snapshot_id, *account, before, after};
    std::shared_ptr<const AroundWindow> window;
    {
      std::lock_guard<std::mutex> lock(cache_mu_);
      if (auto cached = around_cache_.Get(key)) window = *std::move(cached);
    }
    if (window == nullptr) {
      // First read of this window on this snapshot: one statement brings the window and the
      // live row. Callers that miss the same key meanwhile wait for it and read their own row.
      bool shared = false;
      absl::StatusOr<AroundLoad> load = around_flight_.Do(
          key,
          [&]() -> absl::StatusOr<AroundLoad> {
            absl::StatusOr<RatingsStore::Around> around =
                store_->BoardAround(*out.snapshot, **spec, season, *account, before, after);
            if (!around.ok()) return around.status();
            auto loaded = std::make_shared<AroundWindow>();
            loaded->position = around->position;
            loaded->entries = std::move(around->entries);
            std::lock_guard<std::mutex> lock(cache_mu_);
            around_cache_.Put(key, loaded, loaded->entries.size() + 1);
            return AroundLoad{std::move(loaded), std::move(around->mine)};
          },
          &shared);
      if (!load.ok()) return load.status();
      window = load->window;
      if (!shared) mine = std::move(load->mine);
    }
    out.my_position = window->position;
    out.entries = window->entries;
    const absl::Time now = ShownAt(season);
    for (BoardEntry& e : out.entries) e.record = AsOf(**spec, std::move(e.record), now);
  }
  if (!mine) {
    // The live row (one prepared primary-key lookup), or for a player without a row this season
    // the rating they would start the season with.
    absl::StatusOr<RatingRecord> live = store_->GetRating(**spec, season, *account);
    if (!live.ok()) return live.status();
    mine = *std::move(live);
  }
  out.my_rating = AsOf(**spec, *std::move(mine), ShownAt(season));
  return out;
}

absl::StatusOr<HistoryPage> RatingsService::GetRatingHistory(const std::string& account_id,
                                                             const std::string& ladder,
                                                             const std::string& season_id,
                                                             int64_t before_seq, int page_size) {
  absl::StatusOr<std::string> account = CanonicalAccountId(account_id, "account_id");
  if (!account.ok()) return account.status();
  absl::StatusOr<const model::LadderSpec*> spec = ladders_->Find(ladder);
  if (!spec.ok()) return spec.status();
  if (!season_id.empty()) {
    absl::StatusOr<Season> season = ResolveSeason(season_id);
    if (!season.ok()) return season.status();
  }
  absl::StatusOr<std::vector<HistoryEntry>> entries =
      store_->GetHistory(*account, ladder, season_id, before_seq, page_size + 1);
  if (!entries.ok()) return entries.status();
  HistoryPage page;
  page.entries = *std::move(entries);
  if (static_cast<int>(page.entries.size()) > page_size) {
    page.entries.resize(page_size);
    page.next_before_seq = page.entries.back().seq;
  }
  return page;
}

absl::StatusOr<std::vector<Season>> RatingsService::ListSeasons() {
  std::vector<Season> seasons;
  bool cached = false;
  uint64_t generation = 0;
  {
    std::lock_guard<std::mutex> lock(cache_mu_);
    if (absl::Now() - seasons_cached_at_ < kCacheTtl) {
      seasons = seasons_cache_;
      cached = true;
    }
    generation = cache_generation_;
  }
  if (!cached) {
    absl::StatusOr<std::vector<Season>> fresh =
        seasons_flight_.Do(generation, [&]() -> absl::StatusOr<std::vector<Season>> {
          absl::StatusOr<std::vector<Season>> loaded = store_->ListSeasons(Now());
          if (!loaded.ok()) return loaded.status();
          std::lock_guard<std::mutex> lock(cache_mu_);
          if (generation == cache_generation_) {
            seasons_cache_ = *loaded;
            seasons_cached_at_ = absl::Now();
          }
          return loaded;
        });
    if (!fresh.ok()) return fresh.status();
    seasons = *std::move(fresh);
  }
  // Which season is current depends on the clock, not on the cache's age.
  const absl::Time now = Now();
  for (Season& s : seasons) s.current = s.start_time <= now && (!s.end_time || now < *s.end_time);
  return seasons;
}

absl::Status RatingsService::AddSeason(const std::string& season_id,
                                       const std::string& display_name, absl::Time start_time) {
  if (!ValidSeasonId(season_id)) {
    return absl::InvalidArgumentError("season_id must be 1-32 characters of a-z, 0-9 and '-'");
  }
  if (display_name.empty() || display_name.size() > 64) {
    return absl::InvalidArgumentError("display_name must be 1-64 characters");
  }
  absl::Status added = store_->AddSeason(season_id, display_name, start_time);
  InvalidateCaches();
  return added;
}

absl::StatusOr<int> RatingsService::RefreshBoards() {
  if (absl::Status s = EnsureLadders(); !s.ok()) return s;
  const absl::Time now = Now();
  InvalidateCaches();
  absl::StatusOr<std::vector<Season>> seasons = ListSeasons();
  if (!seasons.ok()) return seasons.status();
  // A finished season's board is visited only when it changed: each visit takes a database
  // session for the build's advisory lock (a new connection when the pool has a direct URL), and
  // finished seasons only accumulate.
  absl::StatusOr<std::set<std::pair<std::string, std::string>>> changed =
      store_->ChangedBoards(now);
  if (!changed.ok()) return changed.status();
  int built = 0;
  for (const Season& season : *seasons) {
    if (season.start_time > now) continue;
    for (const model::LadderSpec& ladder : ladders_->ladders()) {
      if (!season.current && !changed->contains({ladder.name, season.season_id})) continue;
      const absl::Time start = absl::Now();
      // A finished season's final board is rebuilt only when it changed, and as it stood at the
      // season's end; the current one also when old.
      absl::StatusOr<bool> b = store_->BuildSnapshot(
          ladder, season.season_id, now, SeasonTimeAt(season, now),
          season.current ? options_.snapshot_max_age : absl::InfiniteDuration());
      if (!b.ok()) return b.status();
      if (!*b) continue;
      ++built;
      if (metrics_ != nullptr) {
        metrics_->SnapshotBuilt(absl::ToDoubleSeconds(absl::Now() - start));
        if (season.current) {
          absl::StatusOr<int64_t> players = store_->CountPlayers(ladder.name, season.season_id);
          if (players.ok()) metrics_->Players(ladder.name, *players);
        }
      }
    }
  }
  absl::Status dropped = store_->DropSnapshotsSupersededBefore(now - options_.snapshot_retention);
  // After the drop too: a cached snapshot must not outlive its table by more than kCacheTtl.
  InvalidateCaches();
  if (!dropped.ok()) return dropped;
  return built;
}

void RatingsService::StartRefresher() {
  std::lock_guard<std::mutex> lock(mu_);
  if (refresher_.joinable()) return;
  stopping_ = false;
  refresher_ = std::thread([this] {
    NameThisThread("ladder-refresh");
    std::unique_lock<std::mutex> lock(mu_);
    while (!stopping_) {
      lock.unlock();
      absl::StatusOr<int> built = RefreshBoards();
      if (!built.ok()) spdlog::warn("leaderboard refresh failed: {}", built.status().ToString());
      refresher_passes_.fetch_add(1);
      lock.lock();
      wake_.wait_for(lock, absl::ToChronoMilliseconds(options_.refresh_interval),
                     [this] { return stopping_; });
    }
  });
}

void RatingsService::StopRefresher() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (refresher_.joinable()) refresher_.join();
}

}  // namespace parlor::ratings
