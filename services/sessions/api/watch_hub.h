#ifndef PARLOR_SERVICES_SESSIONS_API_WATCH_HUB_H_
#define PARLOR_SERVICES_SESSIONS_API_WATCH_HUB_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "services/sessions/domain/sessions_metrics.h"
#include "services/sessions/store/change_feed.h"

namespace parlor::sessions {

// Fans the committed changes of the replica's ChangeFeed (the store's LISTEN) out to in-process
// subscribers (the WatchGame / WatchMyGames streams). Subscribers are called on the feed's
// thread and must only queue work. When the feed reports a resync (its connection came back),
// every subscriber is called with `resync = true`, so streams re-read from their last version
// and miss nothing.
class WatchHub {
 public:
  using Callback = std::function<void(const GameChange&)>;

  // `metrics` (may be null) counts the changes and resyncs the feed reports.
  WatchHub(std::unique_ptr<ChangeFeed> feed, SessionsMetrics* metrics);
  ~WatchHub();
  WatchHub(const WatchHub&) = delete;
  WatchHub& operator=(const WatchHub&) = delete;

  // Starts the feed and waits (up to 10 s) for it to be in place.
  void Start();
  void Stop();

  // Subscriptions by game and by account; the id unsubscribes.
  int64_t SubscribeGame(const std::string& game_id, Callback callback);
  int64_t SubscribeAccount(const std::string& account_id, Callback callback);
  // Every change and resync, whatever the game (the outbox dispatcher's wake-up: HubChangeFeed).
  int64_t SubscribeAll(Callback callback);
  void Unsubscribe(int64_t id);

  // Number of live subscriptions (streams, and followers such as a HubChangeFeed).
  int64_t subscribers() const;
  // Delivers a change as if the feed had reported it.
  void Dispatch(const GameChange& change);

 private:
  void Resync();

  mutable std::mutex mu_;
  int64_t next_id_ = 1;
  enum class Scope { kGame, kAccount, kAll };
  struct Entry {
    std::string key;
    Scope scope;
    Callback callback;
  };
  std::map<int64_t, std::shared_ptr<Entry>> entries_;
  std::multimap<std::string, int64_t> by_game_;
  std::multimap<std::string, int64_t> by_account_;
  std::vector<int64_t> all_;
  SessionsMetrics* const metrics_;
  // Last: stopped (by its destructor) before the subscriptions it dispatches to go away.
  std::unique_ptr<ChangeFeed> feed_;
};

// The hub's changes as a ChangeFeed of their own, so that another follower in the replica (the
// outbox dispatcher's loop) shares the hub's one LISTEN connection instead of opening a second:
// one PostgreSQL backend and one thread fewer woken on every committed change. The hub must be
// started first and outlive it. Once Stop returns, no call is running and none follows.
class HubChangeFeed final : public ChangeFeed {
 public:
  explicit HubChangeFeed(WatchHub* hub) : hub_(hub) {}
  ~HubChangeFeed() override;
  HubChangeFeed(const HubChangeFeed&) = delete;
  HubChangeFeed& operator=(const HubChangeFeed&) = delete;

  void Start(OnChange on_change) override;
  void Stop() override;

 private:
  // Shared with the hub's callback, which may still hold it while Stop runs.
  struct Receiver {
    std::mutex mu;
    OnChange on_change;  // empty once stopped
  };

  WatchHub* const hub_;
  std::shared_ptr<Receiver> receiver_;
  int64_t subscription_ = 0;
};

}  // namespace parlor::sessions

#endif  // PARLOR_SERVICES_SESSIONS_API_WATCH_HUB_H_
