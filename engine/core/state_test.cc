// The base State's behaviour, common to every game, on the fake game "Tally"
// (engine/conformance/fake_game.h): forfeits and ranks, replay, the seed check, records.

#include "engine/core/state.h"

#include "engine/conformance/fake_game.h"
#include "engine/core/game.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "google/protobuf/wrappers.pb.h"
#include "gtest/gtest.h"

namespace parlor::engine {
namespace {

using google::protobuf::util::MessageDifferencer;
using testing::ElementsAre;
using testing::HasSubstr;

class StateTest : public testing::Test {
 protected:
  std::unique_ptr<State> New(int players, std::map<std::string, std::string> options = {},
                             uint64_t seed = 1) {
    absl::StatusOr<Options> parsed = game_->ParseOptions(options, players);
    EXPECT_TRUE(parsed.ok()) << parsed.status();
    absl::StatusOr<std::unique_ptr<State>> state =
        game_->NewGame(players, *parsed, Seed::FromUint64(seed));
    EXPECT_TRUE(state.ok()) << state.status();
    return *std::move(state);
  }
  // Plays `moves` actions ("add 1" unless told otherwise) for whoever is to act.
  static void Play(State& state, int moves, Action action = 1) {
    for (int i = 0; i < moves && !state.IsTerminal(); ++i) {
      const int seat = state.ActingSeats().ToVector()[0];
      ASSERT_TRUE(state.Apply(seat, action).ok());
    }
  }

