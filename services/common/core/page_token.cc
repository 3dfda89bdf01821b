#include "services/common/core/page_token.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "services/common/core/crypto.h"

namespace parlor {
namespace {
constexpr size_t kMacBytes = 16;
}  // namespace

std::string PageTokens::Mac(absl::string_view cursor, absl::string_view request_fingerprint) const {
  // Length-prefixing keeps (cursor, fingerprint) pairs from colliding by concatenation.
  return Sha256(absl::StrCat(secret_.size(), ":", secret_, cursor.size(), ":", cursor,
                             request_fingerprint))
      .substr(0, kMacBytes);
}

std::string PageTokens::Encode(absl::string_view cursor,
                               absl::string_view request_fingerprint) const {
  return Base64UrlEncode(absl::StrCat(Mac(cursor, request_fingerprint), cursor));
}

absl::StatusOr<std::string> PageTokens::Decode(absl::string_view token,
                                               absl::string_view request_fingerprint) const {
  absl::StatusOr<std::string> raw = Base64UrlDecode(token);
  if (!raw.ok() || raw->size() < kMacBytes) {
    return absl::InvalidArgumentError(
        "page_token is malformed; pass the next_page_token of a previous response unchanged");
  }
  std::string cursor = raw->substr(kMacBytes);
  if (!ConstantTimeEquals(raw->substr(0, kMacBytes), Mac(cursor, request_fingerprint))) {
    return absl::InvalidArgumentError(
        "page_token does not match this request; keep every other request field the same while "
        "paging");
  }
  return cursor;
}

}  // namespace parlor
