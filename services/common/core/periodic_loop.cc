#include "services/common/core/periodic_loop.h"

#include <utility>

#include "services/common/core/thread_name.h"

namespace parlor {

PeriodicLoop::PeriodicLoop(std::string name, absl::Duration interval, std::function<void()> tick)
    : interval_(interval), tick_(std::move(tick)) {
  if (interval_ > absl::ZeroDuration()) {
    thread_ = std::thread([this, name = std::move(name)] {
      NameThisThread(name);
      Run();
    });
  }
}

PeriodicLoop::~PeriodicLoop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void PeriodicLoop::Wake() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    woken_ = true;
  }
  cv_.notify_all();
}

void PeriodicLoop::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    cv_.wait_for(lock, absl::ToChronoMilliseconds(interval_), [this] { return stop_ || woken_; });
    if (stop_) break;
    woken_ = false;
    lock.unlock();
    tick_();
    lock.lock();
  }
}

}  // namespace parlor
