// gRPC transport for friends and blocks (AccountsService) and the block queries of
// AccountsInternalService.
#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include "services/accounts/api/accounts_api.h"
#include "services/accounts/api/api_convert.h"

namespace parlor::accounts {

grpc::ServerUnaryReactor* AccountsApi::SendFriendRequest(
    grpc::CallbackServerContext* context, const v1::SendFriendRequestRequest* request,
    v1::SendFriendRequestResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext& call, const v1::SendFriendRequestRequest& request,
                          v1::SendFriendRequestResponse* response) -> absl::Status {
                     absl::StatusOr<FriendsStore::SentRequest> sent = friends_->SendFriendRequest(
                         *call.caller, request.account_id(), request.display_name());
                     if (!sent.ok()) return sent.status();
                     ToProto(sent->player, response->mutable_player());
                     response->set_now_friends(sent->now_friends);
                     return absl::OkStatus();
                   });
}

grpc::ServerUnaryReactor* AccountsApi::AcceptFriendRequest(
    grpc::CallbackServerContext* context, const v1::AcceptFriendRequestRequest* request,
    v1::AcceptFriendRequestResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext& call, const v1::AcceptFriendRequestRequest& request,
                          v1::AcceptFriendRequestResponse* response) -> absl::Status {
                     absl::StatusOr<PlayerRow> friend_row =
                         friends_->AcceptFriendRequest(*call.caller, request.account_id());
                     if (!friend_row.ok()) return friend_row.status();
                     ToProto(*friend_row, response->mutable_friend_());
                     return absl::OkStatus();
                   });
}

grpc::ServerUnaryReactor* AccountsApi::DeclineFriendRequest(
    grpc::CallbackServerContext* context, const v1::DeclineFriendRequestRequest* request,
    v1::DeclineFriendRequestResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext& call, const v1::DeclineFriendRequestRequest& request,
                          v1::DeclineFriendRequestResponse*) {
                     return friends_->DeclineFriendRequest(*call.caller, request.account_id());
                   });
}

grpc::ServerUnaryReactor* AccountsApi::RemoveFriend(grpc::CallbackServerContext* context,
                                                    const v1::RemoveFriendRequest* request,
                                                    v1::RemoveFriendResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext& call, const v1::RemoveFriendRequest& request,
                          v1::RemoveFriendResponse*) {
                     return friends_->RemoveFriend(*call.caller, request.account_id());
                   });
}

void AccountsApi::AddGamesWithFriends(const std::string& authorization,
                                      v1::ListFriendsResponse* response) const {
  absl::StatusOr<std::vector<sessions::v1::Game>> games =
      exports_ == nullptr
          ? absl::FailedPreconditionError("this deployment does not reach the sessions service")
          : exports_->ActiveGames(authorization);
  if (!games.ok()) {
    response->set_games_unavailable(true);
    return;
  }
  std::set<std::string> friends;
  for (const v1::PlayerSummary& f : response->friends()) friends.insert(f.account_id());
  std::vector<v1::GameWithFriend> found;
  for (const sessions::v1::Game& game : *games) {
    for (const sessions::v1::Seat& seat : game.seats()) {
      if (!friends.contains(seat.account_id())) continue;
      v1::GameWithFriend g;
      g.set_friend_account_id(seat.account_id());
      g.set_game_id(game.game_id());
      g.set_game(game.game());
      g.set_my_turn(game.my_turn());
      g.set_friend_turn(std::find(game.acting_seats().begin(), game.acting_seats().end(),
                                  seat.seat()) != game.acting_seats().end());
      *g.mutable_deadline() = game.deadline();
      found.push_back(std::move(g));
    }
  }
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    if (a.my_turn() != b.my_turn()) return a.my_turn();
    return std::make_pair(a.deadline().seconds(), a.deadline().nanos()) <
           std::make_pair(b.deadline().seconds(), b.deadline().nanos());
  });
  for (v1::GameWithFriend& g : found) *response->add_games_with_friends() = std::move(g);
}

