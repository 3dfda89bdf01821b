#ifndef PARLOR_SERVICES_ACCOUNTS_DOMAIN_DELETION_SERVICE_H_
#define PARLOR_SERVICES_ACCOUNTS_DOMAIN_DELETION_SERVICE_H_

#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "services/accounts/store/deletion_store.h"
#include "services/common/core/token.h"

namespace parlor::accounts {

// DeleteAccount and the deletion outbox other services read.
class DeletionService {
 public:
  DeletionService(DeletionStore* store, std::function<absl::Time()> clock)
      : store_(store), clock_(std::move(clock)) {}

  absl::Status DeleteAccount(const auth::Claims& caller, const std::string& confirm_display_name);
  // `page_size` 0 (500) or 1..1000.
  absl::StatusOr<std::vector<AccountDeletionRow>> ListDeletedAccounts(int64_t after_sequence,
                                                                      int page_size);

 private:
  DeletionStore* store_;
  std::function<absl::Time()> clock_;
  std::mutex mu_;
  absl::Time last_name_erasure_ = absl::InfinitePast();
};

// How long the deletion outbox keeps the name a deleted account carried (other services read it
// within seconds), and how often the erasure runs.
inline constexpr absl::Duration kFormerNameKept = absl::Hours(24 * 30);
inline constexpr absl::Duration kNameErasureEvery = absl::Hours(1);

// "Deleted-" and twelve random letters and digits: what a deleted account is called.
std::string DeletedAccountName();

}  // namespace parlor::accounts

#endif  // PARLOR_SERVICES_ACCOUNTS_DOMAIN_DELETION_SERVICE_H_
