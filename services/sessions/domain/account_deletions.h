#ifndef PARLOR_SERVICES_SESSIONS_DOMAIN_ACCOUNT_DELETIONS_H_
#define PARLOR_SERVICES_SESSIONS_DOMAIN_ACCOUNT_DELETIONS_H_

#include "services/common/deletions/deletion_sink.h"
#include "services/sessions/domain/sessions.h"
#include "services/sessions/store/account_erasure.h"

namespace parlor::sessions {

// A deleted player leaves every game they still play as if they had resigned (each game's
// forfeit rules decide what happens next: the others play on, or the game ends with the
// player's side last), then their seats take the name the accounts service gave them and what
// sessions keeps about them alone is erased.
class SessionsDeletionSink : public AccountDeletionSink {
 public:
  SessionsDeletionSink(Sessions* sessions, AccountErasureStore* store)
      : sessions_(sessions), store_(store) {}

  absl::StatusOr<int64_t> HandledThrough() override { return store_->HandledThrough(); }
  absl::Status Forget(const DeletedAccount& deleted) override;

 private:
  Sessions* sessions_;
  AccountErasureStore* store_;
};

}  // namespace parlor::sessions

#endif  // PARLOR_SERVICES_SESSIONS_DOMAIN_ACCOUNT_DELETIONS_H_
