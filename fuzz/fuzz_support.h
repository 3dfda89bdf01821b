#ifndef PARLOR_FUZZ_FUZZ_SUPPORT_H_
#define PARLOR_FUZZ_FUZZ_SUPPORT_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "engine/core/game.h"
#include "engine/core/state.h"

namespace parlor::fuzz {

// A broken invariant: prints what and where, then aborts so libFuzzer records the input as a
// crash. (Unlike a returned Status, a fuzz target has nobody to report to.)
[[noreturn]] void Fail(const char* file, int line, const std::string& what);

#define PARLOR_FUZZ_CHECK(condition, what)                              \
  do {                                                                  \
    if (!(condition)) ::parlor::fuzz::Fail(__FILE__, __LINE__, (what)); \
  } while (false)

// The registered game named `name` (the process-wide registry of every game); aborts if unknown.
const engine::Game& GameNamed(absl::string_view name);

// Every invariant of the engine contract that can be checked on one state without changing it:
// acting seats vs terminal, legal actions sorted, unique, accepted by CheckAction, readable and
// round-tripping through the public Action proto; every view of the game's View type; clone and
// serialize → deserialize → serialize identical; the outcome of a finished game well formed.
void CheckState(const engine::State& state);

// A refused action or forfeit must leave the state exactly as it was.
void CheckUnchanged(const std::string& before, const engine::State& state, const char* what);

// No hidden-information leak: for each seat, redrawing everything it cannot see leaves its
// view, the spectator view and its legal actions unchanged.
void CheckNoLeak(const engine::State& state, uint64_t rng_seed);

}  // namespace parlor::fuzz

#endif  // PARLOR_FUZZ_FUZZ_SUPPORT_H_
