#include "services/accounts/store/pg_friends_store.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "services/accounts/store/pg_helpers.h"
#include "services/accounts/store/sql.h"

namespace parlor::accounts {
namespace {

int64_t Micros(absl::Time time) { return absl::ToUnixMicros(time); }

PlayerRow ToPlayer(const pqxx::row& row) {
  return {.account_id = row[0].as<std::string>(),
          .display_name = row[1].as<std::string>(),
          .since = row.size() > 2 ? absl::FromUnixMicros(row[2].as<int64_t>()) : absl::Time()};
}

struct Relation {
  bool friends = false;
  bool requested = false;     // caller → other
  bool requested_by = false;  // other → caller
  bool blocked = false;       // caller blocked other
  bool blocked_by = false;    // other blocked caller
};

// Locks both accounts (in id order, so two transactions on one pair cannot deadlock) and reads
// how they relate.
Relation LockPair(pqxx::work& txn, const std::string& caller, const std::string& other) {
  txn.exec_params(sql::kLockAccount, std::min(caller, other));
  txn.exec_params(sql::kLockAccount, std::max(caller, other));
  pqxx::row row = txn.exec_params1(sql::kRelation, caller, other);
  return {.friends = row[0].as<bool>(),
          .requested = row[1].as<bool>(),
          .requested_by = row[2].as<bool>(),
          .blocked = row[3].as<bool>(),
          .blocked_by = row[4].as<bool>()};
}

absl::StatusOr<PlayerRow> FindPlayer(pqxx::work& txn, const std::string& account_id) {
  pqxx::result found = txn.exec_params(sql::kFindAccountById, account_id);
  if (found.empty()) return absl::NotFoundError(absl::StrCat("no player has id ", account_id));
  return ToPlayer(found[0]);
}

int64_t Count(pqxx::work& txn, const char* query, const std::string& account_id) {
  return txn.exec_params1(query, account_id)[0].as<int64_t>();
}

absl::Status TooManyFriends(int max) {
  return absl::ResourceExhaustedError(
      absl::StrCat("a player has at most ", max, " friends; remove one first"));
}

}  // namespace

absl::StatusOr<FriendsStore::SentRequest> PgFriendsStore::SendFriendRequest(
    const std::string& caller, const std::string& session_id, const std::string& account_id,
    const std::string& display_name, const FriendLimits& limits, absl::Time now) {
  SentRequest result;
  absl::Status status = db_->Transact("send_friend_request", [&](pqxx::work& txn) {
    result = SentRequest();
    if (absl::Status live = CheckSession(txn, caller, session_id); !live.ok()) return live;
    if (account_id.empty()) {
      pqxx::result found = txn.exec_params(sql::kFindAccountByName, display_name);
      if (found.empty()) {
        return absl::NotFoundError(absl::StrCat("no player is named \"", display_name, "\""));
      }
      result.player = ToPlayer(found[0]);
    } else {
      absl::StatusOr<PlayerRow> found = FindPlayer(txn, account_id);
      if (!found.ok()) return found.status();
      result.player = *std::move(found);
    }
    const std::string& other = result.player.account_id;
    if (other == caller) {
      return absl::InvalidArgumentError("that is you: a friend request needs another player");
    }
    const Relation relation = LockPair(txn, caller, other);
    if (relation.blocked) {
      return absl::FailedPreconditionError("you blocked this player; unblock them first");
    }
    if (relation.blocked_by) {
      return absl::FailedPreconditionError("this player does not accept friend requests from you");
    }
    if (relation.friends) return absl::AlreadyExistsError("you are friends already");
    if (relation.requested) {
      return absl::AlreadyExistsError("your friend request to this player is pending already");
    }
    if (Count(txn, sql::kCountFriends, caller) >= limits.max_friends) {
      return TooManyFriends(limits.max_friends);
    }
    if (relation.requested_by) {
      // They asked first: this is an acceptance.
      if (Count(txn, sql::kCountFriends, other) >= limits.max_friends) {
        return absl::FailedPreconditionError("this player has the most friends a player can have");
      }
      txn.exec_params(sql::kDeleteFriendRequests, caller, other);
      txn.exec_params0(sql::kInsertFriendship, caller, other, Micros(now));
      result.now_friends = true;
      return absl::OkStatus();
    }
    if (Count(txn, sql::kCountOutgoingRequests, caller) >= limits.max_outgoing_requests) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "at most ", limits.max_outgoing_requests,
          " friend requests can wait for an answer; withdraw some (RemoveFriend) first"));
    }
    txn.exec_params0(sql::kInsertFriendRequest, caller, other, Micros(now));
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return result;
}

