#ifndef PARLOR_SERVICES_SESSIONS_STORE_SNAPSHOT_CACHE_H_
#define PARLOR_SERVICES_SESSIONS_STORE_SNAPSHOT_CACHE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

namespace parlor::sessions {

// The newest committed snapshot of recently changed games, so that a move reads its game's
// snapshot from memory instead of from PostgreSQL, which must decompress it and send it as
// text. A cached snapshot is only ever used for the exact version the database holds (the
// statement that locks the row compares versions and sends the stored snapshot when they
// differ), so an entry left behind by another replica's moves is merely ignored; only
// snapshots whose commit succeeded may be put here. Bounded: a shard that is full drops an
// arbitrary entry.
class SnapshotCache {
 public:
  struct Entry {
    int64_t version = -1;
    std::shared_ptr<const std::string> snapshot;
  };

  // `max_entries` 0 disables the cache.
  explicit SnapshotCache(size_t max_entries);

  std::optional<Entry> Get(absl::string_view game_id) const;
  // Keeps the newer of the cached and the given version.
  void Put(absl::string_view game_id, int64_t version, std::string snapshot);
  void Erase(absl::string_view game_id);
  size_t size() const;

 private:
  static constexpr size_t kShards = 16;
  struct Shard {
    mutable absl::Mutex mu;
    absl::flat_hash_map<std::string, Entry> entries ABSL_GUARDED_BY(mu);
  };
  Shard& ShardOf(absl::string_view game_id) const;

  size_t max_per_shard_;
  mutable std::array<Shard, kShards> shards_;
};

}  // namespace parlor::sessions

#endif  // PARLOR_SERVICES_SESSIONS_STORE_SNAPSHOT_CACHE_H_
