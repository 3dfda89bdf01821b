#include "services/sessions/store/fake_sessions_store.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "services/common/core/status_macros.h"

namespace parlor::sessions {
namespace {

bool Newer(const GameRow& a, const GameRow& b) {
  return std::tie(a.updated_at, a.game_id) > std::tie(b.updated_at, b.game_id);
}

int SeatOfAccount(const GameRow& game, const std::string& account) {
  for (const SeatRow& s : game.seats) {
    if (s.account_id == account) return s.seat;
  }
  return -1;
}

}  // namespace

absl::StatusOr<GameRow> FakeSessionsStore::CreateGame(const NewGame& game,
                                                      absl::string_view match_key, bool* created) {
  absl::MutexLock lock(&mu_);
  if (auto m = matches_.find(match_key); m != matches_.end()) {
    if (m->second.second != game.request_hash) {
      return absl::AlreadyExistsError(
          absl::StrCat("match ", match_key, " already has a game made by a different request"));
    }
    *created = false;
    return games_.at(m->second.first);
  }
  const std::string& id = game.game.game_id;
  matches_[std::string(match_key)] = {id, game.request_hash};
  games_[id] = game.game;
  logs_[id] = game.log;
  notifications_.insert(notifications_.end(), game.notifications.begin(), game.notifications.end());
  if (game.result) results_.push_back(*game.result);
  *created = true;
  return game.game;
}

absl::StatusOr<GameRow> FakeSessionsStore::GetGame(absl::string_view game_id) {
  absl::ReaderMutexLock lock(&mu_);
  auto it = games_.find(game_id);
  if (it == games_.end()) return absl::NotFoundError(absl::StrCat("no game with id ", game_id));
  return it->second;
}

absl::StatusOr<std::vector<GameRow>> FakeSessionsStore::Page(
    const std::vector<GameRow>& rows, const std::optional<ListCursor>& cursor, int limit) {
  std::vector<GameRow> sorted = rows;
  std::sort(sorted.begin(), sorted.end(), Newer);
  std::vector<GameRow> page;
  for (const GameRow& row : sorted) {
    if (static_cast<int>(page.size()) == limit) break;
    if (cursor &&
        std::tie(row.updated_at, row.game_id) >= std::tie(cursor->updated_at, cursor->game_id)) {
      continue;
    }
    page.push_back(row);
  }
  return page;
}

absl::StatusOr<std::vector<GameRow>> FakeSessionsStore::ListGames(
    absl::string_view account_id, ListFilter filter, const std::optional<ListCursor>& cursor,
    int limit) {
  absl::ReaderMutexLock lock(&mu_);
  std::vector<GameRow> rows;
  for (const auto& [id, game] : games_) {
    for (const SeatRow& s : game.seats) {
      if (s.account_id != account_id) continue;
      const bool keep = filter == ListFilter::kAll ||
                        (filter == ListFilter::kMyTurn && !game.finished && s.my_turn) ||
                        (filter == ListFilter::kWaiting && !game.finished && !s.my_turn) ||
                        (filter == ListFilter::kFinished && game.finished);
      if (keep) rows.push_back(game);
    }
  }
  return Page(rows, cursor, limit);
}

absl::StatusOr<std::vector<GameRow>> FakeSessionsStore::ListPublicGames(
    absl::string_view game, bool finished, const std::optional<ListCursor>& cursor, int limit) {
  absl::ReaderMutexLock lock(&mu_);
  std::vector<GameRow> rows;
  for (const auto& [id, row] : games_) {
    if (row.is_public && row.finished == finished && (game.empty() || row.game == game)) {
      rows.push_back(row);
    }
  }
  return Page(rows, cursor, limit);
}

absl::StatusOr<int> FakeSessionsStore::DeleteIdempotencyKeysBefore(absl::Time cutoff, int limit) {
  absl::MutexLock lock(&mu_);
  int deleted = 0;
  for (auto it = keys_.begin(); it != keys_.end() && deleted < limit;) {
    if (it->second.created_at < cutoff) {
      it = keys_.erase(it);
      ++deleted;
    } else {
      ++it;
    }
  }
  return deleted;
}

absl::StatusOr<std::vector<LogRow>> FakeSessionsStore::GetLog(absl::string_view game_id,
                                                              int64_t from_version, int limit) {
  absl::ReaderMutexLock lock(&mu_);
  std::vector<LogRow> out;
  auto it = logs_.find(game_id);
  if (it == logs_.end()) return out;
  for (const LogRow& row : it->second) {
    if (row.version >= from_version && static_cast<int>(out.size()) < limit) out.push_back(row);
  }
  return out;
}

absl::Status FakeSessionsStore::UpdateGame(absl::string_view txn_name, absl::string_view game_id,
                                           const std::optional<IdempotencyKeyRef>& key,
                                           const Decide& decide) {
  absl::MutexLock lock(&mu_);
  transactions_.emplace_back(txn_name);
  auto game = games_.find(game_id);
  if (game == games_.end()) return absl::NotFoundError(absl::StrCat("no game with id ", game_id));
  std::optional<StoredAnswer> stored;
  if (key) {
    auto k = keys_.find({std::string(game_id), key->account_id, key->key});
    if (k != keys_.end()) stored = k->second.answer;
  }
  absl::StatusOr<std::optional<Mutation>> decided = decide(game->second, stored);
  if (!decided.ok()) return decided.status();
  if (!decided->has_value()) return absl::OkStatus();
  Mutation& m = **decided;
  game->second = m.after;
  std::vector<LogRow>& log = logs_[std::string(game_id)];
  log.insert(log.end(), m.log.begin(), m.log.end());
  if (key && m.answer) {
    keys_[{std::string(game_id), key->account_id, key->key}] = Key{*m.answer, m.after.updated_at};
  }
  for (const NotificationRow& n : m.notifications) {
    const bool seen =
        std::any_of(notifications_.begin(), notifications_.end(),
                    [&](const NotificationRow& o) { return o.dedupe_key == n.dedupe_key; });
    if (!seen) notifications_.push_back(n);
  }
  if (m.result) results_.push_back(*m.result);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::string>> FakeSessionsStore::DueGames(absl::Time now, int limit) {
  absl::ReaderMutexLock lock(&mu_);
  std::vector<std::pair<absl::Time, std::string>> due;
  for (const auto& [id, game] : games_) {
    const std::optional<absl::Time> wake = NextSweepAt(game);
    if (wake && *wake <= now) due.emplace_back(*wake, id);
  }
  std::sort(due.begin(), due.end());
  std::vector<std::string> ids;
  for (const auto& [wake, id] : due) {
    if (static_cast<int>(ids.size()) == limit) break;
    ids.push_back(id);
  }
  return ids;
}

absl::StatusOr<bool> FakeSessionsStore::MatchExists(absl::string_view match_key) {
  absl::ReaderMutexLock lock(&mu_);
  return matches_.count(match_key) > 0;
}

absl::StatusOr<SessionsStore::AccountUsage> FakeSessionsStore::GetAccountUsage(
    absl::string_view account_id, absl::Time hour_ago, absl::Time day_ago) {
  absl::ReaderMutexLock lock(&mu_);
  AccountUsage usage;
  for (const auto& [id, game] : games_) {
    const bool seated = std::any_of(game.seats.begin(), game.seats.end(),
                                    [&](const SeatRow& s) { return s.account_id == account_id; });
    if (!seated) continue;
    if (!game.finished) ++usage.active_games;
    if (game.match_id.empty() && game.created_at > hour_ago) {
      ++usage.bot_games_last_hour;
      if (!usage.oldest_bot_game_in_hour || game.created_at < *usage.oldest_bot_game_in_hour) {
        usage.oldest_bot_game_in_hour = game.created_at;
      }
    }
    if (game.created_at > day_ago) {
      usage.actions_last_day += game.version + 1;
      if (!usage.oldest_game_in_day || game.created_at < *usage.oldest_game_in_day) {
        usage.oldest_game_in_day = game.created_at;
      }
    }
  }
  return usage;
}

absl::StatusOr<SessionsStore::VacationsByAccount> FakeSessionsStore::GetVacations(
    const std::vector<std::string>& account_ids) {
  absl::ReaderMutexLock lock(&mu_);
  VacationsByAccount found;
  for (const std::string& id : account_ids) {
    auto it = vacations_.find(id);
    if (it != vacations_.end()) found.emplace(id, it->second);
  }
  return found;
}

absl::Status FakeSessionsStore::ChangeVacation(absl::string_view account_id,
                                               const VacationChange& change) {
  absl::MutexLock lock(&mu_);
  transactions_.emplace_back(change.until ? "sessions.start_vacation" : "sessions.end_vacation");
  const std::string account(account_id);
  auto it = vacations_.find(account_id);
  const bool running = it != vacations_.end() && it->second.ends_at > change.now;
  if (change.until) {
    if (running)
      return absl::FailedPreconditionError("a vacation is already running; end it first");
    absl::Duration taken;
    for (const auto& [key, end] : vacation_history_) {
      if (key.first == account && key.second > change.counted_since) taken += end - key.second;
    }
    if (change.check) PARLOR_RETURN_IF_ERROR(change.check(taken));
    vacations_[account] = Vacation{change.now, *change.until};
    vacation_history_[{account, change.now}] = *change.until;
  } else {
    if (!running) return absl::FailedPreconditionError("no vacation is running");
    vacation_history_[{account, it->second.started_at}] = change.now;
    vacations_.erase(it);
  }
  for (auto& [id, game] : games_) {
    if (game.finished || SeatOfAccount(game, account) < 0) continue;
    if (std::optional<Mutation> m = change.decide(game)) game = m->after;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<PlayerRecordRow>> FakeSessionsStore::GetPlayerRecords(
    const std::vector<std::string>& account_ids) {
  absl::ReaderMutexLock lock(&mu_);
  // As the trigger of migration 0007 counts them: finished games with a match id.
  std::vector<PlayerRecordRow> records;
  for (const std::string& account : account_ids) {
    PlayerRecordRow r{account, 0, 0, 0};
    bool any = false;
    for (const auto& [id, game] : games_) {
      const int seat = SeatOfAccount(game, account);
      if (!game.finished || game.match_id.empty() || seat < 0) continue;
      any = true;
      if (!game.seats[seat].forfeited) {
        ++r.finished;
        continue;
      }
      bool timed_out = false;
      auto log = logs_.find(id);
      if (log != logs_.end()) {
        for (const LogRow& row : log->second) {
          timed_out = timed_out || (row.seat == seat && row.kind == LogRow::Kind::kForfeit &&
                                    row.cause == LogRow::Cause::kTimeout);
        }
      }
      ++(timed_out ? r.timed_out : r.resigned);
    }
    if (any) records.push_back(r);
  }
  return records;
}

std::vector<NotificationRow> FakeSessionsStore::notifications() const {
  absl::ReaderMutexLock lock(&mu_);
  return notifications_;
}

std::vector<ResultRow> FakeSessionsStore::results() const {
  absl::ReaderMutexLock lock(&mu_);
  return results_;
}

std::vector<std::string> FakeSessionsStore::transactions() const {
  absl::ReaderMutexLock lock(&mu_);
  return transactions_;
}

}  // namespace parlor::sessions
