#ifndef PARLOR_SERVICES_ACCOUNTS_STORE_REVOCATIONS_STORE_H_
#define PARLOR_SERVICES_ACCOUNTS_STORE_REVOCATIONS_STORE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "services/common/db/pool.h"

namespace parlor::accounts {

// A session that was revoked (signed out, or cut off after refresh-token reuse).
struct RevokedSessionRow {
  std::string session_id;
  std::string account_id;
  absl::Time revoke_time;
};

// Reads the revoked sessions for ListRevokedSessions (other services end what they hold open).
class RevocationsStore {
 public:
  explicit RevocationsStore(DbPool* db) : db_(db) {}

  // Sessions revoked at or after `since`, ordered by (revoke_time, session_id), after the given
  // position (`after_session_id` empty: from the start), at most `limit`.
  absl::StatusOr<std::vector<RevokedSessionRow>> ListRevoked(absl::Time since, absl::Time after,
                                                             const std::string& after_session_id,
                                                             int limit);

 private:
  DbPool* db_;
};

}  // namespace parlor::accounts

#endif  // PARLOR_SERVICES_ACCOUNTS_STORE_REVOCATIONS_STORE_H_
