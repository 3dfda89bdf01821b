#include "services/common/rpc.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "services/common/core/crypto.h"
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

}  // namespace

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

absl::StatusOr<CallContext> RpcRunner::Prepare(grpc::CallbackServerContext& context,
                                               Access access) {
  CallContext call;
  std::optional<absl::string_view> client_id = Metadata(context, "x-request-id");
  call.request_id = client_id.has_value() && IsValidRequestId(*client_id) ? std::string(*client_id)
                                                                          : RandomToken(9);
  context.AddInitialMetadata("x-request-id", call.request_id);
  call.deadline = absl::FromChrono(context.deadline());
  ScopedRequestId scoped(call.request_id);
  absl::StatusOr<std::optional<auth::Claims>> caller =
      authenticator_->Authenticate(context, access, clock_());
  if (!caller.ok()) {
    spdlog::info("request refused: {}", caller.status().message());
    return caller.status();
  }
  call.caller = *std::move(caller);
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
