#ifndef PARLOR_SERVICES_RATINGS_API_RATINGS_API_H_
#define PARLOR_SERVICES_RATINGS_API_RATINGS_API_H_

#include "parlor/ratings/v1/ratings.grpc.pb.h"
#include "services/common/core/page_token.h"
#include "services/common/rpc.h"
#include "services/ratings/domain/ratings_service.h"

namespace parlor::ratings {

// gRPC transport for the ratings domain: proto ↔ domain translation, request limits and page
// tokens. Bodies run on the worker pool through RpcRunner, which authenticates and maps statuses.
class RatingsApi final : public v1::RatingsService::CallbackService {
 public:
  RatingsApi(RatingsService* ratings, RpcRunner* rpc, const PageTokens* tokens)
      : ratings_(ratings), rpc_(rpc), tokens_(tokens) {}

  grpc::ServerUnaryReactor* GetRating(grpc::CallbackServerContext* context,
                                      const v1::GetRatingRequest* request,
                                      v1::GetRatingResponse* response) override;
  grpc::ServerUnaryReactor* GetMyRatings(grpc::CallbackServerContext* context,
                                         const v1::GetMyRatingsRequest* request,
                                         v1::GetMyRatingsResponse* response) override;
  grpc::ServerUnaryReactor* GetLeaderboard(grpc::CallbackServerContext* context,
                                           const v1::GetLeaderboardRequest* request,
                                           v1::GetLeaderboardResponse* response) override;
  grpc::ServerUnaryReactor* GetLeaderboardAroundMe(
      grpc::CallbackServerContext* context, const v1::GetLeaderboardAroundMeRequest* request,
      v1::GetLeaderboardAroundMeResponse* response) override;
  grpc::ServerUnaryReactor* GetRatingHistory(grpc::CallbackServerContext* context,
                                             const v1::GetRatingHistoryRequest* request,
                                             v1::GetRatingHistoryResponse* response) override;
  grpc::ServerUnaryReactor* ListLadders(grpc::CallbackServerContext* context,
                                        const v1::ListLaddersRequest* request,
                                        v1::ListLaddersResponse* response) override;
  grpc::ServerUnaryReactor* ListSeasons(grpc::CallbackServerContext* context,
                                        const v1::ListSeasonsRequest* request,
                                        v1::ListSeasonsResponse* response) override;

 private:
  RatingsService* ratings_;
  RpcRunner* rpc_;
  const PageTokens* tokens_;
};

// Internal RPCs; need a service credential.
class RatingsInternalApi final : public v1::RatingsInternalService::CallbackService {
 public:
  RatingsInternalApi(RatingsService* ratings, RpcRunner* rpc) : ratings_(ratings), rpc_(rpc) {}

  grpc::ServerUnaryReactor* ReportResult(grpc::CallbackServerContext* context,
                                         const v1::ReportResultRequest* request,
                                         v1::ReportResultResponse* response) override;
  grpc::ServerUnaryReactor* BatchGetRatings(grpc::CallbackServerContext* context,
                                            const v1::BatchGetRatingsRequest* request,
                                            v1::BatchGetRatingsResponse* response) override;
  grpc::ServerUnaryReactor* VoidResult(grpc::CallbackServerContext* context,
                                       const v1::VoidResultRequest* request,
                                       v1::VoidResultResponse* response) override;

 private:
  RatingsService* ratings_;
  RpcRunner* rpc_;
};

}  // namespace parlor::ratings

#endif  // PARLOR_SERVICES_RATINGS_API_RATINGS_API_H_
