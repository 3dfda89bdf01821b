#ifndef PARLOR_SERVICES_SESSIONS_DOMAIN_RECORDS_H_
#define PARLOR_SERVICES_SESSIONS_DOMAIN_RECORDS_H_

#include <cstdint>
#include <string>

namespace parlor::sessions {

// A player's record of games against people (GetPlayerRecords): how their games ended.
struct PlayerRecord {
  std::string account_id;
  int64_t finished = 0;   // played to the end
  int64_t resigned = 0;   // resigned before the end
  int64_t timed_out = 0;  // forfeited by the clock
  // finished / (finished + resigned + timed_out); 1 with no game yet.
  double finish_rate = 1.0;
};

}  // namespace parlor::sessions

#endif  // PARLOR_SERVICES_SESSIONS_DOMAIN_RECORDS_H_
