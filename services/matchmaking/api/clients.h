#ifndef PARLOR_SERVICES_MATCHMAKING_API_CLIENTS_H_
#define PARLOR_SERVICES_MATCHMAKING_API_CLIENTS_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "grpcpp/channel.h"
#include "parlor/accounts/v1/accounts.grpc.pb.h"
#include "parlor/ratings/v1/ratings.grpc.pb.h"
#include "parlor/sessions/v1/sessions.grpc.pb.h"
#include "services/common/core/token.h"
#include "services/matchmaking/domain/catalog.h"
#include "services/matchmaking/domain/clients.h"

namespace parlor::matchmaking {

// accounts.AccountsInternalService.BatchGetAccounts and ListBlocks with the internal service
// credential.
class GrpcAccountDirectory final : public AccountDirectory, public BlockSource {
 public:
  GrpcAccountDirectory(std::shared_ptr<grpc::Channel> channel, auth::ServiceTokenSource* tokens,
                       absl::Duration timeout = absl::Seconds(5));
  absl::StatusOr<std::map<std::string, std::string>> Lookup(
      const std::vector<std::string>& account_ids) override;
  // UNAVAILABLE when the accounts service does not answer (the ticket is refused rather than
  // queued without its blocks).
  absl::StatusOr<std::vector<std::string>> BlockedEitherWay(const std::string& account_id) override;

 private:
  std::unique_ptr<accounts::v1::AccountsInternalService::Stub> stub_;
  auth::ServiceTokenSource* tokens_;
  absl::Duration timeout_;
};

// ratings.RatingsInternalService.BatchGetRatings with the internal service credential. A player
// the answer leaves out gets the ladder default. Weng-Lin ladders (μ, starting at 25) are put on
// the Glicko-2 scale of the rating windows: 1500 + (μ − 25) · 42 (42 = 350 / (25/3), the ratio of
// the two models' starting deviations), so the window flags mean the same on every ladder.
// UNAVAILABLE when the service does not answer (the ticket is refused, never given a made-up
// rating).
class GrpcRatingSource final : public RatingSource {
 public:
  GrpcRatingSource(std::shared_ptr<grpc::Channel> channel, auth::ServiceTokenSource* tokens,
                   absl::Duration timeout = absl::Seconds(5));
  absl::StatusOr<double> Rating(const std::string& account_id, const std::string& ladder) override;

 private:
  std::unique_ptr<ratings::v1::RatingsInternalService::Stub> stub_;
  auth::ServiceTokenSource* tokens_;
  absl::Duration timeout_;
};

// sessions.SessionsInternalService.BatchGetPlayerRecords with the internal credential. UNAVAILABLE
// when sessions does not answer (the ranked ticket is refused, never let through unchecked).
class GrpcRecordSource final : public RecordSource {
 public:
  GrpcRecordSource(std::shared_ptr<grpc::Channel> channel, auth::ServiceTokenSource* tokens,
                   absl::Duration timeout = absl::Seconds(5));
  absl::StatusOr<PlayerRecord> Record(const std::string& account_id) override;

 private:
  std::unique_ptr<sessions::v1::SessionsInternalService::Stub> stub_;
  auth::ServiceTokenSource* tokens_;
  absl::Duration timeout_;
};

// sessions.SessionsInternalService.CreateGame with the internal credential; the match id is the
// idempotency key, so retrying after any failure is safe.
class GrpcGameCreator final : public GameCreator {
 public:
  // The game's time control and visibility are the match's (domain/time_controls.h).
  struct Settings {
    absl::Duration timeout = absl::Seconds(10);
  };
  GrpcGameCreator(std::shared_ptr<grpc::Channel> channel, auth::ServiceTokenSource* tokens,
                  AccountDirectory* accounts, Settings settings);
  absl::StatusOr<std::string> CreateGame(const MatchRow& match) override;

 private:
  std::unique_ptr<sessions::v1::SessionsInternalService::Stub> stub_;
  auth::ServiceTokenSource* tokens_;
  AccountDirectory* accounts_;
  Settings settings_;
};

// Maps a client-side gRPC status to absl::Status (codes one to one, message kept).
absl::Status FromGrpcStatus(const grpc::Status& status);

}  // namespace parlor::matchmaking

#endif  // PARLOR_SERVICES_MATCHMAKING_API_CLIENTS_H_
