// The ratings domain and its PostgreSQL store on a real, fresh database per test: idempotency,
// concurrency (8 clients, 1,000 results, same ratings as serially), stable leaderboard pages
// while ratings change, and a season reset.
#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/db/migrations.h"
#include "services/common/db/pool.h"
#include "services/common/testing/status_matchers.h"
#include "services/ratings/domain/ratings_service.h"
#include "services/ratings/store/pg_ratings_store.h"
#include "tests/pg/pg_test_database.h"

namespace parlor::ratings {
namespace {

using ::parlor::testing::IsOk;
using ::parlor::testing::IsOkAndHolds;
using ::parlor::testing::StatusIs;
using ::testing::HasSubstr;

std::string Account(int i) { return absl::StrFormat("00000000-0000-4000-8000-%012d", i); }

const absl::Time kStart = absl::FromUnixSeconds(1800000000);

// One ratings domain over one database.
struct Ratings {
  explicit Ratings(const std::string& url, std::shared_ptr<absl::Time> clock)
      : registry(model::LadderRegistry::Default()) {
    DbOptions options;
    options.url = url;
    // As in production: board builds take sessions of their own (closed after each build).
    options.direct_url = url;
    options.max_connections = 10;
    db = std::make_unique<DbPool>(options, nullptr);
    store = std::make_unique<PgRatingsStore>(db.get());
    prometheus_registry = std::make_shared<prometheus::Registry>();
    metrics = std::make_unique<RatingsMetrics>(*prometheus_registry);
    service = std::make_unique<RatingsService>(
        &registry, store.get(), metrics.get(), [clock] { return *clock; },
        RatingsService::Options{});
  }
  model::LadderRegistry registry;
  std::unique_ptr<DbPool> db;
  std::unique_ptr<PgRatingsStore> store;
  std::shared_ptr<prometheus::Registry> prometheus_registry;
  std::unique_ptr<RatingsMetrics> metrics;
  std::unique_ptr<RatingsService> service;
};

absl::Status Migrate(const std::string& url) {
  absl::StatusOr<MigrationResult> r =
      ApplyMigrations(url, MigrationSet{"ratings", PARLOR_SOURCE_DIR "/migrations/ratings"});
  return r.ok() ? absl::OkStatus() : r.status();
}

GameResult TwoPlayer(const std::string& game, const std::string& id, int a, int b,
                     int winner_rank_a, absl::Time finish) {
  GameResult r;
  r.game_id = id;
  r.game = game;
  r.ranked = true;
  r.seats = {{0, Account(a), 0}, {1, Account(b), 1}};
  r.placements = {{Account(a), winner_rank_a}, {Account(b), winner_rank_a == 1 ? 2 : 1}};
  if (winner_rank_a == 0) r.placements = {{Account(a), 1}, {Account(b), 1}};
  r.finish_time = finish;
  return r;
}

class RatingsPgTest : public parlor::testing::PgTest {
 protected:
  void SetUp() override {
    PgTest::SetUp();
    ASSERT_THAT(Migrate(db_url()), IsOk());
    ratings_ = std::make_unique<Ratings>(db_url(), clock_);
    ASSERT_THAT(ratings_->store->SyncLadders(ratings_->registry), IsOk());
  }
  RatingsService& service() { return *ratings_->service; }
  std::string Digest() {
    absl::StatusOr<std::string> d = parlor::testing::SchemaContentDigest(db_url(), "ratings");
    EXPECT_TRUE(d.ok()) << d.status();
    return d.value_or("");
  }

  std::shared_ptr<absl::Time> clock_ = std::make_shared<absl::Time>(kStart);
  std::unique_ptr<Ratings> ratings_;
};

TEST_F(RatingsPgTest, ReportAppliesAndReplayChangesNothing) {
  const GameResult game = TwoPlayer("pico", "g1", 1, 2, 1, kStart - absl::Minutes(1));
  absl::StatusOr<ReportOutcome> first = service().ReportResult(game);
  ASSERT_THAT(first, IsOk());
  EXPECT_TRUE(first->applied);
  EXPECT_FALSE(first->replayed);
  EXPECT_EQ(first->ladder, "pico");
  EXPECT_EQ(first->season_id, "s1");
  ASSERT_EQ(first->changes.size(), 2u);
  // Two new players: the Glicko-2 result of the model itself.
  const model::Glicko2Pair want =
      model::Glicko2RateGame({1500, 350, 0.06}, 0, {1500, 350, 0.06}, 0, 1.0,
                             ratings_->registry.Find("pico").value()->glicko2);
  EXPECT_DOUBLE_EQ(first->changes[0].after.value, want.a.rating);
  EXPECT_DOUBLE_EQ(first->changes[1].after.deviation, want.b.deviation);

  const std::string before = Digest();
  absl::StatusOr<ReportOutcome> again = service().ReportResult(game);
  ASSERT_THAT(again, IsOk());
  EXPECT_TRUE(again->replayed);
  EXPECT_TRUE(again->applied);
  ASSERT_EQ(again->changes.size(), 2u);
  EXPECT_DOUBLE_EQ(again->changes[0].after.value, first->changes[0].after.value);
  EXPECT_DOUBLE_EQ(again->changes[1].before.value, 1500);
  EXPECT_EQ(Digest(), before);

  // The same game id with another result: refused, nothing changed.
  GameResult other = game;
  other.placements = {{Account(1), 2}, {Account(2), 1}};
  EXPECT_THAT(service().ReportResult(other),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("different result")));
  EXPECT_EQ(Digest(), before);

  absl::StatusOr<RatingRecord> r = service().GetRating(Account(1), "pico", "");
  ASSERT_THAT(r, IsOk());
  EXPECT_DOUBLE_EQ(r->rating.value, want.a.rating);
  EXPECT_EQ(r->rating.games, 1);
  EXPECT_EQ(r->season_games, 1);
  EXPECT_TRUE(r->provisional);
}

TEST_F(RatingsPgTest, CasualResultIsRecordedButRatesNothing) {
  GameResult game = TwoPlayer("pict", "casual-1", 1, 2, 1, kStart);
  game.ranked = false;
  absl::StatusOr<ReportOutcome> out = service().ReportResult(game);
  ASSERT_THAT(out, IsOk());
  EXPECT_FALSE(out->applied);
  EXPECT_TRUE(out->changes.empty());
  absl::StatusOr<RatingRecord> r = service().GetRating(Account(1), "pict", "");
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->rating.games, 0);
  EXPECT_TRUE(service().ReportResult(game)->replayed);
}

