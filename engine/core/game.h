#ifndef PARLOR_ENGINE_CORE_GAME_H_
#define PARLOR_ENGINE_CORE_GAME_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/core/options.h"
#include "engine/core/rng.h"
#include "engine/core/state.h"
#include "google/protobuf/any.pb.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "parlor/engine/v1/record.pb.h"

namespace parlor::engine {

// What the rest of the system reads about a game: matchmaking, clients and the tool.
struct GameInfo {
  std::string name;          // stable id, e.g. "pico"
  std::string display_name;  // e.g. "Pico"
  std::string summary;       // one paragraph
  int min_players = 2;
  int max_players = 2;
  bool has_teams = false;  // teams come from options; State::TeamOf tells
  std::vector<OptionSpec> options;
  // Names of the kinds of action (State::ActionKind indexes this), e.g. {"roll", "steal"}.
  std::vector<std::string> action_kinds = {"action"};
  // Every choice a seat makes is in plain sight: no secret or simultaneous choice, so whoever
  // watches the table sees which action was taken. Telling a viewer what a seat did then needs
  // no search for another action the viewer could not tell apart (a search that costs an
  // applied clone and a view per legal action). The conformance checks hold a game to it: two
  // legal actions of a seat that leave another seat's or a spectator's view the same must leave
  // the whole state (the reveal-all view) the same.
  bool choices_public = false;
};

// The rules of one game: immutable, stateless, shared by every State it creates.
class Game {
 public:
  explicit Game(GameInfo info) : info_(std::move(info)) {}
  virtual ~Game();
  Game(const Game&) = delete;
  Game& operator=(const Game&) = delete;

  const GameInfo& info() const { return info_; }
  const std::string& name() const { return info_.name; }

  // Options from user strings, validated against the specs and the game's own rules for the
  // given player count. INVALID_ARGUMENT names the option (or the player count).
  absl::StatusOr<Options> ParseOptions(const std::map<std::string, std::string>& raw,
                                       int num_players) const;
  absl::Status CheckSetup(int num_players, const Options& options) const;

  // A new game; the setup's chance (deals) is drawn from `seed`.
  absl::StatusOr<std::unique_ptr<State>> NewGame(int num_players, const Options& options,
                                                 const Seed& seed) const;
  // A new game whose chance outcomes, setup and later, are taken in order from `outcomes` (in
  // the recorded form of Chance) until they run out, then drawn from `seed`. For rule-case tests
  // ("deal D") and replays.
  absl::StatusOr<std::unique_ptr<State>> NewGameWithOutcomes(int num_players,
                                                             const Options& options,
                                                             const Seed& seed,
                                                             std::vector<int32_t> outcomes) const;

  // Loads a record's snapshot (validating it fully); the log is kept, not replayed.
  absl::StatusOr<std::unique_ptr<State>> Deserialize(const v1::GameRecord& record) const;
  // Rebuilds the state from the record's setup and log alone, using the recorded outcomes.
  // With `check_seed`, every recorded outcome must also equal what the seed draws (fair-play
  // audit). DATA_LOSS on a log that does not replay.
  absl::StatusOr<std::unique_ptr<State>> Replay(const v1::GameRecord& record,
                                                bool check_seed) const;

  // The game's public proto types (parlor.games.v1.<Game>Action / <Game>View).
  virtual const google::protobuf::Descriptor* ActionDescriptor() const = 0;
  virtual const google::protobuf::Descriptor* ViewDescriptor() const = 0;
  // Public Action proto -> code. INVALID_ARGUMENT naming the field for malformed or
  // out-of-range fields; whether the action is legal now is State::CheckAction's business.
  virtual absl::StatusOr<Action> ActionFromProto(const google::protobuf::Message& action) const = 0;
  virtual std::unique_ptr<google::protobuf::Message> ActionToProto(Action action) const = 0;
  // The pure shape decoder of an Any holding this game's Action: INVALID_ARGUMENT for another
  // type, unparseable bytes or a malformed field. It does not look at any state: a client's
  // message is checked with State::CheckMessage / ApplyMessage, which run the precedence of
  // engine/GAMES.md ("Refusals").
  absl::StatusOr<Action> ActionFromAny(const google::protobuf::Any& any) const;
  // The Any unpacked into this game's Action message (step 1 of the precedence): INVALID_ARGUMENT
  // for another type or bytes that do not parse.
  absl::StatusOr<std::unique_ptr<google::protobuf::Message>> UnpackAction(
      const google::protobuf::Any& any) const;

  // Hard bound on the number of moves (log entries after setup) of any game with these
  // settings, forfeits included.
  virtual int64_t MaxMoves(int num_players, const Options& options) const = 0;

 protected:
  // Game-specific checks beyond each option's own range (e.g. "rounds must be 2, 4 or 6").
  virtual absl::Status ValidateSetup(int num_players, const Options& options) const;
  // A state with no setup done yet.
  virtual std::unique_ptr<State> CreateState(int num_players,
                                             std::shared_ptr<const Options> options) const = 0;

 private:
  absl::StatusOr<std::unique_ptr<State>> Start(int num_players, const Options& options,
                                               const Seed& seed,
                                               std::shared_ptr<const std::vector<int32_t>> forced,
                                               bool check_seed) const;
  GameInfo info_;
};

}  // namespace parlor::engine

#endif  // PARLOR_ENGINE_CORE_GAME_H_
