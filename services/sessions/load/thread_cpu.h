#ifndef PARLOR_SERVICES_SESSIONS_LOAD_THREAD_CPU_H_
#define PARLOR_SERVICES_SESSIONS_LOAD_THREAD_CPU_H_

#include <sys/types.h>

#include <map>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"

// Where a process's CPU goes, by thread name: the load tool's view of the server under test
// (whose threads are named: rpc-workers, group-commit, outbox-dispatch, ...; gRPC's own are
// nexting_thread and default-executo). Linux only (/proc).
namespace parlor::sessions::load {

// The CPU time and context switches of the threads of one name.
struct ThreadUse {
  double cpu_seconds = 0;  // user + system
  long switches = 0;       // voluntary + involuntary
  int threads = 0;
};

using ThreadUses = std::map<std::string, ThreadUse>;

// The threads of process `pid` now, summed by name (empty when /proc cannot be read).
ThreadUses ThreadsOf(pid_t pid);

// The fields of a /proc/<pid>/stat (or .../task/<tid>/stat) line that say who the parent is and
// how much CPU was used, in clock ticks.
struct StatLine {
  long ppid = 0;
  long utime = 0;
  long stime = 0;
  long cutime = 0;  // of reaped children
  long cstime = 0;
};
std::optional<StatLine> ParseStatLine(absl::string_view stat);

// utime + stime (clock ticks) of one stat line; -1 if malformed.
long TicksOfStatLine(absl::string_view stat);

// voluntary_ctxt_switches + nonvoluntary_ctxt_switches of a /proc/.../status text; -1 if absent.
long SwitchesOfStatus(absl::string_view status);

// Per unit of work between two readings, by name, most CPU first: "rpc-workers (12) 74 us 1.6
// sw, group-commit (2) 51 us 0.7 sw, ...; all 226 us 9.4 sw". A thread that started between the
// readings counts from zero; one that ended is left out.
std::string ThreadsPerUnit(const ThreadUses& before, const ThreadUses& after, long units);

}  // namespace parlor::sessions::load

#endif  // PARLOR_SERVICES_SESSIONS_LOAD_THREAD_CPU_H_
