#include "services/matchmaking/api/clients.h"

#include <chrono>

#include "absl/strings/str_cat.h"
#include "grpcpp/client_context.h"
#include "services/matchmaking/domain/time_controls.h"

namespace parlor::matchmaking {
namespace {

constexpr size_t kBatch = 100;

absl::Status Prepare(grpc::ClientContext& context, auth::ServiceTokenSource* tokens,
                     absl::Duration timeout) {
  absl::StatusOr<std::string> token = tokens->Token(absl::Now());
  if (!token.ok()) return token.status();
  context.AddMetadata("authorization", absl::StrCat("Bearer ", *token));
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::milliseconds(absl::ToInt64Milliseconds(timeout)));
  return absl::OkStatus();
}

}  // namespace

absl::Status FromGrpcStatus(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()), status.error_message());
}

GrpcAccountDirectory::GrpcAccountDirectory(std::shared_ptr<grpc::Channel> channel,
                                           auth::ServiceTokenSource* tokens, absl::Duration timeout)
    : stub_(accounts::v1::AccountsInternalService::NewStub(channel)),
      tokens_(tokens),
      timeout_(timeout) {}

absl::StatusOr<std::vector<std::string>> GrpcAccountDirectory::BlockedEitherWay(
    const std::string& account_id) {
  accounts::v1::ListBlocksRequest request;
  request.set_account_id(account_id);
  grpc::ClientContext context;
  if (absl::Status s = Prepare(context, tokens_, timeout_); !s.ok()) return s;
  accounts::v1::ListBlocksResponse response;
  grpc::Status status = stub_->ListBlocks(&context, request, &response);
  if (status.error_code() == grpc::StatusCode::INVALID_ARGUMENT) {
    // Not an account id accounts knows the form of: nobody can have blocked it.
    return std::vector<std::string>();
  }
  if (!status.ok()) {
    return absl::UnavailableError(absl::StrCat("the accounts service did not list blocks (",
                                               status.error_message(), "); retry later"));
  }
  std::vector<std::string> out(response.blocked_account_ids().begin(),
                               response.blocked_account_ids().end());
  out.insert(out.end(), response.blocked_by_account_ids().begin(),
             response.blocked_by_account_ids().end());
  return out;
}

absl::StatusOr<std::map<std::string, std::string>> GrpcAccountDirectory::Lookup(
    const std::vector<std::string>& account_ids) {
  std::map<std::string, std::string> found;
  for (size_t start = 0; start < account_ids.size(); start += kBatch) {
    accounts::v1::BatchGetAccountsRequest request;
    for (size_t i = start; i < std::min(account_ids.size(), start + kBatch); ++i) {
      request.add_account_ids(account_ids[i]);
    }
    grpc::ClientContext context;
    if (absl::Status s = Prepare(context, tokens_, timeout_); !s.ok()) return s;
    accounts::v1::BatchGetAccountsResponse response;
    grpc::Status status = stub_->BatchGetAccounts(&context, request, &response);
    if (status.error_code() == grpc::StatusCode::INVALID_ARGUMENT) {
      // accounts refuses malformed ids outright; none of them exists.
      continue;
    }
    if (!status.ok()) {
      return absl::UnavailableError(absl::StrCat("the accounts service did not answer (",
                                                 status.error_message(), "); retry later"));
    }
    for (const accounts::v1::Account& account : response.accounts()) {
      found[account.account_id()] = account.display_name();
    }
  }
  return found;
}

GrpcRatingSource::GrpcRatingSource(std::shared_ptr<grpc::Channel> channel,
                                   auth::ServiceTokenSource* tokens, absl::Duration timeout)
    : stub_(ratings::v1::RatingsInternalService::NewStub(channel)),
      tokens_(tokens),
      timeout_(timeout) {}

absl::StatusOr<double> GrpcRatingSource::Rating(const std::string& account_id,
                                                const std::string& ladder) {
  constexpr double kDefault = 1500;
  ratings::v1::BatchGetRatingsRequest request;
  request.set_ladder(ladder);
  request.add_account_ids(account_id);
  grpc::ClientContext context;
  if (absl::Status s = Prepare(context, tokens_, timeout_); !s.ok()) return s;
  ratings::v1::BatchGetRatingsResponse response;
  grpc::Status status = stub_->BatchGetRatings(&context, request, &response);
  if (status.error_code() == grpc::StatusCode::NOT_FOUND) return kDefault;  // an unrated game
  if (!status.ok()) {
    return absl::UnavailableError(absl::StrCat("the ratings service did not answer (",
                                               status.error_message(), "); retry later"));
  }
  for (const ratings::v1::Rating& r : response.ratings()) {
    if (r.account_id() != account_id) continue;
    if (r.model() == ratings::v1::RATING_MODEL_WENG_LIN) return kDefault + (r.rating() - 25) * 42;
    return r.rating();
  }
  return kDefault;
}

