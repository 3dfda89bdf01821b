#include "services/sessions/domain/engine_glue.h"

#include <memory>
#include <vector>

#include "engine/bots/bot.h"
#include "engine/games/all_games.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "services/common/testing/status_matchers.h"

namespace parlor::sessions {
namespace {

using ::testing::HasSubstr;

// Plays a random game of `game` to the end, returning every state along the way.
std::vector<std::unique_ptr<engine::State>> PlayRandom(const engine::Game& game, uint64_t seed) {
  std::vector<std::unique_ptr<engine::State>> states;
  auto options = game.ParseOptions({}, game.info().min_players);
  EXPECT_TRUE(options.ok()) << options.status();
  auto state = game.NewGame(game.info().min_players, *options, engine::Seed::FromUint64(seed));
  EXPECT_TRUE(state.ok()) << state.status();
  engine::Rng rng(seed);
  states.push_back((*state)->Clone());
  while (!(*state)->IsTerminal()) {
    std::vector<int> acting = (*state)->ActingSeats().ToVector();
    const int seat = acting[rng.Uniform(acting.size())];
    auto action = bots::RandomLegalAction(**state, seat, rng);
    EXPECT_TRUE(action.ok());
    EXPECT_TRUE((*state)->Apply(seat, *action).ok());
    states.push_back((*state)->Clone());
  }
  return states;
}

TEST(EngineGlueTest, EveryGameIsRegistered) {
  engine::Registry registry = engine::AllGames();
  EXPECT_FALSE(registry.games().empty());
}

TEST(EngineGlueTest, StatesBetweenReplaysEveryVersionOfEveryGame) {
  engine::Registry registry = engine::AllGames();
  for (const engine::Game* game : registry.games()) {
    SCOPED_TRACE(game->name());
    std::vector<std::unique_ptr<engine::State>> played = PlayRandom(*game, 7);
    const engine::v1::GameRecord record = played.back()->Serialize();
    const int64_t last = played.back()->NumMoves();
    auto states = StatesBetween(*game, record, 0, last);
    ASSERT_THAT(states, testing::IsOk());
    ASSERT_EQ(states->size(), played.size());
    for (size_t v = 0; v < played.size(); ++v) {
      EXPECT_EQ((*states)[v]->SerializeToString(), played[v]->SerializeToString())
          << "version " << v;
    }
    auto tail = StatesBetween(*game, record, last - 1, last);
    ASSERT_THAT(tail, testing::IsOk());
    ASSERT_EQ(tail->size(), 2u);
    EXPECT_EQ(tail->back()->SerializeToString(), played.back()->SerializeToString());
  }
}

TEST(EngineGlueTest, StatesBetweenRejectsADamagedLog) {
  engine::Registry registry = engine::AllGames();
  const engine::Game* game = registry.games().front();
  std::vector<std::unique_ptr<engine::State>> played = PlayRandom(*game, 3);
  engine::v1::GameRecord record = played.back()->Serialize();
  ASSERT_GE(record.log_size(), 2);
  record.mutable_log(1)->set_action(-987654321);
  EXPECT_THAT(StatesBetween(*game, record, 0, record.log_size() - 1),
              testing::StatusIs(absl::StatusCode::kDataLoss, HasSubstr("does not replay")));
}

// A description shown to another seat must be deducible from that seat's own view: no other
// legal move of the actor leaves the viewer's view the same, unless the game's choices are all in
// plain sight (then every move is named, even one another move would have left the same state).
// Checked over random games of every registered game, for every viewer.
TEST(EngineGlueTest, DescriptionsNeverRevealWhatTheViewCannotTell) {
  engine::Registry registry = engine::AllGames();
  int hidden = 0, shown = 0;
  for (const engine::Game* game : registry.games()) {
    SCOPED_TRACE(game->name());
    std::vector<std::unique_ptr<engine::State>> played = PlayRandom(*game, 11);
    const engine::v1::GameRecord record = played.back()->Serialize();
    for (size_t v = 1; v < played.size(); ++v) {
      const engine::v1::LogEntry& entry = record.log(static_cast<int>(v));
      const engine::State& before = *played[v - 1];
      for (int viewer = 0; viewer < before.num_players(); ++viewer) {
        const std::string text = DescribeMove(before, entry, engine::Viewer::Seat(viewer));
        const std::string words = before.ActionToString(entry.seat(), entry.action());
        if (viewer == entry.seat()) {
          EXPECT_EQ(text, words);
          continue;
        }
        bool ambiguous = false;
        auto after_actual = played[v]->View(engine::Viewer::Seat(viewer));
        for (engine::Action other : before.LegalActions(entry.seat())) {
          if (other == entry.action()) continue;
          auto alt = before.Clone();
          ASSERT_TRUE(alt->Apply(entry.seat(), other).ok());
          if (google::protobuf::util::MessageDifferencer::Equals(
                  *alt->View(engine::Viewer::Seat(viewer)), *after_actual)) {
            ambiguous = true;
          }
        }
        if (ambiguous && !game->info().choices_public) {
          EXPECT_THAT(text, HasSubstr("hidden choice"));
          EXPECT_NE(text, words);
          ++hidden;
        } else {
          EXPECT_EQ(text, words);
          ++shown;
        }
      }
    }
  }
  EXPECT_GT(shown, 0);
  (void)hidden;
}

TEST(EngineGlueTest, LegalActionsRoundTripThroughAny) {
  engine::Registry registry = engine::AllGames();
  for (const engine::Game* game : registry.games()) {
    SCOPED_TRACE(game->name());
    std::vector<std::unique_ptr<engine::State>> played = PlayRandom(*game, 5);
    const engine::State& start = *played.front();
    for (int seat : start.ActingSeats().ToVector()) {
      std::vector<google::protobuf::Any> anys = LegalActionsAny(start, seat);
      std::vector<engine::Action> codes = start.LegalActions(seat);
      ASSERT_EQ(anys.size(), codes.size());
      for (size_t i = 0; i < anys.size(); ++i) {
        EXPECT_THAT(game->ActionFromAny(anys[i]), testing::IsOkAndHolds(codes[i]));
      }
    }
    // Another message type in the Any is refused.
    EXPECT_THAT(game->ActionFromAny(ViewAny(start, engine::Viewer::Spectator())),
                testing::StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_));
  }
}

TEST(EngineGlueTest, ParseRecordRejectsGarbage) {
  EXPECT_THAT(ParseRecord(std::string("\xff\xff\xff\x01garbage", 11)),
              testing::StatusIs(absl::StatusCode::kDataLoss, HasSubstr("does not parse")));
}

}  // namespace
}  // namespace parlor::sessions
