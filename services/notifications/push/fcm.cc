#include "services/notifications/push/fcm.h"

#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "services/notifications/domain/rules.h"
#include "services/notifications/push/json.h"

namespace parlor::notifications {

absl::StatusOr<ServiceAccount> ParseServiceAccount(absl::string_view key_file_json) {
  absl::StatusOr<google::protobuf::Struct> key = json::ParseObject(key_file_json);
  if (!key.ok()) return absl::InvalidArgumentError("the service-account key file is not JSON");
  if (json::String(*key, "type") != "service_account") {
    return absl::InvalidArgumentError(
        "the key file is not a service-account key (\"type\": \"service_account\")");
  }
  ServiceAccount account{.project_id = json::String(*key, "project_id"),
                         .private_key_id = json::String(*key, "private_key_id"),
                         .private_key_pem = json::String(*key, "private_key"),
                         .client_email = json::String(*key, "client_email"),
                         .token_uri = json::String(*key, "token_uri")};
  for (const auto& [name, value] :
       {std::pair<const char*, const std::string*>{"project_id", &account.project_id},
        {"private_key", &account.private_key_pem},
        {"client_email", &account.client_email},
        {"token_uri", &account.token_uri}}) {
    if (value->empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("the service-account key file has no \"", name, "\""));
    }
  }
  return account;
}

HttpOptions FcmTokens::Http11(const FcmConfig& config) {
  HttpOptions options = config.http;
  options.require_http2 = false;  // the token endpoint may answer in HTTP/1.1
  return options;
}

absl::StatusOr<std::unique_ptr<FcmTokens>> FcmTokens::Create(const FcmConfig& config, Clock clock) {
  absl::StatusOr<JwtSigner> signer = JwtSigner::FromPem(config.account.private_key_pem);
  if (!signer.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("service-account private key: ", signer.status().message()));
  }
  if (signer->algorithm() != "RS256") {
    return absl::InvalidArgumentError("service-account private key: must be an RSA key");
  }
  return std::unique_ptr<FcmTokens>(new FcmTokens(*std::move(signer), config, std::move(clock)));
}

absl::StatusOr<std::string> FcmTokens::Get() {
  std::lock_guard<std::mutex> lock(mu_);
  const absl::Time now = clock_();
  if (!token_.empty() && now < expires_) return token_;
  const ServiceAccount& account = config_.account;
  std::string header = "{\"alg\":\"RS256\",\"typ\":\"JWT\"";
  if (!account.private_key_id.empty()) {
    absl::StrAppend(&header, ",\"kid\":", json::Quote(account.private_key_id));
  }
  header += "}";
  const int64_t iat = absl::ToUnixSeconds(now);
  absl::StatusOr<std::string> assertion = signer_.Sign(
      header,
      absl::StrCat("{\"iss\":", json::Quote(account.client_email),
                   ",\"scope\":\"https://www.googleapis.com/auth/firebase.messaging\",\"aud\":",
                   json::Quote(account.token_uri), ",\"iat\":", iat, ",\"exp\":", iat + 3600, "}"));
  if (!assertion.ok()) return assertion.status();
  absl::StatusOr<HttpResponse> response = http_.Post(
      account.token_uri, {"content-type: application/x-www-form-urlencoded"},
      absl::StrCat("grant_type=", FormEscape("urn:ietf:params:oauth:grant-type:jwt-bearer"),
                   "&assertion=", FormEscape(*assertion)));
  if (!response.ok()) return response.status();
  absl::StatusOr<google::protobuf::Struct> body = json::ParseObject(response->body);
  if (response->status != 200 || !body.ok() || json::String(*body, "access_token").empty()) {
    return absl::UnavailableError(absl::StrCat("OAuth token endpoint answered HTTP ",
                                               response->status, ": ",
                                               response->body.substr(0, 200)));
  }
  double expires_in = 3600;
  if (auto found = body->fields().find("expires_in");
      found != body->fields().end() && found->second.has_number_value()) {
    expires_in = found->second.number_value();
  }
  token_ = json::String(*body, "access_token");
  expires_ = now + absl::Seconds(expires_in) - absl::Minutes(5);
  return token_;
}

void FcmTokens::Invalidate(const std::string& token) {
  std::lock_guard<std::mutex> lock(mu_);
  if (token_ == token) token_.clear();
}

