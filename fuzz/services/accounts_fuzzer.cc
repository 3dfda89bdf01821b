// Arbitrary request messages into the accounts domain (AccountsService + its validation) over an
// in-memory store, as the api layer calls it: AuthenticateDevice, RefreshSession (fuzzed tokens
// and tokens it was given earlier, so rotation and reuse detection run), SignOut, GetMe,
// UpdateProfile and BatchGetAccounts, for callers whose access token (fuzzed or issued) went
// through the real TokenVerifier. Checks: no crash; every refusal has a precise code (never
// INTERNAL or UNKNOWN) and a message; bad input changes nothing in the store; issued access
// tokens verify and name the account; the store only ever sees 32-byte hashes of refresh tokens.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "fuzz/fuzz_support.h"
#include "parlor/accounts/v1/accounts.pb.h"
#include "services/accounts/domain/accounts_service.h"
#include "services/accounts/store/accounts_store.h"
#include "services/common/core/token.h"

namespace parlor::fuzz {
namespace {

using accounts::Account;
using accounts::AccountsStore;
using accounts::NewRefreshToken;

// Keeps what the PostgreSQL store keeps, in maps; `changes` counts every write.
class MemoryAccountsStore : public AccountsStore {
 public:
  int changes = 0;

  absl::StatusOr<DeviceSignIn> AuthenticateDevice(
      const std::string& device_id, const std::optional<std::string>& requested_name,
      const std::function<std::string()>& generate_name, const NewRefreshToken& token,
      absl::Time now, const std::function<absl::Status()>& admit_new_account) override {
    CheckHash(token);
    DeviceSignIn result;
    auto device = devices_.find(device_id);
    if (device == devices_.end()) {
      if (absl::Status admitted = admit_new_account(); !admitted.ok()) return admitted;
      const std::string name = requested_name.value_or(generate_name());
      if (names_.count(absl::AsciiStrToLower(name)) > 0) {
        return absl::AlreadyExistsError("display name taken");
      }
      const std::string id =
          absl::StrCat("00000000-0000-4000-8000-", 100000000000 + accounts_.size());
      accounts_[id] = {id, name, now, now};
      names_.insert(absl::AsciiStrToLower(name));
      device = devices_.emplace(device_id, id).first;
      result.created = true;
    }
    result.account = accounts_[device->second];
    result.session_id = absl::StrCat("s", sessions_.size());
    sessions_[result.session_id] = {device->second, false};
    tokens_[token.hash] = {result.session_id, false, token.expire_time};
    ++changes;
    return result;
  }

  absl::StatusOr<Rotation> RotateRefreshToken(const std::string& presented_hash,
                                              const NewRefreshToken& replacement,
                                              absl::Time now) override {
    CheckHash(replacement);
    PARLOR_FUZZ_CHECK(presented_hash.size() == 32, "the store was given an unhashed token");
    Rotation rotation;
    auto token = tokens_.find(presented_hash);
    if (token == tokens_.end()) return rotation;
    Session& session = sessions_[token->second.session_id];
    rotation.account_id = session.account_id;
    rotation.session_id = token->second.session_id;
    if (session.revoked) {
      rotation.outcome = RotationOutcome::kRevoked;
    } else if (token->second.used) {
      session.revoked = true;
      ++changes;
      rotation.outcome = RotationOutcome::kReused;
    } else if (token->second.expire_time <= now) {
      rotation.outcome = RotationOutcome::kExpired;
    } else {
      token->second.used = true;
      tokens_[replacement.hash] = {rotation.session_id, false, replacement.expire_time};
      ++changes;
      rotation.outcome = RotationOutcome::kRotated;
    }
    return rotation;
  }

