#ifndef PARLOR_SERVICES_COMMON_CORE_UTF8_H_
#define PARLOR_SERVICES_COMMON_CORE_UTF8_H_

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"

namespace parlor {

// At most `max_bytes` bytes of `text`, cut before a UTF-8 sequence that would not fit whole, so
// a text column or a proto string field still gets valid UTF-8.
std::string CutUtf8(absl::string_view text, size_t max_bytes);

}  // namespace parlor

#endif  // PARLOR_SERVICES_COMMON_CORE_UTF8_H_
