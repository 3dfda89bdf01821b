#ifndef PARLOR_ENGINE_CORE_STATE_H_
#define PARLOR_ENGINE_CORE_STATE_H_

#include <bit>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/core/options.h"
#include "engine/core/rng.h"
#include "google/protobuf/any.pb.h"
#include "google/protobuf/message.h"
#include "parlor/engine/v1/record.pb.h"

namespace parlor::engine {

class Game;
class State;

// A game's compact action code. Each game defines its own encoding (documented in its header)
// and maps it to and from its public `Action` proto. Codes are what the log stores.
using Action = int64_t;

// A set of seats (games have at most 32 seats), cheap to copy and iterate.
class SeatSet {
 public:
  constexpr SeatSet() = default;
  static constexpr SeatSet Of(int seat) { return SeatSet(uint32_t{1} << seat); }
  static constexpr SeatSet FirstN(int n) {
    return SeatSet(n >= 32 ? ~uint32_t{0} : (uint32_t{1} << n) - 1);
  }
  constexpr bool Contains(int seat) const {
    return seat >= 0 && seat < 32 && (bits_ >> seat & 1u) != 0;
  }
  constexpr void Insert(int seat) { bits_ |= uint32_t{1} << seat; }
  constexpr void Erase(int seat) { bits_ &= ~(uint32_t{1} << seat); }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr int size() const { return std::popcount(bits_); }
  constexpr uint32_t bits() const { return bits_; }
  std::vector<int> ToVector() const;
  friend constexpr bool operator==(SeatSet, SeatSet) = default;

 private:
  explicit constexpr SeatSet(uint32_t bits) : bits_(bits) {}
  uint32_t bits_ = 0;
};

// Who is looking: one seat (its own hidden things + everything public), a spectator (only what
// is public), or everyone (audits and finished-game replays: all hidden information).
struct Viewer {
  enum class Kind { kSeat, kSpectator, kAll };
  Kind kind = Kind::kSpectator;
  int seat = -1;

  static Viewer Seat(int seat) { return {Kind::kSeat, seat}; }
  static Viewer Spectator() { return {Kind::kSpectator, -1}; }
  static Viewer All() { return {Kind::kAll, -1}; }
};

// The result of a finished game.
struct Outcome {
  // Per seat: 1 is best. Standard competition ranking ("1224"): equal ranks for a true tie,
  // team-mates share their team's rank, forfeited seats come last (earlier forfeits below later).
  std::vector<int> ranks;
  // Per seat: the game's own score (points, totals) as the rules count it.
  std::vector<int64_t> scores;
  // Why the game ended, in words: "both rounds played", "seat 1 forfeited", ...
  std::string reason;
};

// The source of every chance outcome inside SetupImpl/ApplyImpl. Outcomes are drawn from the
// game's seeded stream (or taken from a given list when replaying or testing a fixed deal) and
// recorded in the log entry being applied.
class Chance {
 public:
  // A uniformly random index in [0, n); recorded as the index. n >= 1.
  int Uniform(int n);
  // A die with `sides` faces; recorded as the face, 1..sides.
  int Roll(int sides);
  // A uniformly random order of `items` (Fisher–Yates); recorded as the resulting order.
  void Shuffle(std::span<int32_t> items);

 private:
  friend class State;
  friend class Game;
  explicit Chance(State* state) : state_(state) {}
  State* state_;
};

// One game in progress (or finished). Copyable through Clone(); every mutation goes through
// Apply/Forfeit, which validate first and leave the state unchanged on error.
//
// Games derive from State and implement the protected *Impl hooks; the public methods add the
// checks, the log, forfeits and serialization common to every game.
class State {
 public:
  virtual ~State();

  const Game& game() const { return *game_; }
  int num_players() const { return num_players_; }
  const Options& options() const { return *options_; }

  // Seats that may act now (several for simultaneous choices); empty iff the game is over.
  SeatSet ActingSeats() const;
  bool IsTerminal() const;

  // Every legal action of `seat`, sorted ascending; empty when the seat may not act.
  std::vector<Action> LegalActions(int seat) const;
  // OK iff `action` is in LegalActions(seat). Otherwise, in this order: INVALID_ARGUMENT for a
  // seat number out of range; the game-over refusal; the not-your-turn refusal; INVALID_ARGUMENT
  // for a code that means no action at all; FAILED_PRECONDITION naming the rule that forbids it.
  absl::Status CheckAction(int seat, Action action) const;
  // Validates, then applies and logs. On error nothing changes.
  absl::Status Apply(int seat, Action action);

