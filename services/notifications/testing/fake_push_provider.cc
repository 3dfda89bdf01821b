// parlor-fake-push-provider: fake APNs + FCM (+ the Google OAuth token endpoint) in C++, for the
// load tool. The same contract as testing/fake_push_server.py (which stays the reference checker
// of the functional tests): one TLS + HTTP/2 server (OpenSSL with ALPN "h2", libnghttp2's server
// API for the framing) that answers like the real providers and checks what they check:
//
//   APNs provider API  POST /3/device/<token>: the ES256 provider token (alg, kid, iss, iat not
//     older than an hour, the R || S signature), apns-topic, apns-push-type, apns-priority,
//     apns-expiration, apns-collapse-id (<= 64 bytes), a JSON body <= 4096 bytes with
//     aps.alert.loc-key, aps.badge, aps.thread-id; a token of 64-200 hex digits
//   OAuth 2.0          POST /token: the JWT bearer grant, its RS256 assertion (kid, iss, scope,
//     aud = this token uri, iat, exp - iat <= 3600)
//   FCM HTTP v1        POST /v1/projects/<project>/messages:send: a bearer access token this
//     server issued, the project, message.token, android.collapse_key, body_loc_key, string-only
//     data, the ttl's format
//
// Device-token prefixes script the answers as in the Python fake: dead (410 Unregistered / 404
// UNREGISTERED), bad0 (400 BadDeviceToken / INVALID_ARGUMENT), c429 (429 + Retry-After: 1 once),
// c500 (503 once), c400 (400 every time).
//
// A JWT is verified once and then known by its exact bytes (the real APNs also takes one
// provider token for up to an hour); its age is checked on every request.
//
//   parlor-fake-push-provider --dir DIR [--port N] [--log_requests]
//
// Writes the server certificate, the APNs .p8 key, a service-account key file whose token_uri
// points here, then DIR/ready.json (as the Python fake, plus "answers_file"). Every answer is a
// line "<unix time> <status> <game_id or ->" in DIR/answers.log (flushed once per read, before
// the answers go out); with --log_requests each request is also a JSON line in
// DIR/requests.jsonl as the Python fake writes it (time, path, headers, body, status, answer,
// problems). One thread per connection.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <nghttp2/nghttp2.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "services/common/core/crypto.h"
#include "services/notifications/push/json.h"

namespace parlor::notifications::fake {
namespace {

constexpr char kApnsKeyId[] = "ABC123DEFG";
constexpr char kApnsTeamId[] = "DEF123GHIJ";
constexpr char kApnsTopic[] = "com.parlor.app";
constexpr char kFcmProject[] = "parlor-test";
constexpr char kFcmClient[] = "push@parlor-test.iam.gserviceaccount.com";
constexpr char kFcmScope[] = "https://www.googleapis.com/auth/firebase.messaging";

using google::protobuf::Struct;
using google::protobuf::Value;
using Headers = std::map<std::string, std::string>;

double Now() { return absl::ToDoubleSeconds(absl::Now() - absl::UnixEpoch()); }

struct Answer {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

// --- Key material ----------------------------------------------------------------------------

using Key = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;

Key Generate(bool ec) {
  EVP_PKEY* key = nullptr;
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_id(ec ? EVP_PKEY_EC : EVP_PKEY_RSA, nullptr);
  if (ctx != nullptr && EVP_PKEY_keygen_init(ctx) == 1 &&
      (ec ? EVP_PKEY_CTX_set_ec_paramgen_curve_nid(ctx, NID_X9_62_prime256v1)
          : EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, 2048)) == 1) {
    EVP_PKEY_keygen(ctx, &key);
  }
  EVP_PKEY_CTX_free(ctx);
  return Key(key, &EVP_PKEY_free);
}

std::string FromBio(BIO* bio) {
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio, &data);
  std::string out(data, size);
  BIO_free(bio);
  return out;
}

std::string PrivatePem(EVP_PKEY* key) {
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_PKCS8PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr);
  return FromBio(bio);
}

// A self-signed certificate for localhost and 127.0.0.1 (its own CA, as the Python fake's).
std::string CertificatePem(EVP_PKEY* key) {
  X509* cert = X509_new();
  X509_set_version(cert, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert),
                   static_cast<long>(absl::ToUnixSeconds(absl::Now())));
  X509_gmtime_adj(X509_getm_notBefore(cert), -300);
  X509_gmtime_adj(X509_getm_notAfter(cert), 86400);
  X509_set_pubkey(cert, key);
  X509_NAME* name = X509_get_subject_name(cert);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("fake-push"), -1, -1, 0);
  X509_set_issuer_name(cert, name);
  X509V3_CTX v3;
  X509V3_set_ctx_nodb(&v3);
  X509V3_set_ctx(&v3, cert, cert, nullptr, nullptr, 0);
  for (const auto& [nid, value] : std::vector<std::pair<int, const char*>>{
           {NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1"},
           {NID_basic_constraints, "critical,CA:TRUE"}}) {
    X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &v3, nid, value);
    X509_add_ext(cert, ext, -1);
    X509_EXTENSION_free(ext);
  }
  X509_sign(cert, key, EVP_sha256());
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_X509(bio, cert);
  X509_free(cert);
  return FromBio(bio);
}

