// Arbitrary bytes → a game's stored record (engine GameRecord) → Game::Deserialize and
// Game::Replay. Either the record is refused with a status, or the state it yields satisfies
// every invariant of the engine contract (fuzz_support.h) and takes a legal move of each acting
// seat. Built once per game (PARLOR_FUZZ_GAME); the record's game name is set to that game so
// mutations are not spent on it.
//
// A custom mutator sends half of the mutations into the game's own snapshot (the Any inside the
// record) and the record's bookkeeping fields, keeping the outer record well formed: that is
// where a game's LoadImpl must catch damage, and plain byte mutations of the outer message
// rarely get that far.
#include <cstddef>
#include <cstdint>
#include <cstring>
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

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  parlor::engine::v1::GameRecord record;
  if (seed % 2 == 0 || !record.ParseFromArray(data, static_cast<int>(size)) ||
      !record.has_state()) {
    return LLVMFuzzerMutate(data, size, max_size);
  }
  switch (seed / 2 % 8) {
    case 0:
      record.set_ended_by_forfeit(!record.ended_by_forfeit());
      break;
    case 1:
      record.set_rng_draws(record.rng_draws() + (seed >> 8) % 5 - 2);
      break;
    case 2:
      if (record.log_size() > 1) record.mutable_log()->RemoveLast();
      break;
    default: {
      std::string inner = record.state().value();
      const size_t used = inner.size();
      inner.resize(used + 64);
      inner.resize(LLVMFuzzerMutate(reinterpret_cast<uint8_t*>(inner.data()), used, inner.size()));
      record.mutable_state()->set_value(inner);
    }
  }
  const std::string out = record.SerializeAsString();
  if (out.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, out.data(), out.size());
  return out.size();
}

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
