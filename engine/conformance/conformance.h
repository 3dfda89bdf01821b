#ifndef PARLOR_ENGINE_CONFORMANCE_CONFORMANCE_H_
#define PARLOR_ENGINE_CONFORMANCE_CONFORMANCE_H_

#include <cstdint>
#include <string>

#include "engine/core/game.h"

namespace parlor::conformance {

struct ConformanceOptions {
  // Seeded playouts to run (scaled by the environment variable PARLOR_CONFORMANCE_SCALE, e.g.
  // 0.1 under sanitizers; at least one playout always runs).
  int playouts = 1000;
  uint64_t seed = 1;
  // Share of playouts with a forfeit at a random point.
  double forfeit_share = 0.15;
  // Share of playouts with random (valid) option values and player counts; the rest use the
  // defaults with a random player count.
  double random_options_share = 0.5;
  // At most this many legal actions per acting seat are applied to clones at each step.
  int max_applied_per_seat = 12;
  // At most this many failing playouts are reported before the run stops.
  int max_failures = 3;
  // Every position gets the cheap checks (acting seats, legal lists sorted, the played action
  // accepted). The full checks (every legal and many illegal actions, round trip, views,
  // resampling) run at the first `full_check_positions` positions of a playout, at the end, after
  // a forfeit, and afterwards at position s with probability full_check_positions / (s + 1).
  // Their cost grows with the log, so this keeps a long game's playout linear in its length
  // while short games (Pico) are checked almost everywhere.
  int full_check_positions = 12;
  // Print the figures to stdout at the end of the run.
  bool print_figures = true;
};

// What a run covered; the figures quoted in the project notes.
struct ConformanceFigures {
  int64_t playouts = 0;
  int64_t forfeit_playouts = 0;
  int64_t steps = 0;                    // positions checked (every position of every playout)
  int64_t full_steps = 0;               // positions that got the full checks
  int64_t moves_played = 0;             // actions and forfeits played by the playouts
  int64_t legal_actions_checked = 0;    // CheckAction, ActionToString, proto round trip
  int64_t legal_actions_applied = 0;    // applied to a clone
  int64_t illegal_actions_checked = 0;  // mutated, random, wrong seat: refused, state unchanged
  int64_t views_checked = 0;            // views parsed and compared against resampled states
  int64_t messages_checked = 0;         // Action messages checked against their codes (precedence)
  int64_t round_trips = 0;              // serialize -> deserialize -> serialize
  int64_t replays = 0;                  // Replay(record, check_seed = true)
  int64_t failures = 0;
};

// Runs the conformance checks over seeded random playouts of `game`, reporting every failure as a
// GoogleTest failure (ADD_FAILURE) that names the game, the playout's seed and the step. Call it
// from a game's own test: TEST(PicoConformance, Passes) { RunConformance(game, {.playouts = 2000});
// }
//
// Per playout: NewGame is deterministic (the same seed gives identical bytes). Per position (the
// full checks, see full_check_positions): ActingSeats() is empty iff terminal; every acting seat
// has legal actions, sorted and unique, and non-acting seats have none; CheckAction agrees with
// LegalActions for legal, mutated (±1, bit flips), random and wrong-seat codes, and refused actions
// leave the serialized state identical; ActionToString and the Action proto round trip work for
// every legal action; legal actions apply on clones and leave the original untouched; serialize ->
// deserialize -> serialize is identical; every seat's view, the spectator view and the reveal-all
// view parse as the game's View type; for each seat i, ResampleHidden(i) gives identical views for
// i and for spectators and identical legal actions for i; in a game that declares its choices
// public (GameInfo::choices_public), two applied legal actions of a seat that leave another seat's
// or a spectator's view the same leave the reveal-all view the same (every third seat checked).
// Per playout: the game ends within
// MaxMoves; Replay(record, check_seed = true) reproduces the state bit for bit (also from a
// position in the middle); the outcome is consistent (sides ranked with standard competition
// ranking, every seat taking its side's rank: 1, 1, 2, 2 when one of two teams wins; scores sized
// N); forfeits end two-sided games with the forfeiter's side last and rank forfeiters last in
// larger games. The precedence of refusals (engine/GAMES.md): every seat, at every fully checked
// position, sends well-formed Action messages (codes legal earlier in the playout) that must get
// exactly the answer CheckAction gives their codes, and malformed ones (fields spoiled, nothing
// set, another type, unparseable bytes) that must get the game-over or not-your-turn refusal when
// the game is over or the seat may not act, INVALID_ARGUMENT otherwise. Every view (seats,
// spectator, reveal-all) carries game_over, ranks, end_reason and forfeited_seats that agree with
// the state and its outcome at every fully checked position (including after every forfeit and
// at the end), and a phase ..._OVER and per-player rank / forfeited fields where the View has them.
ConformanceFigures RunConformance(const engine::Game& game, const ConformanceOptions& opts = {});

// The figures as one line, e.g. "pico: 2000 playouts (300 with a forfeit), 41234 positions, ...".
std::string FormatFigures(const engine::Game& game, const ConformanceFigures& figures);

}  // namespace parlor::conformance

#endif  // PARLOR_ENGINE_CONFORMANCE_CONFORMANCE_H_
