#include "services/ratings/api/ratings_api.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "services/ratings/domain/validation.h"

namespace parlor::ratings {
namespace {

constexpr int kDefaultPageSize = 50;
constexpr int kMaxPageSize = 200;
constexpr int kMaxAround = 100;
constexpr int kDefaultAround = 5;
constexpr int kMaxBatch = 100;
// A page token whose MAC is genuine but whose cursor is not one this service writes.
constexpr char kMalformedCursor[] =
    "page_token is malformed; pass the next_page_token of a previous response unchanged";

void SetTime(absl::Time t, google::protobuf::Timestamp* out) {
  const int64_t micros = absl::ToUnixMicros(t);
  int64_t seconds = micros / 1000000;
  int64_t rem = micros % 1000000;
  if (rem < 0) {
    rem += 1000000;
    --seconds;
  }
  out->set_seconds(seconds);
  out->set_nanos(static_cast<int32_t>(rem * 1000));
}

v1::RatingModel ModelOf(const model::LadderSpec& ladder) {
  return ladder.model == model::ModelKind::kGlicko2 ? v1::RATING_MODEL_GLICKO2
                                                    : v1::RATING_MODEL_WENG_LIN;
}

void ToProto(const model::LadderRegistry& ladders, const RatingRecord& r, v1::Rating* out) {
  out->set_account_id(r.account_id);
  out->set_ladder(r.ladder);
  out->set_season_id(r.season_id);
  if (auto ladder = ladders.Find(r.ladder); ladder.ok()) out->set_model(ModelOf(**ladder));
  out->set_rating(r.rating.value);
  out->set_deviation(r.rating.deviation);
  out->set_volatility(r.rating.volatility);
  out->set_conservative_rating(r.conservative);
  out->set_games(r.rating.games);
  out->set_season_games(r.season_games);
  out->set_provisional(r.provisional);
  if (r.last_game_time) SetTime(*r.last_game_time, out->mutable_last_game_time());
  out->set_inactive(r.inactive);
  if (auto ladder = ladders.Find(r.ladder); ladder.ok()) {
    out->set_display_rating((*ladder)->Display(r.rating));
  }
}

void ToProto(const model::LadderRegistry& ladders, const std::string& ladder, const RatingChange& c,
             v1::RatingChange* out) {
  out->set_account_id(c.account_id);
  out->set_seat(c.seat);
  out->set_rank(c.rank);
  out->set_rating_before(c.before.value);
  out->set_deviation_before(c.before.deviation);
  out->set_rating_after(c.after.value);
  out->set_deviation_after(c.after.deviation);
  out->set_volatility_after(c.after.volatility);
  out->set_conservative_rating_after(c.conservative_after);
  if (auto spec = ladders.Find(ladder); spec.ok()) {
    out->set_display_rating_before((*spec)->Display(c.before));
    out->set_display_rating_after((*spec)->Display(c.after));
  }
}

absl::Status CheckLadderName(const std::string& ladder) {
  if (ladder.empty()) return absl::InvalidArgumentError("ladder is required");
  if (ladder.size() > kMaxLadderNameLength) {
    return absl::InvalidArgumentError(
        absl::StrCat("ladder must be at most ", kMaxLadderNameLength, " characters"));
  }
  return absl::OkStatus();
}

absl::StatusOr<int> PageSize(int32_t requested) {
  if (requested < 0 || requested > kMaxPageSize) {
    return absl::InvalidArgumentError(absl::StrCat("page_size must be 0 to ", kMaxPageSize));
  }
  return requested == 0 ? kDefaultPageSize : requested;
}

// Cursors inside page tokens: "<snapshot_id>:<position>" and "<before_seq>".
absl::StatusOr<std::pair<int64_t, int64_t>> ParseBoardCursor(const std::string& cursor) {
  std::vector<std::string> parts = absl::StrSplit(cursor, ':');
  int64_t snapshot = 0;
  int64_t position = 0;
  if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &snapshot) ||
      !absl::SimpleAtoi(parts[1], &position) || snapshot <= 0 || position < 0) {
    return absl::InvalidArgumentError(kMalformedCursor);
  }
  return std::make_pair(snapshot, position);
}

}  // namespace

grpc::ServerUnaryReactor* RatingsApi::GetRating(grpc::CallbackServerContext* context,
                                                const v1::GetRatingRequest* request,
                                                v1::GetRatingResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext&, const v1::GetRatingRequest& req,
                          v1::GetRatingResponse* resp) -> absl::Status {
                     if (req.account_id().empty()) {
                       return absl::InvalidArgumentError("account_id is required");
                     }
                     if (absl::Status s = CheckLadderName(req.ladder()); !s.ok()) return s;
                     absl::StatusOr<RatingRecord> r =
                         ratings_->GetRating(req.account_id(), req.ladder(), req.season_id());
                     if (!r.ok()) return r.status();
                     ToProto(ratings_->ladders(), *r, resp->mutable_rating());
                     return absl::OkStatus();
                   });
}