  absl::Status RevokeSession(const std::string& account_id, const std::string& session_id,
                             absl::Time) override {
    auto session = sessions_.find(session_id);
    if (session == sessions_.end() || session->second.account_id != account_id) {
      return absl::UnauthenticatedError("unknown session");
    }
    session->second.revoked = true;
    ++changes;
    return absl::OkStatus();
  }
  absl::Status RevokeAllSessions(const std::string& account_id, absl::Time) override {
    for (auto& [id, session] : sessions_) {
      if (session.account_id == account_id) session.revoked = true;
    }
    ++changes;
    return absl::OkStatus();
  }
  absl::StatusOr<Account> GetAccount(const std::string& account_id,
                                     const std::string& session_id) override {
    auto session = sessions_.find(session_id);
    if (session == sessions_.end() || session->second.revoked ||
        session->second.account_id != account_id) {
      return absl::UnauthenticatedError("session revoked");
    }
    auto account = accounts_.find(account_id);
    if (account == accounts_.end()) return absl::NotFoundError("no such account");
    return account->second;
  }
  absl::StatusOr<Account> UpdateDisplayName(const std::string& account_id,
                                            const std::string& session_id,
                                            const std::string& display_name,
                                            absl::Time now) override {
    absl::StatusOr<Account> account = GetAccount(account_id, session_id);
    if (!account.ok()) return account.status();
    const std::string key = absl::AsciiStrToLower(display_name);
    if (key != absl::AsciiStrToLower(account->display_name)) {
      if (names_.count(key) > 0) return absl::AlreadyExistsError("display name taken");
      names_.erase(absl::AsciiStrToLower(account->display_name));
      names_.insert(key);
    }
    Account& stored = accounts_[account_id];
    stored.display_name = display_name;
    stored.update_time = now;
    ++changes;
    return stored;
  }
  absl::StatusOr<std::vector<Account>> GetAccounts(
      const std::vector<std::string>& account_ids) override {
    std::vector<Account> found;
    for (const std::string& id : account_ids) {
      auto account = accounts_.find(id);
      if (account != accounts_.end()) found.push_back(account->second);
    }
    return found;
  }

