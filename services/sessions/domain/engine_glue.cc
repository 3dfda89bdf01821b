#include "services/sessions/domain/engine_glue.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "google/protobuf/arena.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"

namespace parlor::sessions {
namespace {

absl::Status ApplyEntry(engine::State& state, const engine::v1::LogEntry& entry) {
  switch (entry.kind()) {
    case engine::v1::LogEntry::KIND_ACTION:
      return state.Apply(entry.seat(), entry.action());
    case engine::v1::LogEntry::KIND_FORFEIT:
      return state.Forfeit(entry.seat());
    default:
      return absl::DataLossError("unexpected log entry kind after the setup");
  }
}

}  // namespace

google::protobuf::Any PackAny(const google::protobuf::Message& message) {
  google::protobuf::Any any;
  any.PackFrom(message);
  return any;
}

absl::StatusOr<engine::v1::GameRecord> ParseRecord(const std::string& snapshot) {
  engine::v1::GameRecord record;
  if (!record.ParseFromString(snapshot)) {
    return absl::DataLossError("stored game snapshot does not parse");
  }
  return record;
}

absl::StatusOr<engine::v1::GameRecord> WithLogEntries(engine::v1::GameRecord record,
                                                      const std::vector<std::string>& entries) {
  if (record.log_size() == 0) return absl::DataLossError("game record has no setup entry");
  record.mutable_log()->DeleteSubrange(1, record.log_size() - 1);
  record.set_omitted_entries(0);
  for (const std::string& entry : entries) {
    if (!record.add_log()->ParseFromString(entry)) {
      return absl::DataLossError(
          absl::StrCat("log entry ", record.log_size() - 1, " does not parse"));
    }
  }
  return record;
}

absl::StatusOr<std::unique_ptr<engine::State>> LoadState(const engine::Game& game,
                                                         const std::string& snapshot) {
  // On an arena: a record holds a message per move, and freeing them one by one was a large
  // part of a move's CPU.
  google::protobuf::Arena arena;
  auto* record = google::protobuf::Arena::CreateMessage<engine::v1::GameRecord>(&arena);
  if (!record->ParseFromString(snapshot)) {
    return absl::DataLossError("stored game snapshot does not parse");
  }
  absl::StatusOr<std::unique_ptr<engine::State>> state = game.Deserialize(*record);
  if (!state.ok()) {
    return absl::DataLossError(
        absl::StrCat("stored game snapshot does not load: ", state.status().message()));
  }
  return state;
}

uint32_t ActingBits(const engine::State& state) { return state.ActingSeats().bits(); }

google::protobuf::Any ViewAny(const engine::State& state, const engine::Viewer& viewer) {
  return PackAny(*state.View(viewer));
}

std::vector<google::protobuf::Any> LegalActionsAny(const engine::State& state, int seat) {
  std::vector<google::protobuf::Any> out;
  for (engine::Action action : state.LegalActions(seat)) {
    out.push_back(PackAny(*state.game().ActionToProto(action)));
  }
  return out;
}

absl::StatusOr<std::vector<std::unique_ptr<engine::State>>> StatesBetween(
    const engine::Game& game, const engine::v1::GameRecord& record, int64_t from_version,
    int64_t to_version) {
  std::vector<std::unique_ptr<engine::State>> out;
  if (record.log_size() == 0) return absl::DataLossError("game record has no setup entry");
  if (record.omitted_entries() != 0) {
    return absl::DataLossError(absl::StrCat("the game record leaves out ", record.omitted_entries(),
                                            " log entries; put them back (WithLogEntries) first"));
  }
  engine::v1::GameRecord setup_only = record;
  setup_only.mutable_log()->DeleteSubrange(1, record.log_size() - 1);
  setup_only.clear_forfeits();
  setup_only.set_ended_by_forfeit(false);
  setup_only.clear_state();
  absl::StatusOr<std::unique_ptr<engine::State>> state = game.Replay(setup_only, false);
  if (!state.ok()) {
    return absl::DataLossError(
        absl::StrCat("game setup does not replay: ", state.status().message()));
  }
  std::unique_ptr<engine::State> current = *std::move(state);
  for (int64_t v = 0; v <= to_version && v < record.log_size(); ++v) {
    if (v > 0) {
      absl::Status applied = ApplyEntry(*current, record.log(static_cast<int>(v)));
      if (!applied.ok()) {
        return absl::DataLossError(
            absl::StrCat("log entry ", v, " does not replay: ", applied.message()));
      }
    }
    if (v >= from_version) out.push_back(current->Clone());
  }
  return out;
}

std::string DescribeMove(const engine::State& before, const engine::v1::LogEntry& entry,
                         const engine::Viewer& viewer, bool* revealed) {
  bool unused = false;
  bool& shown = revealed != nullptr ? *revealed : unused;
  shown = false;
  const int seat = entry.seat();
  if (entry.kind() == engine::v1::LogEntry::KIND_SETUP) return "the game was set up";
  if (entry.kind() == engine::v1::LogEntry::KIND_FORFEIT) {
    return absl::StrCat("seat ", seat, " forfeited");
  }
  const std::string words = before.ActionToString(seat, entry.action());
  // In a game whose choices are all in plain sight, every watcher saw which action it was.
  if (viewer.kind == engine::Viewer::Kind::kAll ||
      (viewer.kind == engine::Viewer::Kind::kSeat && viewer.seat == seat) ||
      before.game().info().choices_public) {
    shown = true;
    return words;
  }
  std::unique_ptr<engine::State> actual = before.Clone();
  if (!actual->Apply(seat, entry.action()).ok()) return absl::StrCat("seat ", seat, " moved");
  // Views compared by their deterministic encoding: the actual one is encoded once, and a
  // byte comparison is several times cheaper than a reflective field-by-field one (this runs for
  // every other seat's notification of every move).
  const std::string actual_view = Deterministic(*actual->View(viewer));
  for (engine::Action other : before.LegalActions(seat)) {
    if (other == entry.action()) continue;
    std::unique_ptr<engine::State> alt = before.Clone();
    if (!alt->Apply(seat, other).ok()) continue;
    if (Deterministic(*alt->View(viewer)) == actual_view) {
      return absl::StrCat("seat ", seat, " made a hidden choice");
    }
  }
  shown = true;
  return words;
}

std::string Deterministic(const google::protobuf::Message& message) {
  std::string out;
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    message.SerializeToCodedStream(&coded);
  }
  return out;
}

}  // namespace parlor::sessions
