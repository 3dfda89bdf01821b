#include "services/accounts/domain/deletion_service.h"

#include "absl/strings/str_cat.h"
#include "services/common/core/crypto.h"
#include "spdlog/spdlog.h"

namespace parlor::accounts {

std::string DeletedAccountName() {
  static constexpr char kAlphabet[] = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
  std::string name = "Deleted-";
  for (unsigned char b : RandomBytes(12)) name.push_back(kAlphabet[b % (sizeof(kAlphabet) - 1)]);
  return name;
}

absl::Status DeletionService::DeleteAccount(const auth::Claims& caller,
                                            const std::string& confirm_display_name) {
  if (confirm_display_name.empty()) {
    return absl::InvalidArgumentError(
        "confirm_display_name is required: the account's current display name, exactly");
  }
  absl::Status deleted = store_->DeleteAccount(
      caller.subject, caller.session_id, confirm_display_name, DeletedAccountName(), clock_());
  if (deleted.ok()) spdlog::info("account {} deleted", caller.subject);
  return deleted;
}

absl::StatusOr<std::vector<AccountDeletionRow>> DeletionService::ListDeletedAccounts(
    int64_t after_sequence, int page_size) {
  if (after_sequence < 0) {
    return absl::InvalidArgumentError("after_sequence must be 0 or a sequence already listed");
  }
  if (page_size < 0 || page_size > 1000) {
    return absl::InvalidArgumentError("page_size must be 0 to 1000");
  }
  const absl::Time now = clock_();
  bool erase_now = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (now - last_name_erasure_ >= kNameErasureEvery) {
      last_name_erasure_ = now;
      erase_now = true;
    }
  }
  if (erase_now) {
    // Piggybacks on the services' polls, which come every few seconds from every replica.
    absl::StatusOr<int64_t> erased = store_->EraseFormerNames(now - kFormerNameKept);
    if (!erased.ok()) {
      spdlog::warn("erasing former display names of deleted accounts: {}",
                   erased.status().ToString());
    } else if (*erased > 0) {
      spdlog::info("erased the former display names of {} deleted account(s)", *erased);
    }
  }
  return store_->ListDeletions(after_sequence, page_size == 0 ? 500 : page_size);
}

}  // namespace parlor::accounts
