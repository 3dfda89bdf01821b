#ifndef PARLOR_ENGINE_BOTS_BOT_H_
#define PARLOR_ENGINE_BOTS_BOT_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "engine/core/game.h"
#include "engine/core/rng.h"
#include "engine/core/state.h"

namespace parlor::bots {

// A computer player. Bots are used by the demo, the load tool, "play against the computer", the
// timeout policy (a forfeited seat is played by the random bot) and the conformance suite.
//
// A bot must never peek at hidden information: anything it explores is a copy made with
// State::ResampleHidden(seat, rng), in which everything the seat cannot see is redrawn.
class Bot {
 public:
  virtual ~Bot();
  // The bot's registered name ("random", "kind_first", "greedy", "mc", "hard").
  virtual std::string name() const = 0;
  // One legal action for `seat`, which must be an acting seat of a game not over
  // (FAILED_PRECONDITION otherwise). All randomness comes from `rng`, so a seeded bot is
  // reproducible: the sessions service gives each decision the stream
  // engine::BotDecisionRng(game_seed, seat, state.NumMoves()), so anyone holding the revealed
  // seed can recompute it (parlor-engine verify --bots).
  virtual absl::StatusOr<engine::Action> Choose(const engine::State& state, int seat,
                                                engine::Rng& rng) = 0;
};

// Uniformly random among the seat's legal actions.
class RandomBot : public Bot {
 public:
  std::string name() const override { return "random"; }
  absl::StatusOr<engine::Action> Choose(const engine::State& state, int seat,
                                        engine::Rng& rng) override;
};

// Picks a kind of action uniformly (State::ActionKind, among the kinds present in the legal
// list), then an action of that kind uniformly. A game whose legal list is dominated by one kind
// (a hundred placements, one "pass") still takes its rare actions often, so playouts reach rare
// paths.
class KindFirstBot : public Bot {
 public:
  std::string name() const override { return "kind_first"; }
  absl::StatusOr<engine::Action> Choose(const engine::State& state, int seat,
                                        engine::Rng& rng) override;
};

// One ply: every legal action is applied to `samples` copies drawn with ResampleHidden(seat) and
// scored with State::Heuristic(seat); the best mean wins (ties broken at random). When the seat
// chooses at the same time as others (a simultaneous step), the others' choices in that step are
// filled in at random on each copy, so the bot evaluates the resolved step without knowing them.
class GreedyBot : public Bot {
 public:
  explicit GreedyBot(int samples = 8) : samples_(samples) {}
  std::string name() const override { return "greedy"; }
  absl::StatusOr<engine::Action> Choose(const engine::State& state, int seat,
                                        engine::Rng& rng) override;

 private:
  int samples_;
};

// Flat Monte-Carlo: for each legal action, `playouts_per_action` random playouts from copies
// drawn with ResampleHidden(seat); the action with the best mean result wins. A result is the
// seat's finishing position (1 for first, 0 for last), plus a small share of its score margin to
// break ties between equal positions. A playout still running after `max_playout_moves` moves (long
// games) is scored by State::Heuristic instead: 0.75 ahead, 0.5 level, 0.25 behind.
class MonteCarloBot : public Bot {
 public:
  explicit MonteCarloBot(int playouts_per_action = 24, int max_playout_moves = 400)
      : playouts_(playouts_per_action), max_playout_moves_(max_playout_moves) {}
  std::string name() const override { return "mc"; }
  absl::StatusOr<engine::Action> Choose(const engine::State& state, int seat,
                                        engine::Rng& rng) override;

