#ifndef PARLOR_SERVICES_ACCOUNTS_STORE_FRIENDS_STORE_H_
#define PARLOR_SERVICES_ACCOUNTS_STORE_FRIENDS_STORE_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace parlor::accounts {

// Another player as the caller sees them in friend and block lists.
struct PlayerRow {
  std::string account_id;
  std::string display_name;
  absl::Time since;
};

struct FriendLimits {
  int max_friends = 1000;
  int max_outgoing_requests = 100;
  int max_blocks = 1000;
};

// Persistence of friend requests, friendships and blocks. Every player-facing method checks that
// `session_id` is a live session of `caller` (UNAUTHENTICATED otherwise) and changes a pair in one
// transaction with both accounts locked in id order. Errors as the proto documents (NOT_FOUND,
// ALREADY_EXISTS, FAILED_PRECONDITION, RESOURCE_EXHAUSTED), plus UNAVAILABLE and INTERNAL.
class FriendsStore {
 public:
  virtual ~FriendsStore() = default;

  struct SentRequest {
    PlayerRow player;
    bool now_friends = false;
  };
  // The target is `account_id` when not empty, else the account named `display_name`.
  virtual absl::StatusOr<SentRequest> SendFriendRequest(
      const std::string& caller, const std::string& session_id, const std::string& account_id,
      const std::string& display_name, const FriendLimits& limits, absl::Time now) = 0;
  virtual absl::StatusOr<PlayerRow> AcceptFriendRequest(const std::string& caller,
                                                        const std::string& session_id,
                                                        const std::string& from,
                                                        const FriendLimits& limits,
                                                        absl::Time now) = 0;
  virtual absl::Status DeclineFriendRequest(const std::string& caller,
                                            const std::string& session_id,
                                            const std::string& from) = 0;
  virtual absl::Status RemoveFriend(const std::string& caller, const std::string& session_id,
                                    const std::string& other) = 0;
  struct FriendLists {
    std::vector<PlayerRow> friends;
    std::vector<PlayerRow> incoming;
    std::vector<PlayerRow> outgoing;
  };
  virtual absl::StatusOr<FriendLists> ListFriends(const std::string& caller,
                                                  const std::string& session_id) = 0;
  virtual absl::Status BlockPlayer(const std::string& caller, const std::string& session_id,
                                   const std::string& other, const FriendLimits& limits,
                                   absl::Time now) = 0;
  virtual absl::Status UnblockPlayer(const std::string& caller, const std::string& session_id,
                                     const std::string& other) = 0;
  virtual absl::StatusOr<std::vector<PlayerRow>> ListBlockedPlayers(
      const std::string& caller, const std::string& session_id) = 0;

  // For other services (no session).
  virtual absl::StatusOr<std::vector<std::pair<std::string, std::string>>> BlocksAmong(
      const std::vector<std::string>& account_ids) = 0;
  struct BlockLists {
    std::vector<std::string> blocked;
    std::vector<std::string> blocked_by;
  };
  virtual absl::StatusOr<BlockLists> ListBlocks(const std::string& account_id) = 0;
};

}  // namespace parlor::accounts

#endif  // PARLOR_SERVICES_ACCOUNTS_STORE_FRIENDS_STORE_H_
