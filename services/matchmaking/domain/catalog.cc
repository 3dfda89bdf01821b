#include "services/matchmaking/domain/catalog.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "engine/core/rng.h"
#include "engine/core/state.h"
#include "services/ratings/model/game_ladders.h"

namespace parlor::matchmaking {
namespace {

constexpr int kMaxRequestedCounts = 16;
// Longest game name, option name or option value accepted. Refusals echo at most this much of
// what was sent: an echo of an oversized string would make the refusal itself too large for the
// client's metadata limit, which then sees RESOURCE_EXHAUSTED instead of the reason.
constexpr size_t kMaxNameBytes = 64;

std::string Echo(const std::string& value) {
  if (value.size() <= kMaxNameBytes) return value;
  return absl::StrCat(value.substr(0, kMaxNameBytes), "... (", value.size(), " bytes)");
}

std::string KnownGames(const engine::Registry& registry) {
  std::vector<std::string> names;
  for (const engine::Game* game : registry.games()) names.push_back(game->name());
  return absl::StrJoin(names, ", ");
}

}  // namespace

GameCatalog::GameCatalog(const engine::Registry* registry)
    : registry_(registry), ladders_(ratings::model::LaddersForGames(*registry)) {}

std::string GameCatalog::LadderFor(const std::string& game,
                                   const std::map<int, std::vector<int>>& seat_teams) const {
  // The smallest accepted table size decides (a ticket open to several sizes keeps one rating).
  for (const auto& [seats, teams] : seat_teams) {
    absl::StatusOr<const ratings::model::LadderSpec*> ladder =
        ladders_.ForGame(ratings::model::GameShape{.game = game, .seats = seats, .team_of = teams});
    if (ladder.ok()) return (*ladder)->name;
  }
  return game;
}

std::map<std::string, std::string> GameCatalog::ParseCanonical(const std::string& canonical) {
  std::map<std::string, std::string> out;
  for (absl::string_view part : absl::StrSplit(canonical, ',', absl::SkipEmpty())) {
    std::pair<std::string, std::string> kv = absl::StrSplit(part, absl::MaxSplits('=', 1));
    out[kv.first] = kv.second;
  }
  return out;
}

absl::StatusOr<GameCatalog::Validated> GameCatalog::Validate(
    const std::string& game_name, const std::map<std::string, std::string>& options,
    const std::vector<int>& player_counts) const {
  if (game_name.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("game is required; one of: ", KnownGames(*registry_)));
  }
  absl::StatusOr<const engine::Game*> found = absl::NotFoundError("name too long");
  if (game_name.size() <= kMaxNameBytes) found = registry_->Find(game_name);
  if (!found.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("game: unknown game \"", Echo(game_name),
                                                   "\"; one of: ", KnownGames(*registry_)));
  }
  for (const auto& [name, value] : options) {
    if (name.size() > kMaxNameBytes || value.size() > kMaxNameBytes) {
      return absl::InvalidArgumentError(absl::StrCat("options: \"", Echo(name), "\" = \"",
                                                     Echo(value), "\" is too long (at most ",
                                                     kMaxNameBytes, " bytes each)"));
    }
  }
  const engine::Game& game = **found;
  const engine::GameInfo& info = game.info();
  if (player_counts.size() > kMaxRequestedCounts) {
    return absl::InvalidArgumentError(
        absl::StrCat("player_counts: at most ", kMaxRequestedCounts, " entries"));
  }
  std::set<int> counts(player_counts.begin(), player_counts.end());
  if (counts.empty()) counts.insert(info.min_players);
  Validated out;
  for (int count : counts) {
    if (count < info.min_players || count > info.max_players) {
      return absl::InvalidArgumentError(absl::StrCat("player_counts: ", game_name, " is played by ",
                                                     info.min_players, " to ", info.max_players,
                                                     " players; ", count, " is not allowed"));
    }
    absl::StatusOr<engine::Options> parsed = game.ParseOptions(options, count);
    if (!parsed.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("options (with ", count, " players): ", parsed.status().message()));
    }
    if (out.canonical_options.empty()) {
      std::vector<std::string> parts;
      for (const engine::OptionSpec& spec : info.options) {
        const std::string value = engine::FormatOptionValue(spec, parsed->Get(spec.name));
        out.options[spec.name] = value;
      }
      for (const auto& [name, value] : out.options) parts.push_back(absl::StrCat(name, "=", value));
      // A game without options still needs a non-empty pool key.
      out.canonical_options = parts.empty() ? std::string(1, '-') : absl::StrJoin(parts, ",");
    }
    absl::StatusOr<std::vector<int>> teams = SeatTeams(game_name, out.canonical_options, count);
    if (!teams.ok()) return teams.status();
    out.seat_teams[count] = *std::move(teams);
    out.player_counts.push_back(count);
  }
  return out;
}

absl::StatusOr<std::map<int, std::vector<int>>> GameCatalog::SeatTeamsForPool(
    const std::string& game_name, const std::string& canonical_options) const {
  absl::StatusOr<const engine::Game*> found = registry_->Find(game_name);
  if (!found.ok()) return absl::FailedPreconditionError("game no longer registered");
  std::map<int, std::vector<int>> out;
  for (int n = (*found)->info().min_players; n <= (*found)->info().max_players; ++n) {
    absl::StatusOr<std::vector<int>> teams = SeatTeams(game_name, canonical_options, n);
    if (teams.ok()) out[n] = *std::move(teams);
  }
  return out;
}

absl::StatusOr<std::vector<int>> GameCatalog::SeatTeams(const std::string& game_name,
                                                        const std::string& canonical_options,
                                                        int players) const {
  const auto key = std::make_tuple(game_name, canonical_options, players);
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = teams_cache_.find(key);
    if (it != teams_cache_.end()) return it->second;
  }
  absl::StatusOr<const engine::Game*> found = registry_->Find(game_name);
  if (!found.ok()) return found.status();
  const engine::Game& game = **found;
  std::map<std::string, std::string> raw;
  if (canonical_options != "-") raw = ParseCanonical(canonical_options);
  absl::StatusOr<engine::Options> options = game.ParseOptions(raw, players);
  if (!options.ok()) return options.status();
  std::vector<int> teams(static_cast<size_t>(players));
  if (game.info().has_teams) {
    // The teams follow from the options; a throwaway state tells them.
    absl::StatusOr<std::unique_ptr<engine::State>> state =
        game.NewGame(players, *options, engine::Seed::FromUint64(0));
    if (!state.ok()) return state.status();
    for (int seat = 0; seat < players; ++seat)
      teams[static_cast<size_t>(seat)] = (*state)->TeamOf(seat);
  } else {
    for (int seat = 0; seat < players; ++seat) teams[static_cast<size_t>(seat)] = seat;
  }
  std::lock_guard<std::mutex> lock(mu_);
  teams_cache_[key] = teams;
  return teams;
}

}  // namespace parlor::matchmaking