 private:
  int playouts_;
  int max_playout_moves_;
};

// How the hard bot searches. Every field left at its "game's" value takes the calibrated setting
// of the game being played (IsmctsBot::SettingsFor); parlor-bot-match overrides them to calibrate.
struct IsmctsSettings {
  // Iterations per decision (0: the game's budget).
  int iterations = 0;
  // Moves of a playout before it is cut short and scored by the heuristic (0: the game's).
  int max_playout_moves = 0;
  // UCB1 exploration constant (0: the game's).
  double exploration = 0.0;
  // A playout cut short is worth 0.5 + 0.5 tanh(h / heuristic_scale) to a seat whose
  // State::Heuristic is h, so a bigger lead is worth more (0: the game's scale; negative: the
  // old three steps 0.75 ahead / 0.5 level / 0.25 behind).
  double heuristic_scale = 0.0;
  // Simultaneous steps (several seats choose at once): 1 regret matching, 2 decoupled UCB1
  // (0: the game's).
  int simultaneous = 0;
  // Playouts: 1 uniformly random moves, 2 guided by the game's PlayoutPolicyFor (0: the game's;
  // a game without a policy always plays at random).
  int playout = 0;
  // In a guided playout, the share of moves still made uniformly at random (0: the game's;
  // negative: none).
  double playout_epsilon = 0.0;
  // At a root where another seat has already made its hidden choice of the simultaneous step:
  // 1 that choice is as ResampleHidden draws it (uniform), 2 it is drawn from that seat's own
  // statistics at the root, as if it chose at the same time (0: the game's). Needs the game's
  // HiddenChoiceModelFor; without one it is 1.
  int hidden_choice = 0;
  // A playout cut short is judged by: 1 the game's State::Heuristic, 2 the hard bot's own
  // LeafHeuristicFor the game (0: the game's; a game without one always uses State::Heuristic).
  int leaf = 0;
  // Progressive bias toward the guided playout policy's move in the tree: the policy's action of
  // each seat at a node gets prior_weight / (visits + 1) added to its UCB1 value, so that the
  // search tries it first and keeps it unless its results are clearly worse (0: the game's;
  // negative: none). Needs a guided playout policy.
  double prior_weight = 0.0;
  // In the tree, the share of the other seats' choices that are the guided playout policy's move
  // instead of their own UCB1 pick: a model of opponents who play the policy's sensible move,
  // searched against (0: the game's; negative: none). Needs a guided playout policy.
  double opponent_policy = 0.0;
};

// A cheap move for the hard bot's playouts: one of `legal` (the legal actions of `seat` in
// `state`, a determinization), chosen from what every player sees. Drawing only from `rng`.
using PlayoutPolicy = engine::Action (*)(const engine::State& state, int seat,
                                         const std::vector<engine::Action>& legal,
                                         engine::Rng& rng);
// The game's guided playout policy, or null when it has none (its playouts are random): Pico
// plays the card with the best mean result of the trick against the opponent's hand; Pescado
// takes every matching tile, best first, and keeps the dice that aim at the most promising tile;
// KA'DICE! eliminates when it can, changes a die when that helps, and keeps the dice with the
// best exact chance of meeting an opponent's card on the next throw.
PlayoutPolicy PlayoutPolicyFor(const engine::Game& game);

// The hard bot's own judgement of a position where a playout was cut short, on the scale of
// State::Heuristic (points of a lead), or null when the game has none. KA'DICE!: cards left
// against the opponents' average (ten per card), plus the chance that each player's next throw
// meets a target's requirement with the dice they keep (the exact odds of the best dice to keep),
// so that a position is judged by the eliminations it promises and not by pairs held.
using LeafHeuristic = double (*)(const engine::State& state, int seat);
LeafHeuristic LeafHeuristicFor(const engine::Game& game);

// How a game's simultaneous steps hide a choice already made (Pico's face-down card), so that the
// hard bot, choosing second, can treat the step as simultaneous rather than assume the hidden
// choice uniform.
struct HiddenChoiceModel {
  // The seat other than `observer` that has already chosen in the current step without
  // `observer` seeing what, with the actions it could have chosen as far as `observer` can tell
  // in *options (ascending); -1 when there is none.
  int (*chooser)(const engine::State& state, int observer,
                 std::vector<engine::Action>* options) = nullptr;
  // The choice `seat` made, in a determinization drawn by ResampleHidden.
  engine::Action (*choice)(const engine::State& state, int seat) = nullptr;
};
// The game's model; both members null for a game without hidden choices of this kind.
HiddenChoiceModel HiddenChoiceModelFor(const engine::Game& game);

// Information-set Monte-Carlo tree search (single observer, "ISMCTS"): each iteration draws a
// determinization of what the seat cannot see with State::ResampleHidden(seat, rng) (so the bot
// never peeks), walks down one tree shared by all determinizations, keyed by the actions taken
// (chance outcomes are not in the tree), choosing each acting seat's action by UCB1 with
// availability counts. A simultaneous step is searched without letting a seat see the others'
// choices of the same step: each seat picks from its own statistics at the node, by regret
// matching (whose average strategy approaches an equilibrium of the step) or by decoupled UCB1.
// The walk adds one node, plays on from there (at random, or guided by the game's
// PlayoutPolicyFor with a share of random moves), cut short after a few moves in long games and
// scored by the game's heuristic (a continuous value, see IsmctsSettings), and credits every
// seat's edges with that seat's result. When another seat has already made a hidden choice of
// the root's simultaneous step (HiddenChoiceModelFor), that choice can be drawn from the seat's
// own root statistics instead of uniformly, so choosing second is searched like choosing at once.
// The most visited root action is played; at a simultaneous root searched by regret matching, an
// action is drawn from the root seat's average strategy instead (a fixed choice there could be read
// by the opponent). Deterministic given the rng: the budget is a number of iterations, never a
// time.
class IsmctsBot : public Bot {
 public:
  // iterations 0: the game's calibrated budget; max_playout_moves 0: the game's playout length.
  explicit IsmctsBot(int iterations = 0, int max_playout_moves = 0)
      : settings_{.iterations = iterations, .max_playout_moves = max_playout_moves} {}
  explicit IsmctsBot(const IsmctsSettings& settings) : settings_(settings) {}
  std::string name() const override { return "hard"; }
  absl::StatusOr<engine::Action> Choose(const engine::State& state, int seat,
                                        engine::Rng& rng) override;
  // The settings used for `game`: the ones given, the game's calibrated values for the rest
  // (budgets chosen so that a decision takes at most about 50 ms on one core; engine/README.md
  // has the figures).
  IsmctsSettings SettingsFor(const engine::Game& game) const;
  int IterationsFor(const engine::Game& game) const { return SettingsFor(game).iterations; }

