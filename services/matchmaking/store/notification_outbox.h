#ifndef PARLOR_SERVICES_MATCHMAKING_STORE_NOTIFICATION_OUTBOX_H_
#define PARLOR_SERVICES_MATCHMAKING_STORE_NOTIFICATION_OUTBOX_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "services/common/db/pool.h"

namespace parlor::matchmaking {

// One row of matchmaking.notification_outbox (migration 0002: written by triggers in the
// transaction of the match, challenge or acceptance it reports).
struct OutboxNotification {
  int64_t id = 0;
  std::string account_id;
  std::string kind;  // match_found, challenge_received, challenge_accepted, party_invite
  std::string dedupe_key;
  std::string game;
  std::string game_id;
  std::string from_account;
  std::vector<std::string> other_accounts;
  std::string party_id;  // party_invite: the party the player is invited to
  absl::Time created_at;
  int attempts = 0;  // including this one
};

// What waits to be relayed: every row not yet sent (due, or backing off after a failure), and
// when the oldest of them was written.
struct OutboxBacklog {
  int64_t pending = 0;
  std::optional<absl::Time> oldest_created_at;
};

// The relay's side of the outbox. Every replica's relay may drain it: a claim moves the rows'
// next attempt out by a lease (SKIP LOCKED), so two replicas never take the same rows at once.
// No libpqxx exception escapes.
class NotificationOutboxStore {
 public:
  explicit NotificationOutboxStore(DbPool* db) : db_(db) {}

  absl::StatusOr<std::vector<OutboxNotification>> Claim(absl::Time now, absl::Duration lease,
                                                        int limit);
  absl::Status MarkSent(const std::vector<int64_t>& ids, absl::Time now);
  // Every row of `ids` is retried at `retry_at` (one batch, one outcome).
  absl::Status MarkFailed(const std::vector<int64_t>& ids, absl::Time retry_at,
                          const std::string& error);
  absl::StatusOr<OutboxBacklog> Backlog();

 private:
  DbPool* db_;
};

}  // namespace parlor::matchmaking

#endif  // PARLOR_SERVICES_MATCHMAKING_STORE_NOTIFICATION_OUTBOX_H_
