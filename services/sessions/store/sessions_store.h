#ifndef PARLOR_SERVICES_SESSIONS_STORE_SESSIONS_STORE_H_
#define PARLOR_SERVICES_SESSIONS_STORE_SESSIONS_STORE_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "services/sessions/store/rows.h"

namespace parlor::sessions {

// What the sessions domain needs of its storage: named transactions over the rows of rows.h.
// PgSessionsStore (store.h) is the PostgreSQL implementation; unit tests of the domain use an
// in-memory one. Every method may block; none throws.
class SessionsStore {
 public:
  virtual ~SessionsStore() = default;

  // Inserts the game, its seats and its setup log entry. When `match_key` (a match id) is already
  // taken, nothing is written and the existing game is returned with *created = false; a
  // different request under the same key is ALREADY_EXISTS.
  virtual absl::StatusOr<GameRow> CreateGame(const NewGame& game, absl::string_view match_key,
                                             bool* created) = 0;

  // NOT_FOUND when there is no such game.
  virtual absl::StatusOr<GameRow> GetGame(absl::string_view game_id) = 0;
  // GetGame, with the version `account_id` last marked seen in it (-1 when none) in `seen`, read
  // in the same round trip. A store without seen versions answers -1.
  virtual absl::StatusOr<GameRow> GetGameSeenBy(absl::string_view game_id,
                                                absl::string_view /*account_id*/, int64_t* seen) {
    *seen = -1;
    return GetGame(game_id);
  }

  // Several games by id, in the order of `game_ids`; an id of no game is left out. A store that
  // can read them together overrides this (a page of a listing is up to 100 games).
  virtual absl::StatusOr<std::vector<GameRow>> GetGames(const std::vector<std::string>& game_ids) {
    std::vector<GameRow> games;
    for (const std::string& id : game_ids) {
      absl::StatusOr<GameRow> game = GetGame(id);
      if (game.ok()) {
        games.push_back(*std::move(game));
      } else if (!absl::IsNotFound(game.status())) {
        return game.status();
      }
    }
    return games;
  }

  // The caller's games, newest activity first; `cursor` continues after a previous page.
  virtual absl::StatusOr<std::vector<GameRow>> ListGames(absl::string_view account_id,
                                                         ListFilter filter,
                                                         const std::optional<ListCursor>& cursor,
                                                         int limit) = 0;

  // Public games of one status ('finished' when `finished`), optionally of one game (empty =
  // any), newest activity first; `cursor` continues after a previous page.
  virtual absl::StatusOr<std::vector<GameRow>> ListPublicGames(
      absl::string_view game, bool finished, const std::optional<ListCursor>& cursor,
      int limit) = 0;

  // Deletes up to `limit` idempotency keys created before `cutoff`; returns how many it deleted.
  virtual absl::StatusOr<int> DeleteIdempotencyKeysBefore(absl::Time cutoff, int limit) = 0;

  // Log entries with version >= from_version, in order, at most `limit`.
  virtual absl::StatusOr<std::vector<LogRow>> GetLog(absl::string_view game_id,
                                                     int64_t from_version, int limit) = 0;

  // The decision inside a state-change transaction: given the locked game (and the answer
  // already stored under the request's idempotency key, if any), either a Mutation to write, or
  // nullopt to write nothing, or an error that rolls back. It may run more than once (the
  // transaction is retried on serialization failures), so it must have no other effects.
  using Decide = std::function<absl::StatusOr<std::optional<Mutation>>(
      const GameRow& locked, const std::optional<StoredAnswer>& stored)>;

  // One transaction: lock the game, read its seats and the idempotency key, decide, then write
  // the game, seats, log entries, idempotency answer, outbox rows and the change notice, and
  // commit. NOT_FOUND when the game does not exist.
  virtual absl::Status UpdateGame(absl::string_view txn_name, absl::string_view game_id,
                                  const std::optional<IdempotencyKeyRef>& key,
                                  const Decide& decide) = 0;

  // Ids of active games with a deadline or reminder due at `now` (each is then handled with
  // UpdateGame).
  virtual absl::StatusOr<std::vector<std::string>> DueGames(absl::Time now, int limit) = 0;

  // Whether a game was created under `match_key` (a match id, or a CreateBotGame request key).
  virtual absl::StatusOr<bool> MatchExists(absl::string_view match_key) = 0;

  // What an account's games hold, for its quotas: games in progress (any kind); games against
  // the computer (no match id) created after `hour_ago`, and the oldest of them; log entries of
  // the games it sits in created after `day_ago`, and the oldest of those games.
  struct AccountUsage {
    int64_t active_games = 0;
    int64_t bot_games_last_hour = 0;
    std::optional<absl::Time> oldest_bot_game_in_hour;
    int64_t actions_last_day = 0;
    std::optional<absl::Time> oldest_game_in_day;
  };
  virtual absl::StatusOr<AccountUsage> GetAccountUsage(absl::string_view account_id,
                                                       absl::Time hour_ago, absl::Time day_ago) = 0;

  // The running or planned vacations of the given accounts, by account id (an account with
  // none is absent). One read for every seat of a game being created.
  struct Vacation {
    absl::Time started_at;
    absl::Time ends_at;
  };
  using VacationsByAccount = absl::flat_hash_map<std::string, Vacation>;
  virtual absl::StatusOr<VacationsByAccount> GetVacations(
      const std::vector<std::string>& account_ids) = 0;

  // A vacation starting or ending early, in one transaction with its effect on every game.
  struct VacationChange {
    // When it starts (or ends early).
    absl::Time now;
    // Set when it starts: its end. FAILED_PRECONDITION when one is already running at `now`.
    // Unset when it ends early: FAILED_PRECONDITION when none is running at `now`.
    std::optional<absl::Time> until;
    // When it starts: called with the total length of the account's vacations (their planned
    // length, or their actual one when ended early) that started after `counted_since`; an
    // error refuses the vacation (the yearly allowance).
    absl::Time counted_since;
    std::function<absl::Status(absl::Duration taken)> check;
    // Then, on each of the account's active games, locked: the change to write, if any (the
    // version does not change).
    std::function<std::optional<Mutation>(const GameRow& locked)> decide;
  };
  virtual absl::Status ChangeVacation(absl::string_view account_id,
                                      const VacationChange& change) = 0;

  // The records of those of `account_ids` that have one (a player without a finished game
  // against people has none).
  virtual absl::StatusOr<std::vector<PlayerRecordRow>> GetPlayerRecords(
      const std::vector<std::string>& account_ids) = 0;
};

}  // namespace parlor::sessions

#endif  // PARLOR_SERVICES_SESSIONS_STORE_SESSIONS_STORE_H_
