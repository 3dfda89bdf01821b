#include "services/accounts/store/revocations_store.h"

#include "services/accounts/store/sql.h"

namespace parlor::accounts {

absl::StatusOr<std::vector<RevokedSessionRow>> RevocationsStore::ListRevoked(
    absl::Time since, absl::Time after, const std::string& after_session_id, int limit) {
  std::vector<RevokedSessionRow> out;
  absl::Status status =
      db_->Read("list_revoked_sessions", [&](pqxx::nontransaction& txn) -> absl::Status {
        out.clear();
        const int64_t after_micros =
            after_session_id.empty() ? absl::ToUnixMicros(since) - 1 : absl::ToUnixMicros(after);
        for (const pqxx::row& row :
             txn.exec_params(sql::kListRevokedSessions, absl::ToUnixMicros(since), after_micros,
                             after_session_id, limit)) {
          out.push_back({.session_id = row[0].as<std::string>(),
                         .account_id = row[1].as<std::string>(),
                         .revoke_time = absl::FromUnixMicros(row[2].as<int64_t>())});
        }
        return absl::OkStatus();
      });
  if (!status.ok()) return status;
  return out;
}

}  // namespace parlor::accounts
