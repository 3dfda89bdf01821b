#include "services/sessions/outbox/ratings_reporter.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/time_util.h"
#include "grpcpp/channel.h"
#include "grpcpp/client_context.h"

namespace parlor::sessions {

absl::StatusOr<ratings::v1::ReportResultRequest> BuildReportResult(const GameRow& game) {
  if (!game.finished) return absl::FailedPreconditionError("the game has not ended");
  ratings::v1::ReportResultRequest request;
  request.set_game_id(game.game_id);
  request.set_game(game.game);
  request.set_ranked(game.ranked);
  for (const SeatRow& s : game.seats) {
    if (s.account_id.empty()) {
      return absl::CancelledError("not reported: the game had computer seats");
    }
    ratings::v1::ResultSeat* seat = request.add_seats();
    seat->set_seat(s.seat);
    seat->set_account_id(s.account_id);
    seat->set_team(s.team);
    ratings::v1::Placement* placement = request.add_placements();
    placement->set_account_id(s.account_id);
    placement->set_rank(s.seat < static_cast<int>(game.ranks.size()) ? game.ranks[s.seat] : 0);
  }
  *request.mutable_finish_time() = google::protobuf::util::TimeUtil::MicrosecondsToTimestamp(
      absl::ToUnixMicros(game.updated_at));
  return request;
}

RatingsReporter::RatingsReporter(std::shared_ptr<grpc::Channel> channel, auth::TokenSigner signer,
                                 absl::Duration timeout)
    : stub_(ratings::v1::RatingsInternalService::NewStub(std::move(channel))),
      signer_(std::move(signer)),
      timeout_(timeout) {}

absl::Status RatingsReporter::Report(const GameRow& game) {
  absl::StatusOr<ratings::v1::ReportResultRequest> request = BuildReportResult(game);
  if (!request.ok()) return request.status();
  absl::StatusOr<std::string> token = signer_.Sign("sessions", "", absl::Now(), absl::Minutes(5));
  if (!token.ok()) return token.status();
  grpc::ClientContext context;
  context.AddMetadata("authorization", absl::StrCat("Bearer ", *token));
  context.set_deadline(absl::ToChronoTime(absl::Now() + timeout_));
  ratings::v1::ReportResultResponse response;
  grpc::Status status = stub_->ReportResult(&context, *request, &response);
  if (status.ok()) return absl::OkStatus();
  if (status.error_code() == grpc::StatusCode::CANCELLED) {
    return absl::UnavailableError("ratings.ReportResult was cancelled; will retry");
  }
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                      absl::StrCat("ratings.ReportResult: ", status.error_message()));
}

}  // namespace parlor::sessions
