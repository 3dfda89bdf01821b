#include "services/ratings/domain/validation.h"

#include <algorithm>
#include <map>
#include <set>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "services/common/core/crypto.h"

namespace parlor::ratings {
namespace {

absl::Status Reject(RejectReason* out, RejectReason reason, absl::string_view message) {
  *out = reason;
  return absl::InvalidArgumentError(message);
}

bool ValidGameId(absl::string_view id) {
  if (id.empty() || id.size() > 128) return false;
  return std::all_of(id.begin(), id.end(), [](char c) { return c > 0x20 && c < 0x7f; });
}

bool ValidGameName(absl::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

std::string Canonical(const ValidatedResult& r) {
  std::string s = absl::StrCat("parlor.ratings.result.v1\n", r.game_id, "\n", r.game, "\n",
                               r.ladder->name, "\n", r.ranked ? "ranked" : "casual", "\n",
                               absl::ToUnixMicros(r.finish_time), "\n");
  for (const SeatedPlayer& p : r.seats) {
    absl::StrAppend(&s, p.seat, " ", p.account_id, " ", p.side, " ", p.rank, "\n");
  }
  return s;
}

}  // namespace

const char* RejectReasonName(RejectReason reason) {
  switch (reason) {
    case RejectReason::kNone:
      return "none";
    case RejectReason::kBadField:
      return "bad_field";
    case RejectReason::kUnknownGame:
      return "unknown_game";
    case RejectReason::kBadSeats:
      return "bad_seats";
    case RejectReason::kBadPlacements:
      return "bad_placements";
    case RejectReason::kConflict:
      return "conflicting_result";
  }
  return "unknown";
}

absl::StatusOr<std::string> CanonicalAccountId(absl::string_view id, absl::string_view field) {
  static constexpr int kDashes[] = {8, 13, 18, 23};
  bool ok = id.size() == 36;
  for (size_t i = 0; ok && i < id.size(); ++i) {
    const bool dash = std::find(std::begin(kDashes), std::end(kDashes), i) != std::end(kDashes);
    ok = dash ? id[i] == '-' : absl::ascii_isxdigit(static_cast<unsigned char>(id[i]));
  }
  if (!ok) {
    return absl::InvalidArgumentError(absl::StrCat(field,
                                                   " must be an account id (a UUID such as "
                                                   "\"123e4567-e89b-12d3-a456-426614174000\")"));
  }
  return absl::AsciiStrToLower(id);
}

absl::Status ValidateVoid(const VoidRequest& request) {
  if (!ValidGameId(request.game_id)) {
    return absl::InvalidArgumentError(
        "game_id must be 1-128 printable ASCII characters without spaces");
  }
  if (request.reason.size() > 1000) {
    return absl::InvalidArgumentError("reason must be at most 1000 characters");
  }
  if (absl::StripAsciiWhitespace(request.reason).empty()) {
    return absl::InvalidArgumentError("reason is required: say why the result is voided");
  }
  if (!ValidGameId(request.operator_id)) {
    return absl::InvalidArgumentError(
        "operator_id must be 1-128 printable ASCII characters without spaces (who voids)");
  }
  return absl::OkStatus();
}

bool ValidSeasonId(absl::string_view id) {
  if (id.empty() || id.size() > 32 || id[0] == '-') return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
}

absl::StatusOr<ValidatedResult> ValidateResult(const GameResult& in,
                                               const model::LadderRegistry& ladders, absl::Time now,
                                               RejectReason* reason) {
  RejectReason ignored;
  if (reason == nullptr) reason = &ignored;
  *reason = RejectReason::kNone;
  if (!ValidGameId(in.game_id)) {
    return Reject(reason, RejectReason::kBadField,
                  "game_id must be 1-128 printable ASCII characters without spaces");
  }
  if (!ValidGameName(in.game)) {
    return Reject(reason, RejectReason::kBadField,
                  "game must be an engine game id such as \"pico\"");
  }
  if (in.ladder.size() > kMaxLadderNameLength) {
    return Reject(reason, RejectReason::kBadField,
                  absl::StrCat("ladder must be at most ", kMaxLadderNameLength,
                               " characters; leave it empty to let the game's seats decide"));
  }
  if (in.finish_time == absl::InfinitePast() || in.finish_time == absl::InfiniteFuture()) {
    return Reject(reason, RejectReason::kBadField, "finish_time is required");
  }
  if (in.finish_time < absl::FromUnixSeconds(946684800)) {  // 2000-01-01
    return Reject(reason, RejectReason::kBadField,
                  "finish_time is before 2000-01-01: send the time the game ended");
  }
  if (in.finish_time > now + kMaxFinishTimeSkew) {
    return Reject(reason, RejectReason::kBadField,
                  absl::StrCat("finish_time is in the future (more than ",
                               absl::FormatDuration(kMaxFinishTimeSkew), " ahead of this server)"));
  }
  const int n = static_cast<int>(in.seats.size());
  if (n < 2 || n > kMaxSeats) {
    return Reject(reason, RejectReason::kBadSeats,
                  absl::StrCat("seats must list 2 to ", kMaxSeats, " seats, got ", n));
  }
  if (in.placements.size() != in.seats.size()) {
    return Reject(reason, RejectReason::kBadPlacements,
                  absl::StrCat("placements must hold one entry per seat: ", n, " seats, got ",
                               in.placements.size(), " placements"));
  }

  ValidatedResult out;
  out.game_id = in.game_id;
  out.game = in.game;
  out.ranked = in.ranked;
  out.finish_time = absl::FromUnixMicros(absl::ToUnixMicros(in.finish_time));
  std::set<std::string> seated;
  bool teams = false;
  for (int i = 0; i < n; ++i) {
    const ResultSeat& s = in.seats[i];
    if (s.seat != i) {
      return Reject(reason, RejectReason::kBadSeats,
                    absl::StrCat("seats[", i, "].seat is ", s.seat,
                                 ": seats must be listed in order 0..N-1"));
    }
    auto account = CanonicalAccountId(s.account_id, absl::StrCat("seats[", i, "].account_id"));
    if (!account.ok()) {
      *reason = RejectReason::kBadSeats;
      return account.status();
    }
    if (!seated.insert(*account).second) {
      return Reject(reason, RejectReason::kBadSeats,
                    absl::StrCat("account ", *account, " is seated twice"));
    }
    if (s.team < 0 || s.team >= n) {
      return Reject(reason, RejectReason::kBadSeats,
                    absl::StrCat("seats[", i, "].team must be in 0..", n - 1));
    }
    if (s.team != i) teams = true;
    out.seats.push_back({i, *account, s.team, 0});
  }

  // Placements: exactly one per seated account.
  std::map<std::string, int> rank_of;
  for (size_t i = 0; i < in.placements.size(); ++i) {
    const ResultPlacement& p = in.placements[i];
    auto account = CanonicalAccountId(p.account_id, absl::StrCat("placements[", i, "].account_id"));
    if (!account.ok()) {
      *reason = RejectReason::kBadPlacements;
      return account.status();
    }
    if (!seated.contains(*account)) {
      return Reject(reason, RejectReason::kBadPlacements,
                    absl::StrCat("placements[", i, "] is for account ", *account,
                                 ", which is not seated in this game"));
    }
    if (p.rank < 1 || p.rank > n) {
      return Reject(reason, RejectReason::kBadPlacements,
                    absl::StrCat("placements[", i, "].rank must be in 1..", n));
    }
    if (!rank_of.emplace(*account, p.rank).second) {
      return Reject(reason, RejectReason::kBadPlacements,
                    absl::StrCat("account ", *account, " has two placements"));
    }
  }
  for (SeatedPlayer& s : out.seats) {
    auto it = rank_of.find(s.account_id);
    if (it == rank_of.end()) {
      return Reject(
          reason, RejectReason::kBadPlacements,
          absl::StrCat("seat ", s.seat, " (account ", s.account_id, ") has no placement"));
    }
    s.rank = it->second;
  }
  // Team-mates share a rank.
  std::map<int, int> team_rank;
  for (const SeatedPlayer& s : out.seats) {
    auto [it, inserted] = team_rank.emplace(s.side, s.rank);
    if (!inserted && it->second != s.rank) {
      return Reject(reason, RejectReason::kBadPlacements,
                    absl::StrCat("team ", s.side, " has players with different ranks"));
    }
  }

  model::GameShape shape{in.game, n, {}};
  if (teams) {
    for (const SeatedPlayer& s : out.seats) shape.team_of.push_back(s.side);
  }
  auto ladder = ladders.ForGame(shape);
  if (!ladder.ok()) {
    *reason = RejectReason::kUnknownGame;
    return ladder.status();
  }
  if (!in.ladder.empty() && in.ladder != (*ladder)->name) {
    return Reject(reason, RejectReason::kUnknownGame,
                  absl::StrCat("ladder is \"", in.ladder, "\" but this game counts for \"",
                               (*ladder)->name, "\""));
  }
  out.ladder = *ladder;
  out.digest = Sha256(Canonical(out));
  return out;
}

}  // namespace parlor::ratings
