#include "services/common/core/flags.h"

#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/testing/status_matchers.h"

namespace parlor {
namespace {

using ::parlor::testing::IsOk;
using ::parlor::testing::StatusIs;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

struct TestConfig {
  std::string db_url;
  int port = 8080;
  bool verbose = false;
  absl::Duration drain = absl::Seconds(10);
  std::string log_format = "text";
};

class FlagsTest : public ::testing::Test {
 protected:
  absl::Status Parse(std::vector<std::string> args,
                     std::vector<std::string>* positional = nullptr) {
    Flags flags("prog", [this](const std::string& name) -> std::optional<std::string> {
      auto it = env_.find(name);
      if (it == env_.end()) return std::nullopt;
      return it->second;
    });
    flags.String("db_url", &config_.db_url, "PostgreSQL URL", /*required=*/true);
    flags.Int("port", &config_.port, "port", {.min = 0, .max = 65535});
    flags.Bool("verbose", &config_.verbose, "chatty");
    flags.Duration("drain", &config_.drain, "drain", absl::Seconds(1), absl::Minutes(5));
    flags.Choice("log_format", &config_.log_format, {"text", "json"}, "log format");
    args.insert(args.begin(), "prog");
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    return flags.Parse(static_cast<int>(argv.size()), argv.data(), positional);
  }

  std::map<std::string, std::string> env_;
  TestConfig config_;
};

TEST_F(FlagsTest, FlagsOverrideEnvironmentWhichOverridesDefaults) {
  env_["PARLOR_DB_URL"] = "postgresql://env";
  env_["PARLOR_PORT"] = "9000";
  ASSERT_THAT(Parse({"--port=9100", "--verbose", "--drain", "30s"}), IsOk());
  EXPECT_EQ(config_.db_url, "postgresql://env");
  EXPECT_EQ(config_.port, 9100);
  EXPECT_TRUE(config_.verbose);
  EXPECT_EQ(config_.drain, absl::Seconds(30));
  EXPECT_EQ(config_.log_format, "text");
}

TEST_F(FlagsTest, ReportsEveryProblemWithFlagAndVariableNames) {
  absl::Status status = Parse({"--port=99999", "--drain=forever", "--log_format=xml", "--nope=1"});
  EXPECT_THAT(status, StatusIs(absl::StatusCode::kInvalidArgument,
                               AllOf(HasSubstr("--db_url or set PARLOR_DB_URL"),
                                     HasSubstr("--port: 99999 is outside 0..65535"),
                                     HasSubstr("--drain: \"forever\" is not a duration"),
                                     HasSubstr("\"xml\" is not one of text|json"),
                                     HasSubstr("unknown flag --nope"))));
}

TEST_F(FlagsTest, EnvironmentValuesAreValidatedToo) {
  env_["PARLOR_DB_URL"] = "x";
  env_["PARLOR_PORT"] = "eighty";
  EXPECT_THAT(Parse({}), StatusIs(absl::StatusCode::kInvalidArgument,
                                  HasSubstr("PARLOR_PORT: \"eighty\" is not an integer")));
}

TEST_F(FlagsTest, PositionalArgumentsAreReturned) {
  std::vector<std::string> positional;
  ASSERT_THAT(Parse({"migrate", "--db_url=x"}, &positional), IsOk());
  EXPECT_THAT(positional, ElementsAre("migrate"));
}

TEST_F(FlagsTest, HelpReturnsUsage) {
  EXPECT_THAT(Parse({"--help"}), StatusIs(absl::StatusCode::kNotFound,
                                          AllOf(HasSubstr("--db_url (PARLOR_DB_URL) required"),
                                                HasSubstr("[default: 8080]"))));
}

}  // namespace
}  // namespace parlor
