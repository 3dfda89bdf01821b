#ifndef PARLOR_SERVICES_SESSIONS_DOMAIN_GAME_FEED_H_
#define PARLOR_SERVICES_SESSIONS_DOMAIN_GAME_FEED_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "engine/core/state.h"
#include "services/sessions/domain/sessions.h"
#include "services/sessions/domain/summary.h"

namespace parlor::sessions {

// One watcher's reading of one game (WatchGame): the events after a version, page by page, then
// each new version as it commits. The feed keeps the engine state at the last version it handed
// out, so a page costs only its own log entries: the stored record is parsed once, when the feed
// starts (for the setup and the versions up to `after_version`), and every later page reads just
// its entries from the action log. Not thread-safe: one page at a time.
class GameFeed {
 public:
  // `after_version`: the last version the watcher has (-1: start with the current version).
  GameFeed(Sessions* sessions, std::string account_id, std::string game_id, int64_t after_version);
  ~GameFeed();

  // Up to `limit` events after the last one returned, each with the game's summary as of that
  // version; *more when a full page came back (there may be more at once). NOT_FOUND,
  // PERMISSION_DENIED as for GetHistory; OUT_OF_RANGE when `after_version` is beyond the game's
  // current version.
  absl::Status Next(int limit, std::vector<FeedItem>* out, bool* more);

  // The version of the last event handed out (after_version until the first one): where a
  // watcher that lost the stream resumes.
  int64_t last_version() const { return last_version_; }

 private:
  absl::Status Start();
  absl::Status ReadHead();
  GameSummary SummaryAt(int64_t version, absl::Time committed) const;

  Sessions* sessions_;
  const std::string account_id_;
  const std::string game_id_;
  int64_t last_version_;
  bool started_ = false;
  const engine::Game* game_ = nullptr;
  std::unique_ptr<engine::State> state_;  // at last_version_
  int seat_ = -1;                         // the watcher's seat; -1 for a spectator
  // The newest game row read, as the watcher's summary.
  GameSummary head_;
  bool finished_ = false;
};

}  // namespace parlor::sessions

#endif  // PARLOR_SERVICES_SESSIONS_DOMAIN_GAME_FEED_H_
