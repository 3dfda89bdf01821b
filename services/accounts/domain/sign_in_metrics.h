#ifndef PARLOR_SERVICES_ACCOUNTS_DOMAIN_SIGN_IN_METRICS_H_
#define PARLOR_SERVICES_ACCOUNTS_DOMAIN_SIGN_IN_METRICS_H_

#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/registry.h"

namespace parlor::accounts {

// parlor_accounts_sign_ins_total{method} and parlor_accounts_sign_in_failures_total{method,
// reason}. Every (method, reason) pair that can happen exists from the start at 0, so a rate or
// an alert on it never looks at a missing series. Methods: device, email, password_reset, apple,
// google. Thread-safe (the counters are).
class SignInMetrics {
 public:
  // `registry` may be null: then nothing is counted.
  explicit SignInMetrics(prometheus::Registry* registry);

  void SignedIn(absl::string_view method);
  // `reason` must be one of the reasons listed for `method` in the .cc file.
  void Failed(absl::string_view method, absl::string_view reason);

 private:
  absl::flat_hash_map<std::string, prometheus::Counter*> sign_ins_;
  absl::flat_hash_map<std::string, prometheus::Counter*> failures_;  // "method/reason"
};

}  // namespace parlor::accounts

#endif  // PARLOR_SERVICES_ACCOUNTS_DOMAIN_SIGN_IN_METRICS_H_
