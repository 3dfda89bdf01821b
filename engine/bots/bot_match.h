#ifndef PARLOR_ENGINE_BOTS_BOT_MATCH_H_
#define PARLOR_ENGINE_BOTS_BOT_MATCH_H_

#include <cstdint>
#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "engine/bots/bot.h"
#include "engine/core/game.h"

namespace parlor::bots {

struct MatchSettings {
  int games = 200;
  uint64_t seed = 1;
  // 0: the game's minimum player count.
  int num_players = 0;
  // Option strings as a player would give them; missing options take their defaults.
  std::map<std::string, std::string> options = {};
};

struct MatchResult {
  int games = 0;
  int wins = 0;    // the strong bot finished strictly ahead of every weak seat
  int draws = 0;   // the strong bot shared first place with a weak seat
  int losses = 0;  // some weak seat finished strictly ahead of it
  // Mean over games of the share of weak seats the strong bot finished ahead of, ties counting
  // half: 1.0 always ahead, 0.5 no better than its opponents. In a two-player game this is
  // (wins + draws / 2) / games.
  double score = 0.0;
  // The sample variance of the games' scores (for an interval around `score`).
  double score_variance = 0.0;
};

// Plays `settings.games` seeded games of `game`: the strong bot takes one seat (rotating through
// the seats from game to game, so no seat advantage helps it) and the weak bot all the others
// (team-mates of the strong seat play strong too). Game i uses seed Seed::FromUint64(seed * 1000003
// + i), so results are reproducible.
absl::StatusOr<MatchResult> PlayMatch(const engine::Game& game, Bot& strong, Bot& weak,
                                      const MatchSettings& settings = {});

// The strong bot's MatchResult::score over `games` games (see PlayMatch); the shared helper for
// each game's "<game>_bots_test.cc". Errors are reported as a score of -1 so a test fails loudly.
double WinRate(const engine::Game& game, Bot& strong, Bot& weak, int games = 200,
               uint64_t seed = 1);

}  // namespace parlor::bots

#endif  // PARLOR_ENGINE_BOTS_BOT_MATCH_H_
