// How fast the server describes a move to the other seats (DescribeMove), which it does for every
// "your turn" notification of every move and for each entry of a game's history: for every
// registered game, every move of one random game, described to each seat that did not make it.
// Reported as descriptions_per_second.

#include <memory>
#include <vector>

#include "benchmark/benchmark.h"
#include "engine/bots/bot.h"
#include "engine/games/all_games.h"
#include "services/sessions/domain/engine_glue.h"

namespace parlor::sessions {
namespace {

struct PlayedGame {
  std::vector<std::unique_ptr<engine::State>> states;  // before each move, and the last one
  engine::v1::GameRecord record;
};

PlayedGame PlayRandom(const engine::Game& game, uint64_t seed) {
  PlayedGame played;
  const int players = game.info().min_players;
  std::unique_ptr<engine::State> state =
      *game.NewGame(players, *game.ParseOptions({}, players), engine::Seed::FromUint64(seed));
  engine::Rng rng(seed);
  played.states.push_back(state->Clone());
  while (!state->IsTerminal()) {
    const std::vector<int> acting = state->ActingSeats().ToVector();
    const int seat = acting[rng.Uniform(acting.size())];
    (void)state->Apply(seat, *bots::RandomLegalAction(*state, seat, rng));
    played.states.push_back(state->Clone());
  }
  played.record = state->Serialize();
  return played;
}

void DescribeToOtherSeats(benchmark::State& bench, const engine::Game* game) {
  const PlayedGame played = PlayRandom(*game, 11);
  int64_t descriptions = 0;
  while (bench.KeepRunning()) {
    for (size_t v = 1; v < played.states.size(); ++v) {
      const engine::v1::LogEntry& entry = played.record.log(static_cast<int>(v));
      const engine::State& before = *played.states[v - 1];
      for (int viewer = 0; viewer < before.num_players(); ++viewer) {
        if (viewer == entry.seat()) continue;
        benchmark::DoNotOptimize(DescribeMove(before, entry, engine::Viewer::Seat(viewer)));
        ++descriptions;
      }
    }
  }
  bench.counters["descriptions_per_second"] =
      benchmark::Counter(static_cast<double>(descriptions), benchmark::Counter::kIsRate);
}

const int kRegistered = [] {
  static const engine::Registry registry = engine::AllGames();
  for (const engine::Game* game : registry.games()) {
    benchmark::RegisterBenchmark(("DescribeToOtherSeats/" + game->name()).c_str(),
                                 DescribeToOtherSeats, game);
  }
  return 0;
}();

}  // namespace
}  // namespace parlor::sessions

BENCHMARK_MAIN();
