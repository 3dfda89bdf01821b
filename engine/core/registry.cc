#include "engine/core/registry.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace parlor::engine {

void Registry::Add(std::unique_ptr<Game> game) {
  const std::string name = game->name();
  games_[name] = std::move(game);
}

absl::StatusOr<const Game*> Registry::Find(absl::string_view name) const {
  auto it = games_.find(name);
  if (it != games_.end()) return it->second.get();
  std::vector<std::string> names;
  for (const auto& [n, g] : games_) names.push_back(n);
  return absl::NotFoundError(
      absl::StrCat("unknown game \"", name, "\"; known games: ", absl::StrJoin(names, ", ")));
}

std::vector<const Game*> Registry::games() const {
  std::vector<const Game*> out;
  for (const auto& [n, g] : games_) out.push_back(g.get());
  return out;
}

}  // namespace parlor::engine
