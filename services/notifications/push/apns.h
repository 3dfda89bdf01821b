#ifndef PARLOR_SERVICES_NOTIFICATIONS_PUSH_APNS_H_
#define PARLOR_SERVICES_NOTIFICATIONS_PUSH_APNS_H_

#include <functional>
#include <mutex>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "services/notifications/domain/delivery.h"
#include "services/notifications/push/http2_client.h"
#include "services/notifications/push/jwt.h"

namespace parlor::notifications {

struct ApnsConfig {
  // https://api.push.apple.com and https://api.sandbox.push.apple.com (the device's sandbox flag
  // picks one).
  std::string url = "https://api.push.apple.com";
  std::string sandbox_url = "https://api.sandbox.push.apple.com";
  // Token-based authentication: the key's id (kid), the team id (iss) and the .p8 key (PEM).
  std::string key_id;
  std::string team_id;
  std::string private_key_pem;
  // A provider token is reused until it is this old (Apple: refresh no more often than every 20
  // minutes, and before it is an hour old).
  absl::Duration token_refresh = absl::Minutes(50);
  // How long APNs keeps a push without an expiry for a device that is offline.
  absl::Duration default_expiration = absl::Hours(24);
  HttpOptions http;
};

// The provider authentication token: an ES256 JWT {"alg":"ES256","kid":key id} .
// {"iss":team id,"iat":issued at}, shared by every sender thread and renewed once it is
// token_refresh old (or at once after APNs answers ExpiredProviderToken).
class ApnsTokens {
 public:
  using Clock = std::function<absl::Time()>;
  static absl::StatusOr<std::unique_ptr<ApnsTokens>> Create(const ApnsConfig& config, Clock clock);
  absl::StatusOr<std::string> Get();
  // Drops `token` (APNs refused it) so the next Get() makes a new one.
  void Invalidate(const std::string& token);

 private:
  ApnsTokens(JwtSigner signer, std::string key_id, std::string team_id, absl::Duration refresh,
             Clock clock)
      : signer_(std::move(signer)),
        key_id_(std::move(key_id)),
        team_id_(std::move(team_id)),
        refresh_(refresh),
        clock_(std::move(clock)) {}
  JwtSigner signer_;
  std::string key_id_;
  std::string team_id_;
  absl::Duration refresh_;
  Clock clock_;
  std::mutex mu_;
  std::string token_;
  absl::Time issued_ = absl::InfinitePast();
};

// One push per request to the APNs provider API over HTTP/2:
//   POST /3/device/<device token>
//   authorization: bearer <provider token>, apns-topic: <bundle id>, apns-push-type: alert,
//   apns-priority: 10, apns-expiration: <UNIX seconds>, apns-collapse-id: <game id>
//   {"aps":{"alert":{"title-loc-key":...,"loc-key":...,"loc-args":[...]},"badge":N,
//    "sound":"default","thread-id":<game id>},"kind":...,"game_id":...,"version":N,
//    "deep_link":...}
// 200: accepted. 410, or 400 BadDeviceToken: the token is dead. 403 ExpiredProviderToken /
// InvalidProviderToken: a new provider token, then retried. 429 and 5xx: retried (honouring
// Retry-After when sent). Other 4xx: refused.
class ApnsSender final : public PushSender {
 public:
  ApnsSender(const ApnsConfig& config, ApnsTokens* tokens)
      : config_(config), tokens_(tokens), http_(config.http) {}
  SendResult Send(const Push& push) override;
  std::vector<SendResult> SendAll(const std::vector<const Push*>& pushes) override;

  static std::string Payload(const Push& push);

 private:
  HttpRequest Request(const Push& push, const std::string& token) const;
  SendResult Outcome(const absl::StatusOr<HttpResponse>& response, const std::string& token);

  const ApnsConfig& config_;
  ApnsTokens* tokens_;
  Http2Client http_;
};

}  // namespace parlor::notifications

#endif  // PARLOR_SERVICES_NOTIFICATIONS_PUSH_APNS_H_
