#include "services/sessions/domain/game_feed.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "services/common/core/status_macros.h"
#include "services/sessions/domain/engine_glue.h"

namespace parlor::sessions {
namespace {

absl::Status Apply(engine::State& state, const engine::v1::LogEntry& entry, int64_t version) {
  absl::Status applied;
  switch (entry.kind()) {
    case engine::v1::LogEntry::KIND_ACTION:
      applied = state.Apply(entry.seat(), entry.action());
      break;
    case engine::v1::LogEntry::KIND_FORFEIT:
      applied = state.Forfeit(entry.seat());
      break;
    default:
      applied = absl::DataLossError("unexpected log entry kind after the setup");
  }
  if (!applied.ok()) {
    return absl::DataLossError(
        absl::StrCat("log entry ", version, " does not replay: ", applied.message()));
  }
  return absl::OkStatus();
}

}  // namespace

GameFeed::GameFeed(Sessions* sessions, std::string account_id, std::string game_id,
                   int64_t after_version)
    : sessions_(sessions),
      account_id_(std::move(account_id)),
      game_id_(std::move(game_id)),
      last_version_(after_version) {}

GameFeed::~GameFeed() = default;

// The watcher's seat (or -1 for a spectator of a public game) and summary of the newest row.
absl::Status GameFeed::ReadHead() {
  PARLOR_ASSIGN_OR_RETURN(GameRow row, sessions_->store_->GetGame(game_id_));
  const int seat = SeatOf(row, account_id_);
  if (seat < 0 && !row.is_public) {
    return absl::PermissionDeniedError(
        absl::StrCat("game ", row.game_id, " is private: only its seated players may see it"));
  }
  seat_ = seat;
  PARLOR_ASSIGN_OR_RETURN(head_, sessions_->Summary(row, seat));
  finished_ = row.finished;
  if (game_ == nullptr) {
    PARLOR_ASSIGN_OR_RETURN(game_, sessions_->FindGame(row.game));
  }
  if (!started_) {
    // The setup and every version up to the watcher's, from the stored record and log rows.
    if (last_version_ < 0) last_version_ = row.version - 1;
    if (last_version_ > row.version) {
      return absl::OutOfRangeError(absl::StrCat(
          "after_version ", last_version_, " is beyond the game's current version ", row.version));
    }
    PARLOR_ASSIGN_OR_RETURN(engine::v1::GameRecord record,
                            sessions_->RecordThrough(row, last_version_));
    row.snapshot.clear();
    google::protobuf::RepeatedPtrField<engine::v1::LogEntry> log;
    log.Swap(record.mutable_log());
    *record.add_log() = log.Get(0);
    record.clear_forfeits();
    record.set_ended_by_forfeit(false);
    record.clear_state();
    absl::StatusOr<std::unique_ptr<engine::State>> setup = game_->Replay(record, false);
    if (!setup.ok()) {
      return absl::DataLossError(
          absl::StrCat("game setup does not replay: ", setup.status().message()));
    }
    state_ = *std::move(setup);
    // Versions 1..last_version_ (the watcher has them); version 0 is the setup itself, so a
    // watcher with after_version = -1 on a new game starts from it.
    const int64_t until = std::max<int64_t>(last_version_, 0);
    for (int64_t v = 1; v <= until && v < log.size(); ++v) {
      PARLOR_RETURN_IF_ERROR(Apply(*state_, log.Get(static_cast<int>(v)), v));
    }
    started_ = true;
  }
  return absl::OkStatus();
}

absl::Status GameFeed::Start() { return ReadHead(); }

GameSummary GameFeed::SummaryAt(int64_t version, absl::Time committed) const {
  if (version == head_.version) return head_;
  // An earlier version: what the game looked like when it committed. Deadlines and time banks
  // of past turns are not kept, so they are left out; the game had not ended yet.
  GameSummary out = head_;
  out.version = version;
  out.finished = false;
  out.outcome.reset();
  out.seed.clear();
  out.deadline.reset();
  out.acting_seats.clear();
  const uint32_t acting = ActingBits(*state_);
  for (SeatSummary& seat : out.seats) {
    seat.forfeited = state_->IsForfeited(seat.seat);
    seat.time_bank_remaining.reset();
    if ((acting >> seat.seat & 1u) != 0) out.acting_seats.push_back(seat.seat);
  }
  out.my_turn = seat_ >= 0 && (acting >> seat_ & 1u) != 0;
  out.update_time = committed;
  return out;
}

absl::Status GameFeed::Next(int limit, std::vector<FeedItem>* out, bool* more) {
  *more = false;
  if (!started_) PARLOR_RETURN_IF_ERROR(Start());
  PARLOR_ASSIGN_OR_RETURN(std::vector<LogRow> log,
                          sessions_->store_->GetLog(game_id_, last_version_ + 1, limit));
  if (log.empty()) return absl::OkStatus();
  // Past the newest row read: read it again (for the current summary and whether it ended).
  if (log.back().version > head_.version) PARLOR_RETURN_IF_ERROR(ReadHead());
  // While the game runs, a seat's view (or the spectator view); the version that ended it,
  // everything. A page read after the end that also holds earlier versions shows those as they
  // were (their summaries say the game was running).
  const engine::Viewer running =
      seat_ >= 0 ? engine::Viewer::Seat(seat_) : engine::Viewer::Spectator();
  for (const LogRow& row : log) {
    const engine::Viewer viewer =
        finished_ && row.version == head_.version ? engine::Viewer::All() : running;
    if (row.version != last_version_ + 1) {
      return absl::DataLossError(absl::StrCat("game ", game_id_, " log skips from version ",
                                              last_version_, " to ", row.version));
    }
    engine::v1::LogEntry entry;
    if (!entry.ParseFromString(row.entry)) {
      return absl::DataLossError(absl::StrCat("log entry ", row.version, " does not parse"));
    }
    FeedItem& item = out->emplace_back();
    HistoryEvent& event = item.event;
    event.version = row.version;
    event.seat = row.seat;
    event.kind = row.kind;
    event.cause = row.cause;
    if (row.version == 0) {
      event.description = "the game was set up";
    } else {
      bool revealed = false;
      event.description = DescribeMove(*state_, entry, viewer, &revealed);
      // The typed action beside the words, under the same rule (never a hidden choice).
      if (revealed) event.action = PackAny(*game_->ActionToProto(entry.action()));
      PARLOR_RETURN_IF_ERROR(Apply(*state_, entry, row.version));
    }
    event.view = ViewAny(*state_, viewer);
    event.time = row.created_at;
    item.game = SummaryAt(row.version, row.created_at);
    last_version_ = row.version;
  }
  *more = static_cast<int>(log.size()) == limit;
  return absl::OkStatus();
}

}  // namespace parlor::sessions
