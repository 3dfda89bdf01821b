#include "engine/conformance/conformance.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "engine/bots/bot.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"

namespace parlor::conformance {
namespace {

using engine::Action;
using engine::Game;
using engine::Rng;
using engine::SeatSet;
using engine::State;
using engine::Viewer;

#define CONFORMANCE_RETURN_IF_ERROR(expr)                             \
  do {                                                                \
    if (absl::Status _status = (expr); !_status.ok()) return _status; \
  } while (0)

template <typename... Args>
absl::Status Fail(const Args&... args) {
  return absl::InternalError(absl::StrCat(args...));
}

std::string DeterministicBytes(const google::protobuf::Message& message) {
  std::string bytes;
  google::protobuf::io::StringOutputStream stream(&bytes);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  message.SerializeToCodedStream(&coded);
  coded.Trim();
  return bytes;
}

std::string ViewerName(const Viewer& viewer) {
  switch (viewer.kind) {
    case Viewer::Kind::kSeat:
      return absl::StrCat("seat ", viewer.seat);
    case Viewer::Kind::kSpectator:
      return "a spectator";
    case Viewer::Kind::kAll:
      return "the reveal-all viewer";
  }
  return "?";
}

std::string Actions(const std::vector<Action>& actions) { return absl::StrJoin(actions, ","); }

int64_t RandomCode(Rng& rng) {
  return static_cast<int64_t>(rng.Uniform(uint64_t{1} << 32) << 32 |
                              rng.Uniform(uint64_t{1} << 32));
}

double Scale() {
  const char* text = std::getenv("PARLOR_CONFORMANCE_SCALE");
  if (text == nullptr || *text == '\0') return 1.0;
  char* end = nullptr;
  const double scale = std::strtod(text, &end);
  return end != text && scale > 0 ? scale : 1.0;
}

class Playout {
 public:
  Playout(const Game& game, const ConformanceOptions& opts, ConformanceFigures& figures,
          uint64_t seed)
      : game_(game), opts_(opts), figures_(figures), rng_(seed), seed_(seed) {}

  // Plays and checks one game; on failure `context_` says where.
  absl::Status Run();
  const std::string& context() const { return context_; }
  const State* state() const { return state_.get(); }

 private:
  absl::Status PickSetup(int* num_players, engine::Options* options);
  absl::Status CheckBasics(const State& state, std::vector<std::vector<Action>>* all_legal);
  absl::Status CheckPosition(const State& state);
  absl::Status CheckSeatActions(const State& state, int seat, const std::vector<Action>& legal,
                                const std::vector<std::vector<Action>>& all_legal);
  absl::Status CheckRefused(const State& state, int seat, Action action, bool must_be_legal_here);
  absl::Status CheckShapeIsStateless(const State& state, int seat, Action action,
                                     const absl::Status& check);
  absl::Status CheckViews(const State& state);
  absl::Status CheckEndingInView(const State& state, const Viewer& viewer,
                                 const google::protobuf::Message& view);
  absl::Status CheckMessagePath(const State& state, int seat);
  std::vector<std::unique_ptr<google::protobuf::Message>> MalformedMessages();
  absl::Status CheckReplay(const State& state);
  absl::Status CheckRecordWithoutLog(const State& state);
  absl::Status CheckOutcome(const State& state);
  absl::Status DoForfeit(State& state);

