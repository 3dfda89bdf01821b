#ifndef PARLOR_SERVICES_COMMON_CORE_THREAD_POOL_H_
#define PARLOR_SERVICES_COMMON_CORE_THREAD_POOL_H_

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace parlor {

// A fixed set of worker threads with a bounded queue. Services run every blocking piece of work
// (PostgreSQL above all) here, never on gRPC's threads, so a slow database delays requests
// instead of starving the transport. The queue is bounded so overload turns into fast
// UNAVAILABLE answers instead of unbounded memory and latency.
class ThreadPool {
 public:
  ThreadPool(std::string name, int threads, size_t max_queued);
  // Runs whatever is already queued, then joins.
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Queues `task`; returns false (and does not run it) when the queue is full or the pool is
  // shutting down.
  [[nodiscard]] bool TrySubmit(std::function<void()> task);

  // Stops accepting work, finishes what is queued and joins the workers. Idempotent.
  void Shutdown();

  size_t queued() const;
  int threads() const { return static_cast<int>(workers_.size()); }

 private:
  void Work();

  const std::string name_;
  const size_t max_queued_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace parlor

#endif  // PARLOR_SERVICES_COMMON_CORE_THREAD_POOL_H_
