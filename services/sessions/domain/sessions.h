#ifndef PARLOR_SERVICES_SESSIONS_DOMAIN_SESSIONS_H_
#define PARLOR_SERVICES_SESSIONS_DOMAIN_SESSIONS_H_

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "engine/core/registry.h"
#include "prometheus/registry.h"
#include "services/common/core/page_token.h"
#include "services/sessions/domain/moves.h"
#include "services/sessions/domain/records.h"
#include "services/sessions/domain/requests.h"
#include "services/sessions/domain/sessions_metrics.h"
#include "services/sessions/domain/summary.h"
#include "services/sessions/store/group_commit.h"
#include "services/sessions/store/sessions_store.h"
#include "services/sessions/store/table_store.h"
#include "services/sessions/store/versioned_cache.h"

namespace parlor::sessions {

// SubmitAction's ABORTED for a stale expected_version carries both versions (for the API's
// VersionConflict detail) as a payload under this key.
inline constexpr char kStaleVersionPayload[] = "parlor.sessions.domain/stale-version";
struct StaleVersionDetail {
  int64_t expected = 0;
  int64_t current = 0;
};
// The versions of a stale SubmitAction's status; nullopt for any other status.
std::optional<StaleVersionDetail> StaleVersionOf(const absl::Status& status);

// How SubmitAction's answer is kept under its idempotency key, so that a retry gets exactly
// the bytes of the first answer back (MoveAnswer::replayed): the API's encoding of its response.
using AnswerEncoder = std::function<std::string(const GameWithView& answer)>;

// SubmitAction's answer: the game after the move with the caller's view and legal actions, or,
// for a retry of a move already made, the first answer as AnswerEncoder encoded it (`replayed`
// set, the rest empty).
struct MoveAnswer {
  GameWithView fresh;
  std::optional<std::string> replayed;
};

// The sessions domain: validation, the engine, time controls and the timeout policy, over the
// store. It speaks its own types (requests.h in, summary.h out; a game's view or action as the
// engine's Any) and no service proto: api/mapping.h maps the API's messages, api/calls.h runs
// each RPC through it. Every public method blocks (it runs transactions); call it from a worker
// pool.
class Sessions {
 public:
  struct Options {
    // The secret behind ListMyGames page tokens (same on every replica).
    std::string page_token_secret = "parlor-sessions";
    // Bot used for the timed-out seat of a casual game.
    std::string timeout_bot = "greedy";
    // A casual game's seat forfeits at this many timeouts in a row (0: never; the computer then
    // moves for it at every timeout).
    int casual_forfeit_after_timeouts = 3;
    // The yearly vacation allowance: the vacations a player started in the last 365 days
    // (rolling), with a new one, may total at most this many days.
    int vacation_days_per_year = 30;
    // SubmitAction's idempotency keys are kept this long: a retry within it gets the first
    // answer; after it, the key is forgotten (a late retry then meets a newer version and gets
    // ABORTED, so nothing is ever applied twice).
    absl::Duration idempotency_key_retention = absl::Hours(7 * 24);
    // The sweeper deletes expired keys this many at a time (short transactions), at most
    // `idempotency_key_batches` batches per sweep.
    int idempotency_key_batch = 1000;
    int idempotency_key_batches = 20;
    // When set, SubmitAction's transactions go through this group committer (moves of
    // concurrent games share one transaction); otherwise each is its own UpdateGame.
    GroupCommitter* group_committer = nullptr;
    // How many games' newest engine states to keep loaded (0: load every time from the
    // snapshot).
    size_t state_cache_entries = 5000;
    // Each stored snapshot carries the game's whole log, as the servers before the snapshot
    // without the log wrote and need: set while replicas of such a version still run. Otherwise
    // it carries the setup's entry only, and the log is read from the game's log rows.
    bool snapshot_with_log = false;
    // Automatic play (computer seats, forfeited seats) inside one request or sweep of one game:
    // at most this many moves and about this much time (whichever comes first; at least one
    // move). What remains is left to the sweeper, which continues it in the background (the
    // waiting computer seat is due at once), a bounded chunk per sweep.
    int auto_moves_per_request = 100;
    absl::Duration auto_play_budget = absl::Milliseconds(250);
    // Per-account quotas of CreateBotGame (0 = no limit): games in progress (any kind), games
    // against the computer created in the last hour, and log entries stored by the games the
    // account sits in that were created in the last 24 hours.
    int max_active_games = 100;
    int max_bot_games_per_hour = 60;
    int64_t max_actions_per_day = 100000;
    // Table talk (chat, rematch, nudges, seen versions; domain/table.cc): its store (those RPCs
    // are UNAVAILABLE without one), and who blocked whom among some accounts (accounts'
    // CheckBlocks: (blocker, blocked) pairs); without it no block is known.
    PgTableStore* table_store = nullptr;
    std::function<absl::StatusOr<std::vector<std::pair<std::string, std::string>>>(
        const std::vector<std::string>& account_ids)>
        check_blocks;
    // Everyone an account blocked or was blocked by (accounts' ListBlocks): ListPublicGames leaves
    // their games out of the caller's list. Without it nothing is left out.
    std::function<absl::StatusOr<std::vector<std::string>>(const std::string& account_id)>
        blocked_either_way;
    // Chat: at most `chat_messages_per_window` messages per player and game in `chat_window`.
    int chat_messages_per_window = 10;
    absl::Duration chat_window = absl::Minutes(1);
    // A rematch offer expires this long after it was made.
    absl::Duration rematch_offer_ttl = absl::Hours(72);
    // At most one nudge per game per this period.
    absl::Duration nudge_period = absl::Hours(24);
  };

