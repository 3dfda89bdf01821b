#include "engine/core/options.h"

#include "gtest/gtest.h"

namespace parlor::engine {
namespace {

std::vector<OptionSpec> Specs() {
  return {OptionSpec::Int("rounds", "How many rounds.", 2, 2, 6),
          OptionSpec::Bool("snatch", "Claim window.", false),
          OptionSpec::Choice("master", "Master option.", {"none", "empty_palette", "brushes"}, 0)};
}

TEST(OptionsTest, DefaultsFillMissingOptions) {
  absl::StatusOr<Options> o = ParseOptions(Specs(), {});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->Get("rounds"), 2);
  EXPECT_FALSE(o->GetBool("snatch"));
  EXPECT_EQ(o->Get("master"), 0);
}

TEST(OptionsTest, ParsesEachType) {
  absl::StatusOr<Options> o =
      ParseOptions(Specs(), {{"rounds", "4"}, {"snatch", "true"}, {"master", "brushes"}});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->Get("rounds"), 4);
  EXPECT_TRUE(o->GetBool("snatch"));
  EXPECT_EQ(o->Get("master"), 2);
}

TEST(OptionsTest, BadValuesNameTheOptionAndWhatItAccepts) {
  absl::Status s = ParseOptions(Specs(), {{"rounds", "9"}}).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "option rounds must be an integer from 2 to 6; got \"9\"");
  s = ParseOptions(Specs(), {{"master", "paint"}}).status();
  EXPECT_EQ(s.message(),
            "option master must be one of none, empty_palette, brushes; got \"paint\"");
  s = ParseOptions(Specs(), {{"colour", "red"}}).status();
  EXPECT_EQ(s.message(),
            "unknown option \"colour\"; this game's options are: rounds, snatch, master");
  s = ParseOptions(Specs(), {{"snatch", "yes"}}).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
}

TEST(OptionsTest, AnIntOptionLimitedToSomeValuesUsesItsOwnRefusal) {
  const std::vector<OptionSpec> specs = {
      OptionSpec::IntOneOf("rounds", "Rounds.", 2, {2, 4, 6}, "rounds must be 2, 4 or 6")};
  EXPECT_EQ(ParseOptions(specs, {{"rounds", "4"}})->Get("rounds"), 4);
  for (const char* bad : {"3", "8", "0", "x"}) {
    absl::Status s = ParseOptions(specs, {{"rounds", bad}}).status();
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_EQ(s.message(), "rounds must be 2, 4 or 6") << bad;
  }
  EXPECT_FALSE(ValidateOptions(specs, {{"rounds", 5}}).ok());
}

TEST(OptionsTest, ValidateChecksTypedValues) {
  EXPECT_TRUE(ValidateOptions(Specs(), {{"rounds", 6}}).ok());
  EXPECT_FALSE(ValidateOptions(Specs(), {{"rounds", 7}}).ok());
  EXPECT_FALSE(ValidateOptions(Specs(), {{"master", 3}}).ok());
}

}  // namespace
}  // namespace parlor::engine
