#ifndef PARLOR_SERVICES_ACCOUNTS_STORE_DELETION_STORE_H_
#define PARLOR_SERVICES_ACCOUNTS_STORE_DELETION_STORE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "services/common/db/pool.h"

namespace parlor::accounts {

struct AccountDeletionRow {
  int64_t sequence = 0;
  std::string account_id;
  absl::Time delete_time;
  // What the account is called now ("Deleted-...").
  std::string display_name;
  // What it was called; empty once erased (30 days after the deletion).
  std::string former_display_name;
};

// Account deletion (one transaction: personal data erased, sessions revoked, outbox row) and the
// deletion outbox, on PostgreSQL. Blocking.
class DeletionStore {
 public:
  explicit DeletionStore(DbPool* db) : db_(db) {}

  // Deletes the account of a live session when `confirm_display_name` is its current name
  // (FAILED_PRECONDITION otherwise); its display name becomes `replacement_name`.
  absl::Status DeleteAccount(const std::string& account_id, const std::string& session_id,
                             const std::string& confirm_display_name,
                             const std::string& replacement_name, absl::Time now);

  absl::StatusOr<std::vector<AccountDeletionRow>> ListDeletions(int64_t after_sequence, int limit);

  // Erases the former display names of deletions before `before`; how many.
  absl::StatusOr<int64_t> EraseFormerNames(absl::Time before);

 private:
  DbPool* db_;
};

}  // namespace parlor::accounts

#endif  // PARLOR_SERVICES_ACCOUNTS_STORE_DELETION_STORE_H_
