#include "services/ratings/store/pg_ratings_store.h"

#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "services/common/db/pg_array.h"
#include "services/ratings/store/sql.h"
#include "spdlog/spdlog.h"

namespace parlor::ratings {
namespace {

int64_t Micros(absl::Time t) { return absl::ToUnixMicros(t); }

std::optional<absl::Time> OptTime(int64_t micros) {
  if (micros < 0) return std::nullopt;
  return absl::FromUnixMicros(micros);
}

// '{a,b,c}' for values that need no quoting (validated UUIDs: hex digits and dashes; t/f).
std::string TextArray(const std::vector<std::string>& ids) {
  return absl::StrCat("{", absl::StrJoin(ids, ","), "}");
}

// Array literals of numbers: doubles with 17 significant digits, so they round-trip exactly.
std::string DoubleArray(const std::vector<double>& values) {
  std::vector<std::string> parts;
  for (double v : values) parts.push_back(absl::StrFormat("%.17g", v));
  return absl::StrCat("{", absl::StrJoin(parts, ","), "}");
}

std::string BoardTable(int64_t snapshot_id) { return absl::StrCat("ratings.board_", snapshot_id); }

// Prefixes of the statements prepared on a snapshot's table.
constexpr char kRangePrefix[] = "ratings_board_range_";
constexpr char kAroundPrefix[] = "ratings_board_around_";
constexpr const char* kSnapshotStatementPrefixes[] = {kRangePrefix, kAroundPrefix};

// Reads PARLOR_RATING_COLUMNS starting at column `at`.
RatingRecord ToRecord(const pqxx::row& row, int at, const std::string& ladder) {
  RatingRecord r;
  r.ladder = ladder;
  r.account_id = row[at].as<std::string>();
  r.rating.value = row[at + 1].as<double>();
  r.rating.deviation = row[at + 2].as<double>();
  r.rating.volatility = row[at + 3].as<double>();
  r.rating.games = row[at + 4].as<int64_t>();
  r.season_games = row[at + 5].as<int64_t>();
  r.last_game_time = OptTime(row[at + 6].as<int64_t>());
  r.conservative = row[at + 7].as<double>();
  r.provisional = row[at + 8].as<bool>();
  r.season_id = row[at + 9].as<std::string>();
  return r;
}

// The record a player starts a season with: the latest earlier season's, soft-reset, or the
// ladder's starting rating.
RatingRecord StartOfSeason(const model::LadderSpec& ladder, const std::string& season_id,
                           const std::string& account_id, const RatingRecord* earlier) {
  RatingRecord r;
  r.ladder = ladder.name;
  r.season_id = season_id;
  r.account_id = account_id;
  if (earlier != nullptr) {
    r.rating = ladder.ApplySeasonReset(earlier->rating);
    r.last_game_time = earlier->last_game_time;
  } else {
    r.rating = ladder.Initial();
  }
  r.conservative = ladder.Conservative(r.rating);
  r.provisional = ladder.Provisional(r.rating);
  r.season_games = 0;
  return r;
}

HistoryEntry ToHistory(const pqxx::row& row) {
  HistoryEntry h;
  h.game_id = row[0].as<std::string>();
  h.ladder = row[1].as<std::string>();
  h.season_id = row[2].as<std::string>();
  h.seq = row[3].as<int64_t>();
  h.finish_time = absl::FromUnixMicros(row[4].as<int64_t>());
  h.change.seat = row[5].as<int>();
  h.change.account_id = row[6].as<std::string>();
  h.change.rank = row[7].as<int>();
  h.change.before.value = row[8].as<double>();
  h.change.before.deviation = row[9].as<double>();
  h.change.after.value = row[10].as<double>();
  h.change.after.deviation = row[11].as<double>();
  h.change.after.volatility = row[12].as<double>();
  h.change.conservative_after = row[13].as<double>();
  return h;
}

BoardSnapshot ToSnapshot(const pqxx::row& row) {
  BoardSnapshot s;
  s.snapshot_id = row[0].as<int64_t>();
  s.ladder = row[1].as<std::string>();
  s.season_id = row[2].as<std::string>();
  s.players = row[3].as<int64_t>();
  s.take_time = absl::FromUnixMicros(row[4].as<int64_t>());
  return s;
}

BoardEntry ToEntry(const pqxx::row& row, const BoardSnapshot& snapshot) {
  BoardEntry e;
  e.position = row[0].as<int64_t>();
  RatingRecord& r = e.record;
  r.ladder = snapshot.ladder;
  r.season_id = snapshot.season_id;
  r.account_id = row[1].as<std::string>();
  r.rating.value = row[2].as<double>();
  r.rating.deviation = row[3].as<double>();
  r.rating.volatility = row[4].as<double>();
  r.rating.games = row[5].as<int64_t>();
  r.season_games = row[6].as<int64_t>();
  r.last_game_time = OptTime(row[7].as<int64_t>());
  r.conservative = row[8].as<double>();
  r.provisional = false;
  return e;
}

absl::Status SnapshotExpired() {
  return absl::FailedPreconditionError(
      "the leaderboard snapshot of this page token has expired; start again from the first page");
}

}  // namespace

absl::Status PgRatingsStore::Read(absl::string_view name,
                                  const std::function<absl::Status(pqxx::nontransaction&)>& body) {
  return db_->Read(name, body);
}

absl::Status PgRatingsStore::SyncLadders(const model::LadderRegistry& ladders) {
  return db_->Transact("sync_ladders", [&](pqxx::work& txn) {
    for (const model::LadderSpec& l : ladders.ladders()) {
      txn.exec_params0(sql::kUpsertLadder, l.name, l.game,
                       std::string(model::ModelKindName(l.model)));
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<ReportOutcome> PgRatingsStore::ApplyResult(const ValidatedResult& result,
                                                          absl::Time now) {
  const model::LadderSpec& ladder = *result.ladder;
  ReportOutcome out;
  absl::Status status = db_->Transact("apply_result", [&](pqxx::work& txn) -> absl::Status {
    out = ReportOutcome();
    out.ladder = ladder.name;
    const std::string digest_hex = absl::BytesToHexString(result.digest);
    pqxx::result inserted =
        db_->Run(txn, "ratings_insert_processed", sql::kInsertProcessed, result.game_id, digest_hex,
                 result.game, ladder.name, result.ranked, Micros(result.finish_time), Micros(now));
    if (inserted.empty()) {
      // Already processed (possibly by a concurrent call that has just committed).
      pqxx::result first =
          db_->Run(txn, "ratings_find_processed", sql::kFindProcessed, result.game_id);
      if (first.empty()) return absl::FailedPreconditionError("no season has started yet");
      if (first[0][0].as<std::string>() != digest_hex) {
        return absl::FailedPreconditionError(absl::StrCat(
            "game ", result.game_id,
            " was already reported with a different result; a game's result is final"));
      }
      out.replayed = true;
      out.ladder = first[0][1].as<std::string>();
      out.season_id = first[0][2].as<std::string>();
      // A voided game's report is answered without its changes, which no longer count.
      out.applied = first[0][3].as<bool>() && !first[0][4].as<bool>();
      for (const pqxx::row& row :
           db_->Run(txn, "ratings_history_of_game", sql::kHistoryOfGame, result.game_id)) {
        out.changes.push_back(ToHistory(row).change);
      }
      return absl::OkStatus();
    }
    const std::string season_id = inserted[0][0].as<std::string>();
    out.season_id = season_id;
    if (!result.ranked) return absl::OkStatus();

    std::vector<std::string> accounts;
    for (const SeatedPlayer& p : result.seats) accounts.push_back(p.account_id);
    std::sort(accounts.begin(), accounts.end());
    const std::string array = TextArray(accounts);

    // Create missing rows first, in account-id order.
    std::set<std::string> existing;
    std::map<std::string, RatingRecord> earlier;
    for (const pqxx::row& row :
         db_->Run(txn, "ratings_latest_rows", sql::kLatestRows, ladder.name, array, season_id)) {
      RatingRecord r = ToRecord(row, 0, ladder.name);
      if (r.season_id == season_id) {
        existing.insert(r.account_id);
      } else {
        earlier.emplace(r.account_id, std::move(r));
      }
    }
    for (const std::string& account : accounts) {
      if (existing.contains(account)) continue;
      auto it = earlier.find(account);
      const RatingRecord start =
          StartOfSeason(ladder, season_id, account, it == earlier.end() ? nullptr : &it->second);
      db_->Run(txn, "ratings_insert_rating", sql::kInsertRating, ladder.name, season_id, account,
               start.rating.value, start.rating.deviation, start.rating.volatility,
               start.conservative, start.rating.games, start.provisional,
               start.last_game_time ? Micros(*start.last_game_time) : int64_t{-1});
    }

    // Lock every player's row, in account-id order.
    std::map<std::string, RatingRecord> locked;
    for (const pqxx::row& row :
         db_->Run(txn, "ratings_lock_rows", sql::kLockRows, ladder.name, season_id, array)) {
      RatingRecord r = ToRecord(row, 0, ladder.name);
      locked.emplace(r.account_id, std::move(r));
    }
    if (locked.size() != accounts.size()) {
      return absl::AbortedError("a player's rating row vanished; retry");
    }

    std::vector<model::Participant> participants;
    for (const SeatedPlayer& p : result.seats) {
      const RatingRecord& r = locked.at(p.account_id);
      double idle_days = 0;
      if (r.last_game_time && result.finish_time > *r.last_game_time) {
        idle_days = absl::ToDoubleHours(result.finish_time - *r.last_game_time) / 24.0;
      }
      participants.push_back({r.rating, idle_days, p.side, p.rank});
    }
    absl::StatusOr<std::vector<model::Rating>> rated = model::Rate(ladder, participants);
    if (!rated.ok()) return rated.status();

    std::vector<std::string> ids, bools;
    std::vector<int64_t> seats, ranks, games, sides;
    std::vector<double> rb, db, ra, da, va, ca;
    for (size_t i = 0; i < result.seats.size(); ++i) {
      const SeatedPlayer& p = result.seats[i];
      const model::Rating& after = (*rated)[i];
      RatingChange change;
      change.seat = p.seat;
      change.account_id = p.account_id;
      change.rank = p.rank;
      change.before = ladder.Idle(participants[i].rating, participants[i].idle_days);
      change.after = after;
      change.conservative_after = ladder.Conservative(after);
      ids.push_back(p.account_id);
      seats.push_back(p.seat);
      ranks.push_back(p.rank);
      sides.push_back(p.side);
      rb.push_back(change.before.value);
      db.push_back(change.before.deviation);
      ra.push_back(after.value);
      da.push_back(after.deviation);
      va.push_back(after.volatility);
      ca.push_back(change.conservative_after);
      games.push_back(after.games);
      bools.push_back(ladder.Provisional(after) ? "t" : "f");
      out.changes.push_back(std::move(change));
    }
    const int shard = static_cast<unsigned char>(result.digest[0]) % kChangeShards;
    const pqxx::row written =
        db_->Run(txn, "ratings_apply_ratings", sql::kApplyRatings, ladder.name, season_id,
                 result.game_id, Micros(result.finish_time), shard, TextArray(ids),
                 PgIntArray(seats), PgIntArray(ranks), DoubleArray(rb), DoubleArray(db),
                 DoubleArray(ra), DoubleArray(da), DoubleArray(va), DoubleArray(ca),
                 PgIntArray(games), TextArray(bools), PgIntArray(sides))
            .at(0);
    const int64_t n = static_cast<int64_t>(ids.size());
    if (written[0].as<int64_t>() != n || written[1].as<int64_t>() != n ||
        written[2].as<int64_t>() != 1) {
      return absl::InternalError("a rated result did not write every player's row");
    }
    db_->Run(txn, "ratings_drop_forgotten_of_result", sql::kDropForgottenOfResult, TextArray(ids));
    out.applied = true;
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return out;
}

namespace {

// One seat of a result read back from the history for a replay.
struct ReplaySeat {
  HistoryEntry entry;
  int side = -1;  // -1: not recorded (rows written before sides were)
};
struct ReplayGame {
  int64_t seq = 0;
  std::string game_id;
  std::string season_id;
  absl::Time finish_time;
  std::vector<ReplaySeat> seats;  // seat order
};

// A recomputed player's rating as the replay walks forward.
struct ReplayState {
  model::Rating rating;
  std::string season_id;  // the season `rating` belongs to; empty before the first game
  int64_t season_games = 0;
  std::optional<absl::Time> last_game_time;
};

// Moves `state` into `season_id` as a player's first game of a new season does: the soft reset
// of their latest earlier season (or nothing for a player who never played).
void EnterSeason(const model::LadderSpec& ladder, const std::string& season_id,
                 ReplayState& state) {
  if (state.season_id == season_id) return;
  if (!state.season_id.empty()) state.rating = ladder.ApplySeasonReset(state.rating);
  state.season_id = season_id;
  state.season_games = 0;
}

// Loads the record of a void of `game_id` into `out`; false when the game was never voided.
bool LoadVoid(DbPool& db, pqxx::transaction_base& txn, const std::string& game_id,
              VoidOutcome& out) {
  pqxx::result v = db.Run(txn, "ratings_get_void", sql::kGetVoid, game_id);
  if (v.empty()) return false;
  out.game_id = game_id;
  out.ladder = v[0][0].as<std::string>();
  out.season_id = v[0][1].as<std::string>();
  out.reason = v[0][2].as<std::string>();
  out.operator_id = v[0][3].as<std::string>();
  out.void_time = absl::FromUnixMicros(v[0][4].as<int64_t>());
  out.replayed_games = v[0][5].as<int>();
  out.removed.clear();
  for (const pqxx::row& row : db.Run(txn, "ratings_voided_history", sql::kVoidedHistory, game_id)) {
    out.removed.push_back(ToHistory(row).change);
  }
  out.effects.clear();
  for (const pqxx::row& row : db.Run(txn, "ratings_void_effects", sql::kVoidEffects, game_id)) {
    VoidEffect e;
    e.account_id = row[0].as<std::string>();
    e.season_id = row[1].as<std::string>();
    e.before = {row[2].as<double>(), row[3].as<double>(), row[4].as<double>(),
                row[5].as<int64_t>()};
    e.season_games_before = row[6].as<int64_t>();
    e.after = {row[7].as<double>(), row[8].as<double>(), row[9].as<double>(),
               row[10].as<int64_t>()};
    e.season_games_after = row[11].as<int64_t>();
    out.effects.push_back(std::move(e));
  }
  return true;
}

}  // namespace

absl::StatusOr<VoidOutcome> PgRatingsStore::VoidResult(const model::LadderRegistry& ladders,
                                                       const VoidRequest& request, absl::Time now) {
  VoidOutcome out;
  absl::Status status = db_->Transact("void_result", [&](pqxx::work& txn) -> absl::Status {
    out = VoidOutcome();
    txn.exec0(sql::kVoidLock);
    if (LoadVoid(*db_, txn, request.game_id, out)) {
      out.replayed = true;
      return absl::OkStatus();
    }
    pqxx::result target = db_->Run(txn, "ratings_void_target", sql::kVoidTarget, request.game_id);
    if (target.empty()) {
      return absl::NotFoundError(
          absl::StrCat("no result was reported for game_id \"", request.game_id, "\""));
    }
    const std::string ladder_name = target[0][0].as<std::string>();
    const int64_t voided_seq = target[0][3].as<int64_t>();
    if (!target[0][2].as<bool>() || voided_seq < 0) {
      return absl::FailedPreconditionError(
          absl::StrCat("game ", request.game_id,
                       " was casual: it changed no rating, so there is nothing to void"));
    }
    absl::StatusOr<const model::LadderSpec*> found = ladders.Find(ladder_name);
    if (!found.ok()) {
      return absl::InternalError(absl::StrCat("game ", request.game_id, " counted for ladder ",
                                              ladder_name, ", which this build does not know"));
    }
    const model::LadderSpec& ladder = **found;

    // The voided game and every later result on its ladder, in the order they were applied.
    std::vector<ReplayGame> games;
    for (const pqxx::row& row :
         db_->Run(txn, "ratings_history_from", sql::kHistoryFrom, ladder_name, voided_seq)) {
      ReplaySeat seat{ToHistory(row), row[14].as<int>()};
      if (games.empty() || games.back().seq != seat.entry.seq) {
        games.push_back(
            {seat.entry.seq, seat.entry.game_id, seat.entry.season_id, seat.entry.finish_time, {}});
      }
      games.back().seats.push_back(std::move(seat));
    }
    if (games.empty() || games.front().game_id != request.game_id) {
      return absl::InternalError(
          absl::StrCat("the rating history of game ", request.game_id, " is missing"));
    }
    const ReplayGame& voided = games.front();

    // Who is recomputed, from which result on: the voided game's players, then every player of
    // a later result that involves a recomputed player.
    std::map<std::string, int64_t> first_seq;
    for (const ReplaySeat& s : voided.seats)
      first_seq.emplace(s.entry.change.account_id, voided.seq);
    std::vector<const ReplayGame*> replay;
    for (size_t i = 1; i < games.size(); ++i) {
      const ReplayGame& g = games[i];
      const bool touched = std::any_of(g.seats.begin(), g.seats.end(), [&](const ReplaySeat& s) {
        return first_seq.contains(s.entry.change.account_id);
      });
      if (!touched) continue;
      replay.push_back(&g);
      for (const ReplaySeat& s : g.seats) first_seq.emplace(s.entry.change.account_id, g.seq);
    }

    // Each recomputed player's rating just before the first result recomputed for them.
    std::vector<std::string> accounts;
    std::vector<int64_t> seqs;
    for (const auto& [account, seq] : first_seq) {
      accounts.push_back(account);
      seqs.push_back(seq);
    }
    std::map<std::string, ReplayState> state;
    for (const pqxx::row& row : db_->Run(txn, "ratings_state_before", sql::kStateBefore,
                                         ladder_name, TextArray(accounts), PgIntArray(seqs))) {
      ReplayState st;
      if (row[1].is_null()) {
        st.rating = ladder.Initial();
      } else {
        st.season_id = row[1].as<std::string>();
        st.rating = {row[2].as<double>(), row[3].as<double>(), row[4].as<double>(),
                     row[5].as<int64_t>()};
        st.season_games = row[6].as<int64_t>();
        st.last_game_time = OptTime(row[7].as<int64_t>());
      }
      state.emplace(row[0].as<std::string>(), std::move(st));
    }
    if (state.size() != accounts.size()) {
      return absl::InternalError("a recomputed player's earlier rating could not be read");
    }

    // Their rating rows as they are now (locked).
    std::map<std::pair<std::string, std::string>, RatingRecord> rows_before;
    for (const pqxx::row& row : db_->Run(txn, "ratings_lock_player_rows", sql::kLockPlayerRows,
                                         ladder_name, TextArray(accounts))) {
      RatingRecord r = ToRecord(row, 0, ladder_name);
      rows_before.emplace(std::make_pair(r.account_id, r.season_id), std::move(r));
    }

    // Replay. `rows_after` is each touched row's state after the player's last result of that
    // season; the voided game's players start from their rating before it.
    std::map<std::pair<std::string, std::string>, ReplayState> rows_after;
    for (const ReplaySeat& s : voided.seats) {
      ReplayState st = state.at(s.entry.change.account_id);
      EnterSeason(ladder, voided.season_id, st);
      rows_after[{s.entry.change.account_id, voided.season_id}] = st;
    }
    std::vector<std::string> h_accounts;
    std::vector<int64_t> h_seqs;
    std::vector<double> h_rb, h_db, h_ra, h_da, h_va, h_ca;
    for (const ReplayGame* g : replay) {
      std::vector<model::Participant> participants;
      for (const ReplaySeat& s : g->seats) {
        ReplayState& st = state.at(s.entry.change.account_id);
        EnterSeason(ladder, g->season_id, st);
        double idle_days = 0;
        if (st.last_game_time && g->finish_time > *st.last_game_time) {
          idle_days = absl::ToDoubleHours(g->finish_time - *st.last_game_time) / 24.0;
        }
        // Rows from before sides were recorded: team-mates share a rank.
        const int side = s.side >= 0    ? s.side
                         : ladder.teams ? s.entry.change.rank
                                        : s.entry.change.seat;
        participants.push_back({st.rating, idle_days, side, s.entry.change.rank});
      }
      absl::StatusOr<std::vector<model::Rating>> rated = model::Rate(ladder, participants);
      if (!rated.ok()) {
        return absl::FailedPreconditionError(
            absl::StrCat("result ", g->game_id,
                         " after the voided game cannot be replayed: ", rated.status().message()));
      }
      for (size_t i = 0; i < g->seats.size(); ++i) {
        const std::string& account = g->seats[i].entry.change.account_id;
        ReplayState& st = state.at(account);
        const model::Rating before = ladder.Idle(participants[i].rating, participants[i].idle_days);
        const model::Rating& after = (*rated)[i];
        st.rating = after;
        ++st.season_games;
        if (!st.last_game_time || g->finish_time > *st.last_game_time) {
          st.last_game_time = g->finish_time;
        }
        rows_after[{account, g->season_id}] = st;
        h_accounts.push_back(account);
        h_seqs.push_back(g->seq);
        h_rb.push_back(before.value);
        h_db.push_back(before.deviation);
        h_ra.push_back(after.value);
        h_da.push_back(after.deviation);
        h_va.push_back(after.volatility);
        h_ca.push_back(ladder.Conservative(after));
      }
    }

    // Write: the void and its removed history, the replayed history, the rating rows, the
    // effects, and the boards' change counters.
    db_->Run(txn, "ratings_insert_void", sql::kInsertVoid, request.game_id, ladder_name,
             voided.season_id, request.reason, request.operator_id, Micros(now),
             static_cast<int>(replay.size()));
    db_->Run(txn, "ratings_move_voided_history", sql::kMoveVoidedHistory, request.game_id);
    if (!h_accounts.empty()) {
      db_->Run(txn, "ratings_rewrite_history", sql::kRewriteHistory, ladder_name,
               TextArray(h_accounts), PgIntArray(h_seqs), DoubleArray(h_rb), DoubleArray(h_db),
               DoubleArray(h_ra), DoubleArray(h_da), DoubleArray(h_va), DoubleArray(h_ca));
    }
    std::vector<std::string> u_accounts, u_seasons, u_provisional, d_accounts, d_seasons;
    std::vector<double> u_rating, u_deviation, u_volatility, u_conservative;
    std::vector<int64_t> u_games, u_season_games, u_last;
    std::vector<std::string> e_accounts, e_seasons;
    std::vector<double> e_rb, e_db, e_vb, e_ra, e_da, e_va;
    std::vector<int64_t> e_gb, e_sb, e_ga, e_sa;
    std::set<std::string> seasons;
    out.effects.clear();
    for (const auto& [key, st] : rows_after) {
      const auto& [account, season] = key;
      auto it = rows_before.find(key);
      if (it == rows_before.end()) {
        return absl::InternalError(absl::StrCat("player ", account, " has rated games in season ",
                                                season, " but no rating row"));
      }
      const RatingRecord& was = it->second;
      seasons.insert(season);
      if (st.season_games == 0) {
        d_accounts.push_back(account);
        d_seasons.push_back(season);
      } else {
        u_accounts.push_back(account);
        u_seasons.push_back(season);
        u_rating.push_back(st.rating.value);
        u_deviation.push_back(st.rating.deviation);
        u_volatility.push_back(st.rating.volatility);
        u_conservative.push_back(ladder.Conservative(st.rating));
        u_games.push_back(st.rating.games);
        u_season_games.push_back(st.season_games);
        u_provisional.push_back(ladder.Provisional(st.rating) ? "t" : "f");
        u_last.push_back(st.last_game_time ? Micros(*st.last_game_time) : int64_t{0});
      }
      VoidEffect e{account, season, was.rating, was.season_games, st.rating, st.season_games};
      e_accounts.push_back(account);
      e_seasons.push_back(season);
      e_rb.push_back(e.before.value);
      e_db.push_back(e.before.deviation);
      e_vb.push_back(e.before.volatility);
      e_gb.push_back(e.before.games);
      e_sb.push_back(e.season_games_before);
      e_ra.push_back(e.after.value);
      e_da.push_back(e.after.deviation);
      e_va.push_back(e.after.volatility);
      e_ga.push_back(e.after.games);
      e_sa.push_back(e.season_games_after);
      out.effects.push_back(std::move(e));
    }
    if (!u_accounts.empty()) {
      db_->Run(txn, "ratings_rewrite_ratings", sql::kRewriteRatings, ladder_name,
               TextArray(u_accounts), TextArray(u_seasons), DoubleArray(u_rating),
               DoubleArray(u_deviation), DoubleArray(u_volatility), DoubleArray(u_conservative),
               PgIntArray(u_games), PgIntArray(u_season_games), TextArray(u_provisional),
               PgIntArray(u_last));
    }
    if (!d_accounts.empty()) {
      db_->Run(txn, "ratings_delete_ratings", sql::kDeleteRatings, ladder_name,
               TextArray(d_accounts), TextArray(d_seasons));
    }
    db_->Run(txn, "ratings_insert_void_effects", sql::kInsertVoidEffects, request.game_id,
             TextArray(e_accounts), TextArray(e_seasons), DoubleArray(e_rb), DoubleArray(e_db),
             DoubleArray(e_vb), PgIntArray(e_gb), PgIntArray(e_sb), DoubleArray(e_ra),
             DoubleArray(e_da), DoubleArray(e_va), PgIntArray(e_ga), PgIntArray(e_sa));
    for (const std::string& season : seasons) {
      db_->Run(txn, "ratings_bump_board", sql::kBumpBoard, ladder_name, season);
    }

    out.voided = true;
    out.game_id = request.game_id;
    out.ladder = ladder_name;
    out.season_id = voided.season_id;
    out.reason = request.reason;
    out.operator_id = request.operator_id;
    out.void_time = absl::FromUnixMicros(Micros(now));
    out.replayed_games = static_cast<int>(replay.size());
    for (const ReplaySeat& s : voided.seats) out.removed.push_back(s.entry.change);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return out;
}

absl::StatusOr<std::vector<Season>> PgRatingsStore::ListSeasons(absl::Time now) {
  std::vector<Season> seasons;
  absl::Status status = Read("list_seasons", [&](pqxx::nontransaction& txn) {
    seasons.clear();
    for (const pqxx::row& row : txn.exec(sql::kListSeasons)) {
      Season s;
      s.season_id = row[0].as<std::string>();
      s.display_name = row[1].as<std::string>();
      s.start_time = absl::FromUnixMicros(row[2].as<int64_t>());
      s.end_time = OptTime(row[3].as<int64_t>());
      s.current = s.start_time <= now && (!s.end_time || now < *s.end_time);
      seasons.push_back(std::move(s));
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return seasons;
}

absl::StatusOr<Season> PgRatingsStore::ResolveSeason(const std::string& season_id, absl::Time now) {
  absl::StatusOr<std::vector<Season>> seasons = ListSeasons(now);
  if (!seasons.ok()) return seasons.status();
  for (const Season& s : *seasons) {
    if (season_id.empty() ? s.current : s.season_id == season_id) return s;
  }
  if (season_id.empty()) return absl::FailedPreconditionError("no season has started yet");
  return absl::NotFoundError(absl::StrCat("no season \"", season_id, "\""));
}

absl::Status PgRatingsStore::AddSeason(const std::string& season_id,
                                       const std::string& display_name, absl::Time start_time) {
  return db_->Transact("add_season", [&](pqxx::work& txn) -> absl::Status {
    // Serialise season scheduling so two schedulers cannot both pass the "latest start" check.
    txn.exec0("LOCK TABLE ratings.seasons IN SHARE ROW EXCLUSIVE MODE");
    if (!txn.exec_params(sql::kSeasonExists, season_id).empty()) {
      return absl::AlreadyExistsError(absl::StrCat("season \"", season_id, "\" exists"));
    }
    if (txn.exec_params(sql::kInsertSeason, season_id, display_name, Micros(start_time)).empty()) {
      return absl::FailedPreconditionError(
          "a new season must start after every existing season's start");
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<RatingRecord> PgRatingsStore::GetRating(const model::LadderSpec& ladder,
                                                       const Season& season,
                                                       const std::string& account_id) {
  RatingRecord out;
  absl::Status status = Read("get_rating", [&](pqxx::nontransaction& txn) {
    pqxx::result row =
        db_->Run(txn, "ratings_get_row", sql::kGetRow, ladder.name, season.season_id, account_id);
    if (!row.empty()) {
      out = ToRecord(row[0], 0, ladder.name);
      return absl::OkStatus();
    }
    pqxx::result earlier = db_->Run(txn, "ratings_earlier_rows", sql::kEarlierRows, ladder.name,
                                    TextArray({account_id}), season.season_id);
    if (earlier.empty()) {
      out = StartOfSeason(ladder, season.season_id, account_id, nullptr);
    } else {
      const RatingRecord prev = ToRecord(earlier[0], 0, ladder.name);
      out = StartOfSeason(ladder, season.season_id, account_id, &prev);
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return out;
}

absl::StatusOr<std::vector<RatingRecord>> PgRatingsStore::GetRatings(
    const model::LadderRegistry& ladders, const Season& season, const std::string& account_id) {
  std::vector<RatingRecord> out;
  absl::Status status = Read("get_ratings", [&](pqxx::nontransaction& txn) {
    out.clear();
    for (const pqxx::row& row : db_->Run(txn, "ratings_latest_rows_up_to", sql::kLatestRowsUpTo,
                                         account_id, season.season_id)) {
      const std::string name = row[0].as<std::string>();
      absl::StatusOr<const model::LadderSpec*> ladder = ladders.Find(name);
      if (!ladder.ok()) continue;  // a ladder no longer offered
      RatingRecord r = ToRecord(row, 1, name);
      if (r.season_id != season.season_id) {
        r = StartOfSeason(**ladder, season.season_id, account_id, &r);
      }
      out.push_back(std::move(r));
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return out;
}

absl::StatusOr<std::vector<HistoryEntry>> PgRatingsStore::GetHistory(const std::string& account_id,
                                                                     const std::string& ladder,
                                                                     const std::string& season_id,
                                                                     int64_t before_seq,
                                                                     int limit) {
  std::vector<HistoryEntry> out;
  absl::Status status = Read("get_history", [&](pqxx::nontransaction& txn) {
    out.clear();
    const int64_t before = before_seq > 0 ? before_seq : std::numeric_limits<int64_t>::max();
    for (const pqxx::row& row : db_->Run(txn, "ratings_history_of_player", sql::kHistoryOfPlayer,
                                         account_id, ladder, season_id, before, limit)) {
      out.push_back(ToHistory(row));
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return out;
}

namespace {

// A number of the ladder's configuration as an SQL literal (CREATE TABLE AS takes no parameters;
// these are the service's own settings, never a request's).
std::string Num(double v) { return absl::StrFormat("%.17g", v); }

// The SELECT a board snapshot is made of (see RatingsStore::BuildSnapshot). The growth and reset
// expressions are model::Glicko2Idle / WengLinIdle and LadderSpec::ApplySeasonReset in SQL.
std::string BoardSelect(const model::LadderSpec& l, const std::string& ladder_literal,
                        const std::string& season_literal, absl::Time now) {
  const bool glicko = l.model == model::ModelKind::kGlicko2;
  const double initial_value = glicko ? l.glicko2.initial_rating : l.weng_lin.mu;
  const double initial_dev = glicko ? l.glicko2.initial_deviation : l.weng_lin.sigma;
  const double ppd = glicko ? l.glicko2.periods_per_day : l.weng_lin.periods_per_day;
  const double boost = l.season_reset.deviation_boost * initial_dev;
  const double pull = std::clamp(l.season_reset.pull, 0.0, 1.0);
  const std::string now_ts = absl::StrCat("to_timestamp(", Num(absl::ToUnixMicros(now)), " / 1e6)");
  const std::string cutoff =
      absl::StrCat(now_ts, " - make_interval(secs => ", Num(l.inactive_days * 86400), ")");
  const std::string periods = absl::StrCat("greatest(0, extract(epoch FROM (", now_ts,
                                           " - e.last_game_time)) / 86400) * ", Num(ppd));
  std::string grown = "e.deviation";
  if (glicko && ppd > 0) {
    constexpr double kScale = 173.7178;
    grown = absl::StrCat("greatest(e.deviation, least(", Num(l.glicko2.max_deviation), ", ",
                         Num(kScale), " * sqrt(power(e.deviation / ", Num(kScale), ", 2) + ",
                         periods, " * power(e.volatility, 2))))");
  } else if (!glicko && ppd > 0 && l.weng_lin.tau > 0) {
    grown = absl::StrCat("greatest(e.deviation, least(", Num(l.weng_lin.max_sigma),
                         ", sqrt(power(e.deviation, 2) + ", periods, " * ",
                         Num(l.weng_lin.tau * l.weng_lin.tau), ")))");
  }
  const std::string established = absl::StrCat("p.deviation <= ", Num(l.provisional.max_deviation),
                                               " AND p.games >= ", l.provisional.min_games);
  const double k = glicko ? 2.0 : 3.0;
  return absl::StrCat(
      "SELECT row_number() OVER (ORDER BY b.conservative DESC, b.account_id)::bigint AS position, "
      "b.account_id, b.rating, b.deviation, b.volatility, b.games, b.season_games, "
      "b.last_game_time, b.conservative FROM (SELECT g.*, g.rating - ",
      Num(k), " * g.dev_now AS conservative FROM (SELECT e.*, ", grown,
      " AS dev_now FROM ("
      // This season's players...
      "SELECT account_id, rating, deviation, volatility, games, season_games, last_game_time "
      "FROM ratings.ratings WHERE ladder = ",
      ladder_literal, " AND season_id = ", season_literal, " AND last_game_time >= ", cutoff,
      // ...and those carried over from their latest earlier season, soft-reset.
      " UNION ALL SELECT p.account_id, ", Num(initial_value), " + (p.rating - ", Num(initial_value),
      ") * ", Num(1.0 - pull), ", CASE WHEN ", established,
      " THEN p.deviation ELSE greatest(p.deviation, least(", Num(initial_dev),
      ", sqrt(power(p.deviation, 2) + ", Num(boost * boost),
      "))) END, p.volatility, p.games, "
      "0::bigint, p.last_game_time FROM (SELECT DISTINCT ON (r.account_id) r.* "
      "FROM ratings.ratings r JOIN ratings.seasons s USING (season_id) WHERE r.ladder = ",
      ladder_literal, " AND r.last_game_time >= ", cutoff,
      " AND s.start_time < (SELECT start_time FROM ratings.seasons WHERE season_id = ",
      season_literal,
      ") AND NOT EXISTS (SELECT 1 FROM ratings.ratings c WHERE c.ladder = r.ladder "
      "AND c.season_id = ",
      season_literal,
      " AND c.account_id = r.account_id) ORDER BY r.account_id, s.start_time DESC) p"
      ") e) g WHERE g.dev_now <= ",
      Num(l.provisional.max_deviation), " AND g.games >= ", l.provisional.min_games,
      ") b ORDER BY b.conservative DESC, b.account_id");
}

}  // namespace

absl::StatusOr<bool> PgRatingsStore::BuildSnapshot(const model::LadderSpec& ladder_spec,
                                                   const std::string& season_id, absl::Time now,
                                                   absl::Time as_of, absl::Duration max_age) {
  const std::string& ladder = ladder_spec.name;
  // One connection for the whole build: the board's advisory lock is held by the session from the
  // first transaction (copy and index) through the VACUUM to the second (publish).
  absl::StatusOr<DbPool::Lease> lease = db_->AcquireSession();  // not through a pooler
  if (!lease.ok()) return lease.status();
  pqxx::connection& connection = lease->connection();
  bool locked = false;
  try {
    {
      pqxx::nontransaction n(connection, "snapshot_lock");
      locked = n.exec_params1(sql::kSnapshotLock, ladder, season_id)[0].as<bool>();
    }
    if (!locked) return false;  // another replica is building this board
    int64_t id = 0;
    {
      pqxx::work txn(connection, "build_snapshot");
      // One consistent view for the change count and the board's rows.
      txn.exec0("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
      // A board of millions takes seconds to copy and index: more than the per-statement cap
      // requests get.
      txn.exec0("SET LOCAL statement_timeout = '10min'");
      for (const pqxx::row& row : txn.exec_params(sql::kUnpublishedSnapshots, ladder, season_id)) {
        const int64_t stale = row[0].as<int64_t>();
        txn.exec0(absl::StrCat("DROP TABLE IF EXISTS ", BoardTable(stale)));
        txn.exec_params0(sql::kDeleteSnapshot, stale);
      }
      const int64_t changes =
          txn.exec_params1(sql::kBoardChanges, ladder, season_id)[0].as<int64_t>();
      pqxx::result latest =
          db_->Run(txn, "ratings_latest_snapshot", sql::kLatestSnapshot, ladder, season_id);
      if (!latest.empty() && latest[0][5].as<int64_t>() == changes &&
          absl::FromUnixMicros(latest[0][4].as<int64_t>()) > now - max_age) {
        txn.commit();
      } else {
        id = txn.exec_params1(sql::kInsertSnapshot, ladder, season_id, changes, Micros(now))[0]
                 .as<int64_t>();
        const std::string table = BoardTable(id);
        txn.exec0(
            absl::StrCat("CREATE TABLE ", table, " AS ",
                         BoardSelect(ladder_spec, txn.quote(ladder), txn.quote(season_id), as_of)));
        txn.exec0(absl::StrCat("ALTER TABLE ", table, " ADD PRIMARY KEY (position)"));
        txn.exec0(
            absl::StrCat("CREATE UNIQUE INDEX ON ", table, " (account_id) INCLUDE (position)"));
        const int64_t players =
            txn.exec1(absl::StrCat("SELECT count(*) FROM ", table))[0].as<int64_t>();
        txn.exec_params0(sql::kSetSnapshotPlayers, id, players);
        txn.commit();
      }
    }
    if (id > 0) {
      {
        // Freeze and analyze before anyone reads it (see migrations/ratings/0002).
        pqxx::nontransaction n(connection, "vacuum_snapshot");
        const std::string pool_timeout = n.exec1("SHOW statement_timeout")[0].as<std::string>();
        n.exec0("SET statement_timeout = '10min'");
        n.exec0(absl::StrCat("VACUUM (FREEZE, ANALYZE) ", BoardTable(id)));
        n.exec_params("SELECT set_config('statement_timeout', $1, false)", pool_timeout);
      }
      pqxx::work txn(connection, "publish_snapshot");
      txn.exec_params0(sql::kPublishSnapshot, id);
      txn.exec_params0(sql::kSupersede, ladder, season_id, id, Micros(now));
      txn.commit();
    }
    {
      pqxx::nontransaction n(connection, "snapshot_unlock");
      n.exec_params(sql::kSnapshotUnlock, ladder, season_id);
    }
    return id > 0;
  } catch (const std::exception& e) {
    // Never reuse the connection: it may still hold the board's session lock.
    lease->Discard();
    return db_->FailureStatus(absl::StrCat("build_snapshot ", ladder, "/", season_id), e, *lease);
  }
}

absl::StatusOr<std::set<std::pair<std::string, std::string>>> PgRatingsStore::ChangedBoards(
    absl::Time now) {
  std::set<std::pair<std::string, std::string>> out;
  absl::Status status = Read("changed_boards", [&](pqxx::nontransaction& txn) {
    out.clear();
    for (const pqxx::row& row :
         db_->Run(txn, "ratings_changed_boards", sql::kChangedBoards, Micros(now))) {
      out.emplace(row[0].as<std::string>(), row[1].as<std::string>());
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return out;
}

absl::Status PgRatingsStore::DropSnapshotsSupersededBefore(absl::Time cutoff) {
  return db_->Transact("drop_snapshots", [&](pqxx::work& txn) {
    for (const pqxx::row& row : txn.exec_params(sql::kExpiredSnapshots, Micros(cutoff))) {
      const int64_t id = row[0].as<int64_t>();
      txn.exec0(absl::StrCat("DROP TABLE IF EXISTS ", BoardTable(id)));
      txn.exec_params0(sql::kDeleteSnapshot, id);
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<std::optional<BoardSnapshot>> PgRatingsStore::LatestSnapshot(
    const std::string& ladder, const std::string& season_id) {
  std::optional<BoardSnapshot> out;
  absl::Status status = Read("latest_snapshot", [&](pqxx::nontransaction& txn) {
    out.reset();
    pqxx::result r =
        db_->Run(txn, "ratings_latest_snapshot", sql::kLatestSnapshot, ladder, season_id);
    if (!r.empty()) out = ToSnapshot(r[0]);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return out;
}

absl::StatusOr<BoardSnapshot> PgRatingsStore::GetSnapshot(int64_t snapshot_id) {
  BoardSnapshot out;
  absl::Status status = Read("get_snapshot", [&](pqxx::nontransaction& txn) {
    pqxx::result r = db_->Run(txn, "ratings_get_snapshot", sql::kGetSnapshot, snapshot_id);
    if (r.empty()) return SnapshotExpired();
    out = ToSnapshot(r[0]);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return out;
}

std::string PgRatingsStore::PrepareOnSnapshot(pqxx::connection_base& connection,
                                              const BoardSnapshot& snapshot, const char* prefix,
                                              const std::string& definition) {
  const std::string board = absl::StrCat(snapshot.ladder, "/", snapshot.season_id);
  std::vector<int64_t> dropped;
  {
    std::lock_guard<std::mutex> lock(prepared_mu_);
    std::vector<int64_t>& ids = prepared_snapshots_[connection.backendpid()][board];
    auto it = std::find(ids.begin(), ids.end(), snapshot.snapshot_id);
    if (it != ids.end()) ids.erase(it);
    ids.push_back(snapshot.snapshot_id);
    while (ids.size() > kPreparedSnapshotsPerBoard) {
      dropped.push_back(ids.front());
      ids.erase(ids.begin());
    }
  }
  // libpqxx ignores the unprepare of a name it does not know (not prepared on this connection,
  // or the pid belonged to a connection since closed).
  for (int64_t id : dropped) {
    for (const char* p : kSnapshotStatementPrefixes) connection.unprepare(absl::StrCat(p, id));
  }
  std::string name = absl::StrCat(prefix, snapshot.snapshot_id);
  connection.prepare(name, definition);  // a no-op once this connection has it
  return name;
}

absl::StatusOr<std::vector<BoardEntry>> PgRatingsStore::BoardRange(const BoardSnapshot& snapshot,
                                                                   int64_t first, int64_t last) {
  std::vector<BoardEntry> out;
  absl::Status status = Read("board_range", [&](pqxx::nontransaction& txn) -> absl::Status {
    out.clear();
    pqxx::result rows;
    try {
      const std::string definition =
          absl::StrCat("SELECT " PARLOR_BOARD_COLUMNS " FROM ", BoardTable(snapshot.snapshot_id),
                       " WHERE position BETWEEN $1 AND $2 ORDER BY position");
      rows =
          db_->options().prepared_statements
              ? txn.exec_prepared(PrepareOnSnapshot(txn.conn(), snapshot, kRangePrefix, definition),
                                  first, last)
              : txn.exec_params(definition, first, last);
    } catch (const pqxx::undefined_table&) {
      return SnapshotExpired();
    }
    for (const pqxx::row& row : rows) out.push_back(ToEntry(row, snapshot));
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return out;
}

absl::StatusOr<int64_t> PgRatingsStore::BoardPosition(const BoardSnapshot& snapshot,
                                                      const std::string& account_id) {
  int64_t position = 0;
  absl::Status status = Read("board_position", [&](pqxx::nontransaction& txn) -> absl::Status {
    position = 0;
    pqxx::result r;
    try {
      r = txn.exec_params(absl::StrCat("SELECT position FROM ", BoardTable(snapshot.snapshot_id),
                                       " WHERE account_id = $1::uuid"),
                          account_id);
    } catch (const pqxx::undefined_table&) {
      return SnapshotExpired();
    }
    if (!r.empty()) position = r[0][0].as<int64_t>();
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return position;
}

absl::StatusOr<RatingsStore::Around> PgRatingsStore::BoardAround(const BoardSnapshot& snapshot,
                                                                 const model::LadderSpec& ladder,
                                                                 const Season& season,
                                                                 const std::string& account_id,
                                                                 int before, int after) {
  Around out;
  absl::Status status = Read("board_around", [&](pqxx::nontransaction& txn) -> absl::Status {
    out = {};
    const std::string table = BoardTable(snapshot.snapshot_id);
    // Columns: the player's live row (PARLOR_RATING_COLUMNS, 10, NULL if none), their position
    // (NULL if not on the board), then the board entries (PARLOR_BOARD_COLUMNS): one row per
    // entry, or a single row without entries.
    pqxx::result rows;
    try {
      const std::string definition =
          absl::StrCat("SELECT " PARLOR_RATING_COLUMNS
                       ", me.position, b.* FROM (SELECT 1) one "
                       "LEFT JOIN ratings.ratings r ON r.ladder = $4 AND r.season_id = $5 "
                       "AND r.account_id = $1::uuid "
                       "LEFT JOIN ",
                       table,
                       " me ON me.account_id = $1::uuid "
                       "LEFT JOIN LATERAL (SELECT " PARLOR_BOARD_COLUMNS " FROM ",
                       table,
                       " WHERE position BETWEEN me.position - $2 AND me.position + $3) b ON true "
                       "ORDER BY b.position");
      rows = db_->options().prepared_statements
                 ? txn.exec_prepared(
                       PrepareOnSnapshot(txn.conn(), snapshot, kAroundPrefix, definition),
                       account_id, before, after, ladder.name, season.season_id)
                 : txn.exec_params(definition, account_id, before, after, ladder.name,
                                   season.season_id);
    } catch (const pqxx::undefined_table&) {
      return SnapshotExpired();
    }
    constexpr int kPosition = 10;
    for (const pqxx::row& row : rows) {
      if (!out.mine && !row[0].is_null()) out.mine = ToRecord(row, 0, ladder.name);
      if (!row[kPosition].is_null()) out.position = row[kPosition].as<int64_t>();
      if (row[kPosition + 1].is_null()) continue;
      pqxx::row entry = row.slice(kPosition + 1, row.size());
      out.entries.push_back(ToEntry(entry, snapshot));
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return out;
}

absl::StatusOr<int64_t> PgRatingsStore::CountPlayers(const std::string& ladder,
                                                     const std::string& season_id) {
  int64_t n = 0;
  absl::Status status = Read("count_players", [&](pqxx::nontransaction& txn) {
    n = txn.exec_params1(sql::kCountPlayers, ladder, season_id)[0].as<int64_t>();
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return n;
}

absl::StatusOr<int64_t> PgRatingsStore::HandledThrough() {
  int64_t through = 0;
  absl::Status status = Read("ratings_forgotten_through", [&](pqxx::nontransaction& txn) {
    through = txn.exec(sql::kForgottenThrough)[0][0].as<int64_t>();
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return through;
}

absl::Status PgRatingsStore::Forget(const DeletedAccount& deleted) {
  return db_->Transact("ratings_forget_account", [&](pqxx::work& txn) {
    const std::string& id = deleted.account_id;
    txn.exec_params0(sql::kRecordForgotten, id, deleted.sequence);
    for (const pqxx::row& board : txn.exec_params(sql::kBoardsOf, id)) {
      txn.exec_params0(sql::kBumpBoard, board[0].as<std::string>(), board[1].as<std::string>());
    }
    // Snapshots keep the other players' positions as they were; the next one closes the gap.
    for (const pqxx::row& snapshot : txn.exec(sql::kSnapshotTables)) {
      txn.exec_params0(absl::StrCat("DELETE FROM ", BoardTable(snapshot[0].as<int64_t>()),
                                    " WHERE account_id = $1::uuid"),
                       id);
    }
    txn.exec_params0(sql::kForgetRatings, id);
    txn.exec_params0(sql::kForgetHistory, id);
    txn.exec_params0(sql::kForgetVoidedHistory, id);
    txn.exec_params0(sql::kForgetVoidEffects, id);
    return absl::OkStatus();
  });
}

}  // namespace parlor::ratings
