#include "services/common/core/utf8.h"

namespace parlor {

std::string CutUtf8(absl::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  size_t end = max_bytes;
  // Continuation bytes are 10xxxxxx: back up to the first byte of the sequence cut in two.
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return std::string(text.substr(0, end));
}

}  // namespace parlor
