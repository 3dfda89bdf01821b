#ifndef PARLOR_SERVICES_SESSIONS_DOMAIN_REQUESTS_H_
#define PARLOR_SERVICES_SESSIONS_DOMAIN_REQUESTS_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "google/protobuf/any.pb.h"
#include "services/common/core/page_token.h"
#include "services/sessions/store/rows.h"

// The sessions requests as the domain takes them (the API maps its messages to them, field by
// field, without checking anything), and the checks of their fields, before anything is read or
// written: each refusal is INVALID_ARGUMENT naming the field and what it accepts.
namespace parlor::sessions {

// Numbers that travel as the API's enum values, kept as sent so that an unknown one is refused
// with the field's name: Visibility, GameStatus, GameFilter and GameOrder.
inline constexpr int kVisibilityPublic = 2;  // 0 unset (private), 1 private
inline constexpr int kVisibilityMax = 2;
inline constexpr int kGameStatusActive = 1;  // 0 unset (active)
inline constexpr int kGameStatusFinished = 2;
inline constexpr int kGameFilterMax = 3;         // all, my turn, waiting, finished (ListFilter)
inline constexpr int kGameOrderMyTurnFirst = 1;  // 0 most recent first

// A time control as asked for: exactly one of per move and time bank (kind unset: neither).
struct TimeControlSpec {
  enum class Kind { kUnset, kPerMove, kTimeBank };
  Kind kind = Kind::kUnset;
  absl::Duration per_move_limit;
  absl::Duration bank_initial;
  absl::Duration bank_increment;
  int vacation_days = 0;
};

// One seat asked for in CreateGame: a player (account_id) or a computer player (bot).
struct SeatSpec {
  std::string account_id;
  std::string display_name;
  std::optional<int> team;
  std::string bot;
};

// SessionsInternalService.CreateGame. `fingerprint` is the request as sent in a deterministic
// encoding (equal requests, equal fingerprints): a retry with the same match_id is recognised
// by it.
struct CreateGameRequest {
  std::string match_id;
  std::string game;
  std::map<std::string, std::string> options;
  std::vector<SeatSpec> seats;
  bool ranked = false;
  std::optional<TimeControlSpec> time_control;  // required
  int visibility = 0;
  std::string fingerprint;
};

// CreateBotGame (fingerprint as in CreateGameRequest, with request_id the retry's key).
struct CreateBotGameRequest {
  std::string request_id;
  std::string game;
  std::map<std::string, std::string> options;
  int num_players = 0;
  int my_seat = 0;
  std::string bot;
  std::string display_name;
  std::optional<TimeControlSpec> time_control;  // 7 days per move when unset
  int visibility = 0;
  std::string fingerprint;
};

// SubmitAction: the action is an Any holding the game's Action (decoded by the game).
struct SubmitRequest {
  std::string game_id;
  int64_t expected_version = 0;
  std::string idempotency_key;
  std::optional<google::protobuf::Any> action;
};

// ListMyGames.
struct MyGamesQuery {
  int filter = 0;  // ListFilter's numbers
  int order = 0;
  bool with_last_move = false;
  int page_size = 0;
  std::string page_token;
};

// ListPublicGames.
struct PublicGamesQuery {
  std::string game;  // every game when empty
  int status = 0;
  int page_size = 0;
  std::string page_token;
};

// GetHistory.
struct HistoryQuery {
  std::string game_id;
  int64_t from_version = 0;
  int page_size = 0;
};

// ListChatMessages.
struct ChatQuery {
  std::string game_id;
  int page_size = 0;
  int64_t before_message_id = 0;
};

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
                                 const std::map<std::string, std::string>& options);

// Whether a request's visibility asks for a public game (unset = private).
absl::StatusOr<bool> IsPublic(int visibility);

absl::Status ValidateGameId(absl::string_view game_id);

// SubmitAction's fields (the action itself is decoded by the game, once the game is known).
absl::Status ValidateSubmit(const SubmitRequest& request);

// CreateGame's seats: each a player (a UUID, seated once, with a display name) or a computer
// seat (a known bot, not in a ranked game), with an optional team.
absl::StatusOr<std::vector<SeatRow>> CreateGameSeats(const CreateGameRequest& request);

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
