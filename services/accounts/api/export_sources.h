#ifndef PARLOR_SERVICES_ACCOUNTS_API_EXPORT_SOURCES_H_
#define PARLOR_SERVICES_ACCOUNTS_API_EXPORT_SOURCES_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "google/protobuf/struct.pb.h"
#include "grpcpp/channel.h"
#include "parlor/ratings/v1/ratings.grpc.pb.h"
#include "parlor/sessions/v1/sessions.grpc.pb.h"

namespace parlor::accounts {

// Where ExportMyData gathers what other services hold about the caller: their games (sessions
// ListMyGames) and ratings (ratings GetMyRatings for every season, and the rating history of every
// ladder), asked for on the caller's behalf with the caller's own access token, so each service
// applies its usual rules about what the caller may see. A service without a channel is left out
// of the export (and named in `omitted`).
class ExportSources {
 public:
  // Either channel may be null (that service is not reachable from this deployment).
  ExportSources(std::shared_ptr<grpc::Channel> sessions, std::shared_ptr<grpc::Channel> ratings);

  // The caller's games in progress (up to 1000), or UNAVAILABLE; FAILED_PRECONDITION when this
  // deployment does not reach sessions.
  absl::StatusOr<std::vector<sessions::v1::Game>> ActiveGames(
      const std::string& authorization) const;

  // Adds "games", "ratings" and "ratingHistory" to `out` (proto3 JSON of the services' messages).
  // UNAVAILABLE, naming the service, when one answers with an error.
  absl::Status Gather(const std::string& authorization, google::protobuf::Struct* out,
                      std::vector<std::string>* omitted) const;

 private:
  absl::Status GatherGames(const std::string& authorization,
                           google::protobuf::ListValue* games) const;
  absl::Status GatherRatings(const std::string& authorization, google::protobuf::ListValue* ratings,
                             google::protobuf::ListValue* history) const;

  std::unique_ptr<sessions::v1::SessionsService::Stub> sessions_;
  std::unique_ptr<ratings::v1::RatingsService::Stub> ratings_;
};

}  // namespace parlor::accounts

#endif  // PARLOR_SERVICES_ACCOUNTS_API_EXPORT_SOURCES_H_