GrpcRecordSource::GrpcRecordSource(std::shared_ptr<grpc::Channel> channel,
                                   auth::ServiceTokenSource* tokens, absl::Duration timeout)
    : stub_(sessions::v1::SessionsInternalService::NewStub(std::move(channel))),
      tokens_(tokens),
      timeout_(timeout) {}

absl::StatusOr<PlayerRecord> GrpcRecordSource::Record(const std::string& account_id) {
  sessions::v1::BatchGetPlayerRecordsRequest request;
  request.add_account_ids(account_id);
  grpc::ClientContext context;
  if (absl::Status s = Prepare(context, tokens_, timeout_); !s.ok()) return s;
  sessions::v1::BatchGetPlayerRecordsResponse response;
  grpc::Status status = stub_->BatchGetPlayerRecords(&context, request, &response);
  if (!status.ok()) {
    return absl::UnavailableError(absl::StrCat("the sessions service did not answer (",
                                               status.error_message(), "); retry later"));
  }
  PlayerRecord record;
  for (const sessions::v1::PlayerRecord& r : response.records()) {
    if (r.account_id() != account_id) continue;
    record.finished = r.finished();
    record.resigned = r.resigned();
    record.timed_out = r.timed_out();
  }
  return record;
}

GrpcGameCreator::GrpcGameCreator(std::shared_ptr<grpc::Channel> channel,
                                 auth::ServiceTokenSource* tokens, AccountDirectory* accounts,
                                 Settings settings)
    : stub_(sessions::v1::SessionsInternalService::NewStub(channel)),
      tokens_(tokens),
      accounts_(accounts),
      settings_(settings) {}

absl::StatusOr<std::string> GrpcGameCreator::CreateGame(const MatchRow& match) {
  absl::StatusOr<std::map<std::string, std::string>> names = accounts_->Lookup(match.seat_accounts);
  if (!names.ok()) return names.status();
  sessions::v1::CreateGameRequest request;
  request.set_match_id(match.match_id);
  request.set_game(match.game);
  if (match.options != "-") {
    for (const auto& [name, value] : GameCatalog::ParseCanonical(match.options)) {
      (*request.mutable_options())[name] = value;
    }
  }
  bool teams_matter = false;
  for (size_t seat = 0; seat < match.seat_teams.size(); ++seat) {
    if (match.seat_teams[seat] != static_cast<int>(seat)) teams_matter = true;
  }
  for (size_t seat = 0; seat < match.seat_accounts.size(); ++seat) {
    sessions::v1::SeatSpec* spec = request.add_seats();
    spec->set_account_id(match.seat_accounts[seat]);
    auto name = names->find(match.seat_accounts[seat]);
    spec->set_display_name(name != names->end() ? name->second : "Player");
    if (teams_matter) spec->set_team(match.seat_teams[seat]);
  }
  request.set_ranked(match.ranked);
  // The time control the tickets (or the challenge) chose from the published set.
  const TimeControlChoice& chosen = TimeControlNamed(match.time_control);
  sessions::v1::TimeControl* time = request.mutable_time_control();
  if (chosen.per_move_s > 0) {
    time->mutable_per_move()->mutable_limit()->set_seconds(chosen.per_move_s);
  } else {
    time->mutable_time_bank()->mutable_initial()->set_seconds(chosen.bank_initial_s);
    time->mutable_time_bank()->mutable_increment()->set_seconds(chosen.bank_increment_s);
  }
  time->set_vacation_days(chosen.vacation_days);
  request.set_visibility(match.visibility == "public" ? sessions::v1::VISIBILITY_PUBLIC
                                                      : sessions::v1::VISIBILITY_PRIVATE);
  grpc::ClientContext context;
  if (absl::Status s = Prepare(context, tokens_, settings_.timeout); !s.ok()) return s;
  sessions::v1::CreateGameResponse response;
  grpc::Status status = stub_->CreateGame(&context, request, &response);
  if (!status.ok()) return FromGrpcStatus(status);
  return response.game().game_id();
}

}  // namespace parlor::matchmaking
