// Bad input, matchmaking: every RPC of MatchmakingService gets bad input of every kind
// through a real gRPC client against a real server (next to a real accounts server for invitee
// lookups) on a real PostgreSQL, and must answer the precise code with an actionable message while
// changing no table of the schema. Matchmaking has no internal RPC and no enum in its requests,
// so those two kinds of case do not apply here.
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "parlor/accounts/v1/accounts.grpc.pb.h"
#include "parlor/matchmaking/v1/matchmaking.grpc.pb.h"
#include "services/accounts/accounts_server.h"
#include "services/accounts/testing/accounts_test_server.h"
#include "services/common/testing/test_server.h"
#include "services/matchmaking/matchmaking_server.h"
#include "tests/pg/pg_test_database.h"

namespace parlor::matchmaking {
namespace {

void OpponentRequirementSame(v1::OpponentRequirement* r, const std::string& property, bool same) {
  r->set_property(property);
  r->set_same(same);
}

using ::parlor::testing::BadInputCase;
using ::parlor::testing::Bearer;

class MatchmakingBadInputPgTest : public parlor::testing::PgTest {
 protected:
  void SetUp() override {
    PgTest::SetUp();
    auto accounts = accounts::StartTestAccounts(db_url(), keys_);
    ASSERT_TRUE(accounts.ok()) << accounts.status();
    accounts_ = *std::move(accounts);
    accounts_stub_ = accounts::v1::AccountsService::NewStub(accounts_->channel());

    // The matcher pass is off: tickets stay waiting while the bad requests are sent.
    MatchmakingConfig config;
    config.service_token_private_key = keys_.service().private_key;
    config.accounts_address = accounts_->address();
    config.sessions_address = "127.0.0.1:1";
    config.matcher_interval = absl::ZeroDuration();
    config.watch_poll_interval = absl::Milliseconds(100);
    ServerConfig server = parlor::testing::TestServerConfig(db_url(), keys_);
    ASSERT_TRUE(FinalizeMatchmakingConfig(config, server).ok());
    auto matchmaking = parlor::testing::TestServer::Start(
        MatchmakingIdentity(), server,
        [&](ServiceHost& host) { return InstallMatchmaking(host, config); });
    ASSERT_TRUE(matchmaking.ok()) << matchmaking.status();
    server_ = *std::move(matchmaking);
    stub_ = v1::MatchmakingService::NewStub(server_->channel());
  }

  void TearDown() override {
    server_.reset();
    accounts_.reset();
  }

