#ifndef PARLOR_SERVICES_SESSIONS_STORE_ACCOUNT_ERASURE_H_
#define PARLOR_SERVICES_SESSIONS_STORE_ACCOUNT_ERASURE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "services/common/db/pool.h"
#include "services/common/deletions/deletion_sink.h"

namespace parlor::sessions {

// What the sessions schema holds about a deleted account, and its erasure (all SQL in
// store/erasure_sql.h). The games themselves are ended through the domain first (Resign).
class AccountErasureStore {
 public:
  explicit AccountErasureStore(DbPool* db) : db_(db) {}

  absl::StatusOr<int64_t> HandledThrough();
  // The games in which the account's seat still plays.
  absl::StatusOr<std::vector<std::string>> ActiveGamesOf(const std::string& account_id);
  // One transaction: seats renamed, vacation, keys and pushes erased, the deletion recorded.
  absl::Status Erase(const DeletedAccount& deleted);

 private:
  DbPool* db_;
};

}  // namespace parlor::sessions

#endif  // PARLOR_SERVICES_SESSIONS_STORE_ACCOUNT_ERASURE_H_