bool WriteFile(const std::string& path, const std::string& contents) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << contents;
  return static_cast<bool>(file);
}

// --- Checks ------------------------------------------------------------------------------------

bool IsString(const Struct& object, const std::string& key) {
  auto found = object.fields().find(key);
  return found != object.fields().end() && found->second.has_string_value();
}

bool IsInteger(const Value& value) {
  return value.has_number_value() && std::trunc(value.number_value()) == value.number_value();
}

bool AllDigits(absl::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), absl::ascii_isdigit);
}

// "<seconds>s" with at most nine decimals, as FCM's Duration.
bool IsTtl(absl::string_view ttl) {
  if (!absl::ConsumeSuffix(&ttl, "s")) return false;
  const size_t dot = ttl.find('.');
  if (dot == absl::string_view::npos) return AllDigits(ttl);
  const absl::string_view fraction = ttl.substr(dot + 1);
  return AllDigits(ttl.substr(0, dot)) && AllDigits(fraction) && fraction.size() <= 9;
}

std::string FormDecode(absl::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out.push_back(' ');
    } else if (text[i] == '%' && i + 2 < text.size() && absl::ascii_isxdigit(text[i + 1]) &&
               absl::ascii_isxdigit(text[i + 2])) {
      out.push_back(static_cast<char>(std::stoi(std::string(text.substr(i + 1, 2)), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

// The game id a push carries ("-" for none): the load tool matches answers to events with it.
std::string GameId(absl::string_view body) {
  const size_t at = body.find("\"game_id\":\"");
  if (at == absl::string_view::npos) return "-";
  const size_t from = at + 11;
  const size_t end = body.find('"', from);
  if (end == absl::string_view::npos || end == from) return "-";
  return std::string(body.substr(from, end - from));
}

struct Jwt {
  Struct header;
  Struct claims;
};

class Provider {
 public:
  Provider(Key apns_public, Key fcm_public, std::string token_uri, FILE* answers, FILE* requests)
      : apns_public_(std::move(apns_public)),
        fcm_public_(std::move(fcm_public)),
        token_uri_(std::move(token_uri)),
        answers_(answers),
        requests_(requests) {}

  // Thread-safe.
  Answer Handle(const Headers& headers, const std::string& body) {
    std::vector<std::string> problems;
    Answer answer;
    const auto at = [&](const char* name) {
      auto found = headers.find(name);
      return found == headers.end() ? std::string() : found->second;
    };
    const std::string path = at(":path");
    std::string project;
    if (at(":method") != "POST") {
      answer.status = 405;
    } else if (absl::StartsWith(path, "/3/device/")) {
      answer = Apns(headers, body, path.substr(10), problems);
    } else if (path == "/token") {
      answer = OAuth(body, problems);
    } else if (absl::StartsWith(path, "/v1/projects/") && absl::EndsWith(path, "/messages:send") &&
               (project = path.substr(13, path.size() - 13 - 14)).find('/') == std::string::npos &&
               !project.empty()) {
      answer = Fcm(headers, body, project, problems);
    } else {
      answer.status = 404;
    }
    const double time = Now();
    std::lock_guard<std::mutex> lock(log_mu_);
    absl::FPrintF(answers_, "%.6f %d %s\n", time, answer.status, GameId(body));
    if (requests_ != nullptr) {
      std::string line =
          absl::StrFormat("{\"time\":%.6f,\"path\":%s,\"headers\":{", time, json::Quote(path));
      bool first = true;
      for (const auto& [name, value] : headers) {
        if (absl::StartsWith(name, ":")) continue;
        absl::StrAppend(&line, first ? "" : ",", json::Quote(name), ":", json::Quote(value));
        first = false;
      }
      absl::StrAppend(&line, "},\"body\":", json::Quote(body), ",\"status\":", answer.status,
                      ",\"answer\":", json::Quote(answer.body),
                      ",\"problems\":", json::Array(problems), "}\n");
      std::fputs(line.c_str(), requests_);
    }
    return answer;
  }

  // The log lines so far reach the files (before the answers go out: a test reads the log once it
  // has its answers).
  void Flush() {
    std::lock_guard<std::mutex> lock(log_mu_);
    std::fflush(answers_);
    if (requests_ != nullptr) std::fflush(requests_);
  }

 private:
  static Answer Reason(int status, const std::string& why) {
    return {status, {}, absl::StrCat("{\"reason\":", json::Quote(why), "}")};
  }

  static Answer FcmError(int status, const std::string& name, const std::string& message,
                         const std::string& code = "") {
    Answer a;
    a.status = status;
    a.headers.emplace_back("content-type", "application/json");
    a.body = absl::StrCat(
        "{\"error\":{\"code\":", status, ",\"message\":", json::Quote(message),
        ",\"status\":", json::Quote(name),
        ",\"details\":[{\"@type\":\"type.googleapis.com/google.firebase.fcm.v1.FcmError\","
        "\"errorCode\":",
        json::Quote(code.empty() ? name : code), "}]}}");
    return a;
  }

  // The decoded token when its signature verifies (once per distinct token), else null.
  std::shared_ptr<const Jwt> Verified(const std::string& token, const std::string& algorithm,
                                      EVP_PKEY* key, std::vector<std::string>& problems) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto found = verified_.find(token);
      if (found != verified_.end()) return found->second;
    }
    std::vector<std::string> parts = absl::StrSplit(token, '.');
    if (parts.size() != 3) {
      problems.push_back("JWT is not three base64url parts");
      return nullptr;
    }
    absl::StatusOr<std::string> header = Base64UrlDecode(parts[0]);
    absl::StatusOr<std::string> claims = Base64UrlDecode(parts[1]);
    absl::StatusOr<std::string> signature = Base64UrlDecode(parts[2]);
    auto jwt = std::make_shared<Jwt>();
    if (!header.ok() || !claims.ok() || !signature.ok()) {
      problems.push_back("JWT parts are not base64url JSON");
      return nullptr;
    }
    absl::StatusOr<Struct> h = json::ParseObject(*header);
    absl::StatusOr<Struct> c = json::ParseObject(*claims);
    if (!h.ok() || !c.ok()) {
      problems.push_back("JWT parts are not base64url JSON");
      return nullptr;
    }
    jwt->header = *std::move(h);
    jwt->claims = *std::move(c);
    if (json::String(jwt->header, "alg") != algorithm) {
      problems.push_back(
          absl::StrCat("JWT alg is '", json::String(jwt->header, "alg"), "', not ", algorithm));
      return nullptr;
    }
    std::string der = *signature;
    if (algorithm == "ES256") {
      if (signature->size() != 64) {
        problems.push_back(
            absl::StrCat("ES256 signature is ", signature->size(), " bytes, not 64 (R||S)"));
        return nullptr;
      }
      const auto* raw = reinterpret_cast<const unsigned char*>(signature->data());
      ECDSA_SIG* sig = ECDSA_SIG_new();
      ECDSA_SIG_set0(sig, BN_bin2bn(raw, 32, nullptr), BN_bin2bn(raw + 32, 32, nullptr));
      unsigned char* out = nullptr;
      const int size = i2d_ECDSA_SIG(sig, &out);
      der.assign(reinterpret_cast<char*>(out), size > 0 ? size : 0);
      OPENSSL_free(out);
      ECDSA_SIG_free(sig);
    }
    const std::string signed_part = absl::StrCat(parts[0], ".", parts[1]);
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    const bool ok =
        EVP_DigestVerifyInit(ctx, nullptr, EVP_sha256(), nullptr, key) == 1 &&
        EVP_DigestVerify(ctx, reinterpret_cast<const unsigned char*>(der.data()), der.size(),
                         reinterpret_cast<const unsigned char*>(signed_part.data()),
                         signed_part.size()) == 1;
    EVP_MD_CTX_free(ctx);
    if (!ok) {
      problems.push_back(absl::StrCat(algorithm, " signature does not verify"));
      return nullptr;
    }
    std::lock_guard<std::mutex> lock(mu_);
    verified_[token] = jwt;
    return jwt;
  }

  // The scripted outcome of a device token: "" (success) or a failure's name.
  std::string Scripted(const std::string& token) {
    int seen = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      seen = attempts_[token]++;
    }
    if (absl::StartsWith(token, "dead")) return "dead";
    if (absl::StartsWith(token, "bad0")) return "bad_token";
    if (absl::StartsWith(token, "c429") && seen == 0) return "429";
    if (absl::StartsWith(token, "c500") && seen == 0) return "503";
    if (absl::StartsWith(token, "c400")) return "400";
    return "";
  }

  Answer Apns(const Headers& headers, const std::string& body, const std::string& token,
              std::vector<std::string>& problems) {
    const auto at = [&](const char* name) -> const std::string* {
      auto found = headers.find(name);
      return found == headers.end() ? nullptr : &found->second;
    };
    const std::string* auth = at("authorization");
    if (auth == nullptr || !absl::StartsWith(*auth, "bearer ")) {
      problems.push_back("authorization is not 'bearer <provider token>'");
      return Reason(403, "MissingProviderToken");
    }
    std::shared_ptr<const Jwt> jwt =
        Verified(auth->substr(7), "ES256", apns_public_.get(), problems);
    if (jwt == nullptr) return Reason(403, "InvalidProviderToken");
    if (json::String(jwt->header, "kid") != kApnsKeyId ||
        json::String(jwt->claims, "iss") != kApnsTeamId) {
      problems.push_back(absl::StrCat("provider token kid/iss ", json::String(jwt->header, "kid"),
                                      "/", json::String(jwt->claims, "iss")));
      return Reason(403, "InvalidProviderToken");
    }
    auto iat = jwt->claims.fields().find("iat");
    const double now = Now();
    if (iat == jwt->claims.fields().end() || !IsInteger(iat->second) ||
        iat->second.number_value() > now + 60) {
      problems.push_back("provider token iat missing or in the future");
      return Reason(403, "InvalidProviderToken");
    }
    if (now - iat->second.number_value() > 3600) {
      problems.push_back("provider token older than an hour");
      return Reason(403, "ExpiredProviderToken");
    }
    const std::string* topic = at("apns-topic");
    if (topic == nullptr || *topic != kApnsTopic) {
      problems.push_back(absl::StrCat("apns-topic '", topic == nullptr ? "" : *topic, "'"));
      return Reason(
          400, topic != nullptr && !topic->empty() ? "DeviceTokenNotForTopic" : "MissingTopic");
    }
    const std::string* push_type = at("apns-push-type");
    if (push_type == nullptr || (*push_type != "alert" && *push_type != "background")) {
      problems.push_back("apns-push-type");
      return Reason(400, "InvalidPushType");
    }
    const std::string* priority = at("apns-priority");
    if (priority != nullptr && *priority != "5" && *priority != "10") {
      problems.push_back("apns-priority");
      return Reason(400, "BadPriority");
    }
    const std::string* expiration = at("apns-expiration");
    if (expiration == nullptr || !AllDigits(*expiration)) {
      problems.push_back("apns-expiration missing or not UNIX seconds");
      return Reason(400, "BadExpirationDate");
    }
    const std::string* collapse = at("apns-collapse-id");
    if (collapse != nullptr && collapse->size() > 64) {
      problems.push_back("apns-collapse-id longer than 64 bytes");
      return Reason(400, "BadCollapseId");
    }
    if (body.size() > 4096) {
      problems.push_back("payload over 4096 bytes");
      return Reason(413, "PayloadTooLarge");
    }
    absl::StatusOr<Struct> payload = json::ParseObject(body);
    bool shaped = payload.ok();
    if (shaped) {
      const Struct& aps = json::Object(*payload, "aps");
      const Struct& alert = json::Object(aps, "alert");
      auto badge = aps.fields().find("badge");
      auto args = alert.fields().find("loc-args");
      auto subtitle = alert.fields().find("subtitle");
      shaped = IsString(alert, "loc-key") &&
               (args == alert.fields().end() || args->second.has_list_value()) &&
               (subtitle == alert.fields().end() || subtitle->second.has_string_value()) &&
               badge != aps.fields().end() && IsInteger(badge->second) &&
               IsString(aps, "thread-id");
    }
    if (!shaped) {
      problems.push_back("payload is not an alert with loc-key, badge and thread-id");
      return Reason(400, "PayloadEmpty");
    }
    if (token.size() < 64 || token.size() > 200 ||
        !std::all_of(token.begin(), token.end(),
                     [](char c) { return absl::ascii_isdigit(c) || (c >= 'a' && c <= 'f'); })) {
      return Reason(400, "BadDeviceToken");
    }
    const std::string outcome = Scripted(token);
    if (outcome == "dead") {
      return {410,
              {},
              absl::StrCat("{\"reason\":\"Unregistered\",\"timestamp\":",
                           absl::ToUnixMillis(absl::Now()), "}")};
    }
    if (outcome == "bad_token") return Reason(400, "BadDeviceToken");
    if (outcome == "429") {
      Answer a = Reason(429, "TooManyRequests");
      a.headers.emplace_back("retry-after", "1");
      return a;
    }
    if (outcome == "503") return Reason(503, "ServiceUnavailable");
    if (outcome == "400") return Reason(400, "BadMessageId");
    int64_t n = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      n = ++messages_;
    }
    return {200, {{"apns-id", absl::StrFormat("00000000-0000-4000-8000-%012d", n)}}, ""};
  }

  Answer OAuth(const std::string& body, std::vector<std::string>& problems) {
    const auto error = [](const std::string& why) {
      return Answer{400,
                    {{"content-type", "application/json"}},
                    absl::StrCat("{\"error\":\"invalid_grant\",\"error_description\":",
                                 json::Quote(why), "}")};
    };
    std::map<std::string, std::string> form;
    for (absl::string_view pair : absl::StrSplit(body, '&', absl::SkipEmpty())) {
      std::pair<std::string, std::string> kv = absl::StrSplit(pair, absl::MaxSplits('=', 1));
      form.emplace(FormDecode(kv.first), FormDecode(kv.second));
    }
    if (form["grant_type"] != "urn:ietf:params:oauth:grant-type:jwt-bearer") {
      problems.push_back(absl::StrCat("grant_type ", form["grant_type"]));
      return error("grant_type must be the JWT bearer grant");
    }
    std::shared_ptr<const Jwt> jwt =
        Verified(form["assertion"], "RS256", fcm_public_.get(), problems);
    if (jwt == nullptr) return error("Invalid JWT Signature.");
    const Struct& claims = jwt->claims;
    const double now = Now();
    auto iat = claims.fields().find("iat");
    auto exp = claims.fields().find("exp");
    const bool iat_ok = iat != claims.fields().end() && IsInteger(iat->second) &&
                        std::fabs(iat->second.number_value() - now) < 300;
    const bool exp_ok = exp != claims.fields().end() && IsInteger(exp->second) && iat_ok &&
                        exp->second.number_value() - iat->second.number_value() > 0 &&
                        exp->second.number_value() - iat->second.number_value() <= 3600;
    std::vector<std::string> scopes = absl::StrSplit(json::String(claims, "scope"), ' ');
    const std::vector<std::pair<bool, std::string>> checks = {
        {json::String(jwt->header, "kid") == "key-1", "kid"},
        {json::String(claims, "iss") == kFcmClient, "iss is not the client email"},
        {std::find(scopes.begin(), scopes.end(), kFcmScope) != scopes.end(),
         "scope lacks firebase.messaging"},
        {json::String(claims, "aud") == token_uri_, "aud is not the token uri"},
        {iat_ok, "iat"},
        {exp_ok, "exp must be at most an hour after iat"},
    };
    for (const auto& [ok, why] : checks) {
      if (!ok) {
        problems.push_back(why);
        return error(why);
      }
    }
    std::string access;
    {
      std::lock_guard<std::mutex> lock(mu_);
      access = absl::StrCat("ya29.fake-", ++issued_, "-", RandomToken(8));
      access_tokens_.insert(access);
    }
    return {200,
            {{"content-type", "application/json"}},
            absl::StrCat("{\"access_token\":", json::Quote(access),
                         ",\"expires_in\":3599,\"token_type\":\"Bearer\"}")};
  }

  Answer Fcm(const Headers& headers, const std::string& body, const std::string& project,
             std::vector<std::string>& problems) {
    auto auth = headers.find("authorization");
    bool known = false;
    if (auth != headers.end() && absl::StartsWith(auth->second, "Bearer ")) {
      std::lock_guard<std::mutex> lock(mu_);
      known = access_tokens_.contains(auth->second.substr(7));
    }
    if (!known) {
      problems.push_back("authorization is not 'Bearer <issued access token>'");
      return FcmError(401, "UNAUTHENTICATED", "Request had invalid authentication credentials.",
                      "THIRD_PARTY_AUTH_ERROR");
    }
    if (project != kFcmProject) {
      problems.push_back(absl::StrCat("project '", project, "'"));
      return FcmError(404, "NOT_FOUND", "Requested entity was not found.", "SENDER_ID_MISMATCH");
    }
    absl::StatusOr<Struct> parsed = json::ParseObject(body);
    std::string token;
    bool shaped = parsed.ok();
    if (shaped) {
      const Struct& message = json::Object(*parsed, "message");
      const Struct& android = json::Object(message, "android");
      const Struct& data = json::Object(message, "data");
      token = json::String(message, "token");
      shaped = IsString(message, "token") && IsString(android, "collapse_key") &&
               IsString(json::Object(android, "notification"), "body_loc_key");
      for (const auto& [key, value] : data.fields()) shaped = shaped && value.has_string_value();
      auto ttl = android.fields().find("ttl");
      if (ttl != android.fields().end()) {
        shaped = shaped && ttl->second.has_string_value() && IsTtl(ttl->second.string_value());
      }
    }
    if (!shaped) {
      problems.push_back(
          "message lacks token / android.collapse_key / body_loc_key, or data values that are "
          "not strings, or a malformed ttl");
      return FcmError(400, "INVALID_ARGUMENT", "Invalid JSON payload received.");
    }
    const std::string outcome = Scripted(token);
    if (outcome == "dead") {
      return FcmError(404, "NOT_FOUND", "Requested entity was not found.", "UNREGISTERED");
    }
    if (outcome == "bad_token") {
      return FcmError(400, "INVALID_ARGUMENT",
                      "The registration token is not a valid FCM registration token",
                      "INVALID_ARGUMENT");
    }
    if (outcome == "429") {
      Answer a = FcmError(429, "RESOURCE_EXHAUSTED", "Quota exceeded.", "QUOTA_EXCEEDED");
      a.headers.emplace_back("retry-after", "1");
      return a;
    }
    if (outcome == "503") {
      return FcmError(503, "UNAVAILABLE", "The service is currently unavailable.");
    }
    if (outcome == "400") {
      return FcmError(400, "INVALID_ARGUMENT", "Invalid value at 'message.android.priority'");
    }
    int64_t n = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      n = ++messages_;
    }
    return {200,
            {{"content-type", "application/json"}},
            absl::StrCat("{\"name\":\"projects/", project, "/messages/", n, "\"}")};
  }

  Key apns_public_;
  Key fcm_public_;
  const std::string token_uri_;
  std::mutex mu_;
  absl::flat_hash_map<std::string, int> attempts_;                         // by device token
  absl::flat_hash_map<std::string, std::shared_ptr<const Jwt>> verified_;  // by exact bytes
  absl::flat_hash_set<std::string> access_tokens_;
  int64_t issued_ = 0;
  int64_t messages_ = 0;
  std::mutex log_mu_;
  FILE* answers_;
  FILE* requests_;
};

