// Arbitrary bytes → a game's stored record (engine GameRecord) → Game::Deserialize and
// Game::Replay. Either the record is refused with a status, or the state it yields satisfies
// every invariant of the engine contract (fuzz_support.h) and takes a legal move of each acting
// seat. Built once per game (PARLOR_FUZZ_GAME); the record's game name is set to that game so
// mutations are not spent on it.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "fuzz/fuzz_support.h"
#include "parlor/engine/v1/record.pb.h"

namespace parlor::fuzz {
namespace {

void CheckLoaded(const engine::State& state) {
  CheckState(state);
  CheckNoLeak(state, /*rng_seed=*/state.rng_draws());
  for (int seat : state.ActingSeats().ToVector()) {
    std::unique_ptr<engine::State> next = state.Clone();
    const std::vector<engine::Action> legal = next->LegalActions(seat);
    absl::Status applied = next->Apply(seat, legal.back());
    PARLOR_FUZZ_CHECK(applied.ok(),
                      "a legal action of a loaded state fails: " + std::string(applied.message()));
    CheckState(*next);
  }
}

}  // namespace
}  // namespace parlor::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace parlor;
  const engine::Game& game = fuzz::GameNamed(PARLOR_FUZZ_GAME);
  engine::v1::GameRecord record;
  if (!record.ParseFromArray(data, static_cast<int>(size))) return -1;  // not worth keeping
  record.set_game(game.name());

  absl::StatusOr<std::unique_ptr<engine::State>> loaded = game.Deserialize(record);
  if (loaded.ok()) {
    fuzz::CheckLoaded(**loaded);
  } else {
    PARLOR_FUZZ_CHECK(loaded.status().code() == absl::StatusCode::kInvalidArgument,
                      "Deserialize refused with " + loaded.status().ToString());
  }
  for (bool check_seed : {false, true}) {
    absl::StatusOr<std::unique_ptr<engine::State>> replayed = game.Replay(record, check_seed);
    if (replayed.ok()) {
      fuzz::CheckState(**replayed);
    } else {
      const absl::StatusCode code = replayed.status().code();
      PARLOR_FUZZ_CHECK(
          code == absl::StatusCode::kInvalidArgument || code == absl::StatusCode::kDataLoss,
          "Replay refused with " + replayed.status().ToString());
    }
  }
  return 0;
}