  const Game& game_;
  const ConformanceOptions& opts_;
  ConformanceFigures& figures_;
  Rng rng_;
  uint64_t seed_;
  std::unique_ptr<State> state_;
  std::unique_ptr<State> probe_;  // the refused actions are tried on this copy
  std::string context_;
  std::vector<int> forfeit_sequence_;  // seats that forfeited, in order
  // Codes legal somewhere earlier in the playout (so ActionToProto may be called on them), a
  // bounded sample: sent later as messages, they are well-formed but often refused.
  std::vector<Action> known_codes_;
  // For codes sent by a seat that may act (game not over, its turn): the ones refused for their
  // shape (INVALID_ARGUMENT) and the ones that passed the shape checks (accepted, or refused by a
  // rule with FAILED_PRECONDITION), each with where that happened. Shape checks never look at the
  // state (engine/GAMES.md, "Refusals", step 5 before step 6), so no code may be in both.
  std::map<Action, std::string> shape_refused_;
  std::map<Action, std::string> shape_passed_;
  // Seat positions that reached the public-choices check (every third gets it).
  int64_t public_choice_turns_ = 0;
};

absl::Status Playout::PickSetup(int* num_players, engine::Options* options) {
  const engine::GameInfo& info = game_.info();
  const int span = info.max_players - info.min_players + 1;
  if (span < 1) return Fail("GameInfo: max_players is below min_players");
  if (rng_.UniformDouble() < opts_.random_options_share) {
    for (int attempt = 0; attempt < 20; ++attempt) {
      const int n = info.min_players + static_cast<int>(rng_.Uniform(span));
      std::map<std::string, int64_t> values;
      for (const engine::OptionSpec& spec : info.options) {
        switch (spec.type) {
          case engine::OptionSpec::Type::kInt:
            values[spec.name] =
                spec.min_value + static_cast<int64_t>(rng_.Uniform(
                                     static_cast<uint64_t>(spec.max_value - spec.min_value) + 1));
            break;
          case engine::OptionSpec::Type::kBool:
            values[spec.name] = static_cast<int64_t>(rng_.Uniform(2));
            break;
          case engine::OptionSpec::Type::kChoice:
            values[spec.name] = static_cast<int64_t>(rng_.Uniform(spec.choices.size()));
            break;
        }
      }
      absl::StatusOr<engine::Options> checked = engine::ValidateOptions(info.options, values);
      if (checked.ok() && game_.CheckSetup(n, *checked).ok()) {
        *num_players = n;
        *options = *std::move(checked);
        return absl::OkStatus();
      }
    }
  }
  // Defaults, with a player count the defaults allow.
  for (int attempt = 0; attempt < 2 * span + 4; ++attempt) {
    const int n = attempt < 2 * span ? info.min_players + static_cast<int>(rng_.Uniform(span))
                                     : info.min_players + attempt - 2 * span;
    absl::StatusOr<engine::Options> defaults = game_.ParseOptions({}, n);
    if (defaults.ok()) {
      *num_players = n;
      *options = *std::move(defaults);
      return absl::OkStatus();
    }
  }
  return Fail("the default options are refused for every player count");
}

absl::Status Playout::Run() {
  int num_players = 0;
  engine::Options options;
  context_ = "choosing the setup";
  CONFORMANCE_RETURN_IF_ERROR(PickSetup(&num_players, &options));
  std::vector<std::string> option_text;
  for (const auto& [name, value] : options.values()) {
    option_text.push_back(absl::StrCat(name, "=", value));
  }
  const std::string setup =
      absl::StrCat(num_players, " players, options {", absl::StrJoin(option_text, ", "), "}");
  context_ = absl::StrCat(setup, ", at setup");
  absl::StatusOr<std::unique_ptr<State>> started =
      game_.NewGame(num_players, options, engine::Seed::FromUint64(seed_));
  if (!started.ok()) return Fail("NewGame failed: ", started.status().ToString());
  state_ = *std::move(started);
  State& state = *state_;
  // The same seed deals the same game.
  absl::StatusOr<std::unique_ptr<State>> again =
      game_.NewGame(num_players, options, engine::Seed::FromUint64(seed_));
  if (!again.ok() || (*again)->SerializeToString() != state.SerializeToString()) {
    return Fail("two NewGame calls with the same seed and settings differ");
  }
  const int64_t max_moves = game_.MaxMoves(num_players, state.options());
  if (max_moves < 1) return Fail("MaxMoves is ", max_moves);

  bots::RandomBot random_bot;
  bots::KindFirstBot kind_first_bot;
  bots::Bot& bot = rng_.Uniform(2) == 0 ? static_cast<bots::Bot&>(random_bot) : kind_first_bot;
  const int64_t horizon = std::min<int64_t>(max_moves, 60);
  const int64_t forfeit_step =
      rng_.UniformDouble() < opts_.forfeit_share ? static_cast<int64_t>(rng_.Uniform(horizon)) : -1;
  const int64_t replay_step = static_cast<int64_t>(rng_.Uniform(horizon));
  if (forfeit_step >= 0) ++figures_.forfeit_playouts;

  bool just_forfeited = false;
  for (int64_t step = 0;; ++step) {
    context_ =
        absl::StrCat(setup, ", ", bot.name(), " bot, position after ", state.NumMoves(), " moves");
    const bool full = step < opts_.full_check_positions || state.IsTerminal() || just_forfeited ||
                      rng_.Uniform(static_cast<uint64_t>(step) + 1) <
                          static_cast<uint64_t>(opts_.full_check_positions);
    just_forfeited = false;
    if (full) {
      CONFORMANCE_RETURN_IF_ERROR(CheckPosition(state));
      ++figures_.full_steps;
    } else {
      std::vector<std::vector<Action>> all_legal;
      CONFORMANCE_RETURN_IF_ERROR(CheckBasics(state, &all_legal));
    }
    ++figures_.steps;
    if (step == replay_step) CONFORMANCE_RETURN_IF_ERROR(CheckReplay(state));
    if (state.IsTerminal()) break;
    if (state.NumMoves() >= max_moves) {
      return Fail("the game is not over after ", state.NumMoves(), " moves, its MaxMoves bound");
    }
    // Forfeits at the chosen step, and again later while more than two sides remain, so that
    // larger games see several forfeits.
    const bool forfeit_now =
        step == forfeit_step ||
        (!forfeit_sequence_.empty() && rng_.Uniform(static_cast<uint64_t>(horizon) * 2) == 0);
    if (forfeit_now) {
      CONFORMANCE_RETURN_IF_ERROR(DoForfeit(state));
      just_forfeited = true;
      ++figures_.moves_played;
      continue;
    }
    const std::vector<int> acting = state.ActingSeats().ToVector();
    const int seat = acting[rng_.Uniform(acting.size())];
    absl::StatusOr<Action> action = state.IsForfeited(seat) ? random_bot.Choose(state, seat, rng_)
                                                            : bot.Choose(state, seat, rng_);
    if (!action.ok()) return Fail("the bot found no action: ", action.status().ToString());
    if (absl::Status s = state.Apply(seat, *action); !s.ok()) {
      return Fail("legal action ", *action, " (", state.ActionToString(seat, *action), ") of seat ",
                  seat, " was refused: ", s.ToString());
    }
    ++figures_.moves_played;
  }
  context_ =
      absl::StrCat(setup, ", ", bot.name(), " bot, at the end after ", state.NumMoves(), " moves");
  if (state.NumMoves() > max_moves) {
    return Fail("the game took ", state.NumMoves(), " moves; MaxMoves is ", max_moves);
  }
  CONFORMANCE_RETURN_IF_ERROR(CheckOutcome(state));
  CONFORMANCE_RETURN_IF_ERROR(CheckReplay(state));
  // Nothing is accepted after the end.
  const std::string before = state.SerializeToString();
  for (int seat = 0; seat < state.num_players(); ++seat) {
    if (state.Forfeit(seat).ok()) return Fail("Forfeit(", seat, ") was accepted after the end");
  }
  if (state.SerializeToString() != before) return Fail("a refused forfeit changed the state");
  return absl::OkStatus();
}

absl::Status Playout::DoForfeit(State& state) {
  std::vector<int> candidates;
  for (int s = 0; s < state.num_players(); ++s) {
    if (!state.IsForfeited(s)) candidates.push_back(s);
  }
  const int seat = candidates[rng_.Uniform(candidates.size())];
  std::set<int> live_sides;
  for (int s = 0; s < state.num_players(); ++s) {
    if (!state.IsForfeited(s)) live_sides.insert(state.TeamOf(s));
  }
  if (absl::Status s = state.Forfeit(seat); !s.ok()) {
    return Fail("Forfeit(", seat, ") was refused: ", s.ToString());
  }
  forfeit_sequence_.push_back(seat);
  for (int s = 0; s < state.num_players(); ++s) {
    if (state.TeamOf(s) == state.TeamOf(seat) && !state.IsForfeited(s)) {
      return Fail("seat ", seat, " forfeited but its team-mate seat ", s, " did not");
    }
  }
  if (live_sides.size() <= 2 && !state.IsTerminal()) {
    return Fail("seat ", seat, " forfeited with two sides left, but the game goes on");
  }
  if (live_sides.size() > 2 && state.IsTerminal()) {
    return Fail("seat ", seat, " forfeited with ", live_sides.size(),
                " sides left, but the game ended");
  }
  if (state.Forfeit(seat).ok()) return Fail("seat ", seat, " could forfeit twice");
  return absl::OkStatus();
}

// The checks every position gets: cheap, independent of the log's length.
absl::Status Playout::CheckBasics(const State& state, std::vector<std::vector<Action>>* all_legal) {
  const int n = state.num_players();
  const SeatSet acting = state.ActingSeats();
  const bool terminal = state.IsTerminal();
  if (acting.empty() != terminal) {
    return Fail(terminal ? "the game is over but seats may act"
                         : "the game is not over but no seat may act");
  }
  if ((acting.bits() & ~SeatSet::FirstN(n).bits()) != 0) {
    return Fail("ActingSeats names a seat that does not exist");
  }
  all_legal->assign(n, {});
  for (int seat = 0; seat < n; ++seat) {
    (*all_legal)[seat] = state.LegalActions(seat);
    const std::vector<Action>& legal = (*all_legal)[seat];
    if (acting.Contains(seat) && legal.empty()) {
      return Fail("acting seat ", seat, " has no legal action");
    }
    if (!acting.Contains(seat) && !legal.empty()) {
      return Fail("seat ", seat, " may not act but has legal actions ", Actions(legal));
    }
    for (size_t i = 1; i < legal.size(); ++i) {
      if (legal[i - 1] >= legal[i]) {
        return Fail("the legal actions of seat ", seat,
                    " are not sorted and unique: ", Actions(legal));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status Playout::CheckPosition(const State& state) {
  const int n = state.num_players();
  std::vector<std::vector<Action>> all_legal;
  CONFORMANCE_RETURN_IF_ERROR(CheckBasics(state, &all_legal));
  const SeatSet acting = state.ActingSeats();
  const bool terminal = state.IsTerminal();
  if (static_cast<int>(state.Scores().size()) != n) {
    return Fail("Scores() has ", state.Scores().size(), " entries for ", n, " seats");
  }
  // Serialize -> deserialize -> serialize is exact.
  const engine::v1::GameRecord record = state.Serialize();
  const std::string before = DeterministicBytes(record);
  if (record.game() != game_.name()) return Fail("the record names game ", record.game());
  absl::StatusOr<std::unique_ptr<State>> loaded = game_.Deserialize(record);
  if (!loaded.ok()) {
    return Fail("Deserialize of its own record failed: ", loaded.status().ToString());
  }
  if ((*loaded)->SerializeToString() != before) {
    return Fail("serialize -> deserialize -> serialize is not identical");
  }
  if ((*loaded)->ActingSeats() != acting || (*loaded)->IsTerminal() != terminal) {
    return Fail("the deserialized state has other acting seats");
  }
  ++figures_.round_trips;
  CONFORMANCE_RETURN_IF_ERROR(CheckRecordWithoutLog(state));

  // Refused actions are tried on a clone, which must still equal the state afterwards.
  probe_ = state.Clone();
  for (int seat = 0; seat < n; ++seat) {
    CONFORMANCE_RETURN_IF_ERROR(CheckSeatActions(state, seat, all_legal[seat], all_legal));
  }
  for (int seat : {-1, n}) {
    absl::Status s = state.CheckAction(seat, 0);
    if (s.code() != absl::StatusCode::kInvalidArgument) {
      return Fail("CheckAction for seat ", seat, " (out of range) gave ", s.ToString(),
                  "; want INVALID_ARGUMENT");
    }
    if (probe_->Apply(seat, 0).ok()) return Fail("Apply for seat ", seat, " was accepted");
    if (probe_->Forfeit(seat).ok()) return Fail("Forfeit for seat ", seat, " was accepted");
  }
  if (state.SerializeToString() != before) {
    return Fail(
        "checking actions changed the state (a refused action modified it, or applying "
        "actions to clones did: clones share data with it)");
  }
  if (probe_->SerializeToString() != before) {
    return Fail(
        "a refused action changed the state (serialized bytes differ), or Clone() is "
        "not identical");
  }
  return CheckViews(state);
}

absl::Status Playout::CheckRefused(const State& state, int seat, Action action,
                                   bool must_be_legal_here) {
  const absl::Status check = state.CheckAction(seat, action);
  state.ActionToString(seat, action);  // must not crash for any code
  if (must_be_legal_here) {
    if (!check.ok()) {
      return Fail("legal action ", action, " of seat ", seat,
                  " is refused by CheckAction: ", check.ToString());
    }
    return CheckShapeIsStateless(state, seat, action, check);
  }
  ++figures_.illegal_actions_checked;
  CONFORMANCE_RETURN_IF_ERROR(CheckShapeIsStateless(state, seat, action, check));
  if (check.ok()) {
    return Fail("CheckAction accepts action ", action, " (", state.ActionToString(seat, action),
                ") of seat ", seat, ", which is not in its legal actions");
  }
  if (check.code() != absl::StatusCode::kInvalidArgument &&
      check.code() != absl::StatusCode::kFailedPrecondition) {
    return Fail("CheckAction refuses action ", action, " of seat ", seat, " with ",
                check.ToString(), "; want INVALID_ARGUMENT or FAILED_PRECONDITION");
  }
  if (check.message().empty()) {
    return Fail("CheckAction refuses action ", action, " of seat ", seat, " without a message");
  }
  const absl::Status applied = probe_->Apply(seat, action);
  if (applied.ok()) {
    return Fail("Apply accepts action ", action, " of seat ", seat,
                " which CheckAction refuses: ", check.ToString());
  }
  return absl::OkStatus();
}

absl::Status Playout::CheckShapeIsStateless(const State& state, int seat, Action action,
                                            const absl::Status& check) {
  if (seat < 0 || seat >= state.num_players() || state.IsTerminal() ||
      !state.ActingSeats().Contains(seat)) {
    return absl::OkStatus();  // steps 2-4 answer before the shape is looked at
  }
  const bool shape_refused = check.code() == absl::StatusCode::kInvalidArgument;
  std::map<Action, std::string>& same = shape_refused ? shape_refused_ : shape_passed_;
  const std::map<Action, std::string>& other = shape_refused ? shape_passed_ : shape_refused_;
  const std::string here =
      absl::StrCat("seat ", seat, " after move ", state.NumMoves(), ": ", check.ToString());
  if (auto it = other.find(action); it != other.end()) {
    return Fail("action code ", action, " is ",
                shape_refused ? "refused for its shape" : "past the shape checks", " (", here,
                ") but ", shape_refused ? "past the shape checks" : "refused for its shape",
                " elsewhere (", it->second,
                "): shape checks (INVALID_ARGUMENT) must not depend on the state and come before "
                "the checks of the position (engine/GAMES.md, \"Refusals\", steps 5 and 6)");
  }
  if (same.size() < 512) same.emplace(action, here);
  return absl::OkStatus();
}

absl::Status Playout::CheckSeatActions(const State& state, int seat,
                                       const std::vector<Action>& legal,
                                       const std::vector<std::vector<Action>>& all_legal) {
  // Every legal action: accepted, readable, round-trips through the public proto.
  for (Action a : legal) {
    CONFORMANCE_RETURN_IF_ERROR(CheckRefused(state, seat, a, /*must_be_legal_here=*/true));
    if (state.ActionToString(seat, a).empty()) {
      return Fail("ActionToString of legal action ", a, " is empty");
    }
    std::unique_ptr<google::protobuf::Message> proto = game_.ActionToProto(a);
    if (proto == nullptr || proto->GetDescriptor() != game_.ActionDescriptor()) {
      return Fail("ActionToProto(", a, ") is not a ", game_.ActionDescriptor()->full_name());
    }
    absl::StatusOr<Action> back = game_.ActionFromProto(*proto);
    if (!back.ok() || *back != a) {
      return Fail("ActionFromProto(ActionToProto(", a, ")) gives ",
                  back.ok() ? absl::StrCat(*back) : back.status().ToString());
    }
    google::protobuf::Any any;
    any.PackFrom(*proto);
    absl::StatusOr<Action> from_any = game_.ActionFromAny(any);
    if (!from_any.ok() || *from_any != a) {
      return Fail("ActionFromAny of legal action ", a, " does not round-trip");
    }
    ++figures_.legal_actions_checked;
    if (known_codes_.size() < 256) {
      known_codes_.push_back(a);
    } else {
      known_codes_[rng_.Uniform(known_codes_.size())] = a;
    }
  }
  // Legal actions apply (all of them, or a random sample on games with many).
  std::vector<Action> to_apply = legal;
  if (static_cast<int>(to_apply.size()) > opts_.max_applied_per_seat) {
    rng_.Shuffle(std::span<Action>(to_apply));
    to_apply.resize(opts_.max_applied_per_seat);
  }
  // A game whose choices are public (GameInfo::choices_public): per watching viewer, which
  // applied action left each view. Views are the cost here, so every third seat checked gets
  // this, and the reveal-all views are compared only when two actions leave a watcher the same.
  std::vector<Viewer> watchers;
  if (game_.info().choices_public && public_choice_turns_++ % 3 == 0) {
    watchers.push_back(Viewer::Spectator());
    for (int other = 0; other < state.num_players(); ++other) {
      if (other != seat) watchers.push_back(Viewer::Seat(other));
    }
  }
  std::vector<absl::flat_hash_map<std::string, size_t>> left_by(watchers.size());
  std::vector<std::pair<Action, std::unique_ptr<State>>> applied;
  for (Action a : to_apply) {
    std::unique_ptr<State> copy = state.Clone();
    if (absl::Status s = copy->Apply(seat, a); !s.ok()) {
      return Fail("legal action ", a, " (", state.ActionToString(seat, a), ") of seat ", seat,
                  " does not apply: ", s.ToString());
    }
    if (copy->NumMoves() != state.NumMoves() + 1) return Fail("Apply did not log the action");
    ++figures_.legal_actions_applied;
    if (watchers.empty()) continue;
    for (size_t w = 0; w < watchers.size(); ++w) {
      auto [it, added] =
          left_by[w].try_emplace(DeterministicBytes(*copy->View(watchers[w])), applied.size());
      if (added) continue;
      const auto& [b, twin] = applied[it->second];
      if (DeterministicBytes(*twin->View(Viewer::All())) !=
          DeterministicBytes(*copy->View(Viewer::All()))) {
        return Fail("the game declares its choices public, but ", ViewerName(watchers[w]),
                    " cannot tell seat ", seat, "'s action ", a, " (",
                    state.ActionToString(seat, a), ") from ", b, " (",
                    state.ActionToString(seat, b), "), which leaves a different state");
      }
    }
    applied.emplace_back(a, std::move(copy));
  }
  // Mutated, random and borrowed codes: CheckAction agrees with the legal list, refusals leave
  // the state unchanged.
  std::vector<Action> candidates = {0,
                                    -1,
                                    1,
                                    std::numeric_limits<Action>::min(),
                                    std::numeric_limits<Action>::max(),
                                    RandomCode(rng_),
                                    RandomCode(rng_),
                                    static_cast<Action>(rng_.Uniform(1 << 16))};
  for (int k = 0; k < 4 && !legal.empty(); ++k) {
    const Action a = legal[rng_.Uniform(legal.size())];
    candidates.push_back(a + 1);
    candidates.push_back(a - 1);
    candidates.push_back(a ^ (Action{1} << rng_.Uniform(63)));
    candidates.push_back(a ^ (Action{1} << rng_.Uniform(8)));
  }
  for (int other = 0; other < static_cast<int>(all_legal.size()); ++other) {
    if (other == seat || all_legal[other].empty()) continue;
    candidates.push_back(all_legal[other][rng_.Uniform(all_legal[other].size())]);
  }
  // Codes whose shape was judged at earlier positions are judged the same here.
  for (const std::map<Action, std::string>* seen : {&shape_refused_, &shape_passed_}) {
    for (int k = 0; k < 4 && !seen->empty(); ++k) {
      auto it = seen->begin();
      std::advance(it, static_cast<long>(rng_.Uniform(seen->size())));
      candidates.push_back(it->first);
    }
  }
  for (Action c : candidates) {
    const bool is_legal = std::binary_search(legal.begin(), legal.end(), c);
    CONFORMANCE_RETURN_IF_ERROR(CheckRefused(state, seat, c, is_legal));
  }
  return CheckMessagePath(state, seat);
}

// Random fields of an Action message set to values no game accepts, and the empty message: the
// messages that may be malformed (whether one is, ActionFromProto says).
std::vector<std::unique_ptr<google::protobuf::Message>> Playout::MalformedMessages() {
  std::vector<std::unique_ptr<google::protobuf::Message>> out;
  const google::protobuf::Message* prototype =
      google::protobuf::MessageFactory::generated_factory()->GetPrototype(game_.ActionDescriptor());
  out.emplace_back(prototype->New());  // nothing set
  for (int k = 0; k < 3 && !known_codes_.empty(); ++k) {
    std::unique_ptr<google::protobuf::Message> m =
        game_.ActionToProto(known_codes_[rng_.Uniform(known_codes_.size())]);
    // Walk down to a random leaf message and spoil its integer fields.
    google::protobuf::Message* target = m.get();
    for (int depth = 0; depth < 4; ++depth) {
      const google::protobuf::Reflection* r = target->GetReflection();
      std::vector<const google::protobuf::FieldDescriptor*> set;
      r->ListFields(*target, &set);
      std::vector<const google::protobuf::FieldDescriptor*> messages;
      for (const auto* f : set) {
        if (f->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE &&
            !f->is_repeated()) {
          messages.push_back(f);
        }
      }
      if (messages.empty()) break;
      target = r->MutableMessage(target, messages[rng_.Uniform(messages.size())]);
    }
    const google::protobuf::Reflection* r = target->GetReflection();
    const google::protobuf::Descriptor* d = target->GetDescriptor();
    static constexpr int64_t kBad[] = {-1, -7, 1000, 1 << 20, std::numeric_limits<int32_t>::min()};
    for (int i = 0; i < d->field_count(); ++i) {
      const google::protobuf::FieldDescriptor* f = d->field(i);
      const int64_t v = kBad[rng_.Uniform(std::size(kBad))];
      if (f->is_repeated()) {
        if (f->cpp_type() == google::protobuf::FieldDescriptor::CPPTYPE_INT32) {
          if (rng_.Uniform(2) == 0)
            r->AddInt32(target, f, static_cast<int32_t>(v));
          else
            r->ClearField(target, f);
        }
        continue;
      }
      switch (f->cpp_type()) {
        case google::protobuf::FieldDescriptor::CPPTYPE_INT32:
          r->SetInt32(target, f, static_cast<int32_t>(v));
          break;
        case google::protobuf::FieldDescriptor::CPPTYPE_INT64:
          r->SetInt64(target, f, v);
          break;
        case google::protobuf::FieldDescriptor::CPPTYPE_ENUM:
          r->SetEnumValue(target, f, 1000);
          break;
        default:
          break;
      }
    }
    out.push_back(std::move(m));
  }
  return out;
}

// The client's message and the code take the same path (engine/GAMES.md, "Refusals"): a
// well-formed message gets exactly the answer its code gets, and a malformed one the answer of
// the first step of the written order that refuses it.
absl::Status Playout::CheckMessagePath(const State& state, int seat) {
  // Well-formed: codes legal somewhere in this playout, mostly refused here.
  for (int k = 0; k < 6 && !known_codes_.empty(); ++k) {
    const Action code = known_codes_[rng_.Uniform(known_codes_.size())];
    std::unique_ptr<google::protobuf::Message> message = game_.ActionToProto(code);
    absl::StatusOr<Action> decoded = game_.ActionFromProto(*message);
    if (!decoded.ok() || *decoded != code) {
      return Fail("ActionFromProto(ActionToProto(", code, ")) does not give the code back");
    }
    const absl::Status by_code = state.CheckAction(seat, code);
    google::protobuf::Any any;
    any.PackFrom(*message);
    const absl::StatusOr<Action> by_message = state.CheckMessage(seat, any);
    if (by_message.status() != by_code) {
      return Fail("seat ", seat, " sending action ", code, " (", state.ActionToString(seat, code),
                  ") as a message gets ", by_message.status().ToString(), " but as a code ",
                  by_code.ToString());
    }
    ++figures_.messages_checked;
  }
  // Malformed: the seat, game-over and turn answers come first, whatever was sent.
  absl::Status expected;
  bool shape_error_expected = false;
  if (state.IsTerminal() || !state.ActingSeats().Contains(seat)) {
    expected = state.CheckAction(seat, 0);  // the game-over or not-your-turn refusal
  } else {
    shape_error_expected = true;
  }
  for (const auto& message : MalformedMessages()) {
    if (game_.ActionFromProto(*message).ok()) continue;
    google::protobuf::Any any;
    any.PackFrom(*message);
    const absl::Status got = state.CheckMessage(seat, any).status();
    if (shape_error_expected ? got.code() != absl::StatusCode::kInvalidArgument : got != expected) {
      return Fail("seat ", seat, " sending the malformed message ", message->ShortDebugString(),
                  " gets ", got.ToString(), "; the written order gives ",
                  shape_error_expected ? "INVALID_ARGUMENT naming the field" : expected.ToString());
    }
    ++figures_.messages_checked;
  }
  // Another type, and bytes that do not parse: INVALID_ARGUMENT before anything else.
  google::protobuf::Any wrong;
  wrong.set_type_url("type.googleapis.com/parlor.games.v1.NoSuchAction");
  google::protobuf::Any garbage;
  garbage.set_type_url(absl::StrCat("type.googleapis.com/", game_.ActionDescriptor()->full_name()));
  garbage.set_value(std::string("\xff\xff\xff\xff", 4));
  for (const google::protobuf::Any* any : {&wrong, &garbage}) {
    if (state.CheckMessage(seat, *any).status().code() != absl::StatusCode::kInvalidArgument) {
      return Fail("seat ", seat, " sending ", any->ShortDebugString(), " gets ",
                  state.CheckMessage(seat, *any).status().ToString(), "; want INVALID_ARGUMENT");
    }
  }
  return absl::OkStatus();
}

absl::Status Playout::CheckViews(const State& state) {
  const int n = state.num_players();
  const google::protobuf::Descriptor* type = game_.ViewDescriptor();
  std::vector<Viewer> viewers = {Viewer::Spectator(), Viewer::All()};
  for (int seat = 0; seat < n; ++seat) viewers.push_back(Viewer::Seat(seat));
  std::vector<std::string> bytes;
  for (const Viewer& viewer : viewers) {
    std::unique_ptr<google::protobuf::Message> view = state.View(viewer);
    if (view == nullptr || view->GetDescriptor() != type) {
      return Fail("the view of ", ViewerName(viewer), " is not a ", type->full_name());
    }
    bytes.push_back(DeterministicBytes(*view));
    CONFORMANCE_RETURN_IF_ERROR(CheckEndingInView(state, viewer, *view));
    std::unique_ptr<google::protobuf::Message> parsed(
        google::protobuf::MessageFactory::generated_factory()->GetPrototype(type)->New());
    if (!parsed->ParseFromString(bytes.back())) {
      return Fail("the view of ", ViewerName(viewer), " does not parse as ", type->full_name());
    }
    ++figures_.views_checked;
  }
  // No leak: redrawing everything seat i cannot see changes neither i's view, nor the spectators'
  // view, nor i's legal actions.
  for (int seat = 0; seat < n; ++seat) {
    std::unique_ptr<State> other = state.ResampleHidden(seat, rng_);
    if (other == nullptr) return Fail("ResampleHidden(", seat, ") returned nothing");
    if (DeterministicBytes(*other->View(Viewer::Seat(seat))) != bytes[2 + seat]) {
      return Fail("seat ", seat,
                  "'s view changes when what it cannot see is redrawn (hidden information leaks "
                  "into its view)");
    }
    if (DeterministicBytes(*other->View(Viewer::Spectator())) != bytes[0]) {
      return Fail("the spectator view changes when what seat ", seat,
                  " cannot see is redrawn (hidden information leaks into the spectator view)");
    }
    if (other->LegalActions(seat) != state.LegalActions(seat) ||
        other->ActingSeats() != state.ActingSeats() || other->IsTerminal() != state.IsTerminal()) {
      return Fail("seat ", seat,
                  "'s legal actions or the acting seats change when what it cannot see is "
                  "redrawn");
    }
    // The redrawn state is a playable game: one of the seat's moves applies to it.
    const std::vector<Action> legal = other->LegalActions(seat);
    if (!legal.empty()) {
      const Action a = legal[rng_.Uniform(legal.size())];
      if (absl::Status s = other->Apply(seat, a); !s.ok()) {
        return Fail("legal action ", a, " of seat ", seat,
                    " does not apply to a state from ResampleHidden: ", s.ToString());
      }
    }
    ++figures_.views_checked;
  }
  return absl::OkStatus();
}

namespace {

// The field `name` of `message`, or null (by name: every game's View carries the same ones).
const google::protobuf::FieldDescriptor* FieldNamed(const google::protobuf::Message& message,
                                                    const std::string& name) {
  return message.GetDescriptor()->FindFieldByName(name);
}

std::vector<int> RepeatedInts(const google::protobuf::Message& message,
                              const google::protobuf::FieldDescriptor* field) {
  std::vector<int> out;
  const google::protobuf::Reflection* r = message.GetReflection();
  for (int i = 0; i < r->FieldSize(message, field); ++i) {
    out.push_back(r->GetRepeatedInt32(message, field, i));
  }
  return out;
}

}  // namespace

// Every view tells the truth about the end: game_over, the outcome's ranks and reason, who
// forfeited; where the game's View has them, a phase named ..._OVER and per-player rank and
// forfeited fields that agree.
absl::Status Playout::CheckEndingInView(const State& state, const Viewer& viewer,
                                        const google::protobuf::Message& view) {
  using google::protobuf::FieldDescriptor;
  const std::string who = ViewerName(viewer);
  if (view.GetDescriptor() == google::protobuf::Struct::descriptor()) {
    // A View kept as a Struct (test games): the same four keys.
    const auto& fields = static_cast<const google::protobuf::Struct&>(view).fields();
    auto ints = [&](const std::string& key) {
      std::vector<int> out;
      if (auto it = fields.find(key); it != fields.end()) {
        for (const auto& v : it->second.list_value().values()) {
          out.push_back(static_cast<int>(v.number_value()));
        }
      }
      return out;
    };
    const bool over = fields.count("game_over") > 0 && fields.at("game_over").bool_value();
    const std::string reason =
        fields.count("end_reason") > 0 ? fields.at("end_reason").string_value() : "";
    const engine::Outcome outcome = state.IsTerminal() ? state.GetOutcome() : engine::Outcome{};
    std::vector<int> forfeits = ints("forfeited_seats");
    std::sort(forfeits.begin(), forfeits.end());
    if (over != state.IsTerminal() || ints("ranks") != outcome.ranks || reason != outcome.reason ||
        forfeits != state.forfeited().ToVector()) {
      return Fail("the view of ", who, " shows game_over ", over, ", ranks ",
                  absl::StrJoin(ints("ranks"), ","), ", end reason \"", reason,
                  "\"; the outcome has ", absl::StrJoin(outcome.ranks, ","), ", \"", outcome.reason,
                  "\"");
    }
    return absl::OkStatus();
  }
  const google::protobuf::Reflection* r = view.GetReflection();
  const FieldDescriptor* game_over = FieldNamed(view, "game_over");
  const FieldDescriptor* ranks = FieldNamed(view, "ranks");
  const FieldDescriptor* reason = FieldNamed(view, "end_reason");
  if (reason != nullptr && reason->cpp_type() != FieldDescriptor::CPPTYPE_STRING) {
    reason = FieldNamed(view, "end_reason_text");
  }
  const FieldDescriptor* forfeited = FieldNamed(view, "forfeited_seats");
  if (game_over == nullptr || game_over->cpp_type() != FieldDescriptor::CPPTYPE_BOOL ||
      ranks == nullptr || ranks->cpp_type() != FieldDescriptor::CPPTYPE_INT32 ||
      !ranks->is_repeated() || reason == nullptr || forfeited == nullptr ||
      forfeited->cpp_type() != FieldDescriptor::CPPTYPE_INT32 || !forfeited->is_repeated()) {
    return Fail(view.GetDescriptor()->full_name(),
                " lacks the ending fields every View has: bool game_over, repeated int32 ranks, "
                "string end_reason (or end_reason_text), repeated int32 forfeited_seats");
  }
  const bool over = state.IsTerminal();
  if (r->GetBool(view, game_over) != over) {
    return Fail("the view of ", who, " says game_over ", r->GetBool(view, game_over),
                " but IsTerminal() is ", over);
  }
  std::vector<int> want_ranks;
  std::string want_reason;
  if (over) {
    const engine::Outcome outcome = state.GetOutcome();
    want_ranks = outcome.ranks;
    want_reason = outcome.reason;
  }
  if (RepeatedInts(view, ranks) != want_ranks) {
    return Fail("the view of ", who, " shows ranks ", absl::StrJoin(RepeatedInts(view, ranks), ","),
                "; the outcome has ", absl::StrJoin(want_ranks, ","));
  }
  if (r->GetString(view, reason) != want_reason) {
    return Fail("the view of ", who, " gives the end reason \"", r->GetString(view, reason),
                "\"; the outcome's is \"", want_reason, "\"");
  }
  std::vector<int> shown = RepeatedInts(view, forfeited);
  std::sort(shown.begin(), shown.end());
  if (shown != state.forfeited().ToVector()) {
    return Fail("the view of ", who, " lists forfeited seats ", absl::StrJoin(shown, ","),
                "; they are ", absl::StrJoin(state.forfeited().ToVector(), ","));
  }
  if (const FieldDescriptor* phase = FieldNamed(view, "phase");
      phase != nullptr && phase->cpp_type() == FieldDescriptor::CPPTYPE_ENUM) {
    const std::string name = r->GetEnum(view, phase)->name();
    const bool says_over = name.size() >= 4 && name.substr(name.size() - 4) == "OVER";
    if (says_over != over) {
      return Fail("the view of ", who, " shows phase ", name, " but IsTerminal() is ", over);
    }
  }
  if (const FieldDescriptor* players = FieldNamed(view, "players");
      players != nullptr && players->is_repeated() &&
      players->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE &&
      r->FieldSize(view, players) == state.num_players()) {
    for (int s = 0; s < state.num_players(); ++s) {
      const google::protobuf::Message& p = r->GetRepeatedMessage(view, players, s);
      const google::protobuf::Reflection* pr = p.GetReflection();
      if (const FieldDescriptor* rank = FieldNamed(p, "rank");
          rank != nullptr && rank->cpp_type() == FieldDescriptor::CPPTYPE_INT32 &&
          pr->GetInt32(p, rank) != (over ? want_ranks[s] : 0)) {
        return Fail("the view of ", who, " gives seat ", s, " rank ", pr->GetInt32(p, rank),
                    "; the outcome has ", over ? want_ranks[s] : 0);
      }
      if (const FieldDescriptor* f = FieldNamed(p, "forfeited");
          f != nullptr && f->cpp_type() == FieldDescriptor::CPPTYPE_BOOL &&
          pr->GetBool(p, f) != state.IsForfeited(s)) {
        return Fail("the view of ", who, " says seat ", s, " forfeited ", pr->GetBool(p, f),
                    "; it is ", state.IsForfeited(s));
      }
    }
  }
  return absl::OkStatus();
}

// A record that leaves the log out (State::LogForm::kSetupOnly, how the sessions service stores a
// game) loads to the same game: the same record again, the same moves counted, the same seats to
// act, the same outcome and the same views; after the same next action both go on alike; and it
// refuses to replay, having no log to replay.
absl::Status Playout::CheckRecordWithoutLog(const State& state) {
  const engine::v1::GameRecord record = state.Serialize(State::LogForm::kSetupOnly);
  if (record.log_size() != 1 || record.omitted_entries() != state.NumMoves()) {
    return Fail("a record without the log holds ", record.log_size(), " entries and leaves out ",
                record.omitted_entries(), "; want 1 and ", state.NumMoves());
  }
  absl::StatusOr<std::unique_ptr<State>> loaded = game_.Deserialize(record);
  if (!loaded.ok()) {
    return Fail("Deserialize of a record without the log failed: ", loaded.status().ToString());
  }
  State& compact = **loaded;
  const std::string bytes = DeterministicBytes(record);
  if (DeterministicBytes(compact.Serialize(State::LogForm::kSetupOnly)) != bytes) {
    return Fail("a record without the log does not serialize back to itself");
  }
  if (compact.NumMoves() != state.NumMoves() || compact.ActingSeats() != state.ActingSeats() ||
      compact.IsTerminal() != state.IsTerminal() || compact.forfeited() != state.forfeited()) {
    return Fail("the state loaded from a record without the log counts other moves, acting ",
                "seats, forfeits or ending");
  }
  if (DeterministicBytes(*compact.View(Viewer::All())) !=
      DeterministicBytes(*state.View(Viewer::All()))) {
    return Fail("the state loaded from a record without the log shows another view");
  }
  if (state.IsTerminal()) {
    const engine::Outcome want = state.GetOutcome();
    const engine::Outcome got = compact.GetOutcome();
    if (got.ranks != want.ranks || got.scores != want.scores || got.reason != want.reason) {
      return Fail("the state loaded from a record without the log has another outcome");
    }
  } else {
    const int seat = state.ActingSeats().ToVector().front();
    const Action next = state.LegalActions(seat).front();
    std::unique_ptr<State> whole = state.Clone();
    if (!whole->Apply(seat, next).ok() || !compact.Apply(seat, next).ok()) {
      return Fail("action ", next, " of seat ", seat,
                  " is refused after a load without the log, or before it");
    }
    if (DeterministicBytes(compact.Serialize(State::LogForm::kSetupOnly)) !=
        DeterministicBytes(whole->Serialize(State::LogForm::kSetupOnly))) {
      return Fail("after the same action, the game loaded without the log differs");
    }
    const std::optional<engine::v1::LogEntry> entry = compact.LogEntryAt(compact.NumMoves());
    const std::optional<engine::v1::LogEntry> want = whole->LogEntryAt(whole->NumMoves());
    if (!entry || !want || DeterministicBytes(*entry) != DeterministicBytes(*want)) {
      return Fail("the entry of the move made after a load without the log differs");
    }
  }
  if (state.NumMoves() > 0 && compact.LogEntryAt(1).has_value()) {
    return Fail("a state loaded without the log claims to hold the entry of version 1");
  }
  if (state.NumMoves() > 0 && game_.Replay(record, /*check_seed=*/false).status().code() !=
                                  absl::StatusCode::kInvalidArgument) {
    return Fail("Replay of a record without the log is not refused with INVALID_ARGUMENT");
  }
  return absl::OkStatus();
}

absl::Status Playout::CheckReplay(const State& state) {
  const engine::v1::GameRecord record = state.Serialize();
  absl::StatusOr<std::unique_ptr<State>> replayed = game_.Replay(record, /*check_seed=*/true);
  if (!replayed.ok()) {
    return Fail("Replay(record, check_seed = true) failed: ", replayed.status().ToString());
  }
  if ((*replayed)->SerializeToString() != state.SerializeToString()) {
    return Fail("Replay(record, check_seed = true) does not reproduce the state bit for bit");
  }
  ++figures_.replays;
  return absl::OkStatus();
}

absl::Status Playout::CheckOutcome(const State& state) {
  const int n = state.num_players();
  const engine::Outcome outcome = state.GetOutcome();
  if (static_cast<int>(outcome.ranks.size()) != n || static_cast<int>(outcome.scores.size()) != n) {
    return Fail("the outcome has ", outcome.ranks.size(), " ranks and ", outcome.scores.size(),
                " scores for ", n, " seats");
  }
  if (outcome.reason.empty()) return Fail("the outcome gives no reason");
  const std::string ranks = absl::StrJoin(outcome.ranks, ",");
  // Sides are ranked (game rules 7 and 8): standard competition ranking over sides, every seat
  // taking its side's rank (1, 1, 2, 2 when one of two teams wins).
  std::map<int, int> side_rank;
  for (int s = 0; s < n; ++s) side_rank.emplace(state.TeamOf(s), outcome.ranks[s]);
  const int sides = static_cast<int>(side_rank.size());
  for (int s = 0; s < n; ++s) {
    const int r = outcome.ranks[s];
    if (r < 1 || r > sides) return Fail("rank ", r, " of seat ", s, " is outside 1..", sides);
    const int better = static_cast<int>(std::count_if(
        side_rank.begin(), side_rank.end(), [r](const auto& side) { return side.second < r; }));
    if (r != better + 1) {
      return Fail("ranks ", ranks, " are not a standard competition ranking of the sides");
    }
    for (int t = 0; t < n; ++t) {
      if (state.TeamOf(s) == state.TeamOf(t) && outcome.ranks[t] != r) {
        return Fail("team-mates ", s, " and ", t, " have different ranks: ", ranks);
      }
    }
  }
  // Forfeits: forfeited seats rank below every other seat, earlier forfeits below later ones.
  for (int s = 0; s < n; ++s) {
    for (int t = 0; t < n; ++t) {
      if (state.IsForfeited(s) && !state.IsForfeited(t) && outcome.ranks[s] <= outcome.ranks[t]) {
        return Fail("forfeited seat ", s, " does not rank below seat ", t, ": ", ranks);
      }
    }
  }
  for (size_t i = 0; i + 1 < forfeit_sequence_.size(); ++i) {
    const int earlier = forfeit_sequence_[i], later = forfeit_sequence_[i + 1];
    if (outcome.ranks[earlier] <= outcome.ranks[later]) {
      return Fail("seat ", earlier, " forfeited before seat ", later,
                  " but does not rank below it: ", ranks);
    }
  }
  return absl::OkStatus();
}

}  // namespace

ConformanceFigures RunConformance(const Game& game, const ConformanceOptions& opts) {
  ConformanceFigures figures;
  const int playouts = std::max(1, static_cast<int>(opts.playouts * Scale()));
  for (int i = 0; i < playouts; ++i) {
    const uint64_t seed = opts.seed * 0x9E3779B97F4A7C15ULL + static_cast<uint64_t>(i);
    Playout playout(game, opts, figures, seed);
    absl::Status status = playout.Run();
    ++figures.playouts;
    if (status.ok()) continue;
    ++figures.failures;
    std::string json;
    if (playout.state() != nullptr) {
      google::protobuf::util::JsonPrintOptions print;
      (void)google::protobuf::util::MessageToJsonString(playout.state()->Serialize(), &json, print);
      if (json.size() > 20000) json = json.substr(0, 20000) + "...";
    }
    ADD_FAILURE() << game.name() << " conformance, playout " << i << " (seed "
                  << engine::Seed::FromUint64(seed).ToHex() << "), " << playout.context() << ": "
                  << status.message() << "\nrecord: " << json;
    if (figures.failures >= opts.max_failures) break;
  }
  if (opts.print_figures) std::printf("%s\n", FormatFigures(game, figures).c_str());
  return figures;
}

std::string FormatFigures(const Game& game, const ConformanceFigures& f) {
  return absl::StrCat(
      game.name(), ": ", f.playouts, " playouts (", f.forfeit_playouts, " with a forfeit), ",
      f.steps, " positions (", f.full_steps, " with the full checks), ", f.moves_played,
      " moves played; ", f.legal_actions_checked, " legal actions checked, ",
      f.legal_actions_applied, " applied to clones, ", f.illegal_actions_checked,
      " illegal actions refused, ", f.views_checked, " views checked, ", f.messages_checked,
      " messages checked against their codes, ", f.round_trips, " serialization round trips, ",
      f.replays, " seed-checked replays; ", f.failures, " failures");
}

}  // namespace parlor::conformance
