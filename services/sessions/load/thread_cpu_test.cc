#include "services/sessions/load/thread_cpu.h"

#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <string>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace parlor::sessions::load {
namespace {

using ::testing::HasSubstr;

TEST(ThreadCpuTest, ReadsUserAndSystemTicksPastACommandNameWithSpacesAndParentheses) {
  // Fields 14 and 15 (utime 120, stime 30) of a thread named "a (b) c".
  const std::string stat =
      "4242 (a (b) c) S 1 4242 4242 0 -1 4194368 100 0 0 0 120 30 0 0 20 0 9 0 1000 0 0";
  EXPECT_EQ(TicksOfStatLine(stat), 150);
  const std::optional<StatLine> line = ParseStatLine(stat);
  ASSERT_TRUE(line.has_value());
  EXPECT_EQ(line->ppid, 1);
  EXPECT_EQ(line->cutime, 0);
  EXPECT_EQ(line->cstime, 0);
  EXPECT_EQ(TicksOfStatLine("4242 (cut"), -1);
  EXPECT_EQ(TicksOfStatLine("4242 (short) S 1 2"), -1);
}

TEST(ThreadCpuTest, AddsVoluntaryAndInvoluntarySwitches) {
  EXPECT_EQ(SwitchesOfStatus("Name:\tx\nvoluntary_ctxt_switches:\t7\n"
                             "nonvoluntary_ctxt_switches:\t3\n"),
            10);
  EXPECT_EQ(SwitchesOfStatus("Name:\tx\nvoluntary_ctxt_switches:\t7\n"), -1);
}

TEST(ThreadCpuTest, SumsPerUnitByNameMostCpuFirstCountingNewThreadsFromZero) {
  const ThreadUses before = {{"rpc-workers/11", {1.0, 100, 1}},
                             {"rpc-workers/12", {2.0, 200, 1}},
                             {"group-commit/13", {0.5, 50, 1}}};
  const ThreadUses after = {{"rpc-workers/11", {1.5, 1100, 1}},
                            {"rpc-workers/12", {2.5, 1200, 1}},
                            {"group-commit/13", {2.5, 1050, 1}},
                            {"started-late/14", {0.1, 100, 1}}};
  // 1,000 units: rpc-workers 1.0 s and 2,000 switches, group-commit 2.0 s and 1,000.
  EXPECT_EQ(ThreadsPerUnit(before, after, 1000),
            "group-commit (1) 2000 us 1.0 sw, rpc-workers (2) 1000 us 2.0 sw, started-late (1) "
            "100 us 0.1 sw; all 3100 us 3.1 sw");
  EXPECT_EQ(ThreadsPerUnit(before, after, 0), "no figures");
}

TEST(ThreadCpuTest, FindsANamedThreadOfThisProcessWithTheCpuItUsed) {
  std::atomic<bool> burned{false};
  std::atomic<bool> release{false};
  std::thread burner([&] {
    pthread_setname_np(pthread_self(), "burner");
    timespec used{};
    do {  // 50 ms of this thread's own CPU (5 clock ticks at 100 Hz)
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &used);
    } while (used.tv_sec == 0 && used.tv_nsec < 50'000'000);
    burned = true;
    while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  });
  while (!burned) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  const ThreadUses now = ThreadsOf(getpid());
  release = true;
  burner.join();
  double burner_cpu = -1;
  for (const auto& [key, use] : now) {
    if (key.rfind("burner/", 0) == 0) burner_cpu = use.cpu_seconds;
  }
  EXPECT_GE(burner_cpu, 0.03);  // the kernel counts by ticks: allow for the one in progress
  EXPECT_THAT(ThreadsPerUnit({}, now, 1), HasSubstr("burner (1)"));
}

}  // namespace
}  // namespace parlor::sessions::load
