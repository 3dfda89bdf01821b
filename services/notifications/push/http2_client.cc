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

// The options of one POST on `curl` (headers and body stay owned by the caller until it ends).
void SetPost(CURL* curl, const HttpOptions& options, const std::string& url,
             struct curl_slist* headers, const std::string& body, HttpResponse* response) {
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_2TLS));
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "https");
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_POST, 1L);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.data());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS,
                   static_cast<long>(absl::ToInt64Milliseconds(options.timeout)));
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &AppendBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &response->body);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, &AppendHeader);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &response->headers);
  if (!options.ca_file.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, options.ca_file.c_str());
}

struct curl_slist* HeaderList(const std::vector<std::string>& headers) {
  struct curl_slist* list = nullptr;
  for (const std::string& header : headers) list = curl_slist_append(list, header.c_str());
  // No "Expect: 100-continue" round trip.
  return curl_slist_append(list, "Expect:");
}

// The answer of a finished transfer: its status, version, and the HTTP/2 requirement.
absl::StatusOr<HttpResponse> Finish(CURL* curl, CURLcode code, const HttpOptions& options,
                                    const std::string& url, HttpResponse response) {
  if (code != CURLE_OK) {
    return absl::UnavailableError(absl::StrCat("POST ", url, ": ", curl_easy_strerror(code)));
  }
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response.status);
  long version = 0;
  curl_easy_getinfo(curl, CURLINFO_HTTP_VERSION, &version);
  response.http_version = version == CURL_HTTP_VERSION_2_0 ? "2" : "1.1";
  if (options.require_http2 && version != CURL_HTTP_VERSION_2_0) {
    return absl::UnavailableError(
        absl::StrCat("POST ", url, ": the server did not speak HTTP/2 (ALPN)"));
  }
  return response;
}

}  // namespace

Http2Client::Http2Client(HttpOptions options) : options_(std::move(options)) {
  static std::once_flag init;
  std::call_once(init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  curl_ = curl_easy_init();
  CURLM* multi = curl_multi_init();
  if (multi != nullptr) {
    curl_multi_setopt(multi, CURLMOPT_PIPELINING, static_cast<long>(CURLPIPE_MULTIPLEX));
    // One connection per host: the streams share it (APNs and FCM want few connections).
    curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, 1L);
  }
  multi_ = multi;
}

Http2Client::~Http2Client() {
  if (curl_ != nullptr) curl_easy_cleanup(Handle(curl_));
  if (multi_ != nullptr) curl_multi_cleanup(static_cast<CURLM*>(multi_));
}

absl::StatusOr<HttpResponse> Http2Client::Post(const std::string& url,
                                               const std::vector<std::string>& headers,
                                               const std::string& body) {
  CURL* curl = Handle(curl_);
  if (curl == nullptr) return absl::UnavailableError("cannot create a curl handle");
  HttpResponse response;
  struct curl_slist* list = HeaderList(headers);
  SetPost(curl, options_, url, list, body, &response);
  const CURLcode code = curl_easy_perform(curl);
  curl_slist_free_all(list);
  // The handle keeps pointers to these; clear them before they go away.
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, nullptr);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, nullptr);
  return Finish(curl, code, options_, url, std::move(response));
}

std::vector<absl::StatusOr<HttpResponse>> Http2Client::PostAll(
    const std::vector<HttpRequest>& requests) {
  std::vector<absl::StatusOr<HttpResponse>> results(
      requests.size(), absl::UnavailableError("not sent: no curl multi handle"));
  CURLM* multi = static_cast<CURLM*>(multi_);
  if (multi == nullptr || requests.empty()) return results;
  struct Transfer {
    CURL* curl = nullptr;
    struct curl_slist* headers = nullptr;
    HttpResponse response;
  };
  std::vector<Transfer> transfers(requests.size());
  for (size_t i = 0; i < requests.size(); ++i) {
    Transfer& t = transfers[i];
    t.curl = curl_easy_init();
    if (t.curl == nullptr) {
      results[i] = absl::UnavailableError("cannot create a curl handle");
      continue;
    }
    t.headers = HeaderList(requests[i].headers);
    SetPost(t.curl, options_, requests[i].url, t.headers, requests[i].body, &t.response);
    // Wait for the connection to say it multiplexes instead of opening another.
    curl_easy_setopt(t.curl, CURLOPT_PIPEWAIT, 1L);
    curl_easy_setopt(t.curl, CURLOPT_PRIVATE, reinterpret_cast<void*>(i));
    curl_multi_add_handle(multi, t.curl);
  }
  int running = 0;
  do {
    if (curl_multi_perform(multi, &running) != CURLM_OK) break;
    int left = 0;
    while (CURLMsg* message = curl_multi_info_read(multi, &left)) {
      if (message->msg != CURLMSG_DONE) continue;
      void* index = nullptr;
      curl_easy_getinfo(message->easy_handle, CURLINFO_PRIVATE, &index);
      const size_t i = reinterpret_cast<size_t>(index);
      results[i] = Finish(message->easy_handle, message->data.result, options_, requests[i].url,
                          std::move(transfers[i].response));
    }
    if (running > 0) curl_multi_poll(multi, nullptr, 0, 100, nullptr);
  } while (running > 0);
  for (Transfer& t : transfers) {
    if (t.curl == nullptr) continue;
    curl_multi_remove_handle(multi, t.curl);
    curl_easy_cleanup(t.curl);
    curl_slist_free_all(t.headers);
  }
  return results;
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
