#include "services/common/core/thread_name.h"

#include <pthread.h>

#include <array>

namespace parlor {

namespace {
// The kernel's TASK_COMM_LEN (16) less the terminating NUL.
constexpr size_t kMaxThreadNameBytes = 15;
}  // namespace

void NameThisThread(absl::string_view name) {
  const std::string cut(name.substr(0, kMaxThreadNameBytes));
  pthread_setname_np(pthread_self(), cut.c_str());
}

std::string ThisThreadName() {
  std::array<char, kMaxThreadNameBytes + 1> name{};
  if (pthread_getname_np(pthread_self(), name.data(), name.size()) != 0) return "";
  return name.data();
}

}  // namespace parlor
