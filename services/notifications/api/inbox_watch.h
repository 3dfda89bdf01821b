#ifndef PARLOR_SERVICES_NOTIFICATIONS_API_INBOX_WATCH_H_
#define PARLOR_SERVICES_NOTIFICATIONS_API_INBOX_WATCH_H_

#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "absl/time/time.h"
#include "parlor/notifications/v1/notifications.grpc.pb.h"
#include "services/common/core/rate_limit.h"
#include "services/common/core/thread_pool.h"
#include "services/common/core/token.h"
#include "services/notifications/domain/notifications_service.h"

namespace parlor::notifications {

// The bounds on WatchNotifications, per replica (as for sessions' streams).
struct WatchLimits {
  int max_streams = 2000;
  int max_streams_per_account = 4;
  RateLimit opens_per_account = {.per_minute = 30, .burst = 10};
  // How often the open streams' inboxes are looked at (one read for all of them); a change
  // made on this replica wakes them at once.
  absl::Duration poll_interval = absl::Seconds(1);
};

class InboxWatch;

// The open WatchNotifications streams of this replica: admission (the limits above), then a
// thread that every poll_interval (or when woken) reads the newest inbox id and unread count of
// every watched account in one statement, and lets a worker read and send what changed for the
// streams whose inbox moved; it also ends streams whose access token has expired. A stream holds
// at most one message unsent: it reads the next changes only once the client took the last.
class InboxWatchHub {
 public:
  using Clock = std::function<absl::Time()>;
  InboxWatchHub(NotificationsService* service, ThreadPool* workers, WatchLimits limits,
                Clock clock);
  ~InboxWatchHub();  // stops
  InboxWatchHub(const InboxWatchHub&) = delete;
  InboxWatchHub& operator=(const InboxWatchHub&) = delete;

  void Stop();
  // Looks at every stream now.
  void Wake();

  // A stream for `caller` from `after_id`, or one already finished with the refusal.
  grpc::ServerWriteReactor<v1::WatchNotificationsResponse>* Open(const auth::Claims& caller,
                                                                 int64_t after_id);
  int streams() const;

 private:
  friend class InboxWatch;
  void Remove(InboxWatch* watch);
  void Run();
  void Tick();

  NotificationsService* service_;
  ThreadPool* workers_;
  const WatchLimits limits_;
  const Clock clock_;
  RateLimiter opens_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool wake_ = false;
  std::set<InboxWatch*> watches_;
  std::map<std::string, int> per_account_;
  std::thread thread_;
};

}  // namespace parlor::notifications

#endif  // PARLOR_SERVICES_NOTIFICATIONS_API_INBOX_WATCH_H_
