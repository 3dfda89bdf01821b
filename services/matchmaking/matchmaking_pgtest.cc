// Integration tests on a real PostgreSQL (one fresh database per test): the matchmaking domain
// and store, two replicas racing, and the gRPC API of an in-process matchmaking server next to a
// real in-process accounts server (invitee lookups, player tokens).
#include <atomic>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "engine/games/all_games.h"
#include "gmock/gmock.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "gtest/gtest.h"
#include "parlor/accounts/v1/accounts.grpc.pb.h"
#include "parlor/matchmaking/v1/matchmaking.grpc.pb.h"
#include "parlor/ratings/v1/ratings.grpc.pb.h"
#include "pqxx/pqxx"
#include "services/accounts/accounts_server.h"
#include "services/accounts/testing/accounts_test_server.h"
#include "services/common/testing/status_matchers.h"
#include "services/common/testing/test_server.h"
#include "services/matchmaking/api/clients.h"
#include "services/matchmaking/matchmaking_server.h"
#include "services/matchmaking/store/pg_matchmaking_store.h"
#include "services/matchmaking/store/sql.h"
#include "services/ratings/ratings_server.h"
#include "services/sessions/sessions_server.h"
#include "tests/pg/pg_test_database.h"

namespace parlor::matchmaking {
namespace {

using ::parlor::testing::IsOk;
using ::parlor::testing::IsOkAndHolds;
using ::parlor::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::SizeIs;

// The injected clock starts at the real time: tokens minted by the real accounts server and
// checked by the servers' own clocks must agree with it.
using TestClock = ::parlor::testing::ManualClock;

// Ratings by account, for tests of the window arithmetic alone (RealRatingsServiceDecidesWindows
// runs the same against a real ratings server).
class TableRatingSource final : public RatingSource {
 public:
  absl::StatusOr<double> Rating(const std::string& account_id, const std::string&) override {
    auto it = ratings.find(account_id);
    return it == ratings.end() ? 1500.0 : it->second;
  }
  std::map<std::string, double> ratings;
};

// One matchmaking replica built directly on the domain (its own connection pool).
struct Replica {
  std::unique_ptr<DbPool> pool;
  std::unique_ptr<MatchmakingStore> store;
  std::unique_ptr<MatchmakingService> service;
};

class MatchmakingPgTest : public parlor::testing::PgTest {
 protected:
  void SetUp() override {
    PgTest::SetUp();
    // Real accounts server (invitee lookups, display names, player tokens).
    {
      auto started = accounts::StartTestAccounts(db_url(), keys_, {},
                                                 [clock = clock_] { return clock->Now(); });
      ASSERT_TRUE(started.ok()) << started.status();
      accounts_ = *std::move(started);
      accounts_stub_ = accounts::v1::AccountsService::NewStub(accounts_->channel());
    }
    // Real matchmaking server; its background loop is off so tests drive passes explicitly.
    {
      ServerConfig server = parlor::testing::TestServerConfig(db_url(), keys_);
      config_.service_token_private_key = keys_.service().private_key;
      config_.accounts_address = accounts_->address();
      config_.sessions_address = "127.0.0.1:1";  // no sessions server in these tests
      config_.matcher_interval = absl::ZeroDuration();
      config_.watch_poll_interval = absl::Milliseconds(100);
      ASSERT_THAT(FinalizeMatchmakingConfig(config_, server), IsOk());
      auto started = parlor::testing::TestServer::Start(
          MatchmakingIdentity(), server, [this](ServiceHost& host) {
            return InstallMatchmaking(
                host, config_, [clock = clock_] { return clock->Now(); }, &service_);
          });
      ASSERT_TRUE(started.ok()) << started.status();
      matchmaking_ = *std::move(started);
      stub_ = v1::MatchmakingService::NewStub(matchmaking_->channel());
    }
    tokens_ = std::make_unique<auth::ServiceTokenSource>(
        *auth::TokenSigner::Create(auth::TokenKind::kService, keys_.service().private_key),
        "matchmaking");
    directory_ = std::make_unique<GrpcAccountDirectory>(
        grpc::CreateChannel(config_.accounts_address, grpc::InsecureChannelCredentials()),
        tokens_.get());
  }

  // Starts a real sessions server on the same database; returns its address.
  std::string StartSessions() {
    sessions::SessionsConfig config;
    config.page_token_secret = "matchmaking-test-page-secret";
    config.sweep_interval = absl::ZeroDuration();
    config.dispatch_interval = absl::ZeroDuration();
    auto started = parlor::testing::TestServer::Start(
        sessions::SessionsIdentity(), parlor::testing::TestServerConfig(db_url(), keys_),
        [&](ServiceHost& host) {
          return sessions::InstallSessions(host, config, [clock = clock_] { return clock->Now(); });
        });
    EXPECT_TRUE(started.ok()) << started.status();
    if (!started.ok()) return "";
    sessions_ = *std::move(started);
    return sessions_->address();
  }

  // Starts a real ratings server on the same database; returns its address.
  std::string StartRatings() {
    ratings::RatingsConfig config;
    config.page_token_secret = "matchmaking-test-ratings-secret";
    config.refresh_boards = false;
    ladders_ = std::make_unique<ratings::model::LadderRegistry>(ratings::ConfiguredLadders(config));
    auto started = parlor::testing::TestServer::Start(
        ratings::RatingsIdentity(), parlor::testing::TestServerConfig(db_url(), keys_),
        [&](ServiceHost& host) { return ratings::InstallRatings(host, config, ladders_.get()); });
    EXPECT_TRUE(started.ok()) << started.status();
    if (!started.ok()) return "";
    ratings_ = *std::move(started);
    return ratings_->address();
  }

  // Each server shuts down before what it installed is released (TestServer's order), the
  // callers before the servers they call.
  void TearDown() override {
    ratings_.reset();
    sessions_.reset();
    matchmaking_.reset();
    accounts_.reset();
  }

  // A replica of the domain with its own pool, sharing the test clock.
  Replica MakeReplica(RatingSource* ratings = nullptr, GameCreator* games = nullptr,
                      MatchmakingOptions options = {}, RecordSource* records = nullptr) {
    Replica r;
    r.pool = std::make_unique<DbPool>(DbOptions{.url = db_url(), .max_connections = 4}, nullptr);
    r.store = std::make_unique<PgMatchmakingStore>(r.pool.get());
    r.service = std::make_unique<MatchmakingService>(
        MatchmakingService::Deps{.store = r.store.get(),
                                 .catalog = &catalog_,
                                 .ratings = ratings != nullptr ? ratings : &default_ratings_,
                                 .accounts = directory_.get(),
                                 .games = games,
                                 .metrics = nullptr,
                                 .clock = [clock = clock_] { return clock->Now(); },
                                 .blocks = directory_.get(),
                                 .records = records},
        options);
    return r;
  }

