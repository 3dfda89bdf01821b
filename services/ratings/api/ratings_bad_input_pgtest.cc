// Bad input over every ratings RPC, through the real transport on a real PostgreSQL: each case
// must get its precise gRPC code and message, and leave every table of schema `ratings` (ratings,
// history, processed results, seasons, board snapshots and their tables) exactly as it was.
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "pqxx/pqxx"
#include "services/common/core/crypto.h"
#include "services/common/core/page_token.h"
#include "services/common/grpc_status.h"
#include "services/ratings/api/ratings_server_pgtest_fixture.h"

namespace parlor::ratings {
namespace {

// One bad request and what must come back.
struct BadInputCase {
  std::string name;
  std::function<grpc::Status()> call;
  grpc::StatusCode code;
  std::string message;
  // The whole message is checked unless it holds a value the test cannot know exactly (the
  // transport's own wording); then `message` must appear in it.
  bool whole_message = true;
};

class RatingsBadInputPgTest : public RatingsServerPgTest {};

TEST_F(RatingsBadInputPgTest, EveryRpcRefusesBadInputPreciselyAndChangesNothing) {
  using grpc::StatusCode;
  const std::string service = ServiceToken();
  // Existing state the bad requests must not disturb: two pico games of player 1 (so their
  // history has a second page), a four-player pescado game, and a snapshot of every board.
  for (const v1::ReportResultRequest& game :
       {Game("seed", "pico", {1, 2}, {1, 2}), Game("seed-2", "pico", {1, 3}, {2, 1}),
        Game("seed-3", "pescado", {1, 2, 3, 4}, {1, 2, 3, 4})}) {
    v1::ReportResultResponse out;
    grpc::Status s = Report(game, &out, service);
    ASSERT_TRUE(s.ok()) << s.error_message();
  }
  // And a casual game (voiding it is refused: it changed no rating).
  v1::ReportResultRequest casual = Game("seed-casual", "pico", {1, 2}, {1, 2});
  casual.set_ranked(false);
  {
    v1::ReportResultResponse out;
    grpc::Status s = Report(casual, &out, service);
    ASSERT_TRUE(s.ok()) << s.error_message();
  }
  ASSERT_TRUE(domain_->RefreshBoards().ok());
  const std::string before = Digest();
  ASSERT_FALSE(before.empty());

  // Credentials.
  const std::string player = PlayerToken(1);
  const absl::Time an_hour_ago = absl::FromUnixSeconds(absl::ToUnixSeconds(absl::Now()) - 3600);
  const std::string expired_player = PlayerToken(1, an_hour_ago);
  const std::string expired_service = ServiceToken(an_hour_ago);
  // Service credentials live 5 minutes, access tokens 15 (parlor::testing::TestKeys).
  const std::string expired_at =
      absl::FormatTime(absl::RFC3339_sec, an_hour_ago + absl::Minutes(5), absl::UTCTimeZone());
  const std::string player_expired_at =
      absl::FormatTime(absl::RFC3339_sec, an_hour_ago + absl::Minutes(15), absl::UTCTimeZone());
  const auth::KeyPairBase64 other_keys = auth::GenerateKeyPair();
  const std::string forged_player =
      *auth::TokenSigner::Create(auth::TokenKind::kAccess, other_keys.private_key)
           ->Sign(TestAccount(1), "session-1", absl::Now(), absl::Minutes(5));
  const std::string forged_service =
      *auth::TokenSigner::Create(auth::TokenKind::kService, other_keys.private_key)
           ->Sign("sessions", "", absl::Now(), absl::Minutes(5));
  std::vector<std::string> parts = absl::StrSplit(player, '.');
  std::string payload = *Base64UrlDecode(parts[1]);
  payload.replace(payload.find(TestAccount(1)), 36, TestAccount(2));
  const std::string tampered = absl::StrCat(parts[0], ".", Base64UrlEncode(payload), ".", parts[2]);
  const std::string alg_none =
      absl::StrCat(Base64UrlEncode(R"({"alg":"none","typ":"JWT"})"), ".", parts[1], ".");

  // Page tokens: genuine ones of this server (same secret), for cursors it would never hand out
  // for the request they come with.
  const PageTokens tokens(kPageTokenSecret);
  int64_t pict_snapshot = 0;
  {
    pqxx::connection c(db_url());
    pqxx::nontransaction n(c);
    pict_snapshot = n.exec1(
                         "SELECT max(snapshot_id) FROM ratings.board_snapshots "
                         "WHERE ladder = 'pict'")[0]
                        .as<int64_t>();
  }
  v1::GetRatingHistoryRequest history_first;
  history_first.set_ladder("pico");
  history_first.set_page_size(1);
  v1::GetRatingHistoryResponse history_page;
  ASSERT_TRUE(ratings_->GetRatingHistory(With(player).get(), history_first, &history_page).ok());
  const std::string history_token = history_page.next_page_token();
  ASSERT_FALSE(history_token.empty());

  // Request builders.
  auto report = [this](v1::ReportResultRequest r, std::string token) {
    return [this, r, token] {
      v1::ReportResultResponse out;
      return internal_->ReportResult(With(token).get(), r, &out);
    };
  };
  const v1::ReportResultRequest pico = Game("g-bad", "pico", {1, 2}, {1, 2});
  auto pico_with = [&](const std::function<void(v1::ReportResultRequest&)>& edit) {
    v1::ReportResultRequest r = pico;
    edit(r);
    return report(r, service);
  };
  auto get_rating = [this](std::string account, std::string ladder, std::string season,
                           std::string token) {
    return [=, this] {
      v1::GetRatingRequest q;
      q.set_account_id(account);
      q.set_ladder(ladder);
      q.set_season_id(season);
      v1::GetRatingResponse out;
      return ratings_->GetRating(With(token).get(), q, &out);
    };
  };
  auto my_ratings = [this](std::string season, std::string token) {
    return [=, this] {
      v1::GetMyRatingsRequest q;
      q.set_season_id(season);
      v1::GetMyRatingsResponse out;
      return ratings_->GetMyRatings(With(token).get(), q, &out);
    };
  };
  auto board = [this](std::string ladder, std::string season, int page_size, std::string page_token,
                      std::string token) {
    return [=, this] {
      v1::GetLeaderboardRequest q;
      q.set_ladder(ladder);
      q.set_season_id(season);
      q.set_page_size(page_size);
      q.set_page_token(page_token);
      v1::GetLeaderboardResponse out;
      return ratings_->GetLeaderboard(With(token).get(), q, &out);
    };
  };
  auto around = [this](std::string ladder, std::string season, int before, int after,
                       std::string token) {
    return [=, this] {
      v1::GetLeaderboardAroundMeRequest q;
      q.set_ladder(ladder);
      q.set_season_id(season);
      q.set_before(before);
      q.set_after(after);
      v1::GetLeaderboardAroundMeResponse out;
      return ratings_->GetLeaderboardAroundMe(With(token).get(), q, &out);
    };
  };
  auto history = [this](std::string account, std::string ladder, std::string season, int page_size,
                        std::string page_token, std::string token) {
    return [=, this] {
      v1::GetRatingHistoryRequest q;
      q.set_account_id(account);
      q.set_ladder(ladder);
      q.set_season_id(season);
      q.set_page_size(page_size);
      q.set_page_token(page_token);
      v1::GetRatingHistoryResponse out;
      return ratings_->GetRatingHistory(With(token).get(), q, &out);
    };
  };
  auto ladders = [this](std::string token) {
    return [=, this] {
      v1::ListLaddersResponse out;
      return ratings_->ListLadders(With(token).get(), {}, &out);
    };
  };
  auto seasons = [this](std::string token) {
    return [=, this] {
      v1::ListSeasonsResponse out;
      return ratings_->ListSeasons(With(token).get(), {}, &out);
    };
  };
  auto batch = [this](std::string ladder, std::vector<std::string> ids, std::string token) {
    return [=, this] {
      v1::BatchGetRatingsRequest q;
      q.set_ladder(ladder);
      for (const std::string& id : ids) q.add_account_ids(id);
      v1::BatchGetRatingsResponse out;
      return internal_->BatchGetRatings(With(token).get(), q, &out);
    };
  };

  auto void_result = [this](std::string game_id, std::string reason, std::string operator_id,
                            std::string token) {
    return [=, this] {
      v1::VoidResultRequest q;
      q.set_game_id(game_id);
      q.set_reason(reason);
      q.set_operator_id(operator_id);
      v1::VoidResultResponse out;
      return internal_->VoidResult(With(token).get(), q, &out);
    };
  };

  // Messages.
  const std::string kUuid =
      " must be an account id (a UUID such as \"123e4567-e89b-12d3-a456-426614174000\")";
  const std::string kNoPlayerCredentials =
      "missing credentials: send `authorization: Bearer <access token>` metadata (get a token "
      "from AuthenticateDevice)";
  const std::string kNoServiceCredentials =
      "missing credentials: this internal RPC needs `authorization: Bearer <service credential>` "
      "metadata";
  const std::string kPlayerOnInternal =
      "this is an internal RPC: a player's access token is never accepted, it needs a service "
      "credential";
  const std::string kBadPlayerSignature =
      "access token signature is invalid (forged, tampered or for another key)";
  const std::string kBadServiceSignature =
      "service credential signature is invalid (forged, tampered or for another key)";
  const std::string kMalformedPageToken =
      "page_token is malformed; pass the next_page_token of a previous response unchanged";
  const std::string kOtherRequestPageToken =
      "page_token does not match this request; keep every other request field the same while "
      "paging";
  const std::string kSeasonSyntax = "season_id must be 1-32 characters of a-z, 0-9 and '-'";
  const std::string kGameId = "game_id must be 1-128 printable ASCII characters without spaces";
  const std::string kGameName = "game must be an engine game id such as \"pico\"";
  const std::string kOperator =
      "operator_id must be 1-128 printable ASCII characters without spaces (who voids)";
  const std::string kHuge(100000, 'x');
  const std::string a1 = TestAccount(1);
  const std::string a2 = TestAccount(2);
  const std::string a7 = TestAccount(7);
  std::vector<std::string> ids_101;
  for (int i = 1; i <= 101; ++i) ids_101.push_back(TestAccount(i));

  const std::vector<BadInputCase> cases = {
      // --- ReportResult (internal): credentials.
      {"ReportResult: no credential", report(pico, ""), StatusCode::UNAUTHENTICATED,
       kNoServiceCredentials},
      {"ReportResult: a player's token", report(pico, player), StatusCode::PERMISSION_DENIED,
       kPlayerOnInternal},
      {"ReportResult: garbage credential", report(pico, "not-a-token"), StatusCode::UNAUTHENTICATED,
       "service credential is malformed: expected a JWT (header.payload.signature)"},
      {"ReportResult: forged credential", report(pico, forged_service), StatusCode::UNAUTHENTICATED,
       kBadServiceSignature},
      {"ReportResult: expired credential", report(pico, expired_service),
       StatusCode::UNAUTHENTICATED,
       absl::StrCat("service credential expired at ", expired_at,
                    "; mint a new service credential")},
      // --- ReportResult: fields.
      {"ReportResult: no game_id", pico_with([](auto& r) { r.set_game_id(""); }),
       StatusCode::INVALID_ARGUMENT, kGameId},
      {"ReportResult: oversized game_id", pico_with([&](auto& r) { r.set_game_id(kHuge); }),
       StatusCode::INVALID_ARGUMENT, kGameId},
      {"ReportResult: game_id with a space", pico_with([](auto& r) { r.set_game_id("g 1"); }),
       StatusCode::INVALID_ARGUMENT, kGameId},
      {"ReportResult: no game", pico_with([](auto& r) { r.set_game(""); }),
       StatusCode::INVALID_ARGUMENT, kGameName},
      {"ReportResult: garbage game", pico_with([](auto& r) { r.set_game("Pico'; --"); }),
       StatusCode::INVALID_ARGUMENT, kGameName},
      {"ReportResult: unknown game", pico_with([](auto& r) { r.set_game("chess"); }),
       StatusCode::INVALID_ARGUMENT, "game \"chess\" is not rated"},
      {"ReportResult: unknown ladder", pico_with([](auto& r) { r.set_ladder("nope"); }),
       StatusCode::INVALID_ARGUMENT, "ladder is \"nope\" but this game counts for \"pico\""},
      {"ReportResult: another game's ladder", pico_with([](auto& r) { r.set_ladder("pict"); }),
       StatusCode::INVALID_ARGUMENT, "ladder is \"pict\" but this game counts for \"pico\""},
      {"ReportResult: oversized ladder", pico_with([&](auto& r) { r.set_ladder(kHuge); }),
       StatusCode::INVALID_ARGUMENT,
       "ladder must be at most 64 characters; leave it empty to let the game's seats decide"},
      {"ReportResult: no finish_time", pico_with([](auto& r) { r.clear_finish_time(); }),
       StatusCode::INVALID_ARGUMENT, "finish_time is required"},
      {"ReportResult: invalid finish_time",
       pico_with([](auto& r) { r.mutable_finish_time()->set_nanos(-1); }),
       StatusCode::INVALID_ARGUMENT, "finish_time is not a valid timestamp"},
      {"ReportResult: finish_time of 1970",
       pico_with([](auto& r) { r.mutable_finish_time()->set_seconds(1); }),
       StatusCode::INVALID_ARGUMENT,
       "finish_time is before 2000-01-01: send the time the game ended"},
      {"ReportResult: finish_time tomorrow", pico_with([](auto& r) {
         r.mutable_finish_time()->set_seconds(absl::ToUnixSeconds(absl::Now()) + 86400);
       }),
       StatusCode::INVALID_ARGUMENT,
       "finish_time is in the future (more than 5m ahead of this server)"},
      {"ReportResult: no seats", pico_with([](auto& r) {
         r.clear_seats();
         r.clear_placements();
       }),
       StatusCode::INVALID_ARGUMENT, "seats must list 2 to 64 seats, got 0"},
      {"ReportResult: one seat", pico_with([](auto& r) {
         r.mutable_seats()->RemoveLast();
         r.mutable_placements()->RemoveLast();
       }),
       StatusCode::INVALID_ARGUMENT, "seats must list 2 to 64 seats, got 1"},
      {"ReportResult: 1000 seats", pico_with([](auto& r) {
         for (int i = 2; i < 1000; ++i) {
           v1::ResultSeat* s = r.add_seats();
           s->set_seat(i);
           s->set_account_id(TestAccount(i + 1));
           s->set_team(i);
         }
       }),
       StatusCode::INVALID_ARGUMENT, "seats must list 2 to 64 seats, got 1000"},
      {"ReportResult: three seats for pico",
       report(Game("g-three", "pico", {1, 2, 3}, {1, 2, 3}), service), StatusCode::INVALID_ARGUMENT,
       "no pico ladder takes a game of 3 seats"},
      {"ReportResult: seats out of order",
       pico_with([](auto& r) { r.mutable_seats(1)->set_seat(5); }), StatusCode::INVALID_ARGUMENT,
       "seats[1].seat is 5: seats must be listed in order 0..N-1"},
      {"ReportResult: no seat account",
       pico_with([](auto& r) { r.mutable_seats(0)->set_account_id(""); }),
       StatusCode::INVALID_ARGUMENT, "seats[0].account_id" + kUuid},
      {"ReportResult: garbage seat account", pico_with([](auto& r) {
         r.mutable_seats(0)->set_account_id("robert'); DROP TABLE ratings.ratings;--");
       }),
       StatusCode::INVALID_ARGUMENT, "seats[0].account_id" + kUuid},
      {"ReportResult: oversized seat account",
       pico_with([&](auto& r) { r.mutable_seats(1)->set_account_id(kHuge); }),
       StatusCode::INVALID_ARGUMENT, "seats[1].account_id" + kUuid},
      {"ReportResult: a player seated twice", pico_with([&](auto& r) {
         r.mutable_seats(1)->set_account_id(a1);
         r.mutable_placements(1)->set_account_id(a1);
       }),
       StatusCode::INVALID_ARGUMENT, absl::StrCat("account ", a1, " is seated twice")},
      {"ReportResult: team out of range",
       pico_with([](auto& r) { r.mutable_seats(1)->set_team(-1); }), StatusCode::INVALID_ARGUMENT,
       "seats[1].team must be in 0..1"},
      {"ReportResult: all seats on one team", pico_with([](auto& r) {
         r.mutable_seats(1)->set_team(0);
         r.mutable_placements(1)->set_rank(1);
       }),
       StatusCode::INVALID_ARGUMENT, "all seats are on one team"},
      {"ReportResult: teams of unequal size",
       [&] {
         v1::ReportResultRequest r = Game("g-teams", "picadice", {1, 2, 3}, {1, 1, 2});
         r.mutable_seats(1)->set_team(0);
         return report(r, service)();
       },
       StatusCode::INVALID_ARGUMENT, "teams must be of equal size"},
      {"ReportResult: team-mates placed apart",
       [&] {
         v1::ReportResultRequest r = Game("g-doubles", "picadice", {1, 2, 3, 4}, {1, 2, 1, 2});
         r.mutable_seats(2)->set_team(0);
         r.mutable_seats(3)->set_team(1);
         r.mutable_placements(2)->set_rank(2);
         return report(r, service)();
       },
       StatusCode::INVALID_ARGUMENT, "team 0 has players with different ranks"},
      {"ReportResult: placements for the wrong players", pico_with([&](auto& r) {
         r.mutable_placements(0)->set_account_id(a7);
         r.mutable_placements(1)->set_account_id(TestAccount(8));
       }),
       StatusCode::INVALID_ARGUMENT,
       absl::StrCat("placements[0] is for account ", a7, ", which is not seated in this game")},
      {"ReportResult: a seat without a placement",
       pico_with([](auto& r) { r.mutable_placements()->RemoveLast(); }),
       StatusCode::INVALID_ARGUMENT,
       "placements must hold one entry per seat: 2 seats, got 1 "
       "placements"},
      {"ReportResult: 1000 placements", pico_with([&](auto& r) {
         for (int i = 0; i < 998; ++i) *r.add_placements() = r.placements(0);
       }),
       StatusCode::INVALID_ARGUMENT,
       "placements must hold one entry per seat: 2 seats, got 1000 "
       "placements"},
      {"ReportResult: two placements of one player",
       pico_with([&](auto& r) { r.mutable_placements(1)->set_account_id(a1); }),
       StatusCode::INVALID_ARGUMENT, absl::StrCat("account ", a1, " has two placements")},
      {"ReportResult: garbage placement account",
       pico_with([](auto& r) { r.mutable_placements(1)->set_account_id("bot"); }),
       StatusCode::INVALID_ARGUMENT, "placements[1].account_id" + kUuid},
      {"ReportResult: rank 0", pico_with([](auto& r) { r.mutable_placements(0)->set_rank(0); }),
       StatusCode::INVALID_ARGUMENT, "placements[0].rank must be in 1..2"},
      {"ReportResult: rank out of range",
       pico_with([](auto& r) { r.mutable_placements(0)->set_rank(1000000); }),
       StatusCode::INVALID_ARGUMENT, "placements[0].rank must be in 1..2"},
      {"ReportResult: a replay with other placements",
       report(Game("seed", "pico", {1, 2}, {2, 1}), service), StatusCode::FAILED_PRECONDITION,
       "game seed was already reported with a different result; a game's result is final"},
      {"ReportResult: a replay with other players",
       report(Game("seed", "pico", {1, 7}, {1, 2}), service), StatusCode::FAILED_PRECONDITION,
       "game seed was already reported with a different result; a game's result is final"},
      {"ReportResult: a replay of a game as another game",
       report(Game("seed-3", "kadice", {1, 2, 3, 4}, {1, 2, 3, 4}), service),
       StatusCode::FAILED_PRECONDITION,
       "game seed-3 was already reported with a different result; a game's result is final"},
      {"ReportResult: a request over the 1 MiB limit",
       pico_with([](auto& r) { r.set_game_id(std::string(2 << 20, 'g')); }),
       StatusCode::RESOURCE_EXHAUSTED, "Received message larger than max", false},

      // --- Player credentials (on each kind of player RPC).
      {"GetRating: no credential", get_rating(a1, "pico", "", ""), StatusCode::UNAUTHENTICATED,
       kNoPlayerCredentials},
      {"GetRating: not a bearer header",
       [this] {
         grpc::ClientContext context;
         context.AddMetadata("authorization", "Basic YWRhOnB3");
         v1::GetRatingResponse out;
         return ratings_->GetRating(&context, {}, &out);
       },
       StatusCode::UNAUTHENTICATED, "authorization metadata must have the form `Bearer <token>`"},
      {"GetMyRatings: garbage token", my_ratings("", "not-a-token"), StatusCode::UNAUTHENTICATED,
       "access token is malformed: expected a JWT (header.payload.signature)"},
      {"GetLeaderboard: expired token", board("pico", "", 0, "", expired_player),
       StatusCode::UNAUTHENTICATED,
       absl::StrCat("access token expired at ", player_expired_at,
                    "; call RefreshSession for a new one")},
      {"GetLeaderboardAroundMe: forged token", around("pico", "", 5, 5, forged_player),
       StatusCode::UNAUTHENTICATED, kBadPlayerSignature},
      {"GetRatingHistory: tampered token", history("", "pico", "", 0, "", tampered),
       StatusCode::UNAUTHENTICATED, kBadPlayerSignature},
      {"ListLadders: alg none token", ladders(alg_none), StatusCode::UNAUTHENTICATED,
       "access token uses algorithm \"none\"; only EdDSA is accepted"},
      {"ListSeasons: a service credential instead", seasons(service), StatusCode::UNAUTHENTICATED,
       kBadPlayerSignature},
      {"ListSeasons: oversized token", seasons(std::string(5000, 'a')), StatusCode::UNAUTHENTICATED,
       "access token is too long"},

      // --- GetRating.
      {"GetRating: no account_id", get_rating("", "pico", "", player), StatusCode::INVALID_ARGUMENT,
       "account_id is required"},
      {"GetRating: garbage account_id", get_rating("zzz", "pico", "", player),
       StatusCode::INVALID_ARGUMENT, "account_id" + kUuid},
      {"GetRating: oversized account_id", get_rating(kHuge, "pico", "", player),
       StatusCode::INVALID_ARGUMENT, "account_id" + kUuid},
      {"GetRating: no ladder", get_rating(a1, "", "", player), StatusCode::INVALID_ARGUMENT,
       "ladder is required"},
      {"GetRating: unknown ladder", get_rating(a1, "nope", "", player), StatusCode::NOT_FOUND,
       "no ladder named \"nope\""},
      {"GetRating: oversized ladder", get_rating(a1, kHuge, "", player),
       StatusCode::INVALID_ARGUMENT, "ladder must be at most 64 characters"},
      {"GetRating: unknown season", get_rating(a1, "pico", "s9", player), StatusCode::NOT_FOUND,
       "no season \"s9\""},
      {"GetRating: garbage season", get_rating(a1, "pico", "Bad Season!", player),
       StatusCode::INVALID_ARGUMENT, kSeasonSyntax},
      {"GetRating: oversized season", get_rating(a1, "pico", kHuge, player),
       StatusCode::INVALID_ARGUMENT, kSeasonSyntax},

      // --- GetMyRatings.
      {"GetMyRatings: unknown season", my_ratings("s9", player), StatusCode::NOT_FOUND,
       "no season \"s9\""},
      {"GetMyRatings: garbage season", my_ratings("-s1", player), StatusCode::INVALID_ARGUMENT,
       kSeasonSyntax},

      // --- GetLeaderboard.
      {"GetLeaderboard: no ladder", board("", "", 0, "", player), StatusCode::INVALID_ARGUMENT,
       "ladder is required"},
      {"GetLeaderboard: unknown ladder", board("nope", "", 0, "", player), StatusCode::NOT_FOUND,
       "no ladder named \"nope\""},
      {"GetLeaderboard: unknown season", board("pico", "s9", 0, "", player), StatusCode::NOT_FOUND,
       "no season \"s9\""},
      {"GetLeaderboard: garbage season", board("pico", "S1", 0, "", player),
       StatusCode::INVALID_ARGUMENT, kSeasonSyntax},
      {"GetLeaderboard: negative page_size", board("pico", "", -1, "", player),
       StatusCode::INVALID_ARGUMENT, "page_size must be 0 to 200"},
      {"GetLeaderboard: page_size over 200", board("pico", "", 201, "", player),
       StatusCode::INVALID_ARGUMENT, "page_size must be 0 to 200"},
      {"GetLeaderboard: garbage page_token", board("pico", "", 10, "!!!", player),
       StatusCode::INVALID_ARGUMENT, kMalformedPageToken},
      {"GetLeaderboard: forged page_token",
       board("pico", "", 10, Base64UrlEncode(std::string(40, 'f')), player),
       StatusCode::INVALID_ARGUMENT, kOtherRequestPageToken},
      {"GetLeaderboard: oversized page_token",
       board("pico", "", 10, Base64UrlEncode(kHuge), player), StatusCode::INVALID_ARGUMENT,
       kOtherRequestPageToken},
      {"GetLeaderboard: page_token of another ladder",
       board("pico", "", 10, tokens.Encode(absl::StrCat(pict_snapshot, ":10"), "board/pict/"),
             player),
       StatusCode::INVALID_ARGUMENT, kOtherRequestPageToken},
      {"GetLeaderboard: page_token of a history walk", board("pico", "", 10, history_token, player),
       StatusCode::INVALID_ARGUMENT, kOtherRequestPageToken},
      {"GetLeaderboard: page_token with a cursor it never wrote",
       board("pico", "", 10, tokens.Encode("12:-3", "board/pico/"), player),
       StatusCode::INVALID_ARGUMENT, kMalformedPageToken},
      {"GetLeaderboard: page_token of another board's snapshot",
       board("pico", "", 10, tokens.Encode(absl::StrCat(pict_snapshot, ":10"), "board/pico/"),
             player),
       StatusCode::INVALID_ARGUMENT, "page_token belongs to another leaderboard"},
      {"GetLeaderboard: page_token of a dropped snapshot",
       board("pico", "", 10, tokens.Encode("999999:10", "board/pico/"), player),
       StatusCode::FAILED_PRECONDITION,
       "the leaderboard snapshot of this page token has expired; start again from the first "
       "page"},

      // --- GetLeaderboardAroundMe.
      {"GetLeaderboardAroundMe: no ladder", around("", "", 5, 5, player),
       StatusCode::INVALID_ARGUMENT, "ladder is required"},
      {"GetLeaderboardAroundMe: unknown ladder", around("nope", "", 5, 5, player),
       StatusCode::NOT_FOUND, "no ladder named \"nope\""},
      {"GetLeaderboardAroundMe: before over 100", around("pico", "", 101, 5, player),
       StatusCode::INVALID_ARGUMENT, "before and after must be 0 to 100"},
      {"GetLeaderboardAroundMe: negative after", around("pico", "", 5, -1, player),
       StatusCode::INVALID_ARGUMENT, "before and after must be 0 to 100"},
      {"GetLeaderboardAroundMe: unknown season", around("pico", "s9", 5, 5, player),
       StatusCode::NOT_FOUND, "no season \"s9\""},
      {"GetLeaderboardAroundMe: garbage season", around("pico", kHuge, 5, 5, player),
       StatusCode::INVALID_ARGUMENT, kSeasonSyntax},

      // --- GetRatingHistory.
      {"GetRatingHistory: no ladder", history("", "", "", 0, "", player),
       StatusCode::INVALID_ARGUMENT, "ladder is required"},
      {"GetRatingHistory: unknown ladder", history("", "nope", "", 0, "", player),
       StatusCode::NOT_FOUND, "no ladder named \"nope\""},
      {"GetRatingHistory: garbage account_id", history("not-an-id", "pico", "", 0, "", player),
       StatusCode::INVALID_ARGUMENT, "account_id" + kUuid},
      {"GetRatingHistory: unknown season", history("", "pico", "s9", 0, "", player),
       StatusCode::NOT_FOUND, "no season \"s9\""},
      {"GetRatingHistory: page_size over 200", history("", "pico", "", 201, "", player),
       StatusCode::INVALID_ARGUMENT, "page_size must be 0 to 200"},
      {"GetRatingHistory: its token on another ladder",
       history("", "pict", "", 1, history_token, player), StatusCode::INVALID_ARGUMENT,
       kOtherRequestPageToken},
      {"GetRatingHistory: its token for another player",
       history(a2, "pico", "", 1, history_token, player), StatusCode::INVALID_ARGUMENT,
       kOtherRequestPageToken},
      {"GetRatingHistory: page_token with a cursor it never wrote",
       history("", "pico", "", 1, tokens.Encode("0", absl::StrCat("history/", a1, "/pico/")),
               player),
       StatusCode::INVALID_ARGUMENT, kMalformedPageToken},

      // --- BatchGetRatings (internal).
      {"BatchGetRatings: a player's token", batch("pico", {a1}, player),
       StatusCode::PERMISSION_DENIED, kPlayerOnInternal},
      {"BatchGetRatings: expired credential", batch("pico", {a1}, expired_service),
       StatusCode::UNAUTHENTICATED,
       absl::StrCat("service credential expired at ", expired_at,
                    "; mint a new service credential")},
      {"BatchGetRatings: no ladder", batch("", {a1}, service), StatusCode::INVALID_ARGUMENT,
       "ladder is required"},
      {"BatchGetRatings: unknown ladder", batch("nope", {a1}, service), StatusCode::NOT_FOUND,
       "no ladder named \"nope\""},
      {"BatchGetRatings: no ids", batch("pico", {}, service), StatusCode::INVALID_ARGUMENT,
       "account_ids must hold 1 to 100 ids"},
      {"BatchGetRatings: 101 ids", batch("pico", ids_101, service), StatusCode::INVALID_ARGUMENT,
       "account_ids must hold 1 to 100 ids"},
      {"BatchGetRatings: a garbage id", batch("pico", {a1, a2, "x"}, service),
       StatusCode::INVALID_ARGUMENT, "account_ids[2]" + kUuid},

      // --- VoidResult (internal).
      {"VoidResult: no credential", void_result("seed", "cheating", "ops-1", ""),
       StatusCode::UNAUTHENTICATED, kNoServiceCredentials},
      {"VoidResult: a player's token", void_result("seed", "cheating", "ops-1", player),
       StatusCode::PERMISSION_DENIED, kPlayerOnInternal},
      {"VoidResult: expired credential", void_result("seed", "cheating", "ops-1", expired_service),
       StatusCode::UNAUTHENTICATED,
       absl::StrCat("service credential expired at ", expired_at,
                    "; mint a new service credential")},
      {"VoidResult: no game_id", void_result("", "cheating", "ops-1", service),
       StatusCode::INVALID_ARGUMENT, kGameId},
      {"VoidResult: oversized game_id", void_result(kHuge, "cheating", "ops-1", service),
       StatusCode::INVALID_ARGUMENT, kGameId},
      {"VoidResult: game_id with a space", void_result("g 1", "cheating", "ops-1", service),
       StatusCode::INVALID_ARGUMENT, kGameId},
      {"VoidResult: no reason", void_result("seed", "", "ops-1", service),
       StatusCode::INVALID_ARGUMENT, "reason is required: say why the result is voided"},
      {"VoidResult: a blank reason", void_result("seed", " \t\n", "ops-1", service),
       StatusCode::INVALID_ARGUMENT, "reason is required: say why the result is voided"},
      {"VoidResult: oversized reason",
       void_result("seed", std::string(1001, 'r'), "ops-1", service), StatusCode::INVALID_ARGUMENT,
       "reason must be at most 1000 characters"},
      {"VoidResult: no operator_id", void_result("seed", "cheating", "", service),
       StatusCode::INVALID_ARGUMENT, kOperator},
      {"VoidResult: operator_id with a space", void_result("seed", "cheating", "ops 1", service),
       StatusCode::INVALID_ARGUMENT, kOperator},
      {"VoidResult: oversized operator_id", void_result("seed", "cheating", kHuge, service),
       StatusCode::INVALID_ARGUMENT, kOperator},
      {"VoidResult: a game never reported", void_result("nope", "cheating", "ops-1", service),
       StatusCode::NOT_FOUND, "no result was reported for game_id \"nope\""},
      {"VoidResult: a casual game", void_result("seed-casual", "cheating", "ops-1", service),
       StatusCode::FAILED_PRECONDITION,
       "game seed-casual was casual: it changed no rating, so there is nothing to void"},
  };

  int passed = 0;
  for (const BadInputCase& c : cases) {
    SCOPED_TRACE(c.name);
    const grpc::Status status = c.call();
    const std::string digest = Digest();
    const bool code_ok = status.error_code() == c.code;
    const bool message_ok = c.whole_message
                                ? status.error_message() == c.message
                                : status.error_message().find(c.message) != std::string::npos;
    const bool unchanged = digest == before;
    EXPECT_TRUE(code_ok) << "got " << GrpcCodeName(status.error_code()) << ", want "
                         << GrpcCodeName(c.code);
    EXPECT_TRUE(message_ok) << "got message: " << status.error_message() << "\nwant: " << c.message;
    EXPECT_TRUE(unchanged) << "the ratings schema changed";
    if (code_ok && message_ok && unchanged) ++passed;
  }
  std::printf("ratings bad-input: %d/%zu cases\n", passed, cases.size());
  std::fflush(stdout);
  EXPECT_EQ(passed, static_cast<int>(cases.size()));

  // The good request every ReportResult case was derived from is accepted: the refusals above
  // were for what each case broke, not for the request's shape.
  v1::ReportResultResponse accepted;
  grpc::Status good = Report(pico, &accepted, service);
  EXPECT_TRUE(good.ok()) << good.error_message();
  EXPECT_TRUE(accepted.applied());
  EXPECT_NE(Digest(), before);
}

}  // namespace
}  // namespace parlor::ratings
