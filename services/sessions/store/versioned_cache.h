#ifndef PARLOR_SERVICES_SESSIONS_STORE_VERSIONED_CACHE_H_
#define PARLOR_SERVICES_SESSIONS_STORE_VERSIONED_CACHE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

namespace parlor::sessions {

// Something derived from the newest committed version of recently changed games (its snapshot
// bytes, its loaded engine state), so that a move need not read and decode it again. A value is
// only ever used for the exact version it was made from, which the caller compares with the
// version it has locked in the database, so an entry left behind by another replica's moves is
// merely ignored; only values of versions whose commit succeeded may be put here (a version
// number is then never reused for a different value). Bounded: a full shard drops an arbitrary
// entry. Values are shared and immutable, so a reader keeps its value while it is evicted.
template <typename T>
class VersionedCache {
 public:
  struct Entry {
    int64_t version = -1;
    std::shared_ptr<const T> value;
  };

  // `max_entries` 0 disables the cache.
  explicit VersionedCache(size_t max_entries)
      : max_per_shard_(max_entries == 0 ? 0 : (max_entries + kShards - 1) / kShards) {}

  // The cached entry of `game_id`, whatever its version.
  std::optional<Entry> Get(absl::string_view game_id) const {
    if (max_per_shard_ == 0) return std::nullopt;
    Shard& shard = ShardOf(game_id);
    absl::MutexLock lock(&shard.mu);
    auto it = shard.entries.find(game_id);
    if (it == shard.entries.end()) return std::nullopt;
    return it->second;
  }

  // The value made from exactly `version`, or null.
  std::shared_ptr<const T> Get(absl::string_view game_id, int64_t version) const {
    std::optional<Entry> entry = Get(game_id);
    if (!entry || entry->version != version) return nullptr;
    return entry->value;
  }

  // Keeps the newer of the cached and the given version.
  void Put(absl::string_view game_id, int64_t version, std::shared_ptr<const T> value) {
    if (max_per_shard_ == 0) return;
    Shard& shard = ShardOf(game_id);
    absl::MutexLock lock(&shard.mu);
    auto it = shard.entries.find(game_id);
    if (it != shard.entries.end()) {
      if (it->second.version < version) it->second = Entry{version, std::move(value)};
      return;
    }
    if (shard.entries.size() >= max_per_shard_) shard.entries.erase(shard.entries.begin());
    shard.entries.emplace(std::string(game_id), Entry{version, std::move(value)});
  }

  void Erase(absl::string_view game_id) {
    if (max_per_shard_ == 0) return;
    Shard& shard = ShardOf(game_id);
    absl::MutexLock lock(&shard.mu);
    shard.entries.erase(game_id);
  }

  size_t size() const {
    size_t n = 0;
    for (const Shard& shard : shards_) {
      absl::MutexLock lock(&shard.mu);
      n += shard.entries.size();
    }
    return n;
  }

 private:
  static constexpr size_t kShards = 16;
  struct Shard {
    mutable absl::Mutex mu;
    absl::flat_hash_map<std::string, Entry> entries ABSL_GUARDED_BY(mu);
  };
  Shard& ShardOf(absl::string_view game_id) const {
    return shards_[absl::Hash<absl::string_view>()(game_id) % kShards];
  }

  size_t max_per_shard_;
  mutable std::array<Shard, kShards> shards_;
};

// The newest committed snapshot bytes of recently changed games (PgSessionsStore).
using SnapshotCache = VersionedCache<std::string>;

}  // namespace parlor::sessions

#endif  // PARLOR_SERVICES_SESSIONS_STORE_VERSIONED_CACHE_H_
