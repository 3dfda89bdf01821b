#ifndef PARLOR_SERVICES_SESSIONS_API_SESSIONS_API_H_
#define PARLOR_SERVICES_SESSIONS_API_SESSIONS_API_H_

#include <atomic>
#include <functional>

#include "parlor/sessions/v1/sessions.grpc.pb.h"
#include "services/common/core/thread_pool.h"
#include "services/common/rpc.h"
#include "services/sessions/api/stream_guard.h"
#include "services/sessions/api/watch_hub.h"
#include "services/sessions/domain/sessions.h"

namespace parlor::sessions {

// What the streams need besides the domain.
struct StreamDeps {
  Sessions* sessions = nullptr;
  WatchHub* hub = nullptr;
  // The streams' own pool (never the workers of the unary calls).
  ThreadPool* workers = nullptr;
  // Admission, limits and the checks of open streams (token expiry, sign-out, stalls).
  StreamGuard* guard = nullptr;
  const Authenticator* authenticator = nullptr;
  std::function<absl::Time()> clock;
  // The streams count themselves in sessions->metrics(): open streams, reads, and those the
  // server ends (besides those the guard ends).
};

// gRPC transport for parlor.sessions.v1.SessionsService: proto in, domain call, proto out. Unary
// bodies run on the worker pool through RpcRunner; the two streams are ServerWriteReactors fed by
// the replica's WatchHub, admitted and watched by the StreamGuard, doing their reads on their own
// pool, one page at a time and only once the client has taken the previous one.
class SessionsApi final : public v1::SessionsService::CallbackService {
 public:
  SessionsApi(Sessions* sessions, RpcRunner* rpc, StreamDeps streams)
      : sessions_(sessions), rpc_(rpc), streams_(std::move(streams)) {}

  grpc::ServerUnaryReactor* CreateBotGame(grpc::CallbackServerContext* context,
                                          const v1::CreateBotGameRequest* request,
                                          v1::CreateBotGameResponse* response) override;
  grpc::ServerUnaryReactor* GetGame(grpc::CallbackServerContext* context,
                                    const v1::GetGameRequest* request,
                                    v1::GetGameResponse* response) override;
  grpc::ServerUnaryReactor* ListMyGames(grpc::CallbackServerContext* context,
                                        const v1::ListMyGamesRequest* request,
                                        v1::ListMyGamesResponse* response) override;
  grpc::ServerUnaryReactor* SubmitAction(grpc::CallbackServerContext* context,
                                         const v1::SubmitActionRequest* request,
                                         v1::SubmitActionResponse* response) override;
  grpc::ServerUnaryReactor* Resign(grpc::CallbackServerContext* context,
                                   const v1::ResignRequest* request,
                                   v1::ResignResponse* response) override;
  grpc::ServerUnaryReactor* GetHistory(grpc::CallbackServerContext* context,
                                       const v1::GetHistoryRequest* request,
                                       v1::GetHistoryResponse* response) override;
  grpc::ServerUnaryReactor* ListPublicGames(grpc::CallbackServerContext* context,
                                            const v1::ListPublicGamesRequest* request,
                                            v1::ListPublicGamesResponse* response) override;
  grpc::ServerUnaryReactor* GetPlayerRecords(grpc::CallbackServerContext* context,
                                             const v1::GetPlayerRecordsRequest* request,
                                             v1::GetPlayerRecordsResponse* response) override;
  grpc::ServerUnaryReactor* StartVacation(grpc::CallbackServerContext* context,
                                          const v1::StartVacationRequest* request,
                                          v1::StartVacationResponse* response) override;
  grpc::ServerUnaryReactor* EndVacation(grpc::CallbackServerContext* context,
                                        const v1::EndVacationRequest* request,
                                        v1::EndVacationResponse* response) override;
  grpc::ServerUnaryReactor* SendChatMessage(grpc::CallbackServerContext* context,
                                            const v1::SendChatMessageRequest* request,
                                            v1::SendChatMessageResponse* response) override;
  grpc::ServerUnaryReactor* ListChatMessages(grpc::CallbackServerContext* context,
                                             const v1::ListChatMessagesRequest* request,
                                             v1::ListChatMessagesResponse* response) override;
  grpc::ServerUnaryReactor* ReportChatMessage(grpc::CallbackServerContext* context,
                                              const v1::ReportChatMessageRequest* request,
                                              v1::ReportChatMessageResponse* response) override;
  grpc::ServerUnaryReactor* OfferRematch(grpc::CallbackServerContext* context,
                                         const v1::OfferRematchRequest* request,
                                         v1::OfferRematchResponse* response) override;
  grpc::ServerUnaryReactor* AcceptRematch(grpc::CallbackServerContext* context,
                                          const v1::AcceptRematchRequest* request,
                                          v1::AcceptRematchResponse* response) override;
  grpc::ServerUnaryReactor* DeclineRematch(grpc::CallbackServerContext* context,
                                           const v1::DeclineRematchRequest* request,
                                           v1::DeclineRematchResponse* response) override;
  grpc::ServerUnaryReactor* GetRematch(grpc::CallbackServerContext* context,
                                       const v1::GetRematchRequest* request,
                                       v1::GetRematchResponse* response) override;
  grpc::ServerUnaryReactor* Nudge(grpc::CallbackServerContext* context,
                                  const v1::NudgeRequest* request,
                                  v1::NudgeResponse* response) override;
  grpc::ServerUnaryReactor* MarkSeen(grpc::CallbackServerContext* context,
                                     const v1::MarkSeenRequest* request,
                                     v1::MarkSeenResponse* response) override;
  grpc::ServerWriteReactor<v1::WatchGameResponse>* WatchGame(
      grpc::CallbackServerContext* context, const v1::WatchGameRequest* request) override;
  grpc::ServerWriteReactor<v1::WatchMyGamesResponse>* WatchMyGames(
      grpc::CallbackServerContext* context, const v1::WatchMyGamesRequest* request) override;

 private:
  Sessions* sessions_;
  RpcRunner* rpc_;
  StreamDeps streams_;
};

// Internal RPCs (service credential).
class SessionsInternalApi final : public v1::SessionsInternalService::CallbackService {
 public:
  SessionsInternalApi(Sessions* sessions, RpcRunner* rpc) : sessions_(sessions), rpc_(rpc) {}

  grpc::ServerUnaryReactor* CreateGame(grpc::CallbackServerContext* context,
                                       const v1::CreateGameRequest* request,
                                       v1::CreateGameResponse* response) override;
  grpc::ServerUnaryReactor* BatchGetPlayerRecords(
      grpc::CallbackServerContext* context, const v1::BatchGetPlayerRecordsRequest* request,
      v1::BatchGetPlayerRecordsResponse* response) override;

 private:
  Sessions* sessions_;
  RpcRunner* rpc_;
};

}  // namespace parlor::sessions

#endif  // PARLOR_SERVICES_SESSIONS_API_SESSIONS_API_H_
