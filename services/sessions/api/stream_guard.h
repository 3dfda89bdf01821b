#ifndef PARLOR_SERVICES_SESSIONS_API_STREAM_GUARD_H_
#define PARLOR_SERVICES_SESSIONS_API_STREAM_GUARD_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "services/common/core/rate_limit.h"
#include "services/common/core/token.h"
#include "services/sessions/domain/sessions_metrics.h"

namespace parlor::sessions {

// The bounds on WatchGame / WatchMyGames (every one has a flag; see sessions/README.md).
struct StreamLimits {
  // Open streams on this replica.
  int max_streams = 5000;
  // Open streams of one account on this replica.
  int max_streams_per_account = 8;
  // Stream opens of one account on this replica (token bucket).
  RateLimit opens_per_account = {.per_minute = 30, .burst = 10};
  // Streams of this replica still catching up on history (WatchGame with after_version >= 0
  // until it has reached the game's current version).
  int max_catching_up = 32;
  // Events one read sends at most (and so at most what a stream holds unsent).
  int page_size = 50;
  // History events (catch-up) sent per second by this replica's streams together, and by one
  // player's streams together (0 = no limit). A stream over either budget is not refused: its
  // next page is read once the budget has refilled, so catching up slows down, it never fails.
  int catch_up_events_per_second = 2000;
  int catch_up_events_per_second_per_account = 500;
  // Nice value of the threads that read for the streams (0-19): their catch-up work yields the
  // CPU to the unary calls' workers.
  int thread_nice = 10;
  // A stream whose client has not taken a message for this long is ended (ABORTED, telling the
  // version to resume from); if the client still does not read, it is cancelled this much later.
  absl::Duration stall_timeout = absl::Seconds(30);
  // How often open streams are checked for expired tokens, signed-out sessions and stalls.
  absl::Duration check_interval = absl::Milliseconds(200);
};

// Why a stream was refused or ended early (metric label values).
inline constexpr char kRefusedAccountStreams[] = "account_streams";
inline constexpr char kRefusedAccountOpens[] = "account_opens";
inline constexpr char kRefusedReplicaStreams[] = "replica_streams";
inline constexpr char kRefusedCatchUp[] = "catch_up";
inline constexpr char kRefusedSignedOut[] = "signed_out";
inline constexpr char kEndedTokenExpired[] = "token_expired";
inline constexpr char kEndedSignedOut[] = "signed_out";
inline constexpr char kEndedFellBehind[] = "fell_behind";
inline constexpr char kEndedOverloaded[] = "overloaded";

// A stream as the guard sees it.
class GuardedStream {
 public:
  virtual ~GuardedStream() = default;
  // Ends the stream with `status` (UNAUTHENTICATED for an expired token or a signed-out
  // session); false when it was already ending.
  virtual bool End(const absl::Status& status) = 0;
  // Periodic check at `now` (stalls); returns the metric reason if it ended the stream.
  virtual const char* Tick(absl::Time now) = 0;
};

// The replica's admission and watch over its streams: the per-account and per-replica limits
// at open, then a thread that ends every stream whose access token has expired or whose session
// was signed out (Revoke, fed by the accounts poller), and lets each stream check for stalls.
// Thread-safe.
class StreamGuard {
 public:
  using Clock = std::function<absl::Time()>;
  // `metrics` (may be null) counts a refusal at open and a stream ended by the guard (reason
  // constants above).
  StreamGuard(StreamLimits limits, Clock clock, SessionsMetrics* metrics = nullptr);
  ~StreamGuard();
  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;

  // Starts / stops the checking thread.
  void Start();
  void Stop();

  // Admits a new stream of the caller, or RESOURCE_EXHAUSTED with a retry delay (a limit) or
  // UNAUTHENTICATED (its session was signed out). `catching_up` takes a catch-up slot, given
  // back by CaughtUp or Release. The id is given to Attach and, when the stream is done, Release.
  absl::StatusOr<int64_t> Admit(const auth::Claims& caller, bool catching_up);
  void Attach(int64_t id, std::weak_ptr<GuardedStream> stream);
  void CaughtUp(int64_t id);
  void Release(int64_t id);

  // The catch-up budgets (catch_up_events_per_second*): how long stream `id` must wait before
  // it reads its next page of history (zero: now), and the events that page sent. A budget
  // may go below zero by one page; the wait is until it is above zero again.
  absl::Duration CatchUpWait(int64_t id, absl::Time now);
  void CatchUpSent(int64_t id, int events, absl::Time now);

  // Sessions signed out (or otherwise revoked); their streams end at the next check, which this
  // triggers at once. A session is remembered until `forget_after`.
  void Revoke(const std::vector<std::string>& session_ids, absl::Time forget_after);
  bool IsRevoked(absl::string_view session_id) const;

  // Runs one check now (the thread does this every check_interval).
  void CheckNow();

  int64_t streams() const;
  int64_t catching_up() const;
  const StreamLimits& limits() const { return limits_; }

 private:
  struct Entry {
    std::string account_id;
    std::string session_id;
    absl::Time expires_at;
    bool catching_up = false;
    std::weak_ptr<GuardedStream> stream;
  };
  // A token bucket of events: `rate` a second, holding at most one second's worth.
  struct Budget {
    double events = 0;
    absl::Time at = absl::InfinitePast();
    // Refills to `now`; how long until it holds more than zero events.
    absl::Duration Refill(int rate, absl::Time now);
  };
  void Run();
  bool IsRevokedLocked(absl::string_view session_id) const;

  const StreamLimits limits_;
  const Clock clock_;
  SessionsMetrics* const metrics_;
  RateLimiter opens_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool wake_ = false;
  std::thread thread_;
  int64_t next_id_ = 1;
  std::map<int64_t, Entry> entries_;
  absl::flat_hash_map<std::string, int> per_account_;
  int64_t catching_up_ = 0;
  absl::flat_hash_map<std::string, absl::Time> revoked_;  // session id -> forget after
  Budget replica_budget_;
  absl::flat_hash_map<std::string, Budget> account_budgets_;  // dropped once full again
};

}  // namespace parlor::sessions

#endif  // PARLOR_SERVICES_SESSIONS_API_STREAM_GUARD_H_
