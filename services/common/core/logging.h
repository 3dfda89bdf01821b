#ifndef PARLOR_SERVICES_COMMON_CORE_LOGGING_H_
#define PARLOR_SERVICES_COMMON_CORE_LOGGING_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "spdlog/spdlog.h"

namespace parlor {

// Process-wide logging on spdlog's default logger (stderr).
//
// Two formats: "text" for people ("2026-11-23T05:40:01.123Z I accounts [req=ab12] message"), and
// "json" for log pipelines (one JSON object per line: ts, level, service, request_id, msg).
// Use spdlog's own calls (`spdlog::info("...", args)`); the request id of the RPC being handled on
// the current thread is added automatically (see ScopedRequestId).
absl::Status InitLogging(absl::string_view service, absl::string_view format,
                         absl::string_view level);

// Replaces `secret` with "[redacted]" in every log line written from now on, wherever it comes
// from (libpq, for one, quotes a malformed connection URI whole, password included, in its
// error). Values shorter than 6 characters are ignored: blanking them would shred ordinary text.
// Secret settings (Flags::Secret) are registered by RunServiceMain right after parsing.
void RedactInLogs(absl::string_view secret);

// `text` with every registered secret replaced (what the formatter does to each line).
std::string Redacted(absl::string_view text);

// Marks the current thread as working on one RPC until destroyed, so every log line it writes
// carries that request id. RpcRunner sets it around each handler body.
class ScopedRequestId {
 public:
  explicit ScopedRequestId(std::string request_id);
  ~ScopedRequestId();
  ScopedRequestId(const ScopedRequestId&) = delete;
  ScopedRequestId& operator=(const ScopedRequestId&) = delete;

 private:
  std::string previous_;
};

// The request id set on this thread, or "" outside an RPC.
const std::string& CurrentRequestId();

// JSON string escaping (exposed for tests and for the JSON formatter). Bytes that are not
// well-formed UTF-8 become U+FFFD.
std::string JsonEscape(absl::string_view text);

// What the text format does to a message and a request id, which may hold client-controlled
// text (a token's header, a game id): control characters (a newline above all, which would start
// a forged log line), DEL, Unicode line breaks and bytes that are not UTF-8 become visible
// escapes (\n, \r, \t, \xNN, \u2028), and a backslash is doubled so an escape cannot be faked.
std::string TextEscape(absl::string_view text);

}  // namespace parlor

// Debian's abseil has its own string_view type (not std::string_view); let spdlog/fmt print it
// (e.g. absl::Status::message()).
template <>
struct fmt::formatter<absl::string_view> : fmt::formatter<fmt::string_view> {
  template <typename FormatContext>
  auto format(absl::string_view value, FormatContext& context) const {
    return fmt::formatter<fmt::string_view>::format(fmt::string_view(value.data(), value.size()),
                                                    context);
  }
};

#endif  // PARLOR_SERVICES_COMMON_CORE_LOGGING_H_
