#ifndef PARLOR_SERVICES_SESSIONS_API_WATCH_HUB_H_
#define PARLOR_SERVICES_SESSIONS_API_WATCH_HUB_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "services/sessions/store/change_listener.h"

namespace parlor::sessions {

// One committed change, as announced on the NOTIFY channel: "<game_id>:<version>:<accounts>".
struct GameChange {
  std::string game_id;
  int64_t version = 0;
  std::vector<std::string> accounts;
  // True for a synthetic "you may have missed something" after the listener reconnected.
  bool resync = false;
};

// Parses a NOTIFY payload; false when malformed.
bool ParseGameChange(absl::string_view payload, GameChange* out);

// Fans the committed changes the replica's ChangeListener hears out to in-process
// subscribers (the WatchGame / WatchMyGames streams). Subscribers are called on the listener
// thread and must only queue work. After a lost connection it reconnects and calls every
// subscriber with `resync = true`, so streams re-read from their last version and miss nothing.
class WatchHub {
 public:
  using Callback = std::function<void(const GameChange&)>;

  // `listen_db_url`: the connection string of the replica's LISTEN connection (a direct
  // connection to PostgreSQL, also when the pool goes through PgBouncer).
  explicit WatchHub(std::string listen_db_url);
  ~WatchHub();
  WatchHub(const WatchHub&) = delete;
  WatchHub& operator=(const WatchHub&) = delete;

  // Starts the listener and waits (up to 10 s) for LISTEN to be in place.
  void Start();
  void Stop();

  // Subscriptions by game and by account; the id unsubscribes.
  int64_t SubscribeGame(const std::string& game_id, Callback callback);
  int64_t SubscribeAccount(const std::string& account_id, Callback callback);
  void Unsubscribe(int64_t id);

  // Number of live subscriptions (streams).
  int64_t subscribers() const;
  // Delivers a change as if it had been NOTIFYed (the listener calls this).
  void Dispatch(const GameChange& change);

 private:
  void Resync();

  mutable std::mutex mu_;
  int64_t next_id_ = 1;
  struct Entry {
    std::string key;
    bool by_game;
    Callback callback;
  };
  std::map<int64_t, std::shared_ptr<Entry>> entries_;
  std::multimap<std::string, int64_t> by_game_;
  std::multimap<std::string, int64_t> by_account_;
  // Last: stopped (by its destructor) before the subscriptions it dispatches to go away.
  ChangeListener listener_;
};

}  // namespace parlor::sessions

#endif  // PARLOR_SERVICES_SESSIONS_API_WATCH_HUB_H_
