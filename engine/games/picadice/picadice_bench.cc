// Picadice speed: random playouts per second, LegalActions + Apply, Clone.
// Target: >= 500,000 applied actions per second on one core.
#include <bit>
#include <memory>
#include <vector>

#include "benchmark/benchmark.h"
#include "engine/core/rng.h"
#include "engine/games/picadice/picadice.h"

namespace parlor::games::picadice {
namespace {

std::unique_ptr<engine::State> NewPicadice(const PicadiceGame& game, int players, uint64_t seed) {
  return *game.NewGame(players, *game.ParseOptions({}, players), engine::Seed::FromUint64(seed));
}

// Whole random games (uniform among legal actions); items = games, plus the applied-actions rate.
void BM_PicadiceRandomPlayout(benchmark::State& bench) {
  const int players = static_cast<int>(bench.range(0));
  PicadiceGame game;
  engine::Rng rng(1);
  std::vector<engine::Action> legal;
  int64_t actions = 0;
  uint64_t seed = 0;
  for (auto _ : bench) {
    std::unique_ptr<engine::State> state = NewPicadice(game, players, ++seed);
    while (!state->IsTerminal()) {
      const int seat = std::countr_zero(state->ActingSeats().bits());
      legal = state->LegalActions(seat);
      benchmark::DoNotOptimize(state->Apply(seat, legal[rng.Uniform(legal.size())]));
      ++actions;
    }
  }
  bench.SetItemsProcessed(bench.iterations());
  bench.counters["actions_per_second"] =
      benchmark::Counter(static_cast<double>(actions), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_PicadiceRandomPlayout)->Arg(2)->Arg(4);

// LegalActions + Apply of one action, on a game restarted (outside the timing) when it ends.
void BM_PicadiceLegalActionsAndApply(benchmark::State& bench) {
  PicadiceGame game;
  engine::Rng rng(2);
  uint64_t seed = 0;
  std::unique_ptr<engine::State> state = NewPicadice(game, 4, ++seed);
  for (auto _ : bench) {
    if (state->IsTerminal()) {
      bench.PauseTiming();
      state = NewPicadice(game, 4, ++seed);
      bench.ResumeTiming();
    }
    const int seat = std::countr_zero(state->ActingSeats().bits());
    const std::vector<engine::Action> legal = state->LegalActions(seat);
    benchmark::DoNotOptimize(state->Apply(seat, legal[rng.Uniform(legal.size())]));
  }
  bench.SetItemsProcessed(bench.iterations());
}
BENCHMARK(BM_PicadiceLegalActionsAndApply);

// Clone of a 4-player state 60 moves into the game (its log is part of the copy).
void BM_PicadiceClone(benchmark::State& bench) {
  PicadiceGame game;
  std::unique_ptr<engine::State> state = NewPicadice(game, 4, 3);
  engine::Rng rng(3);
  for (int i = 0; i < 60 && !state->IsTerminal(); ++i) {
    const int seat = std::countr_zero(state->ActingSeats().bits());
    const std::vector<engine::Action> legal = state->LegalActions(seat);
    (void)state->Apply(seat, legal[rng.Uniform(legal.size())]);
  }
  for (auto _ : bench) benchmark::DoNotOptimize(state->Clone());
  bench.SetItemsProcessed(bench.iterations());
}
BENCHMARK(BM_PicadiceClone);

}  // namespace
}  // namespace parlor::games::picadice

BENCHMARK_MAIN();