grpc::ServerUnaryReactor* RatingsApi::GetMyRatings(grpc::CallbackServerContext* context,
                                                   const v1::GetMyRatingsRequest* request,
                                                   v1::GetMyRatingsResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext& call, const v1::GetMyRatingsRequest& req,
                          v1::GetMyRatingsResponse* resp) -> absl::Status {
                     absl::StatusOr<std::vector<RatingRecord>> rs =
                         ratings_->GetMyRatings(call.account_id(), req.season_id());
                     if (!rs.ok()) return rs.status();
                     for (const RatingRecord& r : *rs) {
                       ToProto(ratings_->ladders(), r, resp->add_ratings());
                     }
                     return absl::OkStatus();
                   });
}

grpc::ServerUnaryReactor* RatingsApi::GetLeaderboard(grpc::CallbackServerContext* context,
                                                     const v1::GetLeaderboardRequest* request,
                                                     v1::GetLeaderboardResponse* response) {
  return rpc_->Run(
      context, Access::kPlayer, request, response,
      [this](const CallContext&, const v1::GetLeaderboardRequest& req,
             v1::GetLeaderboardResponse* resp) -> absl::Status {
        if (absl::Status s = CheckLadderName(req.ladder()); !s.ok()) return s;
        absl::StatusOr<int> page_size = PageSize(req.page_size());
        if (!page_size.ok()) return page_size.status();
        const std::string fingerprint = absl::StrCat("board/", req.ladder(), "/", req.season_id());
        int64_t snapshot_id = 0;
        int64_t after = 0;
        if (!req.page_token().empty()) {
          absl::StatusOr<std::string> cursor = tokens_->Decode(req.page_token(), fingerprint);
          if (!cursor.ok()) return cursor.status();
          absl::StatusOr<std::pair<int64_t, int64_t>> parsed = ParseBoardCursor(*cursor);
          if (!parsed.ok()) return parsed.status();
          std::tie(snapshot_id, after) = *parsed;
        }
        absl::StatusOr<BoardPage> page =
            ratings_->GetLeaderboard(req.ladder(), req.season_id(), snapshot_id, after, *page_size);
        if (!page.ok()) return page.status();
        for (const BoardEntry& e : page->entries) {
          v1::LeaderboardEntry* out = resp->add_entries();
          out->set_position(e.position);
          ToProto(ratings_->ladders(), e.record, out->mutable_rating());
        }
        resp->set_season_id(page->season_id);
        if (page->snapshot) {
          SetTime(page->snapshot->take_time, resp->mutable_snapshot_time());
          resp->set_total_players(page->snapshot->players);
          if (page->next_position > 0) {
            resp->set_next_page_token(tokens_->Encode(
                absl::StrCat(page->snapshot->snapshot_id, ":", page->next_position), fingerprint));
          }
        }
        return absl::OkStatus();
      });
}

grpc::ServerUnaryReactor* RatingsApi::GetLeaderboardAroundMe(
    grpc::CallbackServerContext* context, const v1::GetLeaderboardAroundMeRequest* request,
    v1::GetLeaderboardAroundMeResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext& call, const v1::GetLeaderboardAroundMeRequest& req,
                          v1::GetLeaderboardAroundMeResponse* resp) -> absl::Status {
                     if (absl::Status s = CheckLadderName(req.ladder()); !s.ok()) return s;
                     if (req.before() < 0 || req.before() > kMaxAround || req.after() < 0 ||
                         req.after() > kMaxAround) {
                       return absl::InvalidArgumentError(
                           absl::StrCat("before and after must be 0 to ", kMaxAround));
                     }
                     int before = req.before();
                     int after = req.after();
                     if (before == 0 && after == 0) before = after = kDefaultAround;
                     absl::StatusOr<const model::LadderSpec*> ladder =
                         ratings_->ladders().Find(req.ladder());
                     if (!ladder.ok()) return ladder.status();
                     absl::StatusOr<Season> season = ratings_->ResolveSeason(req.season_id());
                     if (!season.ok()) return season.status();
                     absl::StatusOr<AroundMe> around = ratings_->GetLeaderboardAroundMe(
                         req.ladder(), *season, call.account_id(), before, after);
                     if (!around.ok()) return around.status();
                     for (const BoardEntry& e : around->entries) {
                       v1::LeaderboardEntry* out = resp->add_entries();
                       out->set_position(e.position);
                       ToProto(ratings_->ladders(), e.record, out->mutable_rating());
                     }
                     resp->set_my_position(around->my_position);
                     ToProto(ratings_->ladders(), around->my_rating, resp->mutable_my_rating());
                     resp->set_season_id(season->season_id);
                     if (around->snapshot) {
                       SetTime(around->snapshot->take_time, resp->mutable_snapshot_time());
                       resp->set_total_players(around->snapshot->players);
                     }
                     return absl::OkStatus();
                   });
}

