#include "services/accounts/credentials/mail.h"

#include <curl/curl.h>

#include <cstring>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/time/clock.h"
#include "services/common/core/crypto.h"
#include "spdlog/spdlog.h"

namespace parlor::accounts {
namespace {

struct Upload {
  std::string data;
  size_t offset = 0;
};

size_t ReadUpload(char* buffer, size_t size, size_t count, void* user) {
  auto* upload = static_cast<Upload*>(user);
  const size_t n = std::min(size * count, upload->data.size() - upload->offset);
  std::memcpy(buffer, upload->data.data() + upload->offset, n);
  upload->offset += n;
  return n;
}

// The message as sent: headers, a blank line, the body with CRLF line ends. (libcurl escapes a
// line starting with '.'.)
std::string Message(const SmtpOptions& options, const Mail& mail, absl::Time now) {
  const std::string domain = options.from.substr(options.from.find('@') + 1);
  return absl::StrCat(
      "Date: ", absl::FormatTime("%a, %d %b %Y %H:%M:%S +0000", now, absl::UTCTimeZone()),
      "\r\nFrom: ", options.from, "\r\nTo: ", mail.to, "\r\nSubject: ", mail.subject,
      "\r\nMessage-ID: <", Sha256Hex(RandomBytes(16)).substr(0, 32), "@", domain,
      ">\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n",
      absl::StrReplaceAll(mail.body, {{"\r\n", "\r\n"}, {"\n", "\r\n"}}), "\r\n");
}

}  // namespace

absl::Status LoggingMailSender::Send(const Mail& mail) {
  spdlog::info("mail (logging sender) to {}: {}: {}", mail.to, mail.subject,
               absl::StrReplaceAll(mail.body, {{"\n", " "}}));
  return absl::OkStatus();
}

absl::Status SmtpMailSender::Send(const Mail& mail) {
  static const CURLcode kInit = curl_global_init(CURL_GLOBAL_DEFAULT);
  if (kInit != CURLE_OK) return absl::InternalError("libcurl did not initialize");
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> curl(curl_easy_init(), &curl_easy_cleanup);
  if (!curl) return absl::InternalError("libcurl: no handle");
  Upload upload{.data = Message(options_, mail, absl::Now())};
  const std::string from = absl::StrCat("<", options_.from, ">");
  const std::string to = absl::StrCat("<", mail.to, ">");
  curl_slist* recipients = curl_slist_append(nullptr, to.c_str());
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> recipients_owner(
      recipients, &curl_slist_free_all);
  curl_easy_setopt(curl.get(), CURLOPT_URL, options_.url.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_PROTOCOLS_STR, "smtp,smtps");
  curl_easy_setopt(curl.get(), CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl.get(), CURLOPT_TIMEOUT_MS,
                   static_cast<long>(absl::ToInt64Milliseconds(options_.timeout)));
  if (options_.require_tls) curl_easy_setopt(curl.get(), CURLOPT_USE_SSL, CURLUSESSL_ALL);
  if (!options_.username.empty()) {
    curl_easy_setopt(curl.get(), CURLOPT_USERNAME, options_.username.c_str());
    curl_easy_setopt(curl.get(), CURLOPT_PASSWORD, options_.password.c_str());
  }
  curl_easy_setopt(curl.get(), CURLOPT_MAIL_FROM, from.c_str());
  curl_easy_setopt(curl.get(), CURLOPT_MAIL_RCPT, recipients);
  curl_easy_setopt(curl.get(), CURLOPT_READFUNCTION, &ReadUpload);
  curl_easy_setopt(curl.get(), CURLOPT_READDATA, &upload);
  curl_easy_setopt(curl.get(), CURLOPT_UPLOAD, 1L);
  const CURLcode rc = curl_easy_perform(curl.get());
  if (rc == CURLE_OK) return absl::OkStatus();
  long reply = 0;
  curl_easy_getinfo(curl.get(), CURLINFO_RESPONSE_CODE, &reply);
  spdlog::warn("SMTP to {} via {} failed: {} (last reply {})", mail.to, options_.url,
               curl_easy_strerror(rc), reply);
  // A recipient refused for good (e.g. 550 no such mailbox) will not work on retry.
  if (rc == CURLE_SEND_ERROR && reply >= 500 && reply < 600 && upload.offset == 0) {
    return absl::InvalidArgumentError(absl::StrCat("the mail server refused the address ", mail.to,
                                                   " (SMTP ", reply, "); check it"));
  }
  return absl::UnavailableError("the mail could not be sent right now; retry in a minute");
}

}  // namespace parlor::accounts
