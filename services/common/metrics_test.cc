#include "services/common/metrics.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace parlor {
namespace {

using ::testing::HasSubstr;

TEST(MetricsTest, RecordsRpcsByServiceMethodAndCode) {
  Metrics metrics("test", "1.2.3");
  metrics.RecordRpc("/parlor.accounts.v1.AccountsService/GetMe", "OK", 0.003);
  metrics.RecordRpc("/parlor.accounts.v1.AccountsService/GetMe", "OK", 0.2);
  metrics.RecordRpc("/parlor.accounts.v1.AccountsService/GetMe", "UNAUTHENTICATED", 0.001);
  metrics.db_transactions("get_account", "committed").Increment();
  const std::string text = metrics.Serialize();
  EXPECT_THAT(text, HasSubstr("parlor_rpc_requests_total{code=\"OK\",method=\"GetMe\","
                              "service=\"parlor.accounts.v1.AccountsService\"} 2"));
  EXPECT_THAT(text, HasSubstr("code=\"UNAUTHENTICATED\""));
  EXPECT_THAT(text, HasSubstr("parlor_rpc_duration_seconds_count{method=\"GetMe\","
                              "service=\"parlor.accounts.v1.AccountsService\"} 3"));
  EXPECT_THAT(text, HasSubstr("parlor_build_info{service=\"test\",version=\"1.2.3\"} 1"));
  EXPECT_THAT(text, HasSubstr("parlor_db_connections{state=\"in_use\"} 0"));
}

#ifdef PARLOR_PROMTOOL
// The exposition must satisfy Prometheus' own linter (naming, types, _total on counters).
// tests/e2e also runs promtool on a real HTTP scrape of a running service.
TEST(MetricsTest, PromtoolAcceptsTheExposition) {
  Metrics metrics("test", "1.2.3");
  metrics.RecordRpc("/a.B/C", "OK", 0.01);
  metrics.db_transactions("t", "committed").Increment();
  const std::string path = ::testing::TempDir() + "/metrics.txt";
  std::ofstream(path) << metrics.Serialize();
  const std::string command =
      std::string(PARLOR_PROMTOOL) + " check metrics < " + path + " > " + path + ".out 2>&1";
  const int rc = std::system(command.c_str());
  std::ifstream out(path + ".out");
  std::string report((std::istreambuf_iterator<char>(out)), std::istreambuf_iterator<char>());
  EXPECT_EQ(rc, 0) << report;
}
#endif

}  // namespace
}  // namespace parlor
