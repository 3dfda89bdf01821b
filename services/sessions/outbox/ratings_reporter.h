#ifndef PARLOR_SERVICES_SESSIONS_OUTBOX_RATINGS_REPORTER_H_
#define PARLOR_SERVICES_SESSIONS_OUTBOX_RATINGS_REPORTER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "grpcpp/channel.h"
#include "parlor/ratings/v1/ratings.grpc.pb.h"
#include "services/common/core/token.h"
#include "services/sessions/outbox/dispatcher.h"

namespace parlor::sessions {

// Builds the ratings.ReportResult request for a finished game. Games with computer seats are
// not reported (CANCELLED: acknowledged without sending), since ratings only rate players.
absl::StatusOr<ratings::v1::ReportResultRequest> BuildReportResult(const GameRow& game);

// Sends results to parlor.ratings.v1.RatingsInternalService.ReportResult with a service
// credential signed by this service.
class RatingsReporter final : public ResultReporter {
 public:
  RatingsReporter(std::shared_ptr<grpc::Channel> channel, auth::TokenSigner signer,
                  absl::Duration timeout);
  absl::Status Report(const GameRow& game) override;

 private:
  std::unique_ptr<ratings::v1::RatingsInternalService::Stub> stub_;
  auth::TokenSigner signer_;
  absl::Duration timeout_;
};

}  // namespace parlor::sessions

#endif  // PARLOR_SERVICES_SESSIONS_OUTBOX_RATINGS_REPORTER_H_
