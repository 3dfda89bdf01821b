#include "services/accounts/credentials/testing/local_servers.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <regex>
#include <stdexcept>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace parlor::accounts::testing {

LocalTcpServer::LocalTcpServer(std::function<void(int fd)> serve) : serve_(std::move(serve)) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof(address);
  if (listen_fd_ < 0 ||
      ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      ::listen(listen_fd_, 16) != 0 ||
      ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    throw std::runtime_error("cannot listen on 127.0.0.1");
  }
  port_ = ntohs(address.sin_port);
  thread_ = std::thread([this] { Loop(); });
}

LocalTcpServer::~LocalTcpServer() { Stop(); }

void LocalTcpServer::Stop() {
  if (stopping_.exchange(true)) return;
  if (thread_.joinable()) thread_.join();
  ::close(listen_fd_);
}

void LocalTcpServer::Loop() {
  while (!stopping_.load()) {
    pollfd pfd{.fd = listen_fd_, .events = POLLIN, .revents = 0};
    if (::poll(&pfd, 1, 50) <= 0) continue;
    const int fd = ::accept(listen_fd_, nullptr, nullptr);
    if (fd < 0) continue;
    timeval timeout{.tv_sec = 5, .tv_usec = 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
    serve_(fd);
    ::close(fd);
  }
}

bool LocalTcpServer::ReadLine(int fd, std::string* line) {
  line->clear();
  char c = 0;
  while (::recv(fd, &c, 1, 0) == 1) {
    if (c == '\n') {
      if (!line->empty() && line->back() == '\r') line->pop_back();
      return true;
    }
    line->push_back(c);
    if (line->size() > 1 << 20) return false;
  }
  return false;
}

void LocalTcpServer::WriteAll(int fd, const std::string& data) {
  size_t sent = 0;
  while (sent < data.size()) {
    const ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return;
    sent += static_cast<size_t>(n);
  }
}

LocalHttpServer::LocalHttpServer() : LocalTcpServer([this](int fd) { Serve(fd); }) {}

void LocalHttpServer::Set(const std::string& path, int status, const std::string& body) {
  std::lock_guard<std::mutex> lock(mu_);
  path_ = path;
  status_ = status;
  body_ = body;
}

std::string LocalHttpServer::Url(const std::string& path) const {
  return absl::StrCat("http://127.0.0.1:", port(), path);
}

void LocalHttpServer::Serve(int fd) {
  std::string request_line;
  if (!ReadLine(fd, &request_line)) return;
  for (std::string header; ReadLine(fd, &header) && !header.empty();) {
  }
  ++requests_;
  int status = 404;
  std::string body = "not found";
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (request_line == absl::StrCat("GET ", path_, " HTTP/1.1")) {
      status = status_;
      body = body_;
    }
  }
  WriteAll(fd,
           absl::StrCat("HTTP/1.1 ", status, " X\r\nContent-Type: application/json\r\n",
                        "Content-Length: ", body.size(), "\r\nConnection: close\r\n\r\n", body));
}

LocalSmtpServer::LocalSmtpServer() : LocalTcpServer([this](int fd) { Serve(fd); }) {}

std::string LocalSmtpServer::Url() const { return absl::StrCat("smtp://127.0.0.1:", port()); }

void LocalSmtpServer::RefuseRecipient(const std::string& address) {
  std::lock_guard<std::mutex> lock(mu_);
  refused_recipient_ = address;
}

void LocalSmtpServer::RefuseConnections(bool refuse) {
  std::lock_guard<std::mutex> lock(mu_);
  refuse_connections_ = refuse;
}

std::vector<LocalSmtpServer::Message> LocalSmtpServer::messages() const {
  std::lock_guard<std::mutex> lock(mu_);
  return messages_;
}

std::string LocalSmtpServer::LastCodeFor(const std::string& address) const {
  std::lock_guard<std::mutex> lock(mu_);
  static const std::regex kCode("Your code is ([0-9]{6})");
  for (auto it = messages_.rbegin(); it != messages_.rend(); ++it) {
    if (it->recipients != std::vector<std::string>{absl::StrCat("<", address, ">")}) continue;
    std::smatch match;
    if (std::regex_search(it->data, match, kCode)) return match[1];
  }
  return "";
}

void LocalSmtpServer::Serve(int fd) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (refuse_connections_) {
      WriteAll(fd, "421 127.0.0.1 Service not available, closing transmission channel\r\n");
      return;
    }
  }
  WriteAll(fd, "220 127.0.0.1 ESMTP test server\r\n");
  Message message;
  std::string line;
  while (ReadLine(fd, &line)) {
    const std::string verb = absl::AsciiStrToUpper(line.substr(0, 4));
    if (verb == "EHLO") {
      WriteAll(fd, "250-127.0.0.1 greets you\r\n250-8BITMIME\r\n250 SIZE 1000000\r\n");
    } else if (verb == "HELO") {
      WriteAll(fd, "250 127.0.0.1\r\n");
    } else if (verb == "MAIL") {
      message = Message();
      message.mail_from = line.substr(line.find(':') + 1);
      WriteAll(fd, "250 2.1.0 Ok\r\n");
    } else if (verb == "RCPT") {
      std::string recipient = line.substr(line.find(':') + 1);
      std::lock_guard<std::mutex> lock(mu_);
      if (!refused_recipient_.empty() && absl::StrContains(recipient, refused_recipient_)) {
        WriteAll(fd, "550 5.1.1 No such user here\r\n");
      } else {
        message.recipients.push_back(recipient);
        WriteAll(fd, "250 2.1.5 Ok\r\n");
      }
    } else if (verb == "DATA") {
      if (message.recipients.empty()) {
        WriteAll(fd, "554 5.5.1 No valid recipients\r\n");
        continue;
      }
      WriteAll(fd, "354 End data with <CR><LF>.<CR><LF>\r\n");
      while (ReadLine(fd, &line) && line != ".") {
        if (absl::StartsWith(line, ".")) line.erase(0, 1);  // dot-unstuffing (RFC 5321 4.5.2)
        absl::StrAppend(&message.data, line, "\r\n");
      }
      {
        std::lock_guard<std::mutex> lock(mu_);
        messages_.push_back(message);
      }
      WriteAll(fd, "250 2.0.0 Ok: queued\r\n");
    } else if (verb == "RSET") {
      message = Message();
      WriteAll(fd, "250 2.0.0 Ok\r\n");
    } else if (verb == "NOOP") {
      WriteAll(fd, "250 2.0.0 Ok\r\n");
    } else if (verb == "QUIT") {
      WriteAll(fd, "221 2.0.0 Bye\r\n");
      return;
    } else {
      WriteAll(fd, "500 5.5.2 Error: command not recognized\r\n");
    }
  }
}

}  // namespace parlor::accounts::testing
