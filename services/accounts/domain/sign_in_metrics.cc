#include "services/accounts/domain/sign_in_metrics.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace parlor::accounts {
namespace {

struct MethodReasons {
  const char* method;
  std::vector<const char*> reasons;
};

// Why a sign-in fails, per method:
//   wrong_password   the email is linked but the password is wrong
//   unknown_email    no account has the email (answered like wrong_password)
//   wrong_code / code_missing / code_expired / code_exhausted   the one-time code
//   rate_limited     too many attempts for the account or from the address
//   invalid_token    the ID token failed a check (signature, iss, aud, exp, nonce, ...)
//   token_reused     the ID token was accepted before
//   not_linked       a valid ID token no account has linked
//   device_refused   the device id belongs to another account or was removed
//   keys_unavailable the provider's keys could not be fetched
//   signup_budget    a new device refused by the sign-up budget
const std::vector<MethodReasons>& Known() {
  static const auto* known = new std::vector<MethodReasons>{
      {"device", {"device_refused", "signup_budget"}},
      {"email", {"wrong_password", "unknown_email", "rate_limited", "device_refused"}},
      {"password_reset",
       {"wrong_code", "code_missing", "code_expired", "code_exhausted", "rate_limited",
        "device_refused"}},
      {"apple",
       {"invalid_token", "token_reused", "not_linked", "device_refused", "keys_unavailable"}},
      {"google",
       {"invalid_token", "token_reused", "not_linked", "device_refused", "keys_unavailable"}},
  };
  return *known;
}

}  // namespace

SignInMetrics::SignInMetrics(prometheus::Registry* registry) {
  if (registry == nullptr) return;
  auto& sign_ins = prometheus::BuildCounter()
                       .Name("parlor_accounts_sign_ins_total")
                       .Help(
                           "Successful sign-ins, by method (device, email, password_reset, "
                           "apple, google).")
                       .Register(*registry);
  auto& failures = prometheus::BuildCounter()
                       .Name("parlor_accounts_sign_in_failures_total")
                       .Help("Refused sign-ins, by method and reason.")
                       .Register(*registry);
  for (const MethodReasons& entry : Known()) {
    sign_ins_[entry.method] = &sign_ins.Add({{"method", entry.method}});
    for (const char* reason : entry.reasons) {
      failures_[absl::StrCat(entry.method, "/", reason)] =
          &failures.Add({{"method", entry.method}, {"reason", reason}});
    }
  }
}

void SignInMetrics::SignedIn(absl::string_view method) {
  auto it = sign_ins_.find(method);
  if (it != sign_ins_.end()) it->second->Increment();
}

void SignInMetrics::Failed(absl::string_view method, absl::string_view reason) {
  auto it = failures_.find(absl::StrCat(method, "/", reason));
  if (it != failures_.end()) it->second->Increment();
}

}  // namespace parlor::accounts
