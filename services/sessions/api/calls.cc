#include "services/sessions/api/calls.h"

#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "services/sessions/api/mapping.h"

namespace parlor::sessions::calls {
namespace {

// SubmitAction's answer as kept under its idempotency key: the response's bytes.
std::string EncodeAnswer(const GameWithView& answer) {
  v1::SubmitActionResponse response;
  ToProto(answer, &response);
  return response.SerializeAsString();
}

// The domain's stale-version payload as the API's VersionConflict detail (sent to the client in
// the status details).
absl::Status WithVersionConflict(absl::Status status) {
  const std::optional<StaleVersionDetail> stale = StaleVersionOf(status);
  if (!stale) return status;
  status.ErasePayload(kStaleVersionPayload);
  v1::VersionConflict conflict;
  conflict.set_current_version(stale->current);
  conflict.set_expected_version(stale->expected);
  status.SetPayload(
      absl::StrCat("type.googleapis.com/", v1::VersionConflict::descriptor()->full_name()),
      absl::Cord(conflict.SerializeAsString()));
  return status;
}

// Fills `response` from a SubmitAction's answer.
absl::Status AnswerSubmit(MoveAnswer answer, v1::SubmitActionResponse* response) {
  if (answer.replayed) {
    if (!response->ParseFromString(*answer.replayed)) {
      return absl::DataLossError("stored answer does not parse");
    }
    return absl::OkStatus();
  }
  ToProto(answer.fresh, response);
  return absl::OkStatus();
}

}  // namespace

absl::Status CreateGame(Sessions& sessions, const v1::CreateGameRequest& request,
                        v1::CreateGameResponse* response) {
  response->Clear();
  absl::StatusOr<CreatedGame> created = sessions.CreateGame(FromProto(request));
  if (!created.ok()) return created.status();
  ToProto(created->game, response->mutable_game());
  response->set_created(created->created);
  return absl::OkStatus();
}

absl::Status CreateBotGame(Sessions& sessions, const std::string& account_id,
                           const v1::CreateBotGameRequest& request,
                           v1::CreateBotGameResponse* response) {
  response->Clear();
  absl::StatusOr<CreatedGame> created = sessions.CreateBotGame(account_id, FromProto(request));
  if (!created.ok()) return created.status();
  ToProto(created->game, response->mutable_game());
  response->set_created(created->created);
  return absl::OkStatus();
}

absl::Status GetGame(Sessions& sessions, const std::string& account_id,
                     const v1::GetGameRequest& request, v1::GetGameResponse* response) {
  response->Clear();
  absl::StatusOr<GameWithView> game = sessions.GetGame(account_id, request.game_id());
  if (!game.ok()) return game.status();
  ToProto(*game, response);
  return absl::OkStatus();
}

absl::Status ListMyGames(Sessions& sessions, const std::string& account_id,
                         const v1::ListMyGamesRequest& request, v1::ListMyGamesResponse* response) {
  response->Clear();
  absl::StatusOr<GamePage> page = sessions.ListMyGames(account_id, FromProto(request));
  if (!page.ok()) return page.status();
  for (const GameSummary& g : page->games) ToProto(g, response->add_games());
  response->set_next_page_token(page->next_page_token);
  return absl::OkStatus();
}

absl::Status ListPublicGames(Sessions& sessions, const std::string& account_id,
                             const v1::ListPublicGamesRequest& request,
                             v1::ListPublicGamesResponse* response) {
  response->Clear();
  absl::StatusOr<GamePage> page = sessions.ListPublicGames(account_id, FromProto(request));
  if (!page.ok()) return page.status();
  for (const GameSummary& g : page->games) ToProto(g, response->add_games());
  response->set_next_page_token(page->next_page_token);
  return absl::OkStatus();
}

absl::Status SubmitAction(Sessions& sessions, const std::string& account_id,
                          const v1::SubmitActionRequest& request,
                          v1::SubmitActionResponse* response) {
  response->Clear();
  absl::StatusOr<MoveAnswer> answer =
      sessions.SubmitAction(account_id, FromProto(request), EncodeAnswer);
  if (!answer.ok()) return WithVersionConflict(answer.status());
  return AnswerSubmit(*std::move(answer), response);
}

void SubmitActionAsync(Sessions& sessions, const std::string& account_id,
                       const v1::SubmitActionRequest& request, v1::SubmitActionResponse* response,
                       std::function<void(absl::Status)> done) {
  response->Clear();
  // What the domain holds until it is done.
  struct Call {
    SubmitRequest request;
    AnswerEncoder encode = EncodeAnswer;
    MoveAnswer answer;
  };
  auto call = std::make_shared<Call>();
  call->request = FromProto(request);
  Call* const c = call.get();
  sessions.SubmitActionAsync(account_id, c->request, c->encode, &c->answer,
                             [call, response, done = std::move(done)](absl::Status status) {
                               if (status.ok()) {
                                 status = AnswerSubmit(std::move(call->answer), response);
                               }
                               done(WithVersionConflict(std::move(status)));
                             });
}

absl::Status Resign(Sessions& sessions, const std::string& account_id,
                    const v1::ResignRequest& request, v1::ResignResponse* response) {
  response->Clear();
  absl::StatusOr<GameSummary> game = sessions.Resign(account_id, request.game_id());
  if (!game.ok()) return game.status();
  ToProto(*game, response->mutable_game());
  return absl::OkStatus();
}

absl::Status GetHistory(Sessions& sessions, const std::string& account_id,
                        const v1::GetHistoryRequest& request, v1::GetHistoryResponse* response) {
  response->Clear();
  absl::StatusOr<History> history = sessions.GetHistory(account_id, FromProto(request));
  if (!history.ok()) return history.status();
  for (const HistoryEvent& e : history->events) ToProto(e, response->add_events());
  response->set_current_version(history->current_version);
  return absl::OkStatus();
}

absl::Status SendChatMessage(Sessions& sessions, const std::string& account_id,
                             const v1::SendChatMessageRequest& request,
                             v1::SendChatMessageResponse* response) {
  response->Clear();
  absl::StatusOr<ChatMessage> message =
      sessions.SendChatMessage(account_id, request.game_id(), request.text());
  if (!message.ok()) return message.status();
  ToProto(*message, response->mutable_message());
  return absl::OkStatus();
}

absl::Status ListChatMessages(Sessions& sessions, const std::string& account_id,
                              const v1::ListChatMessagesRequest& request,
                              v1::ListChatMessagesResponse* response) {
  response->Clear();
  absl::StatusOr<ChatPage> page = sessions.ListChatMessages(account_id, FromProto(request));
  if (!page.ok()) return page.status();
  for (const ChatMessage& m : page->messages) ToProto(m, response->add_messages());
  response->set_next_before_message_id(page->next_before_message_id);
  return absl::OkStatus();
}

absl::Status OfferRematch(Sessions& sessions, const std::string& account_id,
                          const v1::OfferRematchRequest& request,
                          v1::OfferRematchResponse* response) {
  response->Clear();
  absl::StatusOr<RematchAnswer> r = sessions.OfferRematch(account_id, request.game_id());
  if (!r.ok()) return r.status();
  ToProto(r->rematch, response->mutable_rematch());
  if (r->game) ToProto(*r->game, response->mutable_game());
  return absl::OkStatus();
}

absl::Status AcceptRematch(Sessions& sessions, const std::string& account_id,
                           const v1::AcceptRematchRequest& request,
                           v1::AcceptRematchResponse* response) {
  response->Clear();
  absl::StatusOr<RematchAnswer> r = sessions.AcceptRematch(account_id, request.game_id());
  if (!r.ok()) return r.status();
  ToProto(r->rematch, response->mutable_rematch());
  if (r->game) ToProto(*r->game, response->mutable_game());
  return absl::OkStatus();
}

absl::Status DeclineRematch(Sessions& sessions, const std::string& account_id,
                            const v1::DeclineRematchRequest& request,
                            v1::DeclineRematchResponse* response) {
  response->Clear();
  absl::StatusOr<Rematch> r = sessions.DeclineRematch(account_id, request.game_id());
  if (!r.ok()) return r.status();
  ToProto(*r, response->mutable_rematch());
  return absl::OkStatus();
}

absl::Status GetRematch(Sessions& sessions, const std::string& account_id,
                        const v1::GetRematchRequest& request, v1::GetRematchResponse* response) {
  response->Clear();
  absl::StatusOr<std::optional<Rematch>> r = sessions.GetRematch(account_id, request.game_id());
  if (!r.ok()) return r.status();
  if (*r) ToProto(**r, response->mutable_rematch());
  return absl::OkStatus();
}

absl::StatusOr<v1::Game> SummaryOf(Sessions& sessions, const std::string& account_id,
                                   absl::string_view game_id) {
  absl::StatusOr<parlor::sessions::GameSummary> game = sessions.SummaryFor(account_id, game_id);
  if (!game.ok()) return game.status();
  return ToProto(*game);
}

absl::Status WatchEvents(Sessions& sessions, const std::string& account_id,
                         absl::string_view game_id, int64_t after_version, int limit,
                         std::vector<v1::WatchGameResponse>* out) {
  std::vector<FeedItem> items;
  absl::Status status = sessions.WatchEvents(account_id, game_id, after_version, limit, &items);
  for (const FeedItem& item : items) ToProto(item, &out->emplace_back());
  return status;
}

}  // namespace parlor::sessions::calls
