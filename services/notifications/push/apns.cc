#include "services/notifications/push/apns.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "services/notifications/domain/rules.h"
#include "services/notifications/push/json.h"

namespace parlor::notifications {

absl::StatusOr<std::unique_ptr<ApnsTokens>> ApnsTokens::Create(const ApnsConfig& config,
                                                               Clock clock) {
  absl::StatusOr<JwtSigner> signer = JwtSigner::FromPem(config.private_key_pem);
  if (!signer.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("APNs private key: ", signer.status().message()));
  }
  if (signer->algorithm() != "ES256") {
    return absl::InvalidArgumentError("APNs private key: must be an EC P-256 key (.p8)");
  }
  if (config.key_id.empty() || config.team_id.empty()) {
    return absl::InvalidArgumentError("APNs needs both a key id and a team id");
  }
  return std::unique_ptr<ApnsTokens>(new ApnsTokens(
      *std::move(signer), config.key_id, config.team_id, config.token_refresh, std::move(clock)));
}

absl::StatusOr<std::string> ApnsTokens::Get() {
  std::lock_guard<std::mutex> lock(mu_);
  const absl::Time now = clock_();
  if (!token_.empty() && now - issued_ < refresh_ && now >= issued_) return token_;
  absl::StatusOr<std::string> token = signer_.Sign(
      absl::StrCat("{\"alg\":\"ES256\",\"kid\":", json::Quote(key_id_), "}"),
      absl::StrCat("{\"iss\":", json::Quote(team_id_), ",\"iat\":", absl::ToUnixSeconds(now), "}"));
  if (!token.ok()) return token.status();
  token_ = *token;
  issued_ = now;
  return token_;
}

void ApnsTokens::Invalidate(const std::string& token) {
  std::lock_guard<std::mutex> lock(mu_);
  if (token_ == token) token_.clear();
}

std::string ApnsSender::Payload(const Push& push) {
  // The last move is the alert's subtitle, in the game's words (not localized, like a chat
  // line), and also travels as data for the app.
  std::string subtitle;
  std::string last_move;
  if (!push.content.last_move.empty()) {
    const std::string text = LastMoveLine(push.content);
    subtitle = absl::StrCat(",\"subtitle\":", json::Quote(text));
    last_move = absl::StrCat(",\"last_move_player\":", json::Quote(push.content.last_move_player),
                             ",\"last_move\":", json::Quote(push.content.last_move));
  }
  return absl::StrCat(
      "{\"aps\":{\"alert\":{\"title-loc-key\":", json::Quote(push.content.title_loc_key),
      ",\"loc-key\":", json::Quote(push.content.loc_key),
      ",\"loc-args\":", json::Array(push.content.loc_args), subtitle, "},\"badge\":", push.badge,
      ",\"sound\":\"default\",\"thread-id\":", json::Quote(push.thread_id),
      "},\"kind\":", json::Quote(KindName(push.kind)), ",\"game_id\":", json::Quote(push.game_id),
      ",\"version\":", push.version, ",\"deep_link\":", json::Quote(push.content.deep_link),
      last_move, "}");
}

HttpRequest ApnsSender::Request(const Push& push, const std::string& token) const {
  const absl::Time expiration =
      push.expire_time.value_or(push.commit_time + config_.default_expiration);
  return {.url = absl::StrCat(push.device.sandbox ? config_.sandbox_url : config_.url, "/3/device/",
                              push.device.token),
          .headers =
              {
                  absl::StrCat("authorization: bearer ", token),
                  absl::StrCat("apns-topic: ", push.device.app_id),
                  "apns-push-type: alert",
                  "apns-priority: 10",
                  absl::StrCat("apns-expiration: ", absl::ToUnixSeconds(expiration)),
                  absl::StrCat("apns-collapse-id: ", push.collapse_id),
                  "content-type: application/json",
              },
          .body = Payload(push)};
}

SendResult ApnsSender::Send(const Push& push) { return SendAll({&push}).front(); }

std::vector<SendResult> ApnsSender::SendAll(const std::vector<const Push*>& pushes) {
  absl::StatusOr<std::string> token = tokens_->Get();
  if (!token.ok()) {
    return std::vector<SendResult>(pushes.size(),
                                   {SendResult::Outcome::kTransient, std::nullopt,
                                    absl::StrCat("provider token: ", token.status().message())});
  }
  std::vector<HttpRequest> requests;
  requests.reserve(pushes.size());
  for (const Push* push : pushes) requests.push_back(Request(*push, *token));
  std::vector<SendResult> results;
  results.reserve(pushes.size());
  for (const absl::StatusOr<HttpResponse>& response : http_.PostAll(requests)) {
    results.push_back(Outcome(response, *token));
  }
  return results;
}

SendResult ApnsSender::Outcome(const absl::StatusOr<HttpResponse>& response,
                               const std::string& token) {
  if (!response.ok()) {
    return {SendResult::Outcome::kTransient, std::nullopt,
            std::string(response.status().message())};
  }
  if (response->status == 200) return {SendResult::Outcome::kAccepted, std::nullopt, "HTTP 200"};
  std::string reason;
  if (absl::StatusOr<google::protobuf::Struct> body = json::ParseObject(response->body);
      body.ok()) {
    reason = json::String(*body, "reason");
  }
  const std::string detail = absl::StrCat("HTTP ", response->status, " ", reason);
  std::optional<absl::Duration> retry_after;
  if (auto found = response->headers.find("retry-after"); found != response->headers.end()) {
    retry_after = ParseRetryAfter(found->second, absl::Now());
  }
  const long status = response->status;
  if (status == 410 || reason == "BadDeviceToken" || reason == "Unregistered" ||
      reason == "ExpiredToken") {
    return {SendResult::Outcome::kDeadToken, std::nullopt, detail};
  }
  if (status == 403 && (reason == "ExpiredProviderToken" || reason == "InvalidProviderToken")) {
    tokens_->Invalidate(token);
    return {SendResult::Outcome::kTransient, std::nullopt, detail};
  }
  if (status == 429 || status >= 500) {
    return {SendResult::Outcome::kTransient, retry_after, detail};
  }
  return {SendResult::Outcome::kRejected, std::nullopt, detail};
}

}  // namespace parlor::notifications
