#ifndef PARLOR_SERVICES_COMMON_CORE_CLIENT_ADDRESS_H_
#define PARLOR_SERVICES_COMMON_CORE_CLIENT_ADDRESS_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace parlor {

// An IPv4 or IPv6 address as 16 bytes (IPv4 as the IPv4-mapped IPv6 address ::ffff:a.b.c.d).
using IpBytes = std::array<uint8_t, 16>;

// "1.2.3.4", "::1", "[::1]", "1.2.3.4:5678", "[2001:db8::1]:443" → the address; nullopt for
// anything else (a name, "unknown", an obfuscated "_hidden" node, garbage).
std::optional<IpBytes> ParseIp(absl::string_view text);

// "1.2.3.4" for an IPv4 (or IPv4-mapped) address, RFC 5952 text for IPv6.
std::string FormatIp(const IpBytes& ip);

// The proxies whose forwarding headers are believed: the load balancer or Gateway in front of
// the services, as a list of networks ("10.0.0.0/8, fd00::/8, 192.0.2.7"). Empty: none.
class TrustedProxies {
 public:
  TrustedProxies() = default;

  // A comma-separated list of addresses and CIDR networks; INVALID_ARGUMENT naming the bad
  // entry otherwise.
  static absl::StatusOr<TrustedProxies> Parse(absl::string_view list);

  bool empty() const { return networks_.empty(); }
  bool Contains(const IpBytes& ip) const;

 private:
  struct Network {
    IpBytes prefix;
    int bits;  // of the 128-bit (IPv4-mapped) form
  };
  std::vector<Network> networks_;
};

// Which forwarding header the trusted proxies set.
enum class ForwardingHeader {
  kXForwardedFor,  // X-Forwarded-For: client, proxy1, proxy2
  kForwarded,      // RFC 7239 Forwarded: for=client;proto=https, for="[2001:db8::1]:443"
};

// "x-forwarded-for" / "forwarded" (the gRPC metadata key, lower case).
absl::string_view ForwardingHeaderKey(ForwardingHeader header);
// "x-forwarded-for" or "forwarded" (any case) → the header; INVALID_ARGUMENT otherwise.
absl::StatusOr<ForwardingHeader> ParseForwardingHeader(absl::string_view name);

// The address of the client a call comes from, for per-address limits.
//
// `peer` is the address of the TCP peer (what gRPC reports). Unless it is a trusted proxy, it is
// the answer, whatever headers the call carries: a client can write any header it likes. When
// it is, `header_values` (each value of the configured header, in order of arrival) are read
// from the right, where the proxy nearest us appended what it saw: trusted proxies are skipped,
// and the first address that is not a trusted proxy is the client. An entry that is not an
// address there ends the walk and is the answer, as written (bounded to 64 characters). When
// every entry is a trusted proxy, the left-most one is the answer; with no entries, the peer.
std::string ClientAddress(absl::string_view peer, absl::Span<const absl::string_view> header_values,
                          ForwardingHeader header, const TrustedProxies& trusted);

// The key one client address is counted under by per-address limits: an IPv4 address itself,
// an IPv6 address its /64 network ("2001:db8:1:2::/64"; one subscriber usually holds a whole
// /64, so counting single IPv6 addresses would let it start 2^64 fresh budgets), anything else
// as it is.
std::string AddressLimitKey(absl::string_view address);

}  // namespace parlor

#endif  // PARLOR_SERVICES_COMMON_CORE_CLIENT_ADDRESS_H_
