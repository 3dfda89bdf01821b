#include "services/accounts/api/export_sources.h"

#include <chrono>
#include <set>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"
#include "grpcpp/client_context.h"

namespace parlor::accounts {
namespace {

// A player with more than this many pages of games or history gets the first ones (100 each).
constexpr int kMaxPages = 200;

std::unique_ptr<grpc::ClientContext> Context(const std::string& authorization) {
  auto context = std::make_unique<grpc::ClientContext>();
  context->AddMetadata("authorization", authorization);
  context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  return context;
}

absl::Status Refused(const char* service, const char* rpc, const grpc::Status& status) {
  return absl::UnavailableError(absl::StrCat("could not gather your data from the ", service,
                                             " service (", rpc, ": ", status.error_message(),
                                             "); nothing was exported, try again"));
}

// The message as a JSON value (proto3 JSON mapping, as the export's other parts).
absl::Status AppendJson(const google::protobuf::Message& message,
                        google::protobuf::ListValue* out) {
  std::string json;
  if (!google::protobuf::util::MessageToJsonString(message, &json).ok() ||
      !google::protobuf::util::JsonStringToMessage(json, out->add_values()).ok()) {
    return absl::InternalError(
        absl::StrCat("could not write a ", message.GetTypeName(), " of the export as JSON"));
  }
  return absl::OkStatus();
}

}  // namespace

ExportSources::ExportSources(std::shared_ptr<grpc::Channel> sessions,
                             std::shared_ptr<grpc::Channel> ratings)
    : sessions_(sessions ? sessions::v1::SessionsService::NewStub(sessions) : nullptr),
      ratings_(ratings ? ratings::v1::RatingsService::NewStub(ratings) : nullptr) {}

absl::Status ExportSources::Gather(const std::string& authorization, google::protobuf::Struct* out,
                                   std::vector<std::string>* omitted) const {
  auto& fields = *out->mutable_fields();
  if (sessions_ != nullptr) {
    if (absl::Status s = GatherGames(authorization, fields["games"].mutable_list_value());
        !s.ok()) {
      return s;
    }
  } else {
    omitted->push_back("games");
  }
  if (ratings_ != nullptr) {
    if (absl::Status s = GatherRatings(authorization, fields["ratings"].mutable_list_value(),
                                       fields["ratingHistory"].mutable_list_value());
        !s.ok()) {
      return s;
    }
  } else {
    omitted->push_back("ratings");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<sessions::v1::Game>> ExportSources::ActiveGames(
    const std::string& authorization) const {
  if (sessions_ == nullptr) {
    return absl::FailedPreconditionError("this deployment does not reach the sessions service");
  }
  std::vector<sessions::v1::Game> games;
  for (sessions::v1::GameFilter filter :
       {sessions::v1::GAME_FILTER_MY_TURN, sessions::v1::GAME_FILTER_WAITING}) {
    sessions::v1::ListMyGamesRequest request;
    request.set_filter(filter);
    request.set_page_size(100);
    for (int page = 0; page < 10; ++page) {
      sessions::v1::ListMyGamesResponse response;
      grpc::Status status =
          sessions_->ListMyGames(Context(authorization).get(), request, &response);
      if (!status.ok()) return Refused("sessions", "ListMyGames", status);
      games.insert(games.end(), response.games().begin(), response.games().end());
      if (response.next_page_token().empty()) break;
      request.set_page_token(response.next_page_token());
    }
  }
  return games;
}

absl::Status ExportSources::GatherGames(const std::string& authorization,
                                        google::protobuf::ListValue* games) const {
  sessions::v1::ListMyGamesRequest request;
  request.set_filter(sessions::v1::GAME_FILTER_UNSPECIFIED);  // all of them
  request.set_page_size(100);
  for (int page = 0; page < kMaxPages; ++page) {
    sessions::v1::ListMyGamesResponse response;
    grpc::Status status = sessions_->ListMyGames(Context(authorization).get(), request, &response);
    if (!status.ok()) return Refused("sessions", "ListMyGames", status);
    for (const sessions::v1::Game& game : response.games()) {
      if (absl::Status s = AppendJson(game, games); !s.ok()) return s;
    }
    if (response.next_page_token().empty()) break;
    request.set_page_token(response.next_page_token());
  }
  return absl::OkStatus();
}

absl::Status ExportSources::GatherRatings(const std::string& authorization,
                                          google::protobuf::ListValue* ratings,
                                          google::protobuf::ListValue* history) const {
  ratings::v1::ListSeasonsResponse seasons;
  grpc::Status status = ratings_->ListSeasons(Context(authorization).get(),
                                              ratings::v1::ListSeasonsRequest(), &seasons);
  if (!status.ok()) return Refused("ratings", "ListSeasons", status);
  std::set<std::string> ladders;
  for (const ratings::v1::Season& season : seasons.seasons()) {
    ratings::v1::GetMyRatingsRequest request;
    request.set_season_id(season.season_id());
    ratings::v1::GetMyRatingsResponse mine;
    status = ratings_->GetMyRatings(Context(authorization).get(), request, &mine);
    if (!status.ok()) return Refused("ratings", "GetMyRatings", status);
    for (const ratings::v1::Rating& rating : mine.ratings()) {
      ladders.insert(rating.ladder());
      if (absl::Status s = AppendJson(rating, ratings); !s.ok()) return s;
    }
  }
  for (const std::string& ladder : ladders) {
    ratings::v1::GetRatingHistoryRequest request;
    request.set_ladder(ladder);
    request.set_page_size(200);
    for (int page = 0; page < kMaxPages; ++page) {
      ratings::v1::GetRatingHistoryResponse response;
      status = ratings_->GetRatingHistory(Context(authorization).get(), request, &response);
      if (!status.ok()) return Refused("ratings", "GetRatingHistory", status);
      for (const ratings::v1::RatingHistoryEntry& entry : response.entries()) {
        if (absl::Status s = AppendJson(entry, history); !s.ok()) return s;
      }
      if (response.next_page_token().empty()) break;
      request.set_page_token(response.next_page_token());
    }
  }
  return absl::OkStatus();
}

}  // namespace parlor::accounts