  // Signs a device in through the real accounts service: (account id, access token).
  std::pair<std::string, std::string> SignIn(const std::string& device) {
    accounts::v1::AuthenticateDeviceRequest request;
    request.set_device_id(device);
    accounts::v1::AuthenticateDeviceResponse response;
    grpc::ClientContext context;
    grpc::Status status = accounts_stub_->AuthenticateDevice(&context, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return {response.account().account_id(), response.tokens().access_token()};
  }

  std::string Digest() {
    absl::StatusOr<std::string> digest =
        parlor::testing::SchemaContentDigest(db_url(), "matchmaking");
    EXPECT_TRUE(digest.ok()) << digest.status();
    return digest.value_or("");
  }

  // The pages `statement` reads with these parameters (parlor::testing::ExplainAnalyze).
  template <typename... Params>
  std::optional<int64_t> PagesRead(const std::string& statement, const Params&... params) {
    return parlor::testing::PagesReadByPlan(
        parlor::testing::ExplainAnalyze(db_url(), statement, params...));
  }

  int64_t Count(const std::string& query) {
    pqxx::connection c(db_url());
    pqxx::work txn(c);
    return txn.exec1(query)[0].as<int64_t>();
  }

  std::shared_ptr<TestClock> clock_ = std::make_shared<TestClock>();
  engine::Registry registry_ = engine::AllGames();
  GameCatalog catalog_{&registry_};
  DefaultRatingSource default_ratings_;
  parlor::testing::TestKeys keys_;
  MatchmakingConfig config_;
  std::unique_ptr<parlor::testing::TestServer> accounts_;
  std::unique_ptr<accounts::v1::AccountsService::Stub> accounts_stub_;
  std::unique_ptr<parlor::testing::TestServer> matchmaking_;
  std::unique_ptr<parlor::testing::TestServer> sessions_;
  std::unique_ptr<ratings::model::LadderRegistry> ladders_;
  std::unique_ptr<parlor::testing::TestServer> ratings_;
  MatchmakingService* service_ = nullptr;
  std::unique_ptr<v1::MatchmakingService::Stub> stub_;
  std::unique_ptr<auth::ServiceTokenSource> tokens_;
  std::unique_ptr<GrpcAccountDirectory> directory_;
};

EnqueueInput Input(std::string game, bool ranked, std::vector<int> counts = {},
                   std::map<std::string, std::string> options = {}) {
  EnqueueInput input;
  input.game = std::move(game);
  input.options = std::move(options);
  input.ranked = ranked;
  input.player_counts = std::move(counts);
  return input;
}

ChallengeInput Invite(std::string game, std::vector<std::string> invitees) {
  ChallengeInput input;
  input.game = std::move(game);
  input.invitees = std::move(invitees);
  input.create_invite_code = input.invitees.empty();
  return input;
}

// Two matches of `first` and `second`, waiting for their games: one from the ranked Pico queue,
// one from an accepted challenge to `challenge_game`.
void MatchByQueueAndChallenge(Replica& r, const std::string& first, const std::string& second,
                              const std::string& challenge_game) {
  ASSERT_THAT(r.service->Enqueue(first, Input("pico", true)), IsOk());
  ASSERT_THAT(r.service->Enqueue(second, Input("pico", true)), IsOk());
  absl::StatusOr<PassStats> pass = r.service->RunMatcherPass();
  ASSERT_THAT(pass, IsOk());
  ASSERT_EQ(pass->matches, 1);
  absl::StatusOr<ChallengeRow> challenge =
      r.service->Challenge(first, Invite(challenge_game, {second}));
  ASSERT_THAT(challenge, IsOk());
  ASSERT_THAT(r.service->AcceptChallenge(second, challenge->challenge_id, ""), IsOk());
}

TEST_F(MatchmakingPgTest, TwoReplicasRacingOver1000TicketsMatchEachExactlyOnce) {
  Replica a = MakeReplica();
  Replica b = MakeReplica();
  // Four pools: pico casual/ranked, pict casual, kadice 3-4 players.
  for (int i = 0; i < 1000; ++i) {
    const std::string player = absl::StrFormat("player-%04d", i);
    EnqueueInput input = i % 4 == 0   ? Input("pico", false)
                         : i % 4 == 1 ? Input("pico", true)
                         : i % 4 == 2 ? Input("pict", false)
                                      : Input("kadice", false, {3, 4});
    ASSERT_THAT((i % 2 == 0 ? a : b).service->Enqueue(player, input), IsOk()) << i;
  }
  clock_->Advance(absl::Minutes(2));  // kadice tickets may now take tables of 3
  std::atomic<bool> go{false};
  std::atomic<int> failures{0};
  auto run = [&](Replica* r) {
    while (!go) std::this_thread::yield();
    for (int pass = 0; pass < 20; ++pass) {
      if (!r->service->RunMatcherPass().ok()) ++failures;
    }
  };
  std::thread ta(run, &a), tb(run, &b);
  go = true;
  ta.join();
  tb.join();
  EXPECT_EQ(failures, 0);
  // Every ticket matched, exactly once, by exactly one match; every player seated once.
  EXPECT_EQ(Count("SELECT count(*) FROM matchmaking.tickets WHERE state = 'matched'"), 998);
  EXPECT_EQ(Count("SELECT count(*) FROM matchmaking.tickets WHERE state = 'waiting'"), 2);
  EXPECT_EQ(Count("SELECT coalesce(sum(cardinality(seat_accounts)), 0) FROM matchmaking.matches"),
            998);
  EXPECT_EQ(Count("SELECT count(*) FROM (SELECT a FROM matchmaking.matches, "
                  "unnest(seat_accounts) a GROUP BY a HAVING count(*) > 1) d"),
            0);
  EXPECT_EQ(Count("SELECT count(*) FROM matchmaking.tickets t JOIN matchmaking.matches m "
                  "USING (match_id) WHERE NOT t.owner_id = ANY(m.seat_accounts)"),
            0);
  // The two left over hold their players' places; a seated player's place is taken again by
  // their next Enqueue (the claim leaves the flag, the Enqueue clears it).
  EXPECT_EQ(Count("SELECT count(*) FROM matchmaking.ticket_players p JOIN matchmaking.tickets t "
                  "USING (ticket_id) WHERE p.waiting AND t.state = 'waiting'"),
            2);
  pqxx::connection conn(db_url());
  const std::string seated = pqxx::nontransaction(conn)
                                 .exec1(
                                     "SELECT owner_id FROM matchmaking.tickets "
                                     "WHERE state = 'matched' ORDER BY owner_id LIMIT 1")[0]
                                 .as<std::string>();
  EXPECT_THAT(a.service->Enqueue(seated, Input("pico", false)), IsOk());
}

TEST_F(MatchmakingPgTest, RatingWindowWidensAsTheInjectedClockMoves) {
  TableRatingSource ratings;
  ratings.ratings = {{"low", 1400}, {"high", 1700}};
  Replica r = MakeReplica(&ratings);
  ASSERT_THAT(r.service->Enqueue("low", Input("pico", true)), IsOk());
  ASSERT_THAT(r.service->Enqueue("high", Input("pico", true)), IsOk());
  // 300 apart: the window is ±100, ±150 after 1 minute, ±250 after 3, ±300 after 4.
  for (int minute : {0, 1, 3}) {
    clock_->micros = absl::ToUnixMicros(clock_->start + absl::Minutes(minute));
    absl::StatusOr<PassStats> pass = r.service->RunMatcherPass();
    ASSERT_THAT(pass, IsOk());
    EXPECT_EQ(pass->matches, 0) << "minute " << minute;
  }
  clock_->micros = absl::ToUnixMicros(clock_->start + absl::Minutes(4));
  absl::StatusOr<PassStats> pass = r.service->RunMatcherPass();
  ASSERT_THAT(pass, IsOk());
  EXPECT_EQ(pass->matches, 1);
  EXPECT_EQ(Count("SELECT count(*) FROM matchmaking.matches WHERE rating_spread = 300"), 1);
}

TEST_F(MatchmakingPgTest, LadderOfATicketIsTheRatingsServiceLadder) {
  auto ladder = [&](const std::string& game, std::vector<int> counts,
                    std::map<std::string, std::string> options = {}) {
    absl::StatusOr<GameCatalog::Validated> v = catalog_.Validate(game, options, counts);
    EXPECT_THAT(v, IsOk());
    return v.ok() ? LadderFor(game, v->seat_teams) : std::string();
  };
  EXPECT_EQ(ladder("pico", {}), "pico");
  EXPECT_EQ(ladder("picadice", {2}), "picadice-duel");
  EXPECT_EQ(ladder("picadice", {3, 4}), "picadice-multi");
  EXPECT_EQ(ladder("picadice", {4}, {{"team_play", "true"}}), "picadice-doubles");
  EXPECT_EQ(ladder("pescado", {2}), "pescado");
}

// Ratings stored by a real in-process ratings server (one reported pico game) decide the window.
TEST_F(MatchmakingPgTest, RealRatingsServiceDecidesWindows) {
  const std::string address = StartRatings();
  ASSERT_FALSE(address.empty());
  const std::string winner = "00000000-0000-4000-8000-000000000001";
  const std::string loser = "00000000-0000-4000-8000-000000000002";
  const std::string newcomer = "00000000-0000-4000-8000-000000000003";
  ratings::v1::ReportResultRequest report;
  report.set_game_id("00000000-0000-4000-8000-0000000000aa");
  report.set_game("pico");
  report.set_ranked(true);
  for (int seat = 0; seat < 2; ++seat) {
    ratings::v1::ResultSeat* s = report.add_seats();
    s->set_seat(seat);
    s->set_account_id(seat == 0 ? winner : loser);
    s->set_team(seat);
    ratings::v1::Placement* p = report.add_placements();
    p->set_account_id(seat == 0 ? winner : loser);
    p->set_rank(seat + 1);
  }
  report.mutable_finish_time()->set_seconds(absl::ToUnixSeconds(absl::Now()) - 60);
  auto internal = ratings::v1::RatingsInternalService::NewStub(
      grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
  ratings::v1::ReportResultResponse reported;
  {
    grpc::ClientContext context;
    context.AddMetadata("authorization", absl::StrCat("Bearer ", *tokens_->Token(absl::Now())));
    grpc::Status status = internal->ReportResult(&context, report, &reported);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }
  ASSERT_THAT(reported.changes(), SizeIs(2));
  std::map<std::string, double> stored;
  for (const auto& change : reported.changes()) stored[change.account_id()] = change.rating_after();
  const double spread = stored[winner] - stored[loser];
  ASSERT_GT(spread, 250);  // about 1662 vs 1338: far outside the ±100 window at minute 0

  GrpcRatingSource source(grpc::CreateChannel(address, grpc::InsecureChannelCredentials()),
                          tokens_.get());
  EXPECT_THAT(source.Rating(winner, "pico"), IsOkAndHolds(stored[winner]));
  EXPECT_THAT(source.Rating(newcomer, "pico"), IsOkAndHolds(1500.0));         // never played
  EXPECT_THAT(source.Rating(winner, "picadice-duel"), IsOkAndHolds(1500.0));  // other ladder
  EXPECT_THAT(source.Rating(winner, "kadice"), IsOkAndHolds(1500.0));  // Weng-Lin μ 25, scaled

  Replica r = MakeReplica(&source);
  absl::StatusOr<TicketRow> high = r.service->Enqueue(winner, Input("pico", true));
  ASSERT_THAT(high, IsOk());
  EXPECT_DOUBLE_EQ(high->rating, stored[winner]);
  ASSERT_THAT(r.service->Enqueue(loser, Input("pico", true)), IsOk());
  // ±100 at minute 0, +50 a minute: the two fit once 100 + 50·m ≥ spread.
  const int fits = static_cast<int>(std::ceil((spread - 100) / 50));
  for (int minute : {0, fits - 1}) {
    clock_->micros = absl::ToUnixMicros(clock_->start + absl::Minutes(minute));
    absl::StatusOr<PassStats> pass = r.service->RunMatcherPass();
    ASSERT_THAT(pass, IsOk());
    EXPECT_EQ(pass->matches, 0) << "minute " << minute;
  }
  clock_->micros = absl::ToUnixMicros(clock_->start + absl::Minutes(fits));
  absl::StatusOr<PassStats> pass = r.service->RunMatcherPass();
  ASSERT_THAT(pass, IsOk());
  EXPECT_EQ(pass->matches, 1);

  // Ratings unreachable: a ranked ticket is refused (retryable), never given a made-up rating.
  GrpcRatingSource down(grpc::CreateChannel("127.0.0.1:1", grpc::InsecureChannelCredentials()),
                        tokens_.get());
  Replica broken = MakeReplica(&down);
  EXPECT_THAT(broken.service->Enqueue(newcomer, Input("pico", true)),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("ratings")));
}

TEST_F(MatchmakingPgTest, PartyTicketsStayTogetherAsOneTeam) {
  Replica r = MakeReplica();
  absl::StatusOr<PartyRow> party = r.service->CreateParty("lead", 2);
  ASSERT_THAT(party, IsOk());
  ASSERT_THAT(r.service->JoinParty("mate", party->code), IsOk());
  const std::map<std::string, std::string> doubles = {{"team_play", "true"}};
  EnqueueInput input = Input("picadice", true, {4}, doubles);
  input.party_id = party->party_id;
  absl::StatusOr<TicketRow> ticket = r.service->Enqueue("lead", input);
  ASSERT_THAT(ticket, IsOk());
  EXPECT_THAT(ticket->members, ElementsAre("lead", "mate"));
  // The member cannot queue alone for the same game and mode meanwhile.
  EXPECT_THAT(r.service->Enqueue("mate", Input("picadice", true, {4}, doubles)),
              StatusIs(absl::StatusCode::kAlreadyExists, HasSubstr("already")));
  ASSERT_THAT(r.service->Enqueue("solo1", Input("picadice", true, {4}, doubles)), IsOk());
  absl::StatusOr<PassStats> pass = r.service->RunMatcherPass();
  ASSERT_THAT(pass, IsOk());
  EXPECT_EQ(pass->matches, 0);  // three players cannot fill a table of four
  ASSERT_THAT(r.service->Enqueue("solo2", Input("picadice", true, {4}, doubles)), IsOk());
  pass = r.service->RunMatcherPass();
  ASSERT_THAT(pass, IsOk());
  ASSERT_EQ(pass->matches, 1);
  absl::StatusOr<TicketRow> matched = r.service->GetTicket("mate", ticket->ticket_id);
  ASSERT_THAT(matched, IsOk());
  EXPECT_EQ(matched->state, TicketState::kMatched);
  absl::StatusOr<MatchRow> match = r.store->GetMatch(matched->match_id);
  ASSERT_THAT(match, IsOk());
  ASSERT_THAT(match->seat_accounts, SizeIs(4));
  std::map<std::string, int> team;
  for (size_t s = 0; s < 4; ++s) team[match->seat_accounts[s]] = match->seat_teams[s];
  EXPECT_EQ(team["lead"], team["mate"]);
  EXPECT_EQ(team["solo1"], team["solo2"]);
  EXPECT_NE(team["lead"], team["solo1"]);
}

TEST_F(MatchmakingPgTest, CancelledAndExpiredTicketsNeverMatch) {
  Replica r = MakeReplica();
  absl::StatusOr<TicketRow> cancelled = r.service->Enqueue("a", Input("pico", false));
  ASSERT_THAT(cancelled, IsOk());
  ASSERT_THAT(r.service->CancelTicket("a", cancelled->ticket_id), IsOk());
  // Cancelling twice answers the same; a cancelled ticket frees the slot for a new one.
  ASSERT_THAT(r.service->CancelTicket("a", cancelled->ticket_id), IsOk());
  absl::StatusOr<TicketRow> lonely = r.service->Enqueue("b", Input("pico", false));
  ASSERT_THAT(lonely, IsOk());
  absl::StatusOr<PassStats> pass = r.service->RunMatcherPass();
  ASSERT_THAT(pass, IsOk());
  EXPECT_EQ(pass->matches, 0);
  // 24 hours later b's ticket expires; fresh tickets then match each other, never b.
  clock_->Advance(absl::Hours(24));
  ASSERT_THAT(r.service->Enqueue("c", Input("pico", false)), IsOk());
  ASSERT_THAT(r.service->Enqueue("d", Input("pico", false)), IsOk());
  pass = r.service->RunMatcherPass();
  ASSERT_THAT(pass, IsOk());
  EXPECT_EQ(pass->tickets_expired, 1);
  EXPECT_EQ(pass->matches, 1);
  absl::StatusOr<TicketRow> b = r.service->GetTicket("b", lonely->ticket_id);
  ASSERT_THAT(b, IsOk());
  EXPECT_EQ(b->state, TicketState::kExpired);
  absl::StatusOr<TicketRow> a = r.service->GetTicket("a", cancelled->ticket_id);
  ASSERT_THAT(a, IsOk());
  EXPECT_EQ(a->state, TicketState::kCancelled);
  EXPECT_THAT(r.service->CancelTicket("b", lonely->ticket_id),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("expired")));
  EXPECT_EQ(Count("SELECT count(*) FROM matchmaking.matches m, unnest(m.seat_accounts) s "
                  "WHERE s IN ('a', 'b')"),
            0);
}

// The pass plans on an unlocked read; what changed between the read and the claim decides. A
// match whose ticket was cancelled meanwhile is not written and its partner keeps waiting; a
// ticket another transaction holds (a cancel in progress) is skipped at once, never waited for.
TEST_F(MatchmakingPgTest, ClaimWritesOnlyMatchesWhoseTicketsAreAllStillFree) {
  Replica r = MakeReplica();
  absl::StatusOr<TicketRow> a = r.service->Enqueue("a", Input("pico", false));
  absl::StatusOr<TicketRow> b = r.service->Enqueue("b", Input("pico", false));
  absl::StatusOr<TicketRow> c = r.service->Enqueue("c", Input("pico", false));
  absl::StatusOr<TicketRow> d = r.service->Enqueue("d", Input("pico", false));
  ASSERT_THAT(a, IsOk());
  ASSERT_THAT(b, IsOk());
  ASSERT_THAT(c, IsOk());
  ASSERT_THAT(d, IsOk());
  const PoolKey pool{a->game, a->options, false};
  absl::StatusOr<std::vector<TicketRow>> tickets = r.store->LoadPool(pool, clock_->Now());
  ASSERT_THAT(tickets, IsOk());
  // All four were enqueued at the same instant of the injected clock, so the pool's order among
  // them is the ticket ids' (random); plans name tickets by owner.
  ASSERT_THAT(*tickets, SizeIs(4));
  auto index_of = [&](const std::string& owner) {
    for (size_t i = 0; i < tickets->size(); ++i) {
      if ((*tickets)[i].owner_id == owner) return i;
    }
    ADD_FAILURE() << "no ticket of " << owner << " in the pool";
    return size_t{0};
  };
  auto plan = [&](const std::string& first, const std::string& second) {
    return PlannedMatch{.tickets = {index_of(first), index_of(second)},
                        .seat_accounts = {first, second},
                        .seat_teams = {0, 1},
                        .rating_spread = 0};
  };
  // b is cancelled after the read; d is being cancelled (its row locked) during the claim.
  ASSERT_THAT(r.service->CancelTicket("b", b->ticket_id), IsOk());
  pqxx::connection other(db_url());
  pqxx::work holding(other);
  holding.exec_params("SELECT 1 FROM matchmaking.tickets WHERE ticket_id = $1::uuid FOR UPDATE",
                      d->ticket_id);
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<ClaimResult> claim =
      r.store->ClaimMatches(pool, *tickets, {plan("a", "b"), plan("c", "d")}, clock_->Now());
  ASSERT_THAT(claim, IsOk());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));  // did not wait
  EXPECT_FALSE(claim->skipped);
  EXPECT_TRUE(claim->careful);  // the one-statement claim met the held row and gave way
  EXPECT_THAT(claim->matches, SizeIs(0));
  holding.abort();
  EXPECT_EQ(Count("SELECT count(*) FROM matchmaking.matches"), 0);
  EXPECT_EQ(Count("SELECT count(*) FROM matchmaking.tickets WHERE state = 'waiting'"), 3);
  // The next claim of c with d (d now free) writes it; a waits for someone new.
  claim = r.store->ClaimMatches(pool, *tickets, {plan("c", "d")}, clock_->Now());
  ASSERT_THAT(claim, IsOk());
  ASSERT_THAT(claim->matches, SizeIs(1));
  EXPECT_THAT(claim->matches[0].seat_accounts, ElementsAre("c", "d"));
  absl::StatusOr<TicketRow> c_now = r.service->GetTicket("c", c->ticket_id);
  ASSERT_THAT(c_now, IsOk());
  EXPECT_EQ(c_now->state, TicketState::kMatched);
  EXPECT_EQ(c_now->match_id, claim->matches[0].match_id);
  absl::StatusOr<TicketRow> a_now = r.service->GetTicket("a", a->ticket_id);
  ASSERT_THAT(a_now, IsOk());
  EXPECT_EQ(a_now->state, TicketState::kWaiting);
  // Claiming the same match again writes nothing (its tickets are no longer waiting).
  claim = r.store->ClaimMatches(pool, *tickets, {plan("c", "d")}, clock_->Now());
  ASSERT_THAT(claim, IsOk());
  EXPECT_THAT(claim->matches, SizeIs(0));
  EXPECT_EQ(Count("SELECT count(*) FROM matchmaking.matches"), 1);
  // Seated c and d may queue again at once; waiting a still may not.
  EXPECT_THAT(r.service->Enqueue("c", Input("pico", false)), IsOk());
  EXPECT_THAT(r.service->Enqueue("d", Input("pico", false)), IsOk());
  EXPECT_THAT(r.service->Enqueue("a", Input("pico", false)),
              StatusIs(absl::StatusCode::kAlreadyExists, HasSubstr("already have")));
  EXPECT_EQ(Count("SELECT count(*) FROM matchmaking.ticket_players p JOIN matchmaking.tickets t "
                  "USING (ticket_id) WHERE p.waiting AND t.state <> 'waiting'"),
            0);
}

