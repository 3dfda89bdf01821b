#include "services/sessions/store/store.h"

#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "pqxx/pqxx"
#include "services/sessions/store/sql.h"

namespace parlor::sessions {
namespace {

int64_t Micros(absl::Time t) { return absl::ToUnixMicros(t); }
int64_t MicrosOrZero(const std::optional<absl::Time>& t) { return t ? absl::ToUnixMicros(*t) : 0; }
std::optional<absl::Time> TimeOrNull(int64_t micros) {
  if (micros == 0) return std::nullopt;
  return absl::FromUnixMicros(micros);
}

const char* KindName(LogRow::Kind kind) {
  switch (kind) {
    case LogRow::Kind::kSetup:
      return "setup";
    case LogRow::Kind::kAction:
      return "action";
    case LogRow::Kind::kForfeit:
      return "forfeit";
  }
  return "action";
}

const char* CauseName(LogRow::Cause cause) {
  switch (cause) {
    case LogRow::Cause::kSystem:
      return "system";
    case LogRow::Cause::kPlayer:
      return "player";
    case LogRow::Cause::kBot:
      return "bot";
    case LogRow::Cause::kTimeout:
      return "timeout";
  }
  return "system";
}

LogRow::Kind ParseKind(const std::string& s) {
  if (s == "setup") return LogRow::Kind::kSetup;
  if (s == "forfeit") return LogRow::Kind::kForfeit;
  return LogRow::Kind::kAction;
}

LogRow::Cause ParseCause(const std::string& s) {
  if (s == "player") return LogRow::Cause::kPlayer;
  if (s == "bot") return LogRow::Cause::kBot;
  if (s == "timeout") return LogRow::Cause::kTimeout;
  return LogRow::Cause::kSystem;
}

template <typename T>
std::vector<T> ParseList(const std::string& text) {
  std::vector<T> out;
  if (text.empty()) return out;
  for (absl::string_view part : absl::StrSplit(text, ',')) {
    int64_t v = 0;
    (void)absl::SimpleAtoi(part, &v);
    out.push_back(static_cast<T>(v));
  }
  return out;
}

std::string PgArray(const std::vector<int64_t>& values) {
  return absl::StrCat("{", absl::StrJoin(values, ","), "}");
}
std::string PgArray(const std::vector<int>& values) {
  return absl::StrCat("{", absl::StrJoin(values, ","), "}");
}

// The options map as a JSON object (keys and values are validated names/values; escaped anyway).
std::string JsonEscapeString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          absl::StrAppend(&out, "\\u00", absl::Hex(static_cast<unsigned char>(c), absl::kZeroPad2));
        } else {
          out += c;
        }
    }
  }
  out += "\"";
  return out;
}

std::string OptionsJson(const std::map<std::string, std::string>& options) {
  std::vector<std::string> parts;
  for (const auto& [k, v] : options) {
    parts.push_back(absl::StrCat(JsonEscapeString(k), ":", JsonEscapeString(v)));
  }
  return absl::StrCat("{", absl::StrJoin(parts, ","), "}");
}

// Parses the flat {"k":"v",...} object PostgreSQL prints for the options column.
std::map<std::string, std::string> ParseOptionsJson(const std::string& json) {
  std::map<std::string, std::string> out;
  size_t i = 0;
  auto read_string = [&](std::string* s) -> bool {
    while (i < json.size() && json[i] != '"') ++i;
    if (i >= json.size()) return false;
    ++i;
    s->clear();
    while (i < json.size() && json[i] != '"') {
      if (json[i] == '\\' && i + 1 < json.size()) ++i;
      s->push_back(json[i++]);
    }
    ++i;
    return true;
  };
  std::string key, value;
  while (read_string(&key) && read_string(&value)) out[key] = value;
  return out;
}

