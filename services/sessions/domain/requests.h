#ifndef PARLOR_SERVICES_SESSIONS_DOMAIN_REQUESTS_H_
#define PARLOR_SERVICES_SESSIONS_DOMAIN_REQUESTS_H_

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/map.h"
#include "parlor/sessions/v1/sessions.pb.h"
#include "services/common/core/page_token.h"
#include "services/sessions/store/rows.h"

// Checks of the sessions requests' fields, before anything is read or written: each refusal is
// INVALID_ARGUMENT naming the field and what it accepts.
namespace parlor::sessions {

inline constexpr size_t kMaxKeyLength = 128;
inline constexpr size_t kMaxNameLength = 64;
inline constexpr size_t kMaxActionBytes = 16 * 1024;
inline constexpr int kMaxSeats = 32;

bool IsUuid(absl::string_view s);

// Text of at most `max` bytes without control characters; required = not empty.
absl::Status CheckText(absl::string_view field, absl::string_view value, size_t max, bool required);

// The game's name and options as sent, bounded before anything can echo them back in a refusal:
// an oversized echo would exceed the client's metadata limit, which then sees RESOURCE_EXHAUSTED
// instead of the reason.
absl::Status CheckGameAndOptions(const std::string& game,
                                 const google::protobuf::Map<std::string, std::string>& options);

// Whether a request's visibility asks for a public game (unset = private).
absl::StatusOr<bool> IsPublic(int visibility);

absl::Status ValidateGameId(absl::string_view game_id);

// SubmitAction's fields (the action itself is decoded by the game, once the game is known).
absl::Status ValidateSubmit(const v1::SubmitActionRequest& request);

// CreateGame's seats: each a player (a UUID, seated once, with a display name) or a computer
// seat (a known bot, not in a ranked game), with an optional team.
absl::StatusOr<std::vector<SeatRow>> CreateGameSeats(const v1::CreateGameRequest& request);

// One page of a listing: its size (1 to 100; 0 asks for 20) and where it continues (the page
// token, bound to the listing's `fingerprint`).
struct ListPage {
  int size = 20;
  std::optional<ListCursor> cursor;
  std::string fingerprint;
};
absl::StatusOr<ListPage> OpenPage(const PageTokens& tokens, int page_size,
                                  const std::string& page_token, std::string fingerprint);
// The token of the page after `rows` (read with a limit of page.size + 1, trimmed to the page):
// empty when `more` is false.
std::string NextPageToken(const PageTokens& tokens, const ListPage& page,
                          const std::vector<GameRow>& rows, bool more);

}  // namespace parlor::sessions

#endif  // PARLOR_SERVICES_SESSIONS_DOMAIN_REQUESTS_H_
