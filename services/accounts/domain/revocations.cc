#include "services/accounts/domain/revocations.h"

#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "services/accounts/domain/validation.h"

namespace parlor::accounts {

absl::StatusOr<Revocations::Page> Revocations::List(absl::Time since, int page_size,
                                                    const std::string& page_token) {
  const absl::Time now = clock_();
  if (since < now - absl::Hours(24)) {
    return absl::InvalidArgumentError(
        "revoked_since must be set and at most a day ago (access tokens live minutes)");
  }
  if (page_size < 0 || page_size > 1000) {
    return absl::InvalidArgumentError("page_size must be 0 to 1000");
  }
  const int limit = page_size == 0 ? 500 : page_size;
  // Page token: "<revoked_since micros>:<last revoke_time micros>:<last session id>".
  absl::Time after = since;
  std::string after_session;
  if (!page_token.empty()) {
    std::vector<std::string> parts = absl::StrSplit(page_token, ':');
    int64_t token_since = 0;
    int64_t token_after = 0;
    if (parts.size() != 3 || !absl::SimpleAtoi(parts[0], &token_since) ||
        !absl::SimpleAtoi(parts[1], &token_after) || !IsAccountId(parts[2]) ||
        token_since != absl::ToUnixMicros(since)) {
      return absl::InvalidArgumentError(
          "page_token was not issued by ListRevokedSessions for this revoked_since");
    }
    after = absl::FromUnixMicros(token_after);
    after_session = parts[2];
  }
  absl::StatusOr<std::vector<RevokedSessionRow>> rows =
      store_->ListRevoked(since, after, after_session, limit);
  if (!rows.ok()) return rows.status();
  Page page;
  page.server_time = now;
  page.sessions = *std::move(rows);
  if (static_cast<int>(page.sessions.size()) == limit) {
    const RevokedSessionRow& last = page.sessions.back();
    page.next_page_token = absl::StrCat(absl::ToUnixMicros(since), ":",
                                        absl::ToUnixMicros(last.revoke_time), ":", last.session_id);
  }
  return page;
}

}  // namespace parlor::accounts
