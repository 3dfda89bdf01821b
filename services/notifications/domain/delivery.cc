#include "services/notifications/domain/delivery.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "services/common/core/logging.h"
#include "services/common/core/thread_name.h"
#include "services/notifications/domain/rules.h"
#include "spdlog/spdlog.h"

namespace parlor::notifications {
namespace {

const std::vector<std::string>& Results() {
  static const std::vector<std::string> kResults = {
      "delivered", "retry", "rejected", "dead_token", "expired", "gave_up", "unconfigured"};
  return kResults;
}

const prometheus::Histogram::BucketBoundaries& LatencyBuckets() {
  static const prometheus::Histogram::BucketBoundaries kBuckets = {
      0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300};
  return kBuckets;
}

}  // namespace

DeliveryMetrics::DeliveryMetrics(prometheus::Registry* registry) {
  if (registry == nullptr) return;
  deliveries_ = &prometheus::BuildCounter()
                     .Name("parlor_notifications_deliveries_total")
                     .Help("Push attempts by provider and outcome")
                     .Register(*registry);
  latency_ = &prometheus::BuildHistogram()
                  .Name("parlor_notifications_commit_to_acceptance_seconds")
                  .Help("From the event's commit at its sender to the provider's acceptance")
                  .Register(*registry);
  dead_tokens_ = &prometheus::BuildCounter()
                      .Name("parlor_notifications_dead_tokens_total")
                      .Help("Devices removed because the provider reported their token dead")
                      .Register(*registry);
  auto& queue = prometheus::BuildGauge()
                    .Name("parlor_notifications_queue_depth")
                    .Help("Pushes waiting in the delivery queue (due or backing off)")
                    .Register(*registry);
  depth_ = &queue.Add({});
  auto& age =
      prometheus::BuildGauge()
          .Name("parlor_notifications_queue_oldest_age_seconds")
          .Help("Age, from its event's commit, of the oldest queued push that is due (0 when none)")
          .Register(*registry);
  oldest_age_ = &age.Add({});
  auto& events = prometheus::BuildCounter()
                     .Name("parlor_notifications_events_total")
                     .Help(
                         "Events handed over by other services: accepted, duplicates of ones "
                         "accepted before, or too old to keep (committed before the retention)")
                     .Register(*registry);
  accepted_ = &events.Add({{"outcome", "accepted"}});
  duplicates_ = &events.Add({{"outcome", "duplicate"}});
  too_old_ = &events.Add({{"outcome", "too_old"}});
  pruned_ = &prometheus::BuildCounter()
                 .Name("parlor_notifications_events_pruned_total")
                 .Help("Stored events (inbox entries) deleted once older than the retention")
                 .Register(*registry)
                 .Add({});
  turns_pruned_ = &prometheus::BuildCounter()
                       .Name("parlor_notifications_turns_pruned_total")
                       .Help(
                           "Turn state rows (one per player and game) deleted once their game's "
                           "end is older than the retention")
                       .Register(*registry)
                       .Add({});
  prune_failures_ =
      &prometheus::BuildCounter()
           .Name("parlor_notifications_prune_failures_total")
           .Help("Prune rounds that failed (the events and turns tables grow while they do)")
           .Register(*registry)
           .Add({});
  // Every series the alerts divide exists from the start, at zero.
  for (Platform platform : {Platform::kApns, Platform::kFcm}) {
    for (const std::string& result : Results()) {
      deliveries_->Add({{"platform", PlatformName(platform)}, {"result", result}});
    }
    dead_tokens_->Add({{"platform", PlatformName(platform)}});
    latency_->Add({{"platform", PlatformName(platform)}}, LatencyBuckets());
  }
}

void DeliveryMetrics::Count(Platform platform, const std::string& result) {
  if (deliveries_ == nullptr) return;
  deliveries_->Add({{"platform", PlatformName(platform)}, {"result", result}}).Increment();
}

void DeliveryMetrics::Latency(Platform platform, absl::Duration latency) {
  if (latency_ == nullptr) return;
  latency_->Add({{"platform", PlatformName(platform)}}, LatencyBuckets())
      .Observe(std::max(0.0, absl::ToDoubleSeconds(latency)));
}

void DeliveryMetrics::DeadToken(Platform platform) {
  if (dead_tokens_ == nullptr) return;
  dead_tokens_->Add({{"platform", PlatformName(platform)}}).Increment();
}

void DeliveryMetrics::Queue(int64_t depth, absl::Duration oldest_age) {
  if (depth_ == nullptr) return;
  depth_->Set(static_cast<double>(depth));
  oldest_age_->Set(std::max(0.0, absl::ToDoubleSeconds(oldest_age)));
}

void DeliveryMetrics::Events(int accepted, int duplicates, int too_old) {
  if (accepted_ == nullptr) return;
  accepted_->Increment(accepted);
  duplicates_->Increment(duplicates);
  too_old_->Increment(too_old);
}

void DeliveryMetrics::Pruned(int events, int turns) {
  if (pruned_ != nullptr) pruned_->Increment(events);
  if (turns_pruned_ != nullptr) turns_pruned_->Increment(turns);
}

void DeliveryMetrics::PruneFailed() {
  if (prune_failures_ != nullptr) prune_failures_->Increment();
}

PushSender* Deliverer::Senders::For(Platform platform) {
  if (platform == Platform::kApns) {
    if (!apns_made_) {
      apns_ = factory_(platform);
      apns_made_ = true;
    }
    return apns_.get();
  }
  if (platform == Platform::kFcm) {
    if (!fcm_made_) {
      fcm_ = factory_(platform);
      fcm_made_ = true;
    }
    return fcm_.get();
  }
  return nullptr;
}

Deliverer::Deliverer(NotificationsStore* store, DeliveryMetrics* metrics, Clock clock,
                     DeliveryOptions options)
    : store_(store), metrics_(metrics), clock_(std::move(clock)), options_(options) {}

absl::Time Deliverer::RetryTime(absl::Time now, int attempts,
                                std::optional<absl::Duration> retry_after) const {
  absl::Duration backoff = options_.backoff_base;
  for (int i = 1; i < attempts && backoff < options_.backoff_cap; ++i) backoff *= 2;
  backoff = std::min(backoff, options_.backoff_cap);
  // The provider said when: never earlier than that (bounded, so a bogus header cannot park a
  // push for days).
  if (retry_after.has_value()) {
    backoff = std::max(backoff, std::min(*retry_after, absl::Hours(1)));
  }
  return now + backoff;
}

void Deliverer::Settle(const Push& push, const SendResult& result, absl::Time after,
                       std::vector<int64_t>& done,
                       std::vector<NotificationsStore::Retry>& retries) {
  const Platform platform = push.device.platform;
  switch (result.outcome) {
    case SendResult::Outcome::kAccepted:
      metrics_->Count(platform, "delivered");
      metrics_->Latency(platform, after - push.commit_time);
      done.push_back(push.delivery_id);
      break;
    case SendResult::Outcome::kDeadToken: {
      metrics_->Count(platform, "dead_token");
      absl::StatusOr<bool> removed =
          store_->RemoveDeadDevice(push.device.device_id, push.device.token);
      if (!removed.ok()) {
        // Retried like a transient failure: the next attempt finds the token dead again.
        retries.push_back(
            {push.delivery_id, RetryTime(after, push.attempts, std::nullopt), result.detail});
        break;
      }
      if (*removed) {
        metrics_->DeadToken(platform);
        spdlog::info("notifications: removed device {} ({}): {}", push.device.device_id,
                     PlatformName(platform), result.detail);
      }
      done.push_back(push.delivery_id);  // gone with the device, or harmless if not
      break;
    }
    case SendResult::Outcome::kRejected:
      if (push.attempts >= options_.rejected_attempts) {
        metrics_->Count(platform, "rejected");
        spdlog::warn("notifications: {} refused push {} for good after {} attempts: {}",
                     PlatformName(platform), push.delivery_id, push.attempts, result.detail);
        done.push_back(push.delivery_id);
      } else {
        metrics_->Count(platform, "retry");
        retries.push_back(
            {push.delivery_id, RetryTime(after, push.attempts, std::nullopt), result.detail});
      }
      break;
    case SendResult::Outcome::kTransient:
      if (push.attempts >= options_.max_attempts) {
        metrics_->Count(platform, "gave_up");
        spdlog::warn("notifications: gave up push {} after {} attempts: {}", push.delivery_id,
                     push.attempts, result.detail);
        done.push_back(push.delivery_id);
      } else {
        metrics_->Count(platform, "retry");
        retries.push_back(
            {push.delivery_id, RetryTime(after, push.attempts, result.retry_after), result.detail});
      }
      break;
  }
}

absl::StatusOr<int> Deliverer::DeliverOnce(Senders& senders) {
  absl::StatusOr<std::vector<Push>> claimed =
      store_->ClaimPushes(clock_(), options_.lease, options_.batch);
  if (!claimed.ok()) return claimed.status();
  std::vector<int64_t> done;
  std::vector<NotificationsStore::Retry> retries;
  // The pushes to send, per provider.
  std::map<Platform, std::vector<const Push*>> sendable;
  for (Push& push : *claimed) {
    const Platform platform = push.device.platform;
    push.thread_id = push.game_id.empty() ? KindName(push.kind) : push.game_id;
    push.collapse_id = push.thread_id;
    if (push.expire_time.has_value() && *push.expire_time <= clock_()) {
      metrics_->Count(platform, "expired");
      done.push_back(push.delivery_id);
      continue;
    }
    if (senders.For(platform) == nullptr) {
      spdlog::warn("notifications: {} is not configured; dropped push {} ({})",
                   PlatformName(platform), push.delivery_id, KindName(push.kind));
      metrics_->Count(platform, "unconfigured");
      done.push_back(push.delivery_id);
      continue;
    }
    sendable[platform].push_back(&push);
  }
  // options.in_flight at a time, as concurrent streams of the sender's connection.
  const size_t in_flight = static_cast<size_t>(std::max(1, options_.in_flight));
  for (const auto& [platform, pushes] : sendable) {
    PushSender* sender = senders.For(platform);
    for (size_t from = 0; from < pushes.size(); from += in_flight) {
      std::vector<const Push*> chunk;
      for (size_t i = from; i < std::min(pushes.size(), from + in_flight); ++i) {
        chunk.push_back(pushes[i]);
      }
      const std::vector<SendResult> results = sender->SendAll(chunk);
      const absl::Time after = clock_();
      for (size_t i = 0; i < chunk.size(); ++i) Settle(*chunk[i], results[i], after, done, retries);
    }
  }
  // A failed settlement leaves the rows leased: they are tried again when the lease ends.
  if (absl::Status removed = store_->RemovePushes(done); !removed.ok()) {
    spdlog::warn("notifications: cannot settle {} pushes: {}", done.size(), removed.ToString());
  }
  if (absl::Status rescheduled = store_->ReschedulePushes(retries); !rescheduled.ok()) {
    spdlog::warn("notifications: cannot schedule {} retries: {}", retries.size(),
                 rescheduled.ToString());
  }
  return static_cast<int>(claimed->size());
}

absl::Status Deliverer::UpdateQueueGauges() {
  absl::StatusOr<NotificationsStore::QueueStats> stats = store_->GetQueueStats();
  if (!stats.ok()) return stats.status();
  metrics_->Queue(stats->depth, stats->oldest_commit_time.has_value()
                                    ? clock_() - *stats->oldest_commit_time
                                    : absl::ZeroDuration());
  return absl::OkStatus();
}

DeliveryLoop::DeliveryLoop(Deliverer* deliverer, SenderFactory factory)
    : deliverer_(deliverer), factory_(std::move(factory)) {
  for (int i = 0; i < std::max(1, deliverer_->options().threads); ++i) {
    threads_.emplace_back([this, i] {
      NameThisThread("push-delivery");
      Run(i);
    });
  }
}

DeliveryLoop::~DeliveryLoop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (std::thread& thread : threads_) thread.join();
}

