#include "services/common/rpc.h"

#include <cstdint>
#include <vector>

#include "absl/random/random.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "spdlog/spdlog.h"

namespace parlor {
namespace {

constexpr absl::string_view kBearer = "Bearer ";
constexpr size_t kMaxRequestIdLength = 64;

bool IsValidRequestId(absl::string_view id) {
  if (id.empty() || id.size() > kMaxRequestIdLength) return false;
  for (char c : id) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_' || c == '.';
    if (!ok) return false;
  }
  return true;
}

std::optional<absl::string_view> Metadata(const grpc::ServerContextBase& context,
                                          absl::string_view key) {
  const auto& metadata = context.client_metadata();
  auto it = metadata.find(grpc::string_ref(key.data(), key.size()));
  if (it == metadata.end()) return std::nullopt;
  return absl::string_view(it->second.data(), it->second.size());
}

std::string DescribeLimit(const RateLimit& limit) {
  return absl::StrCat(limit.per_minute, " calls a minute, bursts of ", limit.burst);
}

}  // namespace

MethodName MethodNameFor(const google::protobuf::Descriptor* request) {
  const google::protobuf::FileDescriptor* file = request->file();
  for (int s = 0; s < file->service_count(); ++s) {
    const google::protobuf::ServiceDescriptor* service = file->service(s);
    for (int m = 0; m < service->method_count(); ++m) {
      if (service->method(m)->input_type() == request) {
        return {service->full_name(), service->method(m)->name()};
      }
    }
  }
  // Request types follow buf's <Method>Request naming, so the name still says which RPC it is.
  std::string method = request->name();
  if (absl::EndsWith(method, "Request")) method.resize(method.size() - 7);
  return {file->package(), method};
}

CallLimiter::CallLimiter(const RateLimitConfig& config, prometheus::Registry* registry)
    : account_(config.account),
      device_(config.device),
      peer_(config.peer),
      trusted_proxies_(config.trusted_proxies),
      forwarding_header_(config.forwarding_header) {
  if (registry != nullptr) {
    refused_ = &prometheus::BuildCounter()
                    .Name("parlor_rate_limited_total")
                    .Help(
                        "Calls refused with RESOURCE_EXHAUSTED by a per-caller rate limit, by "
                        "service, method and scope (account, device, peer).")
                    .Register(*registry);
  }
}

std::string CallLimiter::PeerAddress(absl::string_view peer) {
  absl::string_view rest = peer;
  if (absl::ConsumePrefix(&rest, "ipv4:")) {
    const size_t colon = rest.rfind(':');
    return std::string(colon == absl::string_view::npos ? rest : rest.substr(0, colon));
  }
  if (absl::ConsumePrefix(&rest, "ipv6:[")) {
    const size_t bracket = rest.find(']');
    if (bracket != absl::string_view::npos) return std::string(rest.substr(0, bracket));
  }
  return std::string(peer);
}

std::string CallLimiter::ClientAddressOf(const grpc::ServerContextBase& context) const {
  const std::string peer = PeerAddress(context.peer());
  if (trusted_proxies_.empty()) return peer;
  const absl::string_view key = ForwardingHeaderKey(forwarding_header_);
  std::vector<absl::string_view> values;
  const auto range =
      context.client_metadata().equal_range(grpc::string_ref(key.data(), key.size()));
  for (auto it = range.first; it != range.second; ++it) {
    values.emplace_back(it->second.data(), it->second.size());
  }
  return ClientAddress(peer, values, forwarding_header_, trusted_proxies_);
}

absl::Status CallLimiter::Refuse(const MethodName& method, absl::string_view scope,
                                 const RateLimit& limit, absl::Duration wait) {
  if (refused_ != nullptr) {
    refused_
        ->Add(
            {{"service", method.service}, {"method", method.method}, {"scope", std::string(scope)}})
        .Increment();
  }
  return WithRetryDelay(
      absl::ResourceExhaustedError(absl::StrFormat(
          "rate limit of this %s exceeded (%s); nothing was done, retry after %.3f s", scope,
          DescribeLimit(limit), absl::ToDoubleSeconds(wait))),
      wait);
}

