#include "services/common/core/rate_limit.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace parlor {
namespace {

const absl::Time kStart = absl::FromUnixSeconds(1'800'000'000);

TEST(TokenBucketTest, AllowsTheBurstThenAsksToWaitForTheNextToken) {
  const RateLimit limit{.per_minute = 60, .burst = 3};  // one token a second
  TokenBucket bucket(limit, kStart);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(bucket.Take(limit, kStart), absl::ZeroDuration()) << i;
  EXPECT_EQ(bucket.Take(limit, kStart), absl::Seconds(1));
  EXPECT_EQ(bucket.Take(limit, kStart + absl::Milliseconds(400)), absl::Milliseconds(600));
  EXPECT_EQ(bucket.Take(limit, kStart + absl::Seconds(1)), absl::ZeroDuration());
  EXPECT_EQ(bucket.Take(limit, kStart + absl::Seconds(1)), absl::Seconds(1));
}

TEST(TokenBucketTest, RefillsNoFurtherThanTheBurst) {
  const RateLimit limit{.per_minute = 600, .burst = 2};
  TokenBucket bucket(limit, kStart);
  const absl::Time later = kStart + absl::Hours(1);
  EXPECT_EQ(bucket.Take(limit, later), absl::ZeroDuration());
  EXPECT_EQ(bucket.Take(limit, later), absl::ZeroDuration());
  EXPECT_EQ(bucket.Take(limit, later), absl::Milliseconds(100));
}

TEST(TokenBucketTest, AClockSteppingBackMintsNothing) {
  const RateLimit limit{.per_minute = 60, .burst = 1};
  TokenBucket bucket(limit, kStart);
  EXPECT_EQ(bucket.Take(limit, kStart), absl::ZeroDuration());
  EXPECT_EQ(bucket.Take(limit, kStart - absl::Minutes(5)), absl::Seconds(1));
  EXPECT_EQ(bucket.Take(limit, kStart + absl::Seconds(1)), absl::ZeroDuration());
}

TEST(TokenBucketTest, ReportsFullOnceRefilled) {
  const RateLimit limit{.per_minute = 60, .burst = 2};
  TokenBucket bucket(limit, kStart);
  EXPECT_TRUE(bucket.IsFull(limit, kStart));
  bucket.Take(limit, kStart);
  EXPECT_FALSE(bucket.IsFull(limit, kStart + absl::Milliseconds(999)));
  EXPECT_TRUE(bucket.IsFull(limit, kStart + absl::Seconds(1)));
}

TEST(RateLimiterTest, KeysHaveSeparateBuckets) {
  RateLimiter limiter({.per_minute = 60, .burst = 1});
  EXPECT_EQ(limiter.Take("ada", kStart), absl::ZeroDuration());
  EXPECT_EQ(limiter.Take("ada", kStart), absl::Seconds(1));
  EXPECT_EQ(limiter.Take("bob", kStart), absl::ZeroDuration());
  EXPECT_EQ(limiter.size(), 2u);
}

TEST(RateLimiterTest, ZeroRateOrBurstDisablesTheLimitAndStoresNothing) {
  for (RateLimit limit :
       {RateLimit{.per_minute = 0, .burst = 5}, RateLimit{.per_minute = 60, .burst = 0}}) {
    RateLimiter limiter(limit);
    EXPECT_FALSE(limiter.enabled());
    for (int i = 0; i < 100; ++i) EXPECT_EQ(limiter.Take("ada", kStart), absl::ZeroDuration());
    EXPECT_EQ(limiter.size(), 0u);
  }
}

TEST(RateLimiterTest, MemoryStaysBoundedUnderAFloodOfDistinctKeys) {
  constexpr size_t kMaxKeys = 1'600;
  RateLimiter limiter({.per_minute = 60, .burst = 5}, kMaxKeys);
  for (int i = 0; i < 100'000; ++i) {
    // Every key stays busy (its bucket is not full), so only the LRU eviction can make room.
    limiter.Take(absl::StrCat("attacker-", i), kStart + absl::Microseconds(i));
    ASSERT_LE(limiter.size(), kMaxKeys) << i;
  }
}

TEST(RateLimiterTest, EvictingRefilledBucketsKeepsBusyOnesLimited) {
  constexpr size_t kMaxKeys = 160;  // 10 per shard
  RateLimiter limiter({.per_minute = 60, .burst = 1}, kMaxKeys);
  EXPECT_EQ(limiter.Take("busy", kStart), absl::ZeroDuration());
  // Many idle keys come and go; once they have refilled they are dropped to make room.
  for (int i = 0; i < 2'000; ++i) {
    limiter.Take(absl::StrCat("idle-", i), kStart + absl::Seconds(10) + absl::Seconds(2 * i));
  }
  EXPECT_LE(limiter.size(), kMaxKeys);
  // "busy" refilled long ago, so forgetting it was harmless: it gets one call, then must wait.
  const absl::Time later = kStart + absl::Hours(2);
  EXPECT_EQ(limiter.Take("busy", later), absl::ZeroDuration());
  EXPECT_EQ(limiter.Take("busy", later), absl::Seconds(1));
}

}  // namespace
}  // namespace parlor
