#ifndef PARLOR_SERVICES_NOTIFICATIONS_PUSH_FCM_H_
#define PARLOR_SERVICES_NOTIFICATIONS_PUSH_FCM_H_

#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "services/notifications/domain/delivery.h"
#include "services/notifications/push/http2_client.h"
#include "services/notifications/push/jwt.h"

namespace parlor::notifications {

// The fields of a Google service-account key file (JSON) that FCM needs.
struct ServiceAccount {
  std::string project_id;
  std::string private_key_id;
  std::string private_key_pem;
  std::string client_email;
  std::string token_uri;  // https://oauth2.googleapis.com/token
};
absl::StatusOr<ServiceAccount> ParseServiceAccount(absl::string_view key_file_json);

struct FcmConfig {
  // https://fcm.googleapis.com; messages go to <url>/v1/projects/<project id>/messages:send.
  std::string url = "https://fcm.googleapis.com";
  ServiceAccount account;
  HttpOptions http;
};

// OAuth 2.0 access tokens for FCM through the JWT bearer grant (RFC 7523): an RS256 assertion
// {"alg":"RS256","typ":"JWT","kid":private key id} .
// {"iss":client email,"scope":"https://www.googleapis.com/auth/firebase.messaging",
//  "aud":token uri,"iat":now,"exp":now+3600}
// POSTed as grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=... to the token
// uri; the answer's access_token is reused until 5 minutes before its expires_in. Shared by
// every sender thread.
class FcmTokens {
 public:
  using Clock = std::function<absl::Time()>;
  static absl::StatusOr<std::unique_ptr<FcmTokens>> Create(const FcmConfig& config, Clock clock);
  absl::StatusOr<std::string> Get();
  void Invalidate(const std::string& token);

 private:
  FcmTokens(JwtSigner signer, const FcmConfig& config, Clock clock)
      : signer_(std::move(signer)),
        config_(config),
        clock_(std::move(clock)),
        http_(Http11(config)) {}
  static HttpOptions Http11(const FcmConfig& config);
  JwtSigner signer_;
  const FcmConfig& config_;
  Clock clock_;
  std::mutex mu_;
  Http2Client http_;
  std::string token_;
  absl::Time expires_ = absl::InfinitePast();
};

// One message per request to FCM HTTP v1:
//   POST /v1/projects/<project>/messages:send, authorization: Bearer <access token>
//   {"message":{"token":...,"data":{"kind":...,"game_id":...,"version":"N","deep_link":...,
//    "badge":"N"},"android":{"collapse_key":<game id>,"priority":"HIGH","ttl":"Ns",
//    "notification":{"title_loc_key":...,"body_loc_key":...,"body_loc_args":[...],
//    "tag":<game id>,"notification_count":N}}}}
// 200: accepted. errorCode UNREGISTERED, or INVALID_ARGUMENT about the registration token: the
// token is dead. 401: a new access token, then retried. 429 and 5xx: retried (honouring
// Retry-After). Other 4xx: refused.
class FcmSender final : public PushSender {
 public:
  FcmSender(const FcmConfig& config, FcmTokens* tokens)
      : config_(config), tokens_(tokens), http_(config.http) {}
  SendResult Send(const Push& push) override;
  std::vector<SendResult> SendAll(const std::vector<const Push*>& pushes) override;

  static std::string Message(const Push& push, absl::Time now);

 private:
  SendResult Outcome(const absl::StatusOr<HttpResponse>& response, const std::string& token);

  const FcmConfig& config_;
  FcmTokens* tokens_;
  Http2Client http_;
};

}  // namespace parlor::notifications

#endif  // PARLOR_SERVICES_NOTIFICATIONS_PUSH_FCM_H_