TEST_F(RatingsPgTest, BadReportsChangeNothing) {
  ASSERT_THAT(service().ReportResult(TwoPlayer("pico", "ok", 1, 2, 1, kStart)), IsOk());
  const std::string before = Digest();
  GameResult unknown = TwoPlayer("chess", "g2", 1, 2, 1, kStart);
  EXPECT_THAT(service().ReportResult(unknown),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not rated")));
  GameResult wrong_players = TwoPlayer("pico", "g3", 1, 2, 1, kStart);
  wrong_players.placements[1].account_id = Account(9);
  EXPECT_THAT(service().ReportResult(wrong_players),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not seated")));
  EXPECT_EQ(Digest(), before);
  const std::string metrics = [&] {
    std::string out;
    for (const auto& family : ratings_->prometheus_registry->Collect()) {
      for (const auto& m : family.metric) {
        // Every reason exists from the start at 0: the counts tell the refusals apart.
        for (const auto& l : m.label) {
          absl::StrAppend(&out, family.name, "{", l.value, "}=", m.counter.value, " ");
        }
      }
    }
    return out;
  }();
  EXPECT_THAT(metrics, HasSubstr("parlor_ratings_rejected_reports_total{unknown_game}=1 "));
  EXPECT_THAT(metrics, HasSubstr("parlor_ratings_rejected_reports_total{bad_placements}=1 "));
  EXPECT_THAT(metrics, HasSubstr("parlor_ratings_rejected_reports_total{bad_seats}=0 "));
  EXPECT_THAT(metrics, HasSubstr("parlor_ratings_updates_total{pico}=1 "));
}

// A mixed workload: 2-player Glicko-2 games, 2-4 player Weng-Lin games and doubles, over a small
// pool of players so that concurrent results share players all the time.
std::vector<GameResult> Workload(int n, int players, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<GameResult> out;
  for (int i = 0; i < n; ++i) {
    std::vector<int> pool(players);
    for (int p = 0; p < players; ++p) pool[p] = p + 1;
    std::shuffle(pool.begin(), pool.end(), rng);
    GameResult r;
    r.game_id = absl::StrCat("w", seed, "-", i);
    r.ranked = true;
    r.finish_time = kStart - absl::Hours(1000) + absl::Minutes(i);
    const int kind = i % 4;
    int seats = 2;
    if (kind == 0) r.game = "pico";
    if (kind == 1) {
      r.game = "pescado";
      seats = 2 + static_cast<int>(rng() % 3);
    }
    if (kind == 2) {
      r.game = "picadice";
      seats = 4;
    }
    if (kind == 3) r.game = "pict";
    for (int s = 0; s < seats; ++s) {
      const int team = kind == 2 ? s % 2 : s;
      r.seats.push_back({s, Account(pool[s]), team});
    }
    std::vector<int> ranks(seats);
    for (int s = 0; s < seats; ++s) ranks[s] = 1 + static_cast<int>(rng() % seats);
    if (kind == 2) ranks[2] = ranks[0], ranks[3] = ranks[1];
    for (int s = 0; s < seats; ++s) r.placements.push_back({Account(pool[s]), ranks[s]});
    out.push_back(std::move(r));
  }
  return out;
}

std::map<std::string, std::vector<double>> AllRatings(const std::string& url) {
  pqxx::connection c(url);
  pqxx::work txn(c);
  std::map<std::string, std::vector<double>> out;
  for (const pqxx::row& row :
       txn.exec("SELECT ladder || '/' || season_id || '/' || account_id::text, rating, deviation, "
                "volatility, games FROM ratings.ratings")) {
    out[row[0].as<std::string>()] = {row[1].as<double>(), row[2].as<double>(), row[3].as<double>(),
                                     row[4].as<double>()};
  }
  return out;
}

TEST_F(RatingsPgTest, ThousandResultsFromEightClientsEndAsSerially) {
  const std::vector<GameResult> work = Workload(1000, 24, 7);
  std::atomic<int> next{0};
  std::atomic<int> failures{0};
  std::vector<std::thread> clients;
  for (int c = 0; c < 8; ++c) {
    clients.emplace_back([&] {
      for (int i = next++; i < static_cast<int>(work.size()); i = next++) {
        absl::StatusOr<ReportOutcome> out = service().ReportResult(work[i]);
        if (!out.ok() || !out->applied) {
          ++failures;
          ADD_FAILURE() << work[i].game_id << ": " << out.status();
        }
      }
    });
  }
  for (std::thread& t : clients) t.join();
  ASSERT_EQ(failures.load(), 0);

  // The order the concurrent run applied them in: for any two results sharing a player, seq
  // orders them as their transactions committed.
  std::vector<std::string> order;
  {
    pqxx::connection c(db_url());
    pqxx::work txn(c);
    for (const pqxx::row& row :
         txn.exec("SELECT game_id FROM ratings.processed_results ORDER BY seq")) {
      order.push_back(row[0].as<std::string>());
    }
  }
  ASSERT_EQ(order.size(), work.size());
  std::map<std::string, const GameResult*> by_id;
  for (const GameResult& r : work) by_id[r.game_id] = &r;

  // The same results, one at a time, into a second fresh database.
  absl::StatusOr<std::unique_ptr<parlor::testing::PgTestDatabase>> serial_db =
      parlor::testing::PgTestDatabase::Create();
  ASSERT_THAT(serial_db, IsOk());
  ASSERT_THAT(Migrate((*serial_db)->url()), IsOk());
  Ratings serial((*serial_db)->url(), clock_);
  ASSERT_THAT(serial.store->SyncLadders(serial.registry), IsOk());
  for (const std::string& id : order) {
    ASSERT_THAT(serial.service->ReportResult(*by_id[id]), IsOk());
  }

  const auto concurrent_ratings = AllRatings(db_url());
  const auto serial_ratings = AllRatings((*serial_db)->url());
  ASSERT_EQ(concurrent_ratings.size(), serial_ratings.size());
  EXPECT_GE(concurrent_ratings.size(), 24u * 3);
  for (const auto& [key, values] : concurrent_ratings) {
    auto it = serial_ratings.find(key);
    ASSERT_NE(it, serial_ratings.end()) << key;
    for (size_t i = 0; i < values.size(); ++i) {
      EXPECT_DOUBLE_EQ(values[i], it->second[i]) << key << " column " << i;
    }
  }
  // Every game counted once per seat.
  int64_t seats = 0;
  for (const GameResult& r : work) seats += static_cast<int64_t>(r.seats.size());
  int64_t games = 0;
  for (const auto& [key, values] : concurrent_ratings) games += static_cast<int64_t>(values[3]);
  EXPECT_EQ(games, seats);
}

// Fills a ladder with `n` established players directly (fast), spread-out ratings, their last
// game an hour before kStart (the tests' clock).
void SeedBoard(const std::string& url, const std::string& ladder, const std::string& season,
               int n) {
  pqxx::connection c(url);
  pqxx::work txn(c);
  txn.exec_params0(
      "INSERT INTO ratings.ratings (ladder, season_id, account_id, rating, deviation, volatility, "
      "conservative, games, season_games, provisional, last_game_time) "
      "SELECT $1, $2, ('00000000-0000-4000-8000-' || lpad(i::text, 12, '0'))::uuid, "
      "1500 + (i * 7919 % 1000), 60, 0.06, 1500 + (i * 7919 % 1000) - 120, 30, 30, false, "
      "to_timestamp($4) FROM generate_series(1, $3) AS i",
      ladder, season, n, absl::ToUnixSeconds(kStart - absl::Hours(1)));
  txn.exec_params0(
      "INSERT INTO ratings.board_changes (ladder, season_id, shard, changes) VALUES ($1, $2, 0, 1)",
      ladder, season);
  txn.commit();
}

TEST_F(RatingsPgTest, LeaderboardPagesHaveNoDuplicatesOrGapsWhileRatingsChange) {
  constexpr int kPlayers = 300;
  SeedBoard(db_url(), "pico", "s1", kPlayers);
  ASSERT_THAT(service().RefreshBoards(), IsOk());

  std::set<std::string> seen;
  int64_t expected_position = 1;
  int64_t snapshot = 0;
  int64_t after = 0;
  double last_conservative = 1e18;
  int pages = 0;
  int game = 0;
  do {
    absl::StatusOr<BoardPage> page = service().GetLeaderboard("pico", "", snapshot, after, 7);
    ASSERT_THAT(page, IsOk());
    ASSERT_TRUE(page->snapshot.has_value());
    if (snapshot == 0) snapshot = page->snapshot->snapshot_id;
    EXPECT_EQ(page->snapshot->snapshot_id, snapshot);
    EXPECT_EQ(page->snapshot->players, kPlayers);
    for (const BoardEntry& e : page->entries) {
      EXPECT_EQ(e.position, expected_position++);
      EXPECT_TRUE(seen.insert(e.record.account_id).second) << "duplicate " << e.record.account_id;
      EXPECT_LE(e.record.conservative, last_conservative);
      last_conservative = e.record.conservative;
    }
    after = page->next_position;
    ++pages;
    // Between pages: upsets that move players across pages, and a new snapshot.
    for (int k = 0; k < 3; ++k, ++game) {
      const int low = 1 + (game * 37) % kPlayers;
      const int high = 1 + (game * 53 + 11) % kPlayers;
      if (low == high) continue;
      ASSERT_THAT(service().ReportResult(TwoPlayer("pico", absl::StrCat("p", game), low, high, 1,
                                                   kStart - absl::Minutes(1))),
                  IsOk());
    }
    ASSERT_THAT(service().RefreshBoards(), IsOk());
  } while (after != 0);
  EXPECT_EQ(seen.size(), static_cast<size_t>(kPlayers));
  EXPECT_EQ(pages, (kPlayers + 6) / 7);

  // A fresh walk reads the newest snapshot, where the ratings have moved.
  absl::StatusOr<BoardPage> fresh = service().GetLeaderboard("pico", "", 0, 0, 7);
  ASSERT_THAT(fresh, IsOk());
  EXPECT_GT(fresh->snapshot->snapshot_id, snapshot);

  // Around me: the player at position 50 of the newest snapshot sees 49..55.
  absl::StatusOr<BoardPage> at50 = service().GetLeaderboard("pico", "", 0, 49, 1);
  ASSERT_THAT(at50, IsOk());
  absl::StatusOr<Season> s1 = service().ResolveSeason("");
  ASSERT_THAT(s1, IsOk());
  absl::StatusOr<AroundMe> around =
      service().GetLeaderboardAroundMe("pico", *s1, at50->entries[0].record.account_id, 1, 5);
  ASSERT_THAT(around, IsOk());
  EXPECT_EQ(around->my_position, 50);
  ASSERT_EQ(around->entries.size(), 7u);
  EXPECT_EQ(around->entries.front().position, 49);
  EXPECT_EQ(around->entries.back().position, 55);

  // Superseded snapshots expire after the retention; a page token of one then fails cleanly.
  *clock_ += absl::Hours(1);
  ASSERT_THAT(service().RefreshBoards(), IsOk());
  EXPECT_THAT(service().GetLeaderboard("pico", "", snapshot, 7, 7),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("expired")));
}

TEST_F(RatingsPgTest, NoSnapshotYetMeansAnEmptyBoard) {
  absl::StatusOr<BoardPage> page = service().GetLeaderboard("kadice", "", 0, 0, 10);
  ASSERT_THAT(page, IsOk());
  EXPECT_FALSE(page->snapshot.has_value());
  EXPECT_TRUE(page->entries.empty());
  EXPECT_THAT(service().GetLeaderboard("nope", "", 0, 0, 10),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("nope")));
  EXPECT_THAT(service().GetLeaderboard("pico", "s9", 0, 0, 10),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("s9")));
}

