#include "services/common/core/thread_pool.h"

#include <utility>

#include "services/common/core/thread_name.h"

namespace parlor {

ThreadPool::ThreadPool(std::string name, int threads, size_t max_queued)
    : name_(std::move(name)), max_queued_(max_queued) {
  waiters_.reserve(threads);
  workers_.reserve(threads);
  idle_.reserve(threads);
  for (int i = 0; i < threads; ++i) {
    Waiter* waiter = waiters_.emplace_back(std::make_unique<Waiter>()).get();
    workers_.emplace_back([this, waiter] { Work(waiter); });
  }
}

ThreadPool::~ThreadPool() { Shutdown(); }

bool ThreadPool::TrySubmit(std::function<void()> task) {
  Waiter* wake = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_ || queue_.size() >= max_queued_) return false;
    queue_.push_back(std::move(task));
    if (!idle_.empty()) {
      wake = idle_.back();
      idle_.pop_back();
      wake->woken = true;
    }
  }
  // Busy workers look at the queue before they go idle, so nobody needs waking then.
  if (wake != nullptr) wake->cv.notify_one();
  return true;
}

void ThreadPool::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    idle_.clear();
  }
  for (const std::unique_ptr<Waiter>& waiter : waiters_) waiter->cv.notify_one();
  for (std::thread& worker : workers_) {
    if (worker.joinable()) worker.join();
  }
}

size_t ThreadPool::queued() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.size();
}

int ThreadPool::idle() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(idle_.size());
}

void ThreadPool::Work(Waiter* self) {
  NameThisThread(name_);
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    if (!queue_.empty()) {
      std::function<void()> task = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      task();
      task = nullptr;  // its captures go before the lock is taken again
      lock.lock();
      continue;
    }
    if (stopping_) return;  // stopping and drained
    self->woken = false;
    idle_.push_back(self);
    self->cv.wait(lock, [&] { return self->woken || stopping_; });
  }
}

}  // namespace parlor
