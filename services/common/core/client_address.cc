#include "services/common/core/client_address.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace parlor {
namespace {

constexpr size_t kMaxOpaqueAddressLength = 64;
constexpr uint8_t kMappedPrefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

bool IsMappedV4(const IpBytes& ip) { return std::memcmp(ip.data(), kMappedPrefix, 12) == 0; }

std::optional<IpBytes> ParseBareIp(absl::string_view text) {
  if (text.empty() || text.size() >= INET6_ADDRSTRLEN) return std::nullopt;
  const std::string copy(text);
  IpBytes ip{};
  in_addr v4;
  if (inet_pton(AF_INET, copy.c_str(), &v4) == 1) {
    std::memcpy(ip.data(), kMappedPrefix, 12);
    std::memcpy(ip.data() + 12, &v4, 4);
    return ip;
  }
  in6_addr v6;
  if (inet_pton(AF_INET6, copy.c_str(), &v6) == 1) {
    std::memcpy(ip.data(), &v6, 16);
    return ip;
  }
  return std::nullopt;
}

bool IsPort(absl::string_view text) {
  int port = 0;
  return !text.empty() && text.size() <= 5 && absl::SimpleAtoi(text, &port) && port >= 0 &&
         port <= 65535;
}

// "for=..." value of one Forwarded element, unquoted; "" when the element has none.
absl::string_view ForwardedFor(absl::string_view element) {
  for (absl::string_view pair : absl::StrSplit(element, ';')) {
    pair = absl::StripAsciiWhitespace(pair);
    const size_t equals = pair.find('=');
    if (equals == absl::string_view::npos) continue;
    if (!absl::EqualsIgnoreCase(absl::StripAsciiWhitespace(pair.substr(0, equals)), "for")) {
      continue;
    }
    absl::string_view value = absl::StripAsciiWhitespace(pair.substr(equals + 1));
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
      value = value.substr(1, value.size() - 2);
    }
    return value;
  }
  return "";
}

}  // namespace

std::optional<IpBytes> ParseIp(absl::string_view text) {
  text = absl::StripAsciiWhitespace(text);
  if (absl::ConsumePrefix(&text, "[")) {
    const size_t close = text.find(']');
    if (close == absl::string_view::npos) return std::nullopt;
    absl::string_view rest = text.substr(close + 1);
    if (!rest.empty() && !(absl::ConsumePrefix(&rest, ":") && IsPort(rest))) return std::nullopt;
    return ParseBareIp(text.substr(0, close));
  }
  // "1.2.3.4:5678": one colon (an IPv6 address has at least two).
  const size_t colon = text.find(':');
  if (colon != absl::string_view::npos && text.find(':', colon + 1) == absl::string_view::npos) {
    if (!IsPort(text.substr(colon + 1))) return std::nullopt;
    std::optional<IpBytes> ip = ParseBareIp(text.substr(0, colon));
    if (!ip.has_value() || !IsMappedV4(*ip)) return std::nullopt;
    return ip;
  }
  return ParseBareIp(text);
}

std::string FormatIp(const IpBytes& ip) {
  char buffer[INET6_ADDRSTRLEN] = {};
  if (IsMappedV4(ip)) {
    inet_ntop(AF_INET, ip.data() + 12, buffer, sizeof(buffer));
  } else {
    inet_ntop(AF_INET6, ip.data(), buffer, sizeof(buffer));
  }
  return buffer;
}

