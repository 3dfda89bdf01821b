#include "services/common/core/utf8.h"

#include "gtest/gtest.h"

namespace parlor {
namespace {

TEST(CutUtf8Test, ShortTextIsKeptWhole) {
  EXPECT_EQ(CutUtf8("play 7", 6), "play 7");
  EXPECT_EQ(CutUtf8("", 0), "");
}

TEST(CutUtf8Test, ASequenceThatWouldNotFitWholeIsLeftOut) {
  // "7♠" is '7' then the three bytes E2 99 A0.
  EXPECT_EQ(CutUtf8("7\u2660", 4), "7\u2660");
  EXPECT_EQ(CutUtf8("7\u2660", 3), "7");
  EXPECT_EQ(CutUtf8("7\u2660", 2), "7");
  EXPECT_EQ(CutUtf8("7\u2660x", 4), "7\u2660");
  EXPECT_EQ(CutUtf8("abcdef", 3), "abc");
}

}  // namespace
}  // namespace parlor
