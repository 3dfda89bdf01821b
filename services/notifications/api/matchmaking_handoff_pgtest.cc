// The hand-off from matchmaking, through the real services on one PostgreSQL: accounts (sign-in,
// display names), sessions (the matched game), matchmaking with its notification relay, and
// notifications. A challenge, its acceptance, a queue match and a party invitation each reach the
// right player's inbox with the right names, exactly once even when the outbox is relayed again;
// the outbox's backlog gauges read what waits.
#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "parlor/accounts/v1/accounts.grpc.pb.h"
#include "parlor/matchmaking/v1/matchmaking.grpc.pb.h"
#include "prometheus/registry.h"
#include "services/accounts/accounts_server.h"
#include "services/accounts/testing/accounts_test_server.h"
#include "services/matchmaking/matchmaking_server.h"
#include "services/notifications/testing/notifications_fixture.h"
#include "services/sessions/sessions_server.h"

namespace parlor::notifications {
namespace {

using ::parlor::testing::Bearer;
using ::testing::ElementsAre;
namespace mv1 = matchmaking::v1;

struct Person {
  std::string account_id;
  std::string token;
  std::string name;
};

class MatchmakingHandoffPgTest : public testing::NotificationsPgTest {
 protected:
  void SetUp() override {
    NotificationsPgTest::SetUp();
    auto accounts = accounts::StartTestAccounts(db_url(), keys_);
    ASSERT_TRUE(accounts.ok()) << accounts.status();
    accounts_ = *std::move(accounts);

    sessions::SessionsConfig sessions_config;
    sessions_config.page_token_secret = "matchmaking-handoff-page-secret";
    sessions_config.sweep_interval = absl::ZeroDuration();
    sessions_config.dispatch_interval = absl::ZeroDuration();
    auto sessions = parlor::testing::TestServer::Start(
        sessions::SessionsIdentity(), parlor::testing::TestServerConfig(db_url(), keys_),
        [&](ServiceHost& host) { return sessions::InstallSessions(host, sessions_config); });
    ASSERT_TRUE(sessions.ok()) << sessions.status();
    sessions_ = *std::move(sessions);

    matchmaking::MatchmakingConfig config;
    config.service_token_private_key = keys_.service().private_key;
    config.accounts_address = accounts_->address();
    config.sessions_address = sessions_->address();
    config.notifications_address = server_->address();
    config.matcher_interval = absl::Milliseconds(100);
    config.notifications_interval = absl::Milliseconds(50);
    ServerConfig server = parlor::testing::TestServerConfig(db_url(), keys_);
    ASSERT_TRUE(matchmaking::FinalizeMatchmakingConfig(config, server).ok());
    auto started = parlor::testing::TestServer::Start(
        matchmaking::MatchmakingIdentity(), server,
        [&](ServiceHost& host) { return matchmaking::InstallMatchmaking(host, config); });
    ASSERT_TRUE(started.ok()) << started.status();
    matchmaking_ = *std::move(started);
    matchmaking_stub_ = mv1::MatchmakingService::NewStub(matchmaking_->channel());
  }

  void TearDown() override {
    matchmaking_.reset();
    sessions_.reset();
    accounts_.reset();
    NotificationsPgTest::TearDown();
  }

