#include "engine/core/game.h"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/message.h"

namespace parlor::engine {

Game::~Game() = default;

absl::Status Game::ValidateSetup(int, const Options&) const { return absl::OkStatus(); }

absl::Status Game::CheckSetup(int num_players, const Options& options) const {
  if (num_players < info_.min_players || num_players > info_.max_players) {
    return absl::InvalidArgumentError(
        info_.min_players == info_.max_players
            ? absl::StrCat(info_.display_name, " is played by exactly ", info_.min_players,
                           " players; got ", num_players)
            : absl::StrCat(info_.display_name, " is played by ", info_.min_players, " to ",
                           info_.max_players, " players; got ", num_players));
  }
  return ValidateSetup(num_players, options);
}

absl::StatusOr<Options> Game::ParseOptions(const std::map<std::string, std::string>& raw,
                                           int num_players) const {
  absl::StatusOr<Options> options = engine::ParseOptions(info_.options, raw);
  if (!options.ok()) return options.status();
  if (absl::Status s = CheckSetup(num_players, *options); !s.ok()) return s;
  return options;
}

absl::StatusOr<std::unique_ptr<State>> Game::Start(
    int num_players, const Options& options, const Seed& seed,
    std::shared_ptr<const std::vector<int32_t>> forced, bool check_seed) const {
  // Options given as values (not strings) are checked against the specs here too.
  absl::StatusOr<Options> checked = ValidateOptions(info_.options, options.values());
  if (!checked.ok()) return checked.status();
  if (absl::Status s = CheckSetup(num_players, *checked); !s.ok()) return s;
  std::unique_ptr<State> state =
      CreateState(num_players, std::make_shared<const Options>(*std::move(checked)));
  state->rng_ = CounterRng(seed);
  state->forced_ = std::move(forced);
  state->check_forced_against_seed_ = check_seed;
  state->log_.push_back({v1::LogEntry::KIND_SETUP, -1, 0, 0, 0});
  Chance chance(state.get());
  state->SetupImpl(chance);
  state->log_.back().outcomes_count = static_cast<uint32_t>(state->outcomes_.size());
  if (!state->chance_error_.empty()) {
    return absl::DataLossError(absl::StrCat("setup: ", state->chance_error_));
  }
  return state;
}

absl::StatusOr<std::unique_ptr<State>> Game::NewGame(int num_players, const Options& options,
                                                     const Seed& seed) const {
  return Start(num_players, options, seed, nullptr, false);
}

absl::StatusOr<std::unique_ptr<State>> Game::NewGameWithOutcomes(
    int num_players, const Options& options, const Seed& seed,
    std::vector<int32_t> outcomes) const {
  return Start(num_players, options, seed,
               std::make_shared<const std::vector<int32_t>>(std::move(outcomes)), false);
}

namespace {

struct RecordHeader {
  Options options;
  Seed seed;
};

absl::StatusOr<RecordHeader> CheckRecordHeader(const Game& game, const v1::GameRecord& record) {
  if (record.game() != game.name()) {
    return absl::InvalidArgumentError(
        absl::StrCat("record is of game \"", record.game(), "\", not ", game.name()));
  }
  std::map<std::string, int64_t> values(record.options().begin(), record.options().end());
  absl::StatusOr<Options> options = ValidateOptions(game.info().options, values);
  if (!options.ok()) return options.status();
  if (absl::Status s = game.CheckSetup(record.num_players(), *options); !s.ok()) return s;
  absl::StatusOr<Seed> seed = Seed::FromBytes(record.seed());
  if (!seed.ok())
    return absl::InvalidArgumentError(absl::StrCat("record: ", seed.status().message()));
  if (record.log_size() == 0 || record.log(0).kind() != v1::LogEntry::KIND_SETUP ||
      record.log(0).seat() != -1) {
    return absl::InvalidArgumentError("record: the log must start with the setup entry");
  }
  const int64_t max_moves = game.MaxMoves(record.num_players(), *options);
  if (record.omitted_entries() < 0 || record.omitted_entries() > max_moves) {
    return absl::InvalidArgumentError(
        absl::StrCat("record: omitted_entries is ", record.omitted_entries(),
                     "; it must be 0 to the game's bound of ", max_moves, " moves"));
  }
  if (record.omitted_entries() + record.log_size() - 1 > max_moves) {
    return absl::InvalidArgumentError(
        absl::StrCat("record: ", record.omitted_entries() + record.log_size() - 1,
                     " moves exceed the game's bound of ", max_moves));
  }
  for (int i = 1; i < record.log_size(); ++i) {
    const v1::LogEntry& e = record.log(i);
    if (e.kind() != v1::LogEntry::KIND_ACTION && e.kind() != v1::LogEntry::KIND_FORFEIT) {
      return absl::InvalidArgumentError(
          absl::StrCat("record: log entry ", i, " must be an action or a forfeit"));
    }
    if (e.seat() < 0 || e.seat() >= record.num_players()) {
      return absl::InvalidArgumentError(absl::StrCat("record: log entry ", i, " names seat ",
                                                     e.seat(), ", which does not exist"));
    }
  }
  return RecordHeader{*std::move(options), *seed};
}

// The record's forfeits (every forfeiting seat's whole team, in the order the teams forfeited),
// checked against its log: the forfeit entries it holds must be the last teams to forfeit (all of
// them when the record leaves no entry out), and a team forfeits once.
absl::StatusOr<std::vector<int32_t>> CheckForfeits(const State& state,
                                                   const v1::GameRecord& record) {
  const int n = record.num_players();
  std::vector<int32_t> held;
  SeatSet teams_held;
  for (int i = 1; i < record.log_size(); ++i) {
    const v1::LogEntry& e = record.log(i);
    if (e.kind() != v1::LogEntry::KIND_FORFEIT) continue;
    const int team = state.TeamOf(e.seat());
    if (teams_held.Contains(team)) {
      return absl::InvalidArgumentError(absl::StrCat("record: log entry ", i, " forfeits seat ",
                                                     e.seat(), ", whose team already forfeited"));
    }
    teams_held.Insert(team);
    for (int s = 0; s < n; ++s) {
      if (state.TeamOf(s) == team) held.push_back(s);
    }
  }
  const std::vector<int32_t> forfeits(record.forfeits().begin(), record.forfeits().end());
  const bool matches = record.omitted_entries() == 0
                           ? forfeits == held
                           : forfeits.size() >= held.size() &&
                                 std::equal(held.begin(), held.end(),
                                            forfeits.end() - static_cast<ptrdiff_t>(held.size()));
  if (!matches) return absl::InvalidArgumentError("record: the forfeits do not match the log");
  // The forfeits of entries left out: whole teams (so each team once), no seat twice.
  SeatSet seen;
  for (size_t i = 0; i < forfeits.size();) {
    const int32_t first = forfeits[i];
    if (first < 0 || first >= n || seen.Contains(first)) {
      return absl::InvalidArgumentError(
          absl::StrCat("record: forfeits lists seat ", first, " more than once or out of range"));
    }
    const int team = state.TeamOf(first);
    for (int s = 0; s < n; ++s) {
      if (state.TeamOf(s) != team) continue;
      if (i >= forfeits.size() || forfeits[i] != s) {
        return absl::InvalidArgumentError(absl::StrCat(
            "record: forfeits must list the whole team of seat ", first, " in seat order"));
      }
      seen.Insert(s);
      ++i;
    }
  }
  return forfeits;
}

}  // namespace

absl::StatusOr<std::unique_ptr<State>> Game::Deserialize(const v1::GameRecord& record) const {
  absl::StatusOr<RecordHeader> header = CheckRecordHeader(*this, record);
  if (!header.ok()) return header.status();
  std::unique_ptr<State> state =
      CreateState(record.num_players(), std::make_shared<const Options>(header->options));
  state->rng_ = CounterRng(header->seed);
  state->rng_draws_ = record.rng_draws();
  state->omitted_entries_ = record.omitted_entries();
  for (const v1::LogEntry& e : record.log()) {
    state->log_.push_back({e.kind(), e.seat(), e.action(),
                           static_cast<uint32_t>(state->outcomes_.size()),
                           static_cast<uint32_t>(e.outcomes_size())});
    state->outcomes_.insert(state->outcomes_.end(), e.outcomes().begin(), e.outcomes().end());
  }
  absl::StatusOr<std::vector<int32_t>> forfeits = CheckForfeits(*state, record);
  if (!forfeits.ok()) return forfeits.status();
  for (int32_t s : *forfeits) state->forfeited_.Insert(s);
  // A forfeit ends the game exactly when fewer than two sides are left (State::Forfeit); a flag
  // that disagrees would make a game over with nobody to blame (GetOutcome reads the last
  // forfeit), or a game going on after it ended.
  uint32_t live_teams = 0;
  for (int s = 0; s < record.num_players(); ++s) {
    if (!state->forfeited_.Contains(s)) live_teams |= uint32_t{1} << state->TeamOf(s);
  }
  const bool ended_by_forfeit = !forfeits->empty() && std::popcount(live_teams) < 2;
  if (record.ended_by_forfeit() != ended_by_forfeit) {
    return absl::InvalidArgumentError(
        absl::StrCat("record: ended_by_forfeit is ", record.ended_by_forfeit() ? "set" : "not set",
                     " but the forfeits ", ended_by_forfeit ? "end" : "do not end", " the game"));
  }
  state->forfeit_order_ = *std::move(forfeits);
  state->ended_by_forfeit_ = ended_by_forfeit;
  if (absl::Status s = state->LoadImpl(record.state()); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("record: game state: ", s.message()));
  }
  return state;
}

