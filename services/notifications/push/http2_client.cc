#include "services/notifications/push/http2_client.h"

#include <algorithm>
#include <mutex>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "curl/curl.h"

namespace parlor::notifications {
namespace {

size_t AppendBody(char* data, size_t size, size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

size_t AppendHeader(char* data, size_t size, size_t count, void* out) {
  auto* headers = static_cast<std::map<std::string, std::string>*>(out);
  absl::string_view line(data, size * count);
  const size_t colon = line.find(':');
  if (colon != absl::string_view::npos) {
    (*headers)[absl::AsciiStrToLower(absl::StripAsciiWhitespace(line.substr(0, colon)))] =
        std::string(absl::StripAsciiWhitespace(line.substr(colon + 1)));
  } else if (absl::StartsWith(line, "HTTP/")) {
    headers->clear();  // a new response (after a 100 Continue)
  }
  return size * count;
}

CURL* Handle(void* curl) { return static_cast<CURL*>(curl); }

}  // namespace

Http2Client::Http2Client(HttpOptions options) : options_(std::move(options)) {
  static std::once_flag init;
  std::call_once(init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  curl_ = curl_easy_init();
}

Http2Client::~Http2Client() {
  if (curl_ != nullptr) curl_easy_cleanup(Handle(curl_));
}

absl::StatusOr<HttpResponse> Http2Client::Post(const std::string& url,
                                               const std::vector<std::string>& headers,
                                               const std::string& body) {
  CURL* curl = Handle(curl_);
  if (curl == nullptr) return absl::UnavailableError("cannot create a curl handle");
  HttpResponse response;
  struct curl_slist* list = nullptr;
  for (const std::string& header : headers) list = curl_slist_append(list, header.c_str());
  // No "Expect: 100-continue" round trip.
  list = curl_slist_append(list, "Expect:");
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_2TLS));
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "https");
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, list);
  curl_easy_setopt(curl, CURLOPT_POST, 1L);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS,
                   static_cast<long>(absl::ToInt64Milliseconds(options_.timeout)));
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &AppendBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &response.body);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, &AppendHeader);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &response.headers);
  if (!options_.ca_file.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, options_.ca_file.c_str());
  const CURLcode code = curl_easy_perform(curl);
  curl_slist_free_all(list);
  // The handle keeps pointers to these; clear them before they go away.
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, nullptr);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, nullptr);
  if (code != CURLE_OK) {
    return absl::UnavailableError(absl::StrCat("POST ", url, ": ", curl_easy_strerror(code)));
  }
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response.status);
  long version = 0;
  curl_easy_getinfo(curl, CURLINFO_HTTP_VERSION, &version);
  response.http_version = version == CURL_HTTP_VERSION_2_0 ? "2" : "1.1";
  if (options_.require_http2 && version != CURL_HTTP_VERSION_2_0) {
    return absl::UnavailableError(
        absl::StrCat("POST ", url, ": the server did not speak HTTP/2 (ALPN)"));
  }
  return response;
}

std::optional<absl::Duration> ParseRetryAfter(const std::string& value, absl::Time now) {
  int64_t seconds = 0;
  if (absl::SimpleAtoi(value, &seconds)) {
    if (seconds < 0) return std::nullopt;
    return absl::Seconds(seconds);
  }
  absl::Time when;
  std::string error;
  if (absl::ParseTime("%a, %d %b %Y %H:%M:%S GMT", value, absl::UTCTimeZone(), &when, &error)) {
    return std::max(absl::ZeroDuration(), when - now);
  }
  return std::nullopt;
}

std::string FormEscape(const std::string& value) {
  std::string out;
  for (unsigned char c : value) {
    if (absl::ascii_isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out += absl::StrFormat("%%%02X", c);
    }
  }
  return out;
}

}  // namespace parlor::notifications