  // `registry` may be null (unit tests): then nothing is counted.
  Sessions(SessionsStore* store, const engine::Registry* games, std::function<absl::Time()> clock,
           Options options, prometheus::Registry* registry = nullptr);

  // The service's metrics (sessions_metrics.h): the domain counts moves, timeouts and quota
  // refusals; the watch streams, the outbox dispatcher and the server's gauges count the rest.
  SessionsMetrics& metrics() { return metrics_; }

  // `wake` is called when a committed change left automatic play (a computer or forfeited seat)
  // due at once: it stopped at its per-request bound, and the sweeper should run now rather than
  // at its next interval, or the player waits that long for the computer's move. Null: nobody
  // is told. Thread-safe.
  void OnAutoPlayDue(std::function<void()> wake);

  // SessionsInternalService.CreateGame (a service caller): the game as a spectator sees it.
  absl::StatusOr<CreatedGame> CreateGame(const CreateGameRequest& request);
  // Player-facing RPCs; `account_id` is the authenticated caller.
  absl::StatusOr<CreatedGame> CreateBotGame(const std::string& account_id,
                                            const CreateBotGameRequest& request);
  absl::StatusOr<GameWithView> GetGame(const std::string& account_id, absl::string_view game_id);
  absl::StatusOr<GamePage> ListMyGames(const std::string& account_id, const MyGamesQuery& query);
  absl::StatusOr<MoveAnswer> SubmitAction(const std::string& account_id,
                                          const SubmitRequest& request,
                                          const AnswerEncoder& encode);
  // SubmitAction without blocking the caller: `done` gets the status once the move has been
  // committed or refused (at once for bad input; otherwise from the group committer's thread),
  // and *answer is set when it is OK. `request`, `encode` and `answer` must stay alive until
  // then.
  void SubmitActionAsync(const std::string& account_id, const SubmitRequest& request,
                         const AnswerEncoder& encode, MoveAnswer* answer,
                         std::function<void(absl::Status)> done);
  // The game after the caller's seat forfeited.
  absl::StatusOr<GameSummary> Resign(const std::string& account_id, absl::string_view game_id);
  absl::StatusOr<History> GetHistory(const std::string& account_id, const HistoryQuery& query);
  absl::StatusOr<GamePage> ListPublicGames(const std::string& account_id,
                                           const PublicGamesQuery& query);
  // Drops the games in which someone the caller blocked, or who blocked the caller, is seated.
  absl::Status LeaveOutBlocked(const std::string& account_id,
                               std::vector<GameSummary>* games) const;

  // A vacation of `duration` (whole seconds, 1 hour to 30 days) from now: the clock of the
  // account's running turns stops meanwhile. Returns when it ends on its own.
  absl::StatusOr<absl::Time> StartVacation(const std::string& account_id, absl::Duration duration);
  // Ends the account's running vacation now; FAILED_PRECONDITION when none runs.
  absl::Status EndVacation(const std::string& account_id);
  // The records of 1 to 100 accounts (lower-case UUIDs), in the order asked; public (a player's
  // or a service's call).
  absl::StatusOr<std::vector<PlayerRecord>> GetPlayerRecords(
      const std::vector<std::string>& account_ids);