 private:
  struct Session {
    std::string account_id;
    bool revoked = false;
  };
  struct Token {
    std::string session_id;
    bool used = false;
    absl::Time expire_time;
  };
  static void CheckHash(const NewRefreshToken& token) {
    PARLOR_FUZZ_CHECK(token.hash.size() == 32, "a refresh token reached the store unhashed");
    PARLOR_FUZZ_CHECK(token.expire_time > token.issue_time, "a refresh token expires at issue");
  }
  std::map<std::string, std::string> devices_;
  std::map<std::string, Account> accounts_;
  std::set<std::string> names_;
  std::map<std::string, Session> sessions_;
  std::map<std::string, Token> tokens_;
};

void CheckRefusal(const absl::Status& status, const char* rpc) {
  const absl::StatusCode code = status.code();
  PARLOR_FUZZ_CHECK(
      code == absl::StatusCode::kInvalidArgument || code == absl::StatusCode::kUnauthenticated ||
          code == absl::StatusCode::kAlreadyExists || code == absl::StatusCode::kNotFound ||
          code == absl::StatusCode::kPermissionDenied,
      absl::StrCat(rpc, " refused with ", status.ToString()));
  PARLOR_FUZZ_CHECK(!status.message().empty(), absl::StrCat(rpc, " refused without a message"));
}

struct Keys {
  auth::TokenSigner signer;
  auth::TokenVerifier verifier;
};

const Keys& TestKeys() {
  static const Keys* const keys = [] {
    const auth::KeyPairBase64 pair = auth::GenerateKeyPair();
    absl::StatusOr<auth::TokenSigner> signer =
        auth::TokenSigner::Create(auth::TokenKind::kAccess, pair.private_key);
    absl::StatusOr<auth::TokenVerifier> verifier =
        auth::TokenVerifier::Create(auth::TokenKind::kAccess, pair.public_key);
    PARLOR_FUZZ_CHECK(signer.ok() && verifier.ok(), "test keys");
    return new Keys{*signer, *verifier};
  }();
  return *keys;
}

template <typename Request>
bool ParseRequest(FuzzedDataProvider& in, Request* request) {
  return request->ParseFromString(in.ConsumeRandomLengthString(256));
}

void Run(FuzzedDataProvider& in) {
  const Keys& keys = TestKeys();
  MemoryAccountsStore store;
  absl::Time now = absl::FromUnixSeconds(1'800'000'000);
  accounts::AccountsService service(&store, keys.signer, [&now] { return now; });
  std::vector<std::string> access_tokens;
  std::vector<std::string> refresh_tokens;
  auto pick = [&in](const std::vector<std::string>& from) {
    return from.empty() ? std::string()
                        : from[in.ConsumeIntegralInRange<size_t>(0, from.size() - 1)];
  };
  auto check_tokens = [&](const accounts::SessionTokens& tokens, const std::string& account_id) {
    absl::StatusOr<auth::Claims> claims = keys.verifier.Verify(tokens.access_token, now);
    PARLOR_FUZZ_CHECK(claims.ok() && claims->subject == account_id,
                      "an issued access token does not verify for its account");
    PARLOR_FUZZ_CHECK(!tokens.refresh_token.empty() && tokens.refresh_token != tokens.access_token,
                      "no distinct refresh token");
    access_tokens.push_back(tokens.access_token);
    refresh_tokens.push_back(tokens.refresh_token);
  };

  for (int step = 0; step < 32 && in.remaining_bytes() > 0; ++step) {
    const int changes_before = store.changes;
    const int rpc = in.ConsumeIntegralInRange(0, 6);
    if (rpc == 0) {
      accounts::v1::AuthenticateDeviceRequest request;
      if (!ParseRequest(in, &request)) continue;
      std::optional<std::string> name;
      if (request.has_display_name()) name = request.display_name();
      auto signed_in = service.AuthenticateDevice(request.device_id(), name);
      if (signed_in.ok()) {
        check_tokens(signed_in->tokens, signed_in->account.account_id);
      } else {
        CheckRefusal(signed_in.status(), "AuthenticateDevice");
        PARLOR_FUZZ_CHECK(store.changes == changes_before, "a refused sign-in changed the store");
      }
    } else if (rpc == 1) {
      accounts::v1::RefreshSessionRequest request;
      if (in.ConsumeBool()) {
        request.set_refresh_token(pick(refresh_tokens));
      } else if (!ParseRequest(in, &request)) {
        continue;
      }
      auto refreshed = service.RefreshSession(request.refresh_token());
      if (refreshed.ok()) {
        absl::StatusOr<auth::Claims> claims = keys.verifier.Verify(refreshed->access_token, now);
        PARLOR_FUZZ_CHECK(claims.ok(), "a refreshed access token does not verify");
        check_tokens(*refreshed, claims->subject);
      } else {
        CheckRefusal(refreshed.status(), "RefreshSession");
        // Only the reuse of a used token writes (it revokes the session).
        PARLOR_FUZZ_CHECK(store.changes == changes_before ||
                              refreshed.status().code() == absl::StatusCode::kUnauthenticated,
                          "a refused refresh changed the store");
      }
    } else if (rpc == 6) {
      now += absl::Seconds(in.ConsumeIntegralInRange(0, 40 * 24 * 3600));
    } else {
      // An authenticated RPC: the caller's token (issued earlier, or bytes) through the verifier.
      const std::string token =
          in.ConsumeBool() ? pick(access_tokens) : in.ConsumeRandomLengthString(200);
      absl::StatusOr<auth::Claims> caller = keys.verifier.Verify(token, now);
      if (!caller.ok()) {
        CheckRefusal(caller.status(), "Verify");
        PARLOR_FUZZ_CHECK(caller.status().code() == absl::StatusCode::kUnauthenticated,
                          "a bad token refused with " + caller.status().ToString());
        continue;
      }
      absl::Status status;
      if (rpc == 2) {
        accounts::v1::SignOutRequest request;
        if (!ParseRequest(in, &request)) continue;
        status = service.SignOut(*caller, request.all_devices());
      } else if (rpc == 3) {
        status = service.GetMe(*caller).status();
      } else if (rpc == 4) {
        accounts::v1::UpdateProfileRequest request;
        if (!ParseRequest(in, &request)) continue;
        auto updated = service.UpdateProfile(*caller, request.display_name());
        status = updated.status();
        if (updated.ok()) {
          PARLOR_FUZZ_CHECK(updated->display_name == request.display_name(),
                            "UpdateProfile stored another name");
        }
      } else {
        accounts::v1::BatchGetAccountsRequest request;
        if (!ParseRequest(in, &request)) continue;
        std::vector<std::string> ids(request.account_ids().begin(), request.account_ids().end());
        auto found = service.BatchGetAccounts(ids);
        status = found.status();
        if (found.ok()) {
          PARLOR_FUZZ_CHECK(found->size() <= ids.size(), "BatchGetAccounts invents accounts");
        }
      }
      if (!status.ok()) CheckRefusal(status, "an authenticated RPC");
      if (status.code() == absl::StatusCode::kInvalidArgument) {
        PARLOR_FUZZ_CHECK(store.changes == changes_before, "bad input changed the store");
      }
    }
  }
}

}  // namespace
}  // namespace parlor::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  parlor::fuzz::Run(in);
  return 0;
}
