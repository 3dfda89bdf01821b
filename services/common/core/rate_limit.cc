#include "services/common/core/rate_limit.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/hash/hash.h"

namespace parlor {
namespace {

double PerSecond(const RateLimit& limit) { return limit.per_minute / 60.0; }

}  // namespace

TokenBucket::TokenBucket(const RateLimit& limit, absl::Time now)
    : tokens_(limit.burst), last_update_(now) {}

void TokenBucket::Refill(const RateLimit& limit, absl::Time now) {
  // A clock stepping backwards (another replica's view, NTP) must not mint tokens or go negative.
  if (now <= last_update_) return;
  const double elapsed = absl::ToDoubleSeconds(now - last_update_);
  tokens_ = std::min<double>(limit.burst, tokens_ + elapsed * PerSecond(limit));
  last_update_ = now;
}

absl::Duration TokenBucket::Take(const RateLimit& limit, absl::Time now) {
  Refill(limit, now);
  if (tokens_ >= 1.0) {
    tokens_ -= 1.0;
    return absl::ZeroDuration();
  }
  // Round up to whole milliseconds so a client that waits exactly this long finds a token.
  const double wait_ms = std::ceil((1.0 - tokens_) / PerSecond(limit) * 1000.0);
  return absl::Milliseconds(std::max(1.0, wait_ms));
}

bool TokenBucket::IsFull(const RateLimit& limit, absl::Time now) const {
  const double elapsed = std::max(0.0, absl::ToDoubleSeconds(now - last_update_));
  return tokens_ + elapsed * PerSecond(limit) >= limit.burst;
}

RateLimiter::RateLimiter(RateLimit limit, size_t max_keys)
    : limit_(limit), max_keys_per_shard_(std::max<size_t>(1, max_keys / kShards)) {}

absl::Duration RateLimiter::Take(absl::string_view key, absl::Time now) {
  if (!limit_.enabled()) return absl::ZeroDuration();
  Shard& shard = shards_[absl::Hash<absl::string_view>()(key) % kShards];
  std::lock_guard<std::mutex> lock(shard.mu);
  auto it = shard.buckets.find(key);
  if (it == shard.buckets.end()) {
    if (shard.buckets.size() >= max_keys_per_shard_) MakeRoom(shard, now);
    it = shard.buckets.emplace(std::string(key), TokenBucket(limit_, now)).first;
  }
  return it->second.Take(limit_, now);
}

void RateLimiter::MakeRoom(Shard& shard, absl::Time now) {
  absl::erase_if(shard.buckets,
                 [&](const auto& entry) { return entry.second.IsFull(limit_, now); });
  if (shard.buckets.size() < max_keys_per_shard_) return;
  std::vector<absl::Time> updates;
  updates.reserve(shard.buckets.size());
  for (const auto& [key, bucket] : shard.buckets) updates.push_back(bucket.last_update());
  auto middle = updates.begin() + updates.size() / 2;
  std::nth_element(updates.begin(), middle, updates.end());
  const absl::Time cutoff = *middle;
  absl::erase_if(shard.buckets,
                 [&](const auto& entry) { return entry.second.last_update() <= cutoff; });
}

size_t RateLimiter::size() const {
  size_t total = 0;
  for (const Shard& shard : shards_) {
    std::lock_guard<std::mutex> lock(shard.mu);
    total += shard.buckets.size();
  }
  return total;
}

}  // namespace parlor