void DeliveryLoop::Wake() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++wakes_;
  }
  // One idle sender claims what a batch of events queued; the busy ones look again when done.
  if (deliverer_->options().wake_all) {
    cv_.notify_all();
  } else {
    cv_.notify_one();
  }
}

void DeliveryLoop::Run(int index) {
  Deliverer::Senders senders(factory_);
  uint64_t seen = 0;
  absl::Time next_gauges = absl::InfinitePast();
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stop_) return;
      seen = wakes_;
    }
    absl::StatusOr<int> claimed = deliverer_->DeliverOnce(senders);
    if (!claimed.ok()) {
      spdlog::warn("notifications: delivery round failed: {}", claimed.status().ToString());
    }
    if (index == 0 && absl::Now() >= next_gauges) {
      (void)deliverer_->UpdateQueueGauges();
      next_gauges = absl::Now() + absl::Seconds(1);
    }
    // A full batch: more may be due at once, for another sender too.
    if (claimed.ok() && *claimed >= deliverer_->options().batch) {
      if (!deliverer_->options().wake_all) Wake();
      continue;
    }
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, absl::ToChronoMilliseconds(deliverer_->options().poll_interval),
                 [&] { return stop_ || wakes_ != seen; });
    if (stop_) return;
  }
}

}  // namespace parlor::notifications