TEST_F(RatingsPgTest, SeasonResetSoftResetsAndKeepsTheOldBoard) {
  // Season 1: player 1 beats player 2 ten times, established enough for the board.
  for (int i = 0; i < 10; ++i) {
    ASSERT_THAT(service().ReportResult(TwoPlayer("pico", absl::StrCat("s1-", i), 1, 2, 1,
                                                 kStart - absl::Hours(20 - i))),
                IsOk());
  }
  ASSERT_THAT(service().RefreshBoards(), IsOk());
  // Read as of the last season-1 game (11 h before kStart), before any idle growth.
  *clock_ = kStart - absl::Hours(11);
  absl::StatusOr<RatingRecord> end_of_s1 = service().GetRating(Account(1), "pico", "s1");
  *clock_ = kStart;
  ASSERT_THAT(end_of_s1, IsOk());
  EXPECT_GT(end_of_s1->rating.value, 1700);
  absl::StatusOr<BoardPage> s1_board = service().GetLeaderboard("pico", "s1", 0, 0, 10);
  ASSERT_THAT(s1_board, IsOk());

  // Season 2 starts now.
  ASSERT_THAT(service().AddSeason("s2", "Season 2", kStart + absl::Hours(1)), IsOk());
  EXPECT_THAT(service().AddSeason("s0", "Too early", kStart - absl::Hours(1)),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("after")));
  EXPECT_THAT(service().AddSeason("s2", "Again", kStart + absl::Hours(5)),
              StatusIs(absl::StatusCode::kAlreadyExists, HasSubstr("s2")));
  *clock_ = kStart + absl::Hours(2);
  absl::StatusOr<std::vector<Season>> seasons = service().ListSeasons();
  ASSERT_THAT(seasons, IsOk());
  ASSERT_EQ(seasons->size(), 2u);
  EXPECT_FALSE((*seasons)[0].current);
  EXPECT_EQ((*seasons)[0].end_time, kStart + absl::Hours(1));
  EXPECT_TRUE((*seasons)[1].current);

  // Before playing in season 2, the rating shown is season 1's, soft-reset.
  const model::LadderSpec& pico = **ratings_->registry.Find("pico");
  const model::Rating reset = pico.ApplySeasonReset(end_of_s1->rating);
  absl::StatusOr<RatingRecord> carried = service().GetRating(Account(1), "pico", "");
  ASSERT_THAT(carried, IsOk());
  EXPECT_EQ(carried->season_id, "s2");
  EXPECT_EQ(carried->season_games, 0);
  EXPECT_DOUBLE_EQ(carried->rating.value, reset.value);
  // Shown grown for the 13 h since the last season-1 game (11 h before kStart).
  EXPECT_DOUBLE_EQ(carried->rating.deviation, pico.Idle(reset, 13.0 / 24.0).deviation);
  EXPECT_DOUBLE_EQ(carried->rating.value, 1500 + (end_of_s1->rating.value - 1500) * 0.8);
  EXPECT_GT(carried->rating.deviation, end_of_s1->rating.deviation);

  // The first season-2 game starts from the reset rating.
  absl::StatusOr<ReportOutcome> out =
      service().ReportResult(TwoPlayer("pico", "s2-0", 1, 3, 0, kStart + absl::Hours(2)));
  ASSERT_THAT(out, IsOk());
  EXPECT_EQ(out->season_id, "s2");
  const double idle_days = 13.0 / 24.0;  // last season-1 game 11 h before kStart
  EXPECT_DOUBLE_EQ(out->changes[0].before.deviation, pico.Idle(reset, idle_days).deviation);
  EXPECT_DOUBLE_EQ(out->changes[0].before.value, reset.value);
  absl::StatusOr<RatingRecord> now_s2 = service().GetRating(Account(1), "pico", "");
  EXPECT_EQ(now_s2->season_games, 1);
  EXPECT_EQ(now_s2->rating.games, 11);

  // Season 1 is untouched and its final board still readable.
  ASSERT_THAT(service().RefreshBoards(), IsOk());
  absl::StatusOr<RatingRecord> still_s1 = service().GetRating(Account(1), "pico", "s1");
  EXPECT_DOUBLE_EQ(still_s1->rating.value, end_of_s1->rating.value);
  absl::StatusOr<BoardPage> s1_again = service().GetLeaderboard("pico", "s1", 0, 0, 10);
  ASSERT_THAT(s1_again, IsOk());
  ASSERT_TRUE(s1_again->snapshot.has_value());
  EXPECT_EQ(s1_again->snapshot->snapshot_id, s1_board->snapshot->snapshot_id);
  EXPECT_EQ(s1_again->season_id, "s1");
  *clock_ += absl::Hours(48);
  ASSERT_THAT(service().RefreshBoards(), IsOk());
  EXPECT_THAT(service().GetLeaderboard("pico", "s1", 0, 0, 10), IsOk());

  // GetMyRatings in season 2 lists pico (played).
  absl::StatusOr<std::vector<RatingRecord>> mine = service().GetMyRatings(Account(2), "");
  ASSERT_THAT(mine, IsOk());
  ASSERT_EQ(mine->size(), 1u);
  EXPECT_EQ((*mine)[0].season_id, "s2");
  EXPECT_EQ((*mine)[0].season_games, 0);

  // History spans both seasons, newest first, and pages.
  absl::StatusOr<HistoryPage> h = service().GetRatingHistory(Account(1), "pico", "", 0, 4);
  ASSERT_THAT(h, IsOk());
  ASSERT_EQ(h->entries.size(), 4u);
  EXPECT_EQ(h->entries[0].game_id, "s2-0");
  EXPECT_EQ(h->entries[0].season_id, "s2");
  int total = static_cast<int>(h->entries.size());
  while (h->next_before_seq != 0) {
    h = service().GetRatingHistory(Account(1), "pico", "", h->next_before_seq, 4);
    ASSERT_THAT(h, IsOk());
    total += static_cast<int>(h->entries.size());
  }
  EXPECT_EQ(total, 11);
  absl::StatusOr<HistoryPage> only_s2 = service().GetRatingHistory(Account(1), "pico", "s2", 0, 50);
  EXPECT_EQ(only_s2->entries.size(), 1u);
}

// The real store, counting the around-me statements and live-row reads; BoardAround can be
// slowed so that concurrent callers meet on one load.
class CountingStore : public PgRatingsStore {
 public:
  using PgRatingsStore::PgRatingsStore;
  absl::StatusOr<Around> BoardAround(const BoardSnapshot& snapshot, const model::LadderSpec& ladder,
                                     const Season& season, const std::string& account_id,
                                     int before, int after) override {
    ++board_around;
    absl::SleepFor(delay);
    return PgRatingsStore::BoardAround(snapshot, ladder, season, account_id, before, after);
  }
  absl::StatusOr<RatingRecord> GetRating(const model::LadderSpec& ladder, const Season& season,
                                         const std::string& account_id) override {
    ++get_rating;
    return PgRatingsStore::GetRating(ladder, season, account_id);
  }
  std::atomic<int> board_around{0};
  std::atomic<int> get_rating{0};
  absl::Duration delay = absl::ZeroDuration();
};

void ExpectSameEntries(const std::vector<BoardEntry>& a, const std::vector<BoardEntry>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].position, b[i].position);
    EXPECT_EQ(a[i].record.account_id, b[i].record.account_id);
    EXPECT_EQ(a[i].record.conservative, b[i].record.conservative);
    EXPECT_EQ(a[i].record.season_games, b[i].record.season_games);
  }
}