grpc::ServerUnaryReactor* RatingsApi::GetRatingHistory(grpc::CallbackServerContext* context,
                                                       const v1::GetRatingHistoryRequest* request,
                                                       v1::GetRatingHistoryResponse* response) {
  return rpc_->Run(
      context, Access::kPlayer, request, response,
      [this](const CallContext& call, const v1::GetRatingHistoryRequest& req,
             v1::GetRatingHistoryResponse* resp) -> absl::Status {
        if (absl::Status s = CheckLadderName(req.ladder()); !s.ok()) return s;
        absl::StatusOr<int> page_size = PageSize(req.page_size());
        if (!page_size.ok()) return page_size.status();
        const std::string account = req.account_id().empty() ? call.account_id() : req.account_id();
        const std::string fingerprint =
            absl::StrCat("history/", account, "/", req.ladder(), "/", req.season_id());
        int64_t before = 0;
        if (!req.page_token().empty()) {
          absl::StatusOr<std::string> cursor = tokens_->Decode(req.page_token(), fingerprint);
          if (!cursor.ok()) return cursor.status();
          if (!absl::SimpleAtoi(*cursor, &before) || before <= 0) {
            return absl::InvalidArgumentError(kMalformedCursor);
          }
        }
        absl::StatusOr<HistoryPage> page =
            ratings_->GetRatingHistory(account, req.ladder(), req.season_id(), before, *page_size);
        if (!page.ok()) return page.status();
        for (const HistoryEntry& h : page->entries) {
          v1::RatingHistoryEntry* out = resp->add_entries();
          out->set_game_id(h.game_id);
          out->set_ladder(h.ladder);
          out->set_season_id(h.season_id);
          SetTime(h.finish_time, out->mutable_finish_time());
          ToProto(ratings_->ladders(), h.ladder, h.change, out->mutable_change());
        }
        if (page->next_before_seq > 0) {
          resp->set_next_page_token(
              tokens_->Encode(absl::StrCat(page->next_before_seq), fingerprint));
        }
        return absl::OkStatus();
      });
}

grpc::ServerUnaryReactor* RatingsApi::ListLadders(grpc::CallbackServerContext* context,
                                                  const v1::ListLaddersRequest* request,
                                                  v1::ListLaddersResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext&, const v1::ListLaddersRequest&,
                          v1::ListLaddersResponse* resp) -> absl::Status {
                     for (const model::LadderSpec& l : ratings_->ladders().ladders()) {
                       v1::Ladder* out = resp->add_ladders();
                       out->set_ladder(l.name);
                       out->set_game(l.game);
                       out->set_model(ModelOf(l));
                       out->set_min_seats(l.min_seats);
                       out->set_max_seats(l.max_seats);
                       out->set_teams(l.teams);
                       out->set_provisional_games(l.provisional.min_games);
                       out->set_provisional_deviation(l.provisional.max_deviation);
                       const model::Rating initial = l.Initial();
                       out->set_initial_rating(initial.value);
                       out->set_initial_deviation(initial.deviation);
                       out->set_inactive_days(static_cast<int32_t>(l.inactive_days));
                       out->set_display_points_per_unit(l.DisplayPointsPerUnit());
                     }
                     return absl::OkStatus();
                   });
}

grpc::ServerUnaryReactor* RatingsApi::ListSeasons(grpc::CallbackServerContext* context,
                                                  const v1::ListSeasonsRequest* request,
                                                  v1::ListSeasonsResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext&, const v1::ListSeasonsRequest&,
                          v1::ListSeasonsResponse* resp) -> absl::Status {
                     absl::StatusOr<std::vector<Season>> seasons = ratings_->ListSeasons();
                     if (!seasons.ok()) return seasons.status();
                     for (const Season& s : *seasons) {
                       v1::Season* out = resp->add_seasons();
                       out->set_season_id(s.season_id);
                       out->set_display_name(s.display_name);
                       SetTime(s.start_time, out->mutable_start_time());
                       if (s.end_time) SetTime(*s.end_time, out->mutable_end_time());
                       out->set_current(s.current);
                     }
                     return absl::OkStatus();
                   });
}