absl::StatusOr<PlayerRow> PgFriendsStore::AcceptFriendRequest(const std::string& caller,
                                                              const std::string& session_id,
                                                              const std::string& from,
                                                              const FriendLimits& limits,
                                                              absl::Time now) {
  PlayerRow result;
  absl::Status status = db_->Transact("accept_friend_request", [&](pqxx::work& txn) {
    if (absl::Status live = CheckSession(txn, caller, session_id); !live.ok()) return live;
    const Relation relation = LockPair(txn, caller, from);
    if (!relation.requested_by) {
      return absl::NotFoundError("this player has no pending friend request to you");
    }
    if (Count(txn, sql::kCountFriends, caller) >= limits.max_friends) {
      return TooManyFriends(limits.max_friends);
    }
    if (Count(txn, sql::kCountFriends, from) >= limits.max_friends) {
      return absl::FailedPreconditionError("this player has the most friends a player can have");
    }
    txn.exec_params(sql::kDeleteFriendRequests, caller, from);
    txn.exec_params0(sql::kInsertFriendship, caller, from, Micros(now));
    absl::StatusOr<PlayerRow> found = FindPlayer(txn, from);
    if (!found.ok()) return found.status();
    result = *std::move(found);
    result.since = absl::FromUnixMicros(Micros(now));
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return result;
}

absl::Status PgFriendsStore::DeclineFriendRequest(const std::string& caller,
                                                  const std::string& session_id,
                                                  const std::string& from) {
  return db_->Transact("decline_friend_request", [&](pqxx::work& txn) {
    if (absl::Status live = CheckSession(txn, caller, session_id); !live.ok()) return live;
    if (txn.exec_params(sql::kDeleteFriendRequest, from, caller).empty()) {
      return absl::NotFoundError("this player has no pending friend request to you");
    }
    return absl::OkStatus();
  });
}

absl::Status PgFriendsStore::RemoveFriend(const std::string& caller, const std::string& session_id,
                                          const std::string& other) {
  return db_->Transact("remove_friend", [&](pqxx::work& txn) {
    if (absl::Status live = CheckSession(txn, caller, session_id); !live.ok()) return live;
    const bool was_friend = !txn.exec_params(sql::kDeleteFriendship, caller, other).empty();
    const bool had_request = !txn.exec_params(sql::kDeleteFriendRequest, caller, other).empty();
    if (!was_friend && !had_request) {
      return absl::NotFoundError(
          "this player is not your friend and you have no pending request to them");
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<FriendsStore::FriendLists> PgFriendsStore::ListFriends(
    const std::string& caller, const std::string& session_id) {
  FriendLists lists;
  absl::Status status = db_->Transact("list_friends", [&](pqxx::work& txn) {
    lists = FriendLists();
    if (absl::Status live = CheckSession(txn, caller, session_id); !live.ok()) return live;
    for (const pqxx::row& row : txn.exec_params(sql::kListFriends, caller)) {
      lists.friends.push_back(ToPlayer(row));
    }
    for (const pqxx::row& row : txn.exec_params(sql::kListIncomingRequests, caller)) {
      lists.incoming.push_back(ToPlayer(row));
    }
    for (const pqxx::row& row : txn.exec_params(sql::kListOutgoingRequests, caller)) {
      lists.outgoing.push_back(ToPlayer(row));
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return lists;
}

absl::Status PgFriendsStore::BlockPlayer(const std::string& caller, const std::string& session_id,
                                         const std::string& other, const FriendLimits& limits,
                                         absl::Time now) {
  return db_->Transact("block_player", [&](pqxx::work& txn) {
    if (absl::Status live = CheckSession(txn, caller, session_id); !live.ok()) return live;
    if (absl::StatusOr<PlayerRow> found = FindPlayer(txn, other); !found.ok()) {
      return found.status();
    }
    const Relation relation = LockPair(txn, caller, other);
    if (relation.blocked) return absl::AlreadyExistsError("you blocked this player already");
    if (Count(txn, sql::kCountBlocks, caller) >= limits.max_blocks) {
      return absl::ResourceExhaustedError(
          absl::StrCat("at most ", limits.max_blocks, " players can be blocked; unblock some"));
    }
    txn.exec_params(sql::kDeleteFriendship, caller, other);
    txn.exec_params(sql::kDeleteFriendRequests, caller, other);
    txn.exec_params(sql::kInsertBlock, caller, other, Micros(now));
    return absl::OkStatus();
  });
}

absl::Status PgFriendsStore::UnblockPlayer(const std::string& caller, const std::string& session_id,
                                           const std::string& other) {
  return db_->Transact("unblock_player", [&](pqxx::work& txn) {
    if (absl::Status live = CheckSession(txn, caller, session_id); !live.ok()) return live;
    if (txn.exec_params(sql::kDeleteBlock, caller, other).empty()) {
      return absl::NotFoundError("you have not blocked this player");
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<std::vector<PlayerRow>> PgFriendsStore::ListBlockedPlayers(
    const std::string& caller, const std::string& session_id) {
  std::vector<PlayerRow> players;
  absl::Status status = db_->Transact("list_blocked_players", [&](pqxx::work& txn) {
    players.clear();
    if (absl::Status live = CheckSession(txn, caller, session_id); !live.ok()) return live;
    for (const pqxx::row& row : txn.exec_params(sql::kListBlockedPlayers, caller)) {
      players.push_back(ToPlayer(row));
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return players;
}

absl::StatusOr<std::vector<std::pair<std::string, std::string>>> PgFriendsStore::BlocksAmong(
    const std::vector<std::string>& account_ids) {
  std::vector<std::pair<std::string, std::string>> pairs;
  absl::Status status = db_->Read("blocks_among", [&](pqxx::nontransaction& txn) {
    pairs.clear();
    // The ids were validated as UUIDs by the caller, so the array literal needs no quoting.
    const std::string array = absl::StrCat("{", absl::StrJoin(account_ids, ","), "}");
    for (const pqxx::row& row : txn.exec_params(sql::kBlocksAmong, array)) {
      pairs.emplace_back(row[0].as<std::string>(), row[1].as<std::string>());
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return pairs;
}

absl::StatusOr<FriendsStore::BlockLists> PgFriendsStore::ListBlocks(const std::string& account_id) {
  BlockLists lists;
  absl::Status status = db_->Read("list_blocks", [&](pqxx::nontransaction& txn) {
    lists = BlockLists();
    for (const pqxx::row& row : txn.exec_params(sql::kBlockedBy, account_id)) {
      lists.blocked.push_back(row[0].as<std::string>());
    }
    for (const pqxx::row& row : txn.exec_params(sql::kBlockersOf, account_id)) {
      lists.blocked_by.push_back(row[0].as<std::string>());
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return lists;
}

}  // namespace parlor::accounts
