// The Sessions class over an in-memory SessionsStore (FakeSessionsStore): what its RPCs answer
// and what they write, with no database. The same behaviours over PostgreSQL are in
// sessions_pgtest.cc.
#include "services/sessions/domain/sessions.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/games/all_games.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "prometheus/registry.h"
#include "services/common/testing/status_matchers.h"
#include "services/sessions/store/fake_sessions_store.h"
#include "services/sessions/testing/metric_value.h"

namespace parlor::sessions {
namespace {

using ::testing::HasSubstr;

constexpr char kAlice[] = "00000000-0000-4000-8000-00000000a11c";

class SessionsTest : public ::testing::Test {
 protected:
  SessionsTest()
      : registry_(engine::AllGames()),
        sessions_(
            &store_, &registry_, [this] { return now_; }, Sessions::Options{}, &metrics_) {}

  // parlor_sessions_actions_total for Pico and `result`.
  double Actions(const std::string& result) const {
    return testing::MetricValue(metrics_, "parlor_sessions_actions_total",
                                {{"game", "pico"}, {"result", result}});
  }

  v1::CreateBotGameResponse NewBotGame(const std::string& request_id) {
    v1::CreateBotGameRequest create;
    create.set_request_id(request_id);
    create.set_game("pico");
    create.set_num_players(2);
    create.set_bot("random");
    v1::CreateBotGameResponse created;
    EXPECT_THAT(sessions_.CreateBotGame(kAlice, create, &created), testing::IsOk());
    return created;
  }

  v1::SubmitActionRequest FirstLegalMove(const std::string& game_id, const std::string& key) {
    v1::GetGameRequest get;
    get.set_game_id(game_id);
    v1::GetGameResponse state;
    EXPECT_THAT(sessions_.GetGame(kAlice, get, &state), testing::IsOk());
    v1::SubmitActionRequest submit;
    submit.set_game_id(game_id);
    submit.set_expected_version(state.game().version());
    submit.set_idempotency_key(key);
    if (!state.legal_actions().empty()) *submit.mutable_action() = state.legal_actions(0);
    return submit;
  }

