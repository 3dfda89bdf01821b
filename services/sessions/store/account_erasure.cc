#include "services/sessions/store/account_erasure.h"

#include "services/sessions/store/erasure_sql.h"

namespace parlor::sessions {

absl::StatusOr<int64_t> AccountErasureStore::HandledThrough() {
  int64_t through = 0;
  absl::Status status = db_->Read("sessions.forgotten_through", [&](pqxx::nontransaction& txn) {
    through = txn.exec(sql::kForgottenThrough)[0][0].as<int64_t>();
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return through;
}

absl::StatusOr<std::vector<std::string>> AccountErasureStore::ActiveGamesOf(
    const std::string& account_id) {
  std::vector<std::string> games;
  absl::Status status = db_->Read("sessions.active_games_of", [&](pqxx::nontransaction& txn) {
    games.clear();
    for (const pqxx::row& row : txn.exec_params(sql::kActiveGamesOf, account_id)) {
      games.push_back(row[0].as<std::string>());
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return games;
}

absl::Status AccountErasureStore::Erase(const DeletedAccount& deleted) {
  return db_->Transact("sessions.forget_account", [&](pqxx::work& txn) {
    const std::string& id = deleted.account_id;
    txn.exec_params0(sql::kRecordForgotten, id, deleted.sequence);
    if (!deleted.display_name.empty()) {
      txn.exec_params(sql::kLockGamesToRename, id, deleted.display_name);
      txn.exec_params0(sql::kRenameSeats, id, deleted.display_name);
      if (!deleted.former_display_name.empty()) {
        txn.exec_params0(sql::kRenameInPushes, deleted.former_display_name, deleted.display_name);
        txn.exec_params0(sql::kRenameLastMoverInPushes, deleted.former_display_name,
                         deleted.display_name);
      }
    }
    txn.exec_params0(sql::kForgetVacation, id);
    txn.exec_params0(sql::kForgetIdempotencyKeys, id);
    txn.exec_params0(sql::kForgetPushes, id);
    txn.exec_params0(sql::kForgetRecord, id);
    txn.exec_params0(sql::kForgetSeenVersions, id);
    txn.exec_params0(sql::kForgetNudges, id);
    txn.exec_params0(sql::kForgetChatReports, id);
    txn.exec_params0(sql::kForgetChatMessages, id);
    txn.exec_params0(sql::kForgetRematchOffers, id);
    return absl::OkStatus();
  });
}

}  // namespace parlor::sessions