grpc::ServerUnaryReactor* RatingsInternalApi::ReportResult(grpc::CallbackServerContext* context,
                                                           const v1::ReportResultRequest* request,
                                                           v1::ReportResultResponse* response) {
  return rpc_->Run(context, Access::kService, request, response,
                   [this](const CallContext&, const v1::ReportResultRequest& req,
                          v1::ReportResultResponse* resp) -> absl::Status {
                     GameResult result;
                     result.game_id = req.game_id();
                     result.game = req.game();
                     result.ladder = req.ladder();
                     result.ranked = req.ranked();
                     for (const v1::ResultSeat& s : req.seats()) {
                       result.seats.push_back({s.seat(), s.account_id(), s.team()});
                     }
                     for (const v1::Placement& p : req.placements()) {
                       result.placements.push_back({p.account_id(), p.rank()});
                     }
                     if (req.has_finish_time()) {
                       const auto& t = req.finish_time();
                       if (t.nanos() < 0 || t.nanos() > 999999999) {
                         return absl::InvalidArgumentError("finish_time is not a valid timestamp");
                       }
                       result.finish_time =
                           absl::FromUnixSeconds(t.seconds()) + absl::Nanoseconds(t.nanos());
                     }
                     absl::StatusOr<ReportOutcome> outcome = ratings_->ReportResult(result);
                     if (!outcome.ok()) return outcome.status();
                     resp->set_applied(outcome->applied);
                     resp->set_replayed(outcome->replayed);
                     resp->set_ladder(outcome->ladder);
                     resp->set_season_id(outcome->season_id);
                     for (const RatingChange& c : outcome->changes) {
                       ToProto(ratings_->ladders(), outcome->ladder, c, resp->add_changes());
                     }
                     return absl::OkStatus();
                   });
}

grpc::ServerUnaryReactor* RatingsInternalApi::BatchGetRatings(
    grpc::CallbackServerContext* context, const v1::BatchGetRatingsRequest* request,
    v1::BatchGetRatingsResponse* response) {
  return rpc_->Run(context, Access::kService, request, response,
                   [this](const CallContext&, const v1::BatchGetRatingsRequest& req,
                          v1::BatchGetRatingsResponse* resp) -> absl::Status {
                     if (absl::Status s = CheckLadderName(req.ladder()); !s.ok()) return s;
                     if (req.account_ids().empty() || req.account_ids_size() > kMaxBatch) {
                       return absl::InvalidArgumentError(
                           absl::StrCat("account_ids must hold 1 to ", kMaxBatch, " ids"));
                     }
                     for (int i = 0; i < req.account_ids_size(); ++i) {
                       absl::StatusOr<std::string> id = CanonicalAccountId(
                           req.account_ids(i), absl::StrCat("account_ids[", i, "]"));
                       if (!id.ok()) return id.status();
                     }
                     for (const std::string& id : req.account_ids()) {
                       absl::StatusOr<RatingRecord> r = ratings_->GetRating(id, req.ladder(), "");
                       if (!r.ok()) return r.status();
                       ToProto(ratings_->ladders(), *r, resp->add_ratings());
                     }
                     return absl::OkStatus();
                   });
}

grpc::ServerUnaryReactor* RatingsInternalApi::VoidResult(grpc::CallbackServerContext* context,
                                                         const v1::VoidResultRequest* request,
                                                         v1::VoidResultResponse* response) {
  return rpc_->Run(context, Access::kService, request, response,
                   [this](const CallContext&, const v1::VoidResultRequest& req,
                          v1::VoidResultResponse* resp) -> absl::Status {
                     absl::StatusOr<VoidOutcome> outcome =
                         ratings_->VoidResult({req.game_id(), req.reason(), req.operator_id()});
                     if (!outcome.ok()) return outcome.status();
                     resp->set_voided(outcome->voided);
                     resp->set_replayed(outcome->replayed);
                     resp->set_game_id(outcome->game_id);
                     resp->set_ladder(outcome->ladder);
                     resp->set_season_id(outcome->season_id);
                     resp->set_reason(outcome->reason);
                     resp->set_operator_id(outcome->operator_id);
                     SetTime(outcome->void_time, resp->mutable_void_time());
                     resp->set_replayed_games(outcome->replayed_games);
                     for (const RatingChange& c : outcome->removed) {
                       ToProto(ratings_->ladders(), outcome->ladder, c, resp->add_removed());
                     }
                     for (const VoidEffect& e : outcome->effects) {
                       v1::VoidEffect* out = resp->add_effects();
                       out->set_account_id(e.account_id);
                       out->set_season_id(e.season_id);
                       out->set_rating_before(e.before.value);
                       out->set_deviation_before(e.before.deviation);
                       out->set_volatility_before(e.before.volatility);
                       out->set_games_before(e.before.games);
                       out->set_season_games_before(e.season_games_before);
                       out->set_rating_after(e.after.value);
                       out->set_deviation_after(e.after.deviation);
                       out->set_volatility_after(e.after.volatility);
                       out->set_games_after(e.after.games);
                       out->set_season_games_after(e.season_games_after);
                     }
                     return absl::OkStatus();
                   });
}

}  // namespace parlor::ratings
