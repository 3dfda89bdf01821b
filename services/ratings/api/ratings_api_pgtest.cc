// End to end through the real transport: an in-process gRPC server (ServiceHost + ratings) on a
// fresh PostgreSQL database, called through a real gRPC client channel with real tokens.
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "gmock/gmock.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "gtest/gtest.h"
#include "parlor/ratings/v1/ratings.grpc.pb.h"
#include "services/common/core/token.h"
#include "services/ratings/ratings_server.h"
#include "tests/pg/pg_test_database.h"

namespace parlor::ratings {
namespace {

using ::testing::HasSubstr;

std::string Account(int i) { return absl::StrFormat("00000000-0000-4000-8000-%012d", i); }

class RatingsApiPgTest : public parlor::testing::PgTest {
 protected:
  void SetUp() override {
    PgTest::SetUp();
    access_keys_ = auth::GenerateKeyPair();
    service_keys_ = auth::GenerateKeyPair();
    ServerConfig server;
    server.listen_host = "127.0.0.1";
    server.grpc_port = 0;
    server.metrics_port = 0;
    server.db_url = db_url();
    server.worker_threads = 2;
    server.drain_timeout = absl::Seconds(1);
    server.migrations_dir = PARLOR_SOURCE_DIR "/migrations";
    server.access_token_public_key = access_keys_.public_key;
    server.service_token_public_key = service_keys_.public_key;
    absl::StatusOr<std::unique_ptr<ServiceHost>> host =
        ServiceHost::Create(RatingsIdentity(), server);
    ASSERT_TRUE(host.ok()) << host.status();
    host_ = *std::move(host);
    config_.page_token_secret = "test-secret";
    config_.refresh_boards = false;
    ladders_ = std::make_unique<model::LadderRegistry>(ConfiguredLadders(config_));
    absl::StatusOr<std::shared_ptr<void>> installed = InstallRatings(
        *host_, config_, ladders_.get(), [clock = clock_] { return *clock; }, &domain_);
    ASSERT_TRUE(installed.ok()) << installed.status();
    installed_ = *std::move(installed);
    absl::Status started = host_->Start();
    ASSERT_TRUE(started.ok()) << started;
    auto channel = grpc::CreateChannel(absl::StrCat("127.0.0.1:", host_->grpc_port()),
                                       grpc::InsecureChannelCredentials());
    ratings_ = v1::RatingsService::NewStub(channel);
    internal_ = v1::RatingsInternalService::NewStub(channel);
  }

  void TearDown() override {
    if (host_ != nullptr) host_->Shutdown();
    installed_.reset();
    host_.reset();
  }

  static std::unique_ptr<grpc::ClientContext> With(const std::string& token) {
    auto context = std::make_unique<grpc::ClientContext>();
    if (!token.empty()) context->AddMetadata("authorization", absl::StrCat("Bearer ", token));
    context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    return context;
  }
  std::string ServiceToken() {
    auto signer = auth::TokenSigner::Create(auth::TokenKind::kService, service_keys_.private_key);
    return *signer->Sign("sessions", "", absl::Now(), absl::Minutes(5));
  }
  std::string PlayerToken(int i) {
    auto signer = auth::TokenSigner::Create(auth::TokenKind::kAccess, access_keys_.private_key);
    return *signer->Sign(Account(i), "session-1", absl::Now(), absl::Minutes(5));
  }
  std::string Digest() {
    absl::StatusOr<std::string> d = parlor::testing::SchemaContentDigest(db_url(), "ratings");
    EXPECT_TRUE(d.ok()) << d.status();
    return d.value_or("");
  }

  v1::ReportResultRequest Game(const std::string& game_id, const std::string& game,
                               std::vector<int> players, std::vector<int> ranks) {
    v1::ReportResultRequest r;
    r.set_game_id(game_id);
    r.set_game(game);
    r.set_ranked(true);
    for (size_t s = 0; s < players.size(); ++s) {
      v1::ResultSeat* seat = r.add_seats();
      seat->set_seat(static_cast<int>(s));
      seat->set_account_id(Account(players[s]));
      seat->set_team(static_cast<int>(s));
      v1::Placement* p = r.add_placements();
      p->set_account_id(Account(players[s]));
      p->set_rank(ranks[s]);
    }
    r.mutable_finish_time()->set_seconds(absl::ToUnixSeconds(*clock_) - 60);
    return r;
  }

