#ifndef PARLOR_SERVICES_SESSIONS_STORE_CHANGE_LISTENER_H_
#define PARLOR_SERVICES_SESSIONS_STORE_CHANGE_LISTENER_H_

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace parlor::sessions {

// The replica's one LISTEN connection on the channel every committed game change is NOTIFYed
// on (the payload is what Mutation::notify_payload says). It reconnects after a lost
// connection and then calls `on_reconnect`, since changes may have been missed meanwhile.
// Callbacks run on the listener's thread.
class ChangeListener {
 public:
  // `listen_db_url` is the connection string of this one connection. LISTEN needs a session of
  // its own on the PostgreSQL server, so when the pool goes through a transaction-pooling
  // PgBouncer, pass a direct connection here.
  ChangeListener(std::string listen_db_url, std::function<void(const std::string&)> on_notify,
                 std::function<void()> on_reconnect);
  ~ChangeListener();
  ChangeListener(const ChangeListener&) = delete;
  ChangeListener& operator=(const ChangeListener&) = delete;

  // Starts the thread and waits (up to 10 s) for LISTEN to be in place.
  void Start();
  void Stop();

 private:
  void Run();

  const std::string listen_db_url_;
  const std::function<void(const std::string&)> on_notify_;
  const std::function<void()> on_reconnect_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool listening_ = false;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace parlor::sessions

#endif  // PARLOR_SERVICES_SESSIONS_STORE_CHANGE_LISTENER_H_
