#include "engine/conformance/fake_game.h"

#include <algorithm>
#include <array>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/wrappers.pb.h"

namespace parlor::conformance {
namespace {

using engine::Action;

class FakeGame : public engine::Game {
 public:
  explicit FakeGame(FakeBug bug)
      : Game({.name = "tally",
              .display_name = "Tally",
              .summary = "Take turns adding 1, 2 or a die roll to a shared counter.",
              .min_players = 2,
              .max_players = 4,
              .has_teams = true,
              .options = {engine::OptionSpec::Int("target", "Where the counter stops.", 12, 5, 30),
                          engine::OptionSpec::Bool("teams", "Seats 0+2 against 1+3.", false)},
              .action_kinds = {"add", "roll"},
              .choices_public = true}),
        bug_(bug) {}

  FakeBug bug() const { return bug_; }

  const google::protobuf::Descriptor* ActionDescriptor() const override {
    return google::protobuf::Int64Value::descriptor();
  }
  const google::protobuf::Descriptor* ViewDescriptor() const override {
    return google::protobuf::Struct::descriptor();
  }
  absl::StatusOr<Action> ActionFromProto(const google::protobuf::Message& action) const override {
    const auto& value = static_cast<const google::protobuf::Int64Value&>(action);
    if (value.value() < 1 || value.value() > 3) {
      return absl::InvalidArgumentError("value: actions are 1, 2 and 3");
    }
    return value.value();
  }
  std::unique_ptr<google::protobuf::Message> ActionToProto(Action action) const override {
    auto proto = std::make_unique<google::protobuf::Int64Value>();
    proto->set_value(action);
    return proto;
  }
  int64_t MaxMoves(int num_players, const engine::Options& options) const override {
    if (bug_ == FakeBug::kBoundTooSmall) return 3;
    return options.Get("target") + num_players;
  }

 protected:
  absl::Status ValidateSetup(int num_players, const engine::Options& options) const override {
    if (options.GetBool("teams") && num_players != 4) {
      return absl::InvalidArgumentError("teams needs 4 players");
    }
    return absl::OkStatus();
  }
  std::unique_ptr<engine::State> CreateState(
      int num_players, std::shared_ptr<const engine::Options> options) const override;

 private:
  FakeBug bug_;
};

class FakeState : public engine::State {
 public:
  FakeState(const FakeGame& game, int num_players, std::shared_ptr<const engine::Options> options)
      : State(game, num_players, options), bug_(game.bug()) {}