  // A client's Action message (the game's public <Game>Action, packed in an Any or as the message
  // itself) checked in the one order every game follows (engine/GAMES.md, "Refusals"):
  //   1. not this game's Action type, or bytes that do not parse: INVALID_ARGUMENT;
  //   2. the seat does not exist: INVALID_ARGUMENT;
  //   3. the game is over: the game-over refusal (FAILED_PRECONDITION);
  //   4. the seat may not act now: the not-your-turn refusal (FAILED_PRECONDITION), "you already
  //      chose" for a seat that has made its choice of a simultaneous step;
  //   5. a field malformed, missing or out of range: INVALID_ARGUMENT naming the field;
  //   6. not legal in this position: FAILED_PRECONDITION naming the rule broken.
  // Steps 2-4 and 6 are CheckAction's, in the same order, so a well-formed message and its code
  // get the same answer. Returns the action's code when it is legal now.
  absl::StatusOr<Action> CheckMessage(int seat, const google::protobuf::Any& action) const;
  absl::StatusOr<Action> CheckMessage(int seat, const google::protobuf::Message& action) const;
  // CheckMessage, then Apply. On error nothing changes. Returns the applied code.
  absl::StatusOr<Action> ApplyMessage(int seat, const google::protobuf::Any& action);
  absl::StatusOr<Action> ApplyMessage(int seat, const google::protobuf::Message& action);
  // The timeout/resignation policy (docs/DESIGN.md), logged like an action. A game of two sides
  // ends at once with the forfeiting side last; in a game of more sides the seat stays in the
  // game (the service plays it with the random bot) and is ranked last; once fewer than two
  // sides remain unforfeited the game ends.
  absl::Status Forfeit(int seat);
  bool IsForfeited(int seat) const { return forfeited_.Contains(seat); }
  SeatSet forfeited() const { return forfeited_; }

  // Valid once IsTerminal().
  Outcome GetOutcome() const;
  // For views: whether the game is over, the outcome's ranks and reason, and who forfeited, in the
  // fields every game's View carries (game_over, ranks, end_reason text, forfeited_seats).
  struct Ending {
    bool over = false;
    std::vector<int> ranks;  // empty while the game runs
    std::string reason;      // empty while the game runs
    std::vector<int> forfeited_seats;
  };
  Ending GetEnding() const;
  // Per seat, the game's running score (totals so far).
  std::vector<int64_t> Scores() const { return ScoresImpl(); }

  // A readable description of an action, e.g. "play 7", "use orange at 1".
  std::string ActionToString(int seat, Action action) const;
  // The game's View proto for this viewer; hides exactly what the rules hide from it.
  std::unique_ptr<google::protobuf::Message> View(const Viewer& viewer) const;

  // Team of a seat (0..NumTeams()-1); seat number when the game has no teams.
  int TeamOf(int seat) const { return TeamOfImpl(seat); }
  int NumSides() const;

  // The kind of an action (index into GameInfo::action_kinds), for bots that pick the kind of
  // move first.
  int ActionKind(Action action) const { return ActionKindImpl(action); }
  // The game's heuristic value of the position for `seat` (higher is better), for greedy bots.
  virtual double Heuristic(int seat) const;

  // A copy in which everything `observer` cannot see (other hands, pending hidden choices, deck
  // order, the seed) is drawn anew from `rng`, consistent with what `observer` has seen. Used by
  // the conformance suite (views must not change) and by bots (so they never peek).
  std::unique_ptr<State> ResampleHidden(int observer, Rng& rng) const;

  std::unique_ptr<State> Clone() const;

  // Which entries of the log a record carries besides the setup's.
  enum class LogForm {
    // Every entry this state holds: the whole log, unless the state was loaded from a record that
    // left entries out (it then holds only those made since).
    kHeld,
    // None (GameRecord.omitted_entries): for a store that keeps every entry on its own, so that
    // the record's size, and the cost of writing it, do not grow with the game.
    kSetupOnly,
  };

  // The record: options, seed, the log in `form` and the game's snapshot.
  v1::GameRecord Serialize(LogForm form = LogForm::kHeld) const;
  // Serialize into `record` (which may live on an arena: a record holds an entry per move).
  void SerializeInto(v1::GameRecord* record, LogForm form = LogForm::kHeld) const;
  std::string SerializeToString() const;  // deterministic bytes, for equality checks

