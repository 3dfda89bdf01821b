#include "engine/core/rng.h"

#include <algorithm>
#include <array>
#include <numeric>

#include "gtest/gtest.h"

namespace parlor::engine {
namespace {

TEST(CounterRngTest, ReproducesTheChaCha20BlockOfRfc8439Section232) {
  // RFC 8439 2.3.2: key 00..1f, counter 1, nonce 00000009 0000004a 00000000. In our layout the
  // 64-bit draw number fills words 12–13 and the 64-bit attempt number words 14–15.
  Seed key;
  for (int i = 0; i < 32; ++i) key.bytes[i] = static_cast<uint8_t>(i);
  CounterRng rng(key);
  const uint64_t draw = 1 | uint64_t{0x09000000} << 32;
  const uint64_t attempt = 0x4a000000;
  EXPECT_EQ(rng.Bits(draw, attempt, 0), 0x15593bd1e4e7f110u);
  EXPECT_EQ(rng.Bits(draw, attempt, 1), 0xc47120a31fdd0f50u);
}

TEST(CounterRngTest, ADrawDependsOnlyOnSeedAndDrawNumber) {
  CounterRng a(Seed::FromUint64(42));
  CounterRng b(Seed::FromUint64(42));
  CounterRng c(Seed::FromUint64(43));
  EXPECT_EQ(a.Uniform(7, 1000000), b.Uniform(7, 1000000));
  EXPECT_NE(a.Bits(7, 0, 0), c.Bits(7, 0, 0));
  EXPECT_NE(a.Bits(7, 0, 0), a.Bits(8, 0, 0));
}

TEST(CounterRngTest, UniformStaysInRangeAndCoversEveryFace) {
  CounterRng rng(Seed::FromUint64(1));
  std::array<int, 6> counts{};
  for (uint64_t draw = 0; draw < 60000; ++draw) {
    const uint64_t face = rng.Uniform(draw, 6);
    ASSERT_LT(face, 6u);
    ++counts[face];
  }
  for (int c : counts) {
    EXPECT_GT(c, 9400);  // expected 10000 each; 6 sigma is about 550
    EXPECT_LT(c, 10600);
  }
}

TEST(CounterRngTest, UniformOfOneIsAlwaysZero) {
  CounterRng rng(Seed::FromUint64(9));
  for (uint64_t draw = 0; draw < 100; ++draw) EXPECT_EQ(rng.Uniform(draw, 1), 0u);
}

TEST(RngTest, ShuffleIsAPermutation) {
  Rng rng(5);
  std::vector<int> items(13);
  std::iota(items.begin(), items.end(), 0);
  rng.Shuffle(std::span<int>(items));
  std::vector<int> sorted = items;
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < 13; ++i) EXPECT_EQ(sorted[i], i);
}

TEST(RngTest, FastStreamRepeatsFromItsSeedStaysInRangeAndCoversEveryFace) {
  Rng a = Rng::Fast(7), b = Rng::Fast(7), other = Rng::Fast(8);
  int same_as_other = 0;
  std::array<int, 6> faces{};
  for (int i = 0; i < 6000; ++i) {
    const uint64_t x = a.Uniform(6);
    EXPECT_EQ(x, b.Uniform(6));
    same_as_other += x == other.Uniform(6);
    ASSERT_LT(x, 6u);
    ++faces[x];
  }
  // Another seed is another stream: about one draw in six agrees by chance.
  EXPECT_LT(same_as_other, 1500);
  for (int count : faces) EXPECT_GT(count, 800);
  const double u = a.UniformDouble();
  EXPECT_GE(u, 0.0);
  EXPECT_LT(u, 1.0);
  EXPECT_EQ(a.Uniform(1), 0u);
}

TEST(SeedTest, HexRoundTripAndErrors) {
  const Seed seed = Seed::FromUint64(0x0123456789abcdefu);
  absl::StatusOr<Seed> back = Seed::FromHex(seed.ToHex());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, seed);
  EXPECT_EQ(Seed::FromHex("abc").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Seed::FromHex(std::string(64, 'g')).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(SeedTest, CommitmentIsSha256OfTheSeedBytes) {
  Seed zero;  // 32 zero bytes
  EXPECT_EQ(SeedCommitment(zero),
            "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925");
}

TEST(BotDecisionSeedTest, IsSha256OfLabelSeedSeatAndPositionSoAnAuditCanRecomputeIt) {
  Seed zero;  // 32 zero bytes; seat 1 deciding at log position 7
  EXPECT_EQ(BotDecisionSeed(zero, 1, 7).ToHex(),
            "2a6445800dec4469f8eee54969a3f05409dac38e1f0f53df8bc69fbbcd4ddcef");
}

TEST(BotDecisionSeedTest, DiffersBySeedSeatAndPositionAndFromTheGameStream) {
  const Seed seed = Seed::FromUint64(42);
  const Seed base = BotDecisionSeed(seed, 0, 10);
  EXPECT_NE(base, seed);
  EXPECT_NE(base, BotDecisionSeed(Seed::FromUint64(43), 0, 10));
  EXPECT_NE(base, BotDecisionSeed(seed, 1, 10));
  EXPECT_NE(base, BotDecisionSeed(seed, 0, 11));
  EXPECT_EQ(base, BotDecisionSeed(seed, 0, 10));
}

}  // namespace
}  // namespace parlor::engine
