#include "services/accounts/domain/credentials_service.h"

#include <cstring>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "services/accounts/domain/validation.h"
#include "services/common/core/client_address.h"
#include "services/common/core/crypto.h"
#include "services/common/grpc_status.h"
#include "spdlog/spdlog.h"

namespace parlor::accounts {
namespace {

constexpr char kLink[] = "link";
constexpr char kReset[] = "password_reset";

absl::Status ValidateCode(absl::string_view code) {
  if (code.size() != 6 || !std::all_of(code.begin(), code.end(), absl::ascii_isdigit)) {
    return absl::InvalidArgumentError("code must be the 6 digits from the mail");
  }
  return absl::OkStatus();
}

absl::Status ValidateNonce(absl::string_view nonce) {
  if (nonce.size() < kMinNonceLength || nonce.size() > kMaxNonceLength) {
    return absl::InvalidArgumentError(
        absl::StrCat("nonce must be ", kMinNonceLength, "-", kMaxNonceLength,
                     " characters (the random value the app generated for this sign-in); it has ",
                     nonce.size()));
  }
  for (unsigned char c : nonce) {
    if (c <= 0x20 || c >= 0x7f) {
      return absl::InvalidArgumentError("nonce may contain only printable ASCII without spaces");
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateIdTokenShape(absl::string_view id_token) {
  if (id_token.empty()) {
    return absl::InvalidArgumentError(
        "id_token is required: the ID token the provider's sign-in SDK returned");
  }
  if (id_token.size() > kMaxIdTokenBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("id_token must be at most ", kMaxIdTokenBytes, " bytes"));
  }
  return absl::OkStatus();
}

}  // namespace

std::string DeviceHandle(absl::string_view device_id) {
  return Sha256Hex(absl::StrCat("parlor-device-handle:", device_id)).substr(0, 16);
}

std::string GenerateEmailCode() {
  // Rejection sampling keeps the six digits uniform.
  uint32_t value = 0;
  do {
    const std::string bytes = RandomBytes(sizeof(value));
    std::memcpy(&value, bytes.data(), sizeof(value));
  } while (value >= 4'294'000'000u);
  return absl::StrFormat("%06u", value % 1'000'000u);
}

std::string EmailCodeHash(absl::string_view purpose, absl::string_view email,
                          absl::string_view code) {
  return Sha256(absl::StrCat("parlor-email-code:", purpose, ":", email, ":", code));
}

CredentialsService::CredentialsService(CredentialsStore* store, AccountsService* sessions,
                                       MailSender* mail, std::unique_ptr<IdTokenVerifier> apple,
                                       std::unique_ptr<IdTokenVerifier> google, Clock clock,
                                       CredentialsOptions options)
    : store_(store),
      sessions_(sessions),
      mail_(mail),
      apple_(std::move(apple)),
      google_(std::move(google)),
      clock_(std::move(clock)),
      options_(options),
      decoy_hash_(HashPassword(RandomToken(16), options.password_hashing).value_or("")),
      password_by_account_(options.password_attempts_per_account),
      password_by_address_(options.password_attempts_per_address),
      codes_by_account_(options.code_attempts_per_account),
      codes_by_address_(options.code_attempts_per_address),
      sends_by_account_(options.code_sends_per_account),
      sends_by_address_(options.code_sends_per_address) {}

absl::Status CredentialsService::Admit(absl::string_view what, RateLimiter& per_account,
                                       const std::string& key, RateLimiter& per_address,
                                       const std::string& client_address, absl::Time now) {
  const auto refuse = [&](absl::string_view scope, const RateLimit& limit, absl::Duration wait) {
    spdlog::info("{} refused by the per-{} limit (client {})", std::string(what),
                 std::string(scope), client_address);
    return WithRetryDelay(
        absl::ResourceExhaustedError(absl::StrFormat(
            "too many %s for this %s (%d at once, then %d a minute); retry after %.3f s", what,
            scope == "account" ? "account" : "network address", limit.burst, limit.per_minute,
            absl::ToDoubleSeconds(wait))),
        wait);
  };
  if (per_address.enabled()) {
    const absl::Duration wait = per_address.Take(AddressLimitKey(client_address), now);
    if (wait > absl::ZeroDuration()) return refuse("address", per_address.limit(), wait);
  }
  if (per_account.enabled()) {
    const absl::Duration wait = per_account.Take(key, now);
    if (wait > absl::ZeroDuration()) return refuse("account", per_account.limit(), wait);
  }
  return absl::OkStatus();
}

absl::StatusOr<absl::Time> CredentialsService::SendCode(const std::string& email,
                                                        const std::string& purpose,
                                                        const std::string& code, absl::Time now) {
  const int minutes = static_cast<int>(absl::ToInt64Minutes(options_.code_ttl));
  Mail mail{.to = email,
            .subject = purpose == kLink ? "Your Parlor code to link this address"
                                        : "Your Parlor password reset code",
            .body = absl::StrCat("Your code is ", code, ". It works for ", minutes,
                                 " minutes.\n\nIf you did not ask for it, ignore this mail: "
                                 "nothing changes without the code.\n")};
  if (absl::Status sent = mail_->Send(mail); !sent.ok()) return sent;
  return now + options_.code_ttl;
}

absl::Status CredentialsService::CodeRefusal(const std::string& method, CodeCheck check,
                                             int failed_attempts) {
  switch (check) {
    case CodeCheck::kAccepted:
      return absl::OkStatus();
    case CodeCheck::kMissing:
      if (!method.empty()) sessions_->sign_in_metrics().Failed(method, "code_missing");
      return absl::FailedPreconditionError(
          "no code was sent to this email for this purpose; ask for one first");
    case CodeCheck::kExpired:
      if (!method.empty()) sessions_->sign_in_metrics().Failed(method, "code_expired");
      return absl::FailedPreconditionError("the code has expired; ask for a new one");
    case CodeCheck::kExhausted:
      if (!method.empty()) sessions_->sign_in_metrics().Failed(method, "code_exhausted");
      return absl::FailedPreconditionError(
          "too many wrong codes were tried, so this code no longer works; ask for a new one");
    case CodeCheck::kWrong:
      if (!method.empty()) sessions_->sign_in_metrics().Failed(method, "wrong_code");
      return absl::PermissionDeniedError(absl::StrCat(
          "the code is wrong; ", std::max(0, options_.max_code_failures - failed_attempts),
          " attempts left before it stops working"));
  }
  return absl::InternalError("unknown code check");
}

absl::StatusOr<absl::Time> CredentialsService::SendLinkEmailCode(
    const auth::Claims& caller, const std::string& email, const std::string& client_address) {
  absl::StatusOr<std::string> normalized = NormalizeEmail(email);
  if (!normalized.ok()) return normalized.status();
  const absl::Time now = clock_();
  if (absl::Status admit = Admit("codes sent", sends_by_account_, caller.subject, sends_by_address_,
                                 client_address, now);
      !admit.ok()) {
    return admit;
  }
  const std::string code = GenerateEmailCode();
  if (absl::Status stored = store_->StoreLinkCode(caller.subject, caller.session_id, *normalized,
                                                  EmailCodeHash(kLink, *normalized, code), now,
                                                  now + options_.code_ttl);
      !stored.ok()) {
    return stored;
  }
  return SendCode(*normalized, kLink, code, now);
}

absl::StatusOr<CredentialRow> CredentialsService::LinkEmailPassword(
    const auth::Claims& caller, const std::string& email, const std::string& code,
    const std::string& password, const std::string& client_address) {
  absl::StatusOr<std::string> normalized = NormalizeEmail(email);
  if (!normalized.ok()) return normalized.status();
  if (absl::Status valid = ValidateCode(code); !valid.ok()) return valid;
  if (absl::Status valid = ValidateNewPassword(password, *normalized); !valid.ok()) return valid;
  const absl::Time now = clock_();
  if (absl::Status admit = Admit("code attempts", codes_by_account_, caller.subject,
                                 codes_by_address_, client_address, now);
      !admit.ok()) {
    return admit;
  }
  absl::StatusOr<std::string> hash = HashPassword(password, options_.password_hashing);
  if (!hash.ok()) return hash.status();
  absl::StatusOr<CredentialsStore::CodeResult> result = store_->LinkEmail(
      caller.subject, caller.session_id, *normalized, EmailCodeHash(kLink, *normalized, code),
      *hash, now, options_.max_code_failures);
  if (!result.ok()) return result.status();
  if (result->check != CodeCheck::kAccepted) {
    return CodeRefusal("", result->check, result->failed_attempts);
  }
  spdlog::info("account {} linked an email address", caller.subject);
  return result->credential;
}

absl::StatusOr<AccountsService::SignIn> CredentialsService::FinishSignIn(
    const CredentialRow& credential, const std::string& method, const std::string& device_id,
    const std::optional<UsedIdToken>& used, absl::Time now) {
  auto [refresh_token, stored] = sessions_->MintRefreshToken(now);
  absl::StatusOr<CredentialSignIn> signed_in =
      store_->SignInWithCredential(credential, device_id, stored, used, now);
  if (!signed_in.ok()) {
    if (signed_in.status().code() == absl::StatusCode::kFailedPrecondition) {
      sessions_->sign_in_metrics().Failed(method, "device_refused");
    } else if (signed_in.status().code() == absl::StatusCode::kUnauthenticated) {
      sessions_->sign_in_metrics().Failed(method, "token_reused");
    }
    return signed_in.status();
  }
  absl::StatusOr<SessionTokens> tokens = sessions_->Tokens(
      signed_in->account.account_id, signed_in->session_id, device_id, refresh_token, stored, now);
  if (!tokens.ok()) return tokens.status();
  sessions_->sign_in_metrics().SignedIn(method);
  return AccountsService::SignIn{
      .account = std::move(signed_in->account), .tokens = *std::move(tokens), .created = false};
}

absl::StatusOr<AccountsService::SignIn> CredentialsService::AuthenticateEmail(
    const std::string& email, const std::string& password, const std::string& device_id,
    const std::string& client_address) {
  absl::StatusOr<std::string> normalized = NormalizeEmail(email);
  if (!normalized.ok()) return normalized.status();
  if (password.empty()) return absl::InvalidArgumentError("password is required");
  if (password.size() > kMaxPasswordLength) {
    return absl::InvalidArgumentError(
        absl::StrCat("password must be at most ", kMaxPasswordLength, " bytes"));
  }
  if (absl::Status valid = ValidateDeviceId(device_id); !valid.ok()) return valid;
  const absl::Time now = clock_();
  if (absl::Status admit = Admit("password attempts", password_by_account_, *normalized,
                                 password_by_address_, client_address, now);
      !admit.ok()) {
    sessions_->sign_in_metrics().Failed("email", "rate_limited");
    return admit;
  }
  absl::StatusOr<std::optional<CredentialRow>> credential =
      store_->FindCredential("email", *normalized);
  if (!credential.ok()) return credential.status();
  const bool known = credential->has_value();
  // The same work whether or not the email is known.
  const bool matches =
      VerifyPassword(password, known ? (*credential)->password_hash : decoy_hash_) && known;
  if (!matches) {
    sessions_->sign_in_metrics().Failed("email", known ? "wrong_password" : "unknown_email");
    return absl::UnauthenticatedError(
        "email or password is wrong (forgot it? SendPasswordResetCode, then ResetPassword)");
  }
  return FinishSignIn(**credential, "email", device_id, std::nullopt, now);
}

absl::StatusOr<absl::Time> CredentialsService::SendPasswordResetCode(
    const std::string& email, const std::string& client_address) {
  absl::StatusOr<std::string> normalized = NormalizeEmail(email);
  if (!normalized.ok()) return normalized.status();
  const absl::Time now = clock_();
  if (absl::Status admit = Admit("codes sent", sends_by_account_, *normalized, sends_by_address_,
                                 client_address, now);
      !admit.ok()) {
    return admit;
  }
  const std::string code = GenerateEmailCode();
  absl::StatusOr<bool> stored = store_->StoreResetCode(
      *normalized, EmailCodeHash(kReset, *normalized, code), now, now + options_.code_ttl);
  if (!stored.ok()) return stored.status();
  // An unknown email gets the same answer, so the RPC does not tell who plays here.
  if (!*stored) return now + options_.code_ttl;
  return SendCode(*normalized, kReset, code, now);
}

absl::StatusOr<AccountsService::SignIn> CredentialsService::ResetPassword(
    const std::string& email, const std::string& code, const std::string& new_password,
    const std::string& device_id, const std::string& client_address) {
  absl::StatusOr<std::string> normalized = NormalizeEmail(email);
  if (!normalized.ok()) return normalized.status();
  if (absl::Status valid = ValidateCode(code); !valid.ok()) return valid;
  if (absl::Status valid = ValidateNewPassword(new_password, *normalized); !valid.ok()) {
    return valid;
  }
  if (absl::Status valid = ValidateDeviceId(device_id); !valid.ok()) return valid;
  const absl::Time now = clock_();
  if (absl::Status admit = Admit("code attempts", codes_by_account_, *normalized, codes_by_address_,
                                 client_address, now);
      !admit.ok()) {
    sessions_->sign_in_metrics().Failed("password_reset", "rate_limited");
    return admit;
  }
  absl::StatusOr<std::string> hash = HashPassword(new_password, options_.password_hashing);
  if (!hash.ok()) return hash.status();
  auto [refresh_token, stored] = sessions_->MintRefreshToken(now);
  absl::StatusOr<CredentialsStore::CodeResult> result =
      store_->ResetPassword(*normalized, EmailCodeHash(kReset, *normalized, code), *hash, device_id,
                            stored, now, options_.max_code_failures);
  if (!result.ok()) {
    if (result.status().code() == absl::StatusCode::kFailedPrecondition) {
      sessions_->sign_in_metrics().Failed("password_reset", "device_refused");
    }
    return result.status();
  }
  if (result->check != CodeCheck::kAccepted) {
    return CodeRefusal("password_reset", result->check, result->failed_attempts);
  }
  absl::StatusOr<SessionTokens> tokens =
      sessions_->Tokens(result->sign_in.account.account_id, result->sign_in.session_id, device_id,
                        refresh_token, stored, now);
  if (!tokens.ok()) return tokens.status();
  spdlog::info("account {} reset its password; its other sessions were ended",
               result->sign_in.account.account_id);
  sessions_->sign_in_metrics().SignedIn("password_reset");
  return AccountsService::SignIn{.account = std::move(result->sign_in.account),
                                 .tokens = *std::move(tokens),
                                 .created = false};
}

absl::StatusOr<const IdTokenVerifier*> CredentialsService::Verifier(
    const std::string& provider) const {
  const IdTokenVerifier* verifier = provider == "apple"    ? apple_.get()
                                    : provider == "google" ? google_.get()
                                                           : nullptr;
  if (provider != "apple" && provider != "google") {
    return absl::InvalidArgumentError(
        "provider must be CREDENTIAL_KIND_APPLE or CREDENTIAL_KIND_GOOGLE");
  }
  if (verifier == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat(provider == "apple" ? "Sign in with Apple" : "Google Sign-In",
                     " is not configured on this server (no client ids)"));
  }
  return verifier;
}

absl::StatusOr<AccountsService::SignIn> CredentialsService::AuthenticateIdToken(
    const std::string& provider, const std::string& id_token, const std::string& nonce,
    const std::string& device_id) {
  absl::StatusOr<const IdTokenVerifier*> verifier = Verifier(provider);
  if (!verifier.ok() && verifier.status().code() == absl::StatusCode::kInvalidArgument) {
    return verifier.status();
  }
  if (absl::Status valid = ValidateIdTokenShape(id_token); !valid.ok()) return valid;
  if (absl::Status valid = ValidateNonce(nonce); !valid.ok()) return valid;
  if (absl::Status valid = ValidateDeviceId(device_id); !valid.ok()) return valid;
  if (!verifier.ok()) return verifier.status();
  const absl::Time now = clock_();
  absl::StatusOr<VerifiedIdToken> verified = (*verifier)->Verify(id_token, nonce, now);
  if (!verified.ok()) {
    sessions_->sign_in_metrics().Failed(
        provider, verified.status().code() == absl::StatusCode::kUnavailable ? "keys_unavailable"
                                                                             : "invalid_token");
    return verified.status();
  }
  absl::StatusOr<std::optional<CredentialRow>> credential =
      store_->FindCredential(provider, verified->subject);
  if (!credential.ok()) return credential.status();
  if (!credential->has_value()) {
    sessions_->sign_in_metrics().Failed(provider, "not_linked");
    return absl::NotFoundError(
        absl::StrCat("no account has this ", provider == "apple" ? "Apple ID" : "Google account",
                     " linked; sign in with AuthenticateDevice, then link it with LinkIdToken"));
  }
  return FinishSignIn(**credential, provider, device_id,
                      UsedIdToken{.token_hash = Sha256(id_token),
                                  .provider = provider,
                                  .expire_time = verified->expires_at},
                      now);
}

absl::StatusOr<CredentialRow> CredentialsService::LinkIdToken(const auth::Claims& caller,
                                                              const std::string& provider,
                                                              const std::string& id_token,
                                                              const std::string& nonce) {
  absl::StatusOr<const IdTokenVerifier*> verifier = Verifier(provider);
  if (!verifier.ok() && verifier.status().code() == absl::StatusCode::kInvalidArgument) {
    return verifier.status();
  }
  if (absl::Status valid = ValidateIdTokenShape(id_token); !valid.ok()) return valid;
  if (absl::Status valid = ValidateNonce(nonce); !valid.ok()) return valid;
  if (!verifier.ok()) return verifier.status();
  const absl::Time now = clock_();
  absl::StatusOr<VerifiedIdToken> verified = (*verifier)->Verify(id_token, nonce, now);
  if (!verified.ok()) return verified.status();
  absl::StatusOr<CredentialRow> linked = store_->LinkIdCredential(
      caller.subject, caller.session_id, provider, verified->subject, verified->email,
      UsedIdToken{.token_hash = Sha256(id_token),
                  .provider = provider,
                  .expire_time = verified->expires_at},
      now);
  if (linked.ok()) spdlog::info("account {} linked a {} credential", caller.subject, provider);
  return linked;
}

absl::StatusOr<std::vector<CredentialRow>> CredentialsService::ListCredentials(
    const auth::Claims& caller) {
  return store_->ListCredentials(caller.subject, caller.session_id);
}

absl::Status CredentialsService::UnlinkCredential(const auth::Claims& caller,
                                                  const std::string& credential_id) {
  if (credential_id.empty()) {
    return absl::InvalidArgumentError("credential_id is required (see ListCredentials)");
  }
  if (!IsAccountId(credential_id)) {
    return absl::InvalidArgumentError(
        "credential_id is not a credential id (a lower-case UUID from ListCredentials)");
  }
  return store_->UnlinkCredential(caller.subject, caller.session_id, credential_id);
}

absl::StatusOr<std::vector<DeviceInfo>> CredentialsService::ListDevices(
    const auth::Claims& caller) {
  absl::StatusOr<std::vector<DeviceRow>> rows =
      store_->ListDevices(caller.subject, caller.session_id);
  if (!rows.ok()) return rows.status();
  std::vector<DeviceInfo> devices;
  for (const DeviceRow& row : *rows) {
    devices.push_back(
        {.device_handle = DeviceHandle(row.device_id),
         .create_time = row.create_time,
         .last_seen_time = row.last_seen_time,
         .current = !caller.device.empty() && caller.device == auth::DeviceClaim(row.device_id)});
  }
  return devices;
}

absl::Status CredentialsService::RemoveDevice(const auth::Claims& caller,
                                              const std::string& device_handle) {
  if (device_handle.size() != 16 ||
      !std::all_of(device_handle.begin(), device_handle.end(),
                   [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); })) {
    return absl::InvalidArgumentError(
        "device_handle must be the 16 lower-case hex characters ListDevices gave");
  }
  absl::StatusOr<std::vector<DeviceRow>> rows =
      store_->ListDevices(caller.subject, caller.session_id);
  if (!rows.ok()) return rows.status();
  for (const DeviceRow& row : *rows) {
    if (DeviceHandle(row.device_id) == device_handle) {
      absl::Status removed =
          store_->RemoveDevice(caller.subject, caller.session_id, row.device_id, clock_());
      if (removed.ok()) spdlog::info("account {} removed a device", caller.subject);
      return removed;
    }
  }
  return absl::NotFoundError("your account has no such device (see ListDevices)");
}

}  // namespace parlor::accounts