// The claim finds a ticket where the pass read it. A ticket whose row changed after the read
// (here its block list, as forgetting a deleted account does) is not there any more: its match
// waits for the next pass, which reads it afresh and seats it.
TEST_F(MatchmakingPgTest, ClaimLeavesATicketChangedSinceTheReadToTheNextPass) {
  Replica r = MakeReplica();
  absl::StatusOr<TicketRow> a = r.service->Enqueue("a", Input("pico", false));
  absl::StatusOr<TicketRow> b = r.service->Enqueue("b", Input("pico", false));
  ASSERT_THAT(a, IsOk());
  ASSERT_THAT(b, IsOk());
  const PoolKey pool{a->game, a->options, false};
  auto pair = [](const std::vector<TicketRow>& tickets) {
    return PlannedMatch{.tickets = {0, 1},
                        .seat_accounts = {tickets[0].owner_id, tickets[1].owner_id},
                        .seat_teams = {0, 1},
                        .rating_spread = 0};
  };
  absl::StatusOr<std::vector<TicketRow>> read = r.store->LoadPool(pool, clock_->Now());
  ASSERT_THAT(read, IsOk());
  ASSERT_THAT(*read, SizeIs(2));
  pqxx::connection conn(db_url());
  pqxx::work change(conn);
  change.exec_params0("UPDATE matchmaking.tickets SET avoid = '{gone}' WHERE ticket_id = $1::uuid",
                      a->ticket_id);
  change.commit();
  absl::StatusOr<ClaimResult> claim =
      r.store->ClaimMatches(pool, *read, {pair(*read)}, clock_->Now());
  ASSERT_THAT(claim, IsOk());
  EXPECT_THAT(claim->matches, SizeIs(0));
  EXPECT_EQ(Count("SELECT count(*) FROM matchmaking.tickets WHERE state = 'waiting'"), 2);
  read = r.store->LoadPool(pool, clock_->Now());
  ASSERT_THAT(read, IsOk());
  ASSERT_THAT(*read, SizeIs(2));
  claim = r.store->ClaimMatches(pool, *read, {pair(*read)}, clock_->Now());
  ASSERT_THAT(claim, IsOk());
  EXPECT_THAT(claim->matches, SizeIs(1));
  EXPECT_EQ(Count("SELECT count(*) FROM matchmaking.tickets WHERE state = 'matched'"), 2);
}

// A pass takes its time when it begins, so it may read and seat tickets written after that: they
// are seated with their times in order (a ticket is never updated before it was created).
TEST_F(MatchmakingPgTest, APassSeatsTicketsWrittenAfterItBegan) {
  Replica r = MakeReplica();
  const absl::Time pass_began = clock_->Now();
  clock_->Advance(absl::Seconds(1));
  absl::StatusOr<TicketRow> a = r.service->Enqueue("a", Input("pico", false));
  absl::StatusOr<TicketRow> b = r.service->Enqueue("b", Input("pico", false));
  ASSERT_THAT(a, IsOk());
  ASSERT_THAT(b, IsOk());
  const PoolKey pool{a->game, a->options, false};
  absl::StatusOr<std::vector<TicketRow>> read = r.store->LoadPool(pool, pass_began);
  ASSERT_THAT(read, IsOk());
  ASSERT_THAT(*read, SizeIs(2));
  absl::StatusOr<ClaimResult> claim = r.store->ClaimMatches(
      pool, *read,
      {PlannedMatch{.tickets = {0, 1},
                    .seat_accounts = {(*read)[0].owner_id, (*read)[1].owner_id},
                    .seat_teams = {0, 1},
                    .rating_spread = 0}},
      pass_began);
  ASSERT_THAT(claim, IsOk());
  EXPECT_THAT(claim->matches, SizeIs(1));
  EXPECT_EQ(Count("SELECT count(*) FROM matchmaking.tickets WHERE state = 'matched' "
                  "AND update_time = create_time"),
            2);
}

