// The sessions decisions (services/sessions/domain/moves.h) and request checks (requests.h),
// with no database: a game of any registered kind is set up from the input (players, computer
// seats, ranked or not, a per-move clock or a time bank), then a sequence of decisions — a move
// by any seat (a legal action, or a raw code), a resignation, a sweep at a later time with or
// without vacations — each applied to the rows and state the previous one left, as the store
// would hand them to the next transaction. And request protos parsed from the input, mapped as
// the API maps them (services/sessions/api/mapping.h), through the request checks.
//
// Checks: refusals have a precise code (INVALID_ARGUMENT, FAILED_PRECONDITION, PERMISSION_DENIED,
// never INTERNAL/UNKNOWN) and a message; every Mutation is well formed: versions follow one
// another from the locked version, every log entry carries its bytes, the game row's version is
// the state's move count, acting_seats is exactly the seats whose turn it is and each of them
// has a deadline, the game's deadline is the earliest, a finished game has ranks, no seat acting
// and a result row when it ended in this change, the player who moved gets no "your turn" push,
// and the snapshot reloads to the state the decision left.
//
// Input layout (FuzzedDataProvider): a mode byte; then for requests, the proto bytes; for
// decisions, the game index, seat kinds, clock, then one op per few bytes.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "engine/core/registry.h"
#include "engine/games/all_games.h"
#include "fuzz/fuzz_support.h"
#include "parlor/sessions/v1/sessions.pb.h"
#include "services/sessions/api/mapping.h"
#include "services/sessions/domain/engine_glue.h"
#include "services/sessions/domain/moves.h"
#include "services/sessions/domain/requests.h"
#include "services/sessions/domain/time_control.h"

