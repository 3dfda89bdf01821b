#include "services/accounts/domain/friends_service.h"

#include "absl/strings/str_cat.h"
#include "services/accounts/domain/validation.h"

namespace parlor::accounts {
namespace {

// The other player of a pair: a well-formed id that is not the caller's.
absl::Status ValidateOther(const auth::Claims& caller, const std::string& account_id) {
  if (account_id.empty()) return absl::InvalidArgumentError("account_id is required");
  if (!IsAccountId(account_id)) {
    return absl::InvalidArgumentError(
        "account_id is not an account id (a lower-case UUID, e.g. from ListFriends)");
  }
  if (account_id == caller.subject) {
    return absl::InvalidArgumentError("account_id is your own; name another player");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<FriendsStore::SentRequest> FriendsService::SendFriendRequest(
    const auth::Claims& caller, const std::string& account_id, const std::string& display_name) {
  if (account_id.empty() == display_name.empty()) {
    return absl::InvalidArgumentError(
        "set exactly one of account_id and display_name to name the player to ask");
  }
  if (!account_id.empty()) {
    if (absl::Status valid = ValidateOther(caller, account_id); !valid.ok()) return valid;
  } else if (absl::Status valid = ValidateDisplayName(display_name); !valid.ok()) {
    return valid;
  }
  return store_->SendFriendRequest(caller.subject, caller.session_id, account_id, display_name,
                                   limits_, clock_());
}

absl::StatusOr<PlayerRow> FriendsService::AcceptFriendRequest(const auth::Claims& caller,
                                                              const std::string& account_id) {
  if (absl::Status valid = ValidateOther(caller, account_id); !valid.ok()) return valid;
  return store_->AcceptFriendRequest(caller.subject, caller.session_id, account_id, limits_,
                                     clock_());
}

absl::Status FriendsService::DeclineFriendRequest(const auth::Claims& caller,
                                                  const std::string& account_id) {
  if (absl::Status valid = ValidateOther(caller, account_id); !valid.ok()) return valid;
  return store_->DeclineFriendRequest(caller.subject, caller.session_id, account_id);
}

absl::Status FriendsService::RemoveFriend(const auth::Claims& caller,
                                          const std::string& account_id) {
  if (absl::Status valid = ValidateOther(caller, account_id); !valid.ok()) return valid;
  return store_->RemoveFriend(caller.subject, caller.session_id, account_id);
}

absl::StatusOr<FriendsStore::FriendLists> FriendsService::ListFriends(const auth::Claims& caller) {
  return store_->ListFriends(caller.subject, caller.session_id);
}

absl::Status FriendsService::BlockPlayer(const auth::Claims& caller,
                                         const std::string& account_id) {
  if (absl::Status valid = ValidateOther(caller, account_id); !valid.ok()) return valid;
  return store_->BlockPlayer(caller.subject, caller.session_id, account_id, limits_, clock_());
}

absl::Status FriendsService::UnblockPlayer(const auth::Claims& caller,
                                           const std::string& account_id) {
  if (absl::Status valid = ValidateOther(caller, account_id); !valid.ok()) return valid;
  return store_->UnblockPlayer(caller.subject, caller.session_id, account_id);
}

absl::StatusOr<std::vector<PlayerRow>> FriendsService::ListBlockedPlayers(
    const auth::Claims& caller) {
  return store_->ListBlockedPlayers(caller.subject, caller.session_id);
}

absl::StatusOr<std::vector<std::pair<std::string, std::string>>> FriendsService::CheckBlocks(
    const std::vector<std::string>& account_ids) {
  if (account_ids.size() < kMinCheckBlocks || account_ids.size() > kMaxCheckBlocks) {
    return absl::InvalidArgumentError(absl::StrCat("account_ids must hold ", kMinCheckBlocks, "-",
                                                   kMaxCheckBlocks, " ids; it has ",
                                                   account_ids.size()));
  }
  for (const std::string& id : account_ids) {
    if (!IsAccountId(id)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "account_ids: \"", id.substr(0, 40), "\" is not an account id (a lower-case UUID)"));
    }
  }
  return store_->BlocksAmong(account_ids);
}

absl::StatusOr<FriendsStore::BlockLists> FriendsService::ListBlocks(const std::string& account_id) {
  if (!IsAccountId(account_id)) {
    return absl::InvalidArgumentError("account_id is not an account id (a lower-case UUID)");
  }
  return store_->ListBlocks(account_id);
}

}  // namespace parlor::accounts
