#include "services/accounts/domain/accounts_service.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "services/accounts/domain/validation.h"
#include "services/common/core/client_address.h"
#include "services/common/core/crypto.h"
#include "services/common/core/logging.h"
#include "services/common/core/retry_delay.h"
#include "spdlog/spdlog.h"

namespace parlor::accounts {
namespace {

// 32 random bytes → 43 base64url characters.
constexpr size_t kRefreshTokenBytes = 32;
constexpr size_t kRefreshTokenLength = 43;

absl::Status BadRefreshToken(absl::string_view why) {
  return absl::UnauthenticatedError(
      absl::StrCat("refresh token ", why, "; sign in again with AuthenticateDevice"));
}

}  // namespace

std::string GenerateDisplayName() {
  static constexpr char kAlphabet[] = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
  std::string bytes = RandomBytes(6);
  std::string name = "Player-";
  for (unsigned char b : bytes) name.push_back(kAlphabet[b % (sizeof(kAlphabet) - 1)]);
  return name;
}

AccountsService::AccountsService(AccountsStore* store, auth::TokenSigner access_signer, Clock clock,
                                 AccountsOptions options, prometheus::Registry* registry)
    : store_(store),
      access_signer_(std::move(access_signer)),
      clock_(std::move(clock)),
      options_(options),
      signups_by_address_(options.signups_per_address),
      signups_total_(options.signups_total),
      sign_in_metrics_(registry) {
  if (registry != nullptr) {
    signups_created_ = &prometheus::BuildCounter()
                            .Name("parlor_accounts_signups_total")
                            .Help("Accounts created (first sign-in of a device).")
                            .Register(*registry)
                            .Add({});
    signups_refused_ = &prometheus::BuildCounter()
                            .Name("parlor_accounts_signups_refused_total")
                            .Help(
                                "New accounts refused with RESOURCE_EXHAUSTED by the sign-up "
                                "budget, by scope (address, total).")
                            .Register(*registry);
  }
}

absl::Status AccountsService::AdmitSignUp(const std::string& client_address, absl::Time now) {
  const auto refuse = [&](absl::string_view scope, absl::string_view what, const RateLimit& limit,
                          absl::Duration wait) {
    if (signups_refused_ != nullptr)
      signups_refused_->Add({{"scope", std::string(scope)}}).Increment();
    spdlog::info("sign-up refused by the {} budget (client {})", scope, client_address);
    return WithRetryDelay(
        absl::ResourceExhaustedError(absl::StrFormat(
            "too many new accounts %s (%d a minute, bursts of %d); nothing was created, retry "
            "after %.3f s (signing in an existing device is not limited by this)",
            what, limit.per_minute, limit.burst, absl::ToDoubleSeconds(wait))),
        wait);
  };
  if (signups_by_address_.enabled()) {
    const absl::Duration wait = signups_by_address_.Take(AddressLimitKey(client_address), now);
    if (wait > absl::ZeroDuration()) {
      return refuse("address", "from this network address", signups_by_address_.limit(), wait);
    }
  }
  if (signups_total_.enabled()) {
    const absl::Duration wait = signups_total_.Take("", now);
    if (wait > absl::ZeroDuration()) {
      return refuse("total", "on this server right now", signups_total_.limit(), wait);
    }
  }
  return absl::OkStatus();
}

std::pair<std::string, NewRefreshToken> AccountsService::MintRefreshToken(absl::Time now) const {
  std::string token = RandomToken(kRefreshTokenBytes);
  NewRefreshToken stored{
      .hash = Sha256(token), .issue_time = now, .expire_time = now + options_.refresh_token_ttl};
  return {std::move(token), std::move(stored)};
}

absl::StatusOr<SessionTokens> AccountsService::Tokens(
    const std::string& account_id, const std::string& session_id, const std::string& device_id,
    const std::string& refresh_token, const NewRefreshToken& stored, absl::Time now) const {
  absl::StatusOr<std::string> access =
      access_signer_.Sign(account_id, session_id, now, options_.access_token_ttl,
                          device_id.empty() ? "" : auth::DeviceClaim(device_id));
  if (!access.ok()) return access.status();
  return SessionTokens{.access_token = *std::move(access),
                       .access_token_expire_time = now + options_.access_token_ttl,
                       .refresh_token = refresh_token,
                       .refresh_token_expire_time = stored.expire_time};
}

absl::StatusOr<AccountsService::SignIn> AccountsService::AuthenticateDevice(
    const std::string& device_id, const std::optional<std::string>& display_name,
    const std::string& client_address) {
  if (absl::Status status = ValidateDeviceId(device_id); !status.ok()) return status;
  if (display_name.has_value()) {
    if (absl::Status status = ValidateDisplayName(*display_name); !status.ok()) return status;
  }
  const absl::Time now = clock_();
  auto [refresh_token, stored] = MintRefreshToken(now);
  absl::StatusOr<AccountsStore::DeviceSignIn> signed_in =
      store_->AuthenticateDevice(device_id, display_name, &GenerateDisplayName, stored, now,
                                 [&] { return AdmitSignUp(client_address, now); });
  if (!signed_in.ok()) {
    if (signed_in.status().code() == absl::StatusCode::kFailedPrecondition) {
      sign_in_metrics_.Failed("device", "device_refused");
    } else if (signed_in.status().code() == absl::StatusCode::kResourceExhausted) {
      sign_in_metrics_.Failed("device", "signup_budget");
    }
    return signed_in.status();
  }
  absl::StatusOr<SessionTokens> tokens = Tokens(
      signed_in->account.account_id, signed_in->session_id, device_id, refresh_token, stored, now);
  if (!tokens.ok()) return tokens.status();
  sign_in_metrics_.SignedIn("device");
  if (signed_in->created) {
    spdlog::info("created account {}", signed_in->account.account_id);
    if (signups_created_ != nullptr) signups_created_->Increment();
  }
  return SignIn{.account = std::move(signed_in->account),
                .tokens = *std::move(tokens),
                .created = signed_in->created};
}

absl::StatusOr<SessionTokens> AccountsService::RefreshSession(const std::string& refresh_token) {
  if (refresh_token.empty()) {
    return absl::InvalidArgumentError(
        "refresh_token is required: pass the refresh token of the last AuthenticateDevice or "
        "RefreshSession answer");
  }
  absl::StatusOr<std::string> decoded = Base64UrlDecode(refresh_token);
  if (refresh_token.size() != kRefreshTokenLength || !decoded.ok()) {
    return BadRefreshToken("is malformed");
  }
  const absl::Time now = clock_();
  auto [replacement_token, replacement] = MintRefreshToken(now);
  absl::StatusOr<AccountsStore::Rotation> rotation =
      store_->RotateRefreshToken(Sha256(refresh_token), replacement, now);
  if (!rotation.ok()) return rotation.status();
  switch (rotation->outcome) {
    case AccountsStore::RotationOutcome::kRotated:
      return Tokens(rotation->account_id, rotation->session_id, rotation->device_id,
                    replacement_token, replacement, now);
    case AccountsStore::RotationOutcome::kReused:
      spdlog::warn("refresh token reuse on session {} of account {}; session revoked",
                   rotation->session_id, rotation->account_id);
      return BadRefreshToken(
          "was already used, so the session has been revoked for safety (each refresh token "
          "works once; use the newest one)");
    case AccountsStore::RotationOutcome::kExpired:
      return BadRefreshToken("has expired");
    case AccountsStore::RotationOutcome::kRevoked:
      return BadRefreshToken("belongs to a session that was signed out or revoked");
    case AccountsStore::RotationOutcome::kUnknown:
      break;
  }
  return BadRefreshToken("is not valid");
}

absl::Status AccountsService::SignOut(const auth::Claims& caller, bool all_devices) {
  const absl::Time now = clock_();
  if (all_devices) return store_->RevokeAllSessions(caller.subject, now);
  if (caller.session_id.empty()) {
    return absl::UnauthenticatedError("access token carries no session; sign in again");
  }
  return store_->RevokeSession(caller.subject, caller.session_id, now);
}

absl::StatusOr<Account> AccountsService::GetMe(const auth::Claims& caller) {
  return store_->GetAccount(caller.subject, caller.session_id);
}

absl::StatusOr<Account> AccountsService::UpdateProfile(const auth::Claims& caller,
                                                       const std::string& display_name) {
  if (display_name.empty()) {
    return absl::InvalidArgumentError("display_name is required");
  }
  if (absl::Status status = ValidateDisplayName(display_name); !status.ok()) return status;
  return store_->UpdateDisplayName(caller.subject, caller.session_id, display_name, clock_());
}

absl::StatusOr<std::vector<Account>> AccountsService::BatchGetAccounts(
    const std::vector<std::string>& account_ids) {
  if (account_ids.empty() || account_ids.size() > kMaxBatchGet) {
    return absl::InvalidArgumentError(absl::StrCat("account_ids must hold 1-", kMaxBatchGet,
                                                   " ids; it has ", account_ids.size()));
  }
  for (const std::string& id : account_ids) {
    if (!IsAccountId(id)) {
      return absl::InvalidArgumentError(
          absl::StrCat("account_ids: \"", id.substr(0, 40), "\" is not an account id (a UUID)"));
    }
  }
  return store_->GetAccounts(account_ids);
}

}  // namespace parlor::accounts