// --- One HTTP/2 connection over TLS ------------------------------------------------------------

class Connection {
 public:
  Connection(Provider* provider, SSL* ssl) : provider_(provider), ssl_(ssl) {}

  ~Connection() {
    if (session_ != nullptr) nghttp2_session_del(session_);
    const int fd = SSL_get_fd(ssl_);
    SSL_free(ssl_);
    close(fd);
  }

  void Run() {
    if (SSL_accept(ssl_) != 1) return;
    const unsigned char* alpn = nullptr;
    unsigned int alpn_size = 0;
    SSL_get0_alpn_selected(ssl_, &alpn, &alpn_size);
    if (alpn_size != 2 || std::memcmp(alpn, "h2", 2) != 0) return;  // HTTP/2 only, as APNs
    nghttp2_session_callbacks* callbacks = nullptr;
    nghttp2_session_callbacks_new(&callbacks);
    nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, &OnBeginHeaders);
    nghttp2_session_callbacks_set_on_header_callback(callbacks, &OnHeader);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, &OnData);
    nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, &OnFrame);
    nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, &OnClose);
    const int made = nghttp2_session_server_new(&session_, callbacks, this);
    nghttp2_session_callbacks_del(callbacks);
    if (made != 0) return;
    const nghttp2_settings_entry settings[] = {{NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 1000}};
    nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, settings, 1);
    if (!Send()) return;
    std::vector<uint8_t> buffer(64 * 1024);
    while (nghttp2_session_want_read(session_) || nghttp2_session_want_write(session_)) {
      // What arrived (and whatever else is already decrypted), then the answers in one write.
      do {
        const int n = SSL_read(ssl_, buffer.data(), static_cast<int>(buffer.size()));
        if (n <= 0) return;
        if (nghttp2_session_mem_recv(session_, buffer.data(), n) < 0) return;
      } while (SSL_pending(ssl_) > 0);
      provider_->Flush();
      if (!Send()) return;
    }
  }

 private:
  struct Stream {
    Headers headers;
    std::string body;
    std::string answer;
    size_t sent = 0;
  };

  bool Send() {
    for (;;) {
      const uint8_t* data = nullptr;
      const ssize_t n = nghttp2_session_mem_send(session_, &data);
      if (n < 0) return false;
      if (n == 0) break;
      out_.append(reinterpret_cast<const char*>(data), n);
    }
    size_t from = 0;
    while (from < out_.size()) {
      const int n = SSL_write(ssl_, out_.data() + from, static_cast<int>(out_.size() - from));
      if (n <= 0) return false;
      from += n;
    }
    out_.clear();
    return true;
  }

  static Connection* Self(void* user_data) { return static_cast<Connection*>(user_data); }

  static int OnBeginHeaders(nghttp2_session* session, const nghttp2_frame* frame, void*) {
    if (frame->hd.type == NGHTTP2_HEADERS && frame->headers.cat == NGHTTP2_HCAT_REQUEST) {
      nghttp2_session_set_stream_user_data(session, frame->hd.stream_id, new Stream());
    }
    return 0;
  }

  static int OnHeader(nghttp2_session* session, const nghttp2_frame* frame, const uint8_t* name,
                      size_t name_size, const uint8_t* value, size_t value_size, uint8_t, void*) {
    auto* stream =
        static_cast<Stream*>(nghttp2_session_get_stream_user_data(session, frame->hd.stream_id));
    if (stream != nullptr) {
      stream->headers[std::string(reinterpret_cast<const char*>(name), name_size)] =
          std::string(reinterpret_cast<const char*>(value), value_size);
    }
    return 0;
  }

  static int OnData(nghttp2_session* session, uint8_t, int32_t stream_id, const uint8_t* data,
                    size_t size, void*) {
    auto* stream = static_cast<Stream*>(nghttp2_session_get_stream_user_data(session, stream_id));
    if (stream != nullptr) stream->body.append(reinterpret_cast<const char*>(data), size);
    return 0;
  }

  static ssize_t ReadAnswer(nghttp2_session*, int32_t, uint8_t* buf, size_t length, uint32_t* flags,
                            nghttp2_data_source* source, void*) {
    auto* stream = static_cast<Stream*>(source->ptr);
    const size_t n = std::min(length, stream->answer.size() - stream->sent);
    std::memcpy(buf, stream->answer.data() + stream->sent, n);
    stream->sent += n;
    if (stream->sent == stream->answer.size()) *flags |= NGHTTP2_DATA_FLAG_EOF;
    return static_cast<ssize_t>(n);
  }

  static int OnFrame(nghttp2_session* session, const nghttp2_frame* frame, void* user_data) {
    if ((frame->hd.type != NGHTTP2_HEADERS && frame->hd.type != NGHTTP2_DATA) ||
        (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) == 0) {
      return 0;
    }
    auto* stream =
        static_cast<Stream*>(nghttp2_session_get_stream_user_data(session, frame->hd.stream_id));
    if (stream == nullptr) return 0;
    Answer answer = Self(user_data)->provider_->Handle(stream->headers, stream->body);
    stream->answer = std::move(answer.body);
    const std::string status = std::to_string(answer.status);
    const std::string length = std::to_string(stream->answer.size());
    std::vector<std::pair<std::string, std::string>> fields = {{":status", status}};
    for (auto& header : answer.headers) fields.push_back(std::move(header));
    fields.emplace_back("content-length", length);
    std::vector<nghttp2_nv> nva;
    for (auto& [name, value] : fields) {
      nva.push_back({reinterpret_cast<uint8_t*>(name.data()),
                     reinterpret_cast<uint8_t*>(value.data()), name.size(), value.size(),
                     NGHTTP2_NV_FLAG_NONE});
    }
    nghttp2_data_provider provider;
    provider.source.ptr = stream;
    provider.read_callback = &ReadAnswer;
    nghttp2_submit_response(session, frame->hd.stream_id, nva.data(), nva.size(),
                            stream->answer.empty() ? nullptr : &provider);
    return 0;
  }

  static int OnClose(nghttp2_session* session, int32_t stream_id, uint32_t, void*) {
    delete static_cast<Stream*>(nghttp2_session_get_stream_user_data(session, stream_id));
    nghttp2_session_set_stream_user_data(session, stream_id, nullptr);
    return 0;
  }

  Provider* provider_;
  SSL* ssl_;
  nghttp2_session* session_ = nullptr;
  std::string out_;
};

