#ifndef PARLOR_SERVICES_SESSIONS_LOAD_FREE_PORTS_H_
#define PARLOR_SERVICES_SESSIONS_LOAD_FREE_PORTS_H_

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <optional>
#include <random>
#include <vector>

namespace parlor::sessions {

// `count` distinct loopback ports for a child server to listen on, or an empty vector. They are
// taken below the kernel's ephemeral range (net.ipv4.ip_local_port_range, 32768-60999 by
// default): a port the kernel hands out (bind to port 0) can be given to any outgoing connection
// on the machine between this check and the child's bind (a load run's server once failed with
// "Address already in use" that way), and one given out twice in a row would make the two ports
// the same. Each is held bound until all are chosen, so they differ.
inline std::vector<int> FreeLoopbackPorts(int count) {
  int ephemeral_low = 32768;
  std::ifstream("/proc/sys/net/ipv4/ip_local_port_range") >> ephemeral_low;
  const int low = 10000;
  std::vector<int> ports;
  if (ephemeral_low <= low + count) return ports;
  std::vector<int> held;
  std::mt19937 random(std::random_device{}());
  std::uniform_int_distribution<int> pick(low, ephemeral_low - 1);
  for (int attempt = 0; attempt < 1000 && static_cast<int>(ports.size()) < count; ++attempt) {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) break;
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const int port = pick(random);
    addr.sin_port = htons(static_cast<uint16_t>(port));
    if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) {
      held.push_back(fd);
      ports.push_back(port);
    } else {
      close(fd);
    }
  }
  for (int fd : held) close(fd);
  if (static_cast<int>(ports.size()) < count) ports.clear();
  return ports;
}

// The two ports of a child parlor-sessions, or nullopt after saying why on stderr.
struct ChildServerPorts {
  int grpc = 0;
  int metrics = 0;
};
inline std::optional<ChildServerPorts> PortsForChildServer() {
  const std::vector<int> ports = FreeLoopbackPorts(2);
  if (ports.empty()) {
    std::fprintf(stderr, "no free loopback ports below the kernel's ephemeral range\n");
    return std::nullopt;
  }
  return ChildServerPorts{.grpc = ports[0], .metrics = ports[1]};
}

}  // namespace parlor::sessions

#endif  // PARLOR_SERVICES_SESSIONS_LOAD_FREE_PORTS_H_
