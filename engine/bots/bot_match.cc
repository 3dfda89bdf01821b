#include "engine/bots/bot_match.h"

#include <vector>

#include "absl/strings/str_cat.h"

namespace parlor::bots {

absl::StatusOr<MatchResult> PlayMatch(const engine::Game& game, Bot& strong, Bot& weak,
                                      const MatchSettings& settings) {
  const int num_players = settings.num_players > 0 ? settings.num_players : game.info().min_players;
  absl::StatusOr<engine::Options> options = game.ParseOptions(settings.options, num_players);
  if (!options.ok()) return options.status();
  MatchResult result;
  double score_sum = 0.0;
  double score_squares = 0.0;
  for (int g = 0; g < settings.games; ++g) {
    const uint64_t game_seed = settings.seed * 1000003 + static_cast<uint64_t>(g);
    absl::StatusOr<std::unique_ptr<engine::State>> state =
        game.NewGame(num_players, *options, engine::Seed::FromUint64(game_seed));
    if (!state.ok()) return state.status();
    const int strong_seat = g % num_players;
    const int strong_team = (*state)->TeamOf(strong_seat);
    std::vector<Bot*> bots(num_players, &weak);
    for (int s = 0; s < num_players; ++s) {
      if ((*state)->TeamOf(s) == strong_team) bots[s] = &strong;
    }
    engine::Rng rng(game_seed ^ 0x5eedb075ULL);
    absl::StatusOr<std::unique_ptr<engine::State>> end = PlayGame(*std::move(state), bots, rng);
    if (!end.ok()) return end.status();
    const std::vector<int> ranks = (*end)->GetOutcome().ranks;
    int opponents = 0, ahead = 0, tied = 0;
    for (int s = 0; s < num_players; ++s) {
      if ((*end)->TeamOf(s) == strong_team) continue;
      ++opponents;
      if (ranks[strong_seat] < ranks[s]) ++ahead;
      if (ranks[strong_seat] == ranks[s]) ++tied;
    }
    const double score = opponents > 0 ? (ahead + 0.5 * tied) / opponents : 0.0;
    score_sum += score;
    score_squares += score * score;
    if (ahead == opponents) {
      ++result.wins;
    } else if (ranks[strong_seat] == 1) {
      ++result.draws;
    } else {
      ++result.losses;
    }
    ++result.games;
  }
  result.score = result.games > 0 ? score_sum / result.games : 0.0;
  if (result.games > 1) {
    result.score_variance =
        (score_squares - result.games * result.score * result.score) / (result.games - 1);
  }
  return result;
}

double WinRate(const engine::Game& game, Bot& strong, Bot& weak, int games, uint64_t seed) {
  MatchSettings settings;
  settings.games = games;
  settings.seed = seed;
  absl::StatusOr<MatchResult> result = PlayMatch(game, strong, weak, settings);
  return result.ok() ? result->score : -1.0;
}

}  // namespace parlor::bots
