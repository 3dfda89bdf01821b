// Bytes → player count, options, seed (and sometimes the chance outcomes themselves) → a game
// played by a sequence of choices: legal actions picked by index, raw int64 codes (mostly
// illegal), near-miss codes, public Action protos parsed from bytes, and forfeits. Checks, as it
// goes: a legal action applies; anything else is refused with INVALID_ARGUMENT or
// FAILED_PRECONDITION, agreeing with CheckAction, and changes nothing; the game ends within
// MaxMoves; on request and at the end, every state invariant, no hidden-information leak, and
// Replay (with the seed check) reproducing the state bit for bit.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "fuzz/fuzz_support.h"

namespace parlor::fuzz {
namespace {

bool IsRefusal(const absl::Status& status) {
  return status.code() == absl::StatusCode::kInvalidArgument ||
         status.code() == absl::StatusCode::kFailedPrecondition;
}

std::map<std::string, int64_t> ChooseOptions(const engine::GameInfo& info, bool wild,
                                             FuzzedDataProvider& in) {
  std::map<std::string, int64_t> values;
  for (const engine::OptionSpec& spec : info.options) {
    if (!in.ConsumeBool()) continue;  // default
    int64_t value = 0;
    if (wild) {
      value = in.ConsumeIntegral<int64_t>();
    } else if (spec.type == engine::OptionSpec::Type::kBool) {
      value = in.ConsumeBool();
    } else if (spec.type == engine::OptionSpec::Type::kChoice) {
      value = in.ConsumeIntegralInRange<int64_t>(0, static_cast<int64_t>(spec.choices.size()) - 1);
    } else if (!spec.allowed_values.empty()) {
      value =
          spec.allowed_values[in.ConsumeIntegralInRange<size_t>(0, spec.allowed_values.size() - 1)];
    } else {
      value = in.ConsumeIntegralInRange(spec.min_value, spec.max_value);
    }
    values[spec.name] = value;
  }
  return values;
}

// An illegal-looking code: raw, or a legal one nudged (±1, one bit flipped), or another seat's.
engine::Action ChooseRawAction(const engine::State& state, FuzzedDataProvider& in) {
  std::vector<engine::Action> pool;
  for (int seat = 0; seat < state.num_players(); ++seat) {
    for (engine::Action a : state.LegalActions(seat)) pool.push_back(a);
  }
  const int how = in.ConsumeIntegralInRange(0, 3);
  if (how == 0 || pool.empty()) return in.ConsumeIntegral<int64_t>();
  const engine::Action base = pool[in.ConsumeIntegralInRange<size_t>(0, pool.size() - 1)];
  if (how == 1) return base + (in.ConsumeBool() ? 1 : -1);
  if (how == 2) return base ^ (int64_t{1} << in.ConsumeIntegralInRange(0, 63));
  return base;
}

void CheckReplay(const engine::State& state, bool check_seed) {
  absl::StatusOr<std::unique_ptr<engine::State>> replayed =
      state.game().Replay(state.Serialize(), check_seed);
  PARLOR_FUZZ_CHECK(replayed.ok(), "the game's own record does not replay: " +
                                       std::string(replayed.status().message()));
  PARLOR_FUZZ_CHECK((*replayed)->SerializeToString() == state.SerializeToString(),
                    "the replay of the record differs from the state");
}

void Play(const engine::Game& game, FuzzedDataProvider& in) {
  const engine::GameInfo& info = game.info();
  const bool wild = in.ConsumeIntegralInRange(0, 15) == 0;
  const int num_players = wild ? in.ConsumeIntegralInRange(-1, 40)
                               : in.ConsumeIntegralInRange(info.min_players, info.max_players);
  const engine::Options options(ChooseOptions(info, wild, in));
  const engine::Seed seed = engine::Seed::FromUint64(in.ConsumeIntegral<uint64_t>());
  // Sometimes the fuzzer also decides the dice and deals (small values, so many are in range).
  const bool forced = in.ConsumeIntegralInRange(0, 3) == 0;
  absl::StatusOr<std::unique_ptr<engine::State>> started;
  if (forced) {
    std::vector<int32_t> outcomes(in.ConsumeIntegralInRange(0, 64));
    for (int32_t& outcome : outcomes) outcome = in.ConsumeIntegralInRange(0, 12);
    started = game.NewGameWithOutcomes(num_players, options, seed, std::move(outcomes));
  } else {
    started = game.NewGame(num_players, options, seed);
  }
  if (!started.ok()) {
    const absl::StatusCode code = started.status().code();
    PARLOR_FUZZ_CHECK(code == absl::StatusCode::kInvalidArgument ||
                          (forced && code == absl::StatusCode::kDataLoss),
                      "NewGame refused with " + started.status().ToString());
    return;
  }
  engine::State& state = **started;
  const int64_t max_moves = game.MaxMoves(num_players, state.options());
  const int n = state.num_players();
  int heavy_checks_left = 3;

  while (in.remaining_bytes() > 0 && !state.IsTerminal()) {
    PARLOR_FUZZ_CHECK(state.NumMoves() <= max_moves,
                      absl::StrCat("the game is not over after ", state.NumMoves(),
                                   " moves; MaxMoves is ", max_moves));
    const int op = in.ConsumeIntegralInRange(0, 19);
    if (op < 12) {  // a legal action, picked by index
      const std::vector<int> acting = state.ActingSeats().ToVector();
      const int seat = acting[in.ConsumeIntegralInRange<size_t>(0, acting.size() - 1)];
      const std::vector<engine::Action> legal = state.LegalActions(seat);
      const engine::Action action = legal[in.ConsumeIntegralInRange<size_t>(0, legal.size() - 1)];
      absl::Status applied = state.Apply(seat, action);
      // Outcomes the fuzzer forced may be impossible: the engine reports that as DATA_LOSS
      // (a log that does not replay) and the state is no longer meaningful.
      if (forced && applied.code() == absl::StatusCode::kDataLoss) return;
      PARLOR_FUZZ_CHECK(applied.ok(), absl::StrCat("legal action ", action, " of seat ", seat,
                                                   " fails: ", applied.message()));
    } else if (op < 16) {  // a raw code or an Action proto from bytes, for any seat
      const int seat = in.ConsumeIntegralInRange(-2, n + 1);
      engine::Action action = 0;
      if (op == 15) {
        std::unique_ptr<google::protobuf::Message> proto = game.ActionToProto(0);
        proto->Clear();
        if (!proto->ParseFromString(in.ConsumeRandomLengthString(64))) continue;
        absl::StatusOr<engine::Action> parsed = game.ActionFromProto(*proto);
        if (!parsed.ok()) {
          PARLOR_FUZZ_CHECK(parsed.status().code() == absl::StatusCode::kInvalidArgument,
                            "ActionFromProto refused with " + parsed.status().ToString());
          continue;
        }
        action = *parsed;
      } else {
        action = ChooseRawAction(state, in);
      }
      const std::vector<engine::Action> legal = state.LegalActions(seat);
      const bool is_legal = std::binary_search(legal.begin(), legal.end(), action);
      const absl::Status check = state.CheckAction(seat, action);
      PARLOR_FUZZ_CHECK(check.ok() == is_legal,
                        absl::StrCat("CheckAction(", seat, ", ", action, ") = ", check.ToString(),
                                     " but the action is ", is_legal ? "" : "not ", "legal"));
      if (is_legal) {
        absl::Status applied = state.Apply(seat, action);
        if (forced && applied.code() == absl::StatusCode::kDataLoss) return;
        PARLOR_FUZZ_CHECK(applied.ok(), "a legal raw action fails: " + applied.ToString());
      } else {
        PARLOR_FUZZ_CHECK(IsRefusal(check), "an illegal action refused with " + check.ToString());
        PARLOR_FUZZ_CHECK(!check.message().empty(), "a refusal without a message");
        const std::string before = state.SerializeToString();
        const absl::Status applied = state.Apply(seat, action);
        PARLOR_FUZZ_CHECK(applied == check, "Apply and CheckAction disagree: " +
                                                applied.ToString() + " vs " + check.ToString());
        CheckUnchanged(before, state, "an illegal action");
      }
    } else if (op == 16) {  // a forfeit (the timeout / resignation policy)
      const int seat = in.ConsumeIntegralInRange(-1, n);
      const std::string before = state.SerializeToString();
      const absl::Status forfeited = state.Forfeit(seat);
      if (!forfeited.ok()) {
        PARLOR_FUZZ_CHECK(IsRefusal(forfeited), "Forfeit refused with " + forfeited.ToString());
        CheckUnchanged(before, state, "a forfeit");
      }
    } else if (heavy_checks_left-- <= 0) {
      // The whole-state checks cost as much as many moves: a few per game keeps runs fast (the
      // end of the game gets them all anyway).
      continue;
    } else if (op == 17) {
      CheckState(state);
    } else if (op == 18) {
      CheckNoLeak(state, in.ConsumeIntegral<uint64_t>());
    } else {
      CheckReplay(state, /*check_seed=*/!forced);
    }
  }
  CheckState(state);
  CheckReplay(state, /*check_seed=*/!forced);
  if (state.IsTerminal()) {
    const std::string before = state.SerializeToString();
    for (int seat = 0; seat < n; ++seat) {
      PARLOR_FUZZ_CHECK(!state.Apply(seat, 0).ok(), "an action accepted after the game is over");
      PARLOR_FUZZ_CHECK(!state.Forfeit(seat).ok(), "a forfeit accepted after the game is over");
    }
    CheckUnchanged(before, state, "an action after the end");
  }
}

}  // namespace
}  // namespace parlor::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  parlor::fuzz::Play(parlor::fuzz::GameNamed(PARLOR_FUZZ_GAME), in);
  return 0;
}
