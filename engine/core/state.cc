#include "engine/core/state.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/core/game.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"

namespace parlor::engine {

std::vector<int> SeatSet::ToVector() const {
  std::vector<int> seats;
  for (uint32_t b = bits_; b != 0; b &= b - 1) seats.push_back(std::countr_zero(b));
  return seats;
}

// ---- Chance ----------------------------------------------------------------------------------

int Chance::Uniform(int n) { return state_->NextOutcome(0, n - 1); }

int Chance::Roll(int sides) { return state_->NextOutcome(1, sides); }

void Chance::Shuffle(std::span<int32_t> items) {
  State& s = *state_;
  const size_t n = items.size();
  const uint64_t first_draw = s.rng_draws_;
  const bool forced = s.forced_ != nullptr && s.forced_next_ < s.forced_->size();
  if (!forced || s.check_forced_against_seed_) {
    std::vector<int32_t> drawn(items.begin(), items.end());
    for (size_t i = n; i > 1; --i) {
      const size_t j = static_cast<size_t>(s.rng_.Uniform(first_draw + (n - i), i));
      std::swap(drawn[i - 1], drawn[j]);
    }
    if (!forced) std::copy(drawn.begin(), drawn.end(), items.begin());
    if (forced) {
      // Compare against the recorded order below.
      if (s.forced_->size() - s.forced_next_ < n ||
          !std::equal(drawn.begin(), drawn.end(), s.forced_->begin() + s.forced_next_)) {
        if (s.chance_error_.empty()) {
          s.chance_error_ = absl::StrCat("the shuffle at draw ", first_draw,
                                         " does not match what the seed draws");
        }
      }
    }
  }
  if (forced) {
    if (s.forced_->size() - s.forced_next_ < n) {
      if (s.chance_error_.empty()) s.chance_error_ = "the log ends in the middle of a shuffle";
      s.forced_next_ = s.forced_->size();
    } else {
      std::vector<int32_t> given(s.forced_->begin() + s.forced_next_,
                                 s.forced_->begin() + s.forced_next_ + n);
      std::vector<int32_t> a = given, b(items.begin(), items.end());
      std::sort(a.begin(), a.end());
      std::sort(b.begin(), b.end());
      if (a != b) {
        if (s.chance_error_.empty()) {
          s.chance_error_ = "a recorded shuffle is not an order of the shuffled items";
        }
      } else {
        std::copy(given.begin(), given.end(), items.begin());
      }
      s.forced_next_ += n;
    }
  }
  s.rng_draws_ = first_draw + (n > 1 ? n - 1 : 0);
  for (int32_t v : items) s.RecordOutcome(v);
}

int State::NextOutcome(int lo, int hi) {
  const uint64_t draw = rng_draws_++;
  const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
  int value;
  if (forced_ != nullptr && forced_next_ < forced_->size()) {
    value = (*forced_)[forced_next_++];
    if (value < lo || value > hi) {
      if (chance_error_.empty()) {
        chance_error_ = absl::StrCat("recorded outcome ", value, " of draw ", draw, " is outside ",
                                     lo, "..", hi);
      }
      value = lo;
    } else if (check_forced_against_seed_ &&
               value != lo + static_cast<int>(rng_.Uniform(draw, span))) {
      if (chance_error_.empty()) {
        chance_error_ = absl::StrCat("recorded outcome ", value, " of draw ", draw,
                                     " does not match what the seed draws");
      }
    }
  } else {
    value = lo + static_cast<int>(rng_.Uniform(draw, span));
  }
  RecordOutcome(value);
  return value;
}

void State::RecordOutcome(int32_t value) { outcomes_.push_back(value); }

// ---- State -----------------------------------------------------------------------------------

State::State(const Game& game, int num_players, std::shared_ptr<const Options> options)
    : game_(&game), num_players_(num_players), options_(std::move(options)), rng_(Seed{}) {}

State::~State() = default;

SeatSet State::ActingSeats() const {
  if (IsTerminal()) return {};
  return ActingSeatsImpl();
}

bool State::IsTerminal() const { return ended_by_forfeit_ || IsTerminalImpl(); }

std::vector<Action> State::LegalActions(int seat) const {
  std::vector<Action> actions;
  if (seat < 0 || seat >= num_players_ || IsTerminal() || !ActingSeatsImpl().Contains(seat)) {
    return actions;
  }
  LegalActionsImpl(seat, &actions);
  return actions;
}

absl::Status State::CheckActionImpl(int seat, Action action) const {
  std::vector<Action> legal;
  LegalActionsImpl(seat, &legal);
  if (std::binary_search(legal.begin(), legal.end(), action)) return absl::OkStatus();
  return absl::FailedPreconditionError(
      absl::StrCat("that action is not allowed now: ", ActionToStringImpl(seat, action)));
}

absl::Status State::NotYourTurnImpl(int seat) const {
  std::vector<std::string> waiting;
  for (int s : ActingSeatsImpl().ToVector()) waiting.push_back(absl::StrCat(s));
  return absl::FailedPreconditionError(absl::StrCat(
      "it is not seat ", seat, "'s turn; waiting for seat ", absl::StrJoin(waiting, " and seat ")));
}

absl::Status State::GameOverImpl(int) const {
  return absl::FailedPreconditionError("the game is over");
}

absl::Status State::CheckAction(int seat, Action action) const {
  if (seat < 0 || seat >= num_players_) {
    return absl::InvalidArgumentError(absl::StrCat(
        "seat ", seat, " does not exist; this game has seats 0 to ", num_players_ - 1));
  }
  if (IsTerminal()) return GameOverImpl(seat);
  if (!ActingSeatsImpl().Contains(seat)) return NotYourTurnImpl(seat);
  return CheckActionImpl(seat, action);
}

absl::StatusOr<Action> State::CheckMessage(int seat, const google::protobuf::Any& action) const {
  absl::StatusOr<std::unique_ptr<google::protobuf::Message>> message =
      game_->UnpackAction(action);  // step 1
  if (!message.ok()) return message.status();
  return CheckMessage(seat, **message);
}

absl::StatusOr<Action> State::CheckMessage(int seat,
                                           const google::protobuf::Message& action) const {
  if (action.GetDescriptor() != game_->ActionDescriptor()) {  // step 1
    return absl::InvalidArgumentError(absl::StrCat(
        "action: ", game_->name(), " expects a ", game_->ActionDescriptor()->full_name(),
        "; got a ", action.GetDescriptor()->full_name()));
  }
  if (seat < 0 || seat >= num_players_) {  // step 2
    return absl::InvalidArgumentError(absl::StrCat(
        "seat ", seat, " does not exist; this game has seats 0 to ", num_players_ - 1));
  }
  if (IsTerminal()) return GameOverImpl(seat);                          // step 3
  if (!ActingSeatsImpl().Contains(seat)) return NotYourTurnImpl(seat);  // step 4
  absl::StatusOr<Action> code = game_->ActionFromProto(action);         // step 5
  if (!code.ok()) return code.status();
  if (absl::Status s = CheckActionImpl(seat, *code); !s.ok()) return s;  // step 6
  return code;
}

absl::StatusOr<Action> State::ApplyMessage(int seat, const google::protobuf::Any& action) {
  absl::StatusOr<Action> code = CheckMessage(seat, action);
  if (!code.ok()) return code.status();
  if (absl::Status s = Apply(seat, *code); !s.ok()) return s;
  return code;
}

absl::StatusOr<Action> State::ApplyMessage(int seat, const google::protobuf::Message& action) {
  absl::StatusOr<Action> code = CheckMessage(seat, action);
  if (!code.ok()) return code.status();
  if (absl::Status s = Apply(seat, *code); !s.ok()) return s;
  return code;
}

absl::Status State::Apply(int seat, Action action) {
  if (absl::Status s = CheckAction(seat, action); !s.ok()) return s;
  log_.push_back(
      {v1::LogEntry::KIND_ACTION, seat, action, static_cast<uint32_t>(outcomes_.size()), 0});
  Chance chance(this);
  ApplyImpl(seat, action, chance);
  log_.back().outcomes_count = static_cast<uint32_t>(outcomes_.size()) - log_.back().outcomes_begin;
  if (!chance_error_.empty()) return absl::DataLossError(chance_error_);
  return absl::OkStatus();
}

int State::NumSides() const {
  uint32_t teams = 0;
  for (int s = 0; s < num_players_; ++s) teams |= uint32_t{1} << TeamOf(s);
  return std::popcount(teams);
}

absl::Status State::Forfeit(int seat) {
  if (seat < 0 || seat >= num_players_) {
    return absl::InvalidArgumentError(absl::StrCat(
        "seat ", seat, " does not exist; this game has seats 0 to ", num_players_ - 1));
  }
  if (IsTerminal()) return absl::FailedPreconditionError("the game is over");
  if (forfeited_.Contains(seat)) {
    return absl::FailedPreconditionError(absl::StrCat("seat ", seat, " has already forfeited"));
  }
  const int team = TeamOf(seat);
  for (int s = 0; s < num_players_; ++s) {
    if (TeamOf(s) == team && !forfeited_.Contains(s)) {
      forfeited_.Insert(s);
      forfeit_order_.push_back(s);
    }
  }
  log_.push_back({v1::LogEntry::KIND_FORFEIT, seat, 0, static_cast<uint32_t>(outcomes_.size()), 0});
  uint32_t live_teams = 0;
  for (int s = 0; s < num_players_; ++s) {
    if (!forfeited_.Contains(s)) live_teams |= uint32_t{1} << TeamOf(s);
  }
  if (std::popcount(live_teams) < 2) ended_by_forfeit_ = true;
  return absl::OkStatus();
}

Outcome State::GetOutcome() const {
  Outcome outcome;
  outcome.scores = ScoresImpl();
  std::vector<int> rule_ranks(num_players_, 1);
  if (ended_by_forfeit_) {
    outcome.reason = absl::StrCat("seat ", forfeit_order_.back(), " forfeited");
  } else {
    rule_ranks = RanksImpl();
    outcome.reason = EndReasonImpl();
  }
  // The k-th forfeit event of each seat's team; later forfeits rank above earlier. A forfeit puts
  // its seat's whole team into forfeit_order_ at once, so each event is a run of one team there.
  std::vector<int> forfeit_event(num_players_, -1);
  int event = -1;
  for (size_t i = 0; i < forfeit_order_.size(); ++i) {
    if (i == 0 || TeamOf(forfeit_order_[i]) != TeamOf(forfeit_order_[i - 1])) ++event;
    forfeit_event[forfeit_order_[i]] = event;
  }
  using Key = std::tuple<int, int, int>;
  std::vector<Key> keys(num_players_);
  for (int s = 0; s < num_players_; ++s) {
    keys[s] = forfeit_event[s] < 0 ? Key{0, 0, rule_ranks[s]} : Key{1, -forfeit_event[s], 0};
  }
  // Sides are ranked, not seats (game rules 7 and 8): a side's standing is its best seat's
  // (team-mates share it anyway), its rank 1 + the number of sides strictly ahead of it, and
  // every seat takes its side's rank: 1, 1, 2, 2 when one of two teams wins.
  std::map<int, Key> side_key;
  for (int s = 0; s < num_players_; ++s) {
    auto [it, inserted] = side_key.emplace(TeamOf(s), keys[s]);
    if (!inserted) it->second = std::min(it->second, keys[s]);
  }
  outcome.ranks.resize(num_players_);
  for (int s = 0; s < num_players_; ++s) {
    const Key& mine = side_key[TeamOf(s)];
    outcome.ranks[s] =
        1 + static_cast<int>(std::count_if(side_key.begin(), side_key.end(),
                                           [&](const auto& side) { return side.second < mine; }));
  }
  return outcome;
}

State::Ending State::GetEnding() const {
  Ending ending;
  ending.forfeited_seats = forfeit_order_;
  if (!IsTerminal()) return ending;
  Outcome outcome = GetOutcome();
  ending.over = true;
  ending.ranks = std::move(outcome.ranks);
  ending.reason = std::move(outcome.reason);
  return ending;
}

std::string State::ActionToString(int seat, Action action) const {
  return ActionToStringImpl(seat, action);
}

std::unique_ptr<google::protobuf::Message> State::View(const Viewer& viewer) const {
  if (viewer.kind == Viewer::Kind::kSeat && (viewer.seat < 0 || viewer.seat >= num_players_)) {
    return ViewImpl(Viewer::Spectator());
  }
  return ViewImpl(viewer);
}

double State::Heuristic(int seat) const {
  if (IsTerminal()) {
    const Outcome o = GetOutcome();
    return static_cast<double>(num_players_ - o.ranks[seat]) * 1000.0;
  }
  const std::vector<int64_t> scores = ScoresImpl();
  int64_t best_other = INT64_MIN;
  for (int s = 0; s < num_players_; ++s) {
    if (TeamOf(s) != TeamOf(seat)) best_other = std::max(best_other, scores[s]);
  }
  return static_cast<double>(scores[seat] - (best_other == INT64_MIN ? 0 : best_other));
}

void State::ResampleHiddenImpl(int, Rng&) {}

std::unique_ptr<State> State::ResampleHidden(int observer, Rng& rng) const {
  std::unique_ptr<State> copy = CloneImpl();
  Seed fresh;
  for (size_t i = 0; i < fresh.bytes.size(); ++i)
    fresh.bytes[i] = static_cast<uint8_t>(rng.Uniform(256));
  copy->rng_ = CounterRng(fresh);
  copy->forced_ = nullptr;
  copy->forced_next_ = 0;
  copy->ResampleHiddenImpl(observer, rng);
  return copy;
}

std::unique_ptr<State> State::Clone() const { return CloneImpl(); }

v1::GameRecord State::Serialize(LogForm form) const {
  v1::GameRecord record;
  SerializeInto(&record, form);
  return record;
}

std::optional<v1::LogEntry> State::LogEntryAt(int64_t version) const {
  // log_[0] is the setup (version 0), and log_[i] for i >= 1 is version omitted_entries_ + i.
  int64_t index = 0;
  if (version > omitted_entries_) {
    index = version - omitted_entries_;
  } else if (version != 0) {
    return std::nullopt;  // left out of the record this state was loaded from, or negative
  }
  if (index >= static_cast<int64_t>(log_.size())) return std::nullopt;
  v1::LogEntry out;
  WriteEntry(log_[static_cast<size_t>(index)], &out);
  return out;
}

void State::WriteEntry(const LogEntry& e, v1::LogEntry* out) const {
  out->set_kind(e.kind);
  out->set_seat(e.seat);
  out->set_action(e.action);
  out->mutable_outcomes()->Add(outcomes_.begin() + e.outcomes_begin,
                               outcomes_.begin() + e.outcomes_begin + e.outcomes_count);
}

void State::SerializeInto(v1::GameRecord* out, LogForm form) const {
  v1::GameRecord& record = *out;
  record.Clear();
  record.set_game(game_->name());
  record.set_num_players(num_players_);
  for (const auto& [name, value] : options_->values()) (*record.mutable_options())[name] = value;
  record.set_seed(std::string(rng_.seed().AsBytes()));
  record.set_rng_draws(rng_draws_);
  const size_t entries = form == LogForm::kSetupOnly ? 1 : log_.size();
  for (size_t i = 0; i < entries; ++i) WriteEntry(log_[i], record.add_log());
  record.set_omitted_entries(form == LogForm::kSetupOnly ? NumMoves() : omitted_entries_);
  for (int32_t s : forfeit_order_) record.add_forfeits(s);
  record.set_ended_by_forfeit(ended_by_forfeit_);
  SaveImpl(record.mutable_state());
}

std::string State::SerializeToString() const {
  std::string bytes;
  google::protobuf::io::StringOutputStream stream(&bytes);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  Serialize().SerializeToCodedStream(&coded);
  coded.Trim();
  return bytes;
}

}  // namespace parlor::engine
