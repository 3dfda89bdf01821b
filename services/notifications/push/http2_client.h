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

struct HttpOptions {
  // PEM file of extra CAs to trust instead of the system's (a test's own CA). Empty: system.
  std::string ca_file;
  absl::Duration timeout = absl::Seconds(10);
  // Refuse to talk anything but HTTP/2 (APNs and FCM speak it; APNs only it).
  bool require_http2 = true;
};

// POSTs over HTTPS with libcurl (Debian's, built with nghttp2): HTTP/2 negotiated with ALPN,
// the connection kept open and reused for the next request (one per client; not thread-safe).
class Http2Client {
 public:
  explicit Http2Client(HttpOptions options);
  ~Http2Client();
  Http2Client(const Http2Client&) = delete;
  Http2Client& operator=(const Http2Client&) = delete;

  // `headers` as "name: value". UNAVAILABLE when no answer came (connection, TLS, timeout).
  absl::StatusOr<HttpResponse> Post(const std::string& url, const std::vector<std::string>& headers,
                                    const std::string& body);

 private:
  HttpOptions options_;
  void* curl_;  // CURL*
};

// A Retry-After header's delay: delay-seconds or an HTTP-date (relative to `now`).
std::optional<absl::Duration> ParseRetryAfter(const std::string& value, absl::Time now);

// application/x-www-form-urlencoded escaping of one value.
std::string FormEscape(const std::string& value);

}  // namespace parlor::notifications

#endif  // PARLOR_SERVICES_NOTIFICATIONS_PUSH_HTTP2_CLIENT_H_
