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

  CreatedGame NewBotGame(const std::string& request_id) {
    CreateBotGameRequest create;
    create.request_id = request_id;
    create.game = "pico";
    create.num_players = 2;
    create.bot = "random";
    create.fingerprint = request_id;
    absl::StatusOr<CreatedGame> created = sessions_.CreateBotGame(kAlice, create);
    EXPECT_THAT(created, testing::IsOk());
    return created.ok() ? *std::move(created) : CreatedGame{};
  }

  SubmitRequest FirstLegalMove(const std::string& game_id, const std::string& key) {
    absl::StatusOr<GameWithView> state = sessions_.GetGame(kAlice, game_id);
    EXPECT_THAT(state, testing::IsOk());
    SubmitRequest submit;
    submit.game_id = game_id;
    submit.expected_version = state.ok() ? state->game.version : 0;
    submit.idempotency_key = key;
    if (state.ok() && !state->legal_actions.empty()) submit.action = state->legal_actions[0];
    return submit;
  }

  // The API keeps an answer as its response's bytes; here, the game's id, version and view.
  static std::string Encode(const GameWithView& answer) {
    return absl::StrCat(answer.game.game_id, "/", answer.game.version, "/",
                        answer.view.SerializeAsString());
  }

  absl::StatusOr<MoveAnswer> Submit(const SubmitRequest& submit) {
    return sessions_.SubmitAction(kAlice, submit, Encode);
  }

  absl::Time now_ = absl::FromUnixSeconds(1'800'000'000);
  FakeSessionsStore store_;
  engine::Registry registry_;
  prometheus::Registry metrics_;
  Sessions sessions_;
};

TEST_F(SessionsTest, AGameAgainstTheComputerIsPlayedToItsEndAndItsResultReported) {
  const std::string id = NewBotGame("r1").game.game_id;
  GameSummary game;
  int submitted = 0;
  for (int move = 0; move < 500; ++move) {
    now_ += absl::Seconds(1);
    ++submitted;
    absl::StatusOr<MoveAnswer> answer = Submit(FirstLegalMove(id, absl::StrCat("k", move)));
    ASSERT_THAT(answer, testing::IsOk());
    ASSERT_FALSE(answer->replayed.has_value());
    game = answer->fresh.game;
    if (game.finished) break;
  }
  ASSERT_TRUE(game.finished);
  EXPECT_FALSE(game.seed.empty());
  ASSERT_TRUE(game.outcome.has_value());
  EXPECT_EQ(game.outcome->ranks.size(), 2u);
  ASSERT_EQ(store_.results().size(), 1u);
  EXPECT_THAT(store_.results()[0].payload_json, HasSubstr(id));
  // Every move counted as accepted, none refused.
  EXPECT_EQ(Actions("OK"), submitted);
  EXPECT_EQ(Actions("INVALID_ARGUMENT"), 0);
  EXPECT_EQ(Actions("FAILED_PRECONDITION"), 0);
  absl::StatusOr<History> events = sessions_.GetHistory(kAlice, HistoryQuery{id, 0, 0});
  ASSERT_THAT(events, testing::IsOk());
  EXPECT_EQ(events->current_version, game.version);
  ASSERT_FALSE(events->events.empty());
  EXPECT_EQ(events->events[0].kind, LogRow::Kind::kSetup);
  EXPECT_EQ(events->events[0].description, "the game was set up");
  EXPECT_TRUE(events->events[0].view.has_value());
}

TEST_F(SessionsTest, ARetryGetsTheFirstAnswerAndAnotherRequestUnderTheKeyIsRefused) {
  const std::string id = NewBotGame("r1").game.game_id;
  const SubmitRequest submit = FirstLegalMove(id, "k1");
  absl::StatusOr<MoveAnswer> first = Submit(submit);
  ASSERT_THAT(first, testing::IsOk());
  ASSERT_FALSE(first->replayed.has_value());
  absl::StatusOr<MoveAnswer> again = Submit(submit);
  ASSERT_THAT(again, testing::IsOk());
  EXPECT_EQ(again->replayed, Encode(first->fresh));
  SubmitRequest other = submit;
  other.expected_version = submit.expected_version + 1;
  EXPECT_THAT(Submit(other), testing::StatusIs(absl::StatusCode::kInvalidArgument,
                                               HasSubstr("idempotency_key was already used")));
  EXPECT_EQ(Actions("OK"), 2);
  EXPECT_EQ(Actions("INVALID_ARGUMENT"), 1);
}

TEST_F(SessionsTest, AStaleExpectedVersionIsAbortedNamingTheCurrentOne) {
  const std::string id = NewBotGame("r1").game.game_id;
  SubmitRequest submit = FirstLegalMove(id, "k1");
  const int64_t current = submit.expected_version;
  submit.expected_version = current + 5;
  absl::StatusOr<MoveAnswer> answer = Submit(submit);
  EXPECT_THAT(answer,
              testing::StatusIs(absl::StatusCode::kAborted,
                                absl::StrCat("expected_version ", current + 5,
                                             " is stale: the game is at version ", current)));
  // Both versions travel with the refusal, for the API's VersionConflict detail.
  const std::optional<StaleVersionDetail> stale = StaleVersionOf(answer.status());
  ASSERT_TRUE(stale.has_value());
  EXPECT_EQ(stale->expected, current + 5);
  EXPECT_EQ(stale->current, current);
  // Decided twice: once more on a fresh read, as two replicas may race on one key.
  EXPECT_THAT(store_.transactions(),
              ::testing::ElementsAre("sessions.submit_action", "sessions.submit_action"));
}

TEST_F(SessionsTest, ListMyGamesPagesThroughEveryGameOnceNewestFirst) {
  std::vector<std::string> ids;
  for (int i = 0; i < 5; ++i) {
    now_ += absl::Minutes(1);
    ids.insert(ids.begin(), NewBotGame(absl::StrCat("r", i)).game.game_id);
  }
  std::vector<std::string> listed;
  MyGamesQuery query;
  query.page_size = 2;
  for (int page = 0; page < 5; ++page) {
    absl::StatusOr<GamePage> games = sessions_.ListMyGames(kAlice, query);
    ASSERT_THAT(games, testing::IsOk());
    for (const GameSummary& g : games->games) {
      listed.push_back(g.game_id);
      EXPECT_EQ(g.my_seat, 0);
    }
    if (games->next_page_token.empty()) break;
    query.page_token = games->next_page_token;
  }
  EXPECT_EQ(listed, ids);
}

TEST_F(SessionsTest, APlayerPastTheDeadlineGetsTheTimeoutBotsMoveAndItIsCounted) {
  const CreatedGame created = NewBotGame("r1");
  const int64_t version = created.game.version;
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
  absl::StatusOr<GameSummary> game = sessions_.SummaryFor(kAlice, created.game.game_id);
  ASSERT_THAT(game, testing::IsOk());
  EXPECT_GT(game->version, version);
  bool told = false;
  for (const NotificationRow& n : store_.notifications()) told = told || n.kind == "timeout";
  EXPECT_TRUE(told);
}

}  // namespace
}  // namespace parlor::sessions
