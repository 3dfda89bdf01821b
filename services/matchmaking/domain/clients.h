#ifndef PARLOR_SERVICES_MATCHMAKING_DOMAIN_CLIENTS_H_
#define PARLOR_SERVICES_MATCHMAKING_DOMAIN_CLIENTS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "services/matchmaking/store/store.h"

namespace parlor::matchmaking {

// The other services matchmaking talks to, as the domain sees them. The real implementations
// call them over gRPC with the internal service credential (api/clients.h).

// A player's rating on a ladder (the ratings service's ladder name, e.g. "picadice-duel"; see
// LadderFor in domain/catalog.h), in Glicko-2 points: the rating windows are in those units.
class RatingSource {
 public:
  virtual ~RatingSource() = default;
  virtual absl::StatusOr<double> Rating(const std::string& account_id,
                                        const std::string& ladder) = 0;
};

// Every player at the ladder default (1500). Used when no ratings service is configured.
class DefaultRatingSource final : public RatingSource {
 public:
  explicit DefaultRatingSource(double rating = 1500) : rating_(rating) {}
  absl::StatusOr<double> Rating(const std::string&, const std::string&) override { return rating_; }

 private:
  double rating_;
};

// Which accounts exist, and their display names.
class AccountDirectory {
 public:
  virtual ~AccountDirectory() = default;
  // Display name by account id, for the ids that exist (unknown ids are left out).
  virtual absl::StatusOr<std::map<std::string, std::string>> Lookup(
      const std::vector<std::string>& account_ids) = 0;
};

// Who a player blocked and who blocked them (accounts.AccountsInternalService.ListBlocks): the
// matcher never seats them at one table.
class BlockSource {
 public:
  virtual ~BlockSource() = default;
  // The accounts `account_id` blocked or was blocked by, in any order.
  virtual absl::StatusOr<std::vector<std::string>> BlockedEitherWay(
      const std::string& account_id) = 0;
};

// A player's record in games against people (sessions.SessionsInternalService.
// GetPlayerRecords): games finished, resigned and forfeited on time.
struct PlayerRecord {
  int64_t finished = 0;
  int64_t resigned = 0;
  int64_t timed_out = 0;
};
class RecordSource {
 public:
  virtual ~RecordSource() = default;
  virtual absl::StatusOr<PlayerRecord> Record(const std::string& account_id) = 0;
};

// Creates the game for a match: sessions.CreateGame, idempotent on the match id. Returns the
// game id.
class GameCreator {
 public:
  virtual ~GameCreator() = default;
  virtual absl::StatusOr<std::string> CreateGame(const MatchRow& match) = 0;
};

}  // namespace parlor::matchmaking

#endif  // PARLOR_SERVICES_MATCHMAKING_DOMAIN_CLIENTS_H_
