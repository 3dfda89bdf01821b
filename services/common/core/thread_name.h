#ifndef PARLOR_SERVICES_COMMON_CORE_THREAD_NAME_H_
#define PARLOR_SERVICES_COMMON_CORE_THREAD_NAME_H_

#include <string>

#include "absl/strings/string_view.h"

namespace parlor {

// Names the calling thread, so that `top -H`, `perf`, gdb and /proc/<pid>/task/*/comm tell a
// service's threads apart (otherwise every thread carries the binary's name). Linux keeps 15
// bytes of a name: longer names are cut there. Best effort: a failure leaves the old name.
void NameThisThread(absl::string_view name);

// The calling thread's name ("" if it cannot be read).
std::string ThisThreadName();

}  // namespace parlor

#endif  // PARLOR_SERVICES_COMMON_CORE_THREAD_NAME_H_
