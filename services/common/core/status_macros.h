#ifndef PARLOR_SERVICES_COMMON_CORE_STATUS_MACROS_H_
#define PARLOR_SERVICES_COMMON_CORE_STATUS_MACROS_H_

// PARLOR_RETURN_IF_ERROR and PARLOR_ASSIGN_OR_RETURN, defined once for the engine and the
// services.
#include "engine/core/status_macros.h"

#endif  // PARLOR_SERVICES_COMMON_CORE_STATUS_MACROS_H_