GameRow ReadGame(const pqxx::row& r) {
  GameRow g;
  g.game_id = r[0].as<std::string>();
  g.game = r[1].as<std::string>();
  g.match_id = r[2].as<std::string>();
  g.ranked = r[3].as<bool>();
  g.finished = r[4].as<std::string>() == "finished";
  g.version = r[5].as<int64_t>();
  g.num_players = r[6].as<int>();
  g.options = ParseOptionsJson(r[7].as<std::string>());
  // NULL: the caller holds this version's snapshot (SnapshotCache).
  if (!r[8].is_null()) g.snapshot = pqxx::binarystring(r[8]).str();
  g.seed_commitment = r[9].as<std::string>();
  g.acting_seats = static_cast<uint32_t>(r[10].as<int64_t>());
  g.time_control.kind = r[11].as<std::string>() == "time_bank" ? TimeControlRow::Kind::kTimeBank
                                                               : TimeControlRow::Kind::kPerMove;
  g.time_control.per_move_s = r[12].as<int64_t>();
  g.time_control.bank_initial_s = r[13].as<int64_t>();
  g.time_control.bank_increment_s = r[14].as<int64_t>();
  g.time_control.vacation_days = r[15].as<int>();
  g.deadline = TimeOrNull(r[16].as<int64_t>());
  g.ranks = ParseList<int>(r[17].as<std::string>());
  g.scores = ParseList<int64_t>(r[18].as<std::string>());
  g.end_reason = r[19].as<std::string>();
  g.created_at = absl::FromUnixMicros(r[20].as<int64_t>());
  g.updated_at = absl::FromUnixMicros(r[21].as<int64_t>());
  g.is_public = r[22].as<bool>();
  return g;
}

SeatRow ReadSeat(const pqxx::row& r) {
  SeatRow s;
  s.seat = r[0].as<int>();
  s.account_id = r[1].as<std::string>();
  s.bot = r[2].as<std::string>();
  s.display_name = r[3].as<std::string>();
  s.team = r[4].as<int>();
  s.forfeited = r[5].as<bool>();
  s.my_turn = r[6].as<bool>();
  s.turn_started_at = TimeOrNull(r[7].as<int64_t>());
  s.deadline = TimeOrNull(r[8].as<int64_t>());
  s.reminders_sent = r[9].as<int>();
  const int64_t bank = r[10].as<int64_t>();
  if (bank >= 0) s.time_bank_ms = bank;
  s.vacation_used_ms = r[11].as<int64_t>();
  return s;
}

// Every column UpdateGame writes to a seat, apart from status and updated_at.
bool SameSeatState(const SeatRow& a, const SeatRow& b) {
  return a.seat == b.seat && a.forfeited == b.forfeited && a.my_turn == b.my_turn &&
         a.turn_started_at == b.turn_started_at && a.deadline == b.deadline &&
         a.reminders_sent == b.reminders_sent && a.time_bank_ms == b.time_bank_ms &&
         a.vacation_used_ms == b.vacation_used_ms;
}

void ReadSeats(pqxx::work& txn, GameRow* game) {
  game->seats.clear();
  for (const pqxx::row& r : txn.exec_params(sql::kSelectSeats, game->game_id)) {
    game->seats.push_back(ReadSeat(r));
  }
}

void InsertLog(pqxx::work& txn, const std::string& game_id, const LogRow& row) {
  txn.exec_params0(sql::kInsertAction, game_id, row.version, KindName(row.kind),
                   CauseName(row.cause), row.seat, row.action, row.account_id,
                   pqxx::binarystring(row.entry), Micros(row.created_at));
}

void InsertNotifications(pqxx::work& txn, const std::string& game_id,
                         const std::vector<NotificationRow>& rows, absl::Time now) {
  for (const NotificationRow& n : rows) {
    txn.exec_params0(sql::kInsertNotification, game_id, n.account_id, n.kind, n.version,
                     n.dedupe_key, n.payload_json, Micros(now));
  }
}

void Notify(pqxx::work& txn, const std::string& payload) {
  if (!payload.empty()) txn.exec_params(sql::kNotify, payload);
}

}  // namespace

