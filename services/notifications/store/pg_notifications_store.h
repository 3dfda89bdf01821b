#ifndef PARLOR_SERVICES_NOTIFICATIONS_STORE_PG_NOTIFICATIONS_STORE_H_
#define PARLOR_SERVICES_NOTIFICATIONS_STORE_PG_NOTIFICATIONS_STORE_H_

#include "services/common/db/pool.h"
#include "services/common/deletions/account_deletions.h"
#include "services/notifications/store/notifications_store.h"

namespace parlor::notifications {

// NotificationsStore on PostgreSQL (schema `notifications`, see migrations/notifications/).
// Blocking: call it from a worker pool or a sender thread. As an AccountDeletionSink it erases a
// deleted account's devices, push tokens, preferences, inbox and turn state, and renames the
// player in other players' notifications.
class PgNotificationsStore : public NotificationsStore, public AccountDeletionSink {
 public:
  // How AcceptEvents writes a batch: in five set-based statements whatever its size (the
  // service's way), or some six statements per event (kept as the load tool's baseline and to
  // check that both store the same rows).
  enum class AcceptMode { kSetBased, kOneByOne };
  // How the queue is worked: kIndexed, the service's way - a claim leases a push in lease_time,
  // which no index covers (an in-place HOT update), and the queue's transactions plan index scans
  // only (sql::kIndexScansOnly); kFormer - a claim moved due_time forward (an entry in each index
  // per claim) and PostgreSQL planned as it liked (full scans of a queue it saw empty). kFormer is
  // kept as the load tool's baseline.
  enum class QueueMode { kIndexed, kFormer };
  explicit PgNotificationsStore(DbPool* db, AcceptMode mode = AcceptMode::kSetBased,
                                QueueMode queue = QueueMode::kIndexed)
      : db_(db), mode_(mode), queue_(queue) {}

  absl::StatusOr<Registered> RegisterDevice(const Device& device, absl::Time now) override;
  absl::Status UnregisterDevice(const std::string& account_id, const std::string& device_id,
                                const std::string& token) override;
  absl::StatusOr<std::vector<Device>> ListDevices(const std::string& account_id) override;
  absl::StatusOr<Preferences> GetPreferences(const std::string& account_id) override;
  absl::Status PutPreferences(const std::string& account_id, const Preferences& preferences,
                              absl::Time now) override;
  absl::StatusOr<Accepted> AcceptEvents(const std::vector<Event>& events, const Planner& plan,
                                        absl::Time now) override;
  absl::StatusOr<InboxPage> ListInbox(const std::string& account_id, int64_t before_id,
                                      int limit) override;
  absl::StatusOr<InboxPage> ListInboxAfter(const std::string& account_id, int64_t after_id,
                                           int limit) override;
  absl::StatusOr<std::map<std::string, InboxHead>> InboxHeads(
      const std::vector<std::string>& account_ids) override;
  absl::StatusOr<int64_t> MarkRead(const std::string& account_id, const std::vector<int64_t>& ids,
                                   int64_t up_to, absl::Time now) override;
  absl::StatusOr<PrunedRows> Prune(absl::Time events_before, absl::Time turns_before,
                                   int limit) override;
  absl::StatusOr<std::vector<Push>> ClaimPushes(absl::Time now, absl::Duration lease,
                                                int limit) override;
  absl::Status RemovePushes(const std::vector<int64_t>& delivery_ids) override;
  absl::Status ReschedulePushes(const std::vector<Retry>& retries) override;
  absl::StatusOr<bool> RemoveDeadDevice(const std::string& device_id,
                                        const std::string& token) override;
  absl::StatusOr<QueueStats> GetQueueStats() override;

  absl::StatusOr<int64_t> HandledThrough() override;
  absl::Status Forget(const DeletedAccount& deleted) override;

 private:
  absl::StatusOr<Accepted> AcceptEventsOneByOne(const std::vector<Event>& events,
                                                const Planner& plan, absl::Time now);

  DbPool* db_;
  AcceptMode mode_;
  // SET LOCAL enable_seqscan = off, unless kFormer.
  void IndexScansOnly(pqxx::work& txn) const;

  QueueMode queue_;
};

}  // namespace parlor::notifications

#endif  // PARLOR_SERVICES_NOTIFICATIONS_STORE_PG_NOTIFICATIONS_STORE_H_
