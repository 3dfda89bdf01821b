// KA'DICE! speed: random playouts (applied actions per second), LegalActions + Apply, Clone.
// Target: at least 200,000 applied actions per second on one core.
#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

#include "engine/core/rng.h"
#include "engine/games/kadice/kadice.h"

namespace parlor::games::kadice {
namespace {

std::unique_ptr<engine::State> NewGame(const KadiceGame& game, int players, uint64_t seed) {
  return *game.NewGame(players, *game.ParseOptions({}, players), engine::Seed::FromUint64(seed));
}

// Whole games with uniformly random legal actions (these run to the round limit).
void BM_RandomPlayout(benchmark::State& bench) {
  const KadiceGame game;
  const int players = static_cast<int>(bench.range(0));
  engine::Rng rng(1);
  uint64_t seed = 0;
  int64_t actions = 0;
  std::vector<engine::Action> legal;
  for (auto _ : bench) {
    std::unique_ptr<engine::State> state = NewGame(game, players, ++seed);
    while (!state->IsTerminal()) {
      const int seat = state->ActingSeats().ToVector()[0];
      legal = state->LegalActions(seat);
      if (!state->Apply(seat, legal[rng.Uniform(legal.size())]).ok()) bench.SkipWithError("apply");
      ++actions;
    }
  }
  bench.SetItemsProcessed(actions);
  bench.counters["actions_per_second"] =
      benchmark::Counter(static_cast<double>(actions), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_RandomPlayout)->Arg(2)->Arg(4)->Unit(benchmark::kMillisecond);

// Whole games where the kind of action is picked first (these usually end by elimination).
void BM_KindFirstPlayout(benchmark::State& bench) {
  const KadiceGame game;
  const int players = static_cast<int>(bench.range(0));
  engine::Rng rng(2);
  uint64_t seed = 0;
  int64_t actions = 0;
  std::vector<engine::Action> legal, of_kind;
  for (auto _ : bench) {
    std::unique_ptr<engine::State> state = NewGame(game, players, ++seed);
    while (!state->IsTerminal()) {
      const int seat = state->ActingSeats().ToVector()[0];
      legal = state->LegalActions(seat);
      const int kind = state->ActionKind(legal[rng.Uniform(legal.size())]);
      of_kind.clear();
      for (engine::Action a : legal) {
        if (state->ActionKind(a) == kind) of_kind.push_back(a);
      }
      if (!state->Apply(seat, of_kind[rng.Uniform(of_kind.size())]).ok()) {
        bench.SkipWithError("apply");
      }
      ++actions;
    }
  }
  bench.SetItemsProcessed(actions);
  bench.counters["actions_per_second"] =
      benchmark::Counter(static_cast<double>(actions), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_KindFirstPlayout)->Arg(4)->Unit(benchmark::kMillisecond);

// One LegalActions + Apply step on a game in progress (restarted when it ends).
void BM_LegalActionsAndApply(benchmark::State& bench) {
  const KadiceGame game;
  engine::Rng rng(3);
  uint64_t seed = 100;
  std::unique_ptr<engine::State> state = NewGame(game, 4, seed);
  for (auto _ : bench) {
    if (state->IsTerminal()) {
      bench.PauseTiming();
      state = NewGame(game, 4, ++seed);
      bench.ResumeTiming();
    }
    const int seat = state->ActingSeats().ToVector()[0];
    const std::vector<engine::Action> legal = state->LegalActions(seat);
    benchmark::DoNotOptimize(state->Apply(seat, legal[rng.Uniform(legal.size())]));
  }
  bench.SetItemsProcessed(bench.iterations());
}
BENCHMARK(BM_LegalActionsAndApply);

// Copying a game in progress (what bots do for every action they explore).
void BM_Clone(benchmark::State& bench) {
  const KadiceGame game;
  std::unique_ptr<engine::State> state = NewGame(game, 4, 7);
  engine::Rng rng(4);
  for (int i = 0; i < 200 && !state->IsTerminal(); ++i) {
    const int seat = state->ActingSeats().ToVector()[0];
    const std::vector<engine::Action> legal = state->LegalActions(seat);
    (void)state->Apply(seat, legal[rng.Uniform(legal.size())]);
  }
  for (auto _ : bench) benchmark::DoNotOptimize(state->Clone());
  bench.SetItemsProcessed(bench.iterations());
}
BENCHMARK(BM_Clone);

}  // namespace
}  // namespace parlor::games::kadice

BENCHMARK_MAIN();