TEST_F(MatchmakingPgTest, ChallengeFlowsFromInviteToMatch) {
  auto [alice, alice_token] = SignIn("device-alice");
  auto [bob, bob_token] = SignIn("device-bob");
  Replica r = MakeReplica();
  absl::StatusOr<ChallengeRow> challenge = r.service->Challenge(alice, Invite("pico", {bob}));
  ASSERT_THAT(challenge, IsOk());
  EXPECT_EQ(challenge->state, ChallengeState::kOpen);
  absl::StatusOr<std::vector<ChallengeRow>> bobs = r.service->ListMyChallenges(bob, 0);
  ASSERT_THAT(bobs, IsOk());
  ASSERT_THAT(*bobs, SizeIs(1));
  absl::StatusOr<ChallengeRow> accepted =
      r.service->AcceptChallenge(bob, challenge->challenge_id, "");
  ASSERT_THAT(accepted, IsOk());
  EXPECT_EQ(accepted->state, ChallengeState::kAccepted);
  ASSERT_FALSE(accepted->match_id.empty());
  absl::StatusOr<MatchRow> match = r.store->GetMatch(accepted->match_id);
  ASSERT_THAT(match, IsOk());
  EXPECT_THAT(match->seat_accounts, ElementsAre(alice, bob));
  EXPECT_EQ(match->source, "challenge");
  EXPECT_TRUE(match->game_id.empty());  // in the outbox until sessions creates the game
  // Accepting again is a no-op; declining an accepted challenge is refused.
  EXPECT_THAT(r.service->AcceptChallenge(bob, challenge->challenge_id, ""), IsOk());
  EXPECT_THAT(r.service->DeclineChallenge(bob, challenge->challenge_id),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("ended")));
  // By invite code: anyone with the code takes the free seat.
  absl::StatusOr<ChallengeRow> open = r.service->Challenge(alice, Invite("pict", {}));
  ASSERT_THAT(open, IsOk());
  ASSERT_EQ(open->invite_code.size(), 8u);
  absl::StatusOr<ChallengeRow> joined = r.service->AcceptChallenge(bob, "", open->invite_code);
  ASSERT_THAT(joined, IsOk());
  EXPECT_EQ(joined->state, ChallengeState::kAccepted);
  auto [carol, carol_token] = SignIn("device-carol");
  EXPECT_THAT(r.service->AcceptChallenge(carol, "", open->invite_code),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("already started")));
  // A challenge nobody answers expires after 72 hours.
  absl::StatusOr<ChallengeRow> ignored = r.service->Challenge(alice, Invite("pico", {carol}));
  ASSERT_THAT(ignored, IsOk());
  clock_->Advance(absl::Hours(72));
  ASSERT_THAT(r.service->RunMatcherPass(), IsOk());
  EXPECT_THAT(r.service->AcceptChallenge(carol, ignored->challenge_id, ""),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("expired")));
}

// The game-creation outbox against the real sessions service: while sessions is unreachable the
// matches wait (nothing is lost); once it answers, every queue and challenge match gets exactly
// one game, and repeating CreateGame for a match returns the same game (idempotent on match id).
TEST_F(MatchmakingPgTest, GamesAreCreatedFromTheOutboxOnceSessionsAnswers) {
  auto [alice, alice_token] = SignIn("device-alice");
  auto [bob, bob_token] = SignIn("device-bob");
  GrpcGameCreator::Settings settings;
  settings.timeout = absl::Seconds(2);
  GrpcGameCreator down(grpc::CreateChannel("127.0.0.1:1", grpc::InsecureChannelCredentials()),
                       tokens_.get(), directory_.get(), settings);
  Replica r = MakeReplica(nullptr, &down);
  ASSERT_NO_FATAL_FAILURE(MatchByQueueAndChallenge(r, alice, bob, "pict"));

  EXPECT_THAT(r.service->DeliverGames(), IsOkAndHolds(0));
  EXPECT_EQ(Count("SELECT count(*) FROM matchmaking.matches WHERE game_id IS NULL "
                  "AND attempts = 1 AND last_error IS NOT NULL"),
            2);

  const std::string address = StartSessions();
  ASSERT_FALSE(address.empty());
  GrpcGameCreator up(grpc::CreateChannel(address, grpc::InsecureChannelCredentials()),
                     tokens_.get(), directory_.get(), settings);
  Replica r2 = MakeReplica(nullptr, &up);
  EXPECT_THAT(r2.service->DeliverGames(), IsOkAndHolds(0));  // still backing off
  clock_->Advance(absl::Minutes(1));
  EXPECT_THAT(r2.service->DeliverGames(), IsOkAndHolds(2));
  EXPECT_THAT(r2.service->DeliverGames(), IsOkAndHolds(0));
  EXPECT_EQ(Count("SELECT count(*) FROM matchmaking.matches WHERE game_id IS NOT NULL"), 2);
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.games"), 2);

  absl::StatusOr<std::vector<TicketRow>> tickets = r2.service->ListMyTickets(bob, 0);
  ASSERT_THAT(tickets, IsOk());
  ASSERT_THAT(*tickets, SizeIs(1));
  EXPECT_EQ((*tickets)[0].state, TicketState::kMatched);
  EXPECT_FALSE((*tickets)[0].game_id.empty());
  absl::StatusOr<std::vector<ChallengeRow>> challenges = r2.service->ListMyChallenges(bob, 0);
  ASSERT_THAT(challenges, IsOk());
  ASSERT_THAT(*challenges, SizeIs(1));
  EXPECT_FALSE((*challenges)[0].game_id.empty());
  // A retry after a crash between CreateGame and recording its answer creates nothing new.
  absl::StatusOr<MatchRow> match = r2.store->GetMatch((*tickets)[0].match_id);
  ASSERT_THAT(match, IsOk());
  EXPECT_THAT(up.CreateGame(*match), IsOkAndHolds((*tickets)[0].game_id));
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.games"), 2);
}

// Recording a match's game touches the match's tickets and challenge by the match, not every
// ticket its players ever had: with a thousand earlier matches of the same two players (2,000
// tickets, 1,000 challenges), each touch reads a handful of pages.
TEST_F(MatchmakingPgTest, AMatchsGameIsRecordedOnItsTicketsWithoutReadingThePlayersHistory) {
  auto [alice, alice_token] = SignIn("device-alice");
  auto [bob, bob_token] = SignIn("device-bob");
  Replica r = MakeReplica();
  ASSERT_NO_FATAL_FAILURE(MatchByQueueAndChallenge(r, alice, bob, "pico"));
  pqxx::connection c(db_url());
  const auto match_of = [&c](const char* source) {
    pqxx::nontransaction txn(c);
    return txn
        .exec_params1("SELECT match_id::text FROM matchmaking.matches WHERE source = $1", source)[0]
        .as<std::string>();
  };
  const std::string queue_match = match_of("queue");
  const std::string challenge_match = match_of("challenge");
  {
    // The players' history: copies of both matches, their games created an hour after the
    // match, with the queue match's tickets and the challenge.
    pqxx::work txn(c);
    txn.exec0(
        "CREATE TEMP TABLE old AS SELECT m.match_id AS original, gen_random_uuid() AS copy, i "
        "FROM matchmaking.matches m, generate_series(1, 1000) i");
    txn.exec0(
        "INSERT INTO matchmaking.matches SELECT (jsonb_populate_record(m, jsonb_build_object("
        "'match_id', o.copy, 'game_id', 'old-' || o.copy, 'game_create_time', "
        "m.create_time + interval '1 hour'))).* "
        "FROM matchmaking.matches m JOIN old o ON o.original = m.match_id");
    txn.exec0(
        "INSERT INTO matchmaking.tickets SELECT (jsonb_populate_record(t, jsonb_build_object("
        "'ticket_id', gen_random_uuid(), 'match_id', o.copy))).* "
        "FROM matchmaking.tickets t JOIN old o ON o.original = t.match_id");
    txn.exec0(
        "INSERT INTO matchmaking.ticket_players SELECT t.ticket_id, t.owner_id, t.game, "
        "t.ranked, false FROM matchmaking.tickets t JOIN old o ON o.copy = t.match_id");
    txn.exec0(
        "INSERT INTO matchmaking.challenges SELECT (jsonb_populate_record(ch, jsonb_build_object("
        "'challenge_id', gen_random_uuid(), 'match_id', o.copy, 'invite_code', null))).* "
        "FROM matchmaking.challenges ch JOIN old o ON o.original = ch.match_id");
    txn.exec0("ANALYZE matchmaking.tickets, matchmaking.ticket_players, matchmaking.challenges");
    txn.commit();
  }
  ASSERT_EQ(Count("SELECT count(*) FROM matchmaking.ticket_players"), 2002);
  ASSERT_EQ(Count("SELECT count(*) FROM matchmaking.challenges"), 1001);
  EXPECT_THAT(PagesRead(sql::kTouchMatchTickets, queue_match, int64_t{1}),
              ::testing::Optional(::testing::Le(20)));
  EXPECT_THAT(PagesRead(sql::kTouchMatchChallenges, challenge_match, int64_t{1}),
              ::testing::Optional(::testing::Le(20)));

  // The games are recorded on the match's own tickets and challenge, and nowhere else.
  const std::string address = StartSessions();
  ASSERT_FALSE(address.empty());
  GrpcGameCreator up(grpc::CreateChannel(address, grpc::InsecureChannelCredentials()),
                     tokens_.get(), directory_.get(), GrpcGameCreator::Settings{});
  Replica delivering = MakeReplica(nullptr, &up);
  clock_->Advance(absl::Minutes(1));
  ASSERT_THAT(delivering.service->DeliverGames(), IsOkAndHolds(2));
  EXPECT_EQ(Count("SELECT count(*) FROM matchmaking.tickets t JOIN matchmaking.matches m "
                  "USING (match_id) WHERE t.update_time >= m.game_create_time"),
            2);
  EXPECT_EQ(Count("SELECT count(*) FROM matchmaking.challenges ch JOIN matchmaking.matches m "
                  "USING (match_id) WHERE ch.update_time >= m.game_create_time"),
            1);
}

// Sessions that answers every CreateGame only after `hold` (a slow or busy sessions service);
// records how many calls were in flight at once. Fails the matches in `fail`.
class SlowGameCreator final : public GameCreator {
 public:
  absl::StatusOr<std::string> CreateGame(const MatchRow& match) override {
    const int now = ++in_flight;
    for (int seen = max_in_flight.load();
         now > seen && !max_in_flight.compare_exchange_weak(seen, now);) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(absl::ToInt64Milliseconds(hold)));
    --in_flight;
    if (fail.contains(match.match_id)) return absl::UnavailableError("sessions said no");
    return absl::StrCat("game-", match.match_id);
  }
  absl::Duration hold = absl::Milliseconds(300);
  std::set<std::string> fail;
  std::atomic<int> in_flight{0};
  std::atomic<int> max_in_flight{0};
};