TEST_F(RatingsPgTest, AroundMeReadsTheSnapshotOncePerPlayerAndTheLiveRowEveryTime) {
  SeedBoard(db_url(), "pico", "s1", 100);
  CountingStore store(ratings_->db.get());
  RatingsService svc(
      &ratings_->registry, &store, nullptr, [clock = clock_] { return *clock; },
      RatingsService::Options{});
  ASSERT_THAT(svc.RefreshBoards(), IsOk());
  absl::StatusOr<Season> s1 = svc.ResolveSeason("");
  ASSERT_THAT(s1, IsOk());
  const std::string me = Account(7);

  // First read: one statement on the snapshot, which also brings the live row.
  absl::StatusOr<AroundMe> first = svc.GetLeaderboardAroundMe("pico", *s1, me, 2, 3);
  ASSERT_THAT(first, IsOk());
  EXPECT_EQ(store.board_around.load(), 1);
  EXPECT_EQ(store.get_rating.load(), 0);
  ASSERT_GT(first->my_position, 2);
  ASSERT_EQ(first->entries.size(), 6u);
  EXPECT_EQ(first->entries[2].record.account_id, me);
  EXPECT_EQ(first->my_rating.season_games, 30);
  // The window is the page of the same snapshot at those positions.
  absl::StatusOr<BoardPage> page =
      svc.GetLeaderboard("pico", "", first->snapshot->snapshot_id, first->my_position - 3, 6);
  ASSERT_THAT(page, IsOk());
  ExpectSameEntries(first->entries, page->entries);

  // Again: the window from memory, the live row from the database (one read).
  absl::StatusOr<AroundMe> again = svc.GetLeaderboardAroundMe("pico", *s1, me, 2, 3);
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(store.board_around.load(), 1);
  EXPECT_EQ(store.get_rating.load(), 1);
  EXPECT_EQ(again->my_position, first->my_position);
  EXPECT_EQ(again->snapshot->snapshot_id, first->snapshot->snapshot_id);
  ExpectSameEntries(again->entries, first->entries);
  EXPECT_EQ(again->my_rating.rating.value, first->my_rating.rating.value);
  // Another window size is another key.
  absl::StatusOr<AroundMe> wider = svc.GetLeaderboardAroundMe("pico", *s1, me, 3, 3);
  ASSERT_THAT(wider, IsOk());
  EXPECT_EQ(store.board_around.load(), 2);
  EXPECT_EQ(wider->entries.size(), 7u);

  // A game after the snapshot: the live rating moves at once, the window stays the snapshot's.
  ASSERT_THAT(
      svc.ReportResult(TwoPlayer("pico", "after-snapshot", 7, 9, 1, kStart - absl::Minutes(1))),
      IsOk());
  absl::StatusOr<AroundMe> played = svc.GetLeaderboardAroundMe("pico", *s1, me, 2, 3);
  ASSERT_THAT(played, IsOk());
  EXPECT_EQ(store.board_around.load(), 2);
  EXPECT_EQ(played->my_rating.season_games, 31);
  EXPECT_GT(played->my_rating.rating.value, first->my_rating.rating.value);
  EXPECT_EQ(played->my_position, first->my_position);
  ExpectSameEntries(played->entries, first->entries);

  // Eight players' first reads of one window at once: one statement; each caller reads its own
  // live row.
  const std::string other = Account(20);
  store.delay = absl::Milliseconds(300);
  const int reads_before = store.get_rating.load();
  std::vector<absl::StatusOr<AroundMe>> results(8, absl::UnknownError("not run"));
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back(
        [&, i] { results[i] = svc.GetLeaderboardAroundMe("pico", *s1, other, 2, 3); });
  }
  for (std::thread& t : threads) t.join();
  store.delay = absl::ZeroDuration();
  EXPECT_EQ(store.board_around.load(), 3);
  EXPECT_EQ(store.get_rating.load() - reads_before, 7);
  for (const auto& r : results) {
    ASSERT_THAT(r, IsOk());
    EXPECT_EQ(r->my_position, results[0]->my_position);
    EXPECT_EQ(r->my_rating.account_id, other);
    ExpectSameEntries(r->entries, results[0]->entries);
  }

  // A new snapshot (the board changed): the window is read from it.
  ASSERT_THAT(svc.RefreshBoards(), IsOk());
  absl::StatusOr<AroundMe> next = svc.GetLeaderboardAroundMe("pico", *s1, me, 2, 3);
  ASSERT_THAT(next, IsOk());
  EXPECT_EQ(store.board_around.load(), 4);
  EXPECT_GT(next->snapshot->snapshot_id, first->snapshot->snapshot_id);
  EXPECT_EQ(next->entries[2].record.account_id, me);
  EXPECT_EQ(next->entries[2].record.season_games, 31);

  // Not on the board (no row this season): position 0, no entries, the starting rating.
  absl::StatusOr<AroundMe> newcomer = svc.GetLeaderboardAroundMe("pico", *s1, Account(500), 2, 3);
  ASSERT_THAT(newcomer, IsOk());
  EXPECT_EQ(newcomer->my_position, 0);
  EXPECT_TRUE(newcomer->entries.empty());
  EXPECT_EQ(newcomer->my_rating.season_games, 0);
  absl::StatusOr<AroundMe> newcomer_again =
      svc.GetLeaderboardAroundMe("pico", *s1, Account(500), 2, 3);
  ASSERT_THAT(newcomer_again, IsOk());
  EXPECT_EQ(store.board_around.load(), 5);
  EXPECT_EQ(newcomer_again->my_position, 0);
}

TEST_F(RatingsPgTest, SnapshotStatementsArePreparedPerSnapshotAndOldOnesDropped) {
  SeedBoard(db_url(), "pico", "s1", 50);
  // One connection, so every read below runs on it.
  DbOptions options;
  options.url = db_url();
  options.max_connections = 1;
  DbPool db(options, nullptr);
  PgRatingsStore store(&db);
  absl::StatusOr<Season> s1 = service().ResolveSeason("");
  ASSERT_THAT(s1, IsOk());
  const model::LadderSpec& pico = **ratings_->registry.Find("pico");
  auto prepared = [&db]() {
    std::vector<std::string> names;
    absl::StatusOr<DbPool::Lease> lease = db.Acquire();
    EXPECT_TRUE(lease.ok());
    if (!lease.ok()) return names;
    pqxx::nontransaction n(lease->connection());
    for (const pqxx::row& row :
         n.exec("SELECT name FROM pg_prepared_statements WHERE name LIKE 'ratings_board_%'")) {
      names.push_back(row[0].as<std::string>());
    }
    return names;
  };
  auto statements = [](int64_t id) {
    return std::vector<std::string>{absl::StrCat("ratings_board_around_", id),
                                    absl::StrCat("ratings_board_range_", id)};
  };

  // Four snapshots, each read (around me twice, a page once) on the one connection.
  std::vector<BoardSnapshot> snapshots;
  for (int i = 0; i < 4; ++i) {
    if (i > 0) {
      ASSERT_THAT(service().ReportResult(TwoPlayer("pico", absl::StrCat("moves-", i), 3, 4, 1,
                                                   kStart - absl::Minutes(1))),
                  IsOk());
    }
    ASSERT_THAT(service().RefreshBoards(), IsOk());
    absl::StatusOr<std::optional<BoardSnapshot>> latest = store.LatestSnapshot("pico", "s1");
    ASSERT_THAT(latest, IsOk());
    ASSERT_TRUE(latest->has_value());
    snapshots.push_back(**latest);
    absl::StatusOr<RatingsStore::Around> a =
        store.BoardAround(snapshots.back(), pico, *s1, Account(3), 1, 1);
    ASSERT_THAT(a, IsOk());
    ASSERT_TRUE(a->mine.has_value());
    EXPECT_EQ(a->mine->season_games, 30 + i);
    EXPECT_GT(a->position, 0);
    ASSERT_EQ(a->entries.size(), 3u);
    EXPECT_EQ(a->entries[1].record.account_id, Account(3));
    absl::StatusOr<RatingsStore::Around> b =
        store.BoardAround(snapshots.back(), pico, *s1, Account(4), 1, 1);
    ASSERT_THAT(b, IsOk());
    EXPECT_EQ(b->mine->account_id, Account(4));
    absl::StatusOr<std::vector<BoardEntry>> page =
        store.BoardRange(snapshots.back(), a->position - 1, a->position + 1);
    ASSERT_THAT(page, IsOk());
    ASSERT_EQ(page->size(), 3u);
    EXPECT_EQ((*page)[1].record.account_id, Account(3));
  }
  ASSERT_GT(snapshots[3].snapshot_id, snapshots[0].snapshot_id);
  // The last three snapshots' statements are kept, the first one's dropped.
  std::vector<std::string> expected;
  for (int i = 1; i < 4; ++i) {
    for (const std::string& name : statements(snapshots[i].snapshot_id)) expected.push_back(name);
  }
  EXPECT_THAT(prepared(), ::testing::UnorderedElementsAreArray(expected));

  // Reading an older snapshot again (a page token's walk) keeps it and drops the least recent.
  ASSERT_THAT(store.BoardRange(snapshots[1], 1, 2), IsOk());
  ASSERT_THAT(store.BoardRange(snapshots[0], 1, 2), IsOk());
  expected.clear();
  for (const std::string& name : statements(snapshots[3].snapshot_id)) expected.push_back(name);
  expected.push_back(absl::StrCat("ratings_board_range_", snapshots[1].snapshot_id));
  expected.push_back(absl::StrCat("ratings_board_around_", snapshots[1].snapshot_id));
  expected.push_back(absl::StrCat("ratings_board_range_", snapshots[0].snapshot_id));
  EXPECT_THAT(prepared(), ::testing::UnorderedElementsAreArray(expected));

  // Superseded snapshots dropped after the retention: their statements fail cleanly, and the
  // connection still serves the current one.
  *clock_ += absl::Hours(1);
  ASSERT_THAT(service().RefreshBoards(), IsOk());
  EXPECT_THAT(store.BoardAround(snapshots[0], pico, *s1, Account(3), 1, 1),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("expired")));
  EXPECT_THAT(store.BoardRange(snapshots[1], 1, 2),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("expired")));
  EXPECT_THAT(store.BoardAround(snapshots[3], pico, *s1, Account(3), 1, 1), IsOk());
  EXPECT_THAT(store.BoardRange(snapshots[3], 1, 2), IsOk());
}

