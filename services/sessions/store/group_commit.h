#ifndef PARLOR_SERVICES_SESSIONS_STORE_GROUP_COMMIT_H_
#define PARLOR_SERVICES_SESSIONS_STORE_GROUP_COMMIT_H_

#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "services/sessions/store/store.h"

namespace parlor::sessions {

// Group commit for state changes: callers on many threads hand in their change and wait; a few
// committer threads take whatever has queued up meanwhile (distinct games, oldest first) and
// write it with PgSessionsStore::UpdateGames, one transaction per batch. Under load a batch holds
// many moves, which share the database's per-statement and per-commit work; when idle a batch is a
// single move and costs one hand-off more than calling UpdateGame directly.
//
// Changes to one game are committed in the order they were handed in, never in the same batch:
// a change waits while a batch holding its game is being committed. Only one batch at a time is
// gathered and decided; the others meanwhile write and commit, so batches form a pipeline.
class GroupCommitter {
 public:
  struct Options {
    // Batches being committed at once (each holds one database connection meanwhile).
    int threads = 2;
    // Most changes in one batch.
    int max_batch = 64;
    // Called with each batch's size once it is committed (metrics).
    std::function<void(size_t)> on_batch;
    // Most changes waiting for a batch; more are refused as overload (UNAVAILABLE).
    size_t max_queued = 10000;
  };

  GroupCommitter(PgSessionsStore* store, Options options);
  // Commits what is queued, then stops the committers.
  ~GroupCommitter();
  GroupCommitter(const GroupCommitter&) = delete;
  GroupCommitter& operator=(const GroupCommitter&) = delete;

  // PgSessionsStore::UpdateGame's contract, committed in a batch. Blocks until the batch commits.
  absl::Status Update(absl::string_view txn_name, absl::string_view game_id,
                      const std::optional<IdempotencyKeyRef>& key,
                      const PgSessionsStore::Decide& decide);

  // The same without blocking: `done` gets the status on a committer thread once the batch has
  // committed (at once, UNAVAILABLE, when more than Options::max_queued changes wait or the
  // committer is stopping). `done` must not block for long: the next batch waits for it.
  using Done = std::function<void(absl::Status)>;
  void UpdateAsync(absl::string_view txn_name, absl::string_view game_id,
                   const std::optional<IdempotencyKeyRef>& key, PgSessionsStore::Decide decide,
                   Done done);

  // Batches committed and changes handed in so far (for tests and the load tool's report).
  struct Stats {
    long batches = 0;
    long changes = 0;
  };
  Stats stats() const;
  // Changes waiting for a batch.
  size_t queued() const;

 private:
  struct Pending {
    std::string txn_name;
    PgSessionsStore::GameUpdate update;
    Done done;
  };

  void Run();
  // A queued change whose game is in no batch being committed, or stopping with nothing queued.
  bool HasWork() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  PgSessionsStore* store_;
  const Options options_;
  // Held by the committer whose batch is being gathered, read and decided: the others wait for
  // it before taking their batch, so that moves queue up meanwhile and one batch decides (server
  // CPU) while another writes (database CPU).
  absl::Mutex deciding_;
  mutable absl::Mutex mu_;
  std::deque<std::unique_ptr<Pending>> queue_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_set<std::string> committing_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  Stats stats_ ABSL_GUARDED_BY(mu_);
  std::vector<std::thread> threads_;
};

}  // namespace parlor::sessions

#endif  // PARLOR_SERVICES_SESSIONS_STORE_GROUP_COMMIT_H_
