// Arbitrary requests and stored snapshots into the sessions domain's engine layer
// (services/sessions/domain/engine_glue), as SubmitAction and GetHistory use it: the stored
// snapshot bytes through ParseRecord / LoadState, the request's action Any through the game's
// ActionFromAny and the state's CheckAction / Apply, and a history page (StatesBetween +
// DescribeMove + ViewAny) for every viewer. Checks: no crash; damaged snapshots and malformed
// actions are refused with DATA_LOSS / INVALID_ARGUMENT / FAILED_PRECONDITION and a message
// (a refused action changes nothing); every legal action offered to the client as an Any is
// accepted back; every history event has a description and a view for every viewer.
//
// Input layout (FuzzedDataProvider): the SubmitActionRequest bytes (a "random length string"),
// the stored snapshot (the rest), and from the end: game index, seat, history range.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "engine/core/registry.h"
#include "engine/games/all_games.h"
#include "fuzz/fuzz_support.h"
#include "parlor/sessions/v1/sessions.pb.h"
#include "services/sessions/domain/engine_glue.h"

namespace parlor::fuzz {
namespace {

void CheckRefusal(const absl::Status& status, const char* what) {
  const absl::StatusCode code = status.code();
  PARLOR_FUZZ_CHECK(code == absl::StatusCode::kInvalidArgument ||
                        code == absl::StatusCode::kFailedPrecondition ||
                        code == absl::StatusCode::kDataLoss,
                    absl::StrCat(what, " refused with ", status.ToString()));
  PARLOR_FUZZ_CHECK(!status.message().empty(), absl::StrCat(what, " refused without a message"));
}

void History(const engine::Game& game, const engine::v1::GameRecord& record, int64_t from,
             int64_t to) {
  absl::StatusOr<std::vector<std::unique_ptr<engine::State>>> states =
      sessions::StatesBetween(game, record, from, to);
  if (!states.ok()) {
    CheckRefusal(states.status(), "StatesBetween");
    return;
  }
  for (size_t i = 1; i < states->size(); ++i) {
    const int64_t version = from + static_cast<int64_t>(i);
    if (version >= record.log_size()) break;
    const engine::State& before = *(*states)[i - 1];
    const engine::v1::LogEntry& entry = record.log(static_cast<int>(version));
    std::vector<engine::Viewer> viewers = {engine::Viewer::Spectator(), engine::Viewer::All()};
    for (int seat = 0; seat < before.num_players(); ++seat) {
      viewers.push_back(engine::Viewer::Seat(seat));
    }
    for (const engine::Viewer& viewer : viewers) {
      PARLOR_FUZZ_CHECK(!sessions::DescribeMove(before, entry, viewer).empty(),
                        "an empty move description");
      const google::protobuf::Any view = sessions::ViewAny(*(*states)[i], viewer);
      PARLOR_FUZZ_CHECK(!view.type_url().empty(), "a view without a type");
    }
  }
}

void Run(FuzzedDataProvider& in) {
  static const engine::Registry* const registry = new engine::Registry(engine::AllGames());
  const std::vector<const engine::Game*> games = registry->games();
  const engine::Game& game = *games[in.ConsumeIntegralInRange<size_t>(0, games.size() - 1)];
  const int seat = in.ConsumeIntegralInRange(-1, 8);
  const int64_t from = in.ConsumeIntegralInRange<int64_t>(0, 40);
  const int64_t to = from + in.ConsumeIntegralInRange<int64_t>(0, 40);
  sessions::v1::SubmitActionRequest request;
  const bool request_ok = request.ParseFromString(in.ConsumeRandomLengthString(256));
  const std::string snapshot = in.ConsumeRemainingBytesAsString();

  absl::StatusOr<engine::v1::GameRecord> record = sessions::ParseRecord(snapshot);
  if (!record.ok()) {
    CheckRefusal(record.status(), "ParseRecord");
    return;
  }
  record->set_game(game.name());  // the games row says which game; keep mutations on the rest
  const std::string stored = record->SerializeAsString();
  absl::StatusOr<std::unique_ptr<engine::State>> state = sessions::LoadState(game, stored);
  if (!state.ok()) {
    CheckRefusal(state.status(), "LoadState");
    return;
  }
  PARLOR_FUZZ_CHECK(sessions::ActingBits(**state) == (*state)->ActingSeats().bits(),
                    "ActingBits differs from the acting seats");
  for (int s = 0; s < (*state)->num_players(); ++s) {
    for (const google::protobuf::Any& any : sessions::LegalActionsAny(**state, s)) {
      absl::StatusOr<engine::Action> back = game.ActionFromAny(any);
      PARLOR_FUZZ_CHECK(back.ok() && (*state)->CheckAction(s, *back).ok(),
                        "a legal action sent to the client is not accepted back");
    }
  }

  if (request_ok) {
    absl::StatusOr<engine::Action> action = game.ActionFromAny(request.action());
    if (!action.ok()) {
      CheckRefusal(action.status(), "ActionFromAny");
    } else {
      std::unique_ptr<engine::State> next = (*state)->Clone();
      const std::string before = next->SerializeToString();
      const absl::Status applied = next->Apply(seat, *action);
      if (!applied.ok()) {
        CheckRefusal(applied, "Apply");
        CheckUnchanged(before, *next, "a submitted action");
      }
    }
  }
  History(game, *record, from, to);
}

}  // namespace
}  // namespace parlor::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  parlor::fuzz::Run(in);
  return 0;
}