// A burst of matches (every pair of the queue matched in one pass) is delivered in one step with
// CreateGame calls in flight together, not one after another: 16 games at 300 ms each take
// about 0.6 s, not 4.8 s. A failing match is retried later and does not hold back the others.
TEST_F(MatchmakingPgTest, BurstOfMatchesIsDeliveredConcurrently) {
  SlowGameCreator games;
  Replica r = MakeReplica(nullptr, &games);
  for (int i = 0; i < 32; ++i) {
    ASSERT_THAT(r.service->Enqueue(absl::StrCat("player-", i), Input("pico", false)), IsOk());
  }
  absl::StatusOr<PassStats> pass = r.service->RunMatcherPass();
  ASSERT_THAT(pass, IsOk());
  ASSERT_EQ(pass->matches, 16);
  pqxx::connection c(db_url());
  pqxx::work txn(c);
  games.fail.insert(
      txn.exec1("SELECT match_id::text FROM matchmaking.matches LIMIT 1")[0].as<std::string>());
  txn.commit();
  const absl::Time start = absl::Now();
  EXPECT_THAT(r.service->DeliverGames(), IsOkAndHolds(15));
  const absl::Duration took = absl::Now() - start;
  EXPECT_GE(games.max_in_flight.load(), 4);
  EXPECT_LT(took, absl::Seconds(3)) << took;
  EXPECT_EQ(Count("SELECT count(*) FROM matchmaking.matches WHERE game_id IS NOT NULL"), 15);
  EXPECT_EQ(Count("SELECT count(*) FROM matchmaking.matches WHERE game_id IS NULL AND attempts = 1 "
                  "AND last_error LIKE '%sessions said no%'"),
            1);
}

// ---- Through the gRPC API
// ------------------------------------------------------------------------

std::unique_ptr<grpc::ClientContext> WithToken(const std::string& token) {
  return ::parlor::testing::Bearer(token, absl::Seconds(10));
}

TEST_F(MatchmakingPgTest, ApiEnqueueGetListCancel) {
  auto [alice, token] = SignIn("device-alice");
  v1::EnqueueRequest request;
  request.set_game("picadice");
  request.add_player_counts(4);
  request.add_player_counts(2);
  request.set_ranked(true);
  v1::EnqueueResponse enqueued;
  ASSERT_TRUE(stub_->Enqueue(WithToken(token).get(), request, &enqueued).ok());
  const v1::Ticket& t = enqueued.ticket();
  EXPECT_EQ(t.state(), v1::TICKET_STATE_WAITING);
  EXPECT_THAT(t.player_counts(), ElementsAre(2, 4));
  EXPECT_EQ(t.options().at("team_play"), "false");
  EXPECT_EQ(t.expire_time().seconds() - t.create_time().seconds(), 24 * 3600);
  v1::ListMyTicketsResponse list;
  ASSERT_TRUE(stub_->ListMyTickets(WithToken(token).get(), v1::ListMyTicketsRequest(), &list).ok());
  ASSERT_EQ(list.tickets_size(), 1);
  v1::CancelTicketRequest cancel;
  cancel.set_ticket_id(t.ticket_id());
  v1::CancelTicketResponse cancelled;
  ASSERT_TRUE(stub_->CancelTicket(WithToken(token).get(), cancel, &cancelled).ok());
  EXPECT_EQ(cancelled.ticket().state(), v1::TICKET_STATE_CANCELLED);
}

// Time controls and visibility chosen by players: tickets only meet tickets with the same
// choice (Cy's default 3 days per move and Dee's private 1 day per move wait on), and the game
// sessions creates has the chosen control and visibility, for queue matches and challenges.
// ListTimeControls publishes the set, the default marked.
TEST_F(MatchmakingPgTest, PlayersChooseTheTimeControlAndVisibilityTheirGameGets) {
  auto [ann, ann_token] = SignIn("device-ann-tc");
  auto [bob, bob_token] = SignIn("device-bob-tc");
  auto [cy, cy_token] = SignIn("device-cy-tc");
  auto [dee, dee_token] = SignIn("device-dee-tc");
  auto enqueue = [&](const std::string& token, v1::TimeControl tc, v1::GameVisibility vis) {
    v1::EnqueueRequest request;
    request.set_game("pico");
    request.set_time_control(tc);
    request.set_visibility(vis);
    v1::EnqueueResponse response;
    grpc::Status status = stub_->Enqueue(WithToken(token).get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response.ticket();
  };
  const v1::Ticket a = enqueue(ann_token, v1::TIME_CONTROL_PER_MOVE_1D, v1::GAME_VISIBILITY_PUBLIC);
  EXPECT_EQ(a.time_control(), v1::TIME_CONTROL_PER_MOVE_1D);
  EXPECT_EQ(a.visibility(), v1::GAME_VISIBILITY_PUBLIC);
  const v1::Ticket c =
      enqueue(cy_token, v1::TIME_CONTROL_UNSPECIFIED, v1::GAME_VISIBILITY_UNSPECIFIED);
  EXPECT_EQ(c.time_control(), v1::TIME_CONTROL_PER_MOVE_3D);  // the default
  EXPECT_EQ(c.visibility(), v1::GAME_VISIBILITY_PRIVATE);
  enqueue(dee_token, v1::TIME_CONTROL_PER_MOVE_1D, v1::GAME_VISIBILITY_PRIVATE);
  enqueue(bob_token, v1::TIME_CONTROL_PER_MOVE_1D, v1::GAME_VISIBILITY_PUBLIC);
  absl::StatusOr<PassStats> pass = service_->RunMatcherPass();
  ASSERT_THAT(pass, IsOk());
  EXPECT_EQ(pass->matches, 1);
  EXPECT_EQ(Count("SELECT count(*) FROM matchmaking.tickets WHERE state = 'waiting'"), 2);
  EXPECT_EQ(Count("SELECT count(*) FROM matchmaking.matches m WHERE time_control = "
                  "'per_move_1d' AND visibility = 'public' AND seat_accounts @> ARRAY['" +
                  ann + "', '" + bob + "']"),
            1);
  // A challenge with a time bank.
  v1::ChallengeRequest invite;
  invite.set_game("pict");
  invite.add_invitee_account_ids(dee);
  invite.set_time_control(v1::TIME_CONTROL_BANK_3D_PLUS_1D);
  v1::ChallengeResponse challenged;
  ASSERT_TRUE(stub_->Challenge(WithToken(cy_token).get(), invite, &challenged).ok());
  EXPECT_EQ(challenged.challenge().time_control(), v1::TIME_CONTROL_BANK_3D_PLUS_1D);
  EXPECT_EQ(challenged.challenge().visibility(), v1::GAME_VISIBILITY_PRIVATE);
  v1::AcceptChallengeRequest accept;
  accept.set_challenge_id(challenged.challenge().challenge_id());
  v1::AcceptChallengeResponse accepted;
  ASSERT_TRUE(stub_->AcceptChallenge(WithToken(dee_token).get(), accept, &accepted).ok());

  // The games sessions creates carry the choices.
  const std::string address = StartSessions();
  ASSERT_FALSE(address.empty());
  GrpcGameCreator up(grpc::CreateChannel(address, grpc::InsecureChannelCredentials()),
                     tokens_.get(), directory_.get(), GrpcGameCreator::Settings{});
  Replica r = MakeReplica(nullptr, &up);
  EXPECT_THAT(r.service->DeliverGames(), IsOkAndHolds(2));
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.games WHERE game = 'pico' AND "
                  "tc_kind = 'per_move' AND tc_per_move_s = 86400 AND vacation_days = 7 AND "
                  "visibility = 'public'"),
            1);
  EXPECT_EQ(Count("SELECT count(*) FROM sessions.games WHERE game = 'pict' AND "
                  "tc_kind = 'time_bank' AND tc_bank_initial_s = 259200 AND "
                  "tc_bank_increment_s = 86400 AND visibility = 'private'"),
            1);

  v1::ListTimeControlsResponse published;
  ASSERT_TRUE(stub_->ListTimeControls(WithToken(ann_token).get(), {}, &published).ok());
  ASSERT_EQ(published.time_controls_size(), 5);
  int defaults = 0;
  for (const v1::TimeControlOption& o : published.time_controls()) {
    if (!o.is_default()) continue;
    ++defaults;
    EXPECT_EQ(o.time_control(), v1::TIME_CONTROL_PER_MOVE_3D);
    EXPECT_EQ(o.per_move_seconds(), 72 * 3600);
    EXPECT_EQ(o.vacation_days(), 7);
  }
  EXPECT_EQ(defaults, 1);
  EXPECT_EQ(published.time_controls(4).label(), "3-day time bank, +1 day per move");
}

// A ranked pool may require a minimum finish rate, read from sessions' players' records (the
// real sessions service; the records are as its trigger keeps them when games end): with 80 %
// once 10 games have ended, Ann (6 finished, 3 resigned, 1 timed out: 60 %) is refused ranked
// play with the figures, but may queue casual; Bob (9 of 10) and Cy (only 3 games ended) may.
TEST_F(MatchmakingPgTest, ARankedPoolMayRequireAMinimumFinishRate) {
  const std::string ann = "00000000-0000-4000-8000-0000000000a1";
  const std::string bob = "00000000-0000-4000-8000-0000000000b1";
  const std::string cy = "00000000-0000-4000-8000-0000000000c1";
  const std::string address = StartSessions();
  ASSERT_FALSE(address.empty());
  {
    pqxx::connection c(db_url());
    pqxx::work txn(c);
    txn.exec0(
        "INSERT INTO sessions.player_records (account_id, finished, resigned, timed_out, "
        "updated_at) VALUES ('" +
        ann + "', 6, 3, 1, now()), ('" + bob + "', 9, 1, 0, now()), ('" + cy +
        "', 0, 2, 1, now())");
    txn.commit();
  }
  GrpcRecordSource records(grpc::CreateChannel(address, grpc::InsecureChannelCredentials()),
                           tokens_.get());
  MatchmakingOptions options;
  options.ranked_min_finish_percent = 80;
  options.ranked_min_games_for_finish_rate = 10;
  Replica r = MakeReplica(nullptr, nullptr, options, &records);
  EXPECT_THAT(r.service->Enqueue(ann, Input("pico", true)),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("ranked play needs a finish rate of at least 80% (games "
                                 "finished of games ended against people, once 10 have "
                                 "ended); you finished 6 of 10 (60%; 3 resigned, 1 timed out)")));
  EXPECT_EQ(Count("SELECT count(*) FROM matchmaking.tickets"), 0);
  EXPECT_THAT(r.service->Enqueue(ann, Input("pico", false)), IsOk());
  EXPECT_THAT(r.service->Enqueue(bob, Input("pico", true)), IsOk());
  EXPECT_THAT(r.service->Enqueue(cy, Input("pico", true)), IsOk());
  // Without sessions the ranked ticket is refused, not let through unchecked.
  GrpcRecordSource down(grpc::CreateChannel("127.0.0.1:1", grpc::InsecureChannelCredentials()),
                        tokens_.get(), absl::Seconds(1));
  Replica blind = MakeReplica(nullptr, nullptr, options, &down);
  EXPECT_THAT(blind.service->Enqueue("00000000-0000-4000-8000-0000000000d1", Input("pico", true)),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("sessions")));
}