  Person SignIn(const std::string& device) {
    auto stub = accounts::v1::AccountsService::NewStub(accounts_->channel());
    accounts::v1::AuthenticateDeviceRequest request;
    request.set_device_id(device);
    accounts::v1::AuthenticateDeviceResponse response;
    const grpc::Status status = stub->AuthenticateDevice(Bearer("").get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return {response.account().account_id(), response.tokens().access_token(),
            response.account().display_name()};
  }

  // The player's inbox once it holds `count` notifications (waits up to 20 s for the relay).
  v1::ListNotificationsResponse InboxOf(const Person& player, int count) {
    v1::ListNotificationsResponse inbox;
    for (int i = 0; i < 400; ++i) {
      inbox.Clear();
      EXPECT_TRUE(
          api_->ListNotifications(Bearer(Player(player.account_id)).get(), {}, &inbox).ok());
      if (inbox.notifications_size() >= count) break;
      absl::SleepFor(absl::Milliseconds(50));
    }
    return inbox;
  }

  std::unique_ptr<parlor::testing::TestServer> accounts_;
  std::unique_ptr<parlor::testing::TestServer> sessions_;
  std::unique_ptr<parlor::testing::TestServer> matchmaking_;
  std::unique_ptr<mv1::MatchmakingService::Stub> matchmaking_stub_;
};

TEST_F(MatchmakingHandoffPgTest, ChallengesAndMatchesReachTheInboxOnceWithTheRightNames) {
  const Person ada = SignIn("device-ada");
  const Person tess = SignIn("device-tess");
  const Person cy = SignIn("device-cy");
  ASSERT_FALSE(ada.name.empty());

  // Ada challenges Tess: Tess is told who by.
  mv1::ChallengeRequest challenge;
  challenge.set_game("pico");
  challenge.add_invitee_account_ids(tess.account_id);
  mv1::ChallengeResponse challenged;
  ASSERT_TRUE(matchmaking_stub_->Challenge(Bearer(ada.token).get(), challenge, &challenged).ok());
  v1::ListNotificationsResponse tess_inbox = InboxOf(tess, 1);
  ASSERT_EQ(tess_inbox.notifications_size(), 1);
  EXPECT_EQ(tess_inbox.notifications(0).kind(), v1::EVENT_KIND_CHALLENGE_RECEIVED);
  EXPECT_THAT(tess_inbox.notifications(0).loc_args(), ElementsAre(ada.name, "Pico"));
  EXPECT_EQ(tess_inbox.notifications(0).deep_link(), "parlor://challenges");

  // Tess accepts: Ada is told, by Tess's name.
  mv1::AcceptChallengeRequest accept;
  accept.set_challenge_id(challenged.challenge().challenge_id());
  mv1::AcceptChallengeResponse accepted;
  ASSERT_TRUE(matchmaking_stub_->AcceptChallenge(Bearer(tess.token).get(), accept, &accepted).ok());
  v1::ListNotificationsResponse ada_inbox = InboxOf(ada, 1);
  ASSERT_EQ(ada_inbox.notifications_size(), 1);
  EXPECT_EQ(ada_inbox.notifications(0).kind(), v1::EVENT_KIND_CHALLENGE_ACCEPTED);
  EXPECT_THAT(ada_inbox.notifications(0).loc_args(), ElementsAre(tess.name, "Pico"));

  // Ada and Cy queue for Picadice: once their game exists, each is told against whom.
  for (const Person* p : {&ada, &cy}) {
    mv1::EnqueueRequest enqueue;
    enqueue.set_game("picadice");
    mv1::EnqueueResponse ticket;
    ASSERT_TRUE(matchmaking_stub_->Enqueue(Bearer(p->token).get(), enqueue, &ticket).ok());
  }
  ada_inbox = InboxOf(ada, 2);
  const v1::ListNotificationsResponse cy_inbox = InboxOf(cy, 1);
  ASSERT_EQ(ada_inbox.notifications_size(), 2);
  ASSERT_EQ(cy_inbox.notifications_size(), 1);
  const v1::Notification& found = ada_inbox.notifications(0);  // newest first
  EXPECT_EQ(found.kind(), v1::EVENT_KIND_MATCH_FOUND);
  EXPECT_THAT(found.loc_args(), ElementsAre("Picadice", cy.name));
  EXPECT_EQ(found.game(), "picadice");
  EXPECT_FALSE(found.game_id().empty());
  EXPECT_EQ(found.deep_link(), absl::StrCat("parlor://game/", found.game_id(), "?version=0"));
  EXPECT_EQ(cy_inbox.notifications(0).kind(), v1::EVENT_KIND_MATCH_FOUND);
  EXPECT_THAT(cy_inbox.notifications(0).loc_args(), ElementsAre("Picadice", ada.name));
  EXPECT_EQ(cy_inbox.notifications(0).game_id(), found.game_id());

  // Every row was relayed, once each; relaying them all again changes nothing.
  EXPECT_EQ(Query("SELECT count(*) FROM matchmaking.notification_outbox WHERE sent_at IS NULL"),
            "0");
  EXPECT_EQ(Query("SELECT count(*) FROM notifications.events"), "4");
  EXPECT_EQ(Query("SELECT count(*) FROM notifications.events WHERE commit_time > create_time"),
            "0");
  Query(
      "UPDATE matchmaking.notification_outbox SET sent_at = NULL, next_attempt_at = "
      "'2000-01-01' RETURNING 1");
  for (int i = 0; i < 400; ++i) {
    if (Query("SELECT count(*) FROM matchmaking.notification_outbox WHERE sent_at IS NULL") ==
        "0") {
      break;
    }
    absl::SleepFor(absl::Milliseconds(50));
  }
  EXPECT_EQ(Query("SELECT count(*) FROM matchmaking.notification_outbox WHERE sent_at IS NULL"),
            "0");
  EXPECT_EQ(Query("SELECT count(*) FROM notifications.events"), "4");
  EXPECT_EQ(InboxOf(ada, 2).notifications_size(), 2);
}

// A party member invites a friend: the friend's inbox says who from and opens the party; the
// friend joins by the party's id, no code. Inviting again while the invitation is open sends
// nothing more; a declined invitation no longer lets the player in.
TEST_F(MatchmakingHandoffPgTest, APartyInviteReachesTheInviteeWhoJoinsByThePartysId) {
  const Person ada = SignIn("device-ada");
  const Person tess = SignIn("device-tess");
  const Person cy = SignIn("device-cy");
  mv1::CreatePartyRequest create;
  create.set_max_size(3);
  mv1::CreatePartyResponse party;
  ASSERT_TRUE(matchmaking_stub_->CreateParty(Bearer(ada.token).get(), create, &party).ok());
  const std::string party_id = party.party().party_id();

  mv1::InviteToPartyRequest invite;
  invite.set_account_id(tess.account_id);
  mv1::InviteToPartyResponse invited;
  ASSERT_TRUE(matchmaking_stub_->InviteToParty(Bearer(ada.token).get(), invite, &invited).ok());
  EXPECT_EQ(invited.invite().party_id(), party_id);
  EXPECT_EQ(invited.invite().inviter_account_id(), ada.account_id);
  EXPECT_EQ(invited.invite().invitee_account_id(), tess.account_id);
  EXPECT_THAT(invited.invite().member_account_ids(), ElementsAre(ada.account_id));
  const v1::ListNotificationsResponse tess_inbox = InboxOf(tess, 1);
  ASSERT_EQ(tess_inbox.notifications_size(), 1);
  EXPECT_EQ(tess_inbox.notifications(0).kind(), v1::EVENT_KIND_PARTY_INVITE);
  EXPECT_EQ(tess_inbox.notifications(0).loc_key(), "party_invite.body");
  EXPECT_THAT(tess_inbox.notifications(0).loc_args(), ElementsAre(ada.name));
  EXPECT_EQ(tess_inbox.notifications(0).deep_link(), absl::StrCat("parlor://party/", party_id));

  // Again while it is open: the same invitation, nothing more sent.
  mv1::InviteToPartyResponse again;
  ASSERT_TRUE(matchmaking_stub_->InviteToParty(Bearer(ada.token).get(), invite, &again).ok());
  EXPECT_EQ(again.invite().create_time().seconds(), invited.invite().create_time().seconds());
  EXPECT_EQ(again.invite().create_time().nanos(), invited.invite().create_time().nanos());
  mv1::ListMyPartyInvitesResponse open;
  ASSERT_TRUE(matchmaking_stub_->ListMyPartyInvites(Bearer(tess.token).get(), {}, &open).ok());
  ASSERT_EQ(open.invites_size(), 1);
  EXPECT_EQ(open.invites(0).party_id(), party_id);

  // Tess joins by the party's id; the invitation is spent.
  mv1::JoinPartyRequest join;
  join.set_party_id(party_id);
  mv1::JoinPartyResponse joined;
  ASSERT_TRUE(matchmaking_stub_->JoinParty(Bearer(tess.token).get(), join, &joined).ok());
  EXPECT_THAT(joined.party().member_account_ids(), ElementsAre(ada.account_id, tess.account_id));
  open.Clear();
  ASSERT_TRUE(matchmaking_stub_->ListMyPartyInvites(Bearer(tess.token).get(), {}, &open).ok());
  EXPECT_EQ(open.invites_size(), 0);

  // Tess, now a member, invites Cy, who declines: Cy was told, and can no longer join by id.
  invite.set_account_id(cy.account_id);
  ASSERT_TRUE(matchmaking_stub_->InviteToParty(Bearer(tess.token).get(), invite, &invited).ok());
  const v1::ListNotificationsResponse cy_inbox = InboxOf(cy, 1);
  ASSERT_EQ(cy_inbox.notifications_size(), 1);
  EXPECT_THAT(cy_inbox.notifications(0).loc_args(), ElementsAre(tess.name));
  mv1::DeclinePartyInviteRequest decline;
  decline.set_party_id(party_id);
  mv1::DeclinePartyInviteResponse declined;
  ASSERT_TRUE(
      matchmaking_stub_->DeclinePartyInvite(Bearer(cy.token).get(), decline, &declined).ok());
  const grpc::Status refused = matchmaking_stub_->JoinParty(Bearer(cy.token).get(), join, &joined);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::NOT_FOUND) << refused.error_message();

