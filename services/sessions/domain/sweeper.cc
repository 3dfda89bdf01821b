#include <map>
#include <optional>
#include <string>
#include <vector>

#include "services/common/core/logging.h"
#include "services/common/core/status_macros.h"
#include "services/sessions/domain/engine_glue.h"
#include "services/sessions/domain/moves.h"
#include "services/sessions/domain/sessions.h"

// The sweeper: deadlines, reminders and automatic play left waiting, on every replica at once;
// and the forgetting of expired idempotency keys. The decisions are DecideTimeouts (moves.h).
namespace parlor::sessions {

absl::StatusOr<int> Sessions::ForgetExpiredIdempotencyKeys() {
  const absl::Time cutoff = clock_() - options_.idempotency_key_retention;
  int total = 0;
  for (int batch = 0; batch < options_.idempotency_key_batches; ++batch) {
    PARLOR_ASSIGN_OR_RETURN(const int deleted, store_->DeleteIdempotencyKeysBefore(
                                                   cutoff, options_.idempotency_key_batch));
    total += deleted;
    if (deleted < options_.idempotency_key_batch) break;
  }
  return total;
}

absl::StatusOr<int> Sessions::Sweep(int limit) {
  const absl::Time now = clock_();
  PARLOR_ASSIGN_OR_RETURN(std::vector<std::string> ids, store_->DueGames(now, limit));
  int changed = 0;
  for (const std::string& id : ids) {
    absl::StatusOr<bool> wrote = SweepGame(id, now);
    if (!wrote.ok()) {
      spdlog::warn("sweeper: game {}: {}", id, wrote.status().ToString());
      continue;
    }
    if (*wrote) ++changed;
  }
  return changed;
}

absl::StatusOr<bool> Sessions::SweepGame(const std::string& game_id, absl::Time now) {
  // The version this sweep decides on. Another replica's sweeper (or a move) may change the
  // game between the listing and the lock; the locked read then has the new game row but, in
  // READ COMMITTED, seat rows from before the wait, so such a game is left to the next sweep
  // rather than timed out twice on stale seats.
  int64_t seen_version = -1;
  if (absl::StatusOr<GameRow> row = store_->GetGame(game_id); row.ok()) {
    seen_version = row->version;
  }
  const TimeoutPolicy policy{options_.timeout_bot, options_.casual_forfeit_after_timeouts};
  std::vector<std::string> timeouts;
  std::string game_name;
  bool wrote = false;
  bool auto_play_due = false;
  PARLOR_RETURN_IF_ERROR(store_->UpdateGame(
      "sessions.sweep", game_id, std::nullopt,
      [&](const GameRow& locked,
          const std::optional<StoredAnswer>&) -> absl::StatusOr<std::optional<Mutation>> {
        timeouts.clear();
        wrote = false;
        auto_play_due = false;
        if (locked.finished || locked.version != seen_version) return std::optional<Mutation>();
        game_name = locked.game;
        PARLOR_ASSIGN_OR_RETURN(const engine::Game* game, FindGame(locked.game));
        PARLOR_ASSIGN_OR_RETURN(std::unique_ptr<engine::State> state,
                                LoadState(*game, locked.snapshot));
        DecisionContext ctx = Context(game);
        ctx.now = now;
        PARLOR_ASSIGN_OR_RETURN(std::optional<Decision> d,
                                DecideTimeouts(ctx, locked, std::move(state), policy, &timeouts));
        if (!d) {
          // Listed as due with nothing due: its stored wake time was not this row's (a server
          // of the previous version wrote the game). Writing the row unchanged stores it.
          const std::optional<absl::Time> wake = NextSweepAt(locked);
          if (wake && *wake <= now) return std::optional<Mutation>();
          Mutation unchanged;
          unchanged.after = locked;
          return std::optional<Mutation>(std::move(unchanged));
        }
        wrote = true;
        auto_play_due = LeavesAutoPlayDue(d->mutation.after);
        return std::optional<Mutation>(std::move(d->mutation));
      }));
  for (const std::string& kind : timeouts) metrics_.Timeout(game_name, kind);
  if (auto_play_due) AutoPlayDue();
  return wrote;
}

}  // namespace parlor::sessions
