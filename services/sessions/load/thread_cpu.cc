#include "services/sessions/load/thread_cpu.h"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace parlor::sessions::load {

namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

std::optional<StatLine> ParseStatLine(absl::string_view stat) {
  // The command name may hold spaces and parentheses; the fields after its last ')' do not.
  const size_t close = stat.rfind(')');
  if (close == absl::string_view::npos || close + 2 > stat.size()) return std::nullopt;
  std::vector<absl::string_view> f = absl::StrSplit(stat.substr(close + 2), ' ');
  // f[0] is field 3 (state): ppid = f[1], utime = f[11], stime = f[12], cutime/cstime f[13..14].
  StatLine line;
  if (f.size() < 15 || !absl::SimpleAtoi(f[1], &line.ppid) ||
      !absl::SimpleAtoi(f[11], &line.utime) || !absl::SimpleAtoi(f[12], &line.stime) ||
      !absl::SimpleAtoi(f[13], &line.cutime) || !absl::SimpleAtoi(f[14], &line.cstime)) {
    return std::nullopt;
  }
  return line;
}

long TicksOfStatLine(absl::string_view stat) {
  const std::optional<StatLine> line = ParseStatLine(stat);
  return line ? line->utime + line->stime : -1;
}

long SwitchesOfStatus(absl::string_view status) {
  long total = 0;
  int found = 0;
  for (absl::string_view line : absl::StrSplit(status, '\n')) {
    if (absl::ConsumePrefix(&line, "voluntary_ctxt_switches:") ||
        absl::ConsumePrefix(&line, "nonvoluntary_ctxt_switches:")) {
      long n = 0;
      if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(line), &n)) return -1;
      total += n;
      ++found;
    }
  }
  return found == 2 ? total : -1;
}

ThreadUses ThreadsOf(pid_t pid) {
  // Keyed by "name/tid", so that a reading after the run is matched thread by thread.
  ThreadUses out;
  const std::string dir = absl::StrCat("/proc/", pid, "/task");
  DIR* tasks = opendir(dir.c_str());
  if (tasks == nullptr) return out;
  const double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
  while (dirent* e = readdir(tasks)) {
    long tid = 0;
    if (!absl::SimpleAtoi(e->d_name, &tid)) continue;
    const std::string base = absl::StrCat(dir, "/", tid);
    const long ticks = TicksOfStatLine(ReadAll(absl::StrCat(base, "/stat")));
    const long switches = SwitchesOfStatus(ReadAll(absl::StrCat(base, "/status")));
    if (ticks < 0 || switches < 0) continue;  // ended while being read
    std::string name = ReadAll(absl::StrCat(base, "/comm"));
    absl::StripTrailingAsciiWhitespace(&name);
    out[absl::StrCat(name, "/", tid)] = ThreadUse{static_cast<double>(ticks) / tick, switches, 1};
  }
  closedir(tasks);
  return out;
}

std::string ThreadsPerUnit(const ThreadUses& before, const ThreadUses& after, long units) {
  if (units <= 0 || after.empty()) return "no figures";
  ThreadUses by_name;
  for (const auto& [key, use] : after) {
    ThreadUse delta = use;
    if (auto it = before.find(key); it != before.end()) {
      delta.cpu_seconds -= it->second.cpu_seconds;
      delta.switches -= it->second.switches;
    }
    const size_t slash = key.rfind('/');
    ThreadUse& sum = by_name[key.substr(0, slash)];
    sum.cpu_seconds += delta.cpu_seconds;
    sum.switches += delta.switches;
    sum.threads += 1;
  }
  std::vector<std::pair<std::string, ThreadUse>> sorted(by_name.begin(), by_name.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
    return a.second.cpu_seconds > b.second.cpu_seconds;
  });
  const double n = static_cast<double>(units);
  std::vector<std::string> parts;
  double all_cpu = 0;
  double all_switches = 0;
  for (const auto& [name, use] : sorted) {
    all_cpu += use.cpu_seconds;
    all_switches += static_cast<double>(use.switches);
    // Threads that did (next to) nothing per unit only lengthen the line.
    if (use.cpu_seconds * 1e6 / n < 0.5 && static_cast<double>(use.switches) / n < 0.05) continue;
    parts.push_back(absl::StrFormat("%s (%d) %.0f us %.1f sw", name, use.threads,
                                    use.cpu_seconds * 1e6 / n,
                                    static_cast<double>(use.switches) / n));
  }
  return absl::StrFormat("%s; all %.0f us %.1f sw", absl::StrJoin(parts, ", "), all_cpu * 1e6 / n,
                         all_switches / n);
}

}  // namespace parlor::sessions::load
