#ifndef PARLOR_SERVICES_SESSIONS_STORE_TABLE_STORE_H_
#define PARLOR_SERVICES_SESSIONS_STORE_TABLE_STORE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "services/common/db/pool.h"
#include "services/sessions/store/rows.h"

namespace parlor::sessions {

// One chat message of a game.
struct ChatRow {
  int64_t message_id = 0;
  std::string game_id;
  int seat = 0;
  std::string account_id;
  std::string text;
  // The game's version when it was sent.
  int64_t game_version = 0;
  absl::Time created_at;
};

// A rematch offer of a finished game.
struct RematchRow {
  std::string game_id;
  std::string offered_by;
  std::vector<std::string> accepted_by;  // the offerer first
  std::string declined_by;               // empty unless declined
  absl::Time offered_at;
  absl::Time expires_at;
  std::string new_game_id;  // empty until the rematch is created
};

// What the players do around a game besides moving (migration sessions/0008): chat and its
// reports, rematch offers, nudges and the versions each player has seen. PostgreSQL only; every
// method blocks (worker pool) and returns absl::Status, no libpqxx exception escapes. Pushes are
// written to the sessions notification outbox in the same transaction as what they announce.
class PgTableStore {
 public:
  explicit PgTableStore(DbPool* db) : db_(db) {}

  // Stores a chat message unless its sender already sent `max_in_window` messages in the game
  // since `window_start`: then RESOURCE_EXHAUSTED, with *retry_at set to when the oldest of them
  // leaves the window. Announces it on the change channel with `notify_payload`.
  absl::StatusOr<ChatRow> InsertChat(const ChatRow& row, absl::Time window_start, int max_in_window,
                                     absl::Duration window, const std::string& notify_payload,
                                     absl::Time* retry_at);
  // A game's messages with before_id > message_id > after_id (0: no bound), the newest first
  // when `newest_first`, at most `limit`.
  absl::StatusOr<std::vector<ChatRow>> ListChat(absl::string_view game_id, int64_t after_id,
                                                int64_t before_id, bool newest_first, int limit);
  // The id of the newest message of any game (0 when none).
  absl::StatusOr<int64_t> LatestChatId();
  // NOT_FOUND when the game has no such message.
  absl::StatusOr<ChatRow> GetChat(absl::string_view game_id, int64_t message_id);
  // Stores a report (a second report of the same message by the same reader changes nothing).
  absl::Status InsertReport(int64_t message_id, absl::string_view reporter,
                            absl::string_view reason, absl::Time now);

  // The rematch decision inside its transaction, given the locked offer (if any): the offer as
  // it is afterwards and the pushes to write, or nullopt to write nothing.
  struct RematchChange {
    RematchRow offer;
    std::vector<NotificationRow> pushes;
  };
  using RematchDecide = std::function<absl::StatusOr<std::optional<RematchChange>>(
      const std::optional<RematchRow>& locked)>;
  absl::Status UpdateRematch(absl::string_view game_id, absl::Time now,
                             const RematchDecide& decide);
  absl::StatusOr<std::optional<RematchRow>> GetRematch(absl::string_view game_id);

  // Records a nudge of the game by `account_id` at `now` unless one was sent after
  // `now - period`; when recorded, writes `pushes` too and returns nullopt, else returns when
  // the next nudge is allowed.
  absl::StatusOr<std::optional<absl::Time>> TryNudge(absl::string_view game_id,
                                                     absl::string_view account_id, int64_t version,
                                                     absl::Time now, absl::Duration period,
                                                     const std::vector<NotificationRow>& pushes);

  // The account's games for ListMyGames ordered my turn first (table_sql::kListMyGamesByTurn):
  // (sort key, game id) pairs after the cursor, at most `limit`.
  absl::StatusOr<std::vector<std::pair<int64_t, std::string>>> ListGameIdsByTurn(
      absl::string_view account_id, int filter,
      const std::optional<std::pair<int64_t, std::string>>& after, int limit);

  // Raises the account's seen version of the game to `version` (never lowers it).
  absl::Status MarkSeen(absl::string_view game_id, absl::string_view account_id, int64_t version,
                        absl::Time now);
  // The account's seen versions of the games (absent: nothing seen).
  absl::StatusOr<std::map<std::string, int64_t>> SeenVersions(
      absl::string_view account_id, const std::vector<std::string>& game_ids);

 private:
  DbPool* db_;
};

}  // namespace parlor::sessions

#endif  // PARLOR_SERVICES_SESSIONS_STORE_TABLE_STORE_H_
