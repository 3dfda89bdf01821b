#ifndef PARLOR_SERVICES_ACCOUNTS_STORE_PG_FRIENDS_STORE_H_
#define PARLOR_SERVICES_ACCOUNTS_STORE_PG_FRIENDS_STORE_H_

#include "services/accounts/store/friends_store.h"
#include "services/common/db/pool.h"

namespace parlor::accounts {

// FriendsStore on PostgreSQL (friend_requests, friendships, blocks). Blocking.
class PgFriendsStore : public FriendsStore {
 public:
  explicit PgFriendsStore(DbPool* db) : db_(db) {}

  absl::StatusOr<SentRequest> SendFriendRequest(
      const std::string& caller, const std::string& session_id, const std::string& account_id,
      const std::string& display_name, const FriendLimits& limits, absl::Time now) override;
  absl::StatusOr<PlayerRow> AcceptFriendRequest(const std::string& caller,
                                                const std::string& session_id,
                                                const std::string& from, const FriendLimits& limits,
                                                absl::Time now) override;
  absl::Status DeclineFriendRequest(const std::string& caller, const std::string& session_id,
                                    const std::string& from) override;
  absl::Status RemoveFriend(const std::string& caller, const std::string& session_id,
                            const std::string& other) override;
  absl::StatusOr<FriendLists> ListFriends(const std::string& caller,
                                          const std::string& session_id) override;
  absl::Status BlockPlayer(const std::string& caller, const std::string& session_id,
                           const std::string& other, const FriendLimits& limits,
                           absl::Time now) override;
  absl::Status UnblockPlayer(const std::string& caller, const std::string& session_id,
                             const std::string& other) override;
  absl::StatusOr<std::vector<PlayerRow>> ListBlockedPlayers(const std::string& caller,
                                                            const std::string& session_id) override;
  absl::StatusOr<std::vector<std::pair<std::string, std::string>>> BlocksAmong(
      const std::vector<std::string>& account_ids) override;
  absl::StatusOr<BlockLists> ListBlocks(const std::string& account_id) override;

 private:
  DbPool* db_;
};

}  // namespace parlor::accounts

#endif  // PARLOR_SERVICES_ACCOUNTS_STORE_PG_FRIENDS_STORE_H_
