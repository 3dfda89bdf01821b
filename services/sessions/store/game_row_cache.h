#ifndef PARLOR_SERVICES_SESSIONS_STORE_GAME_ROW_CACHE_H_
#define PARLOR_SERVICES_SESSIONS_STORE_GAME_ROW_CACHE_H_

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
#include "services/sessions/store/rows.h"

namespace parlor::sessions {

// The game rows (with their seats) that this server's own committed writes left, each with the
// id of the transaction that wrote it. PostgreSQL stamps every row version with the id of the
// transaction that wrote it (`xmin`), and every write of a game's seats also rewrites its games
// row, so while the stored games row carries that id (and version), nothing has written the game
// since and the row here is the stored one: a read then asks the database only for the stamp
// (PgSessionsStore::ReadGameWithSeats) instead of the row and its seats.
//
// A game that other replicas also write would cost a stamp read and then the whole read: once a
// stamp has not matched, the game's reads go straight to the whole row, until one finds the row
// stamped by this server's newest write of it again. Bounded: a full shard drops an arbitrary
// entry. Rows are shared and immutable, so a reader keeps its row while it is evicted.
class GameRowCache {
 public:
  struct Entry {
    // The writing transaction's id as txid_current() gives it (epoch and 32-bit xid).
    uint64_t txid = 0;
    std::shared_ptr<const GameRow> row;
  };

  // `max_entries` 0 disables the cache.
  explicit GameRowCache(size_t max_entries)
      : max_per_shard_(max_entries == 0 ? 0 : (max_entries + kShards - 1) / kShards) {}

  // The 32-bit transaction id a row version's `xmin` shows for `txid`.
  static uint32_t Xid(uint64_t txid) { return static_cast<uint32_t>(txid & 0xffffffffU); }

  // The entry whose stamp a read should check, unless there is none or the game's last check
  // failed.
  std::optional<Entry> ToCheck(absl::string_view game_id) const {
    if (max_per_shard_ == 0) return std::nullopt;
    Shard& shard = ShardOf(game_id);
    absl::MutexLock lock(&shard.mu);
    auto it = shard.slots.find(game_id);
    if (it == shard.slots.end() || it->second.check_failed || !it->second.entry.row) {
      return std::nullopt;
    }
    return it->second.entry;
  }

  // The row as transaction `txid` committed it. Keeps the newer of this and the cached one, and
  // whether the game's last check failed.
  void Put(absl::string_view game_id, uint64_t txid, std::shared_ptr<const GameRow> row) {
    if (max_per_shard_ == 0) return;
    Shard& shard = ShardOf(game_id);
    absl::MutexLock lock(&shard.mu);
    auto it = shard.slots.find(game_id);
    if (it == shard.slots.end()) {
      if (shard.slots.size() >= max_per_shard_) shard.slots.erase(shard.slots.begin());
      it = shard.slots.emplace(std::string(game_id), Slot{}).first;
    } else if (it->second.entry.txid >= txid) {
      return;
    }
    it->second.entry = Entry{txid, std::move(row)};
  }

  // The stored games row showed `xid` and `version`: a row stamped otherwise is outdated (another
  // replica, or a statement outside this server, wrote the game since). Its stamp is checked
  // again only once a read finds the stored row stamped by the cached write.
  void Saw(absl::string_view game_id, uint32_t xid, int64_t version) {
    if (max_per_shard_ == 0) return;
    Shard& shard = ShardOf(game_id);
    absl::MutexLock lock(&shard.mu);
    auto it = shard.slots.find(game_id);
    if (it == shard.slots.end() || !it->second.entry.row) return;
    it->second.check_failed =
        Xid(it->second.entry.txid) != xid || it->second.entry.row->version != version;
  }

  size_t size() const {
    size_t n = 0;
    for (const Shard& shard : shards_) {
      absl::MutexLock lock(&shard.mu);
      n += shard.slots.size();
    }
    return n;
  }

 private:
  struct Slot {
    Entry entry;
    bool check_failed = false;
  };
  static constexpr size_t kShards = 16;
  struct Shard {
    mutable absl::Mutex mu;
    absl::flat_hash_map<std::string, Slot> slots ABSL_GUARDED_BY(mu);
  };
  Shard& ShardOf(absl::string_view game_id) const {
    return shards_[absl::Hash<absl::string_view>()(game_id) % kShards];
  }

  size_t max_per_shard_;
  mutable std::array<Shard, kShards> shards_;
};

}  // namespace parlor::sessions

#endif  // PARLOR_SERVICES_SESSIONS_STORE_GAME_ROW_CACHE_H_