// One player's row written directly: (rating, deviation, games) as of their last game.
void SeedPlayer(const std::string& url, const std::string& ladder, const std::string& season,
                int account, double rating, double deviation, int games, absl::Time last_game) {
  pqxx::connection c(url);
  pqxx::work txn(c);
  txn.exec_params0(
      "INSERT INTO ratings.ratings (ladder, season_id, account_id, rating, deviation, volatility, "
      "conservative, games, season_games, provisional, last_game_time) "
      "VALUES ($1, $2, $3::uuid, $4::float8, $5::float8, 0.06, $4::float8 - 2 * $5::float8, "
      "$6::bigint, $6::bigint, $5::float8 > 110, to_timestamp($7::float8))",
      ladder, season, Account(account), rating, deviation, games,
      absl::ToUnixMicros(last_game) / 1e6);
  txn.exec_params0(
      "INSERT INTO ratings.board_changes (ladder, season_id, shard, changes) VALUES ($1, $2, 1, 1) "
      "ON CONFLICT (ladder, season_id, shard) DO UPDATE SET changes = "
      "ratings.board_changes.changes + 1",
      ladder, season);
  txn.commit();
}

// A year without a game: the stored RD 88.43 is what the player had after their last game; every
// read (GetRating, the board, around me) shows it grown to the time of the read.
TEST_F(RatingsPgTest, IdleDeviationIsShownGrownToTheTimeOfTheRead) {
  const model::LadderSpec& pico = **ratings_->registry.Find("pico");
  SeedPlayer(db_url(), "pico", "s1", 1, 1800, 88.43, 40, kStart - absl::Hours(24 * 365));
  absl::StatusOr<RatingRecord> r = service().GetRating(Account(1), "pico", "");
  ASSERT_THAT(r, IsOk());
  const double grown = pico.Idle({1800, 88.43, 0.06, 40}, 365).deviation;
  EXPECT_NEAR(grown, 125.5, 0.1);  // 73 idle periods of sigma 0.06
  EXPECT_DOUBLE_EQ(r->rating.deviation, grown);
  EXPECT_DOUBLE_EQ(r->conservative, 1800 - 2 * grown);
  EXPECT_TRUE(r->provisional);  // RD above 110 by now
  EXPECT_TRUE(r->inactive);     // and a year without a game

  // A player who played 20 days ago: on the board, with the deviation grown for 20 days, the same
  // on every read path.
  SeedPlayer(db_url(), "pico", "s1", 2, 1700, 60, 30, kStart - absl::Hours(24 * 20));
  SeedPlayer(db_url(), "pico", "s1", 3, 1600, 60, 30, kStart - absl::Hours(1));
  ASSERT_THAT(service().RefreshBoards(), IsOk());
  *clock_ = kStart + absl::Hours(2);
  const double p2 = pico.Idle({1700, 60, 0.06, 30}, 20 + 2.0 / 24).deviation;
  EXPECT_GT(p2, 60);
  absl::StatusOr<RatingRecord> two = service().GetRating(Account(2), "pico", "");
  ASSERT_THAT(two, IsOk());
  EXPECT_DOUBLE_EQ(two->rating.deviation, p2);
  EXPECT_FALSE(two->inactive);
  EXPECT_FALSE(two->provisional);
  absl::StatusOr<BoardPage> page = service().GetLeaderboard("pico", "", 0, 0, 10);
  ASSERT_THAT(page, IsOk());
  ASSERT_EQ(page->entries.size(), 2u);  // player 1 is off the board
  EXPECT_EQ(page->entries[0].record.account_id, Account(2));
  EXPECT_DOUBLE_EQ(page->entries[0].record.rating.deviation, p2);
  EXPECT_DOUBLE_EQ(page->entries[0].record.conservative, 1700 - 2 * p2);
  absl::StatusOr<Season> s1 = service().ResolveSeason("");
  ASSERT_THAT(s1, IsOk());
  absl::StatusOr<AroundMe> around = service().GetLeaderboardAroundMe("pico", *s1, Account(3), 1, 1);
  ASSERT_THAT(around, IsOk());
  EXPECT_EQ(around->my_position, 2);
  ASSERT_EQ(around->entries.size(), 2u);
  EXPECT_DOUBLE_EQ(around->entries[0].record.rating.deviation, p2);
  EXPECT_DOUBLE_EQ(around->my_rating.rating.deviation,
                   pico.Idle({1600, 60, 0.06, 30}, 3.0 / 24).deviation);
  absl::StatusOr<std::vector<RatingRecord>> mine = service().GetMyRatings(Account(2), "");
  ASSERT_THAT(mine, IsOk());
  ASSERT_EQ(mine->size(), 1u);
  EXPECT_DOUBLE_EQ((*mine)[0].rating.deviation, p2);
}

// Thirty days without a rated game: off the board, without any new result (the board is rebuilt
// when it is older than the maximum age), and back on it with the next game.
TEST_F(RatingsPgTest, InactivePlayersLeaveTheBoardUntilTheyPlayAgain) {
  SeedPlayer(db_url(), "pico", "s1", 1, 1900, 60, 30, kStart - absl::Hours(1));
  SeedPlayer(db_url(), "pico", "s1", 2, 1800, 60, 30, kStart - absl::Hours(24 * 25));
  ASSERT_THAT(service().RefreshBoards(), IsOk());
  absl::StatusOr<BoardPage> page = service().GetLeaderboard("pico", "", 0, 0, 10);
  ASSERT_THAT(page, IsOk());
  ASSERT_EQ(page->entries.size(), 2u);

  // Day 31 since player 2's last game (day 6 for player 1): no result arrived, but the snapshot
  // is older than the maximum age (1 h), so the next refresh rebuilds it without player 2.
  *clock_ = kStart + absl::Hours(24 * 6);
  absl::StatusOr<RatingRecord> two = service().GetRating(Account(2), "pico", "");
  ASSERT_THAT(two, IsOk());
  EXPECT_TRUE(two->inactive);
  EXPECT_FALSE(two->provisional);
  ASSERT_THAT(service().RefreshBoards(), IsOk());
  page = service().GetLeaderboard("pico", "", 0, 0, 10);
  ASSERT_THAT(page, IsOk());
  ASSERT_EQ(page->entries.size(), 1u);
  EXPECT_EQ(page->entries[0].record.account_id, Account(1));
  EXPECT_EQ(page->snapshot->players, 1);

  // Player 2 plays: back on the board at the next refresh.
  ASSERT_THAT(
      service().ReportResult(TwoPlayer("pico", "back", 2, 1, 1, *clock_ - absl::Minutes(1))),
      IsOk());
  two = service().GetRating(Account(2), "pico", "");
  ASSERT_THAT(two, IsOk());
  EXPECT_FALSE(two->inactive);
  ASSERT_THAT(service().RefreshBoards(), IsOk());
  page = service().GetLeaderboard("pico", "", 0, 0, 10);
  ASSERT_THAT(page, IsOk());
  EXPECT_EQ(page->entries.size(), 2u);
}