int SelectH2(SSL*, const unsigned char** out, unsigned char* out_size, const unsigned char* in,
             unsigned int in_size, void*) {
  unsigned char* selected = nullptr;
  if (nghttp2_select_next_protocol(&selected, out_size, in, in_size) != 1) {
    return SSL_TLSEXT_ERR_NOACK;
  }
  *out = selected;
  return SSL_TLSEXT_ERR_OK;
}

int Serve(const std::string& dir, int port, bool log_requests) {
  signal(SIGPIPE, SIG_IGN);
  // Gone with whoever started it, even if that one could not stop it (a tool that crashed).
  const pid_t parent = getppid();
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != parent) return 1;
  const std::string ca_file = dir + "/server.crt";
  const std::string server_key_file = dir + "/server.key";
  const std::string apns_key_file = dir + "/apns.p8";
  const std::string account_file = dir + "/service-account.json";
  const std::string log_file = dir + "/requests.jsonl";
  const std::string answers_file = dir + "/answers.log";
  Key server_key = Generate(true);
  Key apns_key = Generate(true);
  Key fcm_key = Generate(false);
  if (!server_key || !apns_key || !fcm_key) {
    std::fprintf(stderr, "cannot generate keys\n");
    return 1;
  }
  if (!WriteFile(ca_file, CertificatePem(server_key.get())) ||
      !WriteFile(server_key_file, PrivatePem(server_key.get())) ||
      !WriteFile(apns_key_file, PrivatePem(apns_key.get())) || !WriteFile(log_file, "")) {
    std::fprintf(stderr, "cannot write to %s\n", dir.c_str());
    return 1;
  }
  SSL_CTX* tls = SSL_CTX_new(TLS_server_method());
  SSL_CTX_set_min_proto_version(tls, TLS1_2_VERSION);
  if (SSL_CTX_use_certificate_chain_file(tls, ca_file.c_str()) != 1 ||
      SSL_CTX_use_PrivateKey_file(tls, server_key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
    std::fprintf(stderr, "cannot load the server certificate\n");
    return 1;
  }
  SSL_CTX_set_alpn_select_cb(tls, &SelectH2, nullptr);

  const int listener = socket(AF_INET, SOCK_STREAM, 0);
  const int on = 1;
  setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<uint16_t>(port));
  socklen_t size = sizeof(address);
  if (bind(listener, reinterpret_cast<sockaddr*>(&address), size) != 0 ||
      listen(listener, 128) != 0 ||
      getsockname(listener, reinterpret_cast<sockaddr*>(&address), &size) != 0) {
    std::perror("listen");
    return 1;
  }
  port = ntohs(address.sin_port);
  const std::string url = absl::StrCat("https://127.0.0.1:", port);
  // The public halves verify the tokens; the private ones go to the client's files.
  Key apns_public(EVP_PKEY_dup(apns_key.get()), &EVP_PKEY_free);
  Key fcm_public(EVP_PKEY_dup(fcm_key.get()), &EVP_PKEY_free);
  FILE* answers = std::fopen(answers_file.c_str(), "a");
  FILE* requests = log_requests ? std::fopen(log_file.c_str(), "a") : nullptr;
  if (answers == nullptr || (log_requests && requests == nullptr)) {
    std::fprintf(stderr, "cannot open the logs in %s\n", dir.c_str());
    return 1;
  }
  Provider provider(std::move(apns_public), std::move(fcm_public), url + "/token", answers,
                    requests);
  const std::string account = absl::StrCat(
      "{\"type\":\"service_account\",\"project_id\":", json::Quote(kFcmProject),
      ",\"private_key_id\":\"key-1\",\"private_key\":", json::Quote(PrivatePem(fcm_key.get())),
      ",\"client_email\":", json::Quote(kFcmClient),
      ",\"client_id\":\"1\",\"token_uri\":", json::Quote(url + "/token"), "}");
  const std::string ready = absl::StrCat(
      "{\"ca_file\":", json::Quote(ca_file), ",\"apns_key_file\":", json::Quote(apns_key_file),
      ",\"service_account_file\":", json::Quote(account_file),
      ",\"log_file\":", json::Quote(log_file), ",\"answers_file\":", json::Quote(answers_file),
      ",\"port\":", port, ",\"url\":", json::Quote(url),
      ",\"apns_key_id\":", json::Quote(kApnsKeyId), ",\"apns_team_id\":", json::Quote(kApnsTeamId),
      ",\"apns_topic\":", json::Quote(kApnsTopic), ",\"fcm_project\":", json::Quote(kFcmProject),
      "}");
  if (!WriteFile(account_file, account) || !WriteFile(dir + "/ready.json.tmp", ready)) return 1;
  std::filesystem::rename(dir + "/ready.json.tmp", dir + "/ready.json");
  for (;;) {
    const int fd = accept(listener, nullptr, nullptr);
    if (fd < 0) continue;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
    SSL* ssl = SSL_new(tls);
    SSL_set_fd(ssl, fd);
    std::thread([&provider, ssl] { Connection(&provider, ssl).Run(); }).detach();
  }
}

}  // namespace
}  // namespace parlor::notifications::fake

int main(int argc, char** argv) {
  std::string dir;
  int port = 0;
  bool log_requests = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--dir" && i + 1 < argc) {
      dir = argv[++i];
    } else if (absl::StartsWith(arg, "--dir=")) {
      dir = arg.substr(6);
    } else if (arg == "--port" && i + 1 < argc) {
      port = std::atoi(argv[++i]);
    } else if (absl::StartsWith(arg, "--port=")) {
      port = std::atoi(arg.c_str() + 7);
    } else if (arg == "--log_requests") {
      log_requests = true;
    } else {
      std::fprintf(stderr,
                   "usage: parlor-fake-push-provider --dir DIR [--port N] [--log_requests]\n");
      return 2;
    }
  }
  if (dir.empty()) {
    std::fprintf(stderr, "--dir is required\n");
    return 2;
  }
  return parlor::notifications::fake::Serve(dir, port, log_requests);
}
