// Friends and blocks end to end (real server, real PostgreSQL, real gRPC channel), and the block
// queries other services make with a service credential.
#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "parlor/accounts/v1/accounts.grpc.pb.h"
#include "services/accounts/accounts_server.h"
#include "services/accounts/testing/accounts_test_server.h"
#include "services/common/testing/test_server.h"
#include "tests/pg/pg_test_database.h"

namespace parlor::accounts {
namespace {

using ::parlor::testing::Bearer;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

struct Player {
  std::string id;
  std::string token;
};

class FriendsPgTest : public parlor::testing::PgTest {
 protected:
  void SetUp() override {
    PgTest::SetUp();
    auto started = StartTestAccounts(db_url(), keys_);
    ASSERT_TRUE(started.ok()) << started.status();
    server_ = *std::move(started);
    accounts_ = v1::AccountsService::NewStub(server_->channel());
    internal_ = v1::AccountsInternalService::NewStub(server_->channel());
  }

  Player SignUp(const std::string& name) {
    v1::AuthenticateDeviceRequest request;
    request.set_device_id("device-" + name);
    request.set_display_name(name);
    v1::AuthenticateDeviceResponse response;
    grpc::Status status = accounts_->AuthenticateDevice(Bearer("").get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return {response.account().account_id(), response.tokens().access_token()};
  }

  grpc::Status Ask(const Player& from, const std::string& account_id,
                   const std::string& display_name = "",
                   v1::SendFriendRequestResponse* response = nullptr) {
    v1::SendFriendRequestRequest request;
    request.set_account_id(account_id);
    request.set_display_name(display_name);
    v1::SendFriendRequestResponse ignored;
    return accounts_->SendFriendRequest(Bearer(from.token).get(), request,
                                        response != nullptr ? response : &ignored);
  }

  template <typename Request, typename Response, typename Method>
  grpc::Status Call(Method method, const Player& caller, const std::string& account_id) {
    Request request;
    request.set_account_id(account_id);
    Response response;
    return (accounts_.get()->*method)(Bearer(caller.token).get(), request, &response);
  }
  grpc::Status Accept(const Player& caller, const std::string& from) {
    return Call<v1::AcceptFriendRequestRequest, v1::AcceptFriendRequestResponse>(
        &v1::AccountsService::Stub::AcceptFriendRequest, caller, from);
  }
  grpc::Status Decline(const Player& caller, const std::string& from) {
    return Call<v1::DeclineFriendRequestRequest, v1::DeclineFriendRequestResponse>(
        &v1::AccountsService::Stub::DeclineFriendRequest, caller, from);
  }
  grpc::Status Remove(const Player& caller, const std::string& other) {
    return Call<v1::RemoveFriendRequest, v1::RemoveFriendResponse>(
        &v1::AccountsService::Stub::RemoveFriend, caller, other);
  }
  grpc::Status Block(const Player& caller, const std::string& other) {
    return Call<v1::BlockPlayerRequest, v1::BlockPlayerResponse>(
        &v1::AccountsService::Stub::BlockPlayer, caller, other);
  }
  grpc::Status Unblock(const Player& caller, const std::string& other) {
    return Call<v1::UnblockPlayerRequest, v1::UnblockPlayerResponse>(
        &v1::AccountsService::Stub::UnblockPlayer, caller, other);
  }

  // "friends: A, B | in: C | out: D" by display name.
  std::string Lists(const Player& caller) {
    v1::ListFriendsResponse response;
    grpc::Status status = accounts_->ListFriends(Bearer(caller.token).get(), {}, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    const auto names = [](const auto& players) {
      std::string out;
      for (const v1::PlayerSummary& p : players)
        out += (out.empty() ? "" : ", ") + p.display_name();
      return out;
    };
    return "friends: " + names(response.friends()) +
           " | in: " + names(response.incoming_requests()) +
           " | out: " + names(response.outgoing_requests());
  }

  std::vector<std::pair<std::string, std::string>> CheckBlocks(std::vector<std::string> ids) {
    v1::CheckBlocksRequest request;
    for (const std::string& id : ids) request.add_account_ids(id);
    v1::CheckBlocksResponse response;
    grpc::Status status =
        internal_->CheckBlocks(Bearer(keys_.ServiceToken()).get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    std::vector<std::pair<std::string, std::string>> pairs;
    for (const v1::Block& block : response.blocks()) {
      pairs.emplace_back(block.blocker_account_id(), block.blocked_account_id());
    }
    return pairs;
  }

  parlor::testing::TestKeys keys_;
  std::unique_ptr<parlor::testing::TestServer> server_;
  std::unique_ptr<v1::AccountsService::Stub> accounts_;
  std::unique_ptr<v1::AccountsInternalService::Stub> internal_;
};

TEST_F(FriendsPgTest, RequestAcceptDeclineRemove) {
  const Player ada = SignUp("Ada");
  const Player bob = SignUp("Bob");
  const Player cy = SignUp("Cyd");

  // Ada asks Bob by name (ignoring case) and Cy by id.
  v1::SendFriendRequestResponse sent;
  ASSERT_TRUE(Ask(ada, "", "bOB", &sent).ok());
  EXPECT_EQ(sent.player().account_id(), bob.id);
  EXPECT_FALSE(sent.now_friends());
  ASSERT_TRUE(Ask(ada, cy.id).ok());
  EXPECT_EQ(Lists(ada), "friends:  | in:  | out: Bob, Cyd");
  EXPECT_EQ(Lists(bob), "friends:  | in: Ada | out: ");
  EXPECT_EQ(Ask(ada, bob.id).error_code(), grpc::StatusCode::ALREADY_EXISTS);

  // Bob accepts; Cy declines (Ada is not told, her request is simply gone).
  ASSERT_TRUE(Accept(bob, ada.id).ok());
  ASSERT_TRUE(Decline(cy, ada.id).ok());
  EXPECT_EQ(Lists(ada), "friends: Bob | in:  | out: ");
  EXPECT_EQ(Lists(bob), "friends: Ada | in:  | out: ");
  EXPECT_EQ(Lists(cy), "friends:  | in:  | out: ");
  grpc::Status status = Ask(bob, ada.id);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::ALREADY_EXISTS);
  EXPECT_THAT(status.error_message(), HasSubstr("friends already"));
  EXPECT_EQ(Accept(cy, ada.id).error_code(), grpc::StatusCode::NOT_FOUND);

  // Two players asking each other are friends at once.
  ASSERT_TRUE(Ask(cy, bob.id).ok());
  v1::SendFriendRequestResponse crossed;
  ASSERT_TRUE(Ask(bob, cy.id, "", &crossed).ok());
  EXPECT_TRUE(crossed.now_friends());
  EXPECT_EQ(Lists(bob), "friends: Ada, Cyd | in:  | out: ");

  // Removing ends it for both; withdrawing a request removes it too.
  ASSERT_TRUE(Remove(ada, bob.id).ok());
  EXPECT_EQ(Lists(bob), "friends: Cyd | in:  | out: ");
  EXPECT_EQ(Remove(ada, bob.id).error_code(), grpc::StatusCode::NOT_FOUND);
  ASSERT_TRUE(Ask(ada, bob.id).ok());
  ASSERT_TRUE(Remove(ada, bob.id).ok());
  EXPECT_EQ(Lists(bob), "friends: Cyd | in:  | out: ");
  status = Ask(ada, "", "Nobody Here");
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(status.error_message(), HasSubstr("no player is named \"Nobody Here\""));
  status = Ask(ada, "", "ada");
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("that is you"));
}

TEST_F(FriendsPgTest, ABlockEndsTheFriendshipStopsRequestsAndIsVisibleToServicesOnly) {
  const Player ada = SignUp("Ada");
  const Player bob = SignUp("Bob");
  const Player cy = SignUp("Cyd");
  ASSERT_TRUE(Ask(ada, bob.id).ok());
  ASSERT_TRUE(Accept(bob, ada.id).ok());
  ASSERT_TRUE(Ask(cy, ada.id).ok());

  // Ada blocks Bob (a friend) and Cy (who asked her): friendship and request are gone.
  ASSERT_TRUE(Block(ada, bob.id).ok());
  ASSERT_TRUE(Block(ada, cy.id).ok());
  EXPECT_EQ(Lists(ada), "friends:  | in:  | out: ");
  EXPECT_EQ(Lists(bob), "friends:  | in:  | out: ");
  EXPECT_EQ(Lists(cy), "friends:  | in:  | out: ");
  EXPECT_EQ(Block(ada, bob.id).error_code(), grpc::StatusCode::ALREADY_EXISTS);

  // Neither side can ask the other now.
  grpc::Status status = Ask(bob, ada.id);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(), HasSubstr("does not accept friend requests from you"));
  status = Ask(ada, bob.id);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(), HasSubstr("you blocked this player"));