  EXPECT_EQ(Query("SELECT string_agg(state, ',' ORDER BY create_time) FROM "
                  "matchmaking.party_invites"),
            "accepted,declined");
  EXPECT_EQ(Query("SELECT count(*) FROM notifications.events WHERE kind = 8"), "2");
}

double GaugeValue(prometheus::Registry& registry, const std::string& name) {
  for (const prometheus::MetricFamily& family : registry.Collect()) {
    if (family.name == name && !family.metric.empty()) return family.metric[0].gauge.value;
  }
  return -1;
}

// The backlog gauges the alert reads, as the relay loop sets them from the shared outbox: rows
// not yet handed over (here backing off for an hour, as a failing relay leaves them) count, sent
// rows do not; the age is the oldest waiting row's, from the change it reports.
TEST_F(MatchmakingHandoffPgTest, BacklogGaugesCountRowsNotHandedOverAndAgeTheOldest) {
  prometheus::Registry& registry = matchmaking_->host().metrics().registry();
  const std::string pending = "parlor_matchmaking_notification_outbox_pending";
  const std::string age = "parlor_matchmaking_notification_outbox_oldest_age_seconds";
  auto wait_for_pending = [&](double want) {
    for (int i = 0; i < 200 && GaugeValue(registry, pending) != want; ++i) {
      absl::SleepFor(absl::Milliseconds(50));
    }
    return GaugeValue(registry, pending);
  };
  ASSERT_EQ(wait_for_pending(0), 0);
  EXPECT_EQ(GaugeValue(registry, age), 0);

  const std::string account = testing::NewUuid();
  Query(absl::StrCat(
      "INSERT INTO matchmaking.notification_outbox (account_id, kind, dedupe_key, game, "
      "created_at, next_attempt_at, sent_at) VALUES "
      "('",
      account, "', 'match_found', 'backlog:old', 'pico', now() - interval '90 seconds', ",
      "now() + interval '1 hour', NULL), ('", account,
      "', 'match_found', 'backlog:new', 'pico', now() - interval '10 seconds', ",
      "now() + interval '1 hour', NULL), ('", account,
      "', 'match_found', 'backlog:sent', 'pico', now() - interval '600 seconds', ",
      "now() - interval '600 seconds', now()) RETURNING 1"));
  ASSERT_EQ(wait_for_pending(2), 2);
  EXPECT_GE(GaugeValue(registry, age), 90);
  EXPECT_LT(GaugeValue(registry, age), 150);  // the oldest waiting row, not the sent one's 600 s

  Query(
      "UPDATE matchmaking.notification_outbox SET sent_at = now() WHERE dedupe_key = "
      "'backlog:old' RETURNING 1");
  ASSERT_EQ(wait_for_pending(1), 1);
  EXPECT_GE(GaugeValue(registry, age), 10);
  EXPECT_LT(GaugeValue(registry, age), 70);

  Query("UPDATE matchmaking.notification_outbox SET sent_at = now() RETURNING 1");
  ASSERT_EQ(wait_for_pending(0), 0);
  EXPECT_EQ(GaugeValue(registry, age), 0);
}

}  // namespace
}  // namespace parlor::notifications