absl::StatusOr<GameRow> GameStore::CreateGame(const NewGame& game, absl::string_view match_key,
                                              bool* created) {
  GameRow result;
  *created = false;
  const std::string key(match_key);
  absl::Status status = db_->Transact("sessions.create_game", [&](pqxx::work& txn) -> absl::Status {
    const GameRow& g = game.game;
    const absl::Time now = g.created_at;
    if (!key.empty()) {
      // Claim the match id first: a concurrent duplicate waits on the unique key, then sees it.
      pqxx::result claimed = txn.exec_params(sql::kInsertMatch, key, g.game_id,
                                             pqxx::binarystring(game.request_hash), Micros(now));
      if (claimed.empty()) {
        pqxx::row existing = txn.exec_params1(sql::kSelectMatch, key);
        if (pqxx::binarystring(existing[1]).str() != game.request_hash) {
          return absl::AlreadyExistsError(absl::StrCat(
              "match_id '", key, "' was already used to create a game with different settings"));
        }
        pqxx::result rows = txn.exec_params(sql::kSelectGame, existing[0].as<std::string>());
        if (rows.empty()) return absl::InternalError("match refers to a missing game");
        result = ReadGame(rows[0]);
        ReadSeats(txn, &result);
        *created = false;
        return absl::OkStatus();
      }
    }
    const TimeControlRow& tc = g.time_control;
    const char* status = g.finished ? "finished" : "active";
    txn.exec_params0(sql::kInsertGame, g.game_id, g.game, g.match_id, g.ranked, g.num_players,
                     OptionsJson(g.options), pqxx::binarystring(g.snapshot), g.seed_commitment,
                     static_cast<int64_t>(g.acting_seats),
                     tc.kind == TimeControlRow::Kind::kTimeBank ? "time_bank" : "per_move",
                     tc.kind == TimeControlRow::Kind::kPerMove ? tc.per_move_s : 0,
                     tc.kind == TimeControlRow::Kind::kTimeBank ? tc.bank_initial_s : 0,
                     tc.bank_increment_s, tc.vacation_days, MicrosOrZero(g.deadline), Micros(now),
                     g.is_public ? "public" : "private", status,
                     g.finished ? PgArray(g.ranks) : std::string(),
                     g.finished ? PgArray(g.scores) : std::string(), g.end_reason, g.version);
    for (const SeatRow& s : g.seats) {
      txn.exec_params0(sql::kInsertSeat, g.game_id, s.seat, s.account_id, s.bot, s.display_name,
                       s.team, s.my_turn, MicrosOrZero(s.turn_started_at), MicrosOrZero(s.deadline),
                       s.time_bank_ms.value_or(-1), Micros(now), status);
    }
    for (const LogRow& row : game.log) InsertLog(txn, g.game_id, row);
    InsertNotifications(txn, g.game_id, game.notifications, now);
    if (game.result) {
      txn.exec_params0(sql::kInsertResult, g.game_id, g.game, g.ranked, game.result->payload_json,
                       Micros(now));
    }
    Notify(txn, game.notify_payload);
    result = g;
    *created = true;
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return result;
}

absl::StatusOr<GameRow> GameStore::GetGame(absl::string_view game_id) {
  GameRow result;
  const std::string id(game_id);
  const std::optional<SnapshotCache::Entry> cached = snapshots_.Get(id);
  absl::Status status = db_->Transact("sessions.get_game", [&](pqxx::work& txn) -> absl::Status {
    pqxx::result rows =
        txn.exec_params(sql::kSelectGameUnlessCached, id, cached ? cached->version : int64_t{-1});
    if (rows.empty()) return absl::NotFoundError(absl::StrCat("no game with id ", id));
    result = ReadGame(rows[0]);
    ReadSeats(txn, &result);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  if (result.snapshot.empty() && cached && cached->version == result.version) {
    result.snapshot = *cached->snapshot;
  }
  return result;
}

absl::StatusOr<std::vector<GameRow>> GameStore::ListGames(absl::string_view account_id,
                                                          ListFilter filter,
                                                          const std::optional<ListCursor>& cursor,
                                                          int limit) {
  std::vector<GameRow> result;
  const std::string account(account_id);
  absl::Status status = db_->Transact("sessions.list_games", [&](pqxx::work& txn) -> absl::Status {
    result.clear();
    pqxx::result rows = txn.exec_params(
        sql::kListMyGames, account, static_cast<int>(filter),
        cursor ? Micros(cursor->updated_at) : int64_t{0},
        cursor ? cursor->game_id : std::string("00000000-0000-0000-0000-000000000000"), limit);
    for (const pqxx::row& r : rows) {
      result.push_back(ReadGame(r));
      ReadSeats(txn, &result.back());
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return result;
}

absl::StatusOr<std::vector<GameRow>> GameStore::ListPublicGames(
    absl::string_view game, bool finished, const std::optional<ListCursor>& cursor, int limit) {
  std::vector<GameRow> result;
  const std::string name(game);
  absl::Status status =
      db_->Transact("sessions.list_public_games", [&](pqxx::work& txn) -> absl::Status {
        result.clear();
        pqxx::result rows = txn.exec_params(
            sql::kListPublicGames, name, finished ? "finished" : "active",
            cursor ? Micros(cursor->updated_at) : int64_t{0},
            cursor ? cursor->game_id : std::string("00000000-0000-0000-0000-000000000000"), limit);
        for (const pqxx::row& r : rows) {
          result.push_back(ReadGame(r));
          ReadSeats(txn, &result.back());
        }
        return absl::OkStatus();
      });
  if (!status.ok()) return status;
  return result;
}

absl::StatusOr<int> GameStore::DeleteIdempotencyKeysBefore(absl::Time cutoff, int limit) {
  int deleted = 0;
  absl::Status status =
      db_->Transact("sessions.delete_old_idempotency_keys", [&](pqxx::work& txn) -> absl::Status {
        deleted = static_cast<int>(
            txn.exec_params(sql::kDeleteOldIdempotencyKeys, Micros(cutoff), limit).size());
        return absl::OkStatus();
      });
  if (!status.ok()) return status;
  return deleted;
}

absl::StatusOr<std::vector<LogRow>> GameStore::GetLog(absl::string_view game_id,
                                                      int64_t from_version, int limit) {
  std::vector<LogRow> result;
  const std::string id(game_id);
  absl::Status status = db_->Transact("sessions.get_log", [&](pqxx::work& txn) -> absl::Status {
    result.clear();
    for (const pqxx::row& r : txn.exec_params(sql::kSelectActions, id, from_version, limit)) {
      LogRow row;
      row.version = r[0].as<int64_t>();
      row.kind = ParseKind(r[1].as<std::string>());
      row.cause = ParseCause(r[2].as<std::string>());
      row.seat = r[3].as<int>();
      row.action = r[4].as<int64_t>();
      row.account_id = r[5].as<std::string>();
      row.entry = pqxx::binarystring(r[6]).str();
      row.created_at = absl::FromUnixMicros(r[7].as<int64_t>());
      result.push_back(std::move(row));
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return result;
}

absl::Status GameStore::UpdateGame(absl::string_view txn_name, absl::string_view game_id,
                                   const std::optional<IdempotencyKeyRef>& key,
                                   const Decide& decide) {
  const std::string id(game_id);
  const std::optional<SnapshotCache::Entry> cached = snapshots_.Get(id);
  // The snapshot this transaction wrote, to cache once (and only if) it has committed.
  std::optional<std::pair<int64_t, std::string>> written_snapshot;
  absl::Status status = db_->Transact(txn_name, [&](pqxx::work& txn) -> absl::Status {
    written_snapshot.reset();
    // One round trip to read: the locked game, its seats, and the stored answer. Both hot
    // statements are prepared once per connection (re-preparing the same text is a no-op), which
    // spares the server planning them on every move.
    txn.conn().prepare("sessions_lock_game", sql::kLockGameWithSeats);
    txn.conn().prepare("sessions_write_mutation", sql::kWriteMutation);
    pqxx::result rows =
        txn.exec_prepared("sessions_lock_game", id, key ? key->account_id : std::string(),
                          key ? key->key : std::string(), cached ? cached->version : int64_t{-1});
    if (rows.empty()) return absl::NotFoundError(absl::StrCat("no game with id ", id));
    constexpr int kSeatColumns = 23;  // PARLOR_SESSIONS_GAME_COLUMNS count
    constexpr int kKeyColumns = kSeatColumns + 12;
    GameRow locked = ReadGame(rows[0]);
    if (rows[0][8].is_null()) {
      if (!cached || cached->version != locked.version) {
        return absl::InternalError("the database left out a snapshot this server does not hold");
      }
      locked.snapshot = *cached->snapshot;
    }
    for (const pqxx::row& r : rows) {
      SeatRow seat;
      pqxx::row::size_type c = kSeatColumns;
      seat.seat = r[c].as<int>();
      seat.account_id = r[c + 1].as<std::string>();
      seat.bot = r[c + 2].as<std::string>();
      seat.display_name = r[c + 3].as<std::string>();
      seat.team = r[c + 4].as<int>();
      seat.forfeited = r[c + 5].as<bool>();
      seat.my_turn = r[c + 6].as<bool>();
      seat.turn_started_at = TimeOrNull(r[c + 7].as<int64_t>());
      seat.deadline = TimeOrNull(r[c + 8].as<int64_t>());
      seat.reminders_sent = r[c + 9].as<int>();
      const int64_t bank = r[c + 10].as<int64_t>();
      if (bank >= 0) seat.time_bank_ms = bank;
      seat.vacation_used_ms = r[c + 11].as<int64_t>();
      locked.seats.push_back(std::move(seat));
    }
    std::optional<StoredAnswer> stored;
    if (key && rows[0][kKeyColumns + 1].as<int64_t>() >= 0) {
      stored = StoredAnswer{pqxx::binarystring(rows[0][kKeyColumns]).str(),
                            rows[0][kKeyColumns + 1].as<int64_t>(),
                            pqxx::binarystring(rows[0][kKeyColumns + 2]).str()};
    }
    absl::StatusOr<std::optional<Mutation>> decided = decide(locked, stored);
    if (!decided.ok()) return decided.status();
    if (!decided->has_value()) return absl::OkStatus();
    const Mutation& m = **decided;
    const GameRow& g = m.after;
    const absl::Time now = g.updated_at;
    // Seats as parallel arrays. A computer seat the change leaves as it was is not rewritten:
    // its updated_at only orders a player's ListMyGames, and each rewrite costs a new row version
    // plus index entries (a bot game would pay it on every move).
    std::vector<int64_t> seat_no, ts, dl, rem, bank, vac;
    std::vector<std::string> forfeited, my_turn;
    for (const SeatRow& s : g.seats) {
      if (!s.bot.empty() && g.finished == locked.finished &&
          static_cast<size_t>(s.seat) < locked.seats.size() &&
          SameSeatState(s, locked.seats[s.seat])) {
        continue;
      }
      seat_no.push_back(s.seat);
      forfeited.push_back(s.forfeited ? "t" : "f");
      my_turn.push_back(s.my_turn ? "t" : "f");
      ts.push_back(MicrosOrZero(s.turn_started_at));
      dl.push_back(MicrosOrZero(s.deadline));
      rem.push_back(s.reminders_sent);
      bank.push_back(s.time_bank_ms.value_or(-1));
      vac.push_back(s.vacation_used_ms);
    }
    std::vector<int64_t> log_version, log_seat, log_action;
    std::vector<std::string> log_kind, log_cause, log_account, log_entry;
    for (const LogRow& row : m.log) {
      log_version.push_back(row.version);
      log_kind.push_back(KindName(row.kind));
      log_cause.push_back(CauseName(row.cause));
      log_seat.push_back(row.seat);
      log_action.push_back(row.action);
      log_account.push_back(row.account_id);
      log_entry.push_back(absl::BytesToHexString(row.entry));
    }
    std::vector<std::string> n_account, n_kind, n_dedupe, n_payload;
    std::vector<int64_t> n_version;
    for (const NotificationRow& n : m.notifications) {
      n_account.push_back(n.account_id);
      n_kind.push_back(n.kind);
      n_version.push_back(n.version);
      n_dedupe.push_back(n.dedupe_key);
      n_payload.push_back(absl::BytesToHexString(n.payload_json));
    }
    const bool answer = key && m.answer;
    pqxx::result written_rows = txn.exec_prepared(
        "sessions_write_mutation", id, g.finished ? "finished" : "active", g.version,
        pqxx::binarystring(g.snapshot), static_cast<int64_t>(g.acting_seats),
        MicrosOrZero(g.deadline), g.finished ? PgArray(g.ranks) : std::string(),
        g.finished ? PgArray(g.scores) : std::string(), g.end_reason, Micros(now), PgArray(seat_no),
        absl::StrCat("{", absl::StrJoin(forfeited, ","), "}"),
        absl::StrCat("{", absl::StrJoin(my_turn, ","), "}"), PgArray(ts), PgArray(dl), PgArray(rem),
        PgArray(bank), PgArray(vac), PgArray(log_version), absl::StrJoin(log_kind, ","),
        absl::StrJoin(log_cause, ","), PgArray(log_seat), PgArray(log_action),
        absl::StrJoin(log_account, ","), absl::StrJoin(log_entry, ","),
        answer ? key->key : std::string(), answer ? key->account_id : std::string(),
        pqxx::binarystring(answer ? m.answer->request_hash : std::string()),
        answer ? m.answer->version : int64_t{1},
        pqxx::binarystring(answer ? m.answer->response : std::string()),
        absl::StrJoin(n_account, ","), absl::StrJoin(n_kind, ","), PgArray(n_version),
        absl::StrJoin(n_dedupe, ","), absl::StrJoin(n_payload, ","),
        m.result ? m.result->payload_json : std::string(), g.game, g.ranked, m.notify_payload);
    if (written_rows.size() != 1) return absl::InternalError("state change returned no row");
    const pqxx::row written = written_rows[0];
    if (written[1].as<int64_t>() != 1 ||
        written[2].as<int64_t>() != static_cast<int64_t>(seat_no.size()) ||
        written[3].as<int64_t>() != static_cast<int64_t>(m.log.size())) {
      return absl::InternalError("state change wrote an unexpected number of rows");
    }
    written_snapshot.emplace(g.version, g.snapshot);
    return absl::OkStatus();
  });
  if (status.ok() && written_snapshot) {
    snapshots_.Put(id, written_snapshot->first, std::move(written_snapshot->second));
  }
  return status;
}

absl::StatusOr<std::vector<std::string>> GameStore::DueGames(absl::Time now, int limit) {
  std::vector<std::string> ids;
  absl::Status status = db_->Transact("sessions.due_games", [&](pqxx::work& txn) -> absl::Status {
    ids.clear();
    for (const pqxx::row& r : txn.exec_params(sql::kSelectDueGames, Micros(now), limit)) {
      ids.push_back(r[0].as<std::string>());
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return ids;
}

absl::StatusOr<std::optional<GameStore::Vacation>> GameStore::GetVacation(
    absl::string_view account_id) {
  std::optional<Vacation> result;
  const std::string account(account_id);
  absl::Status status = db_->Transact("sessions.get_vacation", [&](pqxx::work& txn) {
    pqxx::result rows = txn.exec_params(sql::kSelectVacation, account);
    result.reset();
    if (!rows.empty()) {
      result = Vacation{absl::FromUnixMicros(rows[0][0].as<int64_t>()),
                        absl::FromUnixMicros(rows[0][1].as<int64_t>())};
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return result;
}

absl::Status GameStore::StartVacation(absl::string_view account_id, absl::Time start,
                                      absl::Time end) {
  const std::string account(account_id);
  return db_->Transact("sessions.start_vacation", [&](pqxx::work& txn) -> absl::Status {
    if (txn.exec_params(sql::kStartVacation, account, Micros(start), Micros(end)).empty()) {
      return absl::FailedPreconditionError("a vacation is already running; end it first");
    }
    return absl::OkStatus();
  });
}

absl::Status GameStore::EndVacation(absl::string_view account_id, absl::Time now) {
  const std::string account(account_id);
  return db_->Transact("sessions.end_vacation", [&](pqxx::work& txn) -> absl::Status {
    if (txn.exec_params(sql::kEndVacation, account, Micros(now)).empty()) {
      return absl::FailedPreconditionError("no vacation is running");
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<std::vector<GameStore::PendingNotification>> GameStore::ClaimNotifications(
    absl::Time now, absl::Duration lease, int limit) {
  std::vector<PendingNotification> out;
  absl::Status status = db_->Transact("sessions.claim_notifications", [&](pqxx::work& txn) {
    out.clear();
    for (const pqxx::row& r :
         txn.exec_params(sql::kClaimNotifications, Micros(now), Micros(now + lease), limit)) {
      PendingNotification n;
      n.id = r[0].as<int64_t>();
      n.game_id = r[1].as<std::string>();
      n.row.account_id = r[2].as<std::string>();
      n.row.kind = r[3].as<std::string>();
      n.row.version = r[4].as<int64_t>();
      n.row.dedupe_key = r[5].as<std::string>();
      n.row.payload_json = r[6].as<std::string>();
      n.attempts = r[7].as<int>();
      out.push_back(std::move(n));
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return out;
}

absl::Status GameStore::MarkNotificationSent(int64_t id, absl::Time now) {
  return db_->Transact("sessions.notification_sent", [&](pqxx::work& txn) {
    txn.exec_params0(sql::kNotificationSent, id, Micros(now));
    return absl::OkStatus();
  });
}

absl::Status GameStore::MarkNotificationFailed(int64_t id, absl::Time retry_at,
                                               absl::string_view error) {
  const std::string e(error.substr(0, 500));
  return db_->Transact("sessions.notification_failed", [&](pqxx::work& txn) {
    txn.exec_params0(sql::kNotificationFailed, id, Micros(retry_at), e);
    return absl::OkStatus();
  });
}

absl::StatusOr<std::vector<std::pair<std::string, int>>> GameStore::ClaimResults(
    absl::Time now, absl::Duration lease, int limit) {
  std::vector<std::pair<std::string, int>> out;
  absl::Status status = db_->Transact("sessions.claim_results", [&](pqxx::work& txn) {
    out.clear();
    for (const pqxx::row& r :
         txn.exec_params(sql::kClaimResults, Micros(now), Micros(now + lease), limit)) {
      out.emplace_back(r[0].as<std::string>(), r[1].as<int>());
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return out;
}

absl::Status GameStore::MarkResultAcked(absl::string_view game_id, absl::Time now,
                                        absl::string_view note) {
  const std::string id(game_id), n(note);
  return db_->Transact("sessions.result_acked", [&](pqxx::work& txn) {
    txn.exec_params0(sql::kResultAcked, id, Micros(now), n);
    return absl::OkStatus();
  });
}

absl::Status GameStore::MarkResultFailed(absl::string_view game_id, absl::Time retry_at,
                                         absl::string_view error) {
  const std::string id(game_id), e(error.substr(0, 500));
  return db_->Transact("sessions.result_failed", [&](pqxx::work& txn) {
    txn.exec_params0(sql::kResultFailed, id, Micros(retry_at), e);
    return absl::OkStatus();
  });
}

absl::StatusOr<std::pair<int64_t, int64_t>> GameStore::PendingOutbox() {
  std::pair<int64_t, int64_t> result;
  absl::Status status = db_->Transact("sessions.pending_outbox", [&](pqxx::work& txn) {
    pqxx::row r = txn.exec1(sql::kCountPendingOutbox);
    result = {r[0].as<int64_t>(), r[1].as<int64_t>()};
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return result;
}

absl::StatusOr<std::map<std::pair<std::string, std::string>, int64_t>> GameStore::CountGames() {
  std::map<std::pair<std::string, std::string>, int64_t> result;
  absl::Status status = db_->Transact("sessions.count_games", [&](pqxx::work& txn) {
    result.clear();
    for (const pqxx::row& r : txn.exec(sql::kCountGames)) {
      result[{r[0].as<std::string>(), r[1].as<std::string>()}] = r[2].as<int64_t>();
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return result;
}

}  // namespace parlor::sessions