grpc::ServerUnaryReactor* AccountsApi::ListFriends(grpc::CallbackServerContext* context,
                                                   const v1::ListFriendsRequest* request,
                                                   v1::ListFriendsResponse* response) {
  const std::string authorization = Authorization(*context);
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this, authorization](const CallContext& call, const v1::ListFriendsRequest&,
                                         v1::ListFriendsResponse* response) -> absl::Status {
                     absl::StatusOr<FriendsStore::FriendLists> lists =
                         friends_->ListFriends(*call.caller);
                     if (!lists.ok()) return lists.status();
                     for (const PlayerRow& row : lists->friends) {
                       ToProto(row, response->add_friends());
                     }
                     for (const PlayerRow& row : lists->incoming) {
                       ToProto(row, response->add_incoming_requests());
                     }
                     for (const PlayerRow& row : lists->outgoing) {
                       ToProto(row, response->add_outgoing_requests());
                     }
                     if (!lists->friends.empty()) AddGamesWithFriends(authorization, response);
                     return absl::OkStatus();
                   });
}

grpc::ServerUnaryReactor* AccountsApi::BlockPlayer(grpc::CallbackServerContext* context,
                                                   const v1::BlockPlayerRequest* request,
                                                   v1::BlockPlayerResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext& call, const v1::BlockPlayerRequest& request,
                          v1::BlockPlayerResponse*) {
                     return friends_->BlockPlayer(*call.caller, request.account_id());
                   });
}

grpc::ServerUnaryReactor* AccountsApi::UnblockPlayer(grpc::CallbackServerContext* context,
                                                     const v1::UnblockPlayerRequest* request,
                                                     v1::UnblockPlayerResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext& call, const v1::UnblockPlayerRequest& request,
                          v1::UnblockPlayerResponse*) {
                     return friends_->UnblockPlayer(*call.caller, request.account_id());
                   });
}

grpc::ServerUnaryReactor* AccountsApi::ListBlockedPlayers(
    grpc::CallbackServerContext* context, const v1::ListBlockedPlayersRequest* request,
    v1::ListBlockedPlayersResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext& call, const v1::ListBlockedPlayersRequest&,
                          v1::ListBlockedPlayersResponse* response) -> absl::Status {
                     absl::StatusOr<std::vector<PlayerRow>> players =
                         friends_->ListBlockedPlayers(*call.caller);
                     if (!players.ok()) return players.status();
                     for (const PlayerRow& row : *players) {
                       ToProto(row, response->add_players());
                     }
                     return absl::OkStatus();
                   });
}

grpc::ServerUnaryReactor* AccountsInternalApi::CheckBlocks(grpc::CallbackServerContext* context,
                                                           const v1::CheckBlocksRequest* request,
                                                           v1::CheckBlocksResponse* response) {
  return rpc_->Run(context, Access::kService, request, response,
                   [this](const CallContext&, const v1::CheckBlocksRequest& request,
                          v1::CheckBlocksResponse* response) -> absl::Status {
                     std::vector<std::string> ids(request.account_ids().begin(),
                                                  request.account_ids().end());
                     absl::StatusOr<std::vector<std::pair<std::string, std::string>>> blocks =
                         friends_->CheckBlocks(ids);
                     if (!blocks.ok()) return blocks.status();
                     for (const auto& [blocker, blocked] : *blocks) {
                       v1::Block* out = response->add_blocks();
                       out->set_blocker_account_id(blocker);
                       out->set_blocked_account_id(blocked);
                     }
                     return absl::OkStatus();
                   });
}

grpc::ServerUnaryReactor* AccountsInternalApi::ListBlocks(grpc::CallbackServerContext* context,
                                                          const v1::ListBlocksRequest* request,
                                                          v1::ListBlocksResponse* response) {
  return rpc_->Run(context, Access::kService, request, response,
                   [this](const CallContext&, const v1::ListBlocksRequest& request,
                          v1::ListBlocksResponse* response) -> absl::Status {
                     absl::StatusOr<FriendsStore::BlockLists> lists =
                         friends_->ListBlocks(request.account_id());
                     if (!lists.ok()) return lists.status();
                     for (const std::string& id : lists->blocked) {
                       response->add_blocked_account_ids(id);
                     }
                     for (const std::string& id : lists->blocked_by) {
                       response->add_blocked_by_account_ids(id);
                     }
                     return absl::OkStatus();
                   });
}

}  // namespace parlor::accounts
