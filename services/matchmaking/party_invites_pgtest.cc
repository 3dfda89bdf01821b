// Party invitations (migration 0007) on a real PostgreSQL, one rule per test: blocks, the 24-hour
// expiry and a disbanded party. A real in-process accounts server (sign-ins, blocks, invitee
// lookups) and a real in-process matchmaking server; calls go through the gRPC API, except
// after the injected clock moved a day on, where they go to the server's own domain service
// (the servers check tokens against the real time, the accounts server mints them at the
// injected one).
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "parlor/accounts/v1/accounts.grpc.pb.h"
#include "parlor/matchmaking/v1/matchmaking.grpc.pb.h"
#include "pqxx/pqxx"
#include "services/accounts/testing/accounts_test_server.h"
#include "services/common/testing/status_matchers.h"
#include "services/common/testing/test_server.h"
#include "services/matchmaking/matchmaking_server.h"
#include "tests/pg/pg_test_database.h"

namespace parlor::matchmaking {
namespace {

using ::parlor::testing::IsOk;
using ::parlor::testing::StatusIs;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::SizeIs;

using TestClock = ::parlor::testing::ManualClock;

std::unique_ptr<grpc::ClientContext> WithToken(const std::string& token) {
  return ::parlor::testing::Bearer(token, absl::Seconds(10));
}

// A signed-in player: account id and access token.
struct Player {
  std::string id;
  std::string token;
};

class PartyInvitesPgTest : public parlor::testing::PgTest {
 protected:
  void SetUp() override {
    PgTest::SetUp();
    auto accounts =
        accounts::StartTestAccounts(db_url(), keys_, {}, [clock = clock_] { return clock->Now(); });
    ASSERT_TRUE(accounts.ok()) << accounts.status();
    accounts_ = *std::move(accounts);
    accounts_stub_ = accounts::v1::AccountsService::NewStub(accounts_->channel());

    ServerConfig server = parlor::testing::TestServerConfig(db_url(), keys_);
    config_.service_token_private_key = keys_.service().private_key;
    config_.accounts_address = accounts_->address();
    config_.sessions_address = "127.0.0.1:1";  // no games are created here
    config_.matcher_interval = absl::ZeroDuration();
    ASSERT_THAT(FinalizeMatchmakingConfig(config_, server), IsOk());
    auto started = parlor::testing::TestServer::Start(
        MatchmakingIdentity(), server, [this](ServiceHost& host) {
          return InstallMatchmaking(
              host, config_, [clock = clock_] { return clock->Now(); }, &service_);
        });
    ASSERT_TRUE(started.ok()) << started.status();
    matchmaking_ = *std::move(started);
    stub_ = v1::MatchmakingService::NewStub(matchmaking_->channel());
  }

  void TearDown() override {
    matchmaking_.reset();
    accounts_.reset();
  }

