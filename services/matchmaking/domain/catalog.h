#ifndef PARLOR_SERVICES_MATCHMAKING_DOMAIN_CATALOG_H_
#define PARLOR_SERVICES_MATCHMAKING_DOMAIN_CATALOG_H_

#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/core/registry.h"
#include "services/ratings/model/ladder.h"

namespace parlor::matchmaking {

// What matchmaking needs to know about games, from the engine registry: which games exist,
// which options and table sizes they allow, which seats form teams, and the ratings ladders
// (derived from the same games' metadata as the ratings service derives them).
class GameCatalog {
 public:
  explicit GameCatalog(const engine::Registry* registry);

  struct Validated {
    // Every option of the game in readable form, defaults filled in, as "name=value,..." sorted
    // by name: identical settings give identical text (the pool key).
    std::string canonical_options;
    std::map<std::string, std::string> options;
    std::vector<int> player_counts;  // ascending, distinct
    std::map<int, std::vector<int>> seat_teams;
  };

  // INVALID_ARGUMENT naming the field for an unknown game, bad options, or a table size the game
  // does not allow with these options. Empty `player_counts` means the game's minimum.
  absl::StatusOr<Validated> Validate(const std::string& game,
                                     const std::map<std::string, std::string>& options,
                                     const std::vector<int>& player_counts) const;

  // Every table size the game allows with already canonical options, with its seat teams.
  absl::StatusOr<std::map<int, std::vector<int>>> SeatTeamsForPool(
      const std::string& game, const std::string& canonical_options) const;

  static std::map<std::string, std::string> ParseCanonical(const std::string& canonical);

  // The ratings ladder of a ranked ticket, derived as the ratings service derives a finished
  // game's (services/ratings/model/ladder.h): game, seat count and teams of the smallest table
  // size the ticket accepts that a ladder takes. The game id when none does.
  std::string LadderFor(const std::string& game,
                        const std::map<int, std::vector<int>>& seat_teams) const;
  const ratings::model::LadderRegistry& ladders() const { return ladders_; }

 private:
  absl::StatusOr<std::vector<int>> SeatTeams(const std::string& game,
                                             const std::string& canonical_options,
                                             int players) const;

  const engine::Registry* registry_;
  const ratings::model::LadderRegistry ladders_;
  mutable std::mutex mu_;
  mutable std::map<std::tuple<std::string, std::string, int>, std::vector<int>> teams_cache_;
};

}  // namespace parlor::matchmaking

#endif  // PARLOR_SERVICES_MATCHMAKING_DOMAIN_CATALOG_H_