  // Table talk (domain/table.cc).
  absl::StatusOr<ChatMessage> SendChatMessage(const std::string& account_id,
                                              absl::string_view game_id, const std::string& text);
  absl::StatusOr<ChatPage> ListChatMessages(const std::string& account_id, const ChatQuery& query);
  // Reports another player's message `message_id` of the game to the moderators.
  absl::Status ReportChatMessage(const std::string& account_id, const std::string& game_id,
                                 int64_t message_id, const std::string& reason);
  absl::StatusOr<RematchAnswer> OfferRematch(const std::string& account_id,
                                             const std::string& game_id);
  absl::StatusOr<RematchAnswer> AcceptRematch(const std::string& account_id,
                                              const std::string& game_id);
  // The offer declined (never a game).
  absl::StatusOr<Rematch> DeclineRematch(const std::string& account_id, const std::string& game_id);
  // The game's rematch offer; nullopt when none was ever made.
  absl::StatusOr<std::optional<Rematch>> GetRematch(const std::string& account_id,
                                                    const std::string& game_id);
  // Pushes a reminder to the players the caller waits for; returns when the game may be nudged
  // again.
  absl::StatusOr<absl::Time> Nudge(const std::string& account_id, const std::string& game_id);
  // The caller (seated) has seen the game up to `version`.
  absl::Status MarkSeen(const std::string& account_id, const std::string& game_id, int64_t version);
  // The chat messages of a game after `after_id` (oldest first, at most `limit` read) that the
  // account may read (WatchGame, WatchMyGames); *read_to is the id of the last message read
  // (shown or hidden by a block; after_id when none). PERMISSION_DENIED as for GetGame.
  absl::Status ChatAfter(const std::string& account_id, absl::string_view game_id, int64_t after_id,
                         int limit, std::vector<ChatMessage>* out, int64_t* read_to);
  // The newest chat message id of any game (streams start after it).
  absl::StatusOr<int64_t> LatestChatId();

  // The events of versions after `after_version` (at most `limit`) for a seated caller or a
  // spectator of a public game, with the game's summary, as WatchGame sends them.
  // PERMISSION_DENIED when the caller is not seated and the game is private.
  absl::Status WatchEvents(const std::string& account_id, absl::string_view game_id,
                           int64_t after_version, int limit, std::vector<FeedItem>* out);
  // The game's summary as the given account sees it (WatchMyGames, WatchGame); my_seat = -1 for
  // a spectator of a public game.
  absl::StatusOr<GameSummary> SummaryFor(const std::string& account_id, absl::string_view game_id);

  // Handles every due deadline and reminder at the clock's now; returns how many games it
  // changed. Safe on every replica at once.
  absl::StatusOr<int> Sweep(int limit = 100);

  // Deletes idempotency keys older than Options::idempotency_key_retention, in batches; returns
  // how many it deleted. Safe on every replica at once (each batch skips rows others hold).
  absl::StatusOr<int> ForgetExpiredIdempotencyKeys();

  // Validation shared with the api layer.
  static absl::Status ValidateGameId(absl::string_view game_id);

