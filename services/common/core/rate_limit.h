#ifndef PARLOR_SERVICES_COMMON_CORE_RATE_LIMIT_H_
#define PARLOR_SERVICES_COMMON_CORE_RATE_LIMIT_H_

#include <array>
#include <cstddef>
#include <mutex>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace parlor {

// How fast one key (an account, a device, a peer address) may call: `per_minute` tokens refill
// continuously into a bucket holding at most `burst`; each call takes one. A rate of 0 disables
// the limit.
struct RateLimit {
  int per_minute = 0;
  int burst = 0;

  bool enabled() const { return per_minute > 0 && burst > 0; }
};

// One token bucket. Pure: the caller passes the time, so tests drive it with a fake clock.
class TokenBucket {
 public:
  // A new bucket is full.
  TokenBucket(const RateLimit& limit, absl::Time now);

  // Takes one token if there is one and returns zero; otherwise takes nothing and returns how
  // long until a token will be there.
  absl::Duration Take(const RateLimit& limit, absl::Time now);

  // True once the bucket has refilled completely, i.e. forgetting it changes nothing.
  bool IsFull(const RateLimit& limit, absl::Time now) const;

  absl::Time last_update() const { return last_update_; }

 private:
  void Refill(const RateLimit& limit, absl::Time now);

  double tokens_;
  absl::Time last_update_;
};

// Token buckets by key, with bounded memory. Thread-safe; keys are spread over shards so
// concurrent callers rarely share a lock. A bucket that has refilled completely is
// indistinguishable from a new one, so such buckets are dropped whenever a shard reaches its
// share of `max_keys`; if a flood of distinct keys keeps every bucket busy, the least recently
// used half of the shard is dropped (those keys then start again with a full bucket — the price
// of the memory bound).
class RateLimiter {
 public:
  explicit RateLimiter(RateLimit limit, size_t max_keys = 100'000);

  // Zero if `key` may make a call now (and counts it); otherwise how long to wait.
  absl::Duration Take(absl::string_view key, absl::Time now);

  bool enabled() const { return limit_.enabled(); }
  const RateLimit& limit() const { return limit_; }

  // Buckets currently held (for tests and metrics).
  size_t size() const;

 private:
  static constexpr size_t kShards = 16;

  struct Shard {
    mutable std::mutex mu;
    absl::flat_hash_map<std::string, TokenBucket> buckets;
  };

  void MakeRoom(Shard& shard, absl::Time now);

  RateLimit limit_;
  size_t max_keys_per_shard_;
  std::array<Shard, kShards> shards_;
};

}  // namespace parlor

#endif  // PARLOR_SERVICES_COMMON_CORE_RATE_LIMIT_H_
