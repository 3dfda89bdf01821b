#ifndef PARLOR_SERVICES_SESSIONS_DOMAIN_ENGINE_GLUE_H_
#define PARLOR_SERVICES_SESSIONS_DOMAIN_ENGINE_GLUE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/core/game.h"
#include "engine/core/registry.h"
#include "engine/core/state.h"
#include "google/protobuf/any.pb.h"
#include "parlor/engine/v1/record.pb.h"

// Game-agnostic helpers between the sessions domain and the rules engine. Nothing here knows a
// particular game: everything goes through engine::Game / engine::State.
namespace parlor::sessions {

// Packs any message into an Any with the standard type URL prefix.
google::protobuf::Any PackAny(const google::protobuf::Message& message);

// Parses a stored snapshot (engine GameRecord bytes). DATA_LOSS for damaged bytes.
absl::StatusOr<engine::v1::GameRecord> ParseRecord(const std::string& snapshot);

// `record` with the log entries it leaves out (GameRecord.omitted_entries) put back: the setup's
// entry, then `entries` (the LogEntry bytes of versions 1, 2, ... in order: the game's log rows)
// in place of those it held. Its state and forfeits stay its own, so it is whole again when
// `entries` runs to its version, and good for a replay to any version it reaches either way.
// DATA_LOSS for an entry that does not parse.
absl::StatusOr<engine::v1::GameRecord> WithLogEntries(engine::v1::GameRecord record,
                                                      const std::vector<std::string>& entries);

// Loads the state a stored snapshot holds.
absl::StatusOr<std::unique_ptr<engine::State>> LoadState(const engine::Game& game,
                                                         const std::string& snapshot);

// Bit i set = seat i must act.
uint32_t ActingBits(const engine::State& state);

// The viewer's view packed into an Any.
google::protobuf::Any ViewAny(const engine::State& state, const engine::Viewer& viewer);

// The seat's legal actions as Anys of the game's Action type.
std::vector<google::protobuf::Any> LegalActionsAny(const engine::State& state, int seat);

// The states of a game at versions from_version..to_version (inclusive), rebuilt from the
// record's setup and log (each log entry re-applied; the counter-based chance reproduces every
// outcome, which is checked against the recorded ones).
absl::StatusOr<std::vector<std::unique_ptr<engine::State>>> StatesBetween(
    const engine::Game& game, const engine::v1::GameRecord& record, int64_t from_version,
    int64_t to_version);

// The move `seat` made from `before` (log entry `entry`), described for `viewer`: the game's
// words for it when the viewer made it, when the game's choices are all in plain sight
// (GameInfo::choices_public), or when the viewer can tell from its own view which move it was (no
// other legal move of that seat would have left the viewer's view the same); otherwise that a
// hidden choice was made. Never reveals what the rules hide. `revealed`, when given, is set to
// whether the viewer may know which action was made (true only for an action entry described in
// the game's words).
std::string DescribeMove(const engine::State& before, const engine::v1::LogEntry& entry,
                         const engine::Viewer& viewer, bool* revealed = nullptr);

// A message in a deterministic encoding: equal messages, equal bytes (requests' fingerprints,
// a move's hash for idempotency, comparisons in tests).
std::string Deterministic(const google::protobuf::Message& message);

}  // namespace parlor::sessions

#endif  // PARLOR_SERVICES_SESSIONS_DOMAIN_ENGINE_GLUE_H_
