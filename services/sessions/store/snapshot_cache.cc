#include "services/sessions/store/snapshot_cache.h"

#include <utility>

#include "absl/hash/hash.h"

namespace parlor::sessions {

SnapshotCache::SnapshotCache(size_t max_entries)
    : max_per_shard_(max_entries == 0 ? 0 : (max_entries + kShards - 1) / kShards) {}

SnapshotCache::Shard& SnapshotCache::ShardOf(absl::string_view game_id) const {
  return shards_[absl::Hash<absl::string_view>()(game_id) % kShards];
}

std::optional<SnapshotCache::Entry> SnapshotCache::Get(absl::string_view game_id) const {
  if (max_per_shard_ == 0) return std::nullopt;
  Shard& shard = ShardOf(game_id);
  absl::MutexLock lock(&shard.mu);
  auto it = shard.entries.find(game_id);
  if (it == shard.entries.end()) return std::nullopt;
  return it->second;
}

void SnapshotCache::Put(absl::string_view game_id, int64_t version, std::string snapshot) {
  if (max_per_shard_ == 0) return;
  auto shared = std::make_shared<const std::string>(std::move(snapshot));
  Shard& shard = ShardOf(game_id);
  absl::MutexLock lock(&shard.mu);
  auto it = shard.entries.find(game_id);
  if (it != shard.entries.end()) {
    if (it->second.version < version) it->second = Entry{version, std::move(shared)};
    return;
  }
  if (shard.entries.size() >= max_per_shard_) shard.entries.erase(shard.entries.begin());
  shard.entries.emplace(std::string(game_id), Entry{version, std::move(shared)});
}

void SnapshotCache::Erase(absl::string_view game_id) {
  if (max_per_shard_ == 0) return;
  Shard& shard = ShardOf(game_id);
  absl::MutexLock lock(&shard.mu);
  shard.entries.erase(game_id);
}

size_t SnapshotCache::size() const {
  size_t n = 0;
  for (const Shard& shard : shards_) {
    absl::MutexLock lock(&shard.mu);
    n += shard.entries.size();
  }
  return n;
}

}  // namespace parlor::sessions
