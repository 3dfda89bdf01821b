#ifndef PARLOR_SERVICES_SESSIONS_API_CALLS_H_
#define PARLOR_SERVICES_SESSIONS_API_CALLS_H_

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "parlor/sessions/v1/sessions.pb.h"
#include "services/sessions/domain/sessions.h"

// The sessions domain behind the API's messages: each RPC's request mapped (api/mapping.h), the
// domain called, its answer mapped into the response. The gRPC handlers (sessions_api.cc) and
// the domain's PostgreSQL tests call these; `account_id` is the authenticated caller.
namespace parlor::sessions::calls {

absl::Status CreateGame(Sessions& sessions, const v1::CreateGameRequest& request,
                        v1::CreateGameResponse* response);
absl::Status CreateBotGame(Sessions& sessions, const std::string& account_id,
                           const v1::CreateBotGameRequest& request,
                           v1::CreateBotGameResponse* response);
absl::Status GetGame(Sessions& sessions, const std::string& account_id,
                     const v1::GetGameRequest& request, v1::GetGameResponse* response);
absl::Status ListMyGames(Sessions& sessions, const std::string& account_id,
                         const v1::ListMyGamesRequest& request, v1::ListMyGamesResponse* response);
absl::Status ListPublicGames(Sessions& sessions, const std::string& account_id,
                             const v1::ListPublicGamesRequest& request,
                             v1::ListPublicGamesResponse* response);
absl::Status SubmitAction(Sessions& sessions, const std::string& account_id,
                          const v1::SubmitActionRequest& request,
                          v1::SubmitActionResponse* response);
// SubmitAction without blocking (Sessions::SubmitActionAsync): `request` and `response` must
// stay alive until `done` is called. A stale expected_version's ABORTED carries the
// VersionConflict detail.
void SubmitActionAsync(Sessions& sessions, const std::string& account_id,
                       const v1::SubmitActionRequest& request, v1::SubmitActionResponse* response,
                       std::function<void(absl::Status)> done);
absl::Status Resign(Sessions& sessions, const std::string& account_id,
                    const v1::ResignRequest& request, v1::ResignResponse* response);
absl::Status GetHistory(Sessions& sessions, const std::string& account_id,
                        const v1::GetHistoryRequest& request, v1::GetHistoryResponse* response);
absl::Status SendChatMessage(Sessions& sessions, const std::string& account_id,
                             const v1::SendChatMessageRequest& request,
                             v1::SendChatMessageResponse* response);
absl::Status ListChatMessages(Sessions& sessions, const std::string& account_id,
                              const v1::ListChatMessagesRequest& request,
                              v1::ListChatMessagesResponse* response);
absl::Status OfferRematch(Sessions& sessions, const std::string& account_id,
                          const v1::OfferRematchRequest& request,
                          v1::OfferRematchResponse* response);
absl::Status AcceptRematch(Sessions& sessions, const std::string& account_id,
                           const v1::AcceptRematchRequest& request,
                           v1::AcceptRematchResponse* response);
absl::Status DeclineRematch(Sessions& sessions, const std::string& account_id,
                            const v1::DeclineRematchRequest& request,
                            v1::DeclineRematchResponse* response);
absl::Status GetRematch(Sessions& sessions, const std::string& account_id,
                        const v1::GetRematchRequest& request, v1::GetRematchResponse* response);

// The game's summary as the account sees it (WatchGame, WatchMyGames).
absl::StatusOr<v1::Game> SummaryOf(Sessions& sessions, const std::string& account_id,
                                   absl::string_view game_id);
// Sessions::WatchEvents as WatchGame sends them.
absl::Status WatchEvents(Sessions& sessions, const std::string& account_id,
                         absl::string_view game_id, int64_t after_version, int limit,
                         std::vector<v1::WatchGameResponse>* out);

}  // namespace parlor::sessions::calls

#endif  // PARLOR_SERVICES_SESSIONS_API_CALLS_H_
