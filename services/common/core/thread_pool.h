#ifndef PARLOR_SERVICES_COMMON_CORE_THREAD_POOL_H_
#define PARLOR_SERVICES_COMMON_CORE_THREAD_POOL_H_

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace parlor {

// A fixed set of worker threads with a bounded queue. Services run every blocking piece of work
// (PostgreSQL above all) here, never on gRPC's threads, so a slow database delays requests
// instead of starving the transport. The queue is bounded so overload turns into fast
// UNAVAILABLE answers instead of unbounded memory and latency.
//
// Work goes to the worker that went idle last (a LIFO of idle workers, each waiting on its own
// condition variable), not to whichever waiter a shared condition variable wakes (glibc wakes
// them in arrival order, so a pool of 64 passed each task to the thread idle longest). A few
// workers then carry a light load while the others sleep: their stacks, caches and allocator
// thread caches stay warm. Measured on the sessions server's 64 workers (docs/BENCHMARKS.md).
class ThreadPool {
 public:
  // Each worker thread is named `name` (NameThisThread: the first 15 bytes).
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
  // Workers waiting for work.
  int idle() const;
  int threads() const { return static_cast<int>(workers_.size()); }

 private:
  // One worker's wake-up: set under mu_ by whoever takes it off the idle stack.
  struct Waiter {
    std::condition_variable cv;
    bool woken = false;
  };

  void Work(Waiter* self);

  const std::string name_;
  const size_t max_queued_;
  mutable std::mutex mu_;
  std::deque<std::function<void()>> queue_;
  // Idle workers, the one idle shortest last.
  std::vector<Waiter*> idle_;
  bool stopping_ = false;
  std::vector<std::unique_ptr<Waiter>> waiters_;
  std::vector<std::thread> workers_;
};

}  // namespace parlor

#endif  // PARLOR_SERVICES_COMMON_CORE_THREAD_POOL_H_
