// Pico speed: random playouts per second, LegalActions + Apply, Clone.
// Target: >= 1,000,000 applied actions per second on one core; Clone under 1 µs.

#include <vector>

#include "benchmark/benchmark.h"
#include "engine/core/rng.h"
#include "engine/games/pico/pico.h"

namespace parlor::games::pico {
namespace {

std::unique_ptr<engine::State> NewPico(const PicoGame& game, uint64_t seed) {
  return *game.NewGame(2, engine::Options({{"rounds", 2}}), engine::Seed::FromUint64(seed));
}

// Whole random games; items = games, and the applied-actions rate as a counter.
void BM_PicoRandomPlayout(benchmark::State& bench) {
  PicoGame game;
  engine::Rng rng(1);
  std::vector<engine::Action> legal;
  int64_t actions = 0;
  uint64_t seed = 0;
  for (auto _ : bench) {
    std::unique_ptr<engine::State> state = NewPico(game, ++seed);
    while (!state->IsTerminal()) {
      const engine::SeatSet acting = state->ActingSeats();
      const int seat =
          acting.size() == 2 ? static_cast<int>(rng.Uniform(2)) : std::countr_zero(acting.bits());
      legal = state->LegalActions(seat);
      benchmark::DoNotOptimize(state->Apply(seat, legal[rng.Uniform(legal.size())]));
      ++actions;
    }
  }
  bench.SetItemsProcessed(bench.iterations());
  bench.counters["actions_per_second"] =
      benchmark::Counter(static_cast<double>(actions), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_PicoRandomPlayout);

// LegalActions + Apply of one action, on a game restarted (outside the timing) when it ends.
void BM_PicoLegalActionsAndApply(benchmark::State& bench) {
  PicoGame game;
  engine::Rng rng(2);
  uint64_t seed = 0;
  std::unique_ptr<engine::State> state = NewPico(game, ++seed);
  for (auto _ : bench) {
    if (state->IsTerminal()) {
      bench.PauseTiming();
      state = NewPico(game, ++seed);
      bench.ResumeTiming();
    }
    const engine::SeatSet acting = state->ActingSeats();
    const int seat = std::countr_zero(acting.bits());
    const std::vector<engine::Action> legal = state->LegalActions(seat);
    benchmark::DoNotOptimize(state->Apply(seat, legal[rng.Uniform(legal.size())]));
  }
  bench.SetItemsProcessed(bench.iterations());
}
BENCHMARK(BM_PicoLegalActionsAndApply);

// Clone of a state in the middle of round 1 (8 moves played).
void BM_PicoClone(benchmark::State& bench) {
  PicoGame game;
  std::unique_ptr<engine::State> state = NewPico(game, 3);
  engine::Rng rng(3);
  for (int i = 0; i < 8; ++i) {
    const int seat = std::countr_zero(state->ActingSeats().bits());
    const std::vector<engine::Action> legal = state->LegalActions(seat);
    (void)state->Apply(seat, legal[rng.Uniform(legal.size())]);
  }
  for (auto _ : bench) {
    benchmark::DoNotOptimize(state->Clone());
  }
  bench.SetItemsProcessed(bench.iterations());
}
BENCHMARK(BM_PicoClone);

void BM_PicoSerializeToString(benchmark::State& bench) {
  PicoGame game;
  std::unique_ptr<engine::State> state = NewPico(game, 4);
  for (auto _ : bench) benchmark::DoNotOptimize(state->SerializeToString());
}
BENCHMARK(BM_PicoSerializeToString);

}  // namespace
}  // namespace parlor::games::pico

BENCHMARK_MAIN();
