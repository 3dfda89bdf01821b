#include "fuzz/fuzz_support.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "engine/core/registry.h"
#include "engine/games/all_games.h"
#include "google/protobuf/stubs/logging.h"

namespace parlor::fuzz {
namespace {

// Parsing fuzzed bytes makes protobuf log every invalid UTF-8 string field; the parse result
// is what the targets check, and the noise would bury a real report.
[[maybe_unused]] const bool kProtobufQuiet = [] {
  google::protobuf::SetLogHandler(nullptr);
  return true;
}();

}  // namespace

void Fail(const char* file, int line, const std::string& what) {
  std::fprintf(stderr, "\nFUZZ INVARIANT BROKEN at %s:%d: %s\n", file, line, what.c_str());
  std::abort();
}

const engine::Game& GameNamed(absl::string_view name) {
  static const engine::Registry* const registry = new engine::Registry(engine::AllGames());
  absl::StatusOr<const engine::Game*> game = registry->Find(name);
  PARLOR_FUZZ_CHECK(game.ok(), std::string(game.status().message()));
  return **game;
}

namespace {

void CheckView(const engine::State& state, const engine::Viewer& viewer) {
  std::unique_ptr<google::protobuf::Message> view = state.View(viewer);
  PARLOR_FUZZ_CHECK(view != nullptr, "View returned null");
  PARLOR_FUZZ_CHECK(view->GetDescriptor() == state.game().ViewDescriptor(),
                    absl::StrCat("View is a ", view->GetDescriptor()->full_name()));
  PARLOR_FUZZ_CHECK(view->IsInitialized(), "View is missing required fields");
}

void CheckLegalActions(const engine::State& state, int seat, bool acting) {
  const engine::Game& game = state.game();
  const std::vector<engine::Action> legal = state.LegalActions(seat);
  const std::string at = absl::StrCat(" (seat ", seat, ")");
  if (!acting) {
    PARLOR_FUZZ_CHECK(legal.empty(), "a seat that may not act has legal actions" + at);
    return;
  }
  PARLOR_FUZZ_CHECK(!legal.empty(), "an acting seat has no legal action" + at);
  PARLOR_FUZZ_CHECK(
      std::adjacent_find(legal.begin(), legal.end(),
                         [](engine::Action a, engine::Action b) { return a >= b; }) == legal.end(),
      "legal actions are not sorted and unique" + at);
  for (engine::Action action : legal) {
    const std::string which = absl::StrCat(" (seat ", seat, ", action ", action, ")");
    absl::Status check = state.CheckAction(seat, action);
    PARLOR_FUZZ_CHECK(check.ok(), "CheckAction refuses a legal action" + which + ": " +
                                      std::string(check.message()));
    PARLOR_FUZZ_CHECK(!state.ActionToString(seat, action).empty(),
                      "a legal action has no text" + which);
    std::unique_ptr<google::protobuf::Message> proto = game.ActionToProto(action);
    PARLOR_FUZZ_CHECK(proto != nullptr && proto->GetDescriptor() == game.ActionDescriptor(),
                      "ActionToProto gives no Action of the game" + which);
    absl::StatusOr<engine::Action> back = game.ActionFromProto(*proto);
    PARLOR_FUZZ_CHECK(back.ok() && *back == action,
                      "a legal action does not round-trip through its proto" + which);
    const int kind = state.ActionKind(action);
    PARLOR_FUZZ_CHECK(kind >= 0 && kind < static_cast<int>(game.info().action_kinds.size()),
                      "ActionKind out of range" + which);
  }
}

}  // namespace

void CheckState(const engine::State& state) {
  const engine::Game& game = state.game();
  const int n = state.num_players();
  const engine::SeatSet acting = state.ActingSeats();
  PARLOR_FUZZ_CHECK(acting.empty() == state.IsTerminal(), "acting seats empty iff terminal");
  PARLOR_FUZZ_CHECK(acting.bits() >> n == 0, "a seat beyond the table may act");
  for (int seat = 0; seat < n; ++seat) {
    CheckLegalActions(state, seat, acting.Contains(seat));
    const int team = state.TeamOf(seat);
    PARLOR_FUZZ_CHECK(team >= 0 && team < 32, absl::StrCat("TeamOf(", seat, ") = ", team));
    CheckView(state, engine::Viewer::Seat(seat));
  }
  for (int seat : {-1, n, n + 7}) {
    PARLOR_FUZZ_CHECK(state.LegalActions(seat).empty(), "a seat off the table has legal actions");
    PARLOR_FUZZ_CHECK(!state.CheckAction(seat, 0).ok(), "a seat off the table may act");
  }
  CheckView(state, engine::Viewer::Spectator());
  CheckView(state, engine::Viewer::All());
  PARLOR_FUZZ_CHECK(static_cast<int>(state.Scores().size()) == n, "one score per seat");
  (void)state.NumSides();
  for (int seat = 0; seat < n; ++seat) (void)state.Heuristic(seat);

  if (state.IsTerminal()) {
    const engine::Outcome outcome = state.GetOutcome();
    PARLOR_FUZZ_CHECK(static_cast<int>(outcome.ranks.size()) == n, "one rank per seat");
    PARLOR_FUZZ_CHECK(static_cast<int>(outcome.scores.size()) == n, "one final score per seat");
    for (int rank : outcome.ranks) {
      PARLOR_FUZZ_CHECK(rank >= 1 && rank <= n, absl::StrCat("rank ", rank, " out of 1..", n));
    }
    PARLOR_FUZZ_CHECK(!outcome.reason.empty(), "a finished game has no end reason");
  }

  const std::string bytes = state.SerializeToString();
  PARLOR_FUZZ_CHECK(state.Clone()->SerializeToString() == bytes, "a clone differs");
  absl::StatusOr<std::unique_ptr<engine::State>> reloaded = game.Deserialize(state.Serialize());
  PARLOR_FUZZ_CHECK(reloaded.ok(), "a serialized state does not deserialize: " +
                                       std::string(reloaded.status().message()));
  PARLOR_FUZZ_CHECK((*reloaded)->SerializeToString() == bytes,
                    "serialize → deserialize → serialize differs");
}

void CheckUnchanged(const std::string& before, const engine::State& state, const char* what) {
  PARLOR_FUZZ_CHECK(state.SerializeToString() == before,
                    absl::StrCat(what, " was refused but changed the state"));
}

void CheckNoLeak(const engine::State& state, uint64_t rng_seed) {
  engine::Rng rng(rng_seed);
  for (int seat = 0; seat < state.num_players(); ++seat) {
    std::unique_ptr<engine::State> other = state.ResampleHidden(seat, rng);
    const std::string at = absl::StrCat(" (seat ", seat, ")");
    PARLOR_FUZZ_CHECK(other->View(engine::Viewer::Seat(seat))->SerializeAsString() ==
                          state.View(engine::Viewer::Seat(seat))->SerializeAsString(),
                      "redrawing hidden information changes the seat's own view" + at);
    PARLOR_FUZZ_CHECK(other->View(engine::Viewer::Spectator())->SerializeAsString() ==
                          state.View(engine::Viewer::Spectator())->SerializeAsString(),
                      "redrawing hidden information changes the spectator view" + at);
    PARLOR_FUZZ_CHECK(other->LegalActions(seat) == state.LegalActions(seat),
                      "redrawing hidden information changes the seat's legal actions" + at);
  }
}

}  // namespace parlor::fuzz