  std::unique_ptr<Game> game_ = conformance::MakeFakeGame();
};

TEST_F(StateTest, SeatSetBasics) {
  SeatSet set = SeatSet::Of(3);
  set.Insert(0);
  EXPECT_TRUE(set.Contains(0));
  EXPECT_FALSE(set.Contains(1));
  EXPECT_FALSE(set.Contains(-1));
  EXPECT_FALSE(set.Contains(40));
  EXPECT_EQ(set.size(), 2);
  EXPECT_THAT(set.ToVector(), ElementsAre(0, 3));
  set.Erase(3);
  EXPECT_EQ(set, SeatSet::Of(0));
  EXPECT_EQ(SeatSet::FirstN(32).size(), 32);
}

TEST_F(StateTest, AForfeitEndsATwoSidedGameWithTheForfeiterLast) {
  std::unique_ptr<State> s = New(2);
  Play(*s, 3, 2);  // seat 0 is ahead
  ASSERT_TRUE(s->Forfeit(0).ok());
  EXPECT_TRUE(s->IsTerminal());
  EXPECT_TRUE(s->ActingSeats().empty());
  const Outcome outcome = s->GetOutcome();
  EXPECT_THAT(outcome.ranks, ElementsAre(2, 1));
  EXPECT_EQ(outcome.reason, "seat 0 forfeited");
  EXPECT_EQ(s->NumMoves(), 4);
  EXPECT_EQ(s->Forfeit(1).code(), absl::StatusCode::kFailedPrecondition);
}

TEST_F(StateTest, InALargerGameTheForfeiterStaysAndRanksLastEarlierForfeitsLower) {
  std::unique_ptr<State> s = New(4);
  Play(*s, 2);
  ASSERT_TRUE(s->Forfeit(2).ok());
  EXPECT_FALSE(s->IsTerminal()) << "three sides remain";
  EXPECT_TRUE(s->IsForfeited(2));
  EXPECT_EQ(s->Forfeit(2).code(), absl::StatusCode::kFailedPrecondition) << "already forfeited";
  ASSERT_TRUE(s->Forfeit(0).ok());
  EXPECT_FALSE(s->IsTerminal()) << "two sides remain";
  // The forfeited seats are still played (by the random bot in the service) to the end.
  Play(*s, 40);
  ASSERT_TRUE(s->IsTerminal());
  const Outcome outcome = s->GetOutcome();
  EXPECT_EQ(outcome.ranks[2], 4) << "the first forfeit ranks last";
  EXPECT_EQ(outcome.ranks[0], 3) << "the later forfeit ranks above it";
  EXPECT_LE(outcome.ranks[1], 2);
  EXPECT_LE(outcome.ranks[3], 2);
  EXPECT_EQ(outcome.reason, "the counter reached the target");
}

TEST_F(StateTest, TheGameEndsWhenFewerThanTwoSidesRemain) {
  std::unique_ptr<State> s = New(3);
  ASSERT_TRUE(s->Forfeit(1).ok());
  EXPECT_FALSE(s->IsTerminal());
  ASSERT_TRUE(s->Forfeit(0).ok());
  ASSERT_TRUE(s->IsTerminal());
  EXPECT_THAT(s->GetOutcome().ranks, ElementsAre(2, 3, 1));
  EXPECT_EQ(s->GetOutcome().reason, "seat 0 forfeited");
}

TEST_F(StateTest, ATeamForfeitsWhenAnyOfItsPlayersDoes) {
  std::unique_ptr<State> s = New(4, {{"teams", "true"}});
  EXPECT_EQ(s->NumSides(), 2);
  ASSERT_TRUE(s->Forfeit(3).ok());
  EXPECT_TRUE(s->IsForfeited(1)) << "seat 1 is seat 3's team-mate";
  ASSERT_TRUE(s->IsTerminal());
  // Sides are ranked: the team that did not forfeit 1, the forfeiting team 2 (not 3).
  EXPECT_THAT(s->GetOutcome().ranks, ElementsAre(1, 2, 1, 2));
  EXPECT_THAT(s->Serialize().forfeits(), ElementsAre(1, 3));
}

TEST_F(StateTest, EveryViewTellsTheEndingAfterAForfeit) {
  std::unique_ptr<State> s = New(3);
  State::Ending running = s->GetEnding();
  EXPECT_FALSE(running.over);
  EXPECT_TRUE(running.ranks.empty());
  ASSERT_TRUE(s->Forfeit(1).ok());
  EXPECT_THAT(s->GetEnding().forfeited_seats, ElementsAre(1));
  EXPECT_FALSE(s->GetEnding().over) << "three sides: the game goes on";
  ASSERT_TRUE(s->Forfeit(2).ok());
  const State::Ending ended = s->GetEnding();
  EXPECT_TRUE(ended.over);
  EXPECT_THAT(ended.ranks, ElementsAre(1, 3, 2));
  EXPECT_EQ(ended.reason, "seat 2 forfeited");
  EXPECT_THAT(ended.forfeited_seats, ElementsAre(1, 2));
}

TEST_F(StateTest, AMessageAndItsCodeGetTheSameAnswerInTheOneOrder) {
  std::unique_ptr<State> s = New(2);
  google::protobuf::Int64Value add_two;
  add_two.set_value(2);
  google::protobuf::Any any;
  any.PackFrom(add_two);
  const int waiting = 1 - s->ActingSeats().ToVector()[0];
  EXPECT_EQ(s->CheckMessage(waiting, any).status(), s->CheckAction(waiting, 2));
  google::protobuf::Int64Value malformed;
  malformed.set_value(9);
  any.PackFrom(malformed);
  // Malformed + not your turn: the turn answer comes first.
  EXPECT_EQ(s->CheckMessage(waiting, any).status(), s->CheckAction(waiting, 2));
  EXPECT_EQ(s->CheckMessage(1 - waiting, any).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s->CheckMessage(5, any).status().code(), absl::StatusCode::kInvalidArgument);
  google::protobuf::Any other;
  other.PackFrom(google::protobuf::StringValue());
  EXPECT_EQ(s->CheckMessage(1 - waiting, other).status().code(),
            absl::StatusCode::kInvalidArgument);
  // Malformed + game over: the game-over answer.
  ASSERT_TRUE(s->Forfeit(0).ok());
  EXPECT_EQ(s->CheckMessage(0, any).status(), s->CheckAction(0, 2));
  EXPECT_EQ(s->CheckMessage(0, any).status().message(), "the game is over");
  // And a well-formed legal message is applied.
  std::unique_ptr<State> t = New(2);
  any.PackFrom(add_two);
  const int mover = t->ActingSeats().ToVector()[0];
  ASSERT_TRUE(t->CheckAction(mover, 2).ok());
  EXPECT_EQ(*t->ApplyMessage(mover, any), 2);
  EXPECT_EQ(t->NumMoves(), 1);
}

TEST_F(StateTest, ARefusedActionChangesNothing) {
  std::unique_ptr<State> s = New(2);
  const std::string before = s->SerializeToString();
  absl::Status status = s->Apply(1, 1);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(status.message(), "it is not seat 1's turn; waiting for seat 0");
  EXPECT_EQ(s->Apply(0, 9).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(s->Apply(2, 1).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s->Apply(-1, 1).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s->Forfeit(7).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s->SerializeToString(), before);
  EXPECT_TRUE(s->LegalActions(1).empty());
  EXPECT_TRUE(s->LegalActions(5).empty());
}

TEST_F(StateTest, ReplayFromTheRecordReproducesTheStateBitForBit) {
  std::unique_ptr<State> s = New(3, {}, 9);
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(s->Apply(s->ActingSeats().ToVector()[0], 3).ok());  // rolls: chance in actions
  }
  ASSERT_TRUE(s->Forfeit(1).ok());
  Play(*s, 40, 3);
  const v1::GameRecord record = s->Serialize();
  for (bool check_seed : {false, true}) {
    absl::StatusOr<std::unique_ptr<State>> replayed = game_->Replay(record, check_seed);
    ASSERT_TRUE(replayed.ok()) << replayed.status();
    EXPECT_EQ((*replayed)->SerializeToString(), s->SerializeToString());
  }
  EXPECT_EQ(s->rng_draws(), static_cast<uint64_t>(3 + record.log_size() - 2));
}

TEST_F(StateTest, TheSeedCheckDetectsATamperedOutcome) {
  std::unique_ptr<State> s = New(2, {}, 5);
  ASSERT_TRUE(s->Apply(0, 3).ok());
  v1::GameRecord record = s->Serialize();
  const int roll = record.log(1).outcomes(0);
  record.mutable_log(1)->set_outcomes(0, roll % 3 + 1);  // another face of the die
  absl::StatusOr<std::unique_ptr<State>> checked = game_->Replay(record, /*check_seed=*/true);
  EXPECT_EQ(checked.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(checked.status().message(), HasSubstr("does not match what the seed draws"));
  // Without the seed check the recorded outcome is taken as given.
  absl::StatusOr<std::unique_ptr<State>> taken = game_->Replay(record, /*check_seed=*/false);
  ASSERT_TRUE(taken.ok()) << taken.status();
  EXPECT_NE((*taken)->Scores(), s->Scores());
  // A secret bonus (setup chance) tampered with is caught the same way.
  record = s->Serialize();
  record.mutable_log(0)->set_outcomes(1, (record.log(0).outcomes(1) + 1) % 10);
  EXPECT_EQ(game_->Replay(record, true).status().code(), absl::StatusCode::kDataLoss);
  // An outcome outside the die's faces never replays.
  record = s->Serialize();
  record.mutable_log(1)->set_outcomes(0, 4);
  EXPECT_EQ(game_->Replay(record, false).status().code(), absl::StatusCode::kDataLoss);
}

TEST_F(StateTest, DeserializeRejectsMalformedRecords) {
  std::unique_ptr<State> s = New(2);
  Play(*s, 3);
  const v1::GameRecord good = s->Serialize();
  ASSERT_TRUE(game_->Deserialize(good).ok());
  auto rejected = [&](auto damage) {
    v1::GameRecord bad = good;
    damage(bad);
    return game_->Deserialize(bad).status().code() == absl::StatusCode::kInvalidArgument;
  };
  EXPECT_TRUE(rejected([](v1::GameRecord& r) { r.set_game("chess"); }));
  EXPECT_TRUE(rejected([](v1::GameRecord& r) { r.set_num_players(7); }));
  EXPECT_TRUE(rejected([](v1::GameRecord& r) { (*r.mutable_options())["target"] = 99; }));
  EXPECT_TRUE(rejected([](v1::GameRecord& r) { (*r.mutable_options())["colour"] = 1; }));
  EXPECT_TRUE(rejected([](v1::GameRecord& r) { r.set_seed("short"); }));
  EXPECT_TRUE(rejected([](v1::GameRecord& r) { r.mutable_log()->DeleteSubrange(0, 1); }));
  EXPECT_TRUE(rejected([](v1::GameRecord& r) { r.mutable_log(1)->set_seat(5); }));
  EXPECT_TRUE(
      rejected([](v1::GameRecord& r) { r.mutable_log(2)->set_kind(v1::LogEntry::KIND_SETUP); }));
  EXPECT_TRUE(rejected([](v1::GameRecord& r) { r.add_forfeits(1); }));
  // Found by fuzz_pico_state: a game "ended by forfeit" without any forfeit made GetOutcome (and
  // so every view of the game) read the last element of an empty list.
  EXPECT_TRUE(rejected([](v1::GameRecord& r) { r.set_ended_by_forfeit(true); }));
  EXPECT_TRUE(rejected([](v1::GameRecord& r) {
    for (int i = 0; i < 40; ++i) *r.add_log() = r.log(1);
  }));
  EXPECT_TRUE(rejected([](v1::GameRecord& r) { r.mutable_state()->set_value("garbage"); }));
  EXPECT_TRUE(rejected([](v1::GameRecord& r) { r.clear_state(); }));
}

TEST_F(StateTest, DeserializeChecksEndedByForfeitAgainstTheForfeits) {
  std::unique_ptr<State> s = New(2);
  Play(*s, 2);
  ASSERT_TRUE(s->Forfeit(1).ok());
  v1::GameRecord record = s->Serialize();
  ASSERT_TRUE(record.ended_by_forfeit());
  ASSERT_TRUE(game_->Deserialize(record).ok());
  record.set_ended_by_forfeit(false);
  EXPECT_EQ(game_->Deserialize(record).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(StateTest, NewGameWithOutcomesUsesTheGivenOutcomesThenTheSeed) {
  // Secret bonuses 7 and 2, then the first roll is a 3.
  absl::StatusOr<std::unique_ptr<State>> s =
      game_->NewGameWithOutcomes(2, *game_->ParseOptions({}, 2), Seed::FromUint64(1), {7, 2, 3});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_THAT((*s)->Scores(), ElementsAre(7, 2));
  ASSERT_TRUE((*s)->Apply(0, 3).ok());
  EXPECT_THAT((*s)->Scores(), ElementsAre(10, 2));
  ASSERT_TRUE((*s)->Apply(1, 3).ok());  // drawn from the seed now
  const int64_t second_roll = (*s)->Scores()[1] - 2;
  EXPECT_GE(second_roll, 1);
  EXPECT_LE(second_roll, 3);
  // A given outcome outside the range is refused.
  absl::StatusOr<std::unique_ptr<State>> bad =
      game_->NewGameWithOutcomes(2, *game_->ParseOptions({}, 2), Seed::FromUint64(1), {12, 2});
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kDataLoss);
}

TEST_F(StateTest, ResampleHiddenRedrawsOnlyWhatTheObserverCannotSee) {
  std::unique_ptr<State> s = New(3, {}, 4);
  Rng rng(8);
  std::set<int64_t> others_scores;
  for (int i = 0; i < 30; ++i) {
    std::unique_ptr<State> copy = s->ResampleHidden(0, rng);
    EXPECT_EQ(copy->Scores()[0], s->Scores()[0]) << "seat 0's own bonus is kept";
    EXPECT_NE(copy->seed(), s->seed()) << "the seed is hidden from every seat";
    others_scores.insert(copy->Scores()[1]);
  }
  EXPECT_GT(others_scores.size(), 1u);
}

TEST_F(StateTest, ForfeitsAndTheirOrderSurviveSerialization) {
  std::unique_ptr<State> s = New(4);
  ASSERT_TRUE(s->Forfeit(3).ok());
  Play(*s, 2);
  ASSERT_TRUE(s->Forfeit(1).ok());
  absl::StatusOr<std::unique_ptr<State>> loaded = game_->Deserialize(s->Serialize());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_TRUE((*loaded)->IsForfeited(3));
  EXPECT_TRUE((*loaded)->IsForfeited(1));
  EXPECT_EQ((*loaded)->SerializeToString(), s->SerializeToString());
  Play(**loaded, 40);
  Play(*s, 40);
  EXPECT_EQ((*loaded)->GetOutcome().ranks, s->GetOutcome().ranks);
  EXPECT_EQ(s->GetOutcome().ranks[3], 4);
  EXPECT_EQ(s->GetOutcome().ranks[1], 3);
}

TEST_F(StateTest, ARecordWithoutTheLogCountsTheMovesItLeavesOutAndGoesOnAlike) {
  std::unique_ptr<State> s = New(3, {}, 5);
  Play(*s, 4, 3);
  const v1::GameRecord record = s->Serialize(State::LogForm::kSetupOnly);
  EXPECT_EQ(record.log_size(), 1) << "the setup's entry only";
  EXPECT_EQ(record.omitted_entries(), 4);
  absl::StatusOr<std::unique_ptr<State>> loaded = game_->Deserialize(record);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ((*loaded)->NumMoves(), 4);
  EXPECT_EQ((*loaded)->Scores(), s->Scores());
  // The fifth move, made on both: the same record, and the loaded state holds its entry (the
  // sessions service stores it as the game's fifth log row) but not the first four.
  const int seat = s->ActingSeats().ToVector()[0];
  ASSERT_TRUE(s->Apply(seat, 3).ok());
  ASSERT_TRUE((*loaded)->Apply(seat, 3).ok());
  EXPECT_TRUE(MessageDifferencer::Equals((*loaded)->Serialize(State::LogForm::kSetupOnly),
                                         s->Serialize(State::LogForm::kSetupOnly)));
  ASSERT_TRUE((*loaded)->LogEntryAt(5).has_value());
  EXPECT_TRUE(MessageDifferencer::Equals(*(*loaded)->LogEntryAt(5), *s->LogEntryAt(5)));
  EXPECT_EQ((*loaded)->LogEntryAt(0)->kind(), v1::LogEntry::KIND_SETUP);
  EXPECT_FALSE((*loaded)->LogEntryAt(4).has_value()) << "left out of the record it came from";
  EXPECT_FALSE((*loaded)->LogEntryAt(6).has_value()) << "not made yet";
  // Serialized as held, it says which entries it lacks: the first four.
  const v1::GameRecord held = (*loaded)->Serialize();
  EXPECT_EQ(held.omitted_entries(), 4);
  EXPECT_EQ(held.log_size(), 2);
  absl::StatusOr<std::unique_ptr<State>> again = game_->Deserialize(held);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ((*again)->NumMoves(), 5);
}

TEST_F(StateTest, ARecordWithoutTheLogDoesNotReplay) {
  std::unique_ptr<State> s = New(2);
  Play(*s, 3);
  const absl::Status replayed =
      game_->Replay(s->Serialize(State::LogForm::kSetupOnly), false).status();
  EXPECT_EQ(replayed.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(replayed.message(), HasSubstr("leaves out 3 log entries"));
  // With nothing made yet there is nothing to leave out: the setup alone replays.
  EXPECT_TRUE(game_->Replay(New(2)->Serialize(State::LogForm::kSetupOnly), false).ok());
}

TEST_F(StateTest, ForfeitsLeftOutOfTheLogKeepTheirOrderAndRanks) {
  std::unique_ptr<State> s = New(4);
  ASSERT_TRUE(s->Forfeit(3).ok());
  Play(*s, 2);
  ASSERT_TRUE(s->Forfeit(1).ok());
  absl::StatusOr<std::unique_ptr<State>> loaded =
      game_->Deserialize(s->Serialize(State::LogForm::kSetupOnly));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_TRUE((*loaded)->IsForfeited(3));
  EXPECT_TRUE((*loaded)->IsForfeited(1));
  Play(**loaded, 40);
  Play(*s, 40);
  ASSERT_TRUE(s->IsTerminal());
  EXPECT_EQ((*loaded)->GetOutcome().ranks, s->GetOutcome().ranks)
      << "the later forfeit (seat 1) ranks above the earlier (seat 3)";
}

TEST_F(StateTest, ARecordWithoutTheLogIsCheckedAsStrictly) {
  std::unique_ptr<State> s = New(4, {{"teams", "true"}});
  Play(*s, 2);
  ASSERT_TRUE(s->Forfeit(2).ok());  // seats 0 and 2, one team: the game is over
  const v1::GameRecord good = s->Serialize(State::LogForm::kSetupOnly);
  ASSERT_THAT(good.forfeits(), ElementsAre(0, 2));
  ASSERT_TRUE(game_->Deserialize(good).ok());
  auto refusal = [&](auto damage) {
    v1::GameRecord bad = good;
    damage(bad);
    return game_->Deserialize(bad).status();
  };
  EXPECT_EQ(refusal([](v1::GameRecord& r) { r.set_omitted_entries(-1); }).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refusal([](v1::GameRecord& r) { r.set_omitted_entries(1000000); }).message(),
              HasSubstr("omitted_entries"));
  // Forfeits the log no longer shows must still be whole teams, each once, in seat order.
  EXPECT_THAT(refusal([](v1::GameRecord& r) { r.mutable_forfeits()->RemoveLast(); }).message(),
              HasSubstr("whole team"));
  EXPECT_THAT(
      refusal([](v1::GameRecord& r) { r.mutable_forfeits()->SwapElements(0, 1); }).message(),
      HasSubstr("whole team"));
  EXPECT_THAT(refusal([](v1::GameRecord& r) {
                r.add_forfeits(0);
                r.add_forfeits(2);
              }).message(),
              HasSubstr("more than once"));
  EXPECT_THAT(refusal([](v1::GameRecord& r) { r.set_forfeits(0, 9); }).message(),
              HasSubstr("out of range"));
  // A forfeit entry it holds must be the last team to forfeit.
  EXPECT_THAT(refusal([](v1::GameRecord& r) {
                r.set_omitted_entries(r.omitted_entries() - 1);
                v1::LogEntry* forfeit = r.add_log();
                forfeit->set_kind(v1::LogEntry::KIND_FORFEIT);
                forfeit->set_seat(1);
              }).message(),
              HasSubstr("do not match the log"));
}

}  // namespace
}  // namespace parlor::engine
