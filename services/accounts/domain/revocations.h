#ifndef PARLOR_SERVICES_ACCOUNTS_DOMAIN_REVOCATIONS_H_
#define PARLOR_SERVICES_ACCOUNTS_DOMAIN_REVOCATIONS_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "services/accounts/store/revocations_store.h"

namespace parlor::accounts {

// ListRevokedSessions: which sessions were revoked recently, page by page, for the services
// that must end what a signed-out session holds open.
class Revocations {
 public:
  struct Page {
    std::vector<RevokedSessionRow> sessions;
    std::string next_page_token;  // empty on the last page
    absl::Time server_time;
  };

  Revocations(RevocationsStore* store, std::function<absl::Time()> clock)
      : store_(store), clock_(std::move(clock)) {}

  // `since` must be within the last day; `page_size` 0 (500) or 1..1000; `page_token` empty or
  // from a previous page with the same `since`.
  absl::StatusOr<Page> List(absl::Time since, int page_size, const std::string& page_token);

 private:
  RevocationsStore* store_;
  std::function<absl::Time()> clock_;
};

}  // namespace parlor::accounts

#endif  // PARLOR_SERVICES_ACCOUNTS_DOMAIN_REVOCATIONS_H_