absl::StatusOr<std::unique_ptr<State>> Game::Replay(const v1::GameRecord& record,
                                                    bool check_seed) const {
  absl::StatusOr<RecordHeader> header = CheckRecordHeader(*this, record);
  if (!header.ok()) return header.status();
  if (record.omitted_entries() != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "record: it leaves out ", record.omitted_entries(),
        " log entries (omitted_entries); a replay needs the whole log from the setup on"));
  }
  auto outcomes = std::make_shared<std::vector<int32_t>>();
  for (const v1::LogEntry& e : record.log()) {
    outcomes->insert(outcomes->end(), e.outcomes().begin(), e.outcomes().end());
  }
  absl::StatusOr<std::unique_ptr<State>> started =
      Start(record.num_players(), header->options, header->seed, outcomes, check_seed);
  if (!started.ok()) return started.status();
  State& state = **started;
  auto entry_mismatch = [&](int i, absl::string_view what) {
    return absl::DataLossError(absl::StrCat("log entry ", i, " does not replay: ", what));
  };
  if (state.outcomes_.size() != static_cast<size_t>(record.log(0).outcomes_size())) {
    return entry_mismatch(0, "the setup drew a different number of chance outcomes");
  }
  for (int i = 1; i < record.log_size(); ++i) {
    const v1::LogEntry& e = record.log(i);
    const size_t before = state.outcomes_.size();
    absl::Status s = e.kind() == v1::LogEntry::KIND_FORFEIT ? state.Forfeit(e.seat())
                                                            : state.Apply(e.seat(), e.action());
    if (!s.ok()) return entry_mismatch(i, s.message());
    if (state.outcomes_.size() - before != static_cast<size_t>(e.outcomes_size())) {
      return entry_mismatch(i, "it drew a different number of chance outcomes");
    }
  }
  state.forced_ = nullptr;
  state.forced_next_ = 0;
  state.check_forced_against_seed_ = false;
  return started;
}

absl::StatusOr<Action> Game::ActionFromAny(const google::protobuf::Any& any) const {
  absl::StatusOr<std::unique_ptr<google::protobuf::Message>> message = UnpackAction(any);
  if (!message.ok()) return message.status();
  return ActionFromProto(**message);
}

absl::StatusOr<std::unique_ptr<google::protobuf::Message>> Game::UnpackAction(
    const google::protobuf::Any& any) const {
  const google::protobuf::Descriptor* type = ActionDescriptor();
  absl::string_view url = any.type_url();
  const size_t slash = url.rfind('/');
  absl::string_view full_name = slash == absl::string_view::npos ? url : url.substr(slash + 1);
  if (full_name != type->full_name()) {
    return absl::InvalidArgumentError(absl::StrCat("action: ", info_.name, " expects a ",
                                                   type->full_name(), "; got \"", url, "\""));
  }
  std::unique_ptr<google::protobuf::Message> message(
      google::protobuf::MessageFactory::generated_factory()->GetPrototype(type)->New());
  if (!any.UnpackTo(message.get())) {
    return absl::InvalidArgumentError(
        absl::StrCat("action: the bytes are not a valid ", type->full_name()));
  }
  return message;
}

}  // namespace parlor::engine
