#ifndef PARLOR_SERVICES_ACCOUNTS_DOMAIN_FRIENDS_SERVICE_H_
#define PARLOR_SERVICES_ACCOUNTS_DOMAIN_FRIENDS_SERVICE_H_

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "services/accounts/store/friends_store.h"
#include "services/common/core/token.h"

namespace parlor::accounts {

// Friends (request, accept, decline, remove, list) and blocks, plus the block queries other
// services make. Input is checked before the store is touched.
class FriendsService {
 public:
  using Clock = std::function<absl::Time()>;
  FriendsService(FriendsStore* store, Clock clock, FriendLimits limits = {})
      : store_(store), clock_(std::move(clock)), limits_(limits) {}

  absl::StatusOr<FriendsStore::SentRequest> SendFriendRequest(const auth::Claims& caller,
                                                              const std::string& account_id,
                                                              const std::string& display_name);
  absl::StatusOr<PlayerRow> AcceptFriendRequest(const auth::Claims& caller,
                                                const std::string& account_id);
  absl::Status DeclineFriendRequest(const auth::Claims& caller, const std::string& account_id);
  absl::Status RemoveFriend(const auth::Claims& caller, const std::string& account_id);
  absl::StatusOr<FriendsStore::FriendLists> ListFriends(const auth::Claims& caller);
  absl::Status BlockPlayer(const auth::Claims& caller, const std::string& account_id);
  absl::Status UnblockPlayer(const auth::Claims& caller, const std::string& account_id);
  absl::StatusOr<std::vector<PlayerRow>> ListBlockedPlayers(const auth::Claims& caller);

  static constexpr size_t kMinCheckBlocks = 2;
  static constexpr size_t kMaxCheckBlocks = 16;
  // Every (blocker, blocked) pair with both in `account_ids`.
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> CheckBlocks(
      const std::vector<std::string>& account_ids);
  absl::StatusOr<FriendsStore::BlockLists> ListBlocks(const std::string& account_id);

 private:
  FriendsStore* store_;
  Clock clock_;
  FriendLimits limits_;
};

}  // namespace parlor::accounts

#endif  // PARLOR_SERVICES_ACCOUNTS_DOMAIN_FRIENDS_SERVICE_H_