std::string FcmSender::Message(const Push& push, absl::Time now) {
  // FCM's Android notification has no subtitle: the last move travels as data for the app.
  std::string last_move;
  if (!push.content.last_move.empty()) {
    last_move = absl::StrCat(",\"last_move_player\":", json::Quote(push.content.last_move_player),
                             ",\"last_move\":", json::Quote(push.content.last_move));
  }
  std::string android =
      absl::StrCat("{\"collapse_key\":", json::Quote(push.collapse_id), ",\"priority\":\"HIGH\"");
  if (push.expire_time.has_value()) {
    const int64_t ttl = std::max<int64_t>(0, absl::ToInt64Seconds(*push.expire_time - now));
    absl::StrAppend(&android, ",\"ttl\":\"", ttl, "s\"");
  }
  absl::StrAppend(
      &android, ",\"notification\":{\"title_loc_key\":", json::Quote(push.content.title_loc_key),
      ",\"body_loc_key\":", json::Quote(push.content.loc_key),
      ",\"body_loc_args\":", json::Array(push.content.loc_args),
      ",\"tag\":", json::Quote(push.thread_id), ",\"notification_count\":", push.badge, "}}");
  return absl::StrCat("{\"message\":{\"token\":", json::Quote(push.device.token),
                      ",\"data\":{\"kind\":", json::Quote(KindName(push.kind)),
                      ",\"game_id\":", json::Quote(push.game_id), ",\"version\":\"", push.version,
                      "\",\"deep_link\":", json::Quote(push.content.deep_link), ",\"badge\":\"",
                      push.badge, "\"", last_move, "},\"android\":", android, "}}");
}

SendResult FcmSender::Send(const Push& push) { return SendAll({&push}).front(); }

std::vector<SendResult> FcmSender::SendAll(const std::vector<const Push*>& pushes) {
  absl::StatusOr<std::string> token = tokens_->Get();
  if (!token.ok()) {
    return std::vector<SendResult>(pushes.size(),
                                   {SendResult::Outcome::kTransient, std::nullopt,
                                    absl::StrCat("access token: ", token.status().message())});
  }
  const std::string url =
      absl::StrCat(config_.url, "/v1/projects/", config_.account.project_id, "/messages:send");
  const absl::Time now = absl::Now();
  std::vector<HttpRequest> requests;
  requests.reserve(pushes.size());
  for (const Push* push : pushes) {
    requests.push_back({.url = url,
                        .headers = {absl::StrCat("authorization: Bearer ", *token),
                                    "content-type: application/json; charset=UTF-8"},
                        .body = Message(*push, now)});
  }
  std::vector<SendResult> results;
  results.reserve(pushes.size());
  for (const absl::StatusOr<HttpResponse>& response : http_.PostAll(requests)) {
    results.push_back(Outcome(response, *token));
  }
  return results;
}

SendResult FcmSender::Outcome(const absl::StatusOr<HttpResponse>& response,
                              const std::string& token) {
  if (!response.ok()) {
    return {SendResult::Outcome::kTransient, std::nullopt,
            std::string(response.status().message())};
  }
  if (response->status == 200) return {SendResult::Outcome::kAccepted, std::nullopt, "HTTP 200"};
  // {"error":{"code":404,"message":"...","status":"NOT_FOUND","details":[{"@type":
  //   "type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"UNREGISTERED"}]}}
  std::string status_name;
  std::string message;
  std::string error_code;
  bool token_field = false;
  if (absl::StatusOr<google::protobuf::Struct> body = json::ParseObject(response->body);
      body.ok()) {
    const google::protobuf::Struct& error = json::Object(*body, "error");
    status_name = json::String(error, "status");
    message = json::String(error, "message");
    if (auto details = error.fields().find("details");
        details != error.fields().end() && details->second.has_list_value()) {
      for (const google::protobuf::Value& detail : details->second.list_value().values()) {
        if (!detail.has_struct_value()) continue;
        const google::protobuf::Struct& d = detail.struct_value();
        if (const std::string code = json::String(d, "errorCode"); !code.empty()) error_code = code;
        // google.rpc.BadRequest naming the token as the bad field.
        if (auto violations = d.fields().find("fieldViolations");
            violations != d.fields().end() && violations->second.has_list_value()) {
          for (const google::protobuf::Value& v : violations->second.list_value().values()) {
            if (v.has_struct_value() &&
                json::String(v.struct_value(), "field") == "message.token") {
              token_field = true;
            }
          }
        }
      }
    }
  }
  const std::string detail =
      absl::StrCat("HTTP ", response->status, " ", error_code.empty() ? status_name : error_code,
                   " ", message.substr(0, 200));
  std::optional<absl::Duration> retry_after;
  if (auto found = response->headers.find("retry-after"); found != response->headers.end()) {
    retry_after = ParseRetryAfter(found->second, absl::Now());
  }
  const long status = response->status;
  if (error_code == "UNREGISTERED" ||
      (status == 400 && (token_field || absl::StrContains(message, "registration token")))) {
    return {SendResult::Outcome::kDeadToken, std::nullopt, detail};
  }
  if (status == 401) {
    tokens_->Invalidate(token);
    return {SendResult::Outcome::kTransient, std::nullopt, detail};
  }
  if (status == 429 || status >= 500) {
    return {SendResult::Outcome::kTransient, retry_after, detail};
  }
  return {SendResult::Outcome::kRejected, std::nullopt, detail};
}

}  // namespace parlor::notifications
