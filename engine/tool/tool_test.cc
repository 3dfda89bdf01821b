// parlor-engine in process: every command, and one-line errors with exit code 2.

#include "engine/tool/tool.h"

#include <sstream>
#include <string>
#include <vector>

#include "engine/games/all_games.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "parlor/engine/v1/record.pb.h"

namespace parlor::engine_tool {
namespace {

using testing::HasSubstr;
using testing::StartsWith;

struct Result {
  int code;
  std::string out;
  std::string err;
};

class ToolTest : public testing::Test {
 protected:
  Result Run(const std::vector<std::string>& args, const std::string& input = "") {
    std::istringstream in(input);
    std::ostringstream out, err;
    const int code = RunTool(registry_, args, in, out, err);
    return {code, out.str(), err.str()};
  }
  // Errors are exactly one line on stderr, exit code 2, nothing on stdout.
  void ExpectOneLineError(const Result& r, const std::string& fragment) {
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_THAT(r.err, StartsWith("parlor-engine: "));
    EXPECT_THAT(r.err, HasSubstr(fragment));
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  std::string NewPico() {
    Result r = Run({"new", "--game", "pico", "--players", "2", "--seed", "42"});
    EXPECT_EQ(r.code, 0) << r.err;
    return r.out;
  }

  engine::Registry registry_ = engine::AllGames();
};

TEST_F(ToolTest, GamesListsPicoWithItsOptions) {
  Result r = Run({"games"});
  EXPECT_EQ(r.code, 0);
  EXPECT_THAT(r.out, HasSubstr("pico (Pico): 2 players"));
  EXPECT_THAT(r.out, HasSubstr("--option rounds=2..6 (default 2)"));
}

TEST_F(ToolTest, NewWritesAGameRecordInJson) {
  const std::string json = NewPico();
  engine::v1::GameRecord record;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(json, &record).ok());
  EXPECT_EQ(record.game(), "pico");
  EXPECT_EQ(record.num_players(), 2);
  EXPECT_EQ(record.options().at("rounds"), 2);
  EXPECT_EQ(record.log_size(), 1);
  EXPECT_EQ(record.log(0).outcomes_size(), 13);
  EXPECT_EQ(NewPico(), json) << "the same seed deals the same game";
}

TEST_F(ToolTest, LegalApplyViewAndVerify) {
  const std::string state = NewPico();
  Result legal = Run({"legal", "--seat", "0"}, state);
  ASSERT_EQ(legal.code, 0) << legal.err;
  EXPECT_THAT(legal.out, HasSubstr("\"action\": {\"card\":"));
  EXPECT_THAT(legal.out, HasSubstr("\"text\": \"play "));
  engine::v1::GameRecord record;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(state, &record).ok());
  const int ann_card = record.log(0).outcomes(0);  // the first card of the deal is seat 0's
  const int ben_card = record.log(0).outcomes(6);
  Result one =
      Run({"apply", "--seat", "0", "--action", absl::StrCat("{\"card\": ", ann_card, "}")}, state);
  ASSERT_EQ(one.code, 0) << one.err;
  Result ben_view = Run({"view", "--seat", "1"}, one.out);
  ASSERT_EQ(ben_view.code, 0) << ben_view.err;
  EXPECT_THAT(ben_view.out, HasSubstr("\"has_chosen\": true"));
  EXPECT_THAT(ben_view.out, testing::Not(HasSubstr("pending_card")));
  Result ann_view = Run({"view", "--seat", "0"}, one.out);
  EXPECT_THAT(ann_view.out, HasSubstr(absl::StrCat("\"pending_card\": ", ann_card)));
  Result two = Run({"apply", "--seat", "1", "--code", absl::StrCat(ben_card)}, one.out);
  ASSERT_EQ(two.code, 0) << two.err;
  Result all = Run({"view", "--all"}, two.out);
  EXPECT_THAT(all.out, HasSubstr("\"tricks\""));
  EXPECT_EQ(Run({"view", "--spectator"}, two.out).code, 0);
  std::string log = two.out;
  Result verify = Run({"verify", "-"}, log);
  EXPECT_EQ(verify.code, 0) << verify.err;
  EXPECT_EQ(verify.out, "OK\n");
  Result replay = Run({"replay", "-"}, log);
  EXPECT_EQ(replay.code, 0);
  EXPECT_EQ(replay.out, two.out);
}

TEST_F(ToolTest, PlayoutPlaysToTheEndAndVerifies) {
  for (const std::string bot : {"random", "kind_first", "greedy", "mc", "easy", "medium", "hard"}) {
    Result end = Run({"playout", "--bot", bot, "--seed", "5"}, NewPico());
    ASSERT_EQ(end.code, 0) << bot << ": " << end.err;
    Result view = Run({"view", "--spectator"}, end.out);
    EXPECT_THAT(view.out, HasSubstr("\"game_over\": true")) << bot;
    EXPECT_EQ(Run({"verify", "-"}, end.out).out, "OK\n") << bot;
  }
}

TEST_F(ToolTest, VerifyRecomputesEveryBotDecisionFromBotDecisionRng) {
  // playout draws every decision from BotDecisionRng(seed, seat, moves so far), as the sessions
  // service does, so verify can recompute each one.
  Result end = Run({"playout", "--bot", "medium", "--seed", "9"}, NewPico());
  ASSERT_EQ(end.code, 0) << end.err;
  Result both = Run({"verify", "-", "--bot", "0=medium", "--bot", "1=greedy"}, end.out);
  EXPECT_EQ(both.code, 0) << both.err;
  EXPECT_THAT(both.out, StartsWith("OK ("));
  EXPECT_THAT(both.out, HasSubstr("bot decisions recomputed"));
  // Claiming that another bot played the seat: its decisions differ somewhere.
  ExpectOneLineError(Run({"verify", "-", "--bot", "0=easy"}, end.out),
                     "bot decisions differ from what BotDecisionRng gives: log entry ");
  ExpectOneLineError(Run({"verify", "-", "--bot", "2=easy"}, end.out),
                     "--bot must be SEAT=LEVEL with a seat from 0 to 1");
  ExpectOneLineError(Run({"verify", "-", "--bot", "0=clever"}, end.out), "unknown bot");
  // The hard bot's decisions are recomputed too: it is deterministic given its stream.
  Result hard = Run({"playout", "--bot", "hard", "--seed", "9"}, NewPico());
  ASSERT_EQ(hard.code, 0) << hard.err;
  EXPECT_EQ(Run({"verify", "-", "--bot", "0=hard", "--bot", "1=hard"}, hard.out).code, 0);
}

TEST_F(ToolTest, ApplyFollowsTheOneOrderOfRefusals) {
  const std::string state = NewPico();
  engine::v1::GameRecord record;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(state, &record).ok());
  const int ann_card = record.log(0).outcomes(0);
  Result chosen =
      Run({"apply", "--seat", "0", "--action", absl::StrCat("{\"card\": ", ann_card, "}")}, state);
  ASSERT_EQ(chosen.code, 0) << chosen.err;
  // Seat 0 has chosen: a malformed card is told to wait, not that the card does not exist.
  ExpectOneLineError(Run({"apply", "--seat", "0", "--action", "{\"card\": 14}"}, chosen.out),
                     "you already chose a card for this trick");
  ExpectOneLineError(Run({"apply", "--seat", "1", "--action", "{\"card\": 14}"}, chosen.out),
                     "there is no Pico card 14");
  // After the end, a malformed card gets the game-over refusal.
  Result end = Run({"playout", "--bot", "random"}, state);
  ExpectOneLineError(Run({"apply", "--seat", "0", "--action", "{\"card\": 14}"}, end.out), "over");
}