  // Only Ada sees whom she blocked (most recent first).
  v1::ListBlockedPlayersResponse blocked;
  ASSERT_TRUE(accounts_->ListBlockedPlayers(Bearer(ada.token).get(), {}, &blocked).ok());
  ASSERT_EQ(blocked.players_size(), 2);
  EXPECT_EQ(blocked.players(0).display_name(), "Cyd");
  EXPECT_EQ(blocked.players(1).display_name(), "Bob");
  ASSERT_TRUE(accounts_->ListBlockedPlayers(Bearer(bob.token).get(), {}, &blocked).ok());
  EXPECT_EQ(blocked.players_size(), 0);

  // Services ask: among a table of Ada, Bob and Cy, who blocks whom; and Bob's blocks both ways.
  EXPECT_THAT(CheckBlocks({bob.id, ada.id}), ElementsAre(std::pair(ada.id, bob.id)));
  EXPECT_THAT(CheckBlocks({bob.id, cy.id}), IsEmpty());
  EXPECT_EQ(CheckBlocks({ada.id, bob.id, cy.id}).size(), 2u);
  v1::ListBlocksRequest list;
  list.set_account_id(bob.id);
  v1::ListBlocksResponse lists;
  ASSERT_TRUE(internal_->ListBlocks(Bearer(keys_.ServiceToken()).get(), list, &lists).ok());
  EXPECT_THAT(lists.blocked_account_ids(), IsEmpty());
  EXPECT_THAT(lists.blocked_by_account_ids(), ElementsAre(ada.id));
  // A player's token never reads them.
  EXPECT_EQ(internal_->ListBlocks(Bearer(bob.token).get(), list, &lists).error_code(),
            grpc::StatusCode::PERMISSION_DENIED);

  // Unblocking lets requests flow again.
  ASSERT_TRUE(Unblock(ada, bob.id).ok());
  EXPECT_EQ(Unblock(ada, bob.id).error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(CheckBlocks({bob.id, ada.id}), IsEmpty());
  EXPECT_TRUE(Ask(bob, ada.id).ok());
}

}  // namespace
}  // namespace parlor::accounts
