#ifndef PARLOR_SERVICES_SESSIONS_STORE_FAKE_SESSIONS_STORE_H_
#define PARLOR_SERVICES_SESSIONS_STORE_FAKE_SESSIONS_STORE_H_

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "services/sessions/store/sessions_store.h"

namespace parlor::sessions {

// SessionsStore in memory, for unit tests of the domain: the same contract as PgSessionsStore
// (one mutex stands for the transactions), and what was written is readable.
class FakeSessionsStore : public SessionsStore {
 public:
  absl::StatusOr<GameRow> CreateGame(const NewGame& game, absl::string_view match_key,
                                     bool* created) override;
  absl::StatusOr<GameRow> GetGame(absl::string_view game_id) override;
  absl::StatusOr<std::vector<GameRow>> ListGames(absl::string_view account_id, ListFilter filter,
                                                 const std::optional<ListCursor>& cursor,
                                                 int limit) override;
  absl::StatusOr<std::vector<GameRow>> ListPublicGames(absl::string_view game, bool finished,
                                                       const std::optional<ListCursor>& cursor,
                                                       int limit) override;
  absl::StatusOr<int> DeleteIdempotencyKeysBefore(absl::Time cutoff, int limit) override;
  absl::StatusOr<std::vector<LogRow>> GetLog(absl::string_view game_id, int64_t from_version,
                                             int limit) override;
  absl::Status UpdateGame(absl::string_view txn_name, absl::string_view game_id,
                          const std::optional<IdempotencyKeyRef>& key,
                          const Decide& decide) override;
  absl::StatusOr<std::vector<std::string>> DueGames(absl::Time now, int limit) override;
  absl::StatusOr<bool> MatchExists(absl::string_view match_key) override;
  absl::StatusOr<AccountUsage> GetAccountUsage(absl::string_view account_id, absl::Time hour_ago,
                                               absl::Time day_ago) override;
  absl::StatusOr<VacationsByAccount> GetVacations(
      const std::vector<std::string>& account_ids) override;
  absl::Status ChangeVacation(absl::string_view account_id, const VacationChange& change) override;
  absl::StatusOr<std::vector<PlayerRecordRow>> GetPlayerRecords(
      const std::vector<std::string>& account_ids) override;

  // What was written.
  std::vector<NotificationRow> notifications() const;
  std::vector<ResultRow> results() const;
  // Names of the transactions run (UpdateGame's txn_name), in order.
  std::vector<std::string> transactions() const;

 private:
  struct Key {
    StoredAnswer answer;
    absl::Time created_at;
  };
  absl::StatusOr<std::vector<GameRow>> Page(const std::vector<GameRow>& rows,
                                            const std::optional<ListCursor>& cursor, int limit)
      ABSL_SHARED_LOCKS_REQUIRED(mu_);

  mutable absl::Mutex mu_;
  std::map<std::string, GameRow, std::less<>> games_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::vector<LogRow>, std::less<>> logs_ ABSL_GUARDED_BY(mu_);
  // match key -> {game id, request hash}
  std::map<std::string, std::pair<std::string, std::string>, std::less<>> matches_
      ABSL_GUARDED_BY(mu_);
  std::map<std::tuple<std::string, std::string, std::string>, Key> keys_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, Vacation, std::less<>> vacations_ ABSL_GUARDED_BY(mu_);
  // Every vacation taken: {account, start} -> end.
  std::map<std::pair<std::string, absl::Time>, absl::Time> vacation_history_ ABSL_GUARDED_BY(mu_);
  std::vector<NotificationRow> notifications_ ABSL_GUARDED_BY(mu_);
  std::vector<ResultRow> results_ ABSL_GUARDED_BY(mu_);
  std::vector<std::string> transactions_ ABSL_GUARDED_BY(mu_);
};

}  // namespace parlor::sessions

#endif  // PARLOR_SERVICES_SESSIONS_STORE_FAKE_SESSIONS_STORE_H_
