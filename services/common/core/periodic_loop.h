#ifndef PARLOR_SERVICES_COMMON_CORE_PERIODIC_LOOP_H_
#define PARLOR_SERVICES_COMMON_CORE_PERIODIC_LOOP_H_

#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "absl/time/time.h"

namespace parlor {

// A background loop on its own thread (blocking work, never on gRPC's threads): runs `tick`
// every `interval`, or at once when woken, until destroyed. The first tick comes after one
// interval (or a Wake), not at construction: a server builds its loops before its migrations
// have run. A zero interval starts no thread (tests drive the work themselves).
class PeriodicLoop {
 public:
  // `name` names its thread (NameThisThread), e.g. "sweeper".
  PeriodicLoop(std::string name, absl::Duration interval, std::function<void()> tick);
  ~PeriodicLoop();  // waits for a running tick
  PeriodicLoop(const PeriodicLoop&) = delete;
  PeriodicLoop& operator=(const PeriodicLoop&) = delete;

  // Runs the next tick now (or right after the running one) instead of at the interval.
  void Wake();

 private:
  void Run();

  const absl::Duration interval_;
  const std::function<void()> tick_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool woken_ = false;
  std::thread thread_;
};

}  // namespace parlor

#endif  // PARLOR_SERVICES_COMMON_CORE_PERIODIC_LOOP_H_