// A finished season's final board is rebuilt only when one of its results changes (a void, an
// erased account), and then as it stood when the season ended: a player active at the end stays
// on it however long ago that was, with the deviation of that day.
TEST_F(RatingsPgTest, AFinishedSeasonsBoardIsRebuiltAsItStoodWhenTheSeasonEnded) {
  SeedPlayer(db_url(), "pico", "s1", 1, 1900, 60, 30, kStart - absl::Hours(1));
  SeedPlayer(db_url(), "pico", "s1", 2, 1800, 60, 30, kStart - absl::Hours(24 * 20));
  // Players 3 and 4 play once (provisional: not on the board); this game is voided later.
  ASSERT_THAT(service().ReportResult(TwoPlayer("pico", "late", 3, 4, 1, kStart - absl::Hours(3))),
              IsOk());
  ASSERT_THAT(service().AddSeason("s2", "Season 2", kStart + absl::Hours(1)), IsOk());
  *clock_ = kStart + absl::Hours(1);
  ASSERT_THAT(service().RefreshBoards(), IsOk());
  absl::StatusOr<BoardPage> final_board = service().GetLeaderboard("pico", "s1", 0, 0, 10);
  ASSERT_THAT(final_board, IsOk());
  ASSERT_EQ(final_board->entries.size(), 2u);
  ASSERT_TRUE(final_board->snapshot.has_value());

  // Sixty days on, the game of season 1 is voided: the final board is rebuilt, unchanged.
  *clock_ = kStart + absl::Hours(24 * 60);
  ASSERT_THAT(service().VoidResult({"late", "a cheated win", "ops-alice"}), IsOk());
  ASSERT_THAT(service().RefreshBoards(), IsOk());
  absl::StatusOr<BoardPage> rebuilt = service().GetLeaderboard("pico", "s1", 0, 0, 10);
  ASSERT_THAT(rebuilt, IsOk());
  ASSERT_TRUE(rebuilt->snapshot.has_value());
  EXPECT_NE(rebuilt->snapshot->snapshot_id, final_board->snapshot->snapshot_id);
  ASSERT_EQ(rebuilt->entries.size(), final_board->entries.size());
  for (size_t i = 0; i < rebuilt->entries.size(); ++i) {
    const RatingRecord& was = final_board->entries[i].record;
    const RatingRecord& now = rebuilt->entries[i].record;
    EXPECT_EQ(rebuilt->entries[i].position, final_board->entries[i].position);
    EXPECT_EQ(now.account_id, was.account_id);
    EXPECT_DOUBLE_EQ(now.rating.value, was.rating.value);
    EXPECT_DOUBLE_EQ(now.rating.deviation, was.rating.deviation);
  }
}

// A refresh visits a finished season's board only when its ratings changed: the store lists the
// boards that changed since their latest snapshot (or have none) in one statement.
TEST_F(RatingsPgTest, OnlyBoardsWhoseRatingsChangedSinceTheirSnapshotAreListedForARebuild) {
  using Boards = std::set<std::pair<std::string, std::string>>;
  Boards every_s1_board;
  for (const model::LadderSpec& ladder : ratings_->registry.ladders()) {
    every_s1_board.emplace(ladder.name, "s1");
  }
  ASSERT_GT(every_s1_board.size(), 1u);
  // No snapshot yet: every board of the started season (none of one not started).
  ASSERT_THAT(service().AddSeason("s2", "Season 2", kStart + absl::Hours(1)), IsOk());
  EXPECT_THAT(ratings_->store->ChangedBoards(kStart), IsOkAndHolds(every_s1_board));
  ASSERT_THAT(service().RefreshBoards(), IsOk());
  EXPECT_THAT(ratings_->store->ChangedBoards(kStart), IsOkAndHolds(Boards{}));
  // A result changes its ladder's board only.
  ASSERT_THAT(service().ReportResult(TwoPlayer("pico", "g1", 1, 2, 1, kStart - absl::Hours(1))),
              IsOk());
  EXPECT_THAT(ratings_->store->ChangedBoards(kStart), IsOkAndHolds(Boards{{"pico", "s1"}}));
  ASSERT_THAT(service().RefreshBoards(), IsOk());
  EXPECT_THAT(ratings_->store->ChangedBoards(kStart), IsOkAndHolds(Boards{}));
  // Season 2 starts: its boards have no snapshot; season 1's are unchanged and stay as they are.
  *clock_ = kStart + absl::Hours(2);
  Boards every_s2_board;
  for (const auto& [ladder, season] : every_s1_board) every_s2_board.emplace(ladder, "s2");
  EXPECT_THAT(ratings_->store->ChangedBoards(*clock_), IsOkAndHolds(every_s2_board));
  ASSERT_THAT(service().RefreshBoards(), IsOk());
  EXPECT_THAT(ratings_->store->ChangedBoards(*clock_), IsOkAndHolds(Boards{}));
  // Voiding the season-1 game changes season 1's board again.
  ASSERT_THAT(service().VoidResult({"g1", "a cheated win", "ops-alice"}), IsOk());
  EXPECT_THAT(ratings_->store->ChangedBoards(*clock_), IsOkAndHolds(Boards{{"pico", "s1"}}));
}

// A board holds the players active within the ladder's inactivity window, and a build finds
// them by the time of their last game: it does not read every rating of every past season.
// Eleven past monthly seasons of 2,000 players each, and two players active in the window in the
// current one; the builds read the ratings through their index on (ladder, last game), never the
// whole table.
TEST_F(RatingsPgTest, ABoardBuildReadsThePlayersActiveInTheWindowNotEveryPastSeason) {
  {
    pqxx::connection c(db_url());
    pqxx::work txn(c);
    txn.exec_params0(
        "INSERT INTO ratings.seasons (season_id, display_name, start_time) "
        "SELECT 'm' || m, 'Month ' || m, to_timestamp($1::float8) - make_interval(days => "
        "30 * (13 - m)) FROM generate_series(1, 12) m",
        absl::ToUnixSeconds(kStart));
    txn.exec0(
        "INSERT INTO ratings.ratings (ladder, season_id, account_id, rating, deviation, "
        "volatility, conservative, games, season_games, provisional, last_game_time) "
        "SELECT 'pico', s.season_id, ('00000000-0000-4000-8000-' || lpad((p + 1000)::text, 12, "
        "'0'))::uuid, "
        "1500 + p % 300, 80, 0.06, 1340, 30, 10, false, s.start_time + make_interval(days => 1) "
        "FROM ratings.seasons s, generate_series(1, 2000) p "
        "WHERE s.season_id LIKE 'm%' AND s.season_id <> 'm12'");
    txn.exec0("ANALYZE ratings.ratings");
    txn.commit();
  }
  // The first refresh builds every board (each past season's final board reads that season).
  ASSERT_THAT(service().RefreshBoards(), IsOk());
  SeedPlayer(db_url(), "pico", "m12", 1, 1900, 60, 30, kStart - absl::Hours(2));
  SeedPlayer(db_url(), "pico", "m12", 2, 1800, 60, 30, kStart - absl::Hours(24 * 10));
  const auto scans = [this] {
    pqxx::connection c(db_url());
    pqxx::nontransaction txn(c);
    const pqxx::row row = txn.exec1(
        "SELECT seq_scan, (SELECT sum(idx_scan) FROM pg_stat_user_indexes WHERE relid = "
        "'ratings.ratings'::regclass) FROM pg_stat_user_tables WHERE relid = "
        "'ratings.ratings'::regclass");
    return std::pair<int64_t, int64_t>(row[0].as<int64_t>(), row[1].as<int64_t>(0));
  };
  // A build's session reports its statistics when its backend exits, just after the build.
  const auto settled_scans = [&scans] {
    std::pair<int64_t, int64_t> last = scans();
    for (int stable = 0, tries = 0; stable < 5 && tries < 200; ++tries) {
      absl::SleepFor(absl::Milliseconds(20));
      const std::pair<int64_t, int64_t> now = scans();
      stable = now == last ? stable + 1 : 0;
      last = now;
    }
    return last;
  };
  const auto [seq_before, idx_before] = settled_scans();
  ASSERT_THAT(service().RefreshBoards(), IsOk());
  const auto [seq_after, idx_after] = settled_scans();
  EXPECT_GT(idx_after, idx_before);
  EXPECT_EQ(seq_after, seq_before) << "a board build read the whole ratings table";
  absl::StatusOr<BoardPage> board = service().GetLeaderboard("pico", "m12", 0, 0, 10);
  ASSERT_THAT(board, IsOk());
  ASSERT_EQ(board->entries.size(), 2u);
  EXPECT_EQ(board->entries[0].record.account_id, Account(1));
  EXPECT_EQ(board->entries[1].record.account_id, Account(2));
}

