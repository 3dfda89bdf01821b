#ifndef PARLOR_ENGINE_CORE_STATUS_MACROS_H_
#define PARLOR_ENGINE_CORE_STATUS_MACROS_H_

// The status macros of the whole project: the engine's snapshot loaders use them, and the
// services reach them through services/common/core/status_macros.h.
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

// Early return on error, as absl/Google code bases spell it.
#define PARLOR_RETURN_IF_ERROR(expr)                                    \
  do {                                                                  \
    if (::absl::Status parlor_status_ = (expr); !parlor_status_.ok()) { \
      return parlor_status_;                                            \
    }                                                                   \
  } while (false)

#define PARLOR_STATUS_CONCAT_INNER(a, b) a##b
#define PARLOR_STATUS_CONCAT(a, b) PARLOR_STATUS_CONCAT_INNER(a, b)

// PARLOR_ASSIGN_OR_RETURN(Foo foo, MakeFoo());
#define PARLOR_ASSIGN_OR_RETURN(lhs, expr) \
  PARLOR_ASSIGN_OR_RETURN_IMPL(PARLOR_STATUS_CONCAT(parlor_statusor_, __LINE__), lhs, expr)
#define PARLOR_ASSIGN_OR_RETURN_IMPL(statusor, lhs, expr) \
  auto statusor = (expr);                                 \
  if (!statusor.ok()) return statusor.status();           \
  lhs = std::move(*statusor)

#endif  // PARLOR_ENGINE_CORE_STATUS_MACROS_H_
