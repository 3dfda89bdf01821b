#include "services/common/core/logging.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "spdlog/formatter.h"
#include "spdlog/sinks/stdout_sinks.h"

namespace parlor {
namespace {

thread_local std::string current_request_id;

constexpr size_t kMinRedactedLength = 6;

struct Redactions {
  std::mutex mu;
  std::vector<std::pair<std::string, std::string>> replacements;  // (secret, "[redacted]")
};

Redactions& GlobalRedactions() {
  static Redactions* redactions = new Redactions();
  return *redactions;
}

std::string Timestamp(spdlog::log_clock::time_point time) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", absl::FromChrono(time), absl::UTCTimeZone());
}

// Writes one line per record; the format is chosen once at start-up.
class ParlorFormatter : public spdlog::formatter {
 public:
  ParlorFormatter(std::string service, bool json) : service_(std::move(service)), json_(json) {}

  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    const std::string text = Redacted(absl::string_view(msg.payload.data(), msg.payload.size()));
    const spdlog::string_view_t level_view = spdlog::level::to_string_view(msg.level);
    absl::string_view level(level_view.data(), level_view.size());
    std::string line;
    if (json_) {
      line = absl::StrCat("{\"ts\":\"", Timestamp(msg.time), "\",\"level\":\"", level,
                          "\",\"service\":\"", JsonEscape(service_), "\"");
      if (!current_request_id.empty()) {
        absl::StrAppend(&line, ",\"request_id\":\"", JsonEscape(current_request_id), "\"");
      }
      absl::StrAppend(&line, ",\"msg\":\"", JsonEscape(text), "\"}\n");
    } else {
      line = absl::StrCat(Timestamp(msg.time), " ", level.substr(0, 1), " ", service_);
      if (!current_request_id.empty()) {
        absl::StrAppend(&line, " [req=", TextEscape(current_request_id), "]");
      }
      absl::StrAppend(&line, " ", TextEscape(text), "\n");
    }
    dest.append(line.data(), line.data() + line.size());
  }

  std::unique_ptr<spdlog::formatter> clone() const override {
    return std::make_unique<ParlorFormatter>(service_, json_);
  }

 private:
  std::string service_;
  bool json_;
};

}  // namespace

absl::Status InitLogging(absl::string_view service, absl::string_view format,
                         absl::string_view level) {
  if (format != "text" && format != "json") {
    return absl::InvalidArgumentError(
        absl::StrCat("log format \"", format, "\" is not one of text|json"));
  }
  spdlog::level::level_enum parsed = spdlog::level::from_str(std::string(level));
  if (parsed == spdlog::level::off && level != "off") {
    return absl::InvalidArgumentError(absl::StrCat(
        "log level \"", level, "\" is not one of trace|debug|info|warn|error|critical|off"));
  }
  auto logger = std::make_shared<spdlog::logger>(std::string(service),
                                                 std::make_shared<spdlog::sinks::stderr_sink_mt>());
  logger->set_formatter(std::make_unique<ParlorFormatter>(std::string(service), format == "json"));
  logger->set_level(parsed);
  logger->flush_on(spdlog::level::info);
  spdlog::set_default_logger(std::move(logger));
  return absl::OkStatus();
}

void RedactInLogs(absl::string_view secret) {
  if (secret.size() < kMinRedactedLength) return;
  Redactions& redactions = GlobalRedactions();
  std::lock_guard<std::mutex> lock(redactions.mu);
  for (const auto& [known, replacement] : redactions.replacements) {
    if (known == secret) return;
  }
  redactions.replacements.emplace_back(std::string(secret), "[redacted]");
  // Longest first, so a secret containing another is blanked whole.
  std::sort(redactions.replacements.begin(), redactions.replacements.end(),
            [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
}

std::string Redacted(absl::string_view text) {
  Redactions& redactions = GlobalRedactions();
  std::lock_guard<std::mutex> lock(redactions.mu);
  std::string out(text);
  for (const auto& [secret, replacement] : redactions.replacements) {
    if (out.find(secret) != std::string::npos)
      out = absl::StrReplaceAll(out, {{secret, replacement}});
  }
  return out;
}

ScopedRequestId::ScopedRequestId(std::string request_id)
    : previous_(std::exchange(current_request_id, std::move(request_id))) {}

ScopedRequestId::~ScopedRequestId() { current_request_id = std::move(previous_); }

const std::string& CurrentRequestId() { return current_request_id; }

namespace {

// Length of the well-formed UTF-8 sequence starting at text[i] (2-4), or 0 if the bytes there
// are not one (a stray continuation byte, a truncated or overlong sequence, a surrogate, or a
// code point beyond U+10FFFF).
size_t Utf8SequenceLength(absl::string_view text, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // allowed range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  if (byte(i + 1) < low || byte(i + 1) > high) return 0;
  for (size_t k = 2; k < length; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return length;
}

// U+0085 (NEL), U+2028 and U+2029: line breaks to some log viewers.
bool IsUnicodeLineBreak(absl::string_view sequence) {
  return sequence == "\xC2\x85" || sequence == "\xE2\x80\xA8" || sequence == "\xE2\x80\xA9";
}

}  // namespace

std::string TextEscape(absl::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      switch (c) {
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        case '\\':
          out += "\\\\";
          break;
        default:
          if (c < 0x20 || c == 0x7F) {
            out += absl::StrFormat("\\x%02x", c);
          } else {
            out += static_cast<char>(c);
          }
      }
      ++i;
      continue;
    }
    const size_t length = Utf8SequenceLength(text, i);
    if (length == 0) {
      out += absl::StrFormat("\\x%02x", c);
      ++i;
      continue;
    }
    const absl::string_view sequence = text.substr(i, length);
    if (IsUnicodeLineBreak(sequence)) {
      out += sequence.size() == 2 ? "\\u0085" : (sequence[2] == '\xA8' ? "\\u2028" : "\\u2029");
    } else {
      out.append(sequence.data(), sequence.size());
    }
    i += length;
  }
  return out;
}

std::string JsonEscape(absl::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      // Well-formed UTF-8 is copied; a byte that is not part of it becomes U+FFFD, so the line
      // stays valid JSON for every log pipeline.
      const size_t length = Utf8SequenceLength(text, i);
      if (length == 0) {
        out += "\\ufffd";
      } else {
        out.append(text.data() + i, length);
        i += length - 1;
      }
      continue;
    }
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20 || c == 0x7F) {
          out += absl::StrFormat("\\u%04x", c);
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out;
}

}  // namespace parlor