// Last season's established players are on the new season's board from its start (soft-reset
// value, deviation kept), and stay on it after their first game there. The leader of the worked
// example in the README: 2100 / RD 105.65 after 40 games.
TEST_F(RatingsPgTest, EstablishedPlayersStayOnTheBoardAtANewSeason) {
  const model::LadderSpec& pico = **ratings_->registry.Find("pico");
  SeedPlayer(db_url(), "pico", "s1", 1, 2100, 105.65, 40, kStart - absl::Hours(2));
  SeedPlayer(db_url(), "pico", "s1", 2, 1700, 80, 25, kStart - absl::Hours(2));
  SeedPlayer(db_url(), "pico", "s1", 3, 1650, 130, 12, kStart - absl::Hours(2));  // provisional
  ASSERT_THAT(service().AddSeason("s2", "Season 2", kStart + absl::Hours(1)), IsOk());
  *clock_ = kStart + absl::Hours(2);
  ASSERT_THAT(service().RefreshBoards(), IsOk());
  absl::StatusOr<BoardPage> page = service().GetLeaderboard("pico", "", 0, 0, 10);
  ASSERT_THAT(page, IsOk());
  EXPECT_EQ(page->season_id, "s2");
  ASSERT_EQ(page->entries.size(), 2u);  // 1 and 2; 3 was provisional and still is
  const RatingRecord& leader = page->entries[0].record;
  EXPECT_EQ(leader.account_id, Account(1));
  EXPECT_EQ(leader.season_id, "s2");
  EXPECT_EQ(leader.season_games, 0);
  EXPECT_DOUBLE_EQ(leader.rating.value, 1980);  // 1500 + 600 x 0.8
  const double rd = pico.Idle({1980, 105.65, 0.06, 40}, 4.0 / 24).deviation;
  EXPECT_DOUBLE_EQ(leader.rating.deviation, rd);
  EXPECT_LT(rd, 106);
  EXPECT_FALSE(leader.provisional);
  absl::StatusOr<RatingRecord> three = service().GetRating(Account(3), "pico", "");
  ASSERT_THAT(three, IsOk());
  EXPECT_TRUE(three->provisional);
  EXPECT_GT(three->rating.deviation, 156);  // sqrt(130^2 + 87.5^2) = 156.7

  // The leader's first game of season 2 (a loss to player 2) keeps them established.
  absl::StatusOr<ReportOutcome> out =
      service().ReportResult(TwoPlayer("pico", "s2-0", 1, 2, 2, *clock_ - absl::Minutes(1)));
  ASSERT_THAT(out, IsOk());
  EXPECT_DOUBLE_EQ(out->changes[0].before.value, 1980);
  EXPECT_LT(out->changes[0].after.deviation, 110);
  absl::StatusOr<RatingRecord> after = service().GetRating(Account(1), "pico", "");
  ASSERT_THAT(after, IsOk());
  EXPECT_FALSE(after->provisional);
  EXPECT_EQ(after->season_games, 1);
  ASSERT_THAT(service().RefreshBoards(), IsOk());
  page = service().GetLeaderboard("pico", "", 0, 0, 10);
  ASSERT_THAT(page, IsOk());
  EXPECT_EQ(page->entries.size(), 2u);
}

// Voiding a result, the worked case of the README: A beats B, then B beats C; D beats E
// meanwhile. Voiding the first game puts A and B back where they were before it (A has no rated
// game left this season, B is as if their only game were the win over C) and recomputes C, whose
// opponent B now enters that game as a new player; D and E are untouched. Voiding again changes
// nothing.
TEST_F(RatingsPgTest, VoidingAResultRecomputesThePlayersItTouched) {
  const model::LadderSpec& pico = **ratings_->registry.Find("pico");
  constexpr int kA = 1, kB = 2, kC = 3, kD = 4, kE = 5;
  ASSERT_THAT(service().ReportResult(TwoPlayer("pico", "ab", kA, kB, 1, kStart - absl::Hours(3))),
              IsOk());
  absl::StatusOr<ReportOutcome> bc =
      service().ReportResult(TwoPlayer("pico", "bc", kB, kC, 1, kStart - absl::Hours(2)));
  ASSERT_THAT(bc, IsOk());
  ASSERT_THAT(service().ReportResult(TwoPlayer("pico", "de", kD, kE, 1, kStart - absl::Hours(1))),
              IsOk());
  // Before the void B entered "bc" with the rating the loss to A left, so C lost less.
  EXPECT_LT(bc->changes[0].before.value, 1500);
  absl::StatusOr<Season> season = service().ResolveSeason("");
  ASSERT_THAT(season, IsOk());
  auto row = [&](int player) { return ratings_->store->GetRating(pico, *season, Account(player)); };
  absl::StatusOr<RatingRecord> d_before = row(kD);
  ASSERT_THAT(d_before, IsOk());

  absl::StatusOr<VoidOutcome> voided = service().VoidResult({"ab", "win traded", "ops-alice"});
  ASSERT_THAT(voided, IsOk());
  EXPECT_TRUE(voided->voided);
  EXPECT_FALSE(voided->replayed);
  EXPECT_EQ(voided->ladder, "pico");
  EXPECT_EQ(voided->season_id, "s1");
  EXPECT_EQ(voided->replayed_games, 1);  // "bc"; "de" involves none of them
  ASSERT_EQ(voided->removed.size(), 2u);
  EXPECT_EQ(voided->removed[0].account_id, Account(kA));

  // "bc" as if "ab" never happened: two new players, B winning.
  const model::Glicko2Pair want =
      model::Glicko2RateGame({1500, 350, 0.06}, 0, {1500, 350, 0.06}, 0, 1.0, pico.glicko2);
  absl::StatusOr<RatingRecord> a = row(kA), b = row(kB), c = row(kC), d = row(kD);
  ASSERT_THAT(a, IsOk());
  ASSERT_THAT(b, IsOk());
  ASSERT_THAT(c, IsOk());
  ASSERT_THAT(d, IsOk());
  EXPECT_DOUBLE_EQ(a->rating.value, 1500);  // back to the start: no row this season
  EXPECT_DOUBLE_EQ(a->rating.deviation, 350);
  EXPECT_EQ(a->rating.games, 0);
  EXPECT_EQ(a->season_games, 0);
  EXPECT_DOUBLE_EQ(b->rating.value, want.a.rating);
  EXPECT_DOUBLE_EQ(b->rating.deviation, want.a.deviation);
  EXPECT_DOUBLE_EQ(b->rating.volatility, want.a.volatility);
  EXPECT_EQ(b->rating.games, 1);
  EXPECT_EQ(b->season_games, 1);
  EXPECT_EQ(b->last_game_time, kStart - absl::Hours(2));
  EXPECT_DOUBLE_EQ(c->rating.value, want.b.rating);
  EXPECT_DOUBLE_EQ(c->rating.deviation, want.b.deviation);
  EXPECT_DOUBLE_EQ(c->conservative, pico.Conservative(c->rating));
  EXPECT_EQ(c->rating.games, 1);
  EXPECT_DOUBLE_EQ(d->rating.value, d_before->rating.value);
  EXPECT_DOUBLE_EQ(d->rating.deviation, d_before->rating.deviation);

  // The history: "ab" is gone, "bc" shows its recomputed values.
  absl::StatusOr<HistoryPage> a_history =
      service().GetRatingHistory(Account(kA), "pico", "", 0, 10);
  ASSERT_THAT(a_history, IsOk());
  EXPECT_TRUE(a_history->entries.empty());
  absl::StatusOr<HistoryPage> c_history =
      service().GetRatingHistory(Account(kC), "pico", "", 0, 10);
  ASSERT_THAT(c_history, IsOk());
  ASSERT_EQ(c_history->entries.size(), 1u);
  EXPECT_DOUBLE_EQ(c_history->entries[0].change.before.value, 1500);
  EXPECT_DOUBLE_EQ(c_history->entries[0].change.after.value, want.b.rating);

  // The audit: every changed row before and after (A's row removed: season games 0).
  ASSERT_EQ(voided->effects.size(), 3u);
  EXPECT_EQ(voided->effects[0].account_id, Account(kA));
  EXPECT_GT(voided->effects[0].before.value, 1500);
  EXPECT_EQ(voided->effects[0].season_games_before, 1);
  EXPECT_DOUBLE_EQ(voided->effects[0].after.value, 1500);
  EXPECT_EQ(voided->effects[0].season_games_after, 0);
  EXPECT_EQ(voided->effects[1].account_id, Account(kB));
  EXPECT_EQ(voided->effects[1].season_games_before, 2);
  EXPECT_DOUBLE_EQ(voided->effects[1].after.value, want.a.rating);
  EXPECT_EQ(voided->effects[2].account_id, Account(kC));
  EXPECT_DOUBLE_EQ(voided->effects[2].before.value, bc->changes[1].after.value);
  EXPECT_DOUBLE_EQ(voided->effects[2].after.value, want.b.rating);

  // Idempotent: voiding again (whatever the reason) or re-reporting "ab" changes nothing.
  const std::string after_void = Digest();
  absl::StatusOr<VoidOutcome> again = service().VoidResult({"ab", "again", "ops-bob"});
  ASSERT_THAT(again, IsOk());
  EXPECT_FALSE(again->voided);
  EXPECT_TRUE(again->replayed);
  EXPECT_EQ(again->reason, "win traded");
  EXPECT_EQ(again->operator_id, "ops-alice");
  EXPECT_EQ(again->void_time, voided->void_time);
  EXPECT_EQ(again->replayed_games, 1);
  ASSERT_EQ(again->effects.size(), 3u);
  EXPECT_DOUBLE_EQ(again->effects[2].after.value, want.b.rating);
  ASSERT_EQ(again->removed.size(), 2u);
  EXPECT_DOUBLE_EQ(again->removed[1].after.value, voided->removed[1].after.value);
  absl::StatusOr<ReportOutcome> rereported =
      service().ReportResult(TwoPlayer("pico", "ab", kA, kB, 1, kStart - absl::Hours(3)));
  ASSERT_THAT(rereported, IsOk());
  EXPECT_TRUE(rereported->replayed);
  EXPECT_FALSE(rereported->applied);
  EXPECT_TRUE(rereported->changes.empty());
  EXPECT_EQ(Digest(), after_void);

  // The board is rebuilt without A's win.
  ASSERT_THAT(service().RefreshBoards(), IsOk());

  // Refused, changing nothing: an unknown game, a casual one, a bad request.
  GameResult casual = TwoPlayer("pico", "casual", kD, kE, 1, kStart - absl::Minutes(30));
  casual.ranked = false;
  ASSERT_THAT(service().ReportResult(casual), IsOk());
  const std::string before_refusals = Digest();
  EXPECT_THAT(service().VoidResult({"nope", "r", "ops"}),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("no result was reported")));
  EXPECT_THAT(service().VoidResult({"casual", "r", "ops"}),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("casual")));
  EXPECT_THAT(service().VoidResult({"de", " ", "ops"}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("reason")));
  EXPECT_EQ(Digest(), before_refusals);
}

