#ifndef PARLOR_SERVICES_COMMON_RPC_H_
#define PARLOR_SERVICES_COMMON_RPC_H_

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "google/protobuf/descriptor.h"
#include "grpcpp/server_context.h"
#include "grpcpp/support/server_callback.h"
#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/registry.h"
#include "services/common/core/client_address.h"
#include "services/common/core/logging.h"
#include "services/common/core/rate_limit.h"
#include "services/common/core/thread_pool.h"
#include "services/common/core/token.h"
#include "services/common/grpc_status.h"

namespace parlor {

// Who may call an RPC.
enum class Access {
  kPublic,  // no credential (e.g. AuthenticateDevice)
  kPlayer,  // a player's access token
  kService  // an internal service credential; a player's token gets PERMISSION_DENIED
};

// Verifies the bearer credential of a call locally (no call to accounts). Either verifier may be
// absent when a service has no RPC of that access level.
class Authenticator {
 public:
  Authenticator(std::optional<auth::TokenVerifier> access,
                std::optional<auth::TokenVerifier> service)
      : access_(std::move(access)), service_(std::move(service)) {}

  // The caller's claims for `access`, from `authorization: Bearer <token>` metadata. Returns
  // nullopt claims for kPublic.
  absl::StatusOr<std::optional<auth::Claims>> Authenticate(const grpc::ServerContextBase& context,
                                                           Access access, absl::Time now) const;

 private:
  std::optional<auth::TokenVerifier> access_;
  std::optional<auth::TokenVerifier> service_;
};

// How often one caller may call this service's RPCs (token buckets; a rate of 0 disables).
struct RateLimitConfig {
  RateLimit account = {};  // player RPCs, per account
  RateLimit device = {};  // player RPCs, per device (per session for tokens without a device claim)
  RateLimit peer = {};    // public RPCs (AuthenticateDevice, RefreshSession), per client IP address
  // Behind a load balancer or Gateway: the proxies whose `forwarding_header` names the client.
  // A call from one of them counts against the client's address (see ClientAddress); a call from
  // anyone else against its own TCP peer, whatever headers it sends. Empty: always the peer.
  TrustedProxies trusted_proxies = {};
  ForwardingHeader forwarding_header = ForwardingHeader::kXForwardedFor;
};

// The gRPC service and method an RPC runs as, e.g. {"parlor.accounts.v1.AccountsService",
// "GetMe"}; found once per request type from the proto descriptors.
struct MethodName {
  std::string service;
  std::string method;
};
MethodName MethodNameFor(const google::protobuf::Descriptor* request);

// Refuses calls beyond the configured rates with RESOURCE_EXHAUSTED, a message saying when to
// retry and a google.rpc.RetryInfo detail, and counts refusals in
// parlor_rate_limited_total{service,method,scope}. Internal calls (service credentials) are never
// limited here: they are few, trusted, and a refusal would only delay a game's creation or
// result. Thread-safe.
class CallLimiter {
 public:
  // `registry` may be null (no metric).
  CallLimiter(const RateLimitConfig& config, prometheus::Registry* registry);

  // `peer` is the client's address (ClientAddressOf) or grpc's peer string ("ipv4:1.2.3.4:5678",
  // "ipv6:[::1]:5678"). An IPv6 client is counted by its /64 (AddressLimitKey).
  absl::Status Admit(const MethodName& method, Access access,
                     const std::optional<auth::Claims>& caller, absl::string_view peer,
                     absl::Time now);

  // "1.2.3.4" of "ipv4:1.2.3.4:5678"; the whole string if it has no recognisable address.
  static std::string PeerAddress(absl::string_view peer);

  // The address the call comes from: its TCP peer, or, when that is a trusted proxy, the client
  // its forwarding header names (ClientAddress in core/client_address.h).
  std::string ClientAddressOf(const grpc::ServerContextBase& context) const;

 private:
  absl::Status Refuse(const MethodName& method, absl::string_view scope, const RateLimit& limit,
                      absl::Duration wait);

  RateLimiter account_;
  RateLimiter device_;
  RateLimiter peer_;
  TrustedProxies trusted_proxies_;
  ForwardingHeader forwarding_header_;
  prometheus::Family<prometheus::Counter>* refused_ = nullptr;
};

// What a handler body knows about its call.
struct CallContext {
  std::string request_id;
  // Set for Access::kPlayer and kService.
  std::optional<auth::Claims> caller;
  // The client's deadline (absl::InfiniteFuture() if none).
  absl::Time deadline = absl::InfiniteFuture();
  // The client's IP address ("198.51.100.7"): the TCP peer's, or behind trusted proxies the one
  // their forwarding header names (CallLimiter::ClientAddressOf). What per-address budgets count.
  std::string client_address;