  // Number of log entries after the setup (actions and forfeits).
  int64_t NumMoves() const { return omitted_entries_ + static_cast<int64_t>(log_.size()) - 1; }
  // The log entry of `version` (0 is the setup; version v is the v-th move), if this state holds
  // it: every entry but those its record left out.
  std::optional<v1::LogEntry> LogEntryAt(int64_t version) const;
  const Seed& seed() const { return rng_.seed(); }
  uint64_t rng_draws() const { return rng_draws_; }

 protected:
  State(const Game& game, int num_players, std::shared_ptr<const Options> options);
  State(const State&) = default;
  State& operator=(const State&) = delete;

  // Deals and other set-up; called once, with chance recorded in the setup log entry.
  virtual void SetupImpl(Chance& chance) = 0;
  virtual std::unique_ptr<State> CloneImpl() const = 0;
  // Only called while the game is not over by forfeit.
  virtual SeatSet ActingSeatsImpl() const = 0;
  virtual bool IsTerminalImpl() const = 0;
  // Appends the legal actions of a seat in ActingSeatsImpl(), sorted ascending.
  virtual void LegalActionsImpl(int seat, std::vector<Action>* out) const = 0;
  // Called for an acting seat of a game not over. Default: membership in LegalActionsImpl with a
  // generic message; games override to name the rule broken (and must agree with the list).
  virtual absl::Status CheckActionImpl(int seat, Action action) const;
  // The refusal for a seat that may not act now (the game is not over): FAILED_PRECONDITION.
  // It never depends on what was sent (the precedence of CheckMessage), so a seat learns that it
  // must wait whatever it sent. Default: "it is not seat 1's turn; waiting for seat 0". Games
  // override to say why in their own words ("you already chose a card for this trick").
  virtual absl::Status NotYourTurnImpl(int seat) const;
  // The refusal of any action once the game is over (by the rules or by a forfeit). Default:
  // FAILED_PRECONDITION "the game is over". Games override to word it as their rules doc does.
  virtual absl::Status GameOverImpl(int seat) const;
  // Applies an action CheckActionImpl accepted. Must not fail.
  virtual void ApplyImpl(int seat, Action action, Chance& chance) = 0;
  // Ranks per seat by the rules, for a game over (IsTerminalImpl()).
  virtual std::vector<int> RanksImpl() const = 0;
  virtual std::vector<int64_t> ScoresImpl() const = 0;
  virtual std::string EndReasonImpl() const = 0;
  virtual std::string ActionToStringImpl(int seat, Action action) const = 0;
  virtual std::unique_ptr<google::protobuf::Message> ViewImpl(const Viewer& viewer) const = 0;
  virtual int TeamOfImpl(int seat) const { return seat; }
  virtual int ActionKindImpl(Action) const { return 0; }
  // Redraws what `observer` cannot see (this is already a copy). The base class has already
  // replaced the seed; games with hidden state beyond future chance override this.
  virtual void ResampleHiddenImpl(int observer, Rng& rng);
  // The game's own snapshot (its state proto packed into Any), and its inverse, which must
  // validate everything (bytes may come from a damaged database or a fuzzer).
  virtual void SaveImpl(google::protobuf::Any* out) const = 0;
  virtual absl::Status LoadImpl(const google::protobuf::Any& in) = 0;

 private:
  friend class Chance;
  friend class Game;

  struct LogEntry {
    v1::LogEntry::Kind kind;
    int32_t seat;
    Action action;
    uint32_t outcomes_begin;
    uint32_t outcomes_count;
  };

  void WriteEntry(const LogEntry& entry, v1::LogEntry* out) const;
  int NextOutcome(int lo, int hi);  // draws or takes the next forced outcome in [lo, hi]
  void RecordOutcome(int32_t value);

  const Game* game_;
  int num_players_;
  std::shared_ptr<const Options> options_;
  CounterRng rng_;
  uint64_t rng_draws_ = 0;
  // The setup's entry, then the moves after the first omitted_entries_.
  std::vector<LogEntry> log_;
  int64_t omitted_entries_ = 0;
  std::vector<int32_t> outcomes_;
  SeatSet forfeited_;
  std::vector<int32_t> forfeit_order_;
  bool ended_by_forfeit_ = false;

  // Replays and tests: outcomes to use instead of drawing, and whether to check them against the
  // seed. Not part of the serialized state.
  std::shared_ptr<const std::vector<int32_t>> forced_;
  size_t forced_next_ = 0;
  bool check_forced_against_seed_ = false;
  std::string chance_error_;
};

}  // namespace parlor::engine

#endif  // PARLOR_ENGINE_CORE_STATE_H_
