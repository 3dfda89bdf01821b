#ifndef PARLOR_SERVICES_NOTIFICATIONS_STORE_NOTIFICATIONS_STORE_H_
#define PARLOR_SERVICES_NOTIFICATIONS_STORE_NOTIFICATIONS_STORE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "services/notifications/domain/model.h"

namespace parlor::notifications {

// Persistence for notifications. Each method that changes state is one transaction.
// Implementations return absl::Status only (no exceptions): NOT_FOUND for a device the account
// does not have, UNAVAILABLE when the database is unreachable, INTERNAL for anything else.
class NotificationsStore {
 public:
  virtual ~NotificationsStore() = default;

  struct Registered {
    Device device;
    bool moved = false;  // the token belonged to another account until now
  };
  // Inserts the device or, when (platform, token) exists, updates it and moves it to
  // `device.account_id`. Its undelivered pushes for a previous account are dropped.
  virtual absl::StatusOr<Registered> RegisterDevice(const Device& device, absl::Time now) = 0;
  // By id, or (when `device_id` is empty) by token.
  virtual absl::Status UnregisterDevice(const std::string& account_id, const std::string& device_id,
                                        const std::string& token) = 0;
  virtual absl::StatusOr<std::vector<Device>> ListDevices(const std::string& account_id) = 0;

  // Defaults when never set.
  virtual absl::StatusOr<Preferences> GetPreferences(const std::string& account_id) = 0;
  virtual absl::Status PutPreferences(const std::string& account_id, const Preferences& preferences,
                                      absl::Time now) = 0;

  // What to do with one new event, decided by the domain from the event and the account's
  // preferences (Plan is called inside the transaction).
  struct Plan {
    Content content;
    bool in_inbox = true;
    bool push = true;
    absl::Time due_time;     // when its pushes may go out
    absl::Time commit_time;  // the sender's commit (or now)
  };
  using Planner = std::function<Plan(const Event&, const Preferences&)>;
  struct Accepted {
    int accepted = 0;
    int duplicates = 0;
    int deliveries = 0;  // pushes queued
  };
  // Stores every event not seen before (by dedupe_key) in one transaction: the inbox entry, the
  // turn state behind the badge, one queued push per device of the account, and drops the
  // account's pending "your turn"/reminder pushes of the same game that the event makes stale.
  virtual absl::StatusOr<Accepted> AcceptEvents(const std::vector<Event>& events,
                                                const Planner& plan, absl::Time now) = 0;

  struct InboxPage {
    std::vector<Notification> notifications;
    bool more = false;
    int64_t unread = 0;
  };
  // Newest first, ids below `before_id` (0: from the newest).
  virtual absl::StatusOr<InboxPage> ListInbox(const std::string& account_id, int64_t before_id,
                                              int limit) = 0;
  // Oldest first, ids above `after_id`, with the unread count (WatchNotifications).
  virtual absl::StatusOr<InboxPage> ListInboxAfter(const std::string& account_id, int64_t after_id,
                                                   int limit) = 0;
  // Per account: its newest inbox id (0 when none) and unread count, in one read for all the
  // accounts with an open stream.
  struct InboxHead {
    int64_t newest_id = 0;
    int64_t unread = 0;
  };
  virtual absl::StatusOr<std::map<std::string, InboxHead>> InboxHeads(
      const std::vector<std::string>& account_ids) = 0;
  // Marks `ids` (or every id <= up_to when `ids` is empty) read; returns the unread count.
  virtual absl::StatusOr<int64_t> MarkRead(const std::string& account_id,
                                           const std::vector<int64_t>& ids, int64_t up_to,
                                           absl::Time now) = 0;

  // In one transaction: deletes the events created before `events_before` among the oldest
  // `limit`, and the turn state of up to `limit` games over before `turns_before` (the oldest
  // first); returns how many of each. Fewer than `limit`: none older is left.
  struct PrunedRows {
    int events = 0;
    int turns = 0;
  };
  virtual absl::StatusOr<PrunedRows> Prune(absl::Time events_before, absl::Time turns_before,
                                           int limit) = 0;

  // Leases up to `limit` due pushes until now + lease (their attempt count goes up by one).
  virtual absl::StatusOr<std::vector<Push>> ClaimPushes(absl::Time now, absl::Duration lease,
                                                        int limit) = 0;
  // Removes pushes from the queue (accepted, refused for good, expired).
  virtual absl::Status RemovePushes(const std::vector<int64_t>& delivery_ids) = 0;
  struct Retry {
    int64_t delivery_id = 0;
    absl::Time due_time;
    std::string error;
  };
  virtual absl::Status ReschedulePushes(const std::vector<Retry>& retries) = 0;
  // Deletes the device if it still has `token` (its queued pushes go with it); false when it was
  // already gone or re-registered with another token.
  virtual absl::StatusOr<bool> RemoveDeadDevice(const std::string& device_id,
                                                const std::string& token) = 0;

  struct QueueStats {
    int64_t depth = 0;
    // Of the pushes that are due.
    std::optional<absl::Time> oldest_commit_time;
  };
  virtual absl::StatusOr<QueueStats> GetQueueStats() = 0;
};

}  // namespace parlor::notifications

#endif  // PARLOR_SERVICES_NOTIFICATIONS_STORE_NOTIFICATIONS_STORE_H_