  // Signs a device in through the real accounts service: (account id, access token).
  std::pair<std::string, std::string> SignIn(const std::string& device) {
    accounts::v1::AuthenticateDeviceRequest request;
    request.set_device_id(device);
    accounts::v1::AuthenticateDeviceResponse response;
    grpc::Status status = accounts_stub_->AuthenticateDevice(Bearer("").get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return {response.account().account_id(), response.tokens().access_token()};
  }

  std::string Checksum() {
    absl::StatusOr<std::string> checksum = parlor::testing::SchemaChecksum(db_url(), "matchmaking");
    EXPECT_TRUE(checksum.ok()) << checksum.status();
    return checksum.value_or("");
  }

  parlor::testing::TestKeys keys_;
  std::unique_ptr<parlor::testing::TestServer> accounts_;
  std::unique_ptr<accounts::v1::AccountsService::Stub> accounts_stub_;
  std::unique_ptr<parlor::testing::TestServer> server_;
  std::unique_ptr<v1::MatchmakingService::Stub> stub_;
};

TEST_F(MatchmakingBadInputPgTest, EveryRpcRefusesBadInputPreciselyAndChangesNothing) {
  auto [alice, alice_token] = SignIn("device-alice");
  auto [bob, bob_token] = SignIn("device-bob");
  auto [carol, carol_token] = SignIn("device-carol");
  // Setup: alice leads a full party of two with bob, holds a waiting pico ticket and has
  // challenged bob.
  v1::CreatePartyRequest create_party;
  create_party.set_max_size(2);
  v1::CreatePartyResponse party;
  ASSERT_TRUE(stub_->CreateParty(Bearer(alice_token).get(), create_party, &party).ok());
  v1::JoinPartyRequest join;
  join.set_code(party.party().code());
  v1::JoinPartyResponse joined;
  ASSERT_TRUE(stub_->JoinParty(Bearer(bob_token).get(), join, &joined).ok());
  v1::EnqueueRequest pico;
  pico.set_game("pico");
  v1::EnqueueResponse ticket;
  ASSERT_TRUE(stub_->Enqueue(Bearer(alice_token).get(), pico, &ticket).ok());
  v1::ChallengeRequest challenge_bob;
  challenge_bob.set_game("pico");
  challenge_bob.add_invitee_account_ids(bob);
  v1::ChallengeResponse challenge;
  ASSERT_TRUE(stub_->Challenge(Bearer(alice_token).get(), challenge_bob, &challenge).ok());
  const std::string ticket_id = ticket.ticket().ticket_id();
  const std::string challenge_id = challenge.challenge().challenge_id();
  const std::string party_id = party.party().party_id();
  const std::string unknown_uuid = "00000000-0000-4000-8000-000000000000";

  auto enqueue = [&](std::string token, std::function<void(v1::EnqueueRequest&)> fill) {
    return [this, token, fill] {
      v1::EnqueueRequest request;
      fill(request);
      v1::EnqueueResponse response;
      return stub_->Enqueue(Bearer(token).get(), request, &response);
    };
  };
  auto challenge_rpc = [&](std::string token, std::function<void(v1::ChallengeRequest&)> fill) {
    return [this, token, fill] {
      v1::ChallengeRequest request;
      fill(request);
      v1::ChallengeResponse response;
      return stub_->Challenge(Bearer(token).get(), request, &response);
    };
  };
  std::vector<BadInputCase> cases = {
      {"enqueue without token", enqueue("", [](auto& r) { r.set_game("pico"); }),
       grpc::StatusCode::UNAUTHENTICATED, "missing credentials"},
      {"enqueue unknown game", enqueue(carol_token, [](auto& r) { r.set_game("chess"); }),
       grpc::StatusCode::INVALID_ARGUMENT, "unknown game"},
      {"enqueue no game", enqueue(carol_token, [](auto&) {}), grpc::StatusCode::INVALID_ARGUMENT,
       "game is required"},
      {"enqueue bad option",
       enqueue(carol_token,
               [](auto& r) {
                 r.set_game("picadice");
                 (*r.mutable_options())["no_such_option"] = "1";
               }),
       grpc::StatusCode::INVALID_ARGUMENT, "options"},
      {"enqueue bad option value",
       enqueue(carol_token,
               [](auto& r) {
                 r.set_game("picadice");
                 (*r.mutable_options())["match_target"] = "99";
               }),
       grpc::StatusCode::INVALID_ARGUMENT, "match_target"},
      {"enqueue player count not allowed",
       enqueue(carol_token,
               [](auto& r) {
                 r.set_game("pico");
                 r.add_player_counts(3);
               }),
       grpc::StatusCode::INVALID_ARGUMENT, "player_counts"},
      {"enqueue count the options forbid",
       enqueue(carol_token,
               [](auto& r) {
                 r.set_game("picadice");
                 (*r.mutable_options())["team_play"] = "true";
                 r.add_player_counts(2);
               }),
       grpc::StatusCode::INVALID_ARGUMENT, "team_play"},
      {"enqueue second ticket same game and mode",
       enqueue(alice_token, [](auto& r) { r.set_game("pico"); }), grpc::StatusCode::ALREADY_EXISTS,
       "already have"},
      {"enqueue party too large for a team",
       enqueue(alice_token,
               [&](auto& r) {
                 r.set_game("pict");
                 r.set_party_id(party_id);
               }),
       grpc::StatusCode::FAILED_PRECONDITION, "one team"},
      {"enqueue someone else's party",
       enqueue(carol_token,
               [&](auto& r) {
                 r.set_game("pict");
                 r.set_party_id(party_id);
               }),
       grpc::StatusCode::NOT_FOUND, "party"},
      {"enqueue party as non-leader",
       enqueue(bob_token,
               [&](auto& r) {
                 r.set_game("pict");
                 r.set_party_id(party_id);
               }),
       grpc::StatusCode::PERMISSION_DENIED, "leader"},
      {"enqueue malformed party id",
       enqueue(alice_token,
               [&](auto& r) {
                 r.set_game("pict");
                 r.set_party_id("party-1");
               }),
       grpc::StatusCode::INVALID_ARGUMENT, "party_id"},
      {"get someone else's ticket",
       [&] {
         v1::GetTicketRequest r;
         r.set_ticket_id(ticket_id);
         v1::GetTicketResponse out;
         return stub_->GetTicket(Bearer(carol_token).get(), r, &out);
       },
       grpc::StatusCode::NOT_FOUND, "not yours"},
      {"get malformed ticket id",
       [&] {
         v1::GetTicketRequest r;
         r.set_ticket_id("nope");
         v1::GetTicketResponse out;
         return stub_->GetTicket(Bearer(alice_token).get(), r, &out);
       },
       grpc::StatusCode::INVALID_ARGUMENT, "ticket_id"},
      {"cancel someone else's ticket",
       [&] {
         v1::CancelTicketRequest r;
         r.set_ticket_id(ticket_id);
         v1::CancelTicketResponse out;
         return stub_->CancelTicket(Bearer(bob_token).get(), r, &out);
       },
       grpc::StatusCode::NOT_FOUND, "not yours"},
      {"cancel unknown ticket",
       [&] {
         v1::CancelTicketRequest r;
         r.set_ticket_id(unknown_uuid);
         v1::CancelTicketResponse out;
         return stub_->CancelTicket(Bearer(alice_token).get(), r, &out);
       },
       grpc::StatusCode::NOT_FOUND, "not found"},
      {"list tickets negative page size",
       [&] {
         v1::ListMyTicketsRequest r;
         r.set_page_size(-1);
         v1::ListMyTicketsResponse out;
         return stub_->ListMyTickets(Bearer(alice_token).get(), r, &out);
       },
       grpc::StatusCode::INVALID_ARGUMENT, "page_size"},
      {"list tickets page size above 100",
       [&] {
         v1::ListMyTicketsRequest r;
         r.set_page_size(101);
         v1::ListMyTicketsResponse out;
         return stub_->ListMyTickets(Bearer(alice_token).get(), r, &out);
       },
       grpc::StatusCode::INVALID_ARGUMENT, "page_size: must be 1-100"},
      {"create party too large",
       [&] {
         v1::CreatePartyRequest r;
         r.set_max_size(9);
         v1::CreatePartyResponse out;
         return stub_->CreateParty(Bearer(carol_token).get(), r, &out);
       },
       grpc::StatusCode::INVALID_ARGUMENT, "max_size"},
      {"create party while in one",
       [&] {
         v1::CreatePartyResponse out;
         return stub_->CreateParty(Bearer(bob_token).get(), v1::CreatePartyRequest(), &out);
       },
       grpc::StatusCode::FAILED_PRECONDITION, "already in a party"},
      {"join party malformed code",
       [&] {
         v1::JoinPartyRequest r;
         r.set_code("x");
         v1::JoinPartyResponse out;
         return stub_->JoinParty(Bearer(carol_token).get(), r, &out);
       },
       grpc::StatusCode::INVALID_ARGUMENT, "code"},
      {"join party unknown code",
       [&] {
         v1::JoinPartyRequest r;
         r.set_code("ZZZZZZZZ");
         v1::JoinPartyResponse out;
         return stub_->JoinParty(Bearer(carol_token).get(), r, &out);
       },
       grpc::StatusCode::NOT_FOUND, "no party"},
      {"join full party",
       [&] {
         v1::JoinPartyRequest r;
         r.set_code(party.party().code());
         v1::JoinPartyResponse out;
         return stub_->JoinParty(Bearer(carol_token).get(), r, &out);
       },
       grpc::StatusCode::FAILED_PRECONDITION, "full"},
      {"leave party when in none",
       [&] {
         v1::LeavePartyResponse out;
         return stub_->LeaveParty(Bearer(carol_token).get(), v1::LeavePartyRequest(), &out);
       },
       grpc::StatusCode::NOT_FOUND, "not in a party"},
      {"join party with both code and party id",
       [&] {
         v1::JoinPartyRequest r;
         r.set_code(party.party().code());
         r.set_party_id(party_id);
         v1::JoinPartyResponse out;
         return stub_->JoinParty(Bearer(carol_token).get(), r, &out);
       },
       grpc::StatusCode::INVALID_ARGUMENT, "exactly one of code and party_id"},
      {"join party malformed party id",
       [&] {
         v1::JoinPartyRequest r;
         r.set_party_id("party-1");
         v1::JoinPartyResponse out;
         return stub_->JoinParty(Bearer(carol_token).get(), r, &out);
       },
       grpc::StatusCode::INVALID_ARGUMENT, "party_id"},
      {"join party by id without an invitation",
       [&] {
         v1::JoinPartyRequest r;
         r.set_party_id(party_id);
         v1::JoinPartyResponse out;
         return stub_->JoinParty(Bearer(carol_token).get(), r, &out);
       },
       grpc::StatusCode::NOT_FOUND, "no open invitation"},
      {"invite malformed account id",
       [&] {
         v1::InviteToPartyRequest r;
         r.set_account_id("not an id!");
         v1::InviteToPartyResponse out;
         return stub_->InviteToParty(Bearer(alice_token).get(), r, &out);
       },
       grpc::StatusCode::INVALID_ARGUMENT, "account_id"},
      {"invite yourself",
       [&] {
         v1::InviteToPartyRequest r;
         r.set_account_id(alice);
         v1::InviteToPartyResponse out;
         return stub_->InviteToParty(Bearer(alice_token).get(), r, &out);
       },
       grpc::StatusCode::INVALID_ARGUMENT, "yourself"},
      {"invite unknown account",
       [&] {
         v1::InviteToPartyRequest r;
         r.set_account_id(unknown_uuid);
         v1::InviteToPartyResponse out;
         return stub_->InviteToParty(Bearer(alice_token).get(), r, &out);
       },
       grpc::StatusCode::NOT_FOUND, "no account"},
      {"invite when in no party",
       [&] {
         v1::InviteToPartyRequest r;
         r.set_account_id(alice);
         v1::InviteToPartyResponse out;
         return stub_->InviteToParty(Bearer(carol_token).get(), r, &out);
       },
       grpc::StatusCode::NOT_FOUND, "not in a party"},
      {"invite a member of the party",
       [&] {
         v1::InviteToPartyRequest r;
         r.set_account_id(bob);
         v1::InviteToPartyResponse out;
         return stub_->InviteToParty(Bearer(alice_token).get(), r, &out);
       },
       grpc::StatusCode::FAILED_PRECONDITION, "already in your party"},
      {"invite to a full party",
       [&] {
         v1::InviteToPartyRequest r;
         r.set_account_id(carol);
         v1::InviteToPartyResponse out;
         return stub_->InviteToParty(Bearer(bob_token).get(), r, &out);
       },
       grpc::StatusCode::FAILED_PRECONDITION, "full"},
      {"decline party invite malformed party id",
       [&] {
         v1::DeclinePartyInviteRequest r;
         r.set_party_id("party-1");
         v1::DeclinePartyInviteResponse out;
         return stub_->DeclinePartyInvite(Bearer(carol_token).get(), r, &out);
       },
       grpc::StatusCode::INVALID_ARGUMENT, "party_id"},
      {"decline party invite never received",
       [&] {
         v1::DeclinePartyInviteRequest r;
         r.set_party_id(party_id);
         v1::DeclinePartyInviteResponse out;
         return stub_->DeclinePartyInvite(Bearer(carol_token).get(), r, &out);
       },
       grpc::StatusCode::NOT_FOUND, "no open invitation"},
      {"challenge unknown game",
       challenge_rpc(carol_token,
                     [&](auto& r) {
                       r.set_game("chess");
                       r.add_invitee_account_ids(alice);
                     }),
       grpc::StatusCode::INVALID_ARGUMENT, "unknown game"},
      {"challenge unknown invitee",
       challenge_rpc(carol_token,
                     [&](auto& r) {
                       r.set_game("pico");
                       r.add_invitee_account_ids(unknown_uuid);
                     }),
       grpc::StatusCode::NOT_FOUND, "no account"},
      {"challenge too many players for the game",
       challenge_rpc(carol_token,
                     [&](auto& r) {
                       r.set_game("pico");
                       r.add_invitee_account_ids(alice);
                       r.add_invitee_account_ids(bob);
                     }),
       grpc::StatusCode::INVALID_ARGUMENT, "player_counts"},
      {"challenge bad options",
       challenge_rpc(carol_token,
                     [&](auto& r) {
                       r.set_game("picadice");
                       (*r.mutable_options())["team_play"] = "maybe";
                       r.add_invitee_account_ids(alice);
                     }),
       grpc::StatusCode::INVALID_ARGUMENT, "team_play"},
      {"challenge yourself",
       challenge_rpc(carol_token,
                     [&](auto& r) {
                       r.set_game("pico");
                       r.add_invitee_account_ids(carol);
                     }),
       grpc::StatusCode::INVALID_ARGUMENT, "yourself"},
      {"challenge invitees and code",
       challenge_rpc(carol_token,
                     [&](auto& r) {
                       r.set_game("pico");
                       r.add_invitee_account_ids(alice);
                       r.set_create_invite_code(true);
                     }),
       grpc::StatusCode::INVALID_ARGUMENT, "exactly one"},
      {"challenge neither invitees nor code",
       challenge_rpc(carol_token, [&](auto& r) { r.set_game("pico"); }),
       grpc::StatusCode::INVALID_ARGUMENT, "exactly one"},
      {"accept a challenge you were not invited to",
       [&] {
         v1::AcceptChallengeRequest r;
         r.set_challenge_id(challenge_id);
         v1::AcceptChallengeResponse out;
         return stub_->AcceptChallenge(Bearer(carol_token).get(), r, &out);
       },
       grpc::StatusCode::NOT_FOUND, "not invited"},
      {"accept unknown challenge",
       [&] {
         v1::AcceptChallengeRequest r;
         r.set_challenge_id(unknown_uuid);
         v1::AcceptChallengeResponse out;
         return stub_->AcceptChallenge(Bearer(bob_token).get(), r, &out);
       },
       grpc::StatusCode::NOT_FOUND, "not found"},
      {"accept with neither id nor code",
       [&] {
         v1::AcceptChallengeResponse out;
         return stub_->AcceptChallenge(Bearer(bob_token).get(), v1::AcceptChallengeRequest(), &out);
       },
       grpc::StatusCode::INVALID_ARGUMENT, "exactly one"},
      {"decline a challenge you were not invited to",
       [&] {
         v1::DeclineChallengeRequest r;
         r.set_challenge_id(challenge_id);
         v1::DeclineChallengeResponse out;
         return stub_->DeclineChallenge(Bearer(carol_token).get(), r, &out);
       },
       grpc::StatusCode::NOT_FOUND, "not invited"},
      {"list challenges negative page size",
       [&] {
         v1::ListMyChallengesRequest r;
         r.set_page_size(-5);
         v1::ListMyChallengesResponse out;
         return stub_->ListMyChallenges(Bearer(alice_token).get(), r, &out);
       },
       grpc::StatusCode::INVALID_ARGUMENT, "page_size"},
      {"list challenges page size above 100",
       [&] {
         v1::ListMyChallengesRequest r;
         r.set_page_size(101);
         v1::ListMyChallengesResponse out;
         return stub_->ListMyChallenges(Bearer(alice_token).get(), r, &out);
       },
       grpc::StatusCode::INVALID_ARGUMENT, "page_size: must be 1-100"},
  };

  // Tokens, bytes that do not parse, oversized strings and repeated fields.
  auto get_ticket = [this](std::string token, std::string id) {
    return [this, token, id] {
      v1::GetTicketRequest request;
      request.set_ticket_id(id);
      v1::GetTicketResponse response;
      return stub_->GetTicket(Bearer(token).get(), request, &response);
    };
  };
  auto watch = [this](std::string token) {
    return [this, token] {
      auto context = Bearer(token, absl::Seconds(5));
      auto reader = stub_->WatchMyTickets(context.get(), v1::WatchMyTicketsRequest());
      v1::WatchMyTicketsResponse response;
      if (reader->Read(&response)) {
        context->TryCancel();
        reader->Finish();
        return grpc::Status::OK;
      }
      return reader->Finish();
    };
  };
  auto raw = [this](std::string method, std::string bytes, std::string token) {
    return [this, method, bytes, token] {
      return parlor::testing::RawUnaryCall(
          server_->channel(), "/parlor.matchmaking.v1.MatchmakingService/" + method, bytes, token);
    };
  };
  const std::string huge(100 * 1024, 'x');
  const std::vector<BadInputCase> more = {
      {"get ticket: expired token", get_ticket(keys_.ExpiredPlayerToken(alice), ticket_id),
       grpc::StatusCode::UNAUTHENTICATED, "expired at"},
      {"get ticket: forged token", get_ticket(keys_.ForgedPlayerToken(alice), ticket_id),
       grpc::StatusCode::UNAUTHENTICATED, "signature is invalid"},
      {"get ticket: garbage token", get_ticket("garbage", ticket_id),
       grpc::StatusCode::UNAUTHENTICATED, "access token is malformed"},
      {"get ticket: service credential instead of a player token",
       get_ticket(keys_.ServiceToken(), ticket_id), grpc::StatusCode::UNAUTHENTICATED,
       "signature is invalid"},
      {"get ticket: missing id", get_ticket(alice_token, ""), grpc::StatusCode::INVALID_ARGUMENT,
       "ticket_id"},
      {"get ticket: oversized id", get_ticket(alice_token, huge),
       grpc::StatusCode::INVALID_ARGUMENT, "ticket_id"},
      {"get unknown ticket", get_ticket(alice_token, unknown_uuid), grpc::StatusCode::NOT_FOUND,
       "not found"},
      // gRPC itself refuses bytes that do not parse, before any service code runs, with
      // UNIMPLEMENTED and no message (INVALID_ARGUMENT would be right; a known gap in the common
      // server plumbing, left to its owner). Asserted as it is so that a fix shows up here.
      {"enqueue: request bytes that do not parse (gRPC's own answer)",
       raw("Enqueue", "\xff\xff\xff", alice_token), grpc::StatusCode::UNIMPLEMENTED, ""},
      // A field sent with the wrong wire type is an unknown field to protobuf: game is unset.
      {"enqueue: wrong wire type for game", raw("Enqueue", "\x0d\x01\x02\x03\x04", alice_token),
       grpc::StatusCode::INVALID_ARGUMENT, "game is required"},
      {"enqueue: oversized game name", enqueue(carol_token, [&](auto& r) { r.set_game(huge); }),
       grpc::StatusCode::INVALID_ARGUMENT, "game: unknown game \"xxxxxxxx"},
      {"enqueue: oversized player_counts",
       enqueue(carol_token,
               [](auto& r) {
                 r.set_game("pescado");
                 for (int i = 0; i < 1000; ++i) r.add_player_counts(2);
               }),
       grpc::StatusCode::INVALID_ARGUMENT, "player_counts: at most 16 entries"},
      {"enqueue: negative player count",
       enqueue(carol_token,
               [](auto& r) {
                 r.set_game("pescado");
                 r.add_player_counts(-2);
               }),
       grpc::StatusCode::INVALID_ARGUMENT, "-2 is not allowed"},
      {"enqueue: oversized options map",
       enqueue(carol_token,
               [](auto& r) {
                 r.set_game("picadice");
                 for (int i = 0; i < 1000; ++i) (*r.mutable_options())[absl::StrCat("o", i)] = "1";
               }),
       grpc::StatusCode::INVALID_ARGUMENT, "options"},
      {"enqueue: oversized option value",
       enqueue(carol_token,
               [&](auto& r) {
                 r.set_game("picadice");
                 (*r.mutable_options())["match_target"] = huge;
               }),
       grpc::StatusCode::INVALID_ARGUMENT, "options: \"match_target\" = \"xxxxxxxx"},
      {"challenge: oversized option name",
       challenge_rpc(carol_token,
                     [&](auto& r) {
                       r.set_game("pico");
                       r.add_invitee_account_ids(alice);
                       (*r.mutable_options())[huge] = "1";
                     }),
       grpc::StatusCode::INVALID_ARGUMENT, "is too long (at most 64 bytes each)"},
      // --- Enqueue: region, language, properties and requirements.
      {"enqueue: region with capitals and a space",
       enqueue(carol_token,
               [](auto& r) {
                 r.set_game("pict");
                 r.set_region("EU West");
               }),
       grpc::StatusCode::INVALID_ARGUMENT,
       "region: a region is 1-32 characters of a-z, 0-9 and '-', e.g. \"eu-west\"; got \"EU "
       "West\""},
      {"enqueue: oversized region",
       enqueue(carol_token,
               [&](auto& r) {
                 r.set_game("pict");
                 r.set_region(std::string(33, 'a'));
               }),
       grpc::StatusCode::INVALID_ARGUMENT, "region: a region is 1-32 characters"},
      {"enqueue: language not a BCP 47 tag",
       enqueue(carol_token,
               [](auto& r) {
                 r.set_game("pict");
                 r.set_language("english!");
               }),
       grpc::StatusCode::INVALID_ARGUMENT,
       "language: a language is a BCP 47 tag such as \"en\" or \"pt-BR\"; got \"english!\""},
      {"enqueue: time control not in the published set",
       enqueue(carol_token,
               [](auto& r) {
                 r.set_game("pict");
                 r.set_time_control(static_cast<v1::TimeControl>(99));
               }),
       grpc::StatusCode::INVALID_ARGUMENT,
       "time_control: unknown value 99; ListTimeControls lists the choices (1 to 5; unset means "
       "3 days per move)"},
      {"enqueue: unknown visibility",
       enqueue(carol_token,
               [](auto& r) {
                 r.set_game("pict");
                 r.set_visibility(static_cast<v1::GameVisibility>(7));
               }),
       grpc::StatusCode::INVALID_ARGUMENT,
       "visibility: unknown value 7; use GAME_VISIBILITY_PRIVATE (1, also when unset) or "
       "GAME_VISIBILITY_PUBLIC (2)"},
      {"challenge: time control not in the published set",
       challenge_rpc(carol_token,
                     [&](auto& r) {
                       r.set_game("pico");
                       r.add_invitee_account_ids(alice);
                       r.set_time_control(static_cast<v1::TimeControl>(-1));
                     }),
       grpc::StatusCode::INVALID_ARGUMENT, "time_control: unknown value -1"},
      {"challenge: unknown visibility",
       challenge_rpc(carol_token,
                     [&](auto& r) {
                       r.set_game("pico");
                       r.add_invitee_account_ids(alice);
                       r.set_visibility(static_cast<v1::GameVisibility>(3));
                     }),
       grpc::StatusCode::INVALID_ARGUMENT, "visibility: unknown value 3"},
      {"enqueue: region as a string property",
       enqueue(carol_token,
               [](auto& r) {
                 r.set_game("pict");
                 (*r.mutable_string_properties())["region"] = "eu";
               }),
       grpc::StatusCode::INVALID_ARGUMENT,
       "string_properties[\"region\"]: set the request's own region field instead"},
      {"enqueue: property name with capitals",
       enqueue(carol_token,
               [](auto& r) {
                 r.set_game("pict");
                 (*r.mutable_string_properties())["Platform"] = "ios";
               }),
       grpc::StatusCode::INVALID_ARGUMENT,
       "string_properties[\"Platform\"]: a property name is 1-32 characters of a-z, 0-9 and "
       "'_', starting with a letter"},
      {"enqueue: property value with a semicolon",
       enqueue(carol_token,
               [](auto& r) {
                 r.set_game("pict");
                 (*r.mutable_string_properties())["platform"] = "ios;n:tier=1";
               }),
       grpc::StatusCode::INVALID_ARGUMENT,
       "string_properties[\"platform\"]: a value is 1-64 characters of letters, digits and "
       "\"_.:-\"; got \"ios;n:tier=1\""},
      {"enqueue: empty property value",
       enqueue(carol_token,
               [](auto& r) {
                 r.set_game("pict");
                 (*r.mutable_string_properties())["platform"] = "";
               }),
       grpc::StatusCode::INVALID_ARGUMENT, "string_properties[\"platform\"]: a value is 1-64"},
      {"enqueue: infinite number property",
       enqueue(carol_token,
               [](auto& r) {
                 r.set_game("pict");
                 (*r.mutable_number_properties())["tier"] = std::numeric_limits<double>::infinity();
               }),
       grpc::StatusCode::INVALID_ARGUMENT, "number_properties[\"tier\"]: must be a finite number"},
      {"enqueue: a name both string and number",
       enqueue(carol_token,
               [](auto& r) {
                 r.set_game("pict");
                 (*r.mutable_string_properties())["tier"] = "gold";
                 (*r.mutable_number_properties())["tier"] = 3;
               }),
       grpc::StatusCode::INVALID_ARGUMENT,
       "number_properties[\"tier\"]: tier is also a string property; a name is one or the other"},
      {"enqueue: nine properties",
       enqueue(carol_token,
               [](auto& r) {
                 r.set_game("pict");
                 for (int i = 0; i < 9; ++i)
                   (*r.mutable_number_properties())[absl::StrCat("p", i)] = i;
               }),
       grpc::StatusCode::INVALID_ARGUMENT,
       "a ticket has at most 8 properties in all (region, language, string_properties and "
       "number_properties), got 9"},
      {"enqueue: requirement without a rule",
       enqueue(carol_token,
               [](auto& r) {
                 r.set_game("pict");
                 r.add_requirements()->set_property("region");
               }),
       grpc::StatusCode::INVALID_ARGUMENT, "requirements[0]: set one rule: same, one_of or range"},
      {"enqueue: requirement same = false",
       enqueue(carol_token,
               [](auto& r) {
                 r.set_game("pict");
                 r.set_region("eu");
                 OpponentRequirementSame(r.add_requirements(), "region", false);
               }),
       grpc::StatusCode::INVALID_ARGUMENT,
       "requirements[0].same: set it to true (or use one_of / range)"},
      {"enqueue: same region without a region",
       enqueue(carol_token,
               [](auto& r) {
                 r.set_game("pict");
                 OpponentRequirementSame(r.add_requirements(), "region", true);
               }),
       grpc::StatusCode::INVALID_ARGUMENT,
       "requirements[0].same: this ticket has no region property to compare with; set it, or use "
       "one_of / range"},
      {"enqueue: requirement on a malformed property name",
       enqueue(carol_token,
               [](auto& r) {
                 r.set_game("pict");
                 r.add_requirements()->set_property("Region");
                 r.mutable_requirements(0)->mutable_one_of()->add_values("eu");
               }),
       grpc::StatusCode::INVALID_ARGUMENT,
       "requirements[0].property: name a property (\"region\", \"language\" or a key of "
       "string_properties / number_properties), 1-32 characters of a-z, 0-9 and '_'"},
      {"enqueue: one_of without values",
       enqueue(carol_token,
               [](auto& r) {
                 r.set_game("pict");
                 r.add_requirements()->set_property("language");
                 r.mutable_requirements(0)->mutable_one_of();
               }),
       grpc::StatusCode::INVALID_ARGUMENT, "requirements[0].one_of: give 1-16 values, got 0"},
      {"enqueue: one_of with a malformed language",
       enqueue(carol_token,
               [](auto& r) {
                 r.set_game("pict");
                 r.add_requirements()->set_property("language");
                 r.mutable_requirements(0)->mutable_one_of()->add_values("en");
                 r.mutable_requirements(0)->mutable_one_of()->add_values("not a tag");
               }),
       grpc::StatusCode::INVALID_ARGUMENT,
       "requirements[0].one_of.values[1]: a language is a BCP 47 tag such as \"en\" or "
       "\"pt-BR\"; got \"not a tag\""},
      {"enqueue: range with min above max",
       enqueue(carol_token,
               [](auto& r) {
                 r.set_game("pict");
                 r.add_requirements()->set_property("tier");
                 r.mutable_requirements(0)->mutable_range()->set_min(5);
                 r.mutable_requirements(0)->mutable_range()->set_max(1);
               }),
       grpc::StatusCode::INVALID_ARGUMENT,
       "requirements[0].range: min and max must be finite with min <= max, got [5, 1]"},
      {"enqueue: range with NaN",
       enqueue(carol_token,
               [](auto& r) {
                 r.set_game("pict");
                 r.add_requirements()->set_property("tier");
                 r.mutable_requirements(0)->mutable_range()->set_min(std::nan(""));
               }),
       grpc::StatusCode::INVALID_ARGUMENT,
       "requirements[0].range: min and max must be finite with min <= max, got [nan, 0]"},
      {"enqueue: nine requirements",
       enqueue(carol_token,
               [](auto& r) {
                 r.set_game("pict");
                 for (int i = 0; i < 9; ++i) {
                   r.add_requirements()->set_property("tier");
                   r.mutable_requirements(i)->mutable_range()->set_max(1);
                 }
               }),
       grpc::StatusCode::INVALID_ARGUMENT, "requirements: at most 8, got 9"},
      {"enqueue: unknown party",
       enqueue(alice_token,
               [&](auto& r) {
                 r.set_game("pict");
                 r.set_party_id(unknown_uuid);
               }),
       grpc::StatusCode::NOT_FOUND, "party"},
      {"cancel: malformed ticket id",
       [&] {
         v1::CancelTicketRequest r;
         r.set_ticket_id("'; DROP TABLE matchmaking.tickets; --");
         v1::CancelTicketResponse out;
         return stub_->CancelTicket(Bearer(alice_token).get(), r, &out);
       },
       grpc::StatusCode::INVALID_ARGUMENT, "ticket_id"},
      {"list tickets: expired token",
       [&] {
         v1::ListMyTicketsResponse out;
         return stub_->ListMyTickets(Bearer(keys_.ExpiredPlayerToken(alice)).get(), {}, &out);
       },
       grpc::StatusCode::UNAUTHENTICATED, "expired at"},
      {"create party: negative size",
       [&] {
         v1::CreatePartyRequest r;
         r.set_max_size(-3);
         v1::CreatePartyResponse out;
         return stub_->CreateParty(Bearer(carol_token).get(), r, &out);
       },
       grpc::StatusCode::INVALID_ARGUMENT, "max_size: a party has 2 to 4 players, got -3"},
      {"create party: forged token",
       [&] {
         v1::CreatePartyResponse out;
         return stub_->CreateParty(Bearer(keys_.ForgedPlayerToken(carol)).get(), {}, &out);
       },
       grpc::StatusCode::UNAUTHENTICATED, "signature is invalid"},
      {"join party: oversized code",
       [&] {
         v1::JoinPartyRequest r;
         r.set_code(huge);
         v1::JoinPartyResponse out;
         return stub_->JoinParty(Bearer(carol_token).get(), r, &out);
       },
       grpc::StatusCode::INVALID_ARGUMENT, "code: must be the 8-character code"},
      {"join party: neither code nor party id",
       [&] {
         v1::JoinPartyResponse out;
         return stub_->JoinParty(Bearer(carol_token).get(), {}, &out);
       },
       grpc::StatusCode::INVALID_ARGUMENT, "set exactly one of code and party_id"},
      {"leave party: no token",
       [&] {
         v1::LeavePartyResponse out;
         return stub_->LeaveParty(Bearer("").get(), {}, &out);
       },
       grpc::StatusCode::UNAUTHENTICATED, "missing credentials"},
      {"challenge: oversized invitee list",
       challenge_rpc(carol_token,
                     [&](auto& r) {
                       r.set_game("pescado");
                       for (int i = 0; i < 1000; ++i) r.add_invitee_account_ids(alice);
                     }),
       grpc::StatusCode::INVALID_ARGUMENT, "invitee_account_ids: at most 15"},
      {"challenge: malformed invitee",
       challenge_rpc(carol_token,
                     [&](auto& r) {
                       r.set_game("pico");
                       r.add_invitee_account_ids("alice; DROP");
                     }),
       grpc::StatusCode::INVALID_ARGUMENT, "invitee_account_ids: must be an account id"},
      {"challenge: invitee that is not a UUID",
       challenge_rpc(carol_token,
                     [&](auto& r) {
                       r.set_game("pico");
                       r.add_invitee_account_ids("x");
                     }),
       grpc::StatusCode::INVALID_ARGUMENT,
       "invitee_account_ids: must be an account id (a UUID), got \"x\""},
      {"challenge: oversized invitee id",
       challenge_rpc(carol_token,
                     [&](auto& r) {
                       r.set_game("pico");
                       r.add_invitee_account_ids(huge);
                     }),
       grpc::StatusCode::INVALID_ARGUMENT, "invitee_account_ids: must be an account id"},
      {"challenge: invitee listed twice",
       challenge_rpc(carol_token,
                     [&](auto& r) {
                       r.set_game("pescado");
                       r.add_invitee_account_ids(alice);
                       r.add_invitee_account_ids(alice);
                     }),
       grpc::StatusCode::INVALID_ARGUMENT, "is listed twice"},
      {"challenge: player_count with invitees",
       challenge_rpc(carol_token,
                     [&](auto& r) {
                       r.set_game("pico");
                       r.add_invitee_account_ids(alice);
                       r.set_player_count(2);
                     }),
       grpc::StatusCode::INVALID_ARGUMENT, "player_count: only with create_invite_code"},
      {"challenge: expired token",
       challenge_rpc(keys_.ExpiredPlayerToken(carol),
                     [&](auto& r) {
                       r.set_game("pico");
                       r.add_invitee_account_ids(alice);
                     }),
       grpc::StatusCode::UNAUTHENTICATED, "expired at"},
      {"accept: both id and code",
       [&] {
         v1::AcceptChallengeRequest r;
         r.set_challenge_id(challenge_id);
         r.set_invite_code("ABCDEFGH");
         v1::AcceptChallengeResponse out;
         return stub_->AcceptChallenge(Bearer(bob_token).get(), r, &out);
       },
       grpc::StatusCode::INVALID_ARGUMENT, "exactly one"},
      {"accept: malformed challenge id",
       [&] {
         v1::AcceptChallengeRequest r;
         r.set_challenge_id("c-1");
         v1::AcceptChallengeResponse out;
         return stub_->AcceptChallenge(Bearer(bob_token).get(), r, &out);
       },
       grpc::StatusCode::INVALID_ARGUMENT, "challenge_id"},
      {"accept: malformed invite code",
       [&] {
         v1::AcceptChallengeRequest r;
         r.set_invite_code("abc");
         v1::AcceptChallengeResponse out;
         return stub_->AcceptChallenge(Bearer(bob_token).get(), r, &out);
       },
       grpc::StatusCode::INVALID_ARGUMENT, "invite_code: must be the 8-character code"},
      {"decline: malformed challenge id",
       [&] {
         v1::DeclineChallengeRequest r;
         r.set_challenge_id(huge);
         v1::DeclineChallengeResponse out;
         return stub_->DeclineChallenge(Bearer(bob_token).get(), r, &out);
       },
       grpc::StatusCode::INVALID_ARGUMENT, "challenge_id"},
      {"decline: unknown challenge",
       [&] {
         v1::DeclineChallengeRequest r;
         r.set_challenge_id(unknown_uuid);
         v1::DeclineChallengeResponse out;
         return stub_->DeclineChallenge(Bearer(bob_token).get(), r, &out);
       },
       grpc::StatusCode::NOT_FOUND, "not found"},
      {"list challenges: forged token",
       [&] {
         v1::ListMyChallengesResponse out;
         return stub_->ListMyChallenges(Bearer(keys_.ForgedPlayerToken(alice)).get(), {}, &out);
       },
       grpc::StatusCode::UNAUTHENTICATED, "signature is invalid"},
      {"watch tickets: no token", watch(""), grpc::StatusCode::UNAUTHENTICATED,
       "missing credentials"},
      {"watch tickets: expired token", watch(keys_.ExpiredPlayerToken(alice)),
       grpc::StatusCode::UNAUTHENTICATED, "expired at"},
      {"watch tickets: forged token", watch(keys_.ForgedPlayerToken(alice)),
       grpc::StatusCode::UNAUTHENTICATED, "signature is invalid"},
  };
  cases.insert(cases.end(), more.begin(), more.end());
  parlor::testing::RunBadInputCases("matchmaking", cases, [this] { return Checksum(); });
}

}  // namespace
}  // namespace parlor::matchmaking
