#include "services/accounts/store/pg_credentials_store.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "services/accounts/store/pg_helpers.h"
#include "services/accounts/store/sql.h"
#include "services/common/core/crypto.h"

namespace parlor::accounts {
namespace {

int64_t Micros(absl::Time time) { return absl::ToUnixMicros(time); }
absl::Time FromMicros(const pqxx::field& field) {
  return absl::FromUnixMicros(field.as<int64_t>());
}
std::string Hex(const std::string& bytes) { return absl::BytesToHexString(bytes); }

CredentialRow ToCredential(const pqxx::row& row) {
  CredentialRow credential{.credential_id = row[0].as<std::string>(),
                           .account_id = row[1].as<std::string>(),
                           .kind = row[2].as<std::string>(),
                           .email = row[3].as<std::string>(),
                           .create_time = FromMicros(row[4]),
                           .last_used_time = FromMicros(row[5]),
                           .password_hash = ""};
  if (row.size() > 6) credential.password_hash = row[6].as<std::string>();
  return credential;
}

std::string KindName(const std::string& kind) {
  if (kind == "email") return "an email address";
  if (kind == "apple") return "an Apple ID";
  return "a Google account";
}

absl::StatusOr<Account> LoadAccount(pqxx::work& txn, const std::string& account_id) {
  pqxx::result found = txn.exec_params(sql::kGetAccount, account_id);
  if (found.empty()) return absl::NotFoundError("account not found");
  return Account{.account_id = found[0][0].as<std::string>(),
                 .display_name = found[0][1].as<std::string>(),
                 .create_time = FromMicros(found[0][2]),
                 .update_time = FromMicros(found[0][3])};
}

// Compares the presented code with the stored one; a wrong one is counted (the caller commits).
CodeCheck CheckCode(pqxx::work& txn, const std::string& account_id, const std::string& purpose,
                    const std::string& email, const std::string& code_hash, absl::Time now,
                    int max_failed_attempts, int* failed_attempts) {
  pqxx::result row = txn.exec_params(sql::kLockEmailCode, account_id, purpose, Micros(now));
  if (row.empty() || row[0][0].as<std::string>() != email) return CodeCheck::kMissing;
  *failed_attempts = row[0][3].as<int>();
  if (row[0][2].as<bool>()) return CodeCheck::kExpired;
  if (*failed_attempts >= max_failed_attempts) return CodeCheck::kExhausted;
  if (!ConstantTimeEquals(row[0][1].as<std::string>(), Hex(code_hash))) {
    txn.exec_params0(sql::kFailEmailCode, account_id, purpose);
    ++*failed_attempts;
    return CodeCheck::kWrong;
  }
  txn.exec_params0(sql::kDeleteEmailCode, account_id, purpose);
  return CodeCheck::kAccepted;
}

// Adds `device_id` to the account (or finds it there); refuses a device of another account or a
// removed one.
absl::Status AttachDevice(pqxx::work& txn, const std::string& account_id,
                          const std::string& device_id, absl::Time now) {
  pqxx::result device = txn.exec_params(sql::kLockDevice, device_id);
  if (device.empty()) {
    if (txn.exec_params(sql::kInsertDevice, device_id, account_id, Micros(now)).empty()) {
      return absl::AbortedError("this device is signing in concurrently; retry");
    }
    return absl::OkStatus();
  }
  if (device[0][0].as<std::string>() != account_id) {
    return absl::FailedPreconditionError(
        "this device_id already belongs to another account (a device signs in to one account); "
        "use a new device_id for this install to sign in to this account");
  }
  if (device[0][1].as<bool>()) return DeviceRemoved();
  txn.exec_params0(sql::kTouchDevice, device_id, Micros(now));
  return absl::OkStatus();
}

std::string OpenSession(pqxx::work& txn, const std::string& account_id,
                        const std::string& device_id, const NewRefreshToken& token,
                        absl::Time now) {
  std::string session_id =
      txn.exec_params1(sql::kInsertSession, account_id, device_id, Micros(now))[0]
          .as<std::string>();
  txn.exec_params0(sql::kInsertRefreshToken, Hex(token.hash), session_id, Micros(token.issue_time),
                   Micros(token.expire_time));
  return session_id;
}

absl::Status RecordUsedToken(pqxx::work& txn, const UsedIdToken& used, absl::Time now) {
  txn.exec_params0(sql::kSweepUsedIdTokens, Micros(now));
  if (txn.exec_params(sql::kInsertUsedIdToken, Hex(used.token_hash), used.provider,
                      Micros(used.expire_time))
          .empty()) {
    return absl::UnauthenticatedError(
        "ID token was already used (each is accepted once); get a fresh one from the provider's "
        "SDK");
  }
  return absl::OkStatus();
}

// Inserts a credential; ALREADY_EXISTS / FAILED_PRECONDITION when it or its kind is taken.
absl::StatusOr<CredentialRow> InsertCredential(pqxx::work& txn, const std::string& account_id,
                                               const std::string& kind, const std::string& subject,
                                               const std::string& email,
                                               const std::optional<std::string>& password_hash,
                                               absl::Time now) {
  pqxx::result owner = txn.exec_params(sql::kFindCredential, kind, subject);
  if (!owner.empty()) {
    if (owner[0][1].as<std::string>() == account_id) {
      return absl::FailedPreconditionError(
          absl::StrCat("this ", kind == "email" ? "email address" : kind,
                       " credential is already linked to your account"));
    }
    return absl::AlreadyExistsError(absl::StrCat(
        "this ",
        kind == "email"   ? "email address"
        : kind == "apple" ? "Apple ID"
                          : "Google account",
        " is already linked to another account; sign in with it on this device instead (it is "
        "never moved or merged)"));
  }
  for (const pqxx::row& row : txn.exec_params(sql::kLockCredentials, account_id)) {
    if (row[1].as<std::string>() == kind) {
      return absl::FailedPreconditionError(
          absl::StrCat("your account already has ", KindName(kind), " linked; unlink it first"));
    }
  }
  try {
    pqxx::subtransaction insert(txn, "insert_credential");
    pqxx::result row = insert.exec_params(sql::kInsertCredential, account_id, kind, subject, email,
                                          password_hash.value_or(""), Micros(now));
    insert.commit();
    return ToCredential(row[0]);
  } catch (const pqxx::unique_violation&) {
    return absl::AlreadyExistsError(
        "this credential was linked to another account a moment ago; sign in with it instead");
  }
}

}  // namespace

absl::StatusOr<std::optional<CredentialRow>> PgCredentialsStore::FindCredential(
    const std::string& kind, const std::string& subject) {
  std::optional<CredentialRow> found;
  absl::Status status = db_->Transact("find_credential", [&](pqxx::work& txn) {
    found.reset();
    pqxx::result row = txn.exec_params(sql::kFindCredential, kind, subject);
    if (!row.empty()) found = ToCredential(row[0]);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return found;
}

absl::StatusOr<std::vector<CredentialRow>> PgCredentialsStore::ListCredentials(
    const std::string& account_id, const std::string& session_id) {
  std::vector<CredentialRow> rows;
  absl::Status status = db_->Transact("list_credentials", [&](pqxx::work& txn) {
    rows.clear();
    if (absl::Status live = CheckSession(txn, account_id, session_id); !live.ok()) return live;
    for (const pqxx::row& row : txn.exec_params(sql::kListCredentials, account_id)) {
      rows.push_back(ToCredential(row));
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return rows;
}

absl::Status PgCredentialsStore::StoreLinkCode(const std::string& account_id,
                                               const std::string& session_id,
                                               const std::string& email,
                                               const std::string& code_hash, absl::Time now,
                                               absl::Time expire_time) {
  return db_->Transact("store_link_code", [&](pqxx::work& txn) {
    if (absl::Status live = CheckSession(txn, account_id, session_id); !live.ok()) return live;
    pqxx::result owner = txn.exec_params(sql::kFindCredential, "email", email);
    if (!owner.empty()) {
      if (owner[0][1].as<std::string>() == account_id) {
        return absl::FailedPreconditionError(
            "this email address is already linked to your account");
      }
      return absl::AlreadyExistsError(
          "this email address is already linked to another account; sign in with it "
          "(AuthenticateEmail) or use another address");
    }
    for (const pqxx::row& row : txn.exec_params(sql::kLockCredentials, account_id)) {
      if (row[1].as<std::string>() == "email") {
        return absl::FailedPreconditionError(
            "your account already has an email address linked; unlink it first "
            "(UnlinkCredential)");
      }
    }
    txn.exec_params0(sql::kUpsertEmailCode, account_id, "link", email, Hex(code_hash), Micros(now),
                     Micros(expire_time));
    return absl::OkStatus();
  });
}

absl::StatusOr<bool> PgCredentialsStore::StoreResetCode(const std::string& email,
                                                        const std::string& code_hash,
                                                        absl::Time now, absl::Time expire_time) {
  bool stored = false;
  absl::Status status = db_->Transact("store_reset_code", [&](pqxx::work& txn) {
    stored = false;
    pqxx::result owner = txn.exec_params(sql::kFindCredential, "email", email);
    if (owner.empty()) return absl::OkStatus();
    txn.exec_params0(sql::kUpsertEmailCode, owner[0][1].as<std::string>(), "password_reset", email,
                     Hex(code_hash), Micros(now), Micros(expire_time));
    stored = true;
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return stored;
}

absl::StatusOr<CredentialsStore::CodeResult> PgCredentialsStore::LinkEmail(
    const std::string& account_id, const std::string& session_id, const std::string& email,
    const std::string& code_hash, const std::string& password_hash, absl::Time now,
    int max_failed_attempts) {
  CodeResult result;
  absl::Status status = db_->Transact("link_email", [&](pqxx::work& txn) {
    result = CodeResult();
    if (absl::Status live = CheckSession(txn, account_id, session_id); !live.ok()) return live;
    result.check = CheckCode(txn, account_id, "link", email, code_hash, now, max_failed_attempts,
                             &result.failed_attempts);
    if (result.check != CodeCheck::kAccepted) return absl::OkStatus();
    absl::StatusOr<CredentialRow> credential =
        InsertCredential(txn, account_id, "email", email, email, password_hash, now);
    if (!credential.ok()) return credential.status();
    result.credential = *std::move(credential);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return result;
}

absl::StatusOr<CredentialsStore::CodeResult> PgCredentialsStore::ResetPassword(
    const std::string& email, const std::string& code_hash, const std::string& password_hash,
    const std::string& device_id, const NewRefreshToken& token, absl::Time now,
    int max_failed_attempts) {
  CodeResult result;
  absl::Status status = db_->Transact("reset_password", [&](pqxx::work& txn) {
    result = CodeResult();
    pqxx::result owner = txn.exec_params(sql::kFindCredential, "email", email);
    if (owner.empty()) return absl::OkStatus();  // kMissing: no code can exist
    const CredentialRow credential = ToCredential(owner[0]);
    result.check = CheckCode(txn, credential.account_id, "password_reset", email, code_hash, now,
                             max_failed_attempts, &result.failed_attempts);
    if (result.check != CodeCheck::kAccepted) return absl::OkStatus();
    txn.exec_params0(sql::kSetPasswordHash, credential.credential_id, password_hash, Micros(now));
    // Whoever knew the old password (or holds an old session) is signed out everywhere.
    txn.exec_params0(sql::kRevokeAccountSessions, credential.account_id, Micros(now),
                     "password_reset");
    if (absl::Status attached = AttachDevice(txn, credential.account_id, device_id, now);
        !attached.ok()) {
      return attached;
    }
    absl::StatusOr<Account> account = LoadAccount(txn, credential.account_id);
    if (!account.ok()) return account.status();
    result.sign_in.account = *std::move(account);
    result.sign_in.session_id = OpenSession(txn, credential.account_id, device_id, token, now);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return result;
}

absl::StatusOr<CredentialSignIn> PgCredentialsStore::SignInWithCredential(
    const CredentialRow& credential, const std::string& device_id, const NewRefreshToken& token,
    const std::optional<UsedIdToken>& used, absl::Time now) {
  CredentialSignIn result;
  absl::Status status = db_->Transact("sign_in_with_credential", [&](pqxx::work& txn) {
    result = CredentialSignIn();
    if (used.has_value()) {
      if (absl::Status fresh = RecordUsedToken(txn, *used, now); !fresh.ok()) return fresh;
    }
    if (absl::Status attached = AttachDevice(txn, credential.account_id, device_id, now);
        !attached.ok()) {
      return attached;
    }
    txn.exec_params0(sql::kTouchCredential, credential.credential_id, Micros(now));
    absl::StatusOr<Account> account = LoadAccount(txn, credential.account_id);
    if (!account.ok()) return account.status();
    result.account = *std::move(account);
    result.session_id = OpenSession(txn, credential.account_id, device_id, token, now);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return result;
}

absl::StatusOr<CredentialRow> PgCredentialsStore::LinkIdCredential(
    const std::string& account_id, const std::string& session_id, const std::string& kind,
    const std::string& subject, const std::string& email, const UsedIdToken& used, absl::Time now) {
  CredentialRow result;
  absl::Status status = db_->Transact("link_id_credential", [&](pqxx::work& txn) {
    if (absl::Status live = CheckSession(txn, account_id, session_id); !live.ok()) return live;
    if (absl::Status fresh = RecordUsedToken(txn, used, now); !fresh.ok()) return fresh;
    absl::StatusOr<CredentialRow> credential =
        InsertCredential(txn, account_id, kind, subject, email, std::nullopt, now);
    if (!credential.ok()) return credential.status();
    result = *std::move(credential);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return result;
}

absl::Status PgCredentialsStore::UnlinkCredential(const std::string& account_id,
                                                  const std::string& session_id,
                                                  const std::string& credential_id) {
  return db_->Transact("unlink_credential", [&](pqxx::work& txn) {
    if (absl::Status live = CheckSession(txn, account_id, session_id); !live.ok()) return live;
    pqxx::result credentials = txn.exec_params(sql::kLockCredentials, account_id);
    bool found = false;
    for (const pqxx::row& row : credentials)
      found = found || row[0].as<std::string>() == credential_id;
    if (!found) {
      return absl::NotFoundError(
          absl::StrCat("your account has no credential ", credential_id, " (see ListCredentials)"));
    }
    if (credentials.size() == 1) {
      return absl::FailedPreconditionError(
          "this is your account's last linked credential, which is what recovers it on a new "
          "device; link another one first, then unlink this one");
    }
    txn.exec_params0(sql::kDeleteCredential, credential_id, account_id);
    return absl::OkStatus();
  });
}

absl::StatusOr<std::vector<DeviceRow>> PgCredentialsStore::ListDevices(
    const std::string& account_id, const std::string& session_id) {
  std::vector<DeviceRow> rows;
  absl::Status status = db_->Transact("list_devices", [&](pqxx::work& txn) {
    rows.clear();
    if (absl::Status live = CheckSession(txn, account_id, session_id); !live.ok()) return live;
    for (const pqxx::row& row : txn.exec_params(sql::kListDevices, account_id)) {
      rows.push_back({.device_id = row[0].as<std::string>(),
                      .create_time = FromMicros(row[1]),
                      .last_seen_time = FromMicros(row[2])});
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return rows;
}

absl::Status PgCredentialsStore::RemoveDevice(const std::string& account_id,
                                              const std::string& session_id,
                                              const std::string& device_id, absl::Time now) {
  return db_->Transact("remove_device", [&](pqxx::work& txn) {
    if (absl::Status live = CheckSession(txn, account_id, session_id); !live.ok()) return live;
    const bool has_credential = !txn.exec_params(sql::kLockCredentials, account_id).empty();
    pqxx::result device = txn.exec_params(sql::kLockDevice, device_id);
    if (device.empty() || device[0][0].as<std::string>() != account_id || device[0][1].as<bool>()) {
      return absl::NotFoundError("your account has no such device (see ListDevices)");
    }
    const int64_t live_devices =
        txn.exec_params1(sql::kCountLiveDevices, account_id)[0].as<int64_t>();
    if (live_devices <= 1 && !has_credential) {
      return absl::FailedPreconditionError(
          "this is your account's only device and no credential is linked: removing it would "
          "lose the account; link an email, Apple ID or Google account first");
    }
    txn.exec_params(sql::kRemoveDevice, device_id, account_id, Micros(now));
    txn.exec_params0(sql::kRevokeDeviceSessions, device_id, Micros(now), "device_removed");
    return absl::OkStatus();
  });
}

}  // namespace parlor::accounts
