// What matchmaking erases when a player deletes their account.
#include "services/matchmaking/store/party_invite_sql.h"
#include "services/matchmaking/store/pg_matchmaking_store.h"
#include "services/matchmaking/store/sql.h"

namespace parlor::matchmaking {

absl::StatusOr<int64_t> PgMatchmakingStore::HandledThrough() {
  int64_t through = 0;
  absl::Status status = db_->Read("forgotten_through", [&](pqxx::nontransaction& txn) {
    through = txn.exec(sql::kForgottenThrough)[0][0].as<int64_t>();
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return through;
}

absl::Status PgMatchmakingStore::Forget(const DeletedAccount& deleted) {
  return db_->Transact("forget_account", [&](pqxx::work& txn) {
    const std::string& id = deleted.account_id;
    txn.exec_params0(sql::kRecordForgotten, id, deleted.sequence);
    txn.exec_params0(sql::kForgetTickets, id);
    txn.exec_params0(sql::kForgetInBlockLists, id);
    txn.exec_params0(sql::kForgetLedParties, id);
    txn.exec_params0(sql::kForgetPartyMembership, id);
    txn.exec_params0(sql::kForgetPartyInvites, id);
    txn.exec_params0(sql::kForgetChallenges, id);
    txn.exec_params0(sql::kForgetNotifications, id);
    txn.exec_params0(sql::kForgetInNotifications, id);
    return absl::OkStatus();
  });
}

}  // namespace parlor::matchmaking
