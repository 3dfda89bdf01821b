#ifndef PARLOR_SERVICES_ACCOUNTS_STORE_PG_HELPERS_H_
#define PARLOR_SERVICES_ACCOUNTS_STORE_PG_HELPERS_H_

#include <string>

#include "absl/status/status.h"
#include "services/common/db/pool.h"

// What the accounts stores on PostgreSQL share.
namespace parlor::accounts {

// OK when `session_id` is a live session of `account_id`; UNAUTHENTICATED otherwise.
absl::Status CheckSession(pqxx::work& txn, const std::string& account_id,
                          const std::string& session_id);

// FAILED_PRECONDITION for a device id that RemoveDevice took off its account.
absl::Status DeviceRemoved();

}  // namespace parlor::accounts

#endif  // PARLOR_SERVICES_ACCOUNTS_STORE_PG_HELPERS_H_