  Player SignIn(const std::string& device) {
    accounts::v1::AuthenticateDeviceRequest request;
    request.set_device_id(device);
    accounts::v1::AuthenticateDeviceResponse response;
    grpc::ClientContext context;
    grpc::Status status = accounts_stub_->AuthenticateDevice(&context, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return {response.account().account_id(), response.tokens().access_token()};
  }

  void Block(const Player& blocker, const Player& blocked) {
    accounts::v1::BlockPlayerRequest request;
    request.set_account_id(blocked.id);
    accounts::v1::BlockPlayerResponse response;
    grpc::Status status =
        accounts_stub_->BlockPlayer(WithToken(blocker.token).get(), request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }

  v1::Party CreateParty(const Player& leader, int max_size) {
    v1::CreatePartyRequest request;
    request.set_max_size(max_size);
    v1::CreatePartyResponse response;
    grpc::Status status = stub_->CreateParty(WithToken(leader.token).get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response.party();
  }

  grpc::Status Invite(const Player& inviter, const Player& invitee,
                      v1::PartyInvite* invite = nullptr) {
    v1::InviteToPartyRequest request;
    request.set_account_id(invitee.id);
    v1::InviteToPartyResponse response;
    grpc::Status status = stub_->InviteToParty(WithToken(inviter.token).get(), request, &response);
    if (invite != nullptr) *invite = response.invite();
    return status;
  }

  grpc::Status JoinById(const Player& player, const std::string& party_id,
                        v1::Party* party = nullptr) {
    v1::JoinPartyRequest request;
    request.set_party_id(party_id);
    v1::JoinPartyResponse response;
    grpc::Status status = stub_->JoinParty(WithToken(player.token).get(), request, &response);
    if (party != nullptr) *party = response.party();
    return status;
  }

  std::vector<v1::PartyInvite> ListInvites(const Player& player) {
    v1::ListMyPartyInvitesResponse response;
    grpc::Status status = stub_->ListMyPartyInvites(WithToken(player.token).get(), {}, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return {response.invites().begin(), response.invites().end()};
  }

  grpc::Status Leave(const Player& player) {
    v1::LeavePartyResponse response;
    return stub_->LeaveParty(WithToken(player.token).get(), {}, &response);
  }

  int64_t Count(const std::string& query) {
    pqxx::connection c(db_url());
    pqxx::work txn(c);
    return txn.exec1(query)[0].as<int64_t>();
  }

  std::shared_ptr<TestClock> clock_ = std::make_shared<TestClock>();
  parlor::testing::TestKeys keys_;
  MatchmakingConfig config_;
  std::unique_ptr<parlor::testing::TestServer> accounts_;
  std::unique_ptr<accounts::v1::AccountsService::Stub> accounts_stub_;
  std::unique_ptr<parlor::testing::TestServer> matchmaking_;
  std::unique_ptr<v1::MatchmakingService::Stub> stub_;
  MatchmakingService* service_ = nullptr;
};

// Rule 1: a player cannot invite someone they blocked, nor someone who blocked them. Both get
// FAILED_PRECONDITION with the same words ("one of you has blocked the other", as a challenge
// says), so the refused inviter cannot tell which side blocked. Nothing is written: no
// invitation, no notification. A third player may still invite either of them.
TEST_F(PartyInvitesPgTest, NeitherSideOfABlockCanInviteTheOther) {
  Player ann = SignIn("device-ann");
  Player bob = SignIn("device-bob");
  Player cy = SignIn("device-cy");
  Block(ann, bob);
  CreateParty(ann, 4);
  CreateParty(bob, 4);

  grpc::Status blocker_invites = Invite(ann, bob);  // Ann blocked Bob
  grpc::Status blocked_invites = Invite(bob, ann);  // Bob was blocked by Ann
  for (const grpc::Status& status : {blocker_invites, blocked_invites}) {
    EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
    EXPECT_THAT(status.error_message(), HasSubstr("one of you has blocked the other"));
  }
  EXPECT_EQ(blocker_invites.error_message(), absl::StrCat("account_id: you cannot invite ", bob.id,
                                                          ": one of you has blocked the other"));
  // Apart from the invitee's id the two answers are word for word the same.
  EXPECT_EQ(absl::StrReplaceAll(blocker_invites.error_message(), {{bob.id, "<invitee>"}}),
            absl::StrReplaceAll(blocked_invites.error_message(), {{ann.id, "<invitee>"}}));
  EXPECT_EQ(Count("SELECT count(*) FROM matchmaking.party_invites"), 0);
  EXPECT_EQ(Count("SELECT count(*) FROM matchmaking.notification_outbox "
                  "WHERE kind = 'party_invite'"),
            0);
  EXPECT_THAT(ListInvites(ann), IsEmpty());
  EXPECT_THAT(ListInvites(bob), IsEmpty());

  // The challenge refusal for the same pair has the same shape: a challenge reads alike.
  v1::ChallengeRequest challenge;
  challenge.set_game("pico");
  challenge.add_invitee_account_ids(ann.id);
  v1::ChallengeResponse challenged;
  grpc::Status challenge_status =
      stub_->Challenge(WithToken(bob.token).get(), challenge, &challenged);
  EXPECT_EQ(challenge_status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(challenge_status.error_message(), HasSubstr("one of you has blocked the other"));

  // Unblocked players are unaffected: Cy may invite Bob and Ann.
  CreateParty(cy, 4);
  EXPECT_TRUE(Invite(cy, bob).ok());
  EXPECT_TRUE(Invite(cy, ann).ok());
  EXPECT_THAT(ListInvites(bob), SizeIs(1));
}

// Rule 2: an invitation expires 24 hours after it was sent. Until then the invitee sees it and
// may join by the party's id; from then on JoinParty by id is NOT_FOUND ("no open
// invitation"), the invitee's list no longer shows it, declining it is NOT_FOUND too, and the
// party may invite the player again (a new invitation, a new notification, 24 hours more).
// A party is one side at a table: nobody ends up in it with a player they blocked or who blocked
// them, whoever sends the invitation and however they join.
TEST_F(PartyInvitesPgTest, APlayerBlockedWithAnyMemberCannotBeInvitedOrJoin) {
  Player ann = SignIn("device-ann");
  Player bob = SignIn("device-bob");
  Player cy = SignIn("device-cy");
  Block(ann, bob);
  const v1::Party party = CreateParty(ann, 4);
  {
    v1::JoinPartyRequest request;
    request.set_code(party.code());
    v1::JoinPartyResponse response;
    ASSERT_TRUE(stub_->JoinParty(WithToken(cy.token).get(), request, &response).ok());
  }

  // Cy, who blocked no one, invites Bob, whom the leader blocked.
  grpc::Status invited = Invite(cy, bob);
  EXPECT_EQ(invited.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(invited.error_message(),
            absl::StrCat("account_id: you cannot invite ", bob.id,
                         ": they and a member of your party blocked the other"));
  EXPECT_EQ(Count("SELECT count(*) FROM matchmaking.party_invites"), 0);
  EXPECT_THAT(ListInvites(bob), IsEmpty());

  // Nor does the party's code let him in.
  v1::JoinPartyRequest by_code;
  by_code.set_code(party.code());
  v1::JoinPartyResponse joined;
  grpc::Status status = stub_->JoinParty(WithToken(bob.token).get(), by_code, &joined);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_EQ(status.error_message(),
            "you cannot join this party: you and one of its members blocked the other");
  EXPECT_EQ(Count("SELECT count(*) FROM matchmaking.party_members"), 2);

  // The other way round: once Ann's party has ended, the blocker cannot join a party of Bob's.
  ASSERT_TRUE(Leave(ann).ok());
  const v1::Party bobs = CreateParty(bob, 4);
  v1::JoinPartyRequest ann_joins;
  ann_joins.set_code(bobs.code());
  status = stub_->JoinParty(WithToken(ann.token).get(), ann_joins, &joined);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(status.error_message(), HasSubstr("blocked the other"));
  // Cy (her party ended with Ann's leaving), blocked by no one, still can.
  v1::JoinPartyRequest cy_joins;
  cy_joins.set_code(bobs.code());
  EXPECT_TRUE(stub_->JoinParty(WithToken(cy.token).get(), cy_joins, &joined).ok());
}

TEST_F(PartyInvitesPgTest, AnInvitationExpires24HoursAfterItWasSent) {
  Player ann = SignIn("device-ann-expiry");
  Player bob = SignIn("device-bob-expiry");
  Player cy = SignIn("device-cy-expiry");
  v1::Party party = CreateParty(ann, 4);
  v1::PartyInvite invite;
  ASSERT_TRUE(Invite(ann, bob, &invite).ok());
  ASSERT_TRUE(Invite(ann, cy).ok());
  EXPECT_EQ(invite.expire_time().seconds() - invite.create_time().seconds(), 24 * 3600);

  // One second short of a day it is open: listed, and Cy joins by id.
  clock_->Advance(absl::Hours(24) - absl::Seconds(1));
  ASSERT_THAT(service_->ListMyPartyInvites(bob.id), IsOk());
  EXPECT_THAT(*service_->ListMyPartyInvites(bob.id), SizeIs(1));
  EXPECT_THAT(service_->JoinParty(cy.id, "", party.party_id()), IsOk());

  // At 24 hours it is over.
  clock_->Advance(absl::Seconds(1));
  const std::string no_invitation =
      absl::StrCat("you have no open invitation to party ", party.party_id(),
                   " (never invited, declined, expired, or the party was disbanded)");
  EXPECT_THAT(service_->JoinParty(bob.id, "", party.party_id()),
              StatusIs(absl::StatusCode::kNotFound, no_invitation));
  ASSERT_THAT(service_->ListMyPartyInvites(bob.id), IsOk());
  EXPECT_THAT(*service_->ListMyPartyInvites(bob.id), IsEmpty());
  EXPECT_THAT(service_->DeclinePartyInvite(bob.id, party.party_id()),
              StatusIs(absl::StatusCode::kNotFound, no_invitation));
  EXPECT_EQ(Count("SELECT count(*) FROM matchmaking.party_members"), 2);  // Ann and Cy

  // A new invitation can be sent: the old one is marked expired, the new one runs 24 h more
  // and notifies Bob again; Bob joins with it.
  absl::StatusOr<PartyInviteRow> again = service_->InviteToParty(ann.id, bob.id);
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(again->create_time, clock_->Now());
  EXPECT_EQ(again->expire_time, clock_->Now() + absl::Hours(24));
  EXPECT_EQ(Count("SELECT count(*) FROM matchmaking.party_invites WHERE state = 'expired'"), 1);
  EXPECT_EQ(Count("SELECT count(*) FROM matchmaking.notification_outbox "
                  "WHERE kind = 'party_invite' AND account_id = '" +
                  bob.id + "'"),
            2);
  ASSERT_THAT(service_->ListMyPartyInvites(bob.id), IsOk());
  EXPECT_THAT(*service_->ListMyPartyInvites(bob.id), SizeIs(1));
  absl::StatusOr<PartyRow> joined = service_->JoinParty(bob.id, "", party.party_id());
  ASSERT_THAT(joined, IsOk());
  EXPECT_THAT(joined->members, SizeIs(3));
}

// Rule 3: when the leader leaves, the party is disbanded and its open invitations go with it:
// the invitee's list no longer shows it and JoinParty by its id is NOT_FOUND. A member who is
// not the leader leaving does not end the party, and its invitations stay open.
TEST_F(PartyInvitesPgTest, ADisbandedPartysInvitationsAreGone) {
  Player ann = SignIn("device-ann-disband");
  Player bob = SignIn("device-bob-disband");
  Player cy = SignIn("device-cy-disband");
  Player dee = SignIn("device-dee-disband");
  v1::Party party = CreateParty(ann, 4);
  v1::JoinPartyRequest join;
  join.set_code(party.code());
  v1::JoinPartyResponse joined;
  ASSERT_TRUE(stub_->JoinParty(WithToken(dee.token).get(), join, &joined).ok());
  ASSERT_TRUE(Invite(ann, bob).ok());
  ASSERT_TRUE(Invite(dee, cy).ok());  // any member may invite

  // Dee (not the leader) leaves: the party and both invitations remain.
  ASSERT_TRUE(Leave(dee).ok());
  EXPECT_THAT(ListInvites(bob), SizeIs(1));
  EXPECT_THAT(ListInvites(cy), SizeIs(1));

  // Ann (the leader) leaves: the party is disbanded.
  ASSERT_TRUE(Leave(ann).ok());
  EXPECT_EQ(Count("SELECT count(*) FROM matchmaking.parties"), 0);
  EXPECT_THAT(ListInvites(bob), IsEmpty());
  EXPECT_THAT(ListInvites(cy), IsEmpty());
  for (const Player& invitee : {bob, cy}) {
    grpc::Status refused = JoinById(invitee, party.party_id());
    EXPECT_EQ(refused.error_code(), grpc::StatusCode::NOT_FOUND);
    EXPECT_EQ(refused.error_message(),
              absl::StrCat("you have no open invitation to party ", party.party_id(),
                           " (never invited, declined, expired, or the party was disbanded)"));
  }
  EXPECT_EQ(Count("SELECT count(*) FROM matchmaking.party_invites"), 0);
  EXPECT_EQ(Count("SELECT count(*) FROM matchmaking.party_members"), 0);
  // Bob is free to take part elsewhere: he was never added to the dead party.
  v1::Party own = CreateParty(bob, 2);
  EXPECT_THAT(own.party_id(), Not(IsEmpty()));
}

}  // namespace
}  // namespace parlor::matchmaking
