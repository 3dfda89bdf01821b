#include "services/accounts/store/deletion_store.h"

#include "absl/strings/str_cat.h"
#include "services/accounts/store/pg_helpers.h"
#include "services/accounts/store/sql.h"

namespace parlor::accounts {

absl::Status DeletionStore::DeleteAccount(const std::string& account_id,
                                          const std::string& session_id,
                                          const std::string& confirm_display_name,
                                          const std::string& replacement_name, absl::Time now) {
  const int64_t micros = absl::ToUnixMicros(now);
  return db_->Transact("delete_account", [&](pqxx::work& txn) {
    if (absl::Status live = CheckSession(txn, account_id, session_id); !live.ok()) return live;
    pqxx::result account = txn.exec_params(sql::kLockAccountForDeletion, account_id);
    if (account.empty() || account[0][1].as<bool>()) {
      return absl::NotFoundError("this account was deleted");
    }
    const std::string name = account[0][0].as<std::string>();
    if (name != confirm_display_name) {
      return absl::FailedPreconditionError(
          absl::StrCat("confirm_display_name must be the account's current display name \"", name,
                       "\" exactly; nothing was deleted"));
    }
    txn.exec_params0(sql::kAnonymizeAccount, account_id, replacement_name, micros);
    txn.exec_params0(sql::kDeleteAccountCredentials, account_id);
    txn.exec_params0(sql::kDeleteAccountEmailCodes, account_id);
    txn.exec_params0(sql::kDeleteAccountFriendships, account_id);
    txn.exec_params0(sql::kDeleteAccountFriendRequests, account_id);
    txn.exec_params0(sql::kDeleteAccountBlocks, account_id);
    txn.exec_params0(sql::kEraseAccountDevices, account_id, micros);
    txn.exec_params0(sql::kRevokeAccountSessions, account_id, micros, "account_deleted");
    txn.exec_params0(sql::kInsertAccountDeletion, account_id, micros, name);
    return absl::OkStatus();
  });
}

absl::StatusOr<std::vector<AccountDeletionRow>> DeletionStore::ListDeletions(int64_t after_sequence,
                                                                             int limit) {
  std::vector<AccountDeletionRow> rows;
  absl::Status status = db_->Read("list_account_deletions", [&](pqxx::nontransaction& txn) {
    rows.clear();
    for (const pqxx::row& row :
         txn.exec_params(sql::kListAccountDeletions, after_sequence, limit)) {
      rows.push_back({.sequence = row[0].as<int64_t>(),
                      .account_id = row[1].as<std::string>(),
                      .delete_time = absl::FromUnixMicros(row[2].as<int64_t>()),
                      .display_name = row[3].as<std::string>(),
                      .former_display_name = row[4].as<std::string>()});
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return rows;
}

absl::StatusOr<int64_t> DeletionStore::EraseFormerNames(absl::Time before) {
  int64_t erased = 0;
  absl::Status status = db_->Transact("erase_former_display_names", [&](pqxx::work& txn) {
    erased =
        txn.exec_params0(sql::kEraseFormerDisplayNames, absl::ToUnixMicros(before)).affected_rows();
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return erased;
}

}  // namespace parlor::accounts
