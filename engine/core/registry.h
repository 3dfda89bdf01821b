#ifndef PARLOR_ENGINE_CORE_REGISTRY_H_
#define PARLOR_ENGINE_CORE_REGISTRY_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "engine/core/game.h"

namespace parlor::engine {

// The set of games a process knows. No global state: a process builds one (usually with
// AllGames() from engine/games/all_games.h) and passes it where it is needed.
class Registry {
 public:
  void Add(std::unique_ptr<Game> game);
  // NOT_FOUND listing the known games.
  absl::StatusOr<const Game*> Find(absl::string_view name) const;
  // Sorted by name.
  std::vector<const Game*> games() const;

 private:
  std::map<std::string, std::unique_ptr<Game>, std::less<>> games_;
};

}  // namespace parlor::engine

#endif  // PARLOR_ENGINE_CORE_REGISTRY_H_