  absl::Time now_ = absl::FromUnixSeconds(1'800'000'000);
  FakeSessionsStore store_;
  engine::Registry registry_;
  prometheus::Registry metrics_;
  Sessions sessions_;
};

TEST_F(SessionsTest, AGameAgainstTheComputerIsPlayedToItsEndAndItsResultReported) {
  const std::string id = NewBotGame("r1").game().game_id();
  v1::Game game;
  int submitted = 0;
  for (int move = 0; move < 500; ++move) {
    now_ += absl::Seconds(1);
    ++submitted;
    v1::SubmitActionResponse answer;
    ASSERT_THAT(
        sessions_.SubmitAction(kAlice, FirstLegalMove(id, absl::StrCat("k", move)), &answer),
        testing::IsOk());
    game = answer.game();
    if (game.status() == v1::GAME_STATUS_FINISHED) break;
  }
  ASSERT_EQ(game.status(), v1::GAME_STATUS_FINISHED);
  EXPECT_FALSE(game.seed().empty());
  ASSERT_EQ(store_.results().size(), 1u);
  EXPECT_THAT(store_.results()[0].payload_json, HasSubstr(id));
  // Every move counted as accepted, none refused.
  EXPECT_EQ(Actions("OK"), submitted);
  EXPECT_EQ(Actions("INVALID_ARGUMENT"), 0);
  EXPECT_EQ(Actions("FAILED_PRECONDITION"), 0);
  v1::GetHistoryRequest history;
  history.set_game_id(id);
  v1::GetHistoryResponse events;
  ASSERT_THAT(sessions_.GetHistory(kAlice, history, &events), testing::IsOk());
  EXPECT_EQ(events.current_version(), game.version());
  ASSERT_FALSE(events.events().empty());
  EXPECT_EQ(events.events(0).kind(), v1::EVENT_KIND_SETUP);
}

TEST_F(SessionsTest, ARetryGetsTheFirstAnswerAndAnotherRequestUnderTheKeyIsRefused) {
  const std::string id = NewBotGame("r1").game().game_id();
  const v1::SubmitActionRequest submit = FirstLegalMove(id, "k1");
  v1::SubmitActionResponse first;
  ASSERT_THAT(sessions_.SubmitAction(kAlice, submit, &first), testing::IsOk());
  v1::SubmitActionResponse again;
  ASSERT_THAT(sessions_.SubmitAction(kAlice, submit, &again), testing::IsOk());
  EXPECT_EQ(again.SerializeAsString(), first.SerializeAsString());
  v1::SubmitActionRequest other = submit;
  other.set_expected_version(submit.expected_version() + 1);
  EXPECT_THAT(sessions_.SubmitAction(kAlice, other, &again),
              testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                HasSubstr("idempotency_key was already used")));
  EXPECT_EQ(Actions("OK"), 2);
  EXPECT_EQ(Actions("INVALID_ARGUMENT"), 1);
}

TEST_F(SessionsTest, AStaleExpectedVersionIsAbortedNamingTheCurrentOne) {
  const std::string id = NewBotGame("r1").game().game_id();
  v1::SubmitActionRequest submit = FirstLegalMove(id, "k1");
  const int64_t current = submit.expected_version();
  submit.set_expected_version(current + 5);
  v1::SubmitActionResponse answer;
  EXPECT_THAT(sessions_.SubmitAction(kAlice, submit, &answer),
              testing::StatusIs(absl::StatusCode::kAborted,
                                absl::StrCat("expected_version ", current + 5,
                                             " is stale: the game is at version ", current)));
  // Decided twice: once more on a fresh read, as two replicas may race on one key.
  EXPECT_THAT(store_.transactions(),
              ::testing::ElementsAre("sessions.submit_action", "sessions.submit_action"));
}

TEST_F(SessionsTest, ListMyGamesPagesThroughEveryGameOnceNewestFirst) {
  std::vector<std::string> ids;
  for (int i = 0; i < 5; ++i) {
    now_ += absl::Minutes(1);
    ids.insert(ids.begin(), NewBotGame(absl::StrCat("r", i)).game().game_id());
  }
  std::vector<std::string> listed;
  v1::ListMyGamesRequest request;
  request.set_page_size(2);
  for (int page = 0; page < 5; ++page) {
    v1::ListMyGamesResponse response;
    ASSERT_THAT(sessions_.ListMyGames(kAlice, request, &response), testing::IsOk());
    for (const v1::Game& g : response.games()) listed.push_back(g.game_id());
    if (response.next_page_token().empty()) break;
    request.set_page_token(response.next_page_token());
  }
  EXPECT_EQ(listed, ids);
}

TEST_F(SessionsTest, APlayerPastTheDeadlineGetsTheTimeoutBotsMoveAndItIsCounted) {
  const v1::CreateBotGameResponse created = NewBotGame("r1");
  const int64_t version = created.game().version();
  now_ += absl::Hours(7 * 24 + 1);  // the default time control: 7 days per move
  absl::StatusOr<int> changed = sessions_.Sweep();
  ASSERT_THAT(changed, testing::IsOk());
  EXPECT_EQ(*changed, 1);
  EXPECT_EQ(testing::MetricValue(metrics_, "parlor_sessions_timeouts_total",
                                 {{"game", "pico"}, {"policy", "bot"}}),
            1);
  EXPECT_EQ(testing::MetricValue(metrics_, "parlor_sessions_timeouts_total",
                                 {{"game", "pico"}, {"policy", "forfeit"}}),
            0);
  absl::StatusOr<v1::Game> game = sessions_.GameSummary(kAlice, created.game().game_id());
  ASSERT_THAT(game, testing::IsOk());
  EXPECT_GT(game->version(), version);
  bool told = false;
  for (const NotificationRow& n : store_.notifications()) told = told || n.kind == "timeout";
  EXPECT_TRUE(told);
}

}  // namespace
}  // namespace parlor::sessions