absl::Status CallLimiter::Admit(const MethodName& method, Access access,
                                const std::optional<auth::Claims>& caller, absl::string_view peer,
                                absl::Time now) {
  switch (access) {
    case Access::kService:
      return absl::OkStatus();
    case Access::kPublic: {
      if (!peer_.enabled()) return absl::OkStatus();
      const absl::Duration wait = peer_.Take(AddressLimitKey(PeerAddress(peer)), now);
      if (wait > absl::ZeroDuration()) return Refuse(method, "peer", peer_.limit(), wait);
      return absl::OkStatus();
    }
    case Access::kPlayer:
      break;
  }
  if (!caller.has_value()) return absl::OkStatus();
  // The device first: a device over its own limit then uses none of its account's budget.
  if (device_.enabled()) {
    const std::string key = caller->device.empty()
                                ? absl::StrCat("session:", caller->subject, "/", caller->session_id)
                                : caller->device;
    const absl::Duration wait = device_.Take(key, now);
    if (wait > absl::ZeroDuration()) return Refuse(method, "device", device_.limit(), wait);
  }
  if (account_.enabled()) {
    const absl::Duration wait = account_.Take(caller->subject, now);
    if (wait > absl::ZeroDuration()) return Refuse(method, "account", account_.limit(), wait);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<auth::Claims>> Authenticator::Authenticate(
    const grpc::ServerContextBase& context, Access access, absl::Time now) const {
  if (access == Access::kPublic) return std::optional<auth::Claims>();
  std::optional<absl::string_view> header = Metadata(context, "authorization");
  if (!header.has_value()) {
    return absl::UnauthenticatedError(
        access == Access::kPlayer
            ? "missing credentials: send `authorization: Bearer <access token>` metadata (get a "
              "token from AuthenticateDevice)"
            : "missing credentials: this internal RPC needs `authorization: Bearer <service "
              "credential>` metadata");
  }
  if (!absl::StartsWith(*header, kBearer)) {
    return absl::UnauthenticatedError("authorization metadata must have the form `Bearer <token>`");
  }
  const absl::string_view token = header->substr(kBearer.size());
  if (access == Access::kPlayer) {
    if (!access_.has_value()) return absl::InternalError("access token verifier not configured");
    absl::StatusOr<auth::Claims> claims = access_->Verify(token, now);
    if (!claims.ok()) return claims.status();
    return std::optional<auth::Claims>(*std::move(claims));
  }
  if (!service_.has_value())
    return absl::InternalError("service credential verifier not configured");
  absl::StatusOr<auth::Claims> claims = service_->Verify(token, now);
  if (!claims.ok()) {
    // Tell a caller holding a valid *player* token precisely why it is refused.
    if (access_.has_value() && access_->Verify(token, now).ok()) {
      return absl::PermissionDeniedError(
          "this is an internal RPC: a player's access token is never accepted, it needs a "
          "service credential");
    }
    return claims.status();
  }
  return std::optional<auth::Claims>(*std::move(claims));
}

// OpenSSL's generator cost ~4 us of every call; a per-thread absl::BitGen (seeded from the OS)
// costs a fraction of one.
std::string NewRequestId() {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  thread_local absl::BitGen bits;
  std::string id(12, '\0');
  uint64_t word = absl::Uniform<uint64_t>(bits);
  for (size_t i = 0; i < id.size(); ++i) {
    if (i == 10) word = absl::Uniform<uint64_t>(bits);
    id[i] = kAlphabet[word & 63];
    word >>= 6;
  }
  return id;
}

absl::StatusOr<CallContext> RpcRunner::Prepare(grpc::CallbackServerContext& context, Access access,
                                               const MethodName& method) {
  CallContext call;
  std::optional<absl::string_view> client_id = Metadata(context, "x-request-id");
  call.request_id = client_id.has_value() && IsValidRequestId(*client_id) ? std::string(*client_id)
                                                                          : NewRequestId();
  context.AddInitialMetadata("x-request-id", call.request_id);
  call.deadline = absl::FromChrono(context.deadline());
  call.client_address = limiter_ != nullptr ? limiter_->ClientAddressOf(context)
                                            : CallLimiter::PeerAddress(context.peer());
  ScopedRequestId scoped(call.request_id);
  const absl::Time now = clock_();
  absl::StatusOr<std::optional<auth::Claims>> caller =
      authenticator_->Authenticate(context, access, now);
  if (!caller.ok()) {
    spdlog::info("request refused: {}", caller.status().message());
    return caller.status();
  }
  call.caller = *std::move(caller);
  if (limiter_ != nullptr) {
    absl::Status admitted = limiter_->Admit(method, access, call.caller, call.client_address, now);
    if (!admitted.ok()) {
      spdlog::debug("{}/{} refused: {}", method.service, method.method, admitted.message());
      return admitted;
    }
  }
  return call;
}

void RpcRunner::Finish(grpc::ServerUnaryReactor* reactor, const absl::Status& status) {
  if (!status.ok()) {
    if (status.code() == absl::StatusCode::kInternal ||
        status.code() == absl::StatusCode::kUnknown ||
        status.code() == absl::StatusCode::kDataLoss) {
      spdlog::error("internal error: {}", status.ToString());
    } else {
      spdlog::debug("request failed: {}", status.ToString());
    }
  }
  reactor->Finish(ToGrpcStatus(status));
}

}  // namespace parlor