TEST_F(ToolTest, VerifyReportsTheFirstDifference) {
  Result end = Run({"playout", "--bot", "random"}, NewPico());
  engine::v1::GameRecord record;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(end.out, &record).ok());
  record.set_rng_draws(record.rng_draws() + 1);
  std::string tampered;
  ASSERT_TRUE(google::protobuf::util::MessageToJsonString(record, &tampered).ok());
  ExpectOneLineError(Run({"verify", "-"}, tampered), "rng_draws");
  // A recorded outcome that the seed would not draw fails the seed check.
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(end.out, &record).ok());
  auto* deal = record.mutable_log(0)->mutable_outcomes();
  std::swap(deal->at(0), deal->at(12));
  tampered.clear();
  ASSERT_TRUE(google::protobuf::util::MessageToJsonString(record, &tampered).ok());
  ExpectOneLineError(Run({"verify", "-"}, tampered), "does not match what the seed draws");
}

TEST_F(ToolTest, EveryErrorIsOneLineAndExitCodeTwo) {
  const std::string state = NewPico();
  ExpectOneLineError(Run({}), "usage");
  ExpectOneLineError(Run({"dance"}), "unknown command \"dance\"");
  ExpectOneLineError(Run({"new", "--game", "chess"}), "chess");
  ExpectOneLineError(Run({"new", "--game", "pico", "--players", "3"}), "exactly 2 players");
  ExpectOneLineError(Run({"new", "--game", "pico", "--option", "rounds=3"}),
                     "rounds must be 2, 4 or 6");
  ExpectOneLineError(Run({"new", "--game", "pico", "--option", "speed=9"}), "unknown option");
  ExpectOneLineError(Run({"new", "--game", "pico", "--seed", "x"}), "--seed");
  ExpectOneLineError(Run({"new", "--game"}), "--game needs a value");
  ExpectOneLineError(Run({"legal", "--seat", "0"}, "{not json"), "not a valid");
  ExpectOneLineError(Run({"legal", "--seat", "5"}, state), "--seat 5 does not exist");
  ExpectOneLineError(Run({"legal"}, state), "--seat is required");
  ExpectOneLineError(Run({"apply", "--seat", "0", "--action", "{\"card\": 14}"}, state),
                     "there is no Pico card 14");
  ExpectOneLineError(Run({"apply", "--seat", "0", "--action", "{\"colour\": 1}"}, state),
                     "--action is not a valid parlor.games.v1.PicoAction");
  ExpectOneLineError(Run({"apply", "--seat", "0"}, state), "exactly one of --action");
  ExpectOneLineError(Run({"view"}, state), "exactly one of --seat");
  ExpectOneLineError(Run({"view", "--seat", "0", "--colour", "red"}, state),
                     "unknown flag --colour");
  ExpectOneLineError(Run({"playout", "--bot", "clever"}, state), "unknown bot \"clever\"");
  ExpectOneLineError(Run({"verify"}), "give the LOG file");
  ExpectOneLineError(Run({"verify", "/nonexistent/log.json"}), "cannot open /nonexistent/log.json");
  ExpectOneLineError(Run({"legal", "--seat", "0"}, "{\"game\": \"pico\"}"),
                     "exactly 2 players; got 0");
  ExpectOneLineError(Run({"legal", "--seat", "0"}, "{\"game\": \"pico\", \"num_players\": 2}"),
                     "record: a seed is 32 bytes; got 0 bytes");
}

TEST_F(ToolTest, AnIllegalMoveIsRefusedWithTheRule) {
  const std::string state = NewPico();
  engine::v1::GameRecord record;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(state, &record).ok());
  const int face_up = record.log(0).outcomes(12);
  ExpectOneLineError(
      Run({"apply", "--seat", "0", "--code", absl::StrCat(face_up)}, state),
      absl::StrCat("card ", face_up, " is not in your hand: it is the face-up card"));
}

}  // namespace
}  // namespace parlor::engine_tool
