#ifndef PARLOR_SERVICES_NOTIFICATIONS_PUSH_HTTP2_CLIENT_H_
#define PARLOR_SERVICES_NOTIFICATIONS_PUSH_HTTP2_CLIENT_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace parlor::notifications {

struct HttpResponse {
  long status = 0;
  // Lower-case names.
  std::map<std::string, std::string> headers;
  std::string body;
  // "2" for HTTP/2.
  std::string http_version;
};

struct HttpRequest {
  std::string url;
  // "name: value".
  std::vector<std::string> headers;
  std::string body;
};

struct HttpOptions {
  // PEM file of extra CAs to trust instead of the system's (a test's own CA). Empty: system.
  std::string ca_file;
  absl::Duration timeout = absl::Seconds(10);
  // Refuse to talk anything but HTTP/2 (APNs and FCM speak it; APNs only it).
  bool require_http2 = true;
};

// POSTs over HTTPS with libcurl (Debian's, built with nghttp2): HTTP/2 negotiated with ALPN,
// the connection kept open and reused for the next request (one per client; not thread-safe).
// PostAll sends many requests at once as concurrent streams of one HTTP/2 connection per host
// (libcurl's multi interface with CURLPIPE_MULTIPLEX), as APNs and FCM ask of a sender.
class Http2Client {
 public:
  explicit Http2Client(HttpOptions options);
  ~Http2Client();
  Http2Client(const Http2Client&) = delete;
  Http2Client& operator=(const Http2Client&) = delete;

  // `headers` as "name: value". UNAVAILABLE when no answer came (connection, TLS, timeout).
  absl::StatusOr<HttpResponse> Post(const std::string& url, const std::vector<std::string>& headers,
                                    const std::string& body);

  // Every request at once, each a stream of the one connection kept per host (opened by the
  // first, the others waiting for it rather than opening more; streams beyond the server's
  // SETTINGS_MAX_CONCURRENT_STREAMS wait their turn). One answer per request, in order; each
  // fails on its own (UNAVAILABLE: no answer within options.timeout).
  std::vector<absl::StatusOr<HttpResponse>> PostAll(const std::vector<HttpRequest>& requests);

 private:
  HttpOptions options_;
  void* curl_;   // CURL*
  void* multi_;  // CURLM*: its connection cache holds PostAll's connections between calls
};

// A Retry-After header's delay: delay-seconds or an HTTP-date (relative to `now`).
std::optional<absl::Duration> ParseRetryAfter(const std::string& value, absl::Time now);

// application/x-www-form-urlencoded escaping of one value.
std::string FormEscape(const std::string& value);

}  // namespace parlor::notifications

#endif  // PARLOR_SERVICES_NOTIFICATIONS_PUSH_HTTP2_CLIENT_H_
