// Bad input, sessions: every RPC of SessionsService and SessionsInternalService gets bad
// input of every kind through a real gRPC client against a real server on a real PostgreSQL, and
// must answer the precise code with an actionable message while changing no table of the schema.
#include <chrono>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "parlor/games/v1/picadice.pb.h"
#include "parlor/games/v1/pico.pb.h"
#include "parlor/sessions/v1/sessions.grpc.pb.h"
#include "services/common/testing/test_server.h"
#include "services/sessions/sessions_server.h"
#include "services/sessions/testing/sessions_test_server.h"
#include "tests/pg/pg_test_database.h"

namespace parlor::sessions {
namespace {

using grpc::StatusCode;
using ::parlor::testing::BadInputCase;
using ::parlor::testing::Bearer;

constexpr char kAlice[] = "00000000-0000-4000-8000-00000000a11c";
constexpr char kBob[] = "00000000-0000-4000-8000-0000000000b0";
constexpr char kCarol[] = "00000000-0000-4000-8000-0000000ca201";
constexpr char kUnknownGame[] = "00000000-0000-4000-8000-000000000000";

// The first answer of a server stream: OK if a message arrived, else the stream's status.
template <typename Reader, typename Message>
grpc::Status FirstOfStream(Reader& reader, grpc::ClientContext& context) {
  Message message;
  if (reader->Read(&message)) {
    context.TryCancel();
    reader->Finish();
    return grpc::Status::OK;
  }
  return reader->Finish();
}

class SessionsBadInputPgTest : public SessionsServerPgTest {
 protected:
  void SetUp() override {
    PgTest::SetUp();
    StartSessions(TestSessionsConfig("bad-input-page-secret"));
  }

  std::string Checksum() {
    absl::StatusOr<std::string> checksum = parlor::testing::SchemaChecksum(db_url(), "sessions");
    EXPECT_TRUE(checksum.ok()) << checksum.status();
    return checksum.value_or("");
  }

  // A valid request for a two-player game of `game` between Alice (seat 0) and Bob (seat 1).
  static v1::CreateGameRequest TwoPlayerGame(const std::string& game, const std::string& match) {
    v1::CreateGameRequest request;
    request.set_match_id(match);
    request.set_game(game);
    v1::SeatSpec* alice = request.add_seats();
    alice->set_account_id(kAlice);
    alice->set_display_name("Alice");
    v1::SeatSpec* bob = request.add_seats();
    bob->set_account_id(kBob);
    bob->set_display_name("Bob");
    request.mutable_time_control()->mutable_per_move()->mutable_limit()->set_seconds(86400);
    return request;
  }

