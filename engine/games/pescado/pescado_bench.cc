// Pescado speed: random playouts (applied actions per second, the figure with a target of
// 300,000/s on one core), LegalActions + Apply per position, CheckAction, and Clone.
#include <bit>
#include <memory>
#include <vector>

#include "benchmark/benchmark.h"
#include "engine/core/rng.h"
#include "engine/games/pescado/pescado.h"

namespace parlor::games::pescado {
namespace {

const PescadoGame& Game() {
  static const PescadoGame* game = new PescadoGame();
  return *game;
}

std::unique_ptr<engine::State> NewState(int players, bool snatching, uint64_t seed) {
  return *Game().NewGame(players, engine::Options({{"snatching", snatching ? 1 : 0}}),
                         engine::Seed::FromUint64(seed));
}

// One uniformly random legal action of a random acting seat; returns false at the end.
bool RandomStep(engine::State& state, engine::Rng& rng, std::vector<engine::Action>& legal) {
  if (state.IsTerminal()) return false;
  const engine::SeatSet acting = state.ActingSeats();
  int seat = std::countr_zero(acting.bits());
  if (acting.size() > 1) {
    const std::vector<int> seats = acting.ToVector();
    seat = seats[rng.Uniform(seats.size())];
  }
  legal = state.LegalActions(seat);
  const engine::Action action = legal[rng.Uniform(legal.size())];
  return state.Apply(seat, action).ok();
}

// Whole random games: LegalActions, a uniform pick and Apply (with its validation and log) per
// action. items_per_second is applied actions per second.
void BM_RandomPlayout(benchmark::State& bench) {
  const int players = static_cast<int>(bench.range(0));
  const bool snatching = bench.range(1) != 0;
  engine::Rng rng(42);
  std::vector<engine::Action> legal;
  int64_t actions = 0, games = 0;
  uint64_t seed = 0;
  for (auto _ : bench) {
    std::unique_ptr<engine::State> state = NewState(players, snatching, ++seed);
    while (RandomStep(*state, rng, legal)) ++actions;
    ++games;
  }
  bench.SetItemsProcessed(actions);
  bench.counters["actions_per_game"] =
      benchmark::Counter(static_cast<double>(actions) / static_cast<double>(games));
  bench.counters["games_per_second"] =
      benchmark::Counter(static_cast<double>(games), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_RandomPlayout)->Args({2, 0})->Args({3, 0})->Args({4, 0})->Args({3, 1})->Args({4, 1});

// Positions of a few random games, for the per-position benchmarks.
std::vector<std::unique_ptr<engine::State>> SamplePositions(bool snatching) {
  std::vector<std::unique_ptr<engine::State>> positions;
  engine::Rng rng(7);
  std::vector<engine::Action> legal;
  for (uint64_t g = 0; g < 4; ++g) {
    std::unique_ptr<engine::State> state = NewState(3, snatching, 100 + g);
    do {
      if (rng.Uniform(8) == 0) positions.push_back(state->Clone());
    } while (RandomStep(*state, rng, legal) && positions.size() < 400);
  }
  return positions;
}

// LegalActions of the acting seat, then Apply of one of them to a copy: the cost a bot pays per
// move (the copy's cost is measured separately by BM_Clone and subtracted by the reader).
void BM_LegalActionsPlusApply(benchmark::State& bench) {
  const std::vector<std::unique_ptr<engine::State>> positions = SamplePositions(bench.range(0));
  engine::Rng rng(3);
  size_t i = 0;
  int64_t applied = 0;
  for (auto _ : bench) {
    const engine::State& position = *positions[i++ % positions.size()];
    if (position.IsTerminal()) continue;
    const int seat = std::countr_zero(position.ActingSeats().bits());
    const std::vector<engine::Action> legal = position.LegalActions(seat);
    std::unique_ptr<engine::State> copy = position.Clone();
    benchmark::DoNotOptimize(copy->Apply(seat, legal[rng.Uniform(legal.size())]));
    ++applied;
  }
  bench.SetItemsProcessed(applied);
}
BENCHMARK(BM_LegalActionsPlusApply)->Arg(0)->Arg(1);

void BM_LegalActions(benchmark::State& bench) {
  const std::vector<std::unique_ptr<engine::State>> positions = SamplePositions(false);
  size_t i = 0;
  int64_t listed = 0;
  for (auto _ : bench) {
    const engine::State& position = *positions[i++ % positions.size()];
    if (position.IsTerminal()) continue;
    const std::vector<engine::Action> legal =
        position.LegalActions(std::countr_zero(position.ActingSeats().bits()));
    listed += static_cast<int64_t>(legal.size());
    benchmark::DoNotOptimize(legal.data());
  }
  bench.SetItemsProcessed(listed);
}
BENCHMARK(BM_LegalActions);

void BM_Clone(benchmark::State& bench) {
  const std::vector<std::unique_ptr<engine::State>> positions = SamplePositions(false);
  size_t i = 0;
  for (auto _ : bench) {
    std::unique_ptr<engine::State> copy = positions[i++ % positions.size()]->Clone();
    benchmark::DoNotOptimize(copy.get());
  }
  bench.SetItemsProcessed(bench.iterations());
}
BENCHMARK(BM_Clone);

}  // namespace
}  // namespace parlor::games::pescado

BENCHMARK_MAIN();
