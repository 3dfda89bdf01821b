#include "services/common/core/client_address.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "services/common/testing/status_matchers.h"

namespace parlor {
namespace {

using ::parlor::testing::StatusIs;
using ::testing::HasSubstr;

TrustedProxies Trust(absl::string_view list) {
  absl::StatusOr<TrustedProxies> proxies = TrustedProxies::Parse(list);
  EXPECT_TRUE(proxies.ok()) << proxies.status();
  return proxies.ok() ? *proxies : TrustedProxies();
}

std::string Client(absl::string_view peer, std::vector<absl::string_view> values,
                   const TrustedProxies& trusted,
                   ForwardingHeader header = ForwardingHeader::kXForwardedFor) {
  return ClientAddress(peer, values, header, trusted);
}

TEST(ClientAddressTest, ParsesAddressesWithAndWithoutPorts) {
  EXPECT_EQ(FormatIp(*ParseIp("192.0.2.1")), "192.0.2.1");
  EXPECT_EQ(FormatIp(*ParseIp("192.0.2.1:443")), "192.0.2.1");
  EXPECT_EQ(FormatIp(*ParseIp(" 2001:DB8::1 ")), "2001:db8::1");
  EXPECT_EQ(FormatIp(*ParseIp("[2001:db8::1]:443")), "2001:db8::1");
  EXPECT_EQ(FormatIp(*ParseIp("::ffff:192.0.2.1")), "192.0.2.1");
  for (absl::string_view bad : {"", "unknown", "_hidden", "example.com", "1.2.3", "1.2.3.4:99999",
                                "[::1", "[::1]x", "1.2.3.4:80:80"}) {
    EXPECT_FALSE(ParseIp(bad).has_value()) << bad;
  }
}

TEST(ClientAddressTest, TrustedProxiesAreNetworks) {
  TrustedProxies trusted = Trust("10.0.0.0/8, 192.0.2.7, fd00::/8, 172.16.1.9/12");
  EXPECT_TRUE(trusted.Contains(*ParseIp("10.200.3.4")));
  EXPECT_TRUE(trusted.Contains(*ParseIp("192.0.2.7")));
  EXPECT_FALSE(trusted.Contains(*ParseIp("192.0.2.8")));
  EXPECT_TRUE(trusted.Contains(*ParseIp("fd12::1")));
  EXPECT_FALSE(trusted.Contains(*ParseIp("fe80::1")));
  EXPECT_TRUE(trusted.Contains(*ParseIp("172.31.255.255")));  // host bits of /12 ignored
  EXPECT_FALSE(trusted.Contains(*ParseIp("172.32.0.0")));
  EXPECT_TRUE(Trust("").empty());
  EXPECT_THAT(TrustedProxies::Parse("10.0.0.0/33"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("\"10.0.0.0/33\"")));
  EXPECT_THAT(TrustedProxies::Parse("gateway"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("CIDR")));
}

// A client talking to us directly may send any header it likes: it is ignored.
TEST(ClientAddressTest, AForgedHeaderFromAnUntrustedPeerIsIgnored) {
  TrustedProxies trusted = Trust("10.0.0.0/8");
  EXPECT_EQ(Client("203.0.113.9", {"198.51.100.1"}, trusted), "203.0.113.9");
  EXPECT_EQ(Client("203.0.113.9", {"10.0.0.1"}, trusted), "203.0.113.9");
  EXPECT_EQ(Client("203.0.113.9", {"for=198.51.100.1"}, trusted, ForwardingHeader::kForwarded),
            "203.0.113.9");
  // No trusted proxy configured: headers are never read.
  EXPECT_EQ(Client("10.0.0.1", {"198.51.100.1"}, TrustedProxies()), "10.0.0.1");
}

// Behind the Gateway: the right-most address that is not a trusted proxy is the client; what the
// client wrote to the left of it (its own forged entries) is never reached.
TEST(ClientAddressTest, ATrustedProxysHeaderIsHonoured) {
  TrustedProxies trusted = Trust("10.0.0.0/8");
  EXPECT_EQ(Client("10.1.1.1", {"198.51.100.1"}, trusted), "198.51.100.1");
  EXPECT_EQ(Client("10.1.1.1", {"1.1.1.1, 2.2.2.2, 198.51.100.1"}, trusted), "198.51.100.1");
  EXPECT_EQ(Client("10.1.1.1", {"1.1.1.1, 198.51.100.1, 10.2.2.2"}, trusted), "198.51.100.1");
  EXPECT_EQ(Client("10.1.1.1", {"1.1.1.1", "198.51.100.1:5555"}, trusted), "198.51.100.1");
  EXPECT_EQ(Client("::ffff:10.1.1.1", {"[2001:db8::7]:443"}, trusted), "2001:db8::7");
  EXPECT_EQ(Client("10.1.1.1", {"for=1.1.1.1;proto=https, for=\"[2001:db8::7]:443\";by=10.0.0.2"},
                   trusted, ForwardingHeader::kForwarded),
            "2001:db8::7");
  // Only proxies, or no header: the left-most proxy, or the peer itself.
  EXPECT_EQ(Client("10.1.1.1", {"10.3.3.3, 10.2.2.2"}, trusted), "10.3.3.3");
  EXPECT_EQ(Client("10.1.1.1", {}, trusted), "10.1.1.1");
  // Garbage where the nearest proxy wrote the client ends the walk, bounded.
  EXPECT_EQ(Client("10.1.1.1", {"1.1.1.1, unknown"}, trusted), "unknown");
  EXPECT_EQ(Client("10.1.1.1", {std::string(500, 'x')}, trusted).size(), 64u);
}

TEST(ClientAddressTest, LimitKeysGroupAnIpv6SubscribersSlash64) {
  EXPECT_EQ(AddressLimitKey("192.0.2.1"), "192.0.2.1");
  EXPECT_EQ(AddressLimitKey("2001:db8:1:2:aaaa::1"), "2001:db8:1:2::/64");
  EXPECT_EQ(AddressLimitKey("2001:db8:1:2:bbbb::9"), "2001:db8:1:2::/64");
  EXPECT_EQ(AddressLimitKey("unix:/tmp/socket"), "unix:/tmp/socket");
}

TEST(ClientAddressTest, ForwardingHeaderNames) {
  EXPECT_EQ(*ParseForwardingHeader("X-Forwarded-For"), ForwardingHeader::kXForwardedFor);
  EXPECT_EQ(*ParseForwardingHeader("forwarded"), ForwardingHeader::kForwarded);
  EXPECT_THAT(ParseForwardingHeader("x-real-ip"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("x-forwarded-for|forwarded")));
}

}  // namespace
}  // namespace parlor
