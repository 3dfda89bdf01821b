#ifndef PARLOR_SERVICES_ACCOUNTS_CREDENTIALS_TESTING_LOCAL_SERVERS_H_
#define PARLOR_SERVICES_ACCOUNTS_CREDENTIALS_TESTING_LOCAL_SERVERS_H_

#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

// Test-only servers on 127.0.0.1 that speak just enough of a real protocol for the service's own
// clients (libcurl) to be tested end to end: HTTP/1.1 for a provider's key set, SMTP for mail.
// Each serves one connection at a time on its own thread and stops in its destructor.
namespace parlor::accounts::testing {

class LocalTcpServer {
 public:
  // `serve` runs for each accepted connection with its socket; it returns to close it.
  explicit LocalTcpServer(std::function<void(int fd)> serve);
  virtual ~LocalTcpServer();
  int port() const { return port_; }

 protected:
  void Stop();
  static bool ReadLine(int fd, std::string* line);  // up to CRLF, which is dropped
  static void WriteAll(int fd, const std::string& data);

 private:
  void Loop();
  std::function<void(int)> serve_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

// GET <path> answers `body` with `status`; anything else 404. Counts the requests.
class LocalHttpServer : public LocalTcpServer {
 public:
  LocalHttpServer();
  ~LocalHttpServer() override { Stop(); }
  void Set(const std::string& path, int status, const std::string& body);
  std::string Url(const std::string& path) const;
  int requests() const { return requests_.load(); }

 private:
  void Serve(int fd);
  mutable std::mutex mu_;
  std::string path_;
  int status_ = 404;
  std::string body_;
  std::atomic<int> requests_{0};
};

// An SMTP server (RFC 5321: EHLO/HELO, MAIL, RCPT, DATA with dot-unstuffing, RSET, NOOP, QUIT)
// that keeps what it receives. It can refuse a recipient (550) or every connection (421).
class LocalSmtpServer : public LocalTcpServer {
 public:
  struct Message {
    std::string mail_from;
    std::vector<std::string> recipients;
    std::string data;  // headers and body as received, dot-unstuffed, CRLF line ends
  };
  LocalSmtpServer();
  ~LocalSmtpServer() override { Stop(); }
  std::string Url() const;
  void RefuseRecipient(const std::string& address);
  void RefuseConnections(bool refuse);
  std::vector<Message> messages() const;
  // The last 6-digit code mailed to `address` ("" if none).
  std::string LastCodeFor(const std::string& address) const;

 private:
  void Serve(int fd);
  mutable std::mutex mu_;
  std::vector<Message> messages_;
  std::string refused_recipient_;
  bool refuse_connections_ = false;
};

}  // namespace parlor::accounts::testing

#endif  // PARLOR_SERVICES_ACCOUNTS_CREDENTIALS_TESTING_LOCAL_SERVERS_H_