  grpc::Status Report(const v1::ReportResultRequest& r, v1::ReportResultResponse* out,
                      const std::string& token) {
    return internal_->ReportResult(With(token).get(), r, out);
  }

  std::shared_ptr<absl::Time> clock_ = std::make_shared<absl::Time>(absl::Now());
  auth::KeyPairBase64 access_keys_;
  auth::KeyPairBase64 service_keys_;
  RatingsConfig config_;
  std::unique_ptr<model::LadderRegistry> ladders_;
  std::unique_ptr<ServiceHost> host_;
  std::shared_ptr<void> installed_;
  RatingsService* domain_ = nullptr;
  std::unique_ptr<v1::RatingsService::Stub> ratings_;
  std::unique_ptr<v1::RatingsInternalService::Stub> internal_;
};

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

  v1::GetLeaderboardAroundMeRequest around;
  around.set_ladder("pico");
  v1::GetLeaderboardAroundMeResponse around_out;
  ASSERT_TRUE(ratings_->GetLeaderboardAroundMe(With(me).get(), around, &around_out).ok());
  EXPECT_GT(around_out.my_position(), 0);
  EXPECT_EQ(walked[around_out.my_position() - 1], Account(2));
  EXPECT_EQ(around_out.entries_size(), 6);
  EXPECT_FALSE(around_out.my_rating().provisional());

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