 protected:
  void SetupImpl(engine::Chance& chance) override {
    for (int s = 0; s < num_players(); ++s) secret_[s] = chance.Uniform(10);
  }
  std::unique_ptr<engine::State> CloneImpl() const override {
    return std::unique_ptr<engine::State>(new FakeState(*this));
  }
  engine::SeatSet ActingSeatsImpl() const override {
    return IsTerminalImpl() ? engine::SeatSet() : engine::SeatSet::Of(turn_);
  }
  bool IsTerminalImpl() const override { return counter_ >= options().Get("target"); }
  void LegalActionsImpl(int, std::vector<Action>* out) const override {
    if (bug_ == FakeBug::kUnsortedLegal) {
      out->insert(out->end(), {2, 1, 3});
    } else {
      out->insert(out->end(), {1, 2, 3});
    }
  }
  absl::Status CheckActionImpl(int, Action action) const override {
    if (action >= 1 && action <= 3) return absl::OkStatus();
    if (bug_ == FakeBug::kLenientCheck && action == 4) return absl::OkStatus();
    if (bug_ == FakeBug::kRefusalChangesState) ++refusals_;
    if (bug_ == FakeBug::kShapeAfterState && action > 4 && counter_ % 2 == 0) {
      // The bug under test: a shape refusal that depends on the position.
      return absl::InvalidArgumentError("amount: 1 or 2, or 3 to roll");
    }
    return absl::FailedPreconditionError("you may add 1, 2 or roll");
  }
  void ApplyImpl(int seat, Action action, engine::Chance& chance) override {
    int amount = static_cast<int>(action);
    if (action == 3) {
      if (bug_ == FakeBug::kUnrecordedChance) {
        // The bug under test: "randomness" from a process-wide counter, which no replay sees.
        static int calls = 0;
        amount = 1 + calls++ % 3;
        ++rolls_;
      } else {
        amount = chance.Roll(3);
      }
    }
    counter_ += amount;
    added_[seat] += amount;
    turn_ = (turn_ + 1) % num_players();
  }
  std::vector<int> RanksImpl() const override {
    const std::vector<int64_t> scores = TeamScores();
    std::vector<int> ranks(num_players());
    for (int s = 0; s < num_players(); ++s) {
      ranks[s] = 1 + static_cast<int>(std::count_if(scores.begin(), scores.end(),
                                                    [&](int64_t x) { return x > scores[s]; }));
    }
    return ranks;
  }
  std::vector<int64_t> ScoresImpl() const override {
    std::vector<int64_t> scores(num_players());
    for (int s = 0; s < num_players(); ++s) scores[s] = added_[s] + secret_[s];
    return scores;
  }
  std::string EndReasonImpl() const override { return "the counter reached the target"; }
  std::string ActionToStringImpl(int, Action action) const override {
    if (action == 3) return "roll";
    return absl::StrCat("add ", action);
  }
  int TeamOfImpl(int seat) const override { return options().GetBool("teams") ? seat % 2 : seat; }
  int ActionKindImpl(Action action) const override { return action == 3 ? 1 : 0; }
  std::unique_ptr<google::protobuf::Message> ViewImpl(const engine::Viewer& viewer) const override {
    auto view = std::make_unique<google::protobuf::Struct>();
    auto& fields = *view->mutable_fields();
    // With kHiddenChoice the other seats see only whose turn it is until the end, so they cannot
    // tell what a seat added.
    const bool sees_sums = bug_ != FakeBug::kHiddenChoice || IsTerminal() ||
                           viewer.kind != engine::Viewer::Kind::kSeat;
    if (sees_sums) fields["counter"].set_number_value(counter_);
    fields["turn"].set_number_value(turn_);
    for (int s = 0; s < num_players(); ++s) {
      if (sees_sums || viewer.seat == s) {
        fields[absl::StrCat("added_", s)].set_number_value(added_[s]);
      }
      // The secrets decide the ranks, so they are revealed at the end.
      const bool sees = viewer.kind == engine::Viewer::Kind::kAll || IsTerminal() ||
                        (viewer.kind == engine::Viewer::Kind::kSeat &&
                         (viewer.seat == s || bug_ == FakeBug::kLeakyView));
      if (sees) fields[absl::StrCat("secret_", s)].set_number_value(secret_[s]);
    }
    // The ending every View carries (as Struct keys here).
    const Ending ending = GetEnding();
    fields["game_over"].set_bool_value(ending.over);
    std::vector<int> ranks = ending.ranks;
    if (bug_ == FakeBug::kBadRanks && ending.over) ranks = RanksImpl();
    for (int r : ranks) fields["ranks"].mutable_list_value()->add_values()->set_number_value(r);
    fields["end_reason"].set_string_value(ending.reason);
    for (int s : ending.forfeited_seats) {
      fields["forfeited_seats"].mutable_list_value()->add_values()->set_number_value(s);
    }
    return view;
  }
  void ResampleHiddenImpl(int observer, engine::Rng& rng) override {
    if (IsTerminal()) return;  // nothing is hidden any more
    for (int s = 0; s < num_players(); ++s) {
      if (s != observer) secret_[s] = static_cast<int>(rng.Uniform(10));
    }
  }
  void SaveImpl(google::protobuf::Any* out) const override {
    google::protobuf::Struct snapshot;
    auto& fields = *snapshot.mutable_fields();
    fields["counter"].set_number_value(counter_);
    if (bug_ != FakeBug::kLossySnapshot) fields["turn"].set_number_value(turn_);
    fields["refusals"].set_number_value(static_cast<double>(refusals_));
    fields["rolls"].set_number_value(rolls_);
    for (int s = 0; s < num_players(); ++s) {
      fields[absl::StrCat("added_", s)].set_number_value(added_[s]);
      fields[absl::StrCat("secret_", s)].set_number_value(secret_[s]);
    }
    // Struct is a map: pack it with deterministic bytes, or equal states would serialize apart.
    std::string bytes;
    {
      google::protobuf::io::StringOutputStream stream(&bytes);
      google::protobuf::io::CodedOutputStream coded(&stream);
      coded.SetSerializationDeterministic(true);
      snapshot.SerializeToCodedStream(&coded);
    }
    out->set_type_url("type.googleapis.com/google.protobuf.Struct");
    out->set_value(bytes);
  }
  absl::Status LoadImpl(const google::protobuf::Any& in) override {
    google::protobuf::Struct snapshot;
    if (!in.UnpackTo(&snapshot)) return absl::InvalidArgumentError("not a Struct");
    const auto& fields = snapshot.fields();
    auto get = [&](const std::string& name, int lo, int hi, int* out) -> absl::Status {
      auto it = fields.find(name);
      if (it == fields.end()) {
        if (bug_ == FakeBug::kLossySnapshot && name == "turn") return absl::OkStatus();
        return absl::InvalidArgumentError(absl::StrCat(name, ": missing"));
      }
      const double v = it->second.number_value();
      if (v < lo || v > hi || v != static_cast<int>(v)) {
        return absl::InvalidArgumentError(absl::StrCat(name, ": out of range"));
      }
      *out = static_cast<int>(v);
      return absl::OkStatus();
    };
    const int target = static_cast<int>(options().Get("target"));
    int counter = 0, turn = 0, refusals = 0, rolls = 0;
    std::array<int, 4> added{}, secret{};
    if (absl::Status s = get("counter", 0, target + 2, &counter); !s.ok()) return s;
    if (absl::Status s = get("turn", 0, num_players() - 1, &turn); !s.ok()) return s;
    if (absl::Status s = get("refusals", 0, 1 << 30, &refusals); !s.ok()) return s;
    if (absl::Status s = get("rolls", 0, 1 << 30, &rolls); !s.ok()) return s;
    int sum = 0;
    for (int p = 0; p < num_players(); ++p) {
      if (absl::Status s = get(absl::StrCat("added_", p), 0, target + 2, &added[p]); !s.ok()) {
        return s;
      }
      if (absl::Status s = get(absl::StrCat("secret_", p), 0, 9, &secret[p]); !s.ok()) return s;
      sum += added[p];
    }
    if (sum != counter) return absl::InvalidArgumentError("counter: not the sum of the additions");
    counter_ = counter;
    turn_ = turn;
    refusals_ = refusals;
    rolls_ = rolls;
    added_ = added;
    secret_ = secret;
    return absl::OkStatus();
  }

 private:
  FakeState(const FakeState&) = default;
  std::vector<int64_t> TeamScores() const {
    const std::vector<int64_t> scores = ScoresImpl();
    std::vector<int64_t> team(num_players(), 0);
    for (int s = 0; s < num_players(); ++s) {
      for (int t = 0; t < num_players(); ++t) {
        if (TeamOf(t) == TeamOf(s)) team[s] += scores[t];
      }
    }
    return team;
  }

  FakeBug bug_;
  int counter_ = 0;
  int turn_ = 0;
  mutable int64_t refusals_ = 0;
  int rolls_ = 0;
  std::array<int, 4> added_{};
  std::array<int, 4> secret_{};
};

std::unique_ptr<engine::State> FakeGame::CreateState(
    int num_players, std::shared_ptr<const engine::Options> options) const {
  return std::make_unique<FakeState>(*this, num_players, std::move(options));
}

}  // namespace

std::unique_ptr<engine::Game> MakeFakeGame(FakeBug bug) { return std::make_unique<FakeGame>(bug); }

}  // namespace parlor::conformance
