#include "services/sessions/store/group_commit.h"

#include <algorithm>
#include <utility>

#include "absl/synchronization/notification.h"
#include "services/common/core/thread_name.h"

namespace parlor::sessions {

GroupCommitter::GroupCommitter(PgSessionsStore* store, Options options)
    : store_(store), options_(options) {
  const int threads = std::max(1, options_.threads);
  for (int i = 0; i < threads; ++i)
    threads_.emplace_back([this] {
      NameThisThread("group-commit");
      Run();
    });
}

GroupCommitter::~GroupCommitter() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  for (std::thread& t : threads_) t.join();
}

absl::Status GroupCommitter::Update(absl::string_view txn_name, absl::string_view game_id,
                                    const std::optional<IdempotencyKeyRef>& key,
                                    const PgSessionsStore::Decide& decide) {
  absl::Notification finished;
  absl::Status result;
  UpdateAsync(txn_name, game_id, key, decide, [&](absl::Status status) {
    result = std::move(status);
    finished.Notify();
  });
  finished.WaitForNotification();
  return result;
}

void GroupCommitter::UpdateAsync(absl::string_view txn_name, absl::string_view game_id,
                                 const std::optional<IdempotencyKeyRef>& key,
                                 PgSessionsStore::Decide decide, Done done) {
  auto pending = std::make_unique<Pending>();
  pending->txn_name = std::string(txn_name);
  pending->update = PgSessionsStore::GameUpdate{std::string(game_id), key, std::move(decide)};
  pending->done = std::move(done);
  {
    absl::MutexLock lock(&mu_);
    if (!stopping_ && queue_.size() < options_.max_queued) {
      queue_.push_back(std::move(pending));
      return;
    }
  }
  pending->done(absl::UnavailableError("server overloaded or shutting down; retry with backoff"));
}

GroupCommitter::Stats GroupCommitter::stats() const {
  absl::MutexLock lock(&mu_);
  return stats_;
}

size_t GroupCommitter::queued() const {
  absl::MutexLock lock(&mu_);
  return queue_.size();
}

bool GroupCommitter::HasWork() const {
  if (stopping_ && queue_.empty()) return true;
  for (const std::unique_ptr<Pending>& p : queue_) {
    if (!committing_.contains(p->update.game_id)) return true;
  }
  return false;
}

void GroupCommitter::Run() {
  const size_t max_batch = static_cast<size_t>(std::max(1, options_.max_batch));
  for (;;) {
    std::vector<std::unique_ptr<Pending>> batch;
    deciding_.Lock();
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(this, &GroupCommitter::HasWork));
      if (queue_.empty() && stopping_) {
        deciding_.Unlock();
        return;
      }
      // Oldest first; a game already in a batch (being committed, or this one) waits its turn,
      // and so does every later change of the same game. Batches also keep to one transaction
      // name, so that the database metrics stay per kind of change.
      absl::flat_hash_set<std::string> blocked;
      for (auto it = queue_.begin(); it != queue_.end() && batch.size() < max_batch;) {
        Pending* p = it->get();
        const std::string& game = p->update.game_id;
        if (committing_.contains(game) || blocked.contains(game) ||
            (!batch.empty() && p->txn_name != batch.front()->txn_name)) {
          blocked.insert(game);
          ++it;
          continue;
        }
        committing_.insert(game);
        batch.push_back(std::move(*it));
        it = queue_.erase(it);
      }
      if (batch.empty()) {  // another committer took the work first
        deciding_.Unlock();
        continue;
      }
    }
    std::vector<PgSessionsStore::GameUpdate> updates;
    updates.reserve(batch.size());
    for (const std::unique_ptr<Pending>& p : batch) updates.push_back(p->update);
    std::vector<absl::Status> results =
        store_->UpdateGames(batch.front()->txn_name, updates, [this] { deciding_.Unlock(); });
    if (options_.on_batch) options_.on_batch(batch.size());
    {
      absl::MutexLock lock(&mu_);
      ++stats_.batches;
      stats_.changes += static_cast<long>(batch.size());
      for (const std::unique_ptr<Pending>& p : batch) committing_.erase(p->update.game_id);
    }
    // Outside the lock: a completion may hand in the next change of its game at once.
    for (size_t i = 0; i < batch.size(); ++i) batch[i]->done(std::move(results[i]));
  }
}

}  // namespace parlor::sessions
