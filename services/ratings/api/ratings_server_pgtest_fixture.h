#ifndef PARLOR_SERVICES_RATINGS_API_RATINGS_SERVER_PGTEST_FIXTURE_H_
#define PARLOR_SERVICES_RATINGS_API_RATINGS_SERVER_PGTEST_FIXTURE_H_

// A ratings server on a fresh PostgreSQL database, called through a real gRPC client channel with
// real tokens: the fixture of the ratings service's end-to-end pgtests.
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "gtest/gtest.h"
#include "parlor/ratings/v1/ratings.grpc.pb.h"
#include "services/common/core/token.h"
#include "services/common/testing/test_server.h"
#include "services/ratings/ratings_server.h"
#include "tests/pg/pg_test_database.h"

namespace parlor::ratings {

inline std::string TestAccount(int i) {
  return absl::StrFormat("00000000-0000-4000-8000-%012d", i);
}

class RatingsServerPgTest : public parlor::testing::PgTest {
 protected:
  static constexpr char kPageTokenSecret[] = "test-secret";

  void SetUp() override {
    PgTest::SetUp();
    config_.page_token_secret = kPageTokenSecret;
    config_.refresh_boards = false;
    ladders_ = std::make_unique<model::LadderRegistry>(ConfiguredLadders(config_));
    auto started = parlor::testing::TestServer::Start(
        RatingsIdentity(), parlor::testing::TestServerConfig(db_url(), keys_),
        [this](ServiceHost& host) {
          return InstallRatings(
              host, config_, ladders_.get(), [clock = clock_] { return *clock; }, &domain_);
        });
    ASSERT_TRUE(started.ok()) << started.status();
    server_ = *std::move(started);
    ratings_ = v1::RatingsService::NewStub(server_->channel());
    internal_ = v1::RatingsInternalService::NewStub(server_->channel());
  }

  void TearDown() override { server_.reset(); }

  static std::unique_ptr<grpc::ClientContext> With(const std::string& token) {
    return parlor::testing::Bearer(token, absl::Seconds(10));
  }
  std::string ServiceToken(absl::Time issued = absl::Now()) {
    return keys_.ServiceToken("sessions", issued);
  }
  std::string PlayerToken(int i, absl::Time issued = absl::Now()) {
    return keys_.PlayerToken(TestAccount(i), issued);
  }
  std::string Digest() {
    absl::StatusOr<std::string> d = parlor::testing::SchemaContentDigest(db_url(), "ratings");
    EXPECT_TRUE(d.ok()) << d.status();
    return d.value_or("");
  }

  // A ranked game of `game` with players[s] in seat s (each its own team) placed ranks[s].
  v1::ReportResultRequest Game(const std::string& game_id, const std::string& game,
                               std::vector<int> players, std::vector<int> ranks) {
    v1::ReportResultRequest r;
    r.set_game_id(game_id);
    r.set_game(game);
    r.set_ranked(true);
    for (size_t s = 0; s < players.size(); ++s) {
      v1::ResultSeat* seat = r.add_seats();
      seat->set_seat(static_cast<int>(s));
      seat->set_account_id(TestAccount(players[s]));
      seat->set_team(static_cast<int>(s));
      v1::Placement* p = r.add_placements();
      p->set_account_id(TestAccount(players[s]));
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
  parlor::testing::TestKeys keys_;
  RatingsConfig config_;
  std::unique_ptr<model::LadderRegistry> ladders_;
  std::unique_ptr<parlor::testing::TestServer> server_;
  RatingsService* domain_ = nullptr;
  std::unique_ptr<v1::RatingsService::Stub> ratings_;
  std::unique_ptr<v1::RatingsInternalService::Stub> internal_;
};

}  // namespace parlor::ratings

#endif  // PARLOR_SERVICES_RATINGS_API_RATINGS_SERVER_PGTEST_FIXTURE_H_