  // The calling player's account id (Access::kPlayer RPCs only).
  const std::string& account_id() const { return caller->subject; }
};

// A new request id for a call that brought none: 12 URL-safe characters (72 random bits). It
// only ties log lines and answers together, so it is not drawn from a secret-grade generator.
std::string NewRequestId();

// Runs unary RPC bodies on the service's worker pool and finishes the reactor from there, so
// PostgreSQL work never blocks a gRPC thread. It also sets the request id (from `x-request-id`
// metadata, or a new one, echoed to the client), checks the credential and the caller's rate
// limits before queueing (so a refused call costs no worker and no database work), and maps
// the body's absl::Status through ToGrpcStatus. Usage in a CallbackService:
//
//   grpc::ServerUnaryReactor* GetMe(grpc::CallbackServerContext* context,
//                                   const GetMeRequest* request, GetMeResponse* response) override
//                                   {
//     return rpc_->Run(context, Access::kPlayer, request, response,
//                      [this](const CallContext& call, const GetMeRequest& request,
//                             GetMeResponse* response) { return GetMeBody(call, request, response);
//                             });
//   }
class RpcRunner {
 public:
  using Clock = std::function<absl::Time()>;

  // `limiter` may be null (no rate limits).
  RpcRunner(ThreadPool* workers, const Authenticator* authenticator, Clock clock = &absl::Now,
            CallLimiter* limiter = nullptr)
      : workers_(workers),
        authenticator_(authenticator),
        clock_(std::move(clock)),
        limiter_(limiter) {}

  template <typename Request, typename Response, typename Body>
  grpc::ServerUnaryReactor* Run(grpc::CallbackServerContext* context, Access access,
                                const Request* request, Response* response, Body body) {
    grpc::ServerUnaryReactor* reactor = new CountedReactor(&in_flight_);
    absl::StatusOr<CallContext> call = Start<Request>(*context, access, reactor);
    if (!call.ok()) return reactor;
    const bool queued = workers_->TrySubmit(
        [context, reactor, request, response, call = *std::move(call), body]() mutable {
          ScopedRequestId scoped(call.request_id);
          if (context->IsCancelled()) {
            reactor->Finish(grpc::Status::CANCELLED);
            return;
          }
          absl::Status status = body(static_cast<const CallContext&>(call), *request, response);
          Finish(reactor, status);
        });
    if (!queued) {
      Finish(reactor, absl::UnavailableError("server overloaded; retry with backoff"));
    }
    return reactor;
  }

  // Like Run(), for a body that does not block: `body(call, request, response, done)` runs on
  // the gRPC thread that received the call, hands its work on (e.g. to a group committer) and
  // returns; the call ends when `done(status)` is called, once, from any thread. `request` and
  // `response` stay valid until then. Saves the two thread hand-offs of a worker.
  using Done = std::function<void(absl::Status)>;
  template <typename Request, typename Response, typename Body>
  grpc::ServerUnaryReactor* RunAsync(grpc::CallbackServerContext* context, Access access,
                                     const Request* request, Response* response, Body body) {
    grpc::ServerUnaryReactor* reactor = new CountedReactor(&in_flight_);
    absl::StatusOr<CallContext> call = Start<Request>(*context, access, reactor);
    if (!call.ok()) return reactor;
    ScopedRequestId scoped(call->request_id);
    body(static_cast<const CallContext&>(*call), *request, response,
         Done([reactor](absl::Status status) { Finish(reactor, status); }));
    return reactor;
  }

  absl::Time Now() const { return clock_(); }

  // RPCs started through Run() whose status has not been fully sent yet (used to end the drain
  // early on shutdown).
  int in_flight() const { return in_flight_.load(); }

 private:
  // The reactor of one call; counts itself in `in_flight` until gRPC is done with it.
  class CountedReactor : public grpc::ServerUnaryReactor {
   public:
    explicit CountedReactor(std::atomic<int>* in_flight) : in_flight_(in_flight) {
      in_flight_->fetch_add(1);
    }
    void OnDone() override {
      in_flight_->fetch_sub(1);
      delete this;
    }

   private:
    std::atomic<int>* in_flight_;
  };

  absl::StatusOr<CallContext> Prepare(grpc::CallbackServerContext& context, Access access,
                                      const MethodName& method);
  static void Finish(grpc::ServerUnaryReactor* reactor, const absl::Status& status);

  // Authenticates and admits a call of Request's method; on refusal finishes `reactor` with it.
  template <typename Request>
  absl::StatusOr<CallContext> Start(grpc::CallbackServerContext& context, Access access,
                                    grpc::ServerUnaryReactor* reactor) {
    static const MethodName kMethod = MethodNameFor(Request::descriptor());
    absl::StatusOr<CallContext> call = Prepare(context, access, kMethod);
    if (!call.ok()) Finish(reactor, call.status());
    return call;
  }

  ThreadPool* workers_;
  const Authenticator* authenticator_;
  Clock clock_;
  CallLimiter* limiter_;
  std::atomic<int> in_flight_{0};
};

}  // namespace parlor

#endif  // PARLOR_SERVICES_COMMON_RPC_H_
