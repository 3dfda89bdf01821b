#ifndef PARLOR_SERVICES_RATINGS_DOMAIN_READ_CACHE_H_
#define PARLOR_SERVICES_RATINGS_DOMAIN_READ_CACHE_H_

// Building blocks of the ratings read caches: SingleFlight (concurrent misses of one key wait for
// one load instead of all going to the database) and LruCache (a bounded map whose bound is a
// cost, e.g. the number of board entries held).

#include <cstddef>
#include <functional>
#include <future>
#include <list>
#include <map>
#include <mutex>
#include <optional>
#include <utility>

#include "absl/status/statusor.h"

namespace parlor::ratings {

// Runs at most one load per key at a time: a caller that finds a load of its key in progress waits
// for it and gets its result (an error included) instead of starting another. Once a load ends,
// the next caller starts a new one, so the loader itself should store its result in a cache
// before returning. Thread-safe.
template <typename Key, typename Value>
class SingleFlight {
 public:
  // `load()` is called on the calling thread, with no lock held. `*shared` (if given) is set to
  // whether the result came from another caller's load.
  absl::StatusOr<Value> Do(const Key& key, const std::function<absl::StatusOr<Value>()>& load,
                           bool* shared = nullptr) {
    std::promise<absl::StatusOr<Value>> promise;
    std::shared_future<absl::StatusOr<Value>> pending;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = in_flight_.find(key);
      if (it != in_flight_.end()) {
        pending = it->second;
        ++joined_;
      } else {
        in_flight_.emplace(key, promise.get_future().share());
      }
    }
    if (shared != nullptr) *shared = pending.valid();
    if (pending.valid()) return pending.get();
    absl::StatusOr<Value> result = load();
    {
      std::lock_guard<std::mutex> lock(mu_);
      in_flight_.erase(key);
    }
    promise.set_value(result);
    return result;
  }

  // Loads in progress, and how many calls so far joined another's load (for tests).
  size_t in_flight() {
    std::lock_guard<std::mutex> lock(mu_);
    return in_flight_.size();
  }
  size_t joined() {
    std::lock_guard<std::mutex> lock(mu_);
    return joined_;
  }

 private:
  std::mutex mu_;
  size_t joined_ = 0;
  std::map<Key, std::shared_future<absl::StatusOr<Value>>> in_flight_;
};

// A map of at most `max_cost` total cost (each value's cost given when it is put), evicting the
// least recently used values first. A value costing more than the bound is not kept. Not
// thread-safe: the owner locks.
template <typename Key, typename Value>
class LruCache {
 public:
  explicit LruCache(size_t max_cost) : max_cost_(max_cost) {}

  // The value of `key`, now the most recently used, or nullopt.
  std::optional<Value> Get(const Key& key) {
    auto it = map_.find(key);
    if (it == map_.end()) return std::nullopt;
    order_.splice(order_.begin(), order_, it->second.position);
    return it->second.value;
  }

  void Put(const Key& key, Value value, size_t cost) {
    Erase(key);
    if (cost > max_cost_) return;
    order_.push_front(key);
    map_.emplace(key, Slot{std::move(value), cost, order_.begin()});
    cost_ += cost;
    while (cost_ > max_cost_) {
      const Key oldest = order_.back();
      Erase(oldest);
    }
  }

  void Erase(const Key& key) {
    auto it = map_.find(key);
    if (it == map_.end()) return;
    cost_ -= it->second.cost;
    order_.erase(it->second.position);
    map_.erase(it);
  }

  void Clear() {
    map_.clear();
    order_.clear();
    cost_ = 0;
  }

  size_t size() const { return map_.size(); }
  size_t cost() const { return cost_; }

 private:
  struct Slot {
    Value value;
    size_t cost;
    typename std::list<Key>::iterator position;
  };
  const size_t max_cost_;
  size_t cost_ = 0;
  std::list<Key> order_;  // most recently used first
  std::map<Key, Slot> map_;
};

}  // namespace parlor::ratings

#endif  // PARLOR_SERVICES_RATINGS_DOMAIN_READ_CACHE_H_
