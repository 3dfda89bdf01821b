#ifndef PARLOR_SERVICES_MATCHMAKING_API_MATCHMAKING_API_H_
#define PARLOR_SERVICES_MATCHMAKING_API_MATCHMAKING_API_H_

#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "parlor/matchmaking/v1/matchmaking.grpc.pb.h"
#include "services/common/rpc.h"
#include "services/matchmaking/domain/matchmaking_service.h"

namespace parlor::matchmaking {

class TicketWatch;

// Polls the tickets of every open WatchMyTickets stream every `interval`, all of them in one
// read per round on its own thread; a newly opened stream, or one woken, is polled at once.
class WatchHub {
 public:
  WatchHub(MatchmakingService* service, absl::Duration interval);
  ~WatchHub();
  void Add(TicketWatch* watch);
  void Remove(TicketWatch* watch);
  // The streams of these players are polled at once (their tickets just changed here).
  void Wake(const std::vector<std::string>& players);
  void Stop();

 private:
  void Loop();
  void Poll(const std::vector<TicketWatch*>& round, const std::vector<TicketWatchQuery>& queries);
  void Poke();
  MatchmakingService* service_;
  absl::Duration interval_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool due_ = false;  // some stream is due before the next round of all
  std::set<TicketWatch*> watches_;
  std::thread thread_;
};

// gRPC transport for MatchmakingService: proto <-> domain translation only. Unary bodies run on
// the worker pool through RpcRunner (authentication and status mapping included).
class MatchmakingApi final : public v1::MatchmakingService::CallbackService {
 public:
  MatchmakingApi(MatchmakingService* service, RpcRunner* rpc, const Authenticator* authenticator,
                 WatchHub* hub)
      : service_(service), rpc_(rpc), authenticator_(authenticator), hub_(hub) {}

  grpc::ServerUnaryReactor* Enqueue(grpc::CallbackServerContext* context,
                                    const v1::EnqueueRequest* request,
                                    v1::EnqueueResponse* response) override;
  grpc::ServerUnaryReactor* GetTicket(grpc::CallbackServerContext* context,
                                      const v1::GetTicketRequest* request,
                                      v1::GetTicketResponse* response) override;
  grpc::ServerUnaryReactor* CancelTicket(grpc::CallbackServerContext* context,
                                         const v1::CancelTicketRequest* request,
                                         v1::CancelTicketResponse* response) override;
  grpc::ServerUnaryReactor* ListMyTickets(grpc::CallbackServerContext* context,
                                          const v1::ListMyTicketsRequest* request,
                                          v1::ListMyTicketsResponse* response) override;
  grpc::ServerWriteReactor<v1::WatchMyTicketsResponse>* WatchMyTickets(
      grpc::CallbackServerContext* context, const v1::WatchMyTicketsRequest* request) override;
  grpc::ServerUnaryReactor* CreateParty(grpc::CallbackServerContext* context,
                                        const v1::CreatePartyRequest* request,
                                        v1::CreatePartyResponse* response) override;
  grpc::ServerUnaryReactor* JoinParty(grpc::CallbackServerContext* context,
                                      const v1::JoinPartyRequest* request,
                                      v1::JoinPartyResponse* response) override;
  grpc::ServerUnaryReactor* LeaveParty(grpc::CallbackServerContext* context,
                                       const v1::LeavePartyRequest* request,
                                       v1::LeavePartyResponse* response) override;
  grpc::ServerUnaryReactor* InviteToParty(grpc::CallbackServerContext* context,
                                          const v1::InviteToPartyRequest* request,
                                          v1::InviteToPartyResponse* response) override;
  grpc::ServerUnaryReactor* DeclinePartyInvite(grpc::CallbackServerContext* context,
                                               const v1::DeclinePartyInviteRequest* request,
                                               v1::DeclinePartyInviteResponse* response) override;
  grpc::ServerUnaryReactor* ListMyPartyInvites(grpc::CallbackServerContext* context,
                                               const v1::ListMyPartyInvitesRequest* request,
                                               v1::ListMyPartyInvitesResponse* response) override;
  grpc::ServerUnaryReactor* Challenge(grpc::CallbackServerContext* context,
                                      const v1::ChallengeRequest* request,
                                      v1::ChallengeResponse* response) override;
  grpc::ServerUnaryReactor* AcceptChallenge(grpc::CallbackServerContext* context,
                                            const v1::AcceptChallengeRequest* request,
                                            v1::AcceptChallengeResponse* response) override;
  grpc::ServerUnaryReactor* DeclineChallenge(grpc::CallbackServerContext* context,
                                             const v1::DeclineChallengeRequest* request,
                                             v1::DeclineChallengeResponse* response) override;
  grpc::ServerUnaryReactor* ListMyChallenges(grpc::CallbackServerContext* context,
                                             const v1::ListMyChallengesRequest* request,
                                             v1::ListMyChallengesResponse* response) override;
  grpc::ServerUnaryReactor* ListTimeControls(grpc::CallbackServerContext* context,
                                             const v1::ListTimeControlsRequest* request,
                                             v1::ListTimeControlsResponse* response) override;

 private:
  MatchmakingService* service_;
  RpcRunner* rpc_;
  const Authenticator* authenticator_;
  WatchHub* hub_;
};

void ToProto(const TicketRow& ticket, v1::Ticket* out);

}  // namespace parlor::matchmaking

#endif  // PARLOR_SERVICES_MATCHMAKING_API_MATCHMAKING_API_H_