// Doubles: the replay rates later games with the teams they were played in. Players 1+2 beat
// 3+4, then 1+3 beat 2+4; voiding the first leaves the second as the first game of all four.
TEST_F(RatingsPgTest, VoidingADoublesResultReplaysWithTheRecordedTeams) {
  const model::LadderSpec& doubles = **ratings_->registry.Find("picadice-doubles");
  auto game = [](const std::string& id, std::vector<int> team_of_seat, std::vector<int> ranks,
                 absl::Time finish) {
    GameResult r;
    r.game_id = id;
    r.game = "picadice";
    r.ranked = true;
    for (int s = 0; s < 4; ++s) {
      r.seats.push_back({s, Account(s + 1), team_of_seat[s]});
      r.placements.push_back({Account(s + 1), ranks[s]});
    }
    r.finish_time = finish;
    return r;
  };
  ASSERT_THAT(
      service().ReportResult(game("d1", {0, 0, 1, 1}, {1, 1, 2, 2}, kStart - absl::Hours(2))),
      IsOk());
  ASSERT_THAT(
      service().ReportResult(game("d2", {0, 1, 0, 1}, {1, 2, 1, 2}, kStart - absl::Hours(1))),
      IsOk());
  absl::StatusOr<VoidOutcome> voided = service().VoidResult({"d1", "collusion", "ops-alice"});
  ASSERT_THAT(voided, IsOk());
  EXPECT_EQ(voided->replayed_games, 1);
  const model::Rating fresh = doubles.Initial();
  absl::StatusOr<std::vector<model::Rating>> want = model::Rate(
      doubles, {{fresh, 0, 0, 1}, {fresh, 0, 1, 2}, {fresh, 0, 0, 1}, {fresh, 0, 1, 2}});
  ASSERT_THAT(want, IsOk());
  absl::StatusOr<Season> season = service().ResolveSeason("");
  ASSERT_THAT(season, IsOk());
  for (int s = 0; s < 4; ++s) {
    absl::StatusOr<RatingRecord> r = ratings_->store->GetRating(doubles, *season, Account(s + 1));
    ASSERT_THAT(r, IsOk());
    EXPECT_DOUBLE_EQ(r->rating.value, (*want)[s].value) << "seat " << s;
    EXPECT_DOUBLE_EQ(r->rating.deviation, (*want)[s].deviation) << "seat " << s;
    EXPECT_EQ(r->season_games, 1);
  }
}

// A void reaching back into a finished season: A beats B in season 1; in season 2 B (carried
// over, soft-reset) beats C. Voiding the season-1 game removes A's and B's season-1 rows, and B
// enters the season-2 game as a new player, as if the first game never happened.
TEST_F(RatingsPgTest, VoidingAResultOfAnEarlierSeasonReplaysTheNextSeason) {
  const model::LadderSpec& pico = **ratings_->registry.Find("pico");
  ASSERT_THAT(service().ReportResult(TwoPlayer("pico", "ab", 1, 2, 1, kStart - absl::Hours(3))),
              IsOk());
  ASSERT_THAT(service().AddSeason("s2", "Season 2", kStart + absl::Hours(1)), IsOk());
  *clock_ = kStart + absl::Hours(2);
  absl::StatusOr<ReportOutcome> bc =
      service().ReportResult(TwoPlayer("pico", "bc", 2, 3, 1, kStart + absl::Minutes(90)));
  ASSERT_THAT(bc, IsOk());
  EXPECT_EQ(bc->season_id, "s2");
  EXPECT_LT(bc->changes[0].before.value, 1500);  // B carried the loss over

  absl::StatusOr<VoidOutcome> voided = service().VoidResult({"ab", "win traded", "ops-alice"});
  ASSERT_THAT(voided, IsOk());
  EXPECT_EQ(voided->season_id, "s1");
  EXPECT_EQ(voided->replayed_games, 1);
  ASSERT_EQ(voided->effects.size(), 4u);  // A s1, B s1, B s2, C s2
  EXPECT_EQ(voided->effects[1].season_id, "s1");
  EXPECT_EQ(voided->effects[1].season_games_after, 0);
  EXPECT_EQ(voided->effects[2].season_id, "s2");

  const model::Glicko2Pair want =
      model::Glicko2RateGame({1500, 350, 0.06}, 0, {1500, 350, 0.06}, 0, 1.0, pico.glicko2);
  absl::StatusOr<Season> s1 = service().ResolveSeason("s1");
  absl::StatusOr<Season> s2 = service().ResolveSeason("s2");
  ASSERT_THAT(s1, IsOk());
  ASSERT_THAT(s2, IsOk());
  absl::StatusOr<RatingRecord> b1 = ratings_->store->GetRating(pico, *s1, Account(2));
  absl::StatusOr<RatingRecord> b2 = ratings_->store->GetRating(pico, *s2, Account(2));
  absl::StatusOr<RatingRecord> c2 = ratings_->store->GetRating(pico, *s2, Account(3));
  ASSERT_THAT(b1, IsOk());
  ASSERT_THAT(b2, IsOk());
  ASSERT_THAT(c2, IsOk());
  EXPECT_EQ(b1->season_games, 0);
  EXPECT_DOUBLE_EQ(b1->rating.value, 1500);
  EXPECT_DOUBLE_EQ(b2->rating.value, want.a.rating);
  EXPECT_DOUBLE_EQ(b2->rating.deviation, want.a.deviation);
  EXPECT_EQ(b2->rating.games, 1);
  EXPECT_EQ(b2->season_games, 1);
  EXPECT_DOUBLE_EQ(c2->rating.value, want.b.rating);
  // Both boards are marked changed: the finished season's final board is rebuilt too.
  ASSERT_THAT(service().RefreshBoards(), IsOk());
}

}  // namespace
}  // namespace parlor::ratings