absl::StatusOr<TrustedProxies> TrustedProxies::Parse(absl::string_view list) {
  TrustedProxies proxies;
  for (absl::string_view entry : absl::StrSplit(list, ',', absl::SkipWhitespace())) {
    entry = absl::StripAsciiWhitespace(entry);
    absl::string_view address = entry;
    std::optional<int> bits;
    if (const size_t slash = entry.find('/'); slash != absl::string_view::npos) {
      address = entry.substr(0, slash);
      int parsed = 0;
      if (!absl::SimpleAtoi(entry.substr(slash + 1), &parsed)) parsed = -1;
      bits = parsed;
    }
    std::optional<IpBytes> ip = ParseBareIp(address);
    const bool v4 = ip.has_value() && IsMappedV4(*ip) && !absl::StrContains(address, ':');
    const int max_bits = v4 ? 32 : 128;
    if (!ip.has_value() || (bits.has_value() && (*bits < 0 || *bits > max_bits))) {
      return absl::InvalidArgumentError(absl::StrCat(
          "trusted proxy \"", entry,
          "\" is not an IP address or a CIDR network (e.g. 10.0.0.0/8, fd00::/8, 192.0.2.7)"));
    }
    Network network{.prefix = *ip, .bits = (v4 ? 96 : 0) + bits.value_or(max_bits)};
    // Clear the host bits, so "10.1.2.3/8" means 10.0.0.0/8.
    for (int bit = network.bits; bit < 128; ++bit) {
      network.prefix[bit / 8] &= static_cast<uint8_t>(~(0x80u >> (bit % 8)));
    }
    proxies.networks_.push_back(network);
  }
  return proxies;
}

bool TrustedProxies::Contains(const IpBytes& ip) const {
  return std::any_of(networks_.begin(), networks_.end(), [&](const Network& network) {
    const int full = network.bits / 8;
    if (std::memcmp(ip.data(), network.prefix.data(), full) != 0) return false;
    const int rest = network.bits % 8;
    if (rest == 0) return true;
    const uint8_t mask = static_cast<uint8_t>(0xFFu << (8 - rest));
    return (ip[full] & mask) == network.prefix[full];
  });
}

absl::string_view ForwardingHeaderKey(ForwardingHeader header) {
  return header == ForwardingHeader::kForwarded ? "forwarded" : "x-forwarded-for";
}

absl::StatusOr<ForwardingHeader> ParseForwardingHeader(absl::string_view name) {
  if (absl::EqualsIgnoreCase(name, "x-forwarded-for")) return ForwardingHeader::kXForwardedFor;
  if (absl::EqualsIgnoreCase(name, "forwarded")) return ForwardingHeader::kForwarded;
  return absl::InvalidArgumentError(
      absl::StrCat("forwarding header \"", name, "\" is not one of x-forwarded-for|forwarded"));
}

std::string ClientAddress(absl::string_view peer, absl::Span<const absl::string_view> header_values,
                          ForwardingHeader header, const TrustedProxies& trusted) {
  const std::optional<IpBytes> peer_ip = ParseIp(peer);
  if (!peer_ip.has_value()) return std::string(peer.substr(0, kMaxOpaqueAddressLength));
  if (trusted.empty() || !trusted.Contains(*peer_ip)) return FormatIp(*peer_ip);
  // Every entry of every value, in order of arrival.
  std::vector<absl::string_view> entries;
  for (absl::string_view value : header_values) {
    for (absl::string_view entry : absl::StrSplit(value, ',')) {
      entry = absl::StripAsciiWhitespace(entry);
      if (header == ForwardingHeader::kForwarded) entry = ForwardedFor(entry);
      if (!entry.empty()) entries.push_back(entry);
    }
  }
  for (auto it = entries.rbegin(); it != entries.rend(); ++it) {
    const std::optional<IpBytes> ip = ParseIp(*it);
    if (!ip.has_value()) return std::string(it->substr(0, kMaxOpaqueAddressLength));
    if (!trusted.Contains(*ip)) return FormatIp(*ip);
  }
  if (!entries.empty()) return FormatIp(*ParseIp(entries.front()));
  return FormatIp(*peer_ip);
}

std::string AddressLimitKey(absl::string_view address) {
  std::optional<IpBytes> ip = ParseIp(address);
  if (!ip.has_value()) return std::string(address);
  if (IsMappedV4(*ip)) return FormatIp(*ip);
  std::fill(ip->begin() + 8, ip->end(), 0);
  return absl::StrCat(FormatIp(*ip), "/64");
}

}  // namespace parlor