 private:
  IsmctsSettings settings_;
};

// The levels a player chooses from ("easy", "medium", "hard"), in order. easy is the random bot,
// medium the greedy bot, hard the IsmctsBot.
std::vector<std::string> BotLevels();
// Every name MakeBot accepts: the levels, then "random", "kind_first", "greedy", "mc".
std::vector<std::string> BotNames();
// A bot by level or name; INVALID_ARGUMENT listing the names for an unknown one. The bot's
// name() is its canonical name: "easy" gives the random bot (name "random"), "medium" the greedy
// bot ("greedy"), "hard" the IsmctsBot ("hard").
absl::StatusOr<std::unique_ptr<Bot>> MakeBot(absl::string_view name);

// Shared by the bots: FAILED_PRECONDITION for a seat with nothing to choose ("the game is over"
// or "seat K may not act now").
absl::Status CannotAct(const engine::State& state, int seat);
// A finished game's result for `seat`: the share of the other sides it finished ahead of (a tie
// counting half; 1 first, 0 last) plus a tiny share of its score margin, so that among equal
// positions a bigger margin is preferred.
double FinalValue(const engine::State& state, int seat);
// A playout cut short: 0.75 ahead, 0.5 level, 0.25 behind by State::Heuristic.
double CutOffValue(const engine::State& state, int seat);

// One uniformly random legal action of `seat` (FAILED_PRECONDITION when it has none).
absl::StatusOr<engine::Action> RandomLegalAction(const engine::State& state, int seat,
                                                 engine::Rng& rng);

// Applies random legal actions for `seats` that still have a choice pending in the current
// simultaneous step of `state` (each at most once), so that a copy explored by a bot resolves
// the step without knowing the others' real choices.
void ResolveOthersAtRandom(engine::State& state, engine::SeatSet seats, engine::Rng& rng);

// Plays `state` to the end: at each step one acting seat is picked uniformly at random (the
// order in which simultaneous choices arrive does not matter to a correct game, and varying it
// tests that) and its bot chooses. Forfeited seats are played by the random bot (game rule 8).
// `bots` has one entry per seat (several seats may share one bot). Returns the final state, or
// the first error (an illegal choice, or more moves than the game's MaxMoves).
absl::StatusOr<std::unique_ptr<engine::State>> PlayGame(std::unique_ptr<engine::State> state,
                                                        const std::vector<Bot*>& bots,
                                                        engine::Rng& rng);

}  // namespace parlor::bots

#endif  // PARLOR_ENGINE_BOTS_BOT_H_
