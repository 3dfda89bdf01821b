#ifndef PARLOR_SERVICES_ACCOUNTS_CREDENTIALS_MAIL_H_
#define PARLOR_SERVICES_ACCOUNTS_CREDENTIALS_MAIL_H_

#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace parlor::accounts {

// One plain-text mail. `to` is a validated address (ValidateEmail: no spaces or line breaks, so
// it cannot inject headers); `subject` and `body` are the server's own text.
struct Mail {
  std::string to;
  std::string subject;
  std::string body;
};

// Sends the one-time codes that prove an email address. Blocking; thread-safe.
class MailSender {
 public:
  virtual ~MailSender() = default;
  // INVALID_ARGUMENT when the mail server refuses the recipient for good (5xx), UNAVAILABLE
  // for anything that may work later.
  virtual absl::Status Send(const Mail& mail) = 0;
};

// Writes the mail to the service log (development and tests: the code is in the log).
class LoggingMailSender : public MailSender {
 public:
  absl::Status Send(const Mail& mail) override;
};

struct SmtpOptions {
  // smtp://host:port (STARTTLS unless require_tls is off) or smtps://host:port (TLS at once).
  std::string url;
  // The envelope and header sender, e.g. "no-reply@parlor.example".
  std::string from;
  // SMTP AUTH, when the server wants it.
  std::string username;
  std::string password;
  // Refuse to send over an unencrypted connection (smtp:// without STARTTLS).
  bool require_tls = true;
  absl::Duration timeout = absl::Seconds(10);
};

// SMTP through libcurl.
class SmtpMailSender : public MailSender {
 public:
  explicit SmtpMailSender(SmtpOptions options) : options_(std::move(options)) {}
  absl::Status Send(const Mail& mail) override;

 private:
  SmtpOptions options_;
};

}  // namespace parlor::accounts

#endif  // PARLOR_SERVICES_ACCOUNTS_CREDENTIALS_MAIL_H_