  const std::string metrics = host_->metrics().Serialize();
  EXPECT_THAT(metrics, HasSubstr("parlor_ratings_updates_total{ladder=\"pico\"} 48"));
  EXPECT_THAT(metrics, HasSubstr("parlor_ratings_update_duration_seconds_count"));
  EXPECT_THAT(metrics, HasSubstr("parlor_ratings_players{ladder=\"pico\"} 6"));
}

TEST_F(RatingsApiPgTest, BadInputOverEveryRpcGetsAPreciseCodeAndChangesNothing) {
  const std::string service = ServiceToken();
  v1::ReportResultResponse ignored;
  grpc::Status seeded = Report(Game("seed", "pico", {1, 2}, {1, 2}), &ignored, service);
  ASSERT_TRUE(seeded.ok()) << seeded.error_message();
  ASSERT_TRUE(domain_->RefreshBoards().ok());
  const std::string before = Digest();
  const std::string player = PlayerToken(1);

  struct Case {
    std::string name;
    v1::ReportResultRequest request;
    std::string token;
    grpc::StatusCode code;
    std::string message;
  };
  std::vector<Case> cases;
  auto add = [&](std::string name, v1::ReportResultRequest r, grpc::StatusCode code,
                 std::string message, std::string token = "") {
    cases.push_back(
        {std::move(name), std::move(r), token.empty() ? service : token, code, std::move(message)});
  };
  const v1::ReportResultRequest good = Game("g-bad", "pico", {1, 2}, {1, 2});
  add("player token", good, grpc::StatusCode::PERMISSION_DENIED, "", player);
  add("garbage token", good, grpc::StatusCode::UNAUTHENTICATED, "", "not-a-token");
  cases.push_back({"no token", good, "", grpc::StatusCode::UNAUTHENTICATED, ""});
  v1::ReportResultRequest r = good;
  r.set_game("chess");
  add("unknown game", r, grpc::StatusCode::INVALID_ARGUMENT, "not rated");
  r = good;
  r.mutable_placements(1)->set_account_id(Account(7));
  add("placement for a player not seated", r, grpc::StatusCode::INVALID_ARGUMENT, "not seated");
  r = good;
  r.mutable_seats(1)->set_account_id(Account(7));
  add("placements for the wrong players", r, grpc::StatusCode::INVALID_ARGUMENT, "not seated");
  r = good;
  r.mutable_placements()->RemoveLast();
  add("missing placement", r, grpc::StatusCode::INVALID_ARGUMENT, "no placement");
  r = good;
  r.set_game_id("");
  add("no game id", r, grpc::StatusCode::INVALID_ARGUMENT, "game_id");
  r = good;
  r.set_game_id(std::string(5000, 'x'));
  add("huge game id", r, grpc::StatusCode::INVALID_ARGUMENT, "game_id");
  r = good;
  r.mutable_seats(0)->set_account_id("robert'); DROP TABLE ratings.ratings;--");
  add("garbage account id", r, grpc::StatusCode::INVALID_ARGUMENT, "seats[0].account_id");
  r = good;
  r.mutable_seats(1)->set_seat(-5);
  add("negative seat", r, grpc::StatusCode::INVALID_ARGUMENT, "seats[1].seat");
  r = good;
  r.mutable_placements(0)->set_rank(1000000);
  add("rank out of range", r, grpc::StatusCode::INVALID_ARGUMENT, "rank");
  r = good;
  r.mutable_seats(1)->set_team(-1);
  add("bad team", r, grpc::StatusCode::INVALID_ARGUMENT, "team");
  r = good;
  r.clear_finish_time();
  add("no finish time", r, grpc::StatusCode::INVALID_ARGUMENT, "finish_time");
  r = good;
  r.mutable_finish_time()->set_nanos(-1);
  add("bad timestamp", r, grpc::StatusCode::INVALID_ARGUMENT, "finish_time");
  r = good;
  r.mutable_finish_time()->set_seconds(absl::ToUnixSeconds(absl::Now()) + 86400);
  add("future finish", r, grpc::StatusCode::INVALID_ARGUMENT, "future");
  r = good;
  r.set_ladder("pict");
  add("wrong ladder", r, grpc::StatusCode::INVALID_ARGUMENT, "counts for \"pico\"");
  r = Game("g-seats", "pico", {1, 2, 3}, {1, 2, 3});
  add("three seats for pico", r, grpc::StatusCode::INVALID_ARGUMENT, "seats");
  r = Game("seed", "pico", {1, 2}, {2, 1});
  add("seed game with another result", r, grpc::StatusCode::FAILED_PRECONDITION,
      "different result");
  for (const Case& c : cases) {
    v1::ReportResultResponse out;
    grpc::Status s = internal_->ReportResult(With(c.token).get(), c.request, &out);
    EXPECT_EQ(s.error_code(), c.code) << c.name << ": " << s.error_message();
    EXPECT_THAT(s.error_message(), HasSubstr(c.message)) << c.name;
  }
  EXPECT_EQ(Digest(), before) << "a refused ReportResult changed the schema";

  auto expect = [&](const char* name, grpc::Status s, grpc::StatusCode code,
                    const std::string& message = "") {
    EXPECT_EQ(s.error_code(), code) << name << ": " << s.error_message();
    EXPECT_THAT(s.error_message(), HasSubstr(message)) << name;
  };
  {
    v1::GetRatingRequest q;
    v1::GetRatingResponse a;
    q.set_ladder("pico");
    expect("GetRating no account", ratings_->GetRating(With(player).get(), q, &a),
           grpc::StatusCode::INVALID_ARGUMENT, "account_id");
    q.set_account_id("zzz");
    expect("GetRating bad account", ratings_->GetRating(With(player).get(), q, &a),
           grpc::StatusCode::INVALID_ARGUMENT, "account_id");
    q.set_account_id(Account(1));
    q.set_ladder("nope");
    expect("GetRating unknown ladder", ratings_->GetRating(With(player).get(), q, &a),
           grpc::StatusCode::NOT_FOUND, "nope");
    q.set_ladder("pico");
    q.set_season_id("s9");
    expect("GetRating unknown season", ratings_->GetRating(With(player).get(), q, &a),
           grpc::StatusCode::NOT_FOUND, "s9");
    q.set_season_id("Bad Season!");
    expect("GetRating bad season", ratings_->GetRating(With(player).get(), q, &a),
           grpc::StatusCode::INVALID_ARGUMENT, "season_id");
    q.set_season_id("");
    expect("GetRating service token", ratings_->GetRating(With(service).get(), q, &a),
           grpc::StatusCode::UNAUTHENTICATED);
    expect("GetRating no token", ratings_->GetRating(With("").get(), q, &a),
           grpc::StatusCode::UNAUTHENTICATED);
  }
  {
    v1::GetMyRatingsRequest q;
    v1::GetMyRatingsResponse a;
    q.set_season_id("s9");
    expect("GetMyRatings unknown season", ratings_->GetMyRatings(With(player).get(), q, &a),
           grpc::StatusCode::NOT_FOUND);
  }
  {
    v1::GetLeaderboardRequest q;
    v1::GetLeaderboardResponse a;
    expect("GetLeaderboard no ladder", ratings_->GetLeaderboard(With(player).get(), q, &a),
           grpc::StatusCode::INVALID_ARGUMENT, "ladder");
    q.set_ladder("nope");
    expect("GetLeaderboard unknown ladder", ratings_->GetLeaderboard(With(player).get(), q, &a),
           grpc::StatusCode::NOT_FOUND);
    q.set_ladder("pico");
    q.set_page_size(-1);
    expect("GetLeaderboard page size", ratings_->GetLeaderboard(With(player).get(), q, &a),
           grpc::StatusCode::INVALID_ARGUMENT, "page_size");
    q.set_page_size(10000);
    expect("GetLeaderboard page size", ratings_->GetLeaderboard(With(player).get(), q, &a),
           grpc::StatusCode::INVALID_ARGUMENT, "page_size");
    q.set_page_size(10);
    q.set_page_token("garbage");
    expect("GetLeaderboard forged token", ratings_->GetLeaderboard(With(player).get(), q, &a),
           grpc::StatusCode::INVALID_ARGUMENT);
    // A genuine token of another query.
    v1::GetRatingHistoryRequest hq;
    hq.set_ladder("pico");
    hq.set_page_size(1);
    v1::GetRatingHistoryResponse ha;
    ASSERT_TRUE(ratings_->GetRatingHistory(With(player).get(), hq, &ha).ok());
    v1::ReportResultResponse more;
    ASSERT_TRUE(Report(Game("extra", "pico", {1, 3}, {1, 2}), &more, service).ok());
    ASSERT_TRUE(ratings_->GetRatingHistory(With(player).get(), hq, &ha).ok());
    ASSERT_FALSE(ha.next_page_token().empty());
    q.set_page_token(ha.next_page_token());
    expect("GetLeaderboard token of another query",
           ratings_->GetLeaderboard(With(player).get(), q, &a), grpc::StatusCode::INVALID_ARGUMENT);
    hq.set_page_token(ha.next_page_token());
    hq.set_ladder("pict");
    expect("GetRatingHistory token of another ladder",
           ratings_->GetRatingHistory(With(player).get(), hq, &ha),
           grpc::StatusCode::INVALID_ARGUMENT);
    hq.set_ladder("pico");
    hq.set_page_size(201);
    expect("GetRatingHistory page size", ratings_->GetRatingHistory(With(player).get(), hq, &ha),
           grpc::StatusCode::INVALID_ARGUMENT, "page_size");
    hq.set_page_size(1);
    hq.set_account_id("not-an-id");
    hq.clear_page_token();
    expect("GetRatingHistory bad account", ratings_->GetRatingHistory(With(player).get(), hq, &ha),
           grpc::StatusCode::INVALID_ARGUMENT, "account_id");
  }
  {
    v1::GetLeaderboardAroundMeRequest q;
    v1::GetLeaderboardAroundMeResponse a;
    q.set_ladder("pico");
    q.set_before(101);
    expect("AroundMe before", ratings_->GetLeaderboardAroundMe(With(player).get(), q, &a),
           grpc::StatusCode::INVALID_ARGUMENT, "before");
    q.set_before(1);
    q.set_after(-1);
    expect("AroundMe after", ratings_->GetLeaderboardAroundMe(With(player).get(), q, &a),
           grpc::StatusCode::INVALID_ARGUMENT);
    q.set_after(1);
    q.set_ladder("nope");
    expect("AroundMe ladder", ratings_->GetLeaderboardAroundMe(With(player).get(), q, &a),
           grpc::StatusCode::NOT_FOUND);
  }
  {
    v1::BatchGetRatingsRequest q;
    v1::BatchGetRatingsResponse a;
    q.set_ladder("pico");
    q.add_account_ids(Account(1));
    expect("Batch player token", internal_->BatchGetRatings(With(player).get(), q, &a),
           grpc::StatusCode::PERMISSION_DENIED);
    for (int i = 0; i < 101; ++i) q.add_account_ids(Account(i));
    expect("Batch too many", internal_->BatchGetRatings(With(service).get(), q, &a),
           grpc::StatusCode::INVALID_ARGUMENT, "100");
    q.clear_account_ids();
    q.add_account_ids("x");
    expect("Batch bad id", internal_->BatchGetRatings(With(service).get(), q, &a),
           grpc::StatusCode::INVALID_ARGUMENT, "account_id");
  }
  // Refused reads change nothing either (the one good report above, "extra", is the only change).
  const std::string after = Digest();
  v1::ReportResultResponse replay;
  ASSERT_TRUE(Report(Game("extra", "pico", {1, 3}, {1, 2}), &replay, service).ok());
  EXPECT_TRUE(replay.replayed());
  EXPECT_EQ(Digest(), after);
}

}  // namespace
}  // namespace parlor::ratings
