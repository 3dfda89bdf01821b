// Pict speed: random playouts per second, LegalActions + Apply, Clone, Heuristic.
// Target: >= 200,000 applied actions per second on one core.

#include <bit>
#include <vector>

#include "benchmark/benchmark.h"
#include "engine/core/rng.h"
#include "engine/games/pict/pict.h"

namespace parlor::games::pict {
namespace {

// Both master-painter options on: the longest games, with brush steps and the opening fill.
std::unique_ptr<engine::State> NewPict(const PictGame& game, uint64_t seed, bool options) {
  return *game.NewGame(
      2, engine::Options({{"empty_palette_start", options}, {"paintbrushes", options}}),
      engine::Seed::FromUint64(seed));
}

int ActingSeat(const engine::State& state) { return std::countr_zero(state.ActingSeats().bits()); }

// Whole random games; items = games, and the applied-actions rate as a counter.
void BM_PictRandomPlayout(benchmark::State& bench) {
  PictGame game;
  const bool options = bench.range(0) != 0;
  engine::Rng rng(1);
  std::vector<engine::Action> legal;
  int64_t actions = 0;
  uint64_t seed = 0;
  for (auto _ : bench) {
    std::unique_ptr<engine::State> state = NewPict(game, ++seed, options);
    while (!state->IsTerminal()) {
      const int seat = ActingSeat(*state);
      legal = state->LegalActions(seat);
      benchmark::DoNotOptimize(state->Apply(seat, legal[rng.Uniform(legal.size())]));
      ++actions;
    }
  }
  bench.SetItemsProcessed(bench.iterations());
  bench.counters["actions_per_second"] =
      benchmark::Counter(static_cast<double>(actions), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_PictRandomPlayout)->ArgName("options")->Arg(0)->Arg(1);

// LegalActions + Apply of one action, on a game restarted (outside the timing) when it ends.
void BM_PictLegalActionsAndApply(benchmark::State& bench) {
  PictGame game;
  engine::Rng rng(2);
  uint64_t seed = 0;
  std::unique_ptr<engine::State> state = NewPict(game, ++seed, true);
  for (auto _ : bench) {
    if (state->IsTerminal()) {
      bench.PauseTiming();
      state = NewPict(game, ++seed, true);
      bench.ResumeTiming();
    }
    const int seat = ActingSeat(*state);
    const std::vector<engine::Action> legal = state->LegalActions(seat);
    benchmark::DoNotOptimize(state->Apply(seat, legal[rng.Uniform(legal.size())]));
  }
  bench.SetItemsProcessed(bench.iterations());
}
BENCHMARK(BM_PictLegalActionsAndApply);

// LegalActions alone at the start of the game (480 Paints).
void BM_PictLegalActionsFullPalette(benchmark::State& bench) {
  PictGame game;
  std::unique_ptr<engine::State> state = NewPict(game, 3, false);
  const int seat = ActingSeat(*state);
  for (auto _ : bench) benchmark::DoNotOptimize(state->LegalActions(seat));
  bench.SetItemsProcessed(bench.iterations());
}
BENCHMARK(BM_PictLegalActionsFullPalette);

// Clone of a state in the middle of a game (30 moves played).
void BM_PictClone(benchmark::State& bench) {
  PictGame game;
  std::unique_ptr<engine::State> state = NewPict(game, 3, true);
  engine::Rng rng(3);
  for (int i = 0; i < 30 && !state->IsTerminal(); ++i) {
    const int seat = ActingSeat(*state);
    const std::vector<engine::Action> legal = state->LegalActions(seat);
    (void)state->Apply(seat, legal[rng.Uniform(legal.size())]);
  }
  for (auto _ : bench) benchmark::DoNotOptimize(state->Clone());
  bench.SetItemsProcessed(bench.iterations());
}
BENCHMARK(BM_PictClone);

void BM_PictHeuristic(benchmark::State& bench) {
  PictGame game;
  std::unique_ptr<engine::State> state = NewPict(game, 4, false);
  engine::Rng rng(4);
  for (int i = 0; i < 10 && !state->IsTerminal(); ++i) {
    const int seat = ActingSeat(*state);
    const std::vector<engine::Action> legal = state->LegalActions(seat);
    (void)state->Apply(seat, legal[rng.Uniform(legal.size())]);
  }
  for (auto _ : bench) benchmark::DoNotOptimize(state->Heuristic(0));
  bench.SetItemsProcessed(bench.iterations());
}
BENCHMARK(BM_PictHeuristic);

}  // namespace
}  // namespace parlor::games::pict

BENCHMARK_MAIN();
