#ifndef PARLOR_SERVICES_NOTIFICATIONS_DOMAIN_DELIVERY_H_
#define PARLOR_SERVICES_NOTIFICATIONS_DOMAIN_DELIVERY_H_

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"
#include "services/notifications/domain/model.h"
#include "services/notifications/store/notifications_store.h"

namespace parlor::notifications {

// What a provider made of one push.
struct SendResult {
  enum class Outcome {
    kAccepted,   // the provider took it (APNs 200, FCM 200)
    kDeadToken,  // the token will never work again (APNs 410 / BadDeviceToken, FCM UNREGISTERED)
    kTransient,  // try again later (429, 5xx, network trouble, our credentials being renewed)
    kRejected,   // the provider refused this push (other 4xx); permanent after a few attempts
  };
  Outcome outcome = Outcome::kTransient;
  // The provider's Retry-After, when it sent one.
  std::optional<absl::Duration> retry_after;
  // For the log and the queue row: "HTTP 400 BadDeviceToken".
  std::string detail;
};

// Sends pushes to one provider. Not thread-safe: each sender thread has its own (and so its own
// HTTP/2 connection).
class PushSender {
 public:
  virtual ~PushSender() = default;
  virtual SendResult Send(const Push& push) = 0;
  // Every push at once (the providers' adapters: concurrent streams of one HTTP/2 connection);
  // one result per push, in order. By default one after the other.
  virtual std::vector<SendResult> SendAll(const std::vector<const Push*>& pushes) {
    std::vector<SendResult> results;
    results.reserve(pushes.size());
    for (const Push* push : pushes) results.push_back(Send(*push));
    return results;
  }
};

// Makes a sender for a platform; null when that platform is not configured (its pushes are then
// dropped and counted as result="unconfigured").
using SenderFactory = std::function<std::unique_ptr<PushSender>(Platform)>;

struct DeliveryOptions {
  int threads = 4;
  int batch = 200;
  // Pushes a sender thread has in flight at once, as streams of its HTTP/2 connection to a
  // provider (1: one push at a time).
  int in_flight = 100;
  absl::Duration lease = absl::Seconds(60);
  // How often idle senders look for due retries (new events wake them at once).
  absl::Duration poll_interval = absl::Milliseconds(250);
  // Capped exponential backoff of transient failures: base, 2 base, 4 base, ... up to cap; a
  // provider's Retry-After is honoured when it is longer.
  absl::Duration backoff_base = absl::Seconds(1);
  absl::Duration backoff_cap = absl::Minutes(10);
  // Other 4xx answers: given up after this many attempts.
  int rejected_attempts = 3;
  // Transient failures: given up after this many attempts.
  int max_attempts = 15;
  // Every sender thread wakes for each accepted batch of events (the former way: all but one
  // found nothing, or a few pushes each). By default one wakes, and a sender that claims a full
  // batch wakes another.
  bool wake_all = false;
};

// The service's delivery metrics:
//   parlor_notifications_deliveries_total{platform,result}  every outcome of every attempt:
//       delivered, retry, rejected, dead_token, expired, gave_up, unconfigured
//   parlor_notifications_commit_to_acceptance_seconds{platform}  from the event's commit at its
//       sender to the provider's acceptance
//   parlor_notifications_dead_tokens_total{platform}  devices removed because the provider
//       reported their token dead
//   parlor_notifications_queue_depth (every queued push), parlor_notifications_queue_oldest_age_
//       seconds (of the oldest push that is due: not waiting for quiet hours or a retry)
//   parlor_notifications_events_total{outcome}  accepted / duplicate / too_old events (too_old:
//       committed before the inbox's retention, acknowledged and not stored)
//   parlor_notifications_events_pruned_total  stored events deleted after the retention
//   parlor_notifications_turns_pruned_total  turn state of games over deleted after it
//   parlor_notifications_prune_failures_total  prune rounds that failed
class DeliveryMetrics {
 public:
  explicit DeliveryMetrics(prometheus::Registry* registry);
  void Count(Platform platform, const std::string& result);
  void Latency(Platform platform, absl::Duration latency);
  void DeadToken(Platform platform);
  void Queue(int64_t depth, absl::Duration oldest_age);
  void Events(int accepted, int duplicates, int too_old);
  void Pruned(int events, int turns);
  void PruneFailed();

 private:
  prometheus::Family<prometheus::Counter>* deliveries_ = nullptr;
  prometheus::Family<prometheus::Histogram>* latency_ = nullptr;
  prometheus::Family<prometheus::Counter>* dead_tokens_ = nullptr;
  prometheus::Gauge* depth_ = nullptr;
  prometheus::Gauge* oldest_age_ = nullptr;
  prometheus::Counter* accepted_ = nullptr;
  prometheus::Counter* duplicates_ = nullptr;
  prometheus::Counter* too_old_ = nullptr;
  prometheus::Counter* pruned_ = nullptr;
  prometheus::Counter* turns_pruned_ = nullptr;
  prometheus::Counter* prune_failures_ = nullptr;
};

// Claims due pushes, sends them, and settles each outcome: accepted, refused for good, expired
// and dead-token pushes leave the queue (a dead token's device is deleted at once), transient
// failures come back after the backoff.
class Deliverer {
 public:
  using Clock = std::function<absl::Time()>;
  Deliverer(NotificationsStore* store, DeliveryMetrics* metrics, Clock clock,
            DeliveryOptions options);

  // The per-thread senders, made on first use of each platform.
  class Senders {
   public:
    explicit Senders(SenderFactory factory) : factory_(std::move(factory)) {}
    PushSender* For(Platform platform);

   private:
    SenderFactory factory_;
    std::unique_ptr<PushSender> apns_;
    std::unique_ptr<PushSender> fcm_;
    bool apns_made_ = false;
    bool fcm_made_ = false;
  };

  // One round: claims up to options.batch due pushes and settles them. Returns how many it
  // claimed.
  absl::StatusOr<int> DeliverOnce(Senders& senders);
  // Refreshes the queue gauges.
  absl::Status UpdateQueueGauges();

  // When a transient failure after `attempts` attempts is retried.
  absl::Time RetryTime(absl::Time now, int attempts,
                       std::optional<absl::Duration> retry_after) const;

  const DeliveryOptions& options() const { return options_; }

 private:
  // Settles one push the provider answered (at `after`) into `done` or `retries`.
  void Settle(const Push& push, const SendResult& result, absl::Time after,
              std::vector<int64_t>& done, std::vector<NotificationsStore::Retry>& retries);

  NotificationsStore* store_;
  DeliveryMetrics* metrics_;
  Clock clock_;
  DeliveryOptions options_;
};

// options.threads sender threads running Deliverer rounds: one at once when Wake() is called
// (events were accepted; a busy sender runs another round when it is done), else every
// poll_interval. Stops and joins on destruction.
class DeliveryLoop {
 public:
  DeliveryLoop(Deliverer* deliverer, SenderFactory factory);
  ~DeliveryLoop();
  DeliveryLoop(const DeliveryLoop&) = delete;
  DeliveryLoop& operator=(const DeliveryLoop&) = delete;

  void Wake();

 private:
  void Run(int index);

  Deliverer* deliverer_;
  SenderFactory factory_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  uint64_t wakes_ = 0;
  std::vector<std::thread> threads_;
};

}  // namespace parlor::notifications

#endif  // PARLOR_SERVICES_NOTIFICATIONS_DOMAIN_DELIVERY_H_
