#ifndef PARLOR_SERVICES_NOTIFICATIONS_DOMAIN_NOTIFICATIONS_SERVICE_H_
#define PARLOR_SERVICES_NOTIFICATIONS_DOMAIN_NOTIFICATIONS_SERVICE_H_

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "services/notifications/domain/delivery.h"
#include "services/notifications/domain/model.h"
#include "services/notifications/store/notifications_store.h"

namespace parlor::notifications {

// The notifications domain: input rules, what each event becomes (inbox entry, pushes, badge,
// quiet hours, mutes), paging. It knows nothing of gRPC (the api layer translates) nor of SQL
// (the store persists). Every method returns a precise absl::Status for bad input and changes
// nothing in that case.
class NotificationsService {
 public:
  using Clock = std::function<absl::Time()>;

  // `metrics` may be null. `on_queued` is called after events queued pushes (wakes the senders).
  // Events are kept `retention` from their creation (Prune); an event committed longer ago
  // is acknowledged and not stored (a sender's retry of one already pruned must not come back).
  NotificationsService(NotificationsStore* store, Clock clock, DeliveryMetrics* metrics,
                       std::function<void()> on_queued,
                       absl::Duration retention = kDefaultRetention);

  absl::StatusOr<NotificationsStore::Registered> RegisterDevice(const std::string& account_id,
                                                                Device device);
  absl::Status UnregisterDevice(const std::string& account_id, const std::string& device_id,
                                const std::string& token);
  absl::StatusOr<std::vector<Device>> ListDevices(const std::string& account_id);

  absl::StatusOr<Preferences> GetPreferences(const std::string& account_id);
  absl::StatusOr<Preferences> UpdatePreferences(const std::string& account_id,
                                                Preferences preferences);

  struct InboxPage {
    std::vector<Notification> notifications;
    std::string next_page_token;
    int64_t unread = 0;
  };
  absl::StatusOr<InboxPage> ListNotifications(const std::string& account_id, int page_size,
                                              const std::string& page_token);
  absl::StatusOr<int64_t> MarkRead(const std::string& account_id, const std::vector<int64_t>& ids,
                                   int64_t up_to);

  absl::StatusOr<NotificationsStore::Accepted> AcceptEvents(const std::vector<Event>& events);

  // Deletes the events older than the retention, and the turn state of games whose game-over
  // event is older than the retention plus kTurnStateMargin (no event of theirs is stored any
  // more, so none can change it), kPruneBatch of each in a transaction, until none is left or
  // kPruneBatchesPerCall batches are done (a backlog, as when the retention first applies, is
  // worked off call by call, so a server stopping waits for one call at most); returns how many
  // of each. Safe on every replica at once.
  struct Pruned {
    int64_t events = 0;
    int64_t turns = 0;
  };
  absl::StatusOr<Pruned> Prune();

  // WatchNotifications: the inbox entries after `after_id` (oldest first, at most
  // kMaxPageSize) with the unread count; INVALID_ARGUMENT for a negative id.
  absl::StatusOr<NotificationsStore::InboxPage> InboxAfter(const std::string& account_id,
                                                           int64_t after_id);
  absl::StatusOr<std::map<std::string, NotificationsStore::InboxHead>> InboxHeads(
      const std::vector<std::string>& account_ids);
  // Called after an inbox changed on this replica (events stored, entries marked read): wakes
  // the open streams at once instead of at their next poll.
  void SetInboxChanged(std::function<void()> changed) { inbox_changed_ = std::move(changed); }

  static constexpr int kDefaultPageSize = 20;
  static constexpr int kMaxPageSize = 100;
  static constexpr size_t kMaxMarkRead = 100;
  static constexpr absl::Duration kDefaultRetention = absl::Hours(24 * 90);
  static constexpr int kPruneBatch = 1000;
  // Commit times come from the senders' clocks: an event of an older version may carry a
  // slightly later time than the game-over event. A day covers any skew between replicas.
  static constexpr absl::Duration kTurnStateMargin = absl::Hours(24);
  static constexpr int kPruneBatchesPerCall = 100;

 private:
  NotificationsStore::Plan PlanEvent(const Event& event, const Preferences& preferences,
                                     absl::Time now) const;

  NotificationsStore* store_;
  Clock clock_;
  DeliveryMetrics* metrics_;
  std::function<void()> on_queued_;
  std::function<void()> inbox_changed_;
  absl::Duration retention_;
};

}  // namespace parlor::notifications

#endif  // PARLOR_SERVICES_NOTIFICATIONS_DOMAIN_NOTIFICATIONS_SERVICE_H_
