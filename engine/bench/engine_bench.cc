// Speed of every registered game (engine::AllGames()), with default options and the minimum
// player count: whole random playouts, LegalActions + Apply of one action, Clone, and
// SerializeToString. The applied-actions rate is reported as the counter actions_per_second.

#include <bit>
#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "engine/core/game.h"
#include "engine/core/rng.h"
#include "engine/games/all_games.h"

namespace parlor::engine {
namespace {

std::unique_ptr<State> NewState(const Game& game, uint64_t seed) {
  const int players = game.info().min_players;
  return *game.NewGame(players, *game.ParseOptions({}, players), Seed::FromUint64(seed));
}

// One random legal move of a random acting seat.
void RandomMove(State& state, Rng& rng, std::vector<Action>& legal) {
  const SeatSet acting = state.ActingSeats();
  uint32_t bits = acting.bits();
  for (uint64_t k = rng.Uniform(static_cast<uint64_t>(acting.size())); k > 0; --k) bits &= bits - 1;
  const int seat = std::countr_zero(bits);
  legal = state.LegalActions(seat);
  benchmark::DoNotOptimize(state.Apply(seat, legal[rng.Uniform(legal.size())]));
}

// A state part-way through a game (half the moves of one random game), for Clone and Serialize.
std::unique_ptr<State> MidGame(const Game& game) {
  Rng rng(7);
  std::vector<Action> legal;
  std::unique_ptr<State> probe = NewState(game, 7);
  while (!probe->IsTerminal()) RandomMove(*probe, rng, legal);
  const int64_t half = probe->NumMoves() / 2;
  std::unique_ptr<State> state = NewState(game, 7);
  Rng replay(7);
  while (state->NumMoves() < half) RandomMove(*state, replay, legal);
  return state;
}

void RandomPlayouts(benchmark::State& bench, const Game* game) {
  Rng rng(1);
  std::vector<Action> legal;
  int64_t actions = 0;
  uint64_t seed = 0;
  for (auto _ : bench) {
    std::unique_ptr<State> state = NewState(*game, ++seed);
    while (!state->IsTerminal()) {
      RandomMove(*state, rng, legal);
      ++actions;
    }
  }
  bench.SetItemsProcessed(bench.iterations());
  bench.counters["actions_per_second"] =
      benchmark::Counter(static_cast<double>(actions), benchmark::Counter::kIsRate);
}

void LegalActionsAndApply(benchmark::State& bench, const Game* game) {
  Rng rng(2);
  std::vector<Action> legal;
  uint64_t seed = 0;
  std::unique_ptr<State> state = NewState(*game, ++seed);
  for (auto _ : bench) {
    if (state->IsTerminal()) {
      bench.PauseTiming();
      state = NewState(*game, ++seed);
      bench.ResumeTiming();
    }
    RandomMove(*state, rng, legal);
  }
  bench.SetItemsProcessed(bench.iterations());
}

void Clone(benchmark::State& bench, const Game* game) {
  std::unique_ptr<State> state = MidGame(*game);
  for (auto _ : bench) benchmark::DoNotOptimize(state->Clone());
  bench.SetItemsProcessed(bench.iterations());
}

void Serialize(benchmark::State& bench, const Game* game) {
  std::unique_ptr<State> state = MidGame(*game);
  for (auto _ : bench) benchmark::DoNotOptimize(state->SerializeToString());
  bench.SetItemsProcessed(bench.iterations());
}

}  // namespace
}  // namespace parlor::engine

int main(int argc, char** argv) {
  static const parlor::engine::Registry registry = parlor::engine::AllGames();
  for (const parlor::engine::Game* game : registry.games()) {
    const std::string& name = game->name();
    benchmark::RegisterBenchmark(("RandomPlayout/" + name).c_str(), parlor::engine::RandomPlayouts,
                                 game);
    benchmark::RegisterBenchmark(("LegalActionsAndApply/" + name).c_str(),
                                 parlor::engine::LegalActionsAndApply, game);
    benchmark::RegisterBenchmark(("Clone/" + name).c_str(), parlor::engine::Clone, game);
    benchmark::RegisterBenchmark(("SerializeToString/" + name).c_str(), parlor::engine::Serialize,
                                 game);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
