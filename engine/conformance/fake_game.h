#ifndef PARLOR_ENGINE_CONFORMANCE_FAKE_GAME_H_
#define PARLOR_ENGINE_CONFORMANCE_FAKE_GAME_H_

// "Tally", a tiny game for testing the engine core and the conformance suite itself (never
// registered in AllGames()). 2 to 4 players take turns adding to a shared counter: action 1 adds
// 1, action 2 adds 2, action 3 rolls a three-sided die and adds the roll. Each seat also draws a
// secret bonus 0..9 at setup that only it can see. When the counter reaches the target (option
// "target", default 12) the game ends; a seat's score is what it added plus its bonus, and the
// higher score ranks first. Option "teams" (4 players only): seats 0 and 2 play against 1 and 3,
// and a team's score is the sum of its seats'. Every choice is in plain sight (choices_public).
//
// A FakeGame can be built with one deliberate bug, so the tests can show that the conformance
// suite catches each kind of mistake.

#include <memory>

#include "engine/core/game.h"
#include "engine/core/state.h"

namespace parlor::conformance {

enum class FakeBug {
  kNone,
  kLeakyView,            // a seat's view shows the others' secret bonuses
  kUnsortedLegal,        // legal actions listed 2, 1, 3
  kLenientCheck,         // CheckAction also accepts action 4, which LegalActions omits
  kRefusalChangesState,  // a refused action bumps a counter that is serialized
  kBoundTooSmall,        // MaxMoves is smaller than a game can take
  kBadRanks,             // views show the game's own ranks, not the outcome's (forfeits ignored)
  kLossySnapshot,        // the snapshot forgets whose turn it is
  kUnrecordedChance,     // a roll that is not drawn through Chance (replay diverges)
  kShapeAfterState,      // a code above 4 is malformed only while the counter is even
  kHiddenChoice,         // declared choices_public, but other seats' views hide what a seat added
};

std::unique_ptr<engine::Game> MakeFakeGame(FakeBug bug = FakeBug::kNone);

}  // namespace parlor::conformance

#endif  // PARLOR_ENGINE_CONFORMANCE_FAKE_GAME_H_
