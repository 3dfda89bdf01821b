#include "services/accounts/domain/validation.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/testing/status_matchers.h"

namespace parlor::accounts {
namespace {

using ::parlor::testing::IsOk;
using ::parlor::testing::StatusIs;
using ::testing::HasSubstr;

TEST(ValidationTest, DisplayNames) {
  for (const char* good :
       {"Ada", "ada_99", "Ada Lovelace", "x-y", "ABCDEFGHIJKLMNOPQRSTUVWX", "_-_", "A B"}) {
    EXPECT_THAT(ValidateDisplayName(good), IsOk()) << good;
  }
  struct Bad {
    std::string name;
    std::string message;
  };
  for (const Bad& bad : std::vector<Bad>{
           {"", "3-24 characters long; it has 0"},
           {"ab", "it has 2"},
           {std::string(25, 'a'), "it has 25"},
           {"Ada!", "found '!'"},
           {"Ada\tX", "found byte 0x09"},
           {"Zoë", "found byte 0xc3"},
           {" Ada", "must not start or end with a space"},
           {"Ada ", "must not start or end with a space"},
       }) {
    EXPECT_THAT(ValidateDisplayName(bad.name),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(bad.message)))
        << bad.name;
  }
}

TEST(ValidationTest, DeviceIds) {
  EXPECT_THAT(ValidateDeviceId("6F9619FF-8B86-D011-B42D-00CF4FC964FF"), IsOk());
  EXPECT_THAT(ValidateDeviceId(std::string(128, 'a')), IsOk());
  EXPECT_THAT(ValidateDeviceId(""),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("device_id is required")));
  EXPECT_THAT(ValidateDeviceId(std::string(129, 'a')),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("it has 129")));
  EXPECT_THAT(ValidateDeviceId("device 001"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("without spaces")));
  EXPECT_THAT(ValidateDeviceId(std::string("device\0001", 10)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("printable ASCII")));
}

TEST(ValidationTest, AccountIds) {
  EXPECT_TRUE(IsAccountId("123e4567-e89b-12d3-a456-426614174000"));
  EXPECT_FALSE(IsAccountId("123E4567-E89B-12D3-A456-426614174000"));
  EXPECT_FALSE(IsAccountId("123e4567e89b12d3a456426614174000"));
  EXPECT_FALSE(IsAccountId("'; DROP TABLE accounts; --"));
}

}  // namespace
}  // namespace parlor::accounts
