#include "services/accounts/store/pg_accounts_store.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "services/accounts/store/pg_helpers.h"
#include "services/accounts/store/sql.h"

namespace parlor::accounts {
namespace {

// Generated names collide rarely; a bounded number of tries keeps a pathological case finite.
constexpr int kMaxGeneratedNameAttempts = 8;

int64_t Micros(absl::Time time) { return absl::ToUnixMicros(time); }

Account ToAccount(const pqxx::row& row) {
  return Account{.account_id = row[0].as<std::string>(),
                 .display_name = row[1].as<std::string>(),
                 .create_time = absl::FromUnixMicros(row[2].as<int64_t>()),
                 .update_time = absl::FromUnixMicros(row[3].as<int64_t>())};
}

std::string Hex(const std::string& bytes) { return absl::BytesToHexString(bytes); }

absl::Status NameTaken(const std::string& name) {
  return absl::AlreadyExistsError(absl::StrCat(
      "display_name \"", name, "\" is taken (names are unique ignoring case); choose another"));
}

absl::Status SessionEnded() {
  return absl::UnauthenticatedError(
      "this session was signed out or revoked; sign in again with AuthenticateDevice");
}

}  // namespace

absl::Status DeviceRemoved() {
  return absl::FailedPreconditionError(
      "this device_id was removed from its account (RemoveDevice) and cannot sign in again; "
      "sign in with a linked credential using a new device_id");
}

// Live session check shared by the profile reads and writes.
absl::Status CheckSession(pqxx::work& txn, const std::string& account_id,
                          const std::string& session_id) {
  pqxx::result live = txn.exec_params(sql::kSessionIsLive, session_id, account_id);
  if (live.empty() || !live[0][0].as<bool>()) return SessionEnded();
  return absl::OkStatus();
}

absl::StatusOr<AccountsStore::DeviceSignIn> PgAccountsStore::AuthenticateDevice(
    const std::string& device_id, const std::optional<std::string>& requested_name,
    const std::function<std::string()>& generate_name, const NewRefreshToken& token, absl::Time now,
    const std::function<absl::Status()>& admit_new_account) {
  DeviceSignIn result;
  bool admitted = false;  // asked once, even if the transaction runs again
  absl::Status status = db_->Transact("authenticate_device", [&](pqxx::work& txn) {
    result = DeviceSignIn();
    pqxx::result found = txn.exec_params(sql::kFindDeviceAccount, device_id);
    if (!found.empty()) {
      if (found[0][4].as<bool>()) return DeviceRemoved();
      result.account = ToAccount(found[0]);
      txn.exec_params0(sql::kTouchDevice, device_id, Micros(now));
    } else {
      if (!admitted) {
        if (absl::Status admit = admit_new_account(); !admit.ok()) return admit;
        admitted = true;
      }
      pqxx::result inserted;
      if (requested_name.has_value()) {
        inserted = txn.exec_params(sql::kInsertAccount, *requested_name, Micros(now));
        if (inserted.empty()) return NameTaken(*requested_name);
      } else {
        for (int attempt = 0; attempt < kMaxGeneratedNameAttempts && inserted.empty(); ++attempt) {
          inserted = txn.exec_params(sql::kInsertAccount, generate_name(), Micros(now));
        }
        if (inserted.empty()) {
          return absl::InternalError("could not find a free generated display name");
        }
      }
      result.account = ToAccount(inserted[0]);
      result.created = true;
      if (txn.exec_params(sql::kInsertDevice, device_id, result.account.account_id, Micros(now))
              .empty()) {
        // A concurrent first sign-in of the same device won; retrying the request finds it.
        return absl::AbortedError("this device is signing in concurrently; retry");
      }
    }
    result.session_id =
        txn.exec_params1(sql::kInsertSession, result.account.account_id, device_id, Micros(now))[0]
            .as<std::string>();
    txn.exec_params0(sql::kInsertRefreshToken, Hex(token.hash), result.session_id,
                     Micros(token.issue_time), Micros(token.expire_time));
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return result;
}

absl::StatusOr<AccountsStore::Rotation> PgAccountsStore::RotateRefreshToken(
    const std::string& presented_hash, const NewRefreshToken& replacement, absl::Time now) {
  Rotation rotation;
  absl::Status status = db_->Transact("rotate_refresh_token", [&](pqxx::work& txn) {
    rotation = Rotation();
    pqxx::result found = txn.exec_params(sql::kLockRefreshToken, Hex(presented_hash), Micros(now));
    if (found.empty()) {
      rotation.outcome = RotationOutcome::kUnknown;
      return absl::OkStatus();
    }
    rotation.session_id = found[0][0].as<std::string>();
    rotation.account_id = found[0][1].as<std::string>();
    rotation.device_id = found[0][5].as<std::string>();
    const bool used = found[0][2].as<bool>();
    const bool expired = found[0][3].as<bool>();
    const bool revoked = found[0][4].as<bool>();
    if (revoked) {
      rotation.outcome = RotationOutcome::kRevoked;
    } else if (used) {
      // Someone holds a copy of a token that was already exchanged: either the client or a thief
      // is replaying it. Revoke the whole family so the thief's fresh tokens die too. This change
      // commits even though the request fails.
      txn.exec_params0(sql::kRevokeSession, rotation.session_id, rotation.account_id, Micros(now),
                       "refresh_token_reuse");
      rotation.outcome = RotationOutcome::kReused;
    } else if (expired) {
      rotation.outcome = RotationOutcome::kExpired;
    } else {
      txn.exec_params0(sql::kMarkRefreshTokenUsed, Hex(presented_hash), Micros(now));
      txn.exec_params0(sql::kInsertRefreshToken, Hex(replacement.hash), rotation.session_id,
                       Micros(replacement.issue_time), Micros(replacement.expire_time));
      rotation.outcome = RotationOutcome::kRotated;
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return rotation;
}

absl::Status PgAccountsStore::RevokeSession(const std::string& account_id,
                                            const std::string& session_id, absl::Time now) {
  return db_->Transact("revoke_session", [&](pqxx::work& txn) {
    if (absl::Status live = CheckSession(txn, account_id, session_id); !live.ok()) return live;
    txn.exec_params0(sql::kRevokeSession, session_id, account_id, Micros(now), "sign_out");
    return absl::OkStatus();
  });
}

absl::Status PgAccountsStore::RevokeAllSessions(const std::string& account_id, absl::Time now) {
  return db_->Transact("revoke_all_sessions", [&](pqxx::work& txn) {
    txn.exec_params0(sql::kRevokeAllSessions, account_id, Micros(now));
    return absl::OkStatus();
  });
}

absl::StatusOr<Account> PgAccountsStore::GetAccount(const std::string& account_id,
                                                    const std::string& session_id) {
  Account account;
  absl::Status status = db_->Transact("get_account", [&](pqxx::work& txn) {
    if (absl::Status live = CheckSession(txn, account_id, session_id); !live.ok()) return live;
    pqxx::result found = txn.exec_params(sql::kGetAccount, account_id);
    if (found.empty()) return absl::NotFoundError("account not found");
    account = ToAccount(found[0]);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return account;
}

absl::StatusOr<Account> PgAccountsStore::UpdateDisplayName(const std::string& account_id,
                                                           const std::string& session_id,
                                                           const std::string& display_name,
                                                           absl::Time now) {
  Account account;
  absl::Status status = db_->Transact("update_display_name", [&](pqxx::work& txn) {
    if (absl::Status live = CheckSession(txn, account_id, session_id); !live.ok()) return live;
    try {
      pqxx::subtransaction update(txn, "update_display_name");
      pqxx::result updated =
          update.exec_params(sql::kUpdateDisplayName, account_id, display_name, Micros(now));
      update.commit();
      if (updated.empty()) return absl::NotFoundError("account not found");
      account = ToAccount(updated[0]);
    } catch (const pqxx::unique_violation&) {
      return NameTaken(display_name);
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return account;
}

absl::StatusOr<std::vector<Account>> PgAccountsStore::GetAccounts(
    const std::vector<std::string>& account_ids) {
  std::vector<Account> accounts;
  absl::Status status = db_->Transact("get_accounts", [&](pqxx::work& txn) {
    accounts.clear();
    // The ids were validated as UUIDs by the caller, so the array literal needs no quoting.
    const std::string array = absl::StrCat("{", absl::StrJoin(account_ids, ","), "}");
    for (const pqxx::row& row : txn.exec_params(sql::kGetAccounts, array)) {
      accounts.push_back(ToAccount(row));
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return accounts;
}

}  // namespace parlor::accounts
