#ifndef PARLOR_SERVICES_ACCOUNTS_DOMAIN_ACCOUNT_H_
#define PARLOR_SERVICES_ACCOUNTS_DOMAIN_ACCOUNT_H_

#include <string>

#include "absl/time/time.h"

namespace parlor::accounts {

struct Account {
  std::string account_id;
  std::string display_name;
  absl::Time create_time;
  absl::Time update_time;
};

}  // namespace parlor::accounts

#endif  // PARLOR_SERVICES_ACCOUNTS_DOMAIN_ACCOUNT_H_
