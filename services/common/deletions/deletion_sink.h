#ifndef PARLOR_SERVICES_COMMON_DELETIONS_DELETION_SINK_H_
#define PARLOR_SERVICES_COMMON_DELETIONS_DELETION_SINK_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

// What a service implements to forget deleted accounts (no gRPC, no proto: a service's domain
// and store implement it; account_deletions.h feeds it from the accounts service).
namespace parlor {

// One deleted account, as the accounts service's deletion outbox lists it.
struct DeletedAccount {
  int64_t sequence = 0;
  std::string account_id;
  // What the account is called now ("Deleted-...").
  std::string display_name;
  // What it was called (empty once the accounts service has erased it, 30 days on): where a
  // service copied the name, it replaces it by display_name.
  std::string former_display_name;
};

// What one service does when a player deletes their account: it erases what it owns about the
// account and remembers how far through the accounts service's deletion outbox it has read.
class AccountDeletionSink {
 public:
  virtual ~AccountDeletionSink() = default;
  // The highest deletion sequence this service has handled (0 before the first).
  virtual absl::StatusOr<int64_t> HandledThrough() = 0;
  // Erases what this service holds about the account and records its sequence as handled, in
  // one transaction. Handling the same deletion twice must be harmless.
  virtual absl::Status Forget(const DeletedAccount& deleted) = 0;
};

}  // namespace parlor

#endif  // PARLOR_SERVICES_COMMON_DELETIONS_DELETION_SINK_H_
