#include "services/common/core/flags.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
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
using ::testing::Not;

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

class SecretFlagsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           absl::StrCat("parlor-flags-test-", getpid(), "-",
                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string WriteFile(const std::string& name, const std::string& contents) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path) << contents;
    return path;
  }

  absl::Status Parse(std::vector<std::string> args) {
    flags_ = std::make_unique<Flags>("prog", [this](const std::string& name) {
      auto it = env_.find(name);
      return it == env_.end() ? std::nullopt : std::optional<std::string>(it->second);
    });
    flags_->Secret("db_url", &db_url_, "PostgreSQL URL", /*required=*/true);
    flags_->Secret("private_key", &private_key_, "signing key");
    args.insert(args.begin(), "prog");
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    return flags_->Parse(static_cast<int>(argv.size()), argv.data());
  }

  std::filesystem::path dir_;
  std::map<std::string, std::string> env_;
  std::unique_ptr<Flags> flags_;
  std::string db_url_;
  std::string private_key_;
};

TEST_F(SecretFlagsTest, SecretsComeFromFilesWithoutTheTrailingNewline) {
  env_["PARLOR_DB_URL_FILE"] = WriteFile("db_url", "host=/run/pg password=hunter2-secret\n");
  ASSERT_THAT(Parse({"--private_key_file", WriteFile("key", "c2VlZA==\r\n")}), IsOk());
  EXPECT_EQ(db_url_, "host=/run/pg password=hunter2-secret");
  EXPECT_EQ(private_key_, "c2VlZA==");
  EXPECT_THAT(flags_->secrets_on_command_line(), ::testing::IsEmpty());
}

TEST_F(SecretFlagsTest, ValueAndFileTogetherAreRefused) {
  env_["PARLOR_DB_URL"] = "host=/run/pg";
  EXPECT_THAT(Parse({"--db_url_file", WriteFile("db_url", "host=/other")}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("set --db_url or --db_url_file (PARLOR_DB_URL or "
                                 "PARLOR_DB_URL_FILE), not both")));
}

TEST_F(SecretFlagsTest, UnreadableOrEmptyFilesAreNamedButTheirContentsNever) {
  EXPECT_THAT(Parse({"--db_url_file", (dir_ / "missing").string(), "--private_key_file",
                     WriteFile("empty", "\n")}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("--db_url_file: cannot read the file"),
                             HasSubstr("--private_key_file: the file"), HasSubstr("is empty"))));
}

TEST_F(SecretFlagsTest, CommandLineSecretsAreReportedForAWarning) {
  ASSERT_THAT(Parse({"--db_url=host=/run/pg"}), IsOk());
  EXPECT_THAT(flags_->secrets_on_command_line(), ElementsAre("db_url"));
}

TEST_F(SecretFlagsTest, SecretValuesIncludeConnectionStringPasswords) {
  env_["PARLOR_PRIVATE_KEY"] = "c2VlZC1zZWNyZXQ=";
  ASSERT_THAT(Parse({"--db_url=postgresql://parlor:hunter2-secret@db:5432/parlor"}), IsOk());
  EXPECT_THAT(flags_->SecretValues(),
              ::testing::UnorderedElementsAre("postgresql://parlor:hunter2-secret@db:5432/parlor",
                                              "hunter2-secret", "c2VlZC1zZWNyZXQ="));
  ASSERT_THAT(Parse({"--db_url=host=db password='two words' user=parlor"}), IsOk());
  EXPECT_THAT(flags_->SecretValues(), ::testing::Contains("two words"));
  ASSERT_THAT(Parse({"--db_url=postgresql://db/parlor?user=parlor&password=pw-in-query"}), IsOk());
  EXPECT_THAT(flags_->SecretValues(), ::testing::Contains("pw-in-query"));
}

TEST_F(SecretFlagsTest, UsageNeverShowsASecret) {
  env_["PARLOR_DB_URL"] = "host=db password=hunter2-secret";
  ASSERT_THAT(Parse({}), IsOk());
  EXPECT_THAT(flags_->Usage(), AllOf(Not(HasSubstr("hunter2")), HasSubstr("--db_url_file")));
}

}  // namespace
}  // namespace parlor
