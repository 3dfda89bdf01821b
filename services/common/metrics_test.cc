#include "services/common/metrics.h"

#include <cstdio>
#include <cstdlib>
#include <ctime>
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

// The series a method's first call finds are kept for its later calls: each call still counts
// under its own method and code.
TEST(MetricsTest, LaterCallsCountInTheirOwnMethodsAndCodes) {
  Metrics metrics("test", "1.2.3");
  for (int i = 0; i < 3; ++i) {
    metrics.RecordRpc("/grpc.health.v1.Health/Check", "OK", 0.001);
    metrics.RecordRpc("/parlor.accounts.v1.AccountsService/GetMe", i == 2 ? "INTERNAL" : "OK",
                      0.002);
  }
  const std::string text = metrics.Serialize();
  EXPECT_THAT(text, HasSubstr("parlor_rpc_requests_total{code=\"OK\",method=\"Check\","
                              "service=\"grpc.health.v1.Health\"} 3"));
  EXPECT_THAT(text, HasSubstr("parlor_rpc_requests_total{code=\"OK\",method=\"GetMe\","
                              "service=\"parlor.accounts.v1.AccountsService\"} 2"));
  EXPECT_THAT(text, HasSubstr("parlor_rpc_requests_total{code=\"INTERNAL\",method=\"GetMe\","
                              "service=\"parlor.accounts.v1.AccountsService\"} 1"));
  EXPECT_THAT(text, HasSubstr("parlor_rpc_duration_seconds_count{method=\"Check\","
                              "service=\"grpc.health.v1.Health\"} 3"));
}

// The process_* metrics describe this very process: its own open descriptors and memory.
TEST(MetricsTest, ProcessMetricsDescribeThisProcess) {
  Metrics metrics("test", "1.2.3");
  auto value = [](const std::string& text, const std::string& name) {
    const size_t at = text.find("\n" + name + " ");
    if (at == std::string::npos) return -1.0;
    return std::strtod(text.c_str() + at + name.size() + 2, nullptr);
  };
  const std::string before = metrics.Serialize();
  FILE* extra = std::fopen("/proc/self/stat", "r");
  ASSERT_NE(extra, nullptr);
  const std::string after = metrics.Serialize();
  std::fclose(extra);
  // One more open file, one more descriptor.
  EXPECT_EQ(value(after, "process_open_fds"), value(before, "process_open_fds") + 1);
  EXPECT_GE(value(after, "process_max_fds"), value(after, "process_open_fds"));
  EXPECT_GT(value(after, "process_resident_memory_bytes"), 1 << 20);
  EXPECT_GE(value(after, "process_virtual_memory_bytes"),
            value(after, "process_resident_memory_bytes"));
  EXPECT_GE(value(after, "process_cpu_seconds_total"), 0.0);
  // Started after 2020 and not in the future. The start time is the boot time plus the process's
  // start in clock ticks, and /proc/stat gives the boot time in whole seconds, so a process
  // started within the last second may read up to a second ahead of time(nullptr).
  EXPECT_GT(value(after, "process_start_time_seconds"), 1.5e9);
  EXPECT_LE(value(after, "process_start_time_seconds"),
            static_cast<double>(std::time(nullptr)) + 1.0);
  EXPECT_THAT(after, HasSubstr("# TYPE process_cpu_seconds_total counter"));
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
  std::remove(path.c_str());
  std::remove((path + ".out").c_str());
  EXPECT_EQ(rc, 0) << report;
}
#endif

}  // namespace
}  // namespace parlor
