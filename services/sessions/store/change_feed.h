#ifndef PARLOR_SERVICES_SESSIONS_STORE_CHANGE_FEED_H_
#define PARLOR_SERVICES_SESSIONS_STORE_CHANGE_FEED_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace parlor::sessions {

// One committed change of a game: its new version and the accounts seated in it.
struct GameChange {
  std::string game_id;
  int64_t version = 0;
  std::vector<std::string> accounts;
  // True for a synthetic "you may have missed something" after the feed reconnected: no
  // game_id, every reader re-reads from its last version.
  bool resync = false;
};

// The replica's feed of committed game changes, as the store announces them (PostgreSQL's
// LISTEN/NOTIFY: PgChangeFeed in change_listener.h). Whoever follows it (the watch streams'
// hub) needs no database connection of its own.
class ChangeFeed {
 public:
  using OnChange = std::function<void(const GameChange&)>;
  virtual ~ChangeFeed() = default;

  // Starts calling `on_change` (on the feed's own thread; it must only queue work) for every
  // committed change, and with `resync = true` after a lost connection came back. Waits (up to
  // 10 s) until the feed is in place, so that a change committed after Start returns is seen.
  virtual void Start(OnChange on_change) = 0;
  // Stops the calls (none is running once it returns). Idempotent.
  virtual void Stop() = 0;
};

}  // namespace parlor::sessions

#endif  // PARLOR_SERVICES_SESSIONS_STORE_CHANGE_FEED_H_