namespace parlor::fuzz {
namespace {

using sessions::Decision;
using sessions::GameRow;
using sessions::LogRow;
using sessions::Mutation;
using sessions::SeatRow;

const absl::Time kStart = absl::FromUnixSeconds(1'800'000'000);

void CheckRefusal(const absl::Status& status, const char* what) {
  const absl::StatusCode code = status.code();
  PARLOR_FUZZ_CHECK(code == absl::StatusCode::kInvalidArgument ||
                        code == absl::StatusCode::kFailedPrecondition ||
                        code == absl::StatusCode::kPermissionDenied,
                    absl::StrCat(what, " refused with ", status.ToString()));
  PARLOR_FUZZ_CHECK(!status.message().empty(), absl::StrCat(what, " refused without a message"));
}

void Requests(FuzzedDataProvider& in) {
  const std::string bytes = in.ConsumeRemainingBytesAsString();
  sessions::v1::SubmitActionRequest submit;
  if (submit.ParseFromString(bytes)) {
    const absl::Status status = sessions::ValidateSubmit(sessions::FromProto(submit));
    if (!status.ok()) CheckRefusal(status, "ValidateSubmit");
    if (status.ok()) {
      PARLOR_FUZZ_CHECK(sessions::IsUuid(submit.game_id()), "a game_id that is no UUID passed");
      PARLOR_FUZZ_CHECK(submit.expected_version() >= 0, "a negative expected_version passed");
    }
  }
  sessions::v1::CreateGameRequest create;
  if (create.ParseFromString(bytes)) {
    absl::StatusOr<std::vector<SeatRow>> seats =
        sessions::CreateGameSeats(sessions::FromProto(create));
    if (!seats.ok()) {
      CheckRefusal(seats.status(), "CreateGameSeats");
    } else {
      PARLOR_FUZZ_CHECK(static_cast<int>(seats->size()) == create.seats_size(), "seats lost");
      for (size_t i = 0; i < seats->size(); ++i) {
        const SeatRow& s = (*seats)[i];
        PARLOR_FUZZ_CHECK(s.account_id.empty() != s.bot.empty(), "a seat both or neither");
        PARLOR_FUZZ_CHECK(!(create.ranked() && !s.bot.empty()), "a computer in a ranked game");
        for (size_t j = 0; j < i; ++j) {
          PARLOR_FUZZ_CHECK(s.account_id.empty() || (*seats)[j].account_id != s.account_id,
                            "an account seated twice");
        }
      }
    }
    absl::StatusOr<sessions::TimeControlRow> tc =
        sessions::ParseTimeControl(sessions::FromProto(create.time_control()));
    if (!tc.ok()) CheckRefusal(tc.status(), "ParseTimeControl");
  }
}

// Everything a Mutation must be, given the rows it was decided on.
void CheckMutation(const GameRow& locked, const Decision& d, const std::string& mover) {
  const Mutation& m = d.mutation;
  const GameRow& g = m.after;
  const engine::State& st = *d.state;
  PARLOR_FUZZ_CHECK(g.version == st.NumMoves(), "the row's version is not the state's");
  int64_t next = locked.version + 1;
  for (const LogRow& row : m.log) {
    PARLOR_FUZZ_CHECK(row.version == next++, "log versions do not follow one another");
    PARLOR_FUZZ_CHECK(!row.entry.empty(), "a log entry without its bytes");
  }
  PARLOR_FUZZ_CHECK(next - 1 == g.version, "the log does not reach the row's version");
  PARLOR_FUZZ_CHECK(g.finished == st.IsTerminal(), "finished is not the state's");
  std::optional<absl::Time> earliest;
  for (const SeatRow& s : g.seats) {
    const bool acting = (g.acting_seats >> s.seat & 1u) != 0;
    PARLOR_FUZZ_CHECK(acting == s.my_turn, "acting_seats is not the seats whose turn it is");
    PARLOR_FUZZ_CHECK(s.my_turn == s.deadline.has_value(), "a turn without a deadline");
    PARLOR_FUZZ_CHECK(s.forfeited == st.IsForfeited(s.seat), "forfeited is not the state's");
    if (s.deadline && (!earliest || *s.deadline < *earliest)) earliest = s.deadline;
  }
  PARLOR_FUZZ_CHECK(g.deadline == earliest, "the game's deadline is not the earliest");
  if (g.finished) {
    PARLOR_FUZZ_CHECK(g.acting_seats == 0, "a finished game with acting seats");
    PARLOR_FUZZ_CHECK(g.ranks.size() == g.seats.size(), "a finished game without ranks");
    PARLOR_FUZZ_CHECK(m.result.has_value() == (!locked.finished && !m.log.empty()),
                      "a result row not exactly when the game ended");
  }
  for (const sessions::NotificationRow& n : m.notifications) {
    PARLOR_FUZZ_CHECK(!(n.kind == "your_turn" && n.account_id == mover),
                      "a your_turn push to the player who moved");
  }
  absl::StatusOr<std::unique_ptr<engine::State>> reloaded =
      sessions::LoadState(st.game(), g.snapshot);
  PARLOR_FUZZ_CHECK(reloaded.ok(), "the snapshot does not reload");
  // The snapshot leaves the log out (its entries are the log rows checked above).
  PARLOR_FUZZ_CHECK(
      (*reloaded)->NumMoves() == st.NumMoves() &&
          sessions::Deterministic((*reloaded)->Serialize(engine::State::LogForm::kSetupOnly)) ==
              sessions::Deterministic(st.Serialize(engine::State::LogForm::kSetupOnly)),
      "the snapshot is not the state the decision left");
}

// The game the store holds between transactions.
struct Table {
  GameRow row;
  std::unique_ptr<engine::State> state;
};

// Takes a decision's outcome as the next locked game, after checking it.
void Adopt(Table& t, absl::StatusOr<Decision> d, const std::string& mover, const char* what) {
  if (!d.ok()) {
    CheckRefusal(d.status(), what);
    return;
  }
  CheckMutation(t.row, *d, mover);
  t.row = d->mutation.after;
  t.state = std::move(d->state);
}

absl::StatusOr<Table> SetUp(FuzzedDataProvider& in, const engine::Game& game, absl::Time now) {
  const int n = in.ConsumeIntegralInRange(game.info().min_players, game.info().max_players);
  sessions::NewGameSpec spec;
  spec.game_id = "00000000-0000-4000-8000-000000000001";
  spec.ranked = in.ConsumeBool();
  for (int i = 0; i < n; ++i) {
    SeatRow s;
    s.seat = i;
    s.team = -1;
    if (spec.ranked || in.ConsumeBool()) {
      s.account_id = absl::StrCat("00000000-0000-4000-8000-0000000001", i < 10 ? "0" : "", i);
    } else {
      s.bot = in.ConsumeBool() ? "random" : "greedy";
    }
    spec.seats.push_back(s);
  }
  if (in.ConsumeBool()) {
    spec.time_control.kind = sessions::TimeControlRow::Kind::kTimeBank;
    spec.time_control.bank_initial_s = in.ConsumeIntegralInRange<int64_t>(3600, 86400 * 3);
    spec.time_control.bank_increment_s =
        in.ConsumeIntegralInRange<int64_t>(0, spec.time_control.bank_initial_s);
  } else {
    spec.time_control.per_move_s = in.ConsumeIntegralInRange<int64_t>(3600, 86400 * 3);
  }
  spec.time_control.vacation_days = in.ConsumeIntegralInRange(0, 3);
  absl::StatusOr<engine::Options> options = game.ParseOptions({}, n);
  if (!options.ok()) return options.status();
  spec.options = *options;
  spec.seed = engine::Seed::FromUint64(in.ConsumeIntegral<uint64_t>());
  const sessions::DecisionContext ctx{&game, now, {.moves = 20, .budget = absl::Seconds(5)}};
  absl::StatusOr<Decision> d = sessions::DecideNewGame(ctx, std::move(spec));
  if (!d.ok()) return d.status();
  GameRow nothing;  // the setup is version 0
  nothing.version = -1;
  CheckMutation(nothing, *d, "");
  return Table{d->mutation.after, std::move(d->state)};
}

void Move(FuzzedDataProvider& in, Table& t, const sessions::DecisionContext& ctx) {
  const int seat = in.ConsumeIntegralInRange<int>(0, static_cast<int>(t.row.seats.size()) - 1);
  const std::string account = t.row.seats[seat].account_id;
  if (account.empty()) return;  // only players submit moves
  if (absl::Status can = sessions::CheckCanMove(t.row, seat); !can.ok()) {
    CheckRefusal(can, "CheckCanMove");
    return;
  }
  absl::StatusOr<engine::Action> action = absl::InvalidArgumentError("action: undecodable");
  const std::vector<engine::Action> legal = t.state->LegalActions(seat);
  const int pick = in.ConsumeIntegralInRange(0, 3);
  if (pick == 0) {
    action = in.ConsumeIntegral<int64_t>();
  } else if (pick > 1 && !legal.empty()) {
    action = legal[in.ConsumeIntegralInRange<size_t>(0, legal.size() - 1)];
  }
  Adopt(t,
        sessions::DecideMove(ctx, t.row, t.state->Clone(),
                             sessions::MoveRequest{seat, account, action}),
        account, "DecideMove");
}

void Resign(FuzzedDataProvider& in, Table& t, const sessions::DecisionContext& ctx) {
  const int seat = in.ConsumeIntegralInRange<int>(0, static_cast<int>(t.row.seats.size()) - 1);
  const std::string account = t.row.seats[seat].account_id;
  if (account.empty()) return;  // only players resign
  if (absl::Status can = sessions::CheckCanResign(t.row, seat); !can.ok()) {
    CheckRefusal(can, "CheckCanResign");
    return;
  }
  Adopt(t, sessions::DecideResign(ctx, t.row, t.state->Clone(), seat, account), account,
        "DecideResign");
}

void Sweep(FuzzedDataProvider& in, Table& t, const sessions::DecisionContext& ctx) {
  if (t.row.finished) return;  // the sweeper lists active games only
  // Players starting (or ending) a vacation: the version stays, the clocks pause or resume.
  for (size_t i = 0; i < t.row.seats.size(); ++i) {
    const std::string account = t.row.seats[i].account_id;
    if (account.empty() || !in.ConsumeBool()) continue;
    std::optional<absl::Time> until;
    if (in.ConsumeBool()) until = ctx.now + absl::Hours(in.ConsumeIntegralInRange(1, 99));
    if (std::optional<sessions::Mutation> m =
            sessions::DecideVacation(t.row, account, ctx.now, until)) {
      PARLOR_FUZZ_CHECK(m->after.version == t.row.version, "a vacation changed the version");
      PARLOR_FUZZ_CHECK(m->log.empty(), "a vacation wrote a log entry");
      t.row = m->after;
    }
  }
  std::vector<std::string> timeouts;
  absl::StatusOr<std::optional<Decision>> d =
      sessions::DecideTimeouts(ctx, t.row, t.state->Clone(), sessions::TimeoutPolicy{}, &timeouts);
  if (!d.ok()) {
    CheckRefusal(d.status(), "DecideTimeouts");
    return;
  }
  if (!d->has_value()) {
    PARLOR_FUZZ_CHECK(timeouts.empty(), "timeouts counted for no change");
    return;
  }
  Adopt(t, std::move(**d), "", "DecideTimeouts");
}

void Decisions(FuzzedDataProvider& in) {
  static const engine::Registry* const registry = new engine::Registry(engine::AllGames());
  const std::vector<const engine::Game*> games = registry->games();
  const engine::Game& game = *games[in.ConsumeIntegralInRange<size_t>(0, games.size() - 1)];
  absl::Time now = kStart;
  absl::StatusOr<Table> table = SetUp(in, game, now);
  if (!table.ok()) {
    CheckRefusal(table.status(), "DecideNewGame");
    return;
  }
  for (int op = 0; op < 64 && in.remaining_bytes() > 0; ++op) {
    now += absl::Minutes(in.ConsumeIntegralInRange(0, 3 * 24 * 60));
    const sessions::DecisionContext ctx{&game, now, {.moves = 20, .budget = absl::Seconds(5)}};
    switch (in.ConsumeIntegralInRange(0, 5)) {
      case 0:
        Resign(in, *table, ctx);
        break;
      case 1:
        Sweep(in, *table, ctx);
        break;
      default:
        Move(in, *table, ctx);
        break;
    }
  }
}

}  // namespace
}  // namespace parlor::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  if (in.ConsumeBool()) {
    parlor::fuzz::Requests(in);
  } else {
    parlor::fuzz::Decisions(in);
  }
  return 0;
}