  v1::Game Create(const v1::CreateGameRequest& request) {
    v1::CreateGameResponse response;
    grpc::Status status =
        internal_->CreateGame(Bearer(keys_.ServiceToken()).get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response.game();
  }

  v1::GetGameResponse Get(const std::string& account, const std::string& game_id) {
    v1::GetGameRequest request;
    request.set_game_id(game_id);
    v1::GetGameResponse response;
    grpc::Status status =
        sessions_->GetGame(Bearer(keys_.PlayerToken(account)).get(), request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response;
  }
};

TEST_F(SessionsBadInputPgTest, EveryRpcRefusesBadInputPreciselyAndChangesNothing) {
  // State the bad requests must not disturb: a picadice game at version 0, one in which the
  // first player has moved (idempotency key "first-move"), and one that has ended (Bob resigned).
  // Who starts is drawn by the game, so the mover and the waiter are read from the game.
  const v1::Game fresh = Create(TwoPlayerGame("picadice", "match-fresh"));
  const v1::Game moved = Create(TwoPlayerGame("picadice", "match-moved"));
  const v1::Game ended = Create(TwoPlayerGame("picadice", "match-ended"));
  ASSERT_EQ(fresh.acting_seats_size(), 1);
  const int mover_seat = fresh.acting_seats(0);
  const std::string mover = keys_.PlayerToken(fresh.seats(mover_seat).account_id());
  const std::string waiter = keys_.PlayerToken(fresh.seats(1 - mover_seat).account_id());
  const v1::GetGameResponse fresh_state =
      Get(fresh.seats(mover_seat).account_id(), fresh.game_id());
  ASSERT_GT(fresh_state.legal_actions_size(), 0);
  const google::protobuf::Any legal = fresh_state.legal_actions(0);
  ASSERT_EQ(moved.acting_seats_size(), 1);
  const std::string first_mover = moved.seats(moved.acting_seats(0)).account_id();
  {
    v1::SubmitActionRequest request;
    request.set_game_id(moved.game_id());
    request.set_expected_version(0);
    request.set_idempotency_key("first-move");
    *request.mutable_action() = Get(first_mover, moved.game_id()).legal_actions(0);
    v1::SubmitActionResponse response;
    grpc::Status status =
        sessions_->SubmitAction(Bearer(keys_.PlayerToken(first_mover)).get(), request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    v1::ResignRequest resign;
    resign.set_game_id(ended.game_id());
    v1::ResignResponse resigned;
    status = sessions_->Resign(Bearer(keys_.PlayerToken(kBob)).get(), resign, &resigned);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }

  const std::string alice = keys_.PlayerToken(kAlice);
  const std::string carol = keys_.PlayerToken(kCarol);
  const std::string service = keys_.ServiceToken();

  auto get_game = [this](std::string token, std::string game_id) {
    return [this, token, game_id] {
      v1::GetGameRequest request;
      request.set_game_id(game_id);
      v1::GetGameResponse response;
      return sessions_->GetGame(Bearer(token).get(), request, &response);
    };
  };
  auto list = [this](std::string token, std::function<void(v1::ListMyGamesRequest&)> fill) {
    return [this, token, fill] {
      v1::ListMyGamesRequest request;
      fill(request);
      v1::ListMyGamesResponse response;
      return sessions_->ListMyGames(Bearer(token).get(), request, &response);
    };
  };
  // A valid move for Alice in `fresh`, changed by `fill`.
  auto submit = [this, &fresh, &legal](std::string token,
                                       std::function<void(v1::SubmitActionRequest&)> fill) {
    return [this, token, fill, game_id = fresh.game_id(), legal] {
      v1::SubmitActionRequest request;
      request.set_game_id(game_id);
      request.set_expected_version(0);
      request.set_idempotency_key("bad-input-key");
      *request.mutable_action() = legal;
      fill(request);
      v1::SubmitActionResponse response;
      return sessions_->SubmitAction(Bearer(token).get(), request, &response);
    };
  };
  auto picadice_action = [](std::function<void(games::v1::PicadiceAction&)> fill) {
    games::v1::PicadiceAction action;
    fill(action);
    google::protobuf::Any any;
    any.PackFrom(action);
    return any;
  };
  auto resign = [this](std::string token, std::string game_id) {
    return [this, token, game_id] {
      v1::ResignRequest request;
      request.set_game_id(game_id);
      v1::ResignResponse response;
      return sessions_->Resign(Bearer(token).get(), request, &response);
    };
  };
  auto history = [this](std::string token, std::function<void(v1::GetHistoryRequest&)> fill) {
    return [this, token, fill] {
      v1::GetHistoryRequest request;
      fill(request);
      v1::GetHistoryResponse response;
      return sessions_->GetHistory(Bearer(token).get(), request, &response);
    };
  };
  auto watch_game = [this](std::string token, std::string game_id, int64_t after_version) {
    return [this, token, game_id, after_version] {
      v1::WatchGameRequest request;
      request.set_game_id(game_id);
      request.set_after_version(after_version);
      auto context = Bearer(token, absl::Seconds(5));
      auto reader = sessions_->WatchGame(context.get(), request);
      return FirstOfStream<decltype(reader), v1::WatchGameResponse>(reader, *context);
    };
  };
  // Table talk: each RPC with a game id and what `fill` sets.
  auto send_chat = [this](std::string token, std::string game_id, std::string text) {
    return [this, token, game_id, text] {
      v1::SendChatMessageRequest request;
      request.set_game_id(game_id);
      request.set_text(text);
      v1::SendChatMessageResponse response;
      return sessions_->SendChatMessage(Bearer(token).get(), request, &response);
    };
  };
  auto list_chat = [this](std::string token, std::string game_id, int page_size, int64_t before) {
    return [this, token, game_id, page_size, before] {
      v1::ListChatMessagesRequest request;
      request.set_game_id(game_id);
      request.set_page_size(page_size);
      request.set_before_message_id(before);
      v1::ListChatMessagesResponse response;
      return sessions_->ListChatMessages(Bearer(token).get(), request, &response);
    };
  };
  auto report_chat = [this](std::string token, std::string game_id, int64_t message_id,
                            std::string reason) {
    return [this, token, game_id, message_id, reason] {
      v1::ReportChatMessageRequest request;
      request.set_game_id(game_id);
      request.set_message_id(message_id);
      request.set_reason(reason);
      v1::ReportChatMessageResponse response;
      return sessions_->ReportChatMessage(Bearer(token).get(), request, &response);
    };
  };
  // The game-id-only RPCs of table talk, by name.
  auto on_game = [this](std::string rpc, std::string token, std::string game_id) {
    return [this, rpc, token, game_id]() -> grpc::Status {
      auto context = Bearer(token);
      if (rpc == "OfferRematch") {
        v1::OfferRematchRequest request;
        request.set_game_id(game_id);
        v1::OfferRematchResponse response;
        return sessions_->OfferRematch(context.get(), request, &response);
      }
      if (rpc == "AcceptRematch") {
        v1::AcceptRematchRequest request;
        request.set_game_id(game_id);
        v1::AcceptRematchResponse response;
        return sessions_->AcceptRematch(context.get(), request, &response);
      }
      if (rpc == "DeclineRematch") {
        v1::DeclineRematchRequest request;
        request.set_game_id(game_id);
        v1::DeclineRematchResponse response;
        return sessions_->DeclineRematch(context.get(), request, &response);
      }
      if (rpc == "GetRematch") {
        v1::GetRematchRequest request;
        request.set_game_id(game_id);
        v1::GetRematchResponse response;
        return sessions_->GetRematch(context.get(), request, &response);
      }
      v1::NudgeRequest request;
      request.set_game_id(game_id);
      v1::NudgeResponse response;
      return sessions_->Nudge(context.get(), request, &response);
    };
  };
  auto mark_seen = [this](std::string token, std::string game_id, int64_t version) {
    return [this, token, game_id, version] {
      v1::MarkSeenRequest request;
      request.set_game_id(game_id);
      request.set_version(version);
      v1::MarkSeenResponse response;
      return sessions_->MarkSeen(Bearer(token).get(), request, &response);
    };
  };
  auto watch_chat = [this](std::string token, std::string game_id, int64_t chat_after) {
    return [this, token, game_id, chat_after] {
      v1::WatchGameRequest request;
      request.set_game_id(game_id);
      request.set_after_version(-1);
      request.set_chat_after_message_id(chat_after);
      auto context = Bearer(token, absl::Seconds(5));
      auto reader = sessions_->WatchGame(context.get(), request);
      return FirstOfStream<decltype(reader), v1::WatchGameResponse>(reader, *context);
    };
  };
  auto watch_my_games = [this](std::string token) {
    return [this, token] {
      v1::WatchMyGamesRequest request;
      request.mutable_changed_after()->set_seconds(0);
      auto context = Bearer(token, absl::Seconds(5));
      auto reader = sessions_->WatchMyGames(context.get(), request);
      return FirstOfStream<decltype(reader), v1::WatchMyGamesResponse>(reader, *context);
    };
  };
  auto records = [this](std::string token, std::vector<std::string> ids) {
    return [this, token, ids] {
      v1::GetPlayerRecordsRequest request;
      for (const std::string& id : ids) request.add_account_ids(id);
      v1::GetPlayerRecordsResponse response;
      return sessions_->GetPlayerRecords(Bearer(token).get(), request, &response);
    };
  };
  auto batch_records = [this](std::string token, std::vector<std::string> ids) {
    return [this, token, ids] {
      v1::BatchGetPlayerRecordsRequest request;
      for (const std::string& id : ids) request.add_account_ids(id);
      v1::BatchGetPlayerRecordsResponse response;
      return internal_->BatchGetPlayerRecords(Bearer(token).get(), request, &response);
    };
  };
  auto vacation = [this](std::string token, int64_t seconds, int32_t nanos) {
    return [this, token, seconds, nanos] {
      v1::StartVacationRequest request;
      request.mutable_duration()->set_seconds(seconds);
      request.mutable_duration()->set_nanos(nanos);
      v1::StartVacationResponse response;
      return sessions_->StartVacation(Bearer(token).get(), request, &response);
    };
  };
  auto bot_game = [this](std::string token, std::function<void(v1::CreateBotGameRequest&)> fill) {
    return [this, token, fill] {
      v1::CreateBotGameRequest request;
      request.set_request_id("bot-game-1");
      request.set_game("picadice");
      request.set_num_players(2);
      request.set_bot("random");
      request.mutable_time_control()->mutable_per_move()->mutable_limit()->set_seconds(86400);
      fill(request);
      v1::CreateBotGameResponse response;
      return sessions_->CreateBotGame(Bearer(token).get(), request, &response);
    };
  };
  // A valid new game (match "match-new"), changed by `fill`.
  auto create = [this](std::string token, std::function<void(v1::CreateGameRequest&)> fill) {
    return [this, token, fill] {
      v1::CreateGameRequest request = TwoPlayerGame("picadice", "match-new");
      fill(request);
      v1::CreateGameResponse response;
      return internal_->CreateGame(Bearer(token).get(), request, &response);
    };
  };
  auto raw = [this](std::string method, std::string bytes, std::string token) {
    return [this, method, bytes, token] {
      return parlor::testing::RawUnaryCall(server_->channel(), method, bytes, token);
    };
  };
  const std::string huge(100 * 1024, 'x');
  const std::string kSessions = "/parlor.sessions.v1.SessionsService/";

  const std::vector<BadInputCase> cases = {
      // Tokens: missing, malformed, expired, forged, the wrong kind.
      {"GetGame: no token", get_game("", fresh.game_id()), StatusCode::UNAUTHENTICATED,
       "missing credentials: send `authorization: Bearer <access token>`"},
      {"GetGame: not a bearer header",
       [&] {
         grpc::ClientContext context;
         context.AddMetadata("authorization", "Basic YWxpY2U6cHc=");
         v1::GetGameRequest request;
         request.set_game_id(fresh.game_id());
         v1::GetGameResponse response;
         return sessions_->GetGame(&context, request, &response);
       },
       StatusCode::UNAUTHENTICATED, "must have the form `Bearer <token>`"},
      {"GetGame: garbage token", get_game("not-a-jwt", fresh.game_id()),
       StatusCode::UNAUTHENTICATED, "access token is malformed"},
      {"GetGame: oversized token", get_game(std::string(5000, 'a'), fresh.game_id()),
       StatusCode::UNAUTHENTICATED, "access token is too long"},
      {"GetGame: expired token", get_game(keys_.ExpiredPlayerToken(kAlice), fresh.game_id()),
       StatusCode::UNAUTHENTICATED, "expired at"},
      {"GetGame: forged token", get_game(keys_.ForgedPlayerToken(kAlice), fresh.game_id()),
       StatusCode::UNAUTHENTICATED, "signature is invalid"},
      {"GetGame: service credential instead of a player token", get_game(service, fresh.game_id()),
       StatusCode::UNAUTHENTICATED, "signature is invalid"},
      {"ListMyGames: forged token", list(keys_.ForgedPlayerToken(kAlice), [](auto&) {}),
       StatusCode::UNAUTHENTICATED, "signature is invalid"},
      {"SubmitAction: expired token", submit(keys_.ExpiredPlayerToken(kBob), [](auto&) {}),
       StatusCode::UNAUTHENTICATED, "expired at"},
      {"SubmitAction: forged token of the acting player",
       submit(keys_.ForgedPlayerToken(kAlice), [](auto&) {}), StatusCode::UNAUTHENTICATED,
       "signature is invalid"},
      {"Resign: no token", resign("", fresh.game_id()), StatusCode::UNAUTHENTICATED,
       "missing credentials"},
      {"GetHistory: expired token",
       history(keys_.ExpiredPlayerToken(kAlice),
               [&](auto& r) { r.set_game_id(fresh.game_id()); }),
       StatusCode::UNAUTHENTICATED, "expired at"},
      {"WatchGame: no token", watch_game("", fresh.game_id(), 0), StatusCode::UNAUTHENTICATED,
       "missing credentials"},
      {"WatchGame: forged token", watch_game(keys_.ForgedPlayerToken(kAlice), fresh.game_id(), 0),
       StatusCode::UNAUTHENTICATED, "signature is invalid"},
      {"WatchMyGames: expired token", watch_my_games(keys_.ExpiredPlayerToken(kAlice)),
       StatusCode::UNAUTHENTICATED, "expired at"},
      {"StartVacation: no token", vacation("", 86400, 0), StatusCode::UNAUTHENTICATED,
       "missing credentials"},
      {"EndVacation: forged token",
       [&] {
         v1::EndVacationResponse response;
         return sessions_->EndVacation(Bearer(keys_.ForgedPlayerToken(kAlice)).get(), {},
                                       &response);
       },
       StatusCode::UNAUTHENTICATED, "signature is invalid"},
      {"CreateBotGame: no token", bot_game("", [](auto&) {}), StatusCode::UNAUTHENTICATED,
       "missing credentials"},
      {"CreateGame: player token on an internal RPC", create(alice, [](auto&) {}),
       StatusCode::PERMISSION_DENIED, "a player's access token is never accepted"},
      {"CreateGame: no credential", create("", [](auto&) {}), StatusCode::UNAUTHENTICATED,
       "needs `authorization: Bearer <service credential>`"},
      {"CreateGame: expired service credential", create(keys_.ExpiredServiceToken(), [](auto&) {}),
       StatusCode::UNAUTHENTICATED, "expired at"},
      {"CreateGame: forged service credential", create(keys_.ForgedServiceToken(), [](auto&) {}),
       StatusCode::UNAUTHENTICATED, "signature is invalid"},

      // Bytes that are not the request message at all.
      // gRPC itself refuses bytes that do not parse, before any service code runs, with
      // UNIMPLEMENTED and no message (INVALID_ARGUMENT would be right; a known gap in the common
      // server plumbing, left to its owner). Asserted as it is so that a fix shows up here.
      {"GetGame: request bytes that do not parse (gRPC's own answer)",
       raw(kSessions + "GetGame", "\xff\xff\xff", alice), StatusCode::UNIMPLEMENTED, ""},
      // A field sent with the wrong wire type is an unknown field to protobuf: game_id is unset.
      {"SubmitAction: wrong wire type for game_id",
       raw(kSessions + "SubmitAction", "\x0d\x01\x02\x03\x04", alice),
       StatusCode::INVALID_ARGUMENT, "game_id is required"},

      // GetGame.
      {"GetGame: missing game_id", get_game(alice, ""), StatusCode::INVALID_ARGUMENT,
       "game_id is required"},
      {"GetGame: garbage game_id", get_game(alice, "'; DROP TABLE sessions.games; --"),
       StatusCode::INVALID_ARGUMENT, "game_id must be a lower-case UUID"},
      {"GetGame: upper-case game_id", get_game(alice, absl::AsciiStrToUpper(fresh.game_id())),
       StatusCode::INVALID_ARGUMENT, "game_id must be a lower-case UUID"},
      {"GetGame: oversized game_id", get_game(alice, huge), StatusCode::INVALID_ARGUMENT,
       "game_id must be a lower-case UUID"},
      {"GetGame: unknown game", get_game(alice, kUnknownGame), StatusCode::NOT_FOUND,
       "no game with id"},
      {"GetGame: another players' private game", get_game(carol, fresh.game_id()),
       StatusCode::PERMISSION_DENIED,
       absl::StrCat("game ", fresh.game_id(), " is private: only its seated players may see it")},

      // ListMyGames.
      {"ListMyGames: unknown filter enum",
       list(alice, [](auto& r) { r.set_filter(static_cast<v1::GameFilter>(42)); }),
       StatusCode::INVALID_ARGUMENT, "filter is not a known GameFilter value"},
      {"ListMyGames: unknown order enum",
       list(alice, [](auto& r) { r.set_order(static_cast<v1::GameOrder>(7)); }),
       StatusCode::INVALID_ARGUMENT, "order is not a known GameOrder value"},
      {"ListMyGames: my-turn-first with a garbage page_token",
       list(alice,
            [](auto& r) {
              r.set_order(v1::GAME_ORDER_MY_TURN_FIRST);
              r.set_page_token("abc");
            }),
       StatusCode::INVALID_ARGUMENT, "page_token is malformed"},
      {"ListMyGames: negative page_size", list(alice, [](auto& r) { r.set_page_size(-1); }),
       StatusCode::INVALID_ARGUMENT, "page_size must be 0 to 100"},
      {"ListMyGames: oversized page_size", list(alice, [](auto& r) { r.set_page_size(101); }),
       StatusCode::INVALID_ARGUMENT, "page_size must be 0 to 100"},
      {"ListMyGames: garbage page_token", list(alice, [](auto& r) { r.set_page_token("abc"); }),
       StatusCode::INVALID_ARGUMENT, "page_token is malformed; pass the next_page_token of a previous response"},
      {"ListMyGames: oversized page_token", list(alice, [&](auto& r) { r.set_page_token(huge); }),
       StatusCode::INVALID_ARGUMENT, "page_token is not one this server issued"},

      // SubmitAction.
      {"SubmitAction: missing game_id", submit(mover, [](auto& r) { r.clear_game_id(); }),
       StatusCode::INVALID_ARGUMENT, "game_id is required"},
      {"SubmitAction: garbage game_id", submit(mover, [](auto& r) { r.set_game_id("g1"); }),
       StatusCode::INVALID_ARGUMENT, "game_id must be a lower-case UUID"},
      {"SubmitAction: missing idempotency_key",
       submit(mover, [](auto& r) { r.clear_idempotency_key(); }), StatusCode::INVALID_ARGUMENT,
       "idempotency_key is required"},
      {"SubmitAction: oversized idempotency_key",
       submit(mover, [](auto& r) { r.set_idempotency_key(std::string(129, 'k')); }),
       StatusCode::INVALID_ARGUMENT, "idempotency_key is too long (129 bytes; at most 128)"},
      {"SubmitAction: control characters in idempotency_key",
       submit(mover, [](auto& r) { r.set_idempotency_key("key\n1"); }),
       StatusCode::INVALID_ARGUMENT, "idempotency_key contains control characters"},
      {"SubmitAction: negative expected_version",
       submit(mover, [](auto& r) { r.set_expected_version(-1); }), StatusCode::INVALID_ARGUMENT,
       "expected_version must be >= 0"},
      {"SubmitAction: missing action", submit(mover, [](auto& r) { r.clear_action(); }),
       StatusCode::INVALID_ARGUMENT, "action is required"},
      {"SubmitAction: oversized action",
       submit(mover, [&](auto& r) { r.mutable_action()->set_value(std::string(20000, 'a')); }),
       StatusCode::INVALID_ARGUMENT, "action is too large (at most 16384 bytes)"},
      {"SubmitAction: the wrong game's action",
       submit(mover,
              [](auto& r) {
                games::v1::PicoAction pico;
                pico.set_card(3);
                r.mutable_action()->PackFrom(pico);
              }),
       StatusCode::INVALID_ARGUMENT, "action: picadice expects a parlor.games.v1.PicadiceAction"},
      {"SubmitAction: unknown action type",
       submit(mover,
              [](auto& r) { r.mutable_action()->set_type_url("type.googleapis.com/no.Such"); }),
       StatusCode::INVALID_ARGUMENT, "action: picadice expects a parlor.games.v1.PicadiceAction"},
      {"SubmitAction: action bytes that do not parse",
       submit(mover, [](auto& r) { r.mutable_action()->set_value("\xff\xff\xff"); }),
       StatusCode::INVALID_ARGUMENT, "the bytes are not a valid parlor.games.v1.PicadiceAction"},
      {"SubmitAction: empty action (no oneof case)",
       submit(mover, [&](auto& r) { *r.mutable_action() = picadice_action([](auto&) {}); }),
       StatusCode::INVALID_ARGUMENT, "action"},
      {"SubmitAction: unknown colour enum",
       submit(mover,
              [&](auto& r) {
                *r.mutable_action() = picadice_action([](auto& a) {
                  a.mutable_steal_from_nest()->set_colour(
                      static_cast<games::v1::PicadiceColour>(42));
                  a.mutable_steal_from_nest()->set_start_column(1);
                });
              }),
       StatusCode::INVALID_ARGUMENT, "colour"},
      {"SubmitAction: an action the rules forbid now",
       submit(mover,
              [&](auto& r) {
                *r.mutable_action() =
                    picadice_action([](auto& a) { a.mutable_discard_all(); });
              }),
       StatusCode::FAILED_PRECONDITION, ""},
      {"SubmitAction: stale expected_version",
       submit(mover, [](auto& r) { r.set_expected_version(7); }), StatusCode::ABORTED,
       "expected_version 7 is stale: the game is at version 0"},
      {"SubmitAction: out of turn", submit(waiter, [](auto&) {}), StatusCode::PERMISSION_DENIED,
       absl::StrCat("it is not your turn (you are seat ", 1 - mover_seat, "; waiting for seat ",
                    mover_seat, ")")},
      {"SubmitAction: another players' game", submit(carol, [](auto&) {}), StatusCode::NOT_FOUND,
       absl::StrCat("no game with id ", fresh.game_id())},
      {"SubmitAction: unknown game",
       submit(mover, [](auto& r) { r.set_game_id(kUnknownGame); }), StatusCode::NOT_FOUND,
       "no game with id"},
      {"SubmitAction: a game that has ended",
       submit(mover,
              [&](auto& r) {
                r.set_game_id(ended.game_id());
                r.set_expected_version(1);  // the resignation
              }),
       StatusCode::FAILED_PRECONDITION, "the game has ended"},
      {"SubmitAction: idempotency_key reused for a different move",
       submit(keys_.PlayerToken(first_mover),
              [&](auto& r) {
                r.set_game_id(moved.game_id());
                r.set_idempotency_key("first-move");
                r.set_expected_version(1);
              }),
       StatusCode::INVALID_ARGUMENT, "idempotency_key was already used for a different request"},

      // Resign.
      {"Resign: missing game_id", resign(alice, ""), StatusCode::INVALID_ARGUMENT,
       "game_id is required"},
      {"Resign: another players' game", resign(carol, fresh.game_id()), StatusCode::NOT_FOUND,
       "no game with id"},
      {"Resign: a game that has ended", resign(alice, ended.game_id()),
       StatusCode::FAILED_PRECONDITION, "the game has ended"},

      // GetHistory.
      {"GetHistory: garbage game_id", history(alice, [](auto& r) { r.set_game_id("x"); }),
       StatusCode::INVALID_ARGUMENT, "game_id must be a lower-case UUID"},
      {"GetHistory: negative from_version",
       history(alice,
               [&](auto& r) {
                 r.set_game_id(fresh.game_id());
                 r.set_from_version(-1);
               }),
       StatusCode::INVALID_ARGUMENT, "from_version must be >= 0"},
      {"GetHistory: oversized page_size",
       history(alice,
               [&](auto& r) {
                 r.set_game_id(fresh.game_id());
                 r.set_page_size(201);
               }),
       StatusCode::INVALID_ARGUMENT, "page_size must be 0 to 200"},
      {"GetHistory: another players' private game",
       history(carol, [&](auto& r) { r.set_game_id(moved.game_id()); }),
       StatusCode::PERMISSION_DENIED, "is private: only its seated players may see it"},

      // WatchGame / WatchMyGames.
      {"WatchGame: garbage game_id", watch_game(alice, "nope", 0), StatusCode::INVALID_ARGUMENT,
       "game_id must be a lower-case UUID"},
      {"WatchGame: after_version below -1", watch_game(alice, fresh.game_id(), -2),
       StatusCode::INVALID_ARGUMENT, "after_version must be the last version the client has"},
      {"WatchGame: after_version the most negative int64",
       watch_game(alice, fresh.game_id(), std::numeric_limits<int64_t>::min()),
       StatusCode::INVALID_ARGUMENT, "after_version must be the last version the client has"},
      // Once answered "from_version must be >= 0" (after_version + 1 overflowed, and named a
      // field WatchGame does not have).
      {"WatchGame: after_version the largest int64",
       watch_game(alice, fresh.game_id(), std::numeric_limits<int64_t>::max()),
       StatusCode::OUT_OF_RANGE,
       "after_version 9223372036854775807 is beyond the game's current version 0"},
      {"WatchGame: after_version one past the current version", watch_game(alice, fresh.game_id(), 1),
       StatusCode::OUT_OF_RANGE, "after_version 1 is beyond the game's current version 0"},
      {"WatchGame: another players' private game", watch_game(carol, moved.game_id(), 0),
       StatusCode::PERMISSION_DENIED, "is private: only its seated players may see it"},
      {"WatchGame: unknown game", watch_game(alice, kUnknownGame, 0), StatusCode::NOT_FOUND,
       "no game with id"},

      // Chat.
      {"SendChatMessage: missing game_id", send_chat(alice, "", "hi"),
       StatusCode::INVALID_ARGUMENT, "game_id is required"},
      {"SendChatMessage: empty text", send_chat(alice, fresh.game_id(), ""),
       StatusCode::INVALID_ARGUMENT, "text must be 1 to 500 characters (got 0)"},
      {"SendChatMessage: 501 characters", send_chat(alice, fresh.game_id(), std::string(501, 'a')),
       StatusCode::INVALID_ARGUMENT, "text must be 1 to 500 characters (got 501)"},
      {"SendChatMessage: oversized text", send_chat(alice, fresh.game_id(), huge),
       StatusCode::INVALID_ARGUMENT, "text must be 1 to 500 characters (got 102400)"},
      {"SendChatMessage: a control character", send_chat(alice, fresh.game_id(), "hi\x07"),
       StatusCode::INVALID_ARGUMENT,
       "text must be UTF-8 text without control characters (newlines are allowed)"},
      // proto3 refuses a string field that is not UTF-8 while parsing, before the service runs:
      // gRPC's own UNIMPLEMENTED without a message, as for any request that does not parse.
      {"SendChatMessage: bytes that are not UTF-8", send_chat(alice, fresh.game_id(), "hi\xff"),
       StatusCode::UNIMPLEMENTED, ""},
      {"SendChatMessage: unknown game", send_chat(alice, kUnknownGame, "hi"),
       StatusCode::NOT_FOUND, "no game with id"},
      {"SendChatMessage: another players' private game", send_chat(carol, fresh.game_id(), "hi"),
       StatusCode::PERMISSION_DENIED, "is private: only its seated players may see it"},
      {"ListChatMessages: garbage game_id", list_chat(alice, "chat", 0, 0),
       StatusCode::INVALID_ARGUMENT, "game_id must be a lower-case UUID"},
      {"ListChatMessages: oversized page_size", list_chat(alice, fresh.game_id(), 101, 0),
       StatusCode::INVALID_ARGUMENT, "page_size must be 0 to 100"},
      {"ListChatMessages: negative page_size", list_chat(alice, fresh.game_id(), -1, 0),
       StatusCode::INVALID_ARGUMENT, "page_size must be 0 to 100"},
      {"ListChatMessages: negative before_message_id", list_chat(alice, fresh.game_id(), 0, -5),
       StatusCode::INVALID_ARGUMENT, "before_message_id must be 0"},
      {"ListChatMessages: another players' private game", list_chat(carol, fresh.game_id(), 0, 0),
       StatusCode::PERMISSION_DENIED, "is private: only its seated players may see it"},
      {"ReportChatMessage: no message_id", report_chat(alice, fresh.game_id(), 0, ""),
       StatusCode::INVALID_ARGUMENT, "message_id must be the id of a message of the game (> 0)"},
      {"ReportChatMessage: oversized reason",
       report_chat(alice, fresh.game_id(), 1, std::string(501, 'r')),
       StatusCode::INVALID_ARGUMENT, "reason must be 0 to 500 characters (got 501)"},
      {"ReportChatMessage: no such message", report_chat(alice, fresh.game_id(), 999999, "rude"),
       StatusCode::NOT_FOUND, "has no chat message with id 999999"},
      {"ReportChatMessage: another players' private game",
       report_chat(carol, fresh.game_id(), 1, ""), StatusCode::PERMISSION_DENIED,
       "is private: only its seated players may see it"},
      {"WatchGame: negative chat_after_message_id", watch_chat(alice, fresh.game_id(), -1),
       StatusCode::INVALID_ARGUMENT, "chat_after_message_id must be the id of the last chat"},
      // Rematch.
      {"OfferRematch: garbage game_id", on_game("OfferRematch", alice, "r"),
       StatusCode::INVALID_ARGUMENT, "game_id must be a lower-case UUID"},
      {"OfferRematch: a game still running", on_game("OfferRematch", alice, fresh.game_id()),
       StatusCode::FAILED_PRECONDITION, "has not ended: a rematch is offered once it has"},
      {"OfferRematch: another players' game", on_game("OfferRematch", carol, ended.game_id()),
       StatusCode::NOT_FOUND, "no game with id"},
      {"OfferRematch: unknown game", on_game("OfferRematch", alice, kUnknownGame),
       StatusCode::NOT_FOUND, "no game with id"},
      {"AcceptRematch: nothing offered", on_game("AcceptRematch", alice, ended.game_id()),
       StatusCode::FAILED_PRECONDITION, "is pending (none was made, it was declined, or it expired)"},
      {"AcceptRematch: missing game_id", on_game("AcceptRematch", alice, ""),
       StatusCode::INVALID_ARGUMENT, "game_id is required"},
      {"DeclineRematch: nothing offered", on_game("DeclineRematch", alice, ended.game_id()),
       StatusCode::FAILED_PRECONDITION, "is pending (none was made, it was declined, or it expired)"},
      {"GetRematch: another players' game", on_game("GetRematch", carol, ended.game_id()),
       StatusCode::NOT_FOUND, "no game with id"},
      {"GetRematch: garbage game_id", on_game("GetRematch", alice, huge),
       StatusCode::INVALID_ARGUMENT, "game_id must be a lower-case UUID"},
      // Nudge.
      {"Nudge: a game that has ended", on_game("Nudge", alice, ended.game_id()),
       StatusCode::FAILED_PRECONDITION, "has ended: there is nobody to nudge"},
      {"Nudge: the caller must act", on_game("Nudge", mover, fresh.game_id()),
       StatusCode::FAILED_PRECONDITION, "it is your turn in game"},
      {"Nudge: another players' game", on_game("Nudge", carol, fresh.game_id()),
       StatusCode::NOT_FOUND, "no game with id"},
      {"Nudge: garbage game_id", on_game("Nudge", alice, "n"), StatusCode::INVALID_ARGUMENT,
       "game_id must be a lower-case UUID"},
      // MarkSeen.
      {"MarkSeen: negative version", mark_seen(alice, fresh.game_id(), -1),
       StatusCode::INVALID_ARGUMENT, "version must be >= 0"},
      {"MarkSeen: beyond the game's version", mark_seen(alice, fresh.game_id(), 5),
       StatusCode::OUT_OF_RANGE, "version 5 is beyond the game's version 0"},
      {"MarkSeen: another players' game", mark_seen(carol, fresh.game_id(), 0),
       StatusCode::NOT_FOUND, "no game with id"},
      {"MarkSeen: garbage game_id", mark_seen(alice, "m", 0), StatusCode::INVALID_ARGUMENT,
       "game_id must be a lower-case UUID"},
      // Vacations.
      {"StartVacation: no duration", vacation(alice, 0, 0), StatusCode::INVALID_ARGUMENT,
       "duration must be whole seconds from 1 hour to 30 days"},
      {"StartVacation: too long", vacation(alice, 31 * 86400, 0), StatusCode::INVALID_ARGUMENT,
       "duration must be whole seconds from 1 hour to 30 days"},
      {"StartVacation: fractional seconds", vacation(alice, 86400, 5), StatusCode::INVALID_ARGUMENT,
       "duration must be whole seconds from 1 hour to 30 days"},
      {"StartVacation: negative", vacation(alice, -86400, 0), StatusCode::INVALID_ARGUMENT,
       "duration must be whole seconds from 1 hour to 30 days"},
      {"EndVacation: none running",
       [&] {
         v1::EndVacationResponse response;
         return sessions_->EndVacation(Bearer(alice).get(), {}, &response);
       },
       StatusCode::FAILED_PRECONDITION, "no vacation is running"},

      // GetPlayerRecords.
      {"GetPlayerRecords: no token", records("", {kAlice}), StatusCode::UNAUTHENTICATED, ""},
      {"GetPlayerRecords: no account ids", records(alice, {}), StatusCode::INVALID_ARGUMENT,
       "account_ids: between 1 and 100 account ids (got 0)"},
      {"GetPlayerRecords: more than 100",
       records(alice, std::vector<std::string>(101, kAlice)), StatusCode::INVALID_ARGUMENT,
       "account_ids: between 1 and 100 account ids (got 101)"},
      {"GetPlayerRecords: not a UUID", records(alice, {kAlice, "alice"}),
       StatusCode::INVALID_ARGUMENT,
       "account_ids[1]: an account id is a lower-case UUID, got \"alice\""},
      {"GetPlayerRecords: upper-case UUID",
       records(alice, {"00000000-0000-4000-8000-00000000A11C"}), StatusCode::INVALID_ARGUMENT,
       "account_ids[0]: an account id is a lower-case UUID"},
      // BatchGetPlayerRecords (internal).
      {"BatchGetPlayerRecords: player token on an internal RPC", batch_records(alice, {kAlice}),
       StatusCode::PERMISSION_DENIED, "a player's access token is never accepted"},
      {"BatchGetPlayerRecords: no account ids", batch_records(keys_.ServiceToken(), {}),
       StatusCode::INVALID_ARGUMENT, "account_ids: between 1 and 100 account ids (got 0)"},
      {"BatchGetPlayerRecords: not a UUID", batch_records(keys_.ServiceToken(), {"alice"}),
       StatusCode::INVALID_ARGUMENT,
       "account_ids[0]: an account id is a lower-case UUID, got \"alice\""},

      // CreateBotGame.
      {"CreateBotGame: missing request_id", bot_game(alice, [](auto& r) { r.clear_request_id(); }),
       StatusCode::INVALID_ARGUMENT, "request_id is required"},
      {"CreateBotGame: unknown game", bot_game(alice, [](auto& r) { r.set_game("chess"); }),
       StatusCode::INVALID_ARGUMENT, "chess"},
      {"CreateBotGame: oversized game name", bot_game(alice, [&](auto& r) { r.set_game(huge); }),
       StatusCode::INVALID_ARGUMENT, "game is too long (102400 bytes; at most 64)"},
      {"CreateBotGame: too many players", bot_game(alice, [](auto& r) { r.set_num_players(9); }),
       StatusCode::INVALID_ARGUMENT, "num_players must be"},
      {"CreateBotGame: seat out of range", bot_game(alice, [](auto& r) { r.set_my_seat(5); }),
       StatusCode::INVALID_ARGUMENT, "my_seat must be 0 to 1"},
      {"CreateBotGame: unknown bot", bot_game(alice, [](auto& r) { r.set_bot("skynet"); }),
       StatusCode::INVALID_ARGUMENT, "bot: "},
      {"CreateBotGame: oversized display_name",
       bot_game(alice, [](auto& r) { r.set_display_name(std::string(65, 'n')); }),
       StatusCode::INVALID_ARGUMENT, "display_name is too long (65 bytes; at most 64)"},
      {"CreateBotGame: unknown option",
       bot_game(alice, [](auto& r) { (*r.mutable_options())["no_such_option"] = "1"; }),
       StatusCode::INVALID_ARGUMENT, "no_such_option"},

      // CreateGame (internal).
      {"CreateGame: missing match_id", create(service, [](auto& r) { r.clear_match_id(); }),
       StatusCode::INVALID_ARGUMENT, "match_id is required"},
      {"CreateGame: oversized match_id",
       create(service, [](auto& r) { r.set_match_id(std::string(129, 'm')); }),
       StatusCode::INVALID_ARGUMENT, "match_id is too long (129 bytes; at most 128)"},
      {"CreateGame: oversized game name", create(service, [&](auto& r) { r.set_game(huge); }),
       StatusCode::INVALID_ARGUMENT, "game is too long (102400 bytes; at most 64)"},
      {"CreateGame: oversized option value",
       create(service,
              [&](auto& r) { (*r.mutable_options())["turn_limit_per_seat"] = huge; }),
       StatusCode::INVALID_ARGUMENT,
       "options: the value of turn_limit_per_seat is too long (102400 bytes; at most 64)"},
      {"CreateGame: oversized option name",
       create(service, [&](auto& r) { (*r.mutable_options())[huge] = "1"; }),
       StatusCode::INVALID_ARGUMENT, "options: an option name is too long (102400 bytes"},
      {"CreateGame: missing game", create(service, [](auto& r) { r.clear_game(); }),
       StatusCode::INVALID_ARGUMENT, "game is required"},
      {"CreateGame: unknown game", create(service, [](auto& r) { r.set_game("chess"); }),
       StatusCode::INVALID_ARGUMENT, "chess"},
      {"CreateGame: no seats", create(service, [](auto& r) { r.clear_seats(); }),
       StatusCode::INVALID_ARGUMENT, "seats: between 1 and 32 seats are needed (got 0)"},
      {"CreateGame: oversized seats",
       create(service,
              [](auto& r) {
                for (int i = 0; i < 40; ++i) *r.add_seats() = r.seats(0);
              }),
       StatusCode::INVALID_ARGUMENT, "seats: between 1 and 32 seats are needed (got 42)"},
      {"CreateGame: too many players for the game",
       create(service,
              [](auto& r) {
                v1::SeatSpec* extra = r.add_seats();
                extra->set_bot("random");
                extra = r.add_seats();
                extra->set_bot("random");
                extra = r.add_seats();
                extra->set_bot("random");
              }),
       StatusCode::INVALID_ARGUMENT, "5"},
      {"CreateGame: no time control", create(service, [](auto& r) { r.clear_time_control(); }),
       StatusCode::INVALID_ARGUMENT, "time_control is required"},
      {"CreateGame: empty time control",
       create(service, [](auto& r) { r.mutable_time_control()->Clear(); }),
       StatusCode::INVALID_ARGUMENT, "time_control must set per_move or time_bank"},
      {"CreateGame: per-move limit too short",
       create(service,
              [](auto& r) {
                r.mutable_time_control()->mutable_per_move()->mutable_limit()->set_seconds(10);
              }),
       StatusCode::INVALID_ARGUMENT, "time_control.per_move.limit must be whole seconds"},
      {"CreateGame: vacation days out of range",
       create(service, [](auto& r) { r.mutable_time_control()->set_vacation_days(31); }),
       StatusCode::INVALID_ARGUMENT, "time_control.vacation_days must be 0 to 30"},
      {"CreateGame: seat with account and bot",
       create(service, [](auto& r) { r.mutable_seats(1)->set_bot("random"); }),
       StatusCode::INVALID_ARGUMENT, "seats[1]: set exactly one of account_id and bot"},
      {"CreateGame: seat with neither",
       create(service, [](auto& r) { r.mutable_seats(1)->clear_account_id(); }),
       StatusCode::INVALID_ARGUMENT, "seats[1]: set exactly one of account_id and bot"},
      {"CreateGame: garbage account id",
       create(service, [](auto& r) { r.mutable_seats(0)->set_account_id("alice"); }),
       StatusCode::INVALID_ARGUMENT, "seats[0].account_id must be a lower-case UUID"},
      {"CreateGame: the same account twice",
       create(service, [](auto& r) { r.mutable_seats(1)->set_account_id(kAlice); }),
       StatusCode::INVALID_ARGUMENT, "seats[1].account_id is already seated at seat 0"},
      {"CreateGame: missing display name",
       create(service, [](auto& r) { r.mutable_seats(0)->clear_display_name(); }),
       StatusCode::INVALID_ARGUMENT, "seats[0].display_name is required"},
      {"CreateGame: oversized display name",
       create(service, [&](auto& r) { r.mutable_seats(0)->set_display_name(huge); }),
       StatusCode::INVALID_ARGUMENT, "seats[0].display_name is too long"},
      {"CreateGame: ranked game with a computer seat",
       create(service,
              [](auto& r) {
                r.set_ranked(true);
                r.mutable_seats(1)->clear_account_id();
                r.mutable_seats(1)->set_bot("random");
              }),
       StatusCode::INVALID_ARGUMENT, "seats[1]: ranked games cannot have computer seats"},
      {"CreateGame: unknown bot",
       create(service,
              [](auto& r) {
                r.mutable_seats(1)->clear_account_id();
                r.mutable_seats(1)->set_bot("skynet");
              }),
       StatusCode::INVALID_ARGUMENT, "seats[1].bot: "},
      {"CreateGame: team out of range",
       create(service, [](auto& r) { r.mutable_seats(0)->set_team(99); }),
       StatusCode::INVALID_ARGUMENT, "seats[0].team must be 0 to 31"},
      {"CreateGame: unknown option",
       create(service, [](auto& r) { (*r.mutable_options())["no_such_option"] = "1"; }),
       StatusCode::INVALID_ARGUMENT, "no_such_option"},
      {"CreateGame: oversized options map",
       create(service,
              [](auto& r) {
                for (int i = 0; i < 1000; ++i) (*r.mutable_options())[absl::StrCat("o", i)] = "1";
              }),
       StatusCode::INVALID_ARGUMENT, "o"},
      {"CreateGame: match_id reused with other settings",
       create(service,
              [](auto& r) {
                r.set_match_id("match-fresh");
                r.set_game("pico");
              }),
       StatusCode::ALREADY_EXISTS, "match_id 'match-fresh' was already used"},
  };
  parlor::testing::RunBadInputCases("sessions", cases, [this] { return Checksum(); });

  // And the state they were sent against is intact.
  EXPECT_EQ(Get(kAlice, fresh.game_id()).game().version(), 0);
  EXPECT_EQ(Get(kAlice, moved.game_id()).game().version(), 1);
  EXPECT_EQ(Get(kAlice, ended.game_id()).game().status(), v1::GAME_STATUS_FINISHED);
}

}  // namespace
}  // namespace parlor::sessions