// Blocks through the real accounts service: Ann blocks Bob. Ann, Bob and Cy queue for casual
// pico in that order; the pass seats Ann with Cy, never with Bob (whichever of them it
// anchors). Bob, who did not block anyone, still avoids Ann: his ticket lists who blocked him.
// Then Dee arrives and Bob plays her.
TEST_F(MatchmakingPgTest, BlockedPlayersAreNeverSeatedTogether) {
  auto [ann, ann_token] = SignIn("device-ann");
  auto [bob, bob_token] = SignIn("device-bob");
  auto [cy, cy_token] = SignIn("device-cy");
  auto [dee, dee_token] = SignIn("device-dee");
  {
    accounts::v1::BlockPlayerRequest block;
    block.set_account_id(bob);
    accounts::v1::BlockPlayerResponse blocked;
    grpc::Status status = accounts_stub_->BlockPlayer(WithToken(ann_token).get(), block, &blocked);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }
  auto enqueue = [&](const std::string& token) {
    v1::EnqueueRequest request;
    request.set_game("pico");
    v1::EnqueueResponse response;
    grpc::Status status = stub_->Enqueue(WithToken(token).get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response.ticket().ticket_id();
  };
  const std::string ann_ticket = enqueue(ann_token);
  clock_->Advance(absl::Seconds(1));
  const std::string bob_ticket = enqueue(bob_token);
  clock_->Advance(absl::Seconds(1));
  const std::string cy_ticket = enqueue(cy_token);
  EXPECT_EQ(Count(absl::StrCat("SELECT cardinality(avoid) FROM matchmaking.tickets "
                               "WHERE ticket_id = '",
                               bob_ticket, "'")),
            1);
  ASSERT_THAT(service_->RunMatcherPass(), IsOk());
  auto state = [&](const std::string& ticket) {
    pqxx::connection c(db_url());
    pqxx::work txn(c);
    return txn
        .exec_params1(
            "SELECT state || ':' || coalesce(match_id::text, '') "
            "FROM matchmaking.tickets WHERE ticket_id = $1::uuid",
            ticket)[0]
        .as<std::string>();
  };
  EXPECT_EQ(state(bob_ticket), "waiting:");
  EXPECT_EQ(state(ann_ticket), state(cy_ticket));
  EXPECT_THAT(state(ann_ticket), ::testing::StartsWith("matched:"));
  clock_->Advance(absl::Seconds(1));
  const std::string dee_ticket = enqueue(dee_token);
  ASSERT_THAT(service_->RunMatcherPass(), IsOk());
  EXPECT_EQ(state(bob_ticket), state(dee_ticket));
  EXPECT_THAT(state(bob_ticket), ::testing::StartsWith("matched:"));
}

// Blocks hold for challenges too (the real accounts service): Ann blocked Bob, so neither may
// challenge the other, and Bob cannot join Ann's table by its invite code; Cy can.
TEST_F(MatchmakingPgTest, BlockedPlayersCannotChallengeEachOther) {
  auto [ann, ann_token] = SignIn("device-ann-c");
  auto [bob, bob_token] = SignIn("device-bob-c");
  auto [cy, cy_token] = SignIn("device-cy-c");
  {
    accounts::v1::BlockPlayerRequest block;
    block.set_account_id(bob);
    accounts::v1::BlockPlayerResponse blocked;
    grpc::Status status = accounts_stub_->BlockPlayer(WithToken(ann_token).get(), block, &blocked);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }
  auto challenge = [&](const std::string& token, const std::string& invitee) {
    v1::ChallengeRequest request;
    request.set_game("pico");
    if (invitee.empty()) {
      request.set_create_invite_code(true);
    } else {
      request.add_invitee_account_ids(invitee);
    }
    v1::ChallengeResponse response;
    grpc::Status status = stub_->Challenge(WithToken(token).get(), request, &response);
    return std::make_pair(status, response.challenge());
  };
  for (const auto& [token, other] :
       {std::make_pair(ann_token, bob), std::make_pair(bob_token, ann)}) {
    auto [status, unused] = challenge(token, other);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
    EXPECT_THAT(status.error_message(), HasSubstr("one of you has blocked the other"));
  }
  EXPECT_EQ(Count("SELECT count(*) FROM matchmaking.challenges"), 0);
  auto [created, open] = challenge(ann_token, "");
  ASSERT_TRUE(created.ok()) << created.error_message();
  v1::AcceptChallengeRequest join;
  join.set_invite_code(open.invite_code());
  v1::AcceptChallengeResponse joined;
  grpc::Status refused = stub_->AcceptChallenge(WithToken(bob_token).get(), join, &joined);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(refused.error_message(), HasSubstr("blocked"));
  grpc::Status accepted = stub_->AcceptChallenge(WithToken(cy_token).get(), join, &joined);
  EXPECT_TRUE(accepted.ok()) << accepted.error_message();
  auto [allowed, unused] = challenge(cy_token, ann);
  EXPECT_TRUE(allowed.ok()) << allowed.error_message();
}

// Properties and requirements through the API: stored, returned on the ticket, and honoured by
// the pass (an English speaker requiring English is not seated with a German speaker).
TEST_F(MatchmakingPgTest, TicketPropertiesAndRequirementsThroughTheApi) {
  auto [eva, eva_token] = SignIn("device-eva");
  auto [fritz, fritz_token] = SignIn("device-fritz");
  auto [gil, gil_token] = SignIn("device-gil");
  auto enqueue = [&](const std::string& token, const std::string& language, bool require) {
    v1::EnqueueRequest request;
    request.set_game("pico");
    request.set_region("eu-west");
    request.set_language(language);
    (*request.mutable_string_properties())["platform"] = "ios";
    (*request.mutable_number_properties())["tier"] = 3;
    if (require) {
      v1::OpponentRequirement* r = request.add_requirements();
      r->set_property("language");
      r->mutable_one_of()->add_values("en");
      r->mutable_one_of()->add_values("en-GB");
      v1::OpponentRequirement* tier = request.add_requirements();
      tier->set_property("tier");
      tier->mutable_range()->set_min(2);
      tier->mutable_range()->set_max(4);
    }
    v1::EnqueueResponse response;
    grpc::Status status = stub_->Enqueue(WithToken(token).get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    clock_->Advance(absl::Seconds(1));
    return response.ticket();
  };
  const v1::Ticket eva_ticket = enqueue(eva_token, "en", true);
  EXPECT_EQ(eva_ticket.region(), "eu-west");
  EXPECT_EQ(eva_ticket.language(), "en");
  EXPECT_EQ(eva_ticket.string_properties().at("platform"), "ios");
  EXPECT_EQ(eva_ticket.number_properties().at("tier"), 3);
  ASSERT_EQ(eva_ticket.requirements_size(), 2);
  EXPECT_THAT(eva_ticket.requirements(0).one_of().values(), ElementsAre("en", "en-GB"));
  EXPECT_EQ(eva_ticket.requirements(1).range().max(), 4);
  const v1::Ticket fritz_ticket = enqueue(fritz_token, "de", false);
  const v1::Ticket gil_ticket = enqueue(gil_token, "en-GB", false);
  ASSERT_THAT(service_->RunMatcherPass(), IsOk());
  v1::GetTicketRequest get;
  v1::GetTicketResponse got;
  get.set_ticket_id(fritz_ticket.ticket_id());
  ASSERT_TRUE(stub_->GetTicket(WithToken(fritz_token).get(), get, &got).ok());
  EXPECT_EQ(got.ticket().state(), v1::TICKET_STATE_WAITING);
  get.set_ticket_id(gil_ticket.ticket_id());
  ASSERT_TRUE(stub_->GetTicket(WithToken(gil_token).get(), get, &got).ok());
  EXPECT_EQ(got.ticket().state(), v1::TICKET_STATE_MATCHED);
  EXPECT_EQ(got.ticket().language(), "en-GB");
}

TEST_F(MatchmakingPgTest, WatchMyTicketsStreamsTheMatch) {
  auto [alice, alice_token] = SignIn("device-alice");
  auto [bob, bob_token] = SignIn("device-bob");
  v1::EnqueueRequest request;
  request.set_game("pico");
  v1::EnqueueResponse enqueued;
  ASSERT_TRUE(stub_->Enqueue(WithToken(alice_token).get(), request, &enqueued).ok());
  auto context = WithToken(alice_token);
  auto reader = stub_->WatchMyTickets(context.get(), v1::WatchMyTicketsRequest());
  v1::WatchMyTicketsResponse message;
  ASSERT_TRUE(reader->Read(&message));
  EXPECT_EQ(message.ticket().state(), v1::TICKET_STATE_WAITING);
  ASSERT_TRUE(stub_->Enqueue(WithToken(bob_token).get(), request, &enqueued).ok());
  clock_->Advance(absl::Seconds(5));
  absl::StatusOr<PassStats> pass = service_->RunMatcherPass();
  ASSERT_THAT(pass, IsOk());
  ASSERT_EQ(pass->matches, 1);
  ASSERT_TRUE(reader->Read(&message));
  EXPECT_EQ(message.ticket().state(), v1::TICKET_STATE_MATCHED);
  EXPECT_FALSE(message.ticket().match_id().empty());
  context->TryCancel();
  reader->Finish();
}

// Every open stream is polled by one statement per round: each stream still gets exactly its own
// player's tickets from its own cursor (two streams of one player, one of another, one of a player
// without tickets), and the game's creation by another replica reaches all of them (the creation
// touches the match's tickets, found through their players; the replica that created it names the
// players whose streams it wakes).
TEST_F(MatchmakingPgTest, WatchMyTicketsRoundsAnswerEachStreamWithItsOwnTickets) {
  auto [alice, alice_token] = SignIn("device-alice");
  auto [bob, bob_token] = SignIn("device-bob");
  auto [carol, carol_token] = SignIn("device-carol");
  v1::EnqueueRequest request;
  request.set_game("pico");
  v1::EnqueueResponse alice_ticket;
  ASSERT_TRUE(stub_->Enqueue(WithToken(alice_token).get(), request, &alice_ticket).ok());
  auto alice_context = WithToken(alice_token);
  auto alice_reader = stub_->WatchMyTickets(alice_context.get(), v1::WatchMyTicketsRequest());
  auto bob_context = WithToken(bob_token);
  auto bob_reader = stub_->WatchMyTickets(bob_context.get(), v1::WatchMyTicketsRequest());
  auto carol_context = WithToken(carol_token);
  auto carol_reader = stub_->WatchMyTickets(carol_context.get(), v1::WatchMyTicketsRequest());
  v1::WatchMyTicketsResponse message;
  ASSERT_TRUE(alice_reader->Read(&message));
  EXPECT_EQ(message.ticket().ticket_id(), alice_ticket.ticket().ticket_id());
  EXPECT_EQ(message.ticket().state(), v1::TICKET_STATE_WAITING);
  v1::EnqueueResponse bob_ticket;
  ASSERT_TRUE(stub_->Enqueue(WithToken(bob_token).get(), request, &bob_ticket).ok());
  ASSERT_TRUE(bob_reader->Read(&message));
  EXPECT_EQ(message.ticket().ticket_id(), bob_ticket.ticket().ticket_id());
  EXPECT_EQ(message.ticket().state(), v1::TICKET_STATE_WAITING);
  clock_->Advance(absl::Seconds(5));
  auto alice_context2 = WithToken(alice_token);
  auto alice_reader2 = stub_->WatchMyTickets(alice_context2.get(), v1::WatchMyTicketsRequest());
  ASSERT_TRUE(alice_reader2->Read(&message));
  EXPECT_EQ(message.ticket().ticket_id(), alice_ticket.ticket().ticket_id());
  EXPECT_EQ(message.ticket().state(), v1::TICKET_STATE_WAITING);

  absl::StatusOr<PassStats> pass = service_->RunMatcherPass();
  ASSERT_THAT(pass, IsOk());
  ASSERT_EQ(pass->matches, 1);
  for (auto* reader : {alice_reader.get(), alice_reader2.get(), bob_reader.get()}) {
    ASSERT_TRUE(reader->Read(&message));
    EXPECT_EQ(message.ticket().state(), v1::TICKET_STATE_MATCHED);
    EXPECT_EQ(message.ticket().game_id(), "");
  }
  clock_->Advance(absl::Seconds(1));
  SlowGameCreator games;
  games.hold = absl::ZeroDuration();
  Replica other = MakeReplica(nullptr, &games);
  std::vector<std::string> told;  // the players whose streams a replica wakes
  other.service->SetGameCreatedListener(
      [&told](const std::vector<std::string>& players) { told = players; });
  ASSERT_THAT(other.service->DeliverGames(), IsOkAndHolds(1));
  EXPECT_THAT(told, ::testing::UnorderedElementsAre(alice, bob));
  EXPECT_EQ(Count("SELECT count(*) FROM matchmaking.tickets t JOIN matchmaking.matches m "
                  "USING (match_id) WHERE t.update_time = m.game_create_time"),
            2);
  for (auto [reader, ticket] :
       {std::pair{alice_reader.get(), &alice_ticket}, std::pair{alice_reader2.get(), &alice_ticket},
        std::pair{bob_reader.get(), &bob_ticket}}) {
    ASSERT_TRUE(reader->Read(&message));
    EXPECT_EQ(message.ticket().ticket_id(), ticket->ticket().ticket_id());
    EXPECT_EQ(message.ticket().state(), v1::TICKET_STATE_MATCHED);
    EXPECT_FALSE(message.ticket().game_id().empty());
  }
  for (auto* context : {alice_context.get(), alice_context2.get(), bob_context.get()}) {
    context->TryCancel();
  }
  alice_reader->Finish();
  alice_reader2->Finish();
  bob_reader->Finish();
  // Carol's stream had nothing to say: once cancelled it ends without a message.
  carol_context->TryCancel();
  EXPECT_FALSE(carol_reader->Read(&message));
  carol_reader->Finish();
}

// What a stream's rounds return. Its first round reads the player's history once: the tickets
// to report, and a match still waiting for its game, to remember. Every later round finds a change
// without it: a ticket added after the stream's time (even one cancelled before any round saw it
// waiting) through the time the player got it, and a ticket the stream remembers (a match whose
// game is created after the player queued again) by its id.
TEST_F(MatchmakingPgTest, AWatchRoundFindsEveryChangeFromTheTicketsThatCanStillChange) {
  Replica r = MakeReplica();
  const auto first_round = [this, &r](const std::string& player) {
    return r.store->WatchTickets(
        {TicketWatchQuery{.account_id = player, .changed_after = clock_->Now() - absl::Seconds(1)}},
        100);
  };
  const auto later_round = [&r](const std::string& player, absl::Time after,
                                std::vector<std::string> unfinished) {
    return r.store->WatchTickets({TicketWatchQuery{.account_id = player,
                                                   .changed_after = after,
                                                   .first_round = false,
                                                   .unfinished_ticket_ids = unfinished}},
                                 100);
  };
  const auto state_of = [](const WatchedTicket& w) {
    return std::tuple(w.ticket.ticket_id, w.ticket.state, !w.ticket.game_id.empty(), w.report);
  };
  using State = std::tuple<std::string, TicketState, bool, bool>;

  const absl::Time opened = clock_->Now();
  ASSERT_THAT(first_round("wa"), IsOkAndHolds(SizeIs(0)));
  // Queued and cancelled between two rounds: the next round still reports the cancellation.
  absl::StatusOr<TicketRow> cancelled = r.service->Enqueue("wa", Input("pico", false));
  ASSERT_THAT(cancelled, IsOk());
  clock_->Advance(absl::Seconds(1));
  ASSERT_THAT(r.service->CancelTicket("wa", cancelled->ticket_id), IsOk());
  absl::StatusOr<std::vector<WatchedTicket>> round =
      later_round("wa", opened - absl::Seconds(1), {});
  ASSERT_THAT(round, IsOkAndHolds(SizeIs(1)));
  EXPECT_EQ(state_of((*round)[0]),
            State(cancelled->ticket_id, TicketState::kCancelled, false, true));

  // Matched; the player queues again before the game exists (the match's flag is released).
  absl::StatusOr<TicketRow> matched = r.service->Enqueue("wa", Input("pico", true));
  ASSERT_THAT(matched, IsOk());
  ASSERT_THAT(r.service->Enqueue("wb", Input("pico", true)), IsOk());
  absl::StatusOr<PassStats> pass = r.service->RunMatcherPass();
  ASSERT_THAT(pass, IsOk());
  ASSERT_EQ(pass->matches, 1);
  clock_->Advance(absl::Seconds(10));
  absl::StatusOr<TicketRow> again = r.service->Enqueue("wa", Input("pico", true));
  ASSERT_THAT(again, IsOk());
  clock_->Advance(absl::Seconds(10));

  // A stream opened now reports the waiting ticket and remembers the match; the cancelled ticket
  // is final and older than the stream.
  round = first_round("wa");
  ASSERT_THAT(round, IsOk());
  std::vector<State> states;
  for (const WatchedTicket& w : *round) states.push_back(state_of(w));
  EXPECT_THAT(states, ::testing::UnorderedElementsAre(
                          State(again->ticket_id, TicketState::kWaiting, false, true),
                          State(matched->ticket_id, TicketState::kMatched, false, false)));

  // The game is created: a later round asking for the remembered tickets reports it.
  const absl::Time before_game = clock_->Now();
  SlowGameCreator games;
  games.hold = absl::ZeroDuration();
  Replica delivering = MakeReplica(nullptr, &games);
  ASSERT_THAT(delivering.service->DeliverGames(), IsOkAndHolds(1));
  clock_->Advance(absl::Seconds(1));
  round = later_round("wa", before_game - absl::Seconds(1), {matched->ticket_id, again->ticket_id});
  ASSERT_THAT(round, IsOk());
  states.clear();
  for (const WatchedTicket& w : *round) states.push_back(state_of(w));
  EXPECT_THAT(states, ::testing::UnorderedElementsAre(
                          State(again->ticket_id, TicketState::kWaiting, false, true),
                          State(matched->ticket_id, TicketState::kMatched, true, true)));
}

// A regular's stream: the player has a thousand finished tickets. Only the stream's first round
// reads them; every later round reads a few pages however long the history.
TEST_F(MatchmakingPgTest, WatchRoundsReadTheTicketsThatCanChangeNotThePlayersHistory) {
  Replica r = MakeReplica();
  absl::StatusOr<TicketRow> waiting = r.service->Enqueue("regular", Input("pico", false));
  ASSERT_THAT(waiting, IsOk());
  pqxx::connection c(db_url());
  {
    // Copies of the waiting ticket, cancelled a month ago: a thousand of the regular's,
    // twenty thousand of two hundred other players.
    pqxx::work txn(c);
    txn.exec0(
        "CREATE TEMP TABLE old AS SELECT (jsonb_populate_record(t, jsonb_build_object("
        "'ticket_id', gen_random_uuid(), 'state', 'cancelled', 'owner_id', o.owner, "
        "'members', jsonb_build_array(o.owner), "
        "'create_time', t.create_time - interval '30 days', "
        "'expire_time', t.expire_time - interval '30 days', "
        "'update_time', t.update_time - interval '29 days'))).* "
        "FROM matchmaking.tickets t, (SELECT CASE WHEN i <= 1000 THEN 'regular' "
        "ELSE 'other-' || i % 200 END AS owner FROM generate_series(1, 21000) i) o");
    txn.exec0("INSERT INTO matchmaking.tickets SELECT * FROM old");
    txn.exec0(
        "INSERT INTO matchmaking.ticket_players (ticket_id, account_id, game, ranked, waiting, "
        "added_at) SELECT ticket_id, owner_id, game, ranked, false, create_time FROM old");
    txn.exec0("ANALYZE matchmaking.tickets, matchmaking.ticket_players");
    txn.commit();
  }
  ASSERT_EQ(Count("SELECT count(*) FROM matchmaking.ticket_players WHERE account_id = 'regular'"),
            1001);
  const std::string after =
      absl::StrCat("{", absl::ToUnixMicros(clock_->Now() - absl::Seconds(1)), "}");
  // The first round reads the history (a page or more per ticket)...
  EXPECT_THAT(PagesRead(sql::kOpenTicketsOfAccounts, "{regular}", after, 100),
              ::testing::Optional(::testing::Gt(1000)));
  // ...a later round does not.
  EXPECT_THAT(PagesRead(sql::kChangedTicketsOfAccounts, "{regular}", after,
                        absl::StrCat("{", waiting->ticket_id, "}"), 100),
              ::testing::Optional(::testing::Le(20)));

  // And the rounds still answer: the waiting ticket, reported once.
  absl::StatusOr<std::vector<WatchedTicket>> round = r.store->WatchTickets(
      {TicketWatchQuery{.account_id = "regular", .changed_after = clock_->Now()},
       TicketWatchQuery{.account_id = "regular",
                        .changed_after = clock_->Now(),
                        .first_round = false,
                        .unfinished_ticket_ids = {waiting->ticket_id}}},
      100);
  ASSERT_THAT(round, IsOk());
  ASSERT_THAT(*round, SizeIs(2));
  for (const WatchedTicket& w : *round) {
    EXPECT_EQ(w.ticket.ticket_id, waiting->ticket_id);
    EXPECT_TRUE(w.report);
  }
}

// A stream opened while its player's match waits for its game (the player has already queued
// again, so the match no longer holds their place) still hears when the game is created.
TEST_F(MatchmakingPgTest, AStreamOpenedWhileAMatchWaitsForItsGameHearsTheGame) {
  auto [alice, alice_token] = SignIn("device-alice");
  auto [bob, bob_token] = SignIn("device-bob");
  v1::EnqueueRequest request;
  request.set_game("pico");
  v1::EnqueueResponse matched;
  ASSERT_TRUE(stub_->Enqueue(WithToken(alice_token).get(), request, &matched).ok());
  v1::EnqueueResponse enqueued;
  ASSERT_TRUE(stub_->Enqueue(WithToken(bob_token).get(), request, &enqueued).ok());
  absl::StatusOr<PassStats> pass = service_->RunMatcherPass();
  ASSERT_THAT(pass, IsOk());
  ASSERT_EQ(pass->matches, 1);
  v1::EnqueueResponse again;
  ASSERT_TRUE(stub_->Enqueue(WithToken(alice_token).get(), request, &again).ok());
  clock_->Advance(absl::Seconds(10));

  auto context = WithToken(alice_token);
  auto reader = stub_->WatchMyTickets(context.get(), v1::WatchMyTicketsRequest());
  v1::WatchMyTicketsResponse message;
  ASSERT_TRUE(reader->Read(&message));
  EXPECT_EQ(message.ticket().ticket_id(), again.ticket().ticket_id());
  EXPECT_EQ(message.ticket().state(), v1::TICKET_STATE_WAITING);
  // Later rounds run (every 100 ms) before the game is created.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));

  SlowGameCreator games;
  games.hold = absl::ZeroDuration();
  Replica other = MakeReplica(nullptr, &games);
  ASSERT_THAT(other.service->DeliverGames(), IsOkAndHolds(1));
  ASSERT_TRUE(reader->Read(&message));
  EXPECT_EQ(message.ticket().ticket_id(), matched.ticket().ticket_id());
  EXPECT_EQ(message.ticket().state(), v1::TICKET_STATE_MATCHED);
  EXPECT_FALSE(message.ticket().game_id().empty());
  context->TryCancel();
  reader->Finish();
}

// Finished tickets and challenges are kept 30 days after their creation and last change, then
// deleted with their players' rows, and a match 30 days after its game's creation once nothing
// shows it; waiting tickets, open challenges and matches still waiting for their game are kept
// however old.
TEST_F(MatchmakingPgTest, FinishedTicketsAndChallengesArePrunedAfterTheRetention) {
  std::map<std::string, std::string> id;  // the players' account ids
  for (const char* name : {"pa", "pb", "pc", "pd", "pe", "pf"}) {
    id[name] = SignIn(absl::StrCat("device-", name)).first;
  }
  Replica r = MakeReplica();
  absl::StatusOr<TicketRow> cancelled = r.service->Enqueue(id["pa"], Input("pico", false));
  ASSERT_THAT(cancelled, IsOk());
  ASSERT_THAT(r.service->CancelTicket(id["pa"], cancelled->ticket_id), IsOk());
  absl::StatusOr<ChallengeRow> declined =
      r.service->Challenge(id["pa"], Invite("pico", {id["pb"]}));
  ASSERT_THAT(declined, IsOk());
  ASSERT_THAT(r.service->DeclineChallenge(id["pb"], declined->challenge_id), IsOk());
  ASSERT_NO_FATAL_FAILURE(MatchByQueueAndChallenge(r, id["pc"], id["pd"], "pico"));
  ASSERT_THAT(r.service->Enqueue(id["pe"], Input("pico", false)), IsOk());
  ASSERT_THAT(r.service->Challenge(id["pe"], Invite("pico", {id["pf"]})), IsOk());
  const auto rows = [this] {
    return std::vector<int64_t>{Count("SELECT count(*) FROM matchmaking.tickets"),
                                Count("SELECT count(*) FROM matchmaking.ticket_players"),
                                Count("SELECT count(*) FROM matchmaking.challenges"),
                                Count("SELECT count(*) FROM matchmaking.challenge_players"),
                                Count("SELECT count(*) FROM matchmaking.matches")};
  };
  ASSERT_THAT(rows(), ElementsAre(4, 4, 3, 6, 2));

  // A month later: the cancelled ticket and the declined challenge go; the match waiting for its
  // game, the waiting ticket and the open challenge stay.
  clock_->Advance(absl::Hours(24 * 31));
  absl::StatusOr<MatchmakingService::Pruned> pruned = r.service->PruneHistory();
  ASSERT_THAT(pruned, IsOk());
  EXPECT_EQ(pruned->tickets, 1);
  EXPECT_EQ(pruned->challenges, 1);
  EXPECT_EQ(pruned->matches, 0);
  EXPECT_THAT(rows(), ElementsAre(3, 3, 2, 4, 2));

  // The games are created: the matches' tickets and challenge changed now, so they stay another
  // month, and the matches with them.
  SlowGameCreator games;
  games.hold = absl::ZeroDuration();
  Replica delivering = MakeReplica(nullptr, &games);
  ASSERT_THAT(delivering.service->DeliverGames(), IsOkAndHolds(2));
  pruned = r.service->PruneHistory();
  ASSERT_THAT(pruned, IsOk());
  EXPECT_EQ(pruned->tickets + pruned->challenges + pruned->matches, 0);
  // One of the queue match's tickets changed later (as a row of an older release might have): the
  // ticket outlives the retention's first month, and its match stays while it shows it.
  {
    pqxx::connection c(db_url());
    pqxx::work txn(c);
    txn.exec_params0(
        "UPDATE matchmaking.tickets SET update_time = update_time + interval '10 days' "
        "WHERE ticket_id = (SELECT ticket_id FROM matchmaking.tickets t JOIN matchmaking.matches "
        "m USING (match_id) WHERE m.source = 'queue' ORDER BY ticket_id LIMIT 1)");
    txn.commit();
  }
  clock_->Advance(absl::Hours(24 * 31));
  pruned = r.service->PruneHistory();
  ASSERT_THAT(pruned, IsOk());
  EXPECT_EQ(pruned->tickets, 1);
  EXPECT_EQ(pruned->challenges, 1);
  EXPECT_EQ(pruned->matches, 1) << "the challenge's match goes with its challenge and tickets";
  EXPECT_THAT(rows(), ElementsAre(2, 2, 1, 2, 1));
  EXPECT_EQ(Count("SELECT count(*) FROM matchmaking.matches WHERE source = 'queue'"), 1);
  clock_->Advance(absl::Hours(24 * 10));
  pruned = r.service->PruneHistory();
  ASSERT_THAT(pruned, IsOk());
  EXPECT_EQ(pruned->tickets, 1);
  EXPECT_EQ(pruned->matches, 1);
  EXPECT_THAT(rows(), ElementsAre(1, 1, 1, 2, 0));
  EXPECT_EQ(Count(absl::StrCat("SELECT count(*) FROM matchmaking.tickets WHERE owner_id = '",
                               id["pe"], "' AND state = 'waiting'")),
            1);
  EXPECT_EQ(
      Count(absl::StrCat("SELECT count(*) FROM matchmaking.challenges WHERE challenger_id = '",
                         id["pe"], "' AND state = 'open'")),
      1);

  // Twenty thousand tickets finished today: a prune with nothing old to delete reads a few
  // pages of the index of final tickets, not the tickets.
  pqxx::connection c(db_url());
  {
    pqxx::work txn(c);
    txn.exec_params0(
        "INSERT INTO matchmaking.tickets SELECT (jsonb_populate_record(t, jsonb_build_object("
        "'ticket_id', gen_random_uuid(), 'state', 'cancelled', 'create_time', n.at, "
        "'expire_time', n.at + interval '1 hour', 'update_time', n.at))).* "
        "FROM matchmaking.tickets t, generate_series(1, 20000), "
        "(SELECT to_timestamp($1::double precision / 1000000) AS at) n WHERE t.state = 'waiting'",
        absl::ToUnixMicros(clock_->Now()));
    txn.exec0("ANALYZE matchmaking.tickets");
    txn.commit();
  }
  EXPECT_THAT(
      PagesRead(sql::kPruneTickets, absl::ToUnixMicros(clock_->Now() - absl::Hours(24 * 30)), 500),
      ::testing::Optional(::testing::Le(10)));

  // Likewise twenty thousand matches whose games were created today.
  {
    pqxx::work txn(c);
    txn.exec_params0(
        "INSERT INTO matchmaking.matches (source, game, options, ranked, seat_accounts, "
        "seat_teams, create_time, game_id, game_create_time, next_attempt_time) "
        "SELECT 'queue', 'pico', '', false, ARRAY['a', 'b'], ARRAY[0, 1], n.at, 'g-' || i, n.at, "
        "n.at FROM generate_series(1, 20000) i, "
        "(SELECT to_timestamp($1::double precision / 1000000) AS at) n",
        absl::ToUnixMicros(clock_->Now()));
    txn.exec0("ANALYZE matchmaking.matches");
    txn.commit();
  }
  EXPECT_THAT(
      PagesRead(sql::kPruneMatches, absl::ToUnixMicros(clock_->Now() - absl::Hours(24 * 30)), 500),
      ::testing::Optional(::testing::Le(10)));
}

TEST_F(MatchmakingPgTest, MetricsCountMatchesWaitsSpreadAndExpiries) {
  ASSERT_THAT(service_->Enqueue("m1", Input("pico", true)), IsOk());
  ASSERT_THAT(service_->Enqueue("m2", Input("pico", true)), IsOk());
  ASSERT_THAT(service_->Enqueue("m3", Input("pict", false)), IsOk());
  clock_->Advance(absl::Seconds(42));
  ASSERT_THAT(service_->RunMatcherPass(), IsOk());
  std::string text = matchmaking_->host().metrics().Serialize();
  EXPECT_THAT(text, HasSubstr("parlor_matchmaking_matches_total{game=\"pico\"} 1"));
  EXPECT_THAT(text,
              HasSubstr("parlor_matchmaking_tickets_waiting{game=\"pict\",ranked=\"false\"} 1"));
  EXPECT_THAT(text, HasSubstr("parlor_matchmaking_wait_seconds_count{game=\"pico\"} 2"));
  EXPECT_THAT(text, HasSubstr("parlor_matchmaking_wait_seconds_sum{game=\"pico\"} 84"));
  EXPECT_THAT(text, HasSubstr("parlor_matchmaking_match_rating_spread_count 1"));
  // The pict ticket is left waiting, 42 s old; pico's were both matched (none left waiting).
  EXPECT_THAT(text, HasSubstr("parlor_matchmaking_oldest_waiting_seconds{game=\"pict\","
                              "ranked=\"false\"} 42"));
  EXPECT_THAT(text,
              ::testing::Not(HasSubstr("parlor_matchmaking_oldest_waiting_seconds{game=\"pico\"")));
  clock_->Advance(absl::Hours(25));
  ASSERT_THAT(service_->RunMatcherPass(), IsOk());
  text = matchmaking_->host().metrics().Serialize();
  EXPECT_THAT(text, HasSubstr("parlor_matchmaking_tickets_expired_total 1"));
  EXPECT_THAT(text,
              HasSubstr("parlor_matchmaking_tickets_waiting{game=\"pict\",ranked=\"false\"} 0"));
  EXPECT_THAT(text, HasSubstr("parlor_matchmaking_oldest_waiting_seconds{game=\"pict\","
                              "ranked=\"false\"} 0"));
}

// Every refusal: the precise code, and nothing in the schema changed.
// Bad input on every RPC: matchmaking_bad_input_pgtest.cc.

}  // namespace
}  // namespace parlor::matchmaking
