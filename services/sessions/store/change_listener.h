#ifndef PARLOR_SERVICES_SESSIONS_STORE_CHANGE_LISTENER_H_
#define PARLOR_SERVICES_SESSIONS_STORE_CHANGE_LISTENER_H_

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "absl/strings/string_view.h"
#include "services/sessions/store/change_feed.h"

namespace parlor::sessions {

// Parses a NOTIFY payload of the sessions channel, "<game_id>:<version>:<accounts>" (what
// Mutation::notify_payload says); false when malformed.
bool ParseGameChange(absl::string_view payload, GameChange* out);

// The ChangeFeed of PostgreSQL: the replica's one LISTEN connection on the channel every
// committed game change is NOTIFYed on. It reconnects after a lost connection and then reports a
// resync, since changes may have been missed meanwhile. Malformed payloads are dropped.
class PgChangeFeed final : public ChangeFeed {
 public:
  // `listen_db_url` is the connection string of this one connection. LISTEN needs a session of
  // its own on the PostgreSQL server, so when the pool goes through a transaction-pooling
  // PgBouncer, pass a direct connection here. The connection shows as `application_name` in
  // pg_stat_activity.
  PgChangeFeed(std::string listen_db_url, std::string application_name);
  ~PgChangeFeed() override;
  PgChangeFeed(const PgChangeFeed&) = delete;
  PgChangeFeed& operator=(const PgChangeFeed&) = delete;

  void Start(OnChange on_change) override;
  void Stop() override;

 private:
  void Run();
  // One connection's life: LISTEN, then deliver until stopped or the connection is lost (throws).
  // A resync is reported when an earlier connection had listened.
  void ListenOnce(bool* listened_before);

  const std::string listen_db_url_;
  const std::string application_name_;
  OnChange on_change_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool listening_ = false;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace parlor::sessions

#endif  // PARLOR_SERVICES_SESSIONS_STORE_CHANGE_LISTENER_H_
