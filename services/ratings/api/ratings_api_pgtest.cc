// End to end through the real transport: an in-process gRPC server (ServiceHost + ratings) on a
// fresh PostgreSQL database, called through a real gRPC client channel with real tokens.
#include <chrono>
#include <cmath>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/ratings/api/ratings_server_pgtest_fixture.h"
#include "spdlog/sinks/ostream_sink.h"
#include "spdlog/spdlog.h"

namespace parlor::ratings {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::Not;

std::string Account(int i) { return TestAccount(i); }

using RatingsApiPgTest = RatingsServerPgTest;

// A first start on an empty database: the leaderboard refresher waits until the host is SERVING
// (migrations applied), so no refresh fails and nothing is logged as an error.
class RatingsFirstStartPgTest : public parlor::testing::PgTest {};

TEST_F(RatingsFirstStartPgTest, TheRefresherWaitsForTheMigrations) {
  std::ostringstream log;
  const std::shared_ptr<spdlog::logger> previous = spdlog::default_logger();
  auto logger = std::make_shared<spdlog::logger>(
      "ratings-first-start", std::make_shared<spdlog::sinks::ostream_sink_mt>(log));
  logger->set_pattern("%l %v");
  logger->set_level(spdlog::level::info);
  spdlog::set_default_logger(logger);

  const parlor::testing::TestKeys keys;
  RatingsConfig config;
  config.page_token_secret = "test-secret";
  config.refresh_boards = true;
  config.options.refresh_interval = absl::Milliseconds(100);
  const model::LadderRegistry ladders = ConfiguredLadders(config);
  RatingsService* domain = nullptr;
  auto server = parlor::testing::TestServer::Start(
      RatingsIdentity(), parlor::testing::TestServerConfig(db_url(), keys), [&](ServiceHost& host) {
        return InstallRatings(
            host, config, &ladders, [] { return absl::Now(); }, &domain);
      });
  ASSERT_TRUE(server.ok()) << server.status();
  for (int i = 0; i < 200 && domain->refresher_passes() < 2; ++i)
    absl::SleepFor(absl::Milliseconds(50));
  const int passes = domain->refresher_passes();
  server->reset();
  spdlog::set_default_logger(previous);

  EXPECT_GE(passes, 2) << "the refresher never ran";
  EXPECT_THAT(log.str(), Not(HasSubstr("leaderboard refresh failed"))) << log.str();
  EXPECT_THAT(log.str(), Not(ContainsRegex("(^|\n)(error|critical) "))) << log.str();
  EXPECT_THAT(log.str(), HasSubstr("is SERVING"));
}

TEST_F(RatingsApiPgTest, ReportReadBoardsAndHistory) {
  const std::string service = ServiceToken();
  // Rounds of pico among players 1..6 (rotating pairs, alternating winners), and a 4-player
  // pescado game.
  int n = 0;
  auto play_rounds = [&](int rounds) {
    static const int kPairs[3][3][2] = {
        {{1, 2}, {3, 4}, {5, 6}}, {{1, 3}, {2, 5}, {4, 6}}, {{1, 6}, {2, 4}, {3, 5}}};
    for (int round = 0; round < rounds; ++round) {
      for (const auto& pair : kPairs[(n / 3) % 3]) {
        const bool first_wins = n % 2 == 1;
        v1::ReportResultResponse out;
        grpc::Status s = Report(Game(absl::StrCat("pico-", n++), "pico", {pair[0], pair[1]},
                                     {first_wins ? 1 : 2, first_wins ? 2 : 1}),
                                &out, service);
        ASSERT_TRUE(s.ok()) << s.error_message();
        EXPECT_TRUE(out.applied());
        EXPECT_EQ(out.ladder(), "pico");
        ASSERT_EQ(out.changes_size(), 2);
        const int winner = first_wins ? 0 : 1;
        EXPECT_GT(out.changes(winner).rating_after(), out.changes(winner).rating_before());
      }
    }
  };
  play_rounds(4);
  v1::ReportResultResponse multi;
  v1::ReportResultRequest pescado = Game("pescado-1", "pescado", {1, 2, 3, 4}, {3, 1, 2, 4});
  pescado.set_ladder("pescado");
  ASSERT_TRUE(Report(pescado, &multi, service).ok());
  EXPECT_EQ(multi.season_id(), "s1");
  EXPECT_GT(multi.changes(1).rating_after(), 25.0);
  // The outbox retries: same answer, replayed.
  v1::ReportResultResponse replay;
  ASSERT_TRUE(Report(pescado, &replay, service).ok());
  EXPECT_TRUE(replay.replayed());
  EXPECT_EQ(replay.changes(1).rating_after(), multi.changes(1).rating_after());

  const std::string me = PlayerToken(2);
  v1::GetRatingRequest get;
  get.set_account_id(Account(2));
  get.set_ladder("pico");
  v1::GetRatingResponse rating;
  ASSERT_TRUE(ratings_->GetRating(With(me).get(), get, &rating).ok());
  EXPECT_EQ(rating.rating().games(), 4);
  EXPECT_EQ(rating.rating().model(), v1::RATING_MODEL_GLICKO2);
  EXPECT_NEAR(rating.rating().conservative_rating(),
              rating.rating().rating() - 2 * rating.rating().deviation(), 1e-9);

  v1::GetMyRatingsResponse mine;
  ASSERT_TRUE(ratings_->GetMyRatings(With(me).get(), {}, &mine).ok());
  ASSERT_EQ(mine.ratings_size(), 2);
  EXPECT_EQ(mine.ratings(0).ladder(), "pescado");
  EXPECT_EQ(mine.ratings(1).ladder(), "pico");
  // One scale for people: Glicko-2 shows r itself; Weng-Lin its ordinal on the same scale.
  const v1::Rating& wl = mine.ratings(0);
  EXPECT_EQ(wl.model(), v1::RATING_MODEL_WENG_LIN);
  const double k = 400 / (std::log(10.0) * std::sqrt(2.0) * 25.0 / 6.0);
  EXPECT_NEAR(wl.display_rating(), 1500 + k * (wl.rating() - 3 * wl.deviation() - 25), 1e-9);
  EXPECT_NEAR(wl.display_rating(), 1500 + k * (wl.conservative_rating() - 25), 1e-9);
  EXPECT_EQ(mine.ratings(1).display_rating(), mine.ratings(1).rating());
  EXPECT_NEAR(multi.changes(1).display_rating_after(),
              1500 + k * (multi.changes(1).conservative_rating_after() - 25), 1e-9);
  EXPECT_NEAR(multi.changes(1).display_rating_before(), 1500 - 25 * k, 1e-6);  // a new player

  v1::BatchGetRatingsRequest batch;
  batch.set_ladder("pico");
  batch.add_account_ids(Account(2));
  batch.add_account_ids(Account(99));
  v1::BatchGetRatingsResponse batch_out;
  ASSERT_TRUE(internal_->BatchGetRatings(With(service).get(), batch, &batch_out).ok());
  ASSERT_EQ(batch_out.ratings_size(), 2);
  EXPECT_EQ(batch_out.ratings(1).games(), 0);
  EXPECT_EQ(batch_out.ratings(1).rating(), 1500);

  v1::ListLaddersResponse ladders;
  ASSERT_TRUE(ratings_->ListLadders(With(me).get(), {}, &ladders).ok());
  EXPECT_EQ(ladders.ladders_size(), 7);
  for (const v1::Ladder& l : ladders.ladders()) {
    EXPECT_NEAR(l.display_points_per_unit(), l.model() == v1::RATING_MODEL_GLICKO2 ? 1 : k, 1e-9)
        << l.ladder();
  }
  v1::ListSeasonsResponse seasons;
  ASSERT_TRUE(ratings_->ListSeasons(With(me).get(), {}, &seasons).ok());
  ASSERT_EQ(seasons.seasons_size(), 1);
  EXPECT_TRUE(seasons.seasons(0).current());

  // Boards: after 4 games each every pico player is still provisional (4 < 5 games, RD ~200).
  ASSERT_TRUE(domain_->RefreshBoards().ok());
  v1::GetLeaderboardRequest board;
  board.set_ladder("pico");
  board.set_page_size(2);
  v1::GetLeaderboardResponse page;
  ASSERT_TRUE(ratings_->GetLeaderboard(With(me).get(), board, &page).ok());
  EXPECT_EQ(page.season_id(), "s1");
  EXPECT_TRUE(page.has_snapshot_time());
  EXPECT_EQ(page.total_players(), 0);
  EXPECT_EQ(page.entries_size(), 0);

  // Twelve more rounds bring every RD near 100 (below the 110 threshold): all six are on the board.
  play_rounds(12);
  ASSERT_TRUE(domain_->RefreshBoards().ok());
  std::vector<std::string> walked;
  std::string token;
  do {
    board.set_page_token(token);
    v1::GetLeaderboardResponse p;
    grpc::Status s = ratings_->GetLeaderboard(With(me).get(), board, &p);
    ASSERT_TRUE(s.ok()) << s.error_message();
    for (const auto& e : p.entries()) {
      EXPECT_EQ(e.position(), static_cast<int64_t>(walked.size()) + 1);
      walked.push_back(e.rating().account_id());
    }
    token = p.next_page_token();
    EXPECT_GT(p.total_players(), 0);
  } while (!token.empty());
  ASSERT_EQ(walked.size(), 6u);
  {
    // The board's order is unchanged: by conservative rating; display_rating is r on pico.
    board.set_page_token("");
    board.set_page_size(10);
    v1::GetLeaderboardResponse p;
    ASSERT_TRUE(ratings_->GetLeaderboard(With(me).get(), board, &p).ok());
    for (int i = 0; i < p.entries_size(); ++i) {
      EXPECT_EQ(p.entries(i).rating().display_rating(), p.entries(i).rating().rating());
      if (i > 0) {
        EXPECT_LE(p.entries(i).rating().conservative_rating(),
                  p.entries(i - 1).rating().conservative_rating());
      }
    }
  }

  v1::GetLeaderboardAroundMeRequest around;
  around.set_ladder("pico");
  v1::GetLeaderboardAroundMeResponse around_out;
  ASSERT_TRUE(ratings_->GetLeaderboardAroundMe(With(me).get(), around, &around_out).ok());
  EXPECT_GT(around_out.my_position(), 0);
  EXPECT_EQ(walked[around_out.my_position() - 1], Account(2));
  EXPECT_EQ(around_out.entries_size(), 6);
  EXPECT_FALSE(around_out.my_rating().provisional());
  EXPECT_EQ(around_out.my_rating().account_id(), Account(2));
  EXPECT_EQ(around_out.my_rating().games(), 16);
  // A player without a game this season: not on the board, shown at the starting rating.
  v1::GetLeaderboardAroundMeResponse newcomer;
  ASSERT_TRUE(
      ratings_->GetLeaderboardAroundMe(With(PlayerToken(99)).get(), around, &newcomer).ok());
  EXPECT_EQ(newcomer.my_position(), 0);
  EXPECT_EQ(newcomer.entries_size(), 0);
  EXPECT_EQ(newcomer.my_rating().account_id(), Account(99));
  EXPECT_EQ(newcomer.my_rating().games(), 0);
  EXPECT_EQ(newcomer.my_rating().rating(), 1500);
  EXPECT_EQ(newcomer.total_players(), 6);

  v1::GetRatingHistoryRequest history;
  history.set_ladder("pico");
  history.set_page_size(5);
  int total = 0;
  std::string htoken;
  do {
    history.set_page_token(htoken);
    v1::GetRatingHistoryResponse h;
    ASSERT_TRUE(ratings_->GetRatingHistory(With(me).get(), history, &h).ok());
    total += h.entries_size();
    htoken = h.next_page_token();
  } while (!htoken.empty());
  EXPECT_EQ(total, 16);

  const std::string metrics = server_->host().metrics().Serialize();
  EXPECT_THAT(metrics, HasSubstr("parlor_ratings_updates_total{ladder=\"pico\"} 48"));
  EXPECT_THAT(metrics, HasSubstr("parlor_ratings_update_duration_seconds_count"));
  EXPECT_THAT(metrics, HasSubstr("parlor_ratings_players{ladder=\"pico\"} 6"));
}

// Bad input over every RPC: ratings_bad_input_pgtest.cc.

}  // namespace
}  // namespace parlor::ratings