 private:
  friend class GameFeed;  // WatchGame's page-by-page reader (game_feed.h)
  struct Prepared;
  absl::StatusOr<const engine::Game*> FindGame(absl::string_view name) const;
  // What Create makes: the game (checked by the caller, except for what the game's rules check:
  // options, teams) and the keys that make its creation idempotent.
  struct CreateSpec {
    std::string match_key;     // the creation's idempotency key (a match id, or bot:...)
    std::string request_hash;  // of the creating request
    std::string match_id;      // empty for a game against the computer
    const engine::Game* game = nullptr;
    std::map<std::string, std::string> raw_options;
    std::vector<SeatRow> seats;
    bool ranked = false;
    bool is_public = false;
    TimeControlSpec time_control;
  };
  // The game as a spectator sees it (my_seat -1).
  absl::StatusOr<CreatedGame> Create(CreateSpec spec);
  // The caller's decision context for `game` at the clock's now.
  DecisionContext Context(const engine::Game* game) const;
  // The engine state of the locked version: the loaded one when this replica committed it,
  // else from the snapshot.
  absl::StatusOr<std::unique_ptr<engine::State>> LockedState(const engine::Game& game,
                                                             const GameRow& locked);
  absl::StatusOr<GameSummary> Summary(const GameRow& row, int my_seat) const;
  // The game's stored record with its log from the setup through `to_version` (at most the row's
  // version), for a replay: the snapshot leaves the log out (or holds it, if an earlier server
  // wrote it), and the entries it leaves out are read from the game's log rows.
  absl::StatusOr<engine::v1::GameRecord> RecordThrough(const GameRow& row, int64_t to_version);
  // Table talk helpers (domain/table.cc).
  absl::StatusOr<PgTableStore*> TableStore() const;
  // Drops the messages whose sender the reader blocked.
  absl::Status HideBlocked(const std::string& reader, const GameRow& row,
                           std::vector<ChatRow>* messages) const;
  // The seat's inbox fields (seen_version, unseen_versions) of summaries of the account's games.
  absl::Status AddSeen(const std::string& account_id, absl::Span<GameSummary> games) const;
  // The caller's seen version of a game it sits in (-1: nothing seen) and what it has not seen.
  static void SetSeen(GameSummary& game, int64_t seen_version);
  // Creates the rematch of the finished game `row` (idempotent on its match key), as the player
  // of `my_seat` in `row` sees it.
  absl::StatusOr<GameSummary> CreateRematch(const GameRow& row, int my_seat);
  // The rematch RPCs' common work; `step`: 0 offer, 1 accept, 2 decline.
  absl::StatusOr<RematchAnswer> RematchCall(int step, const std::string& account_id,
                                            const std::string& game_id);
  // Game.last_move of the caller's games (ListMyGames' with_last_move).
  absl::Status AddLastMoves(const std::string& account_id, absl::Span<GameSummary> games);
  // ListMyGames with GAME_ORDER_MY_TURN_FIRST (domain/table.cc), after its filter is checked.
  absl::StatusOr<GamePage> ListMyGamesByTurn(const std::string& account_id,
                                             const MyGamesQuery& query);
  // RESOURCE_EXHAUSTED (with a retry delay when waiting helps) when a CreateBotGame would exceed
  // one of the account's quotas.
  absl::Status CheckQuotas(const std::string& account_id);
  // One SubmitAction in flight, and its transaction (through the group committer when set).
  struct SubmitCall;
  void Commit(const std::shared_ptr<SubmitCall>& call, std::function<void(absl::Status)> finish);
  // SubmitAction's decision inside its transaction (it may run more than once).
  absl::StatusOr<std::optional<Mutation>> DecideSubmit(SubmitCall& call, const GameRow& locked,
                                                       const std::optional<StoredAnswer>& stored);
  // Resign's decision on the version it read first (`seen`): nullopt with *changed set when the
  // game changed meanwhile.
  absl::StatusOr<std::optional<Mutation>> DecideResignAt(const GameRow& locked, int64_t seen,
                                                         const std::string& account_id,
                                                         GameSummary* game, bool* changed);
  // One ListMyGames / ListPublicGames page: the summaries of `rows` (read with a limit of
  // page.size + 1) and the next page's token.
  absl::Status FillPage(const ListPage& page, const std::string& account_id,
                        std::vector<GameRow> rows, GamePage* out) const;
  // The sweeper (sweeper.cc): one due game at `now`; returns whether it changed.
  absl::StatusOr<bool> SweepGame(const std::string& game_id, absl::Time now);
  // Tells OnAutoPlayDue's callback, if any.
  void AutoPlayDue();
  // Each player seat of a new game shows its player's running vacation (its clock then starts
  // paused).
  absl::Status ShowVacations(std::vector<SeatRow>& seats, absl::Time now);

  SessionsStore* store_;
  const engine::Registry* games_;
  std::function<absl::Time()> clock_;
  Options options_;
  SessionsMetrics metrics_;
  std::mutex wake_mu_;
  std::function<void()> wake_sweeper_;
  PageTokens page_tokens_;
  // The engine state of each recently changed game's newest committed version (never handed out
  // for any other version); used through a clone, as State is not safe to share between threads.
  VersionedCache<engine::State> states_;
};

}  // namespace parlor::sessions

#endif  // PARLOR_SERVICES_SESSIONS_DOMAIN_SESSIONS_H_
