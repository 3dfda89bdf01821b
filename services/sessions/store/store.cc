#include "services/sessions/store/store.h"

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/types/span.h"
#include "pqxx/pqxx"
#include "services/common/core/status_macros.h"
#include "services/common/db/pg_array.h"
#include "services/common/db/pg_binary.h"
#include "services/sessions/store/shared_writes.h"
#include "services/sessions/store/sql.h"

namespace parlor::sessions {
namespace {

int64_t Micros(absl::Time t) { return absl::ToUnixMicros(t); }
int64_t MicrosOrZero(const std::optional<absl::Time>& t) { return t ? absl::ToUnixMicros(*t) : 0; }
std::optional<int64_t> MicrosOrNull(const std::optional<absl::Time>& t) {
  return t ? std::optional<int64_t>(Micros(*t)) : std::nullopt;
}
std::optional<absl::Time> TimeOrNull(int64_t micros) {
  if (micros == 0) return std::nullopt;
  return absl::FromUnixMicros(micros);
}
// The games row's wake_at (NextSweepAt) in microseconds, rounded up, never early: a sweep that
// finds the game due then finds something to do in it. nullopt for none.
std::optional<int64_t> WakeMicros(const GameRow& g) {
  const std::optional<absl::Time> wake = NextSweepAt(g);
  if (!wake) return std::nullopt;
  const int64_t micros = absl::ToUnixMicros(*wake);
  return absl::FromUnixMicros(micros) < *wake ? micros + 1 : micros;
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

// A row's fields by column number, whether libpqxx read it or a pipelined transaction did: text
// converted as pqxx::field::as() converts it (NULL throws pqxx::conversion_error).
class Fields {
 public:
  // Implicit: the readers below take either kind of row.
  Fields(const pqxx::row& row) : row_(&row) {}   // NOLINT(google-explicit-constructor)
  Fields(const PgRow& row) : pipelined_(row) {}  // NOLINT(google-explicit-constructor)

  bool IsNull(int column) const {
    return row_ != nullptr ? (*row_)[column].is_null() : (*pipelined_)[column].is_null();
  }
  template <typename T>
  T As(int column) const {
    if (row_ != nullptr) return (*row_)[column].as<T>();
    return (*pipelined_)[column].as<T>();
  }
  // A bytea column's bytes.
  std::string Bytes(int column) const {
    if (row_ != nullptr) return pqxx::binarystring((*row_)[column]).str();
    return (*pipelined_)[column].bytes();
  }

 private:
  const pqxx::row* row_ = nullptr;
  std::optional<PgRow> pipelined_;
};

// PARLOR_SESSIONS_GAME_COLUMNS, starting at column `first`.
GameRow ReadGame(const Fields& r, int first = 0) {
  GameRow g;
  g.game_id = r.As<std::string>(first + 0);
  g.game = r.As<std::string>(first + 1);
  g.match_id = r.As<std::string>(first + 2);
  g.ranked = r.As<bool>(first + 3);
  g.finished = r.As<std::string>(first + 4) == "finished";
  g.version = r.As<int64_t>(first + 5);
  g.num_players = r.As<int>(first + 6);
  g.options = ParseOptionsJson(r.As<std::string>(first + 7));
  // NULL: the caller holds this version's snapshot (SnapshotCache).
  if (!r.IsNull(first + 8)) g.snapshot = r.Bytes(first + 8);
  g.seed_commitment = r.As<std::string>(first + 9);
  g.acting_seats = static_cast<uint32_t>(r.As<int64_t>(first + 10));
  g.time_control.kind = r.As<std::string>(first + 11) == "time_bank"
                            ? TimeControlRow::Kind::kTimeBank
                            : TimeControlRow::Kind::kPerMove;
  g.time_control.per_move_s = r.As<int64_t>(first + 12);
  g.time_control.bank_initial_s = r.As<int64_t>(first + 13);
  g.time_control.bank_increment_s = r.As<int64_t>(first + 14);
  g.time_control.vacation_days = r.As<int>(first + 15);
  g.deadline = TimeOrNull(r.As<int64_t>(first + 16));
  g.ranks = ParseList<int>(r.As<std::string>(first + 17));
  g.scores = ParseList<int64_t>(r.As<std::string>(first + 18));
  g.end_reason = r.As<std::string>(first + 19);
  g.created_at = absl::FromUnixMicros(r.As<int64_t>(first + 20));
  g.updated_at = absl::FromUnixMicros(r.As<int64_t>(first + 21));
  g.is_public = r.As<bool>(first + 22);
  return g;
}

// PARLOR_SESSIONS_SEAT_COLUMNS, starting at column `first`.
SeatRow ReadSeat(const Fields& r, int first = 0) {
  SeatRow s;
  s.seat = r.As<int>(first);
  s.account_id = r.As<std::string>(first + 1);
  s.bot = r.As<std::string>(first + 2);
  s.display_name = r.As<std::string>(first + 3);
  s.team = r.As<int>(first + 4);
  s.forfeited = r.As<bool>(first + 5);
  s.my_turn = r.As<bool>(first + 6);
  s.turn_started_at = TimeOrNull(r.As<int64_t>(first + 7));
  s.deadline = TimeOrNull(r.As<int64_t>(first + 8));
  s.reminders_sent = r.As<int>(first + 9);
  const int64_t bank = r.As<int64_t>(first + 10);
  if (bank >= 0) s.time_bank_ms = bank;
  s.vacation_used_ms = r.As<int64_t>(first + 11);
  s.vacation_until = TimeOrNull(r.As<int64_t>(first + 12));
  s.paused_until = TimeOrNull(r.As<int64_t>(first + 13));
  s.timeouts_in_a_row = r.As<int>(first + 14);
  return s;
}

// The number of PARLOR_SESSIONS_GAME_COLUMNS: seat columns follow them in joined reads.
constexpr int kGameColumns = 23;
// The number of PARLOR_SESSIONS_SEAT_COLUMNS.
constexpr int kSeatColumns = 15;

// Every column UpdateGame writes to a seat, apart from status and updated_at.
bool SameSeatState(const SeatRow& a, const SeatRow& b) {
  return a.seat == b.seat && a.forfeited == b.forfeited && a.my_turn == b.my_turn &&
         a.turn_started_at == b.turn_started_at && a.deadline == b.deadline &&
         a.reminders_sent == b.reminders_sent && a.time_bank_ms == b.time_bank_ms &&
         a.vacation_used_ms == b.vacation_used_ms && a.vacation_until == b.vacation_until &&
         a.paused_until == b.paused_until && a.timeouts_in_a_row == b.timeouts_in_a_row;
}

// `g` as the database stores what a batch writes of it, and a read returns it: times to the
// microsecond (RecordArray writes them so), no outcome while the game runs, seats in seat order.
GameRow AsStored(GameRow g) {
  auto micros = [](std::optional<absl::Time>& t) {
    if (t) t = absl::FromUnixMicros(absl::ToUnixMicros(*t));
  };
  g.created_at = absl::FromUnixMicros(absl::ToUnixMicros(g.created_at));
  g.updated_at = absl::FromUnixMicros(absl::ToUnixMicros(g.updated_at));
  micros(g.deadline);
  if (!g.finished) {
    g.ranks.clear();
    g.scores.clear();
  }
  std::sort(g.seats.begin(), g.seats.end(),
            [](const SeatRow& a, const SeatRow& b) { return a.seat < b.seat; });
  for (SeatRow& s : g.seats) {
    micros(s.turn_started_at);
    micros(s.deadline);
    micros(s.vacation_until);
    micros(s.paused_until);
  }
  return g;
}

// `g` as CreateGame's statements store it: as AsStored, and also updated when created, only the
// time control's own fields, and the seat columns the insert leaves at their defaults.
GameRow AsCreated(GameRow g) {
  g.updated_at = g.created_at;
  TimeControlRow& tc = g.time_control;
  if (tc.kind == TimeControlRow::Kind::kPerMove) {
    tc.bank_initial_s = 0;
    tc.bank_increment_s = 0;
  } else {
    tc.per_move_s = 0;
  }
  for (SeatRow& s : g.seats) {
    s.forfeited = false;
    s.reminders_sent = 0;
    s.timeouts_in_a_row = 0;
  }
  return AsStored(std::move(g));
}

// The seats of every game of `games` (one game, or a page of a listing), in one statement.
void ReadSeatsOf(pqxx::work& txn, absl::Span<GameRow> games) {
  if (games.empty()) return;
  std::vector<std::string> ids;
  absl::flat_hash_map<std::string, std::vector<GameRow*>> by_id;
  for (GameRow& game : games) {
    game.seats.clear();
    std::vector<GameRow*>& copies = by_id[game.game_id];
    if (copies.empty()) ids.push_back(game.game_id);
    copies.push_back(&game);
  }
  for (const pqxx::row& r : txn.exec_params(sql::kSelectSeatsOfGames, PgTextArray(ids))) {
    const SeatRow seat = ReadSeat(r, 1);
    for (GameRow* game : by_id.at(r[0].as<std::string>())) game->seats.push_back(seat);
  }
}

void InsertLog(const DbPool& db, pqxx::work& txn, const std::string& game_id, const LogRow& row) {
  db.Run(txn, "sessions_insert_action", sql::kInsertAction, game_id, row.version,
         KindName(row.kind), CauseName(row.cause), row.seat, row.action, row.account_id,
         pqxx::binarystring(row.entry), Micros(row.created_at));
}

}  // namespace

absl::StatusOr<GameRow> PgSessionsStore::CreateGame(const NewGame& game,
                                                    absl::string_view match_key, bool* created) {
  GameRow result;
  *created = false;
  uint64_t txid = 0;
  const std::string key(match_key);
  absl::Status status = db_->Transact("sessions.create_game", [&](pqxx::work& txn) -> absl::Status {
    const GameRow& g = game.game;
    const absl::Time now = g.created_at;
    if (!key.empty()) {
      // Claim the match id first: a concurrent duplicate waits on the unique key, then sees it.
      pqxx::result claimed =
          db_->Run(txn, "sessions_insert_match", sql::kInsertMatch, key, g.game_id,
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
        ReadSeatsOf(txn, absl::MakeSpan(&result, 1));
        *created = false;
        return absl::OkStatus();
      }
    }
    const TimeControlRow& tc = g.time_control;
    const char* status = g.finished ? "finished" : "active";
    const pqxx::result inserted = db_->Run(
        txn, "sessions_insert_game", sql::kInsertGame, g.game_id, g.game, g.match_id, g.ranked,
        g.num_players, OptionsJson(g.options), pqxx::binarystring(g.snapshot), g.seed_commitment,
        static_cast<int64_t>(g.acting_seats),
        tc.kind == TimeControlRow::Kind::kTimeBank ? "time_bank" : "per_move",
        tc.kind == TimeControlRow::Kind::kPerMove ? tc.per_move_s : 0,
        tc.kind == TimeControlRow::Kind::kTimeBank ? tc.bank_initial_s : 0, tc.bank_increment_s,
        tc.vacation_days, MicrosOrZero(g.deadline), Micros(now), g.is_public ? "public" : "private",
        status, g.finished ? PgIntArray(g.ranks) : std::string(),
        g.finished ? PgIntArray(g.scores) : std::string(), g.end_reason, g.version,
        WakeMicros(g).value_or(-1));
    txid = static_cast<uint64_t>(inserted.at(0).at(0).as<int64_t>());
    for (const SeatRow& s : g.seats) {
      db_->Run(txn, "sessions_insert_seat", sql::kInsertSeat, g.game_id, s.seat, s.account_id,
               s.bot, s.display_name, s.team, s.my_turn, MicrosOrZero(s.turn_started_at),
               MicrosOrZero(s.deadline), s.time_bank_ms.value_or(-1), Micros(now), status,
               s.vacation_used_ms, MicrosOrZero(s.vacation_until), MicrosOrZero(s.paused_until));
    }
    for (const LogRow& row : game.log) InsertLog(*db_, txn, g.game_id, row);
    InsertNotifications(*db_, txn, g.game_id, game.notifications, now);
    if (game.result) {
      db_->Run(txn, "sessions_insert_result", sql::kInsertResult, g.game_id, g.game, g.ranked,
               game.result->payload_json, Micros(now));
    }
    Notify(*db_, txn, game.notify_payload);
    result = g;
    *created = true;
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  if (*created) rows_.Put(result.game_id, txid, std::make_shared<const GameRow>(AsCreated(result)));
  return result;
}

absl::StatusOr<GameRow> PgSessionsStore::GetGame(absl::string_view game_id) {
  return ReadGameWithSeats(game_id, std::nullopt, nullptr);
}

absl::StatusOr<std::vector<GameRow>> PgSessionsStore::GetGames(
    const std::vector<std::string>& game_ids) {
  std::vector<GameRow> result;
  if (game_ids.empty()) return result;
  absl::Status status = db_->Transact("sessions.get_games", [&](pqxx::work& txn) -> absl::Status {
    result.clear();
    for (const pqxx::row& r : txn.exec_params(sql::kSelectGames, PgTextArray(game_ids))) {
      result.push_back(ReadGame(r));
    }
    ReadSeatsOf(txn, absl::MakeSpan(result));
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return result;
}

absl::StatusOr<GameRow> PgSessionsStore::GetGameSeenBy(absl::string_view game_id,
                                                       absl::string_view account_id,
                                                       int64_t* seen) {
  return ReadGameWithSeats(game_id, account_id, seen);
}

absl::StatusOr<GameRow> PgSessionsStore::ReadGameWithSeats(absl::string_view game_id,
                                                           std::optional<absl::string_view> seen_by,
                                                           int64_t* seen) {
  GameRow result;
  const std::string id(game_id);
  const std::optional<GameRowCache::Entry> own = rows_.ToCheck(id);
  const std::optional<SnapshotCache::Entry> cached = snapshots_.Get(id);
  const int64_t cached_version = cached ? cached->version : int64_t{-1};
  const std::string account = seen_by ? std::string(*seen_by) : std::string();
  absl::Status status = db_->Read("sessions.get_game", [&](pqxx::nontransaction& txn) {
    if (own) {
      // The row this server's own write left, unless the stored row's stamp says otherwise.
      pqxx::result stamp =
          seen_by ? db_->Run(txn, "sessions_get_game_stamp_seen_by", sql::kSelectGameStampSeenBy,
                             id, account)
                  : db_->Run(txn, "sessions_get_game_stamp", sql::kSelectGameStamp, id);
      if (stamp.empty()) return absl::NotFoundError(absl::StrCat("no game with id ", id));
      const auto xid = stamp[0][0].as<int64_t>();
      const auto version = stamp[0][1].as<int64_t>();
      if (xid == GameRowCache::Xid(own->txid) && version == own->row->version) {
        result = *own->row;
        if (seen_by) *seen = stamp[0][2].as<int64_t>();
        reads_.stamp_matched.fetch_add(1, std::memory_order_relaxed);
        return absl::OkStatus();
      }
      rows_.Saw(id, static_cast<uint32_t>(xid), version);
      reads_.stamp_missed.fetch_add(1, std::memory_order_relaxed);
    }
    pqxx::result rows = seen_by
                            ? db_->Run(txn, "sessions_get_game_seen_by",
                                       sql::kSelectGameWithSeatsSeenBy, id, cached_version, account)
                            : db_->Run(txn, "sessions_get_game",
                                       sql::kSelectGameWithSeatsUnlessCached, id, cached_version);
    if (rows.empty()) return absl::NotFoundError(absl::StrCat("no game with id ", id));
    result = ReadGame(rows[0]);
    for (const pqxx::row& r : rows) result.seats.push_back(ReadSeat(r, kGameColumns));
    constexpr int kStamp = kGameColumns + kSeatColumns;
    rows_.Saw(id, static_cast<uint32_t>(rows[0][kStamp].as<int64_t>()), result.version);
    if (seen_by) *seen = rows[0][kStamp + 2].as<int64_t>();
    reads_.whole.fetch_add(1, std::memory_order_relaxed);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  if (result.snapshot.empty() && cached && cached->version == result.version) {
    result.snapshot = *cached->value;
  }
  return result;
}

absl::StatusOr<std::vector<GameRow>> PgSessionsStore::ListGames(
    absl::string_view account_id, ListFilter filter, const std::optional<ListCursor>& cursor,
    int limit) {
  std::vector<GameRow> result;
  const std::string account(account_id);
  absl::Status status = db_->Transact("sessions.list_games", [&](pqxx::work& txn) -> absl::Status {
    result.clear();
    pqxx::result rows = txn.exec_params(
        sql::kListMyGames, account, static_cast<int>(filter),
        cursor ? Micros(cursor->updated_at) : int64_t{0},
        cursor ? cursor->game_id : std::string("00000000-0000-0000-0000-000000000000"), limit);
    for (const pqxx::row& r : rows) result.push_back(ReadGame(r));
    ReadSeatsOf(txn, absl::MakeSpan(result));
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return result;
}

absl::StatusOr<std::vector<GameRow>> PgSessionsStore::ListPublicGames(
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
        for (const pqxx::row& r : rows) result.push_back(ReadGame(r));
        ReadSeatsOf(txn, absl::MakeSpan(result));
        return absl::OkStatus();
      });
  if (!status.ok()) return status;
  return result;
}

absl::StatusOr<int> PgSessionsStore::DeleteIdempotencyKeysBefore(absl::Time cutoff, int limit) {
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

absl::StatusOr<std::vector<LogRow>> PgSessionsStore::GetLog(absl::string_view game_id,
                                                            int64_t from_version, int limit) {
  std::vector<LogRow> result;
  const std::string id(game_id);
  // One statement (its own snapshot, no BEGIN / COMMIT), prepared once per connection: the watch
  // streams read the log after every move they are told of, and PostgreSQL planned it on each
  // call (~90 us) as an unnamed statement; for any arguments its plan is the primary key's range.
  absl::Status status = db_->Read("sessions.get_log", [&](pqxx::nontransaction& txn) {
    result.clear();
    for (const pqxx::row& r :
         db_->Run(txn, "sessions_get_log", sql::kSelectActions, id, from_version, limit)) {
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

absl::Status PgSessionsStore::UpdateGame(absl::string_view txn_name, absl::string_view game_id,
                                         const std::optional<IdempotencyKeyRef>& key,
                                         const Decide& decide) {
  std::vector<GameUpdate> one;
  one.push_back(GameUpdate{std::string(game_id), key, decide});
  return UpdateGames(txn_name, one).front();
}

namespace {

// The parameters of kWriteMutations for one batch of state changes.
struct BatchWrite {
  explicit BatchWrite(const PgSessionsStore::WriteTypes& types)
      : games(types.game),
        seats(types.seat),
        actions(types.action),
        keys(types.key),
        notes(types.notification),
        results(types.result) {}

  PgBinaryRecordArray games, seats, actions, keys, notes, results;
  std::vector<std::string> notify;
  // Every byte string of the batch, back to back (one binary parameter).
  std::string bytes;
  // The latest Mutation::keeps_earlier_wake_after of the batch; unset once any change has none
  // (every game's exact wake time is then stored).
  std::optional<absl::Time> keeps_earlier_wake_after = absl::InfinitePast();

  // Appends `value` to `bytes` and its offset and length to the row.
  void Bytes(PgBinaryRecordArray& row, const std::string& value) {
    row.Int4(static_cast<int64_t>(bytes.size())).Int4(static_cast<int64_t>(value.size()));
    bytes += value;
  }

  void Add(const GameRow& locked, const Mutation& m, const std::optional<IdempotencyKeyRef>& key) {
    const GameRow& g = m.after;
    const std::string status = g.finished ? "finished" : "active";
    AddGame(g, status);
    // A computer seat the change leaves as it was is not rewritten: nothing reads its updated_at,
    // and each rewrite costs a new row version and its WAL (a bot game would pay it on every
    // move).
    for (const SeatRow& s : g.seats) {
      if (!s.bot.empty() && g.finished == locked.finished &&
          static_cast<size_t>(s.seat) < locked.seats.size() &&
          SameSeatState(s, locked.seats[s.seat])) {
        continue;
      }
      AddSeat(g, s, status);
    }
    for (const LogRow& row : m.log) AddAction(g, row);
    if (key && m.answer) {
      keys.Row().Uuid(g.game_id).Uuid(key->account_id).Text(key->key);
      Bytes(keys, m.answer->request_hash);
      keys.Int8(m.answer->version);
      Bytes(keys, m.answer->response);
      keys.Int8(Micros(g.updated_at)).EndRow();
    }
    for (const NotificationRow& n : m.notifications) {
      notes.Row().Uuid(g.game_id).Uuid(n.account_id).Text(n.kind).Int8(n.version);
      notes.Text(n.dedupe_key).Jsonb(n.payload_json).Int8(Micros(g.updated_at)).EndRow();
    }
    if (m.result) {
      results.Row().Uuid(g.game_id).Text(g.game).Bool(g.ranked).Jsonb(m.result->payload_json);
      results.Int8(Micros(g.updated_at)).EndRow();
    }
    if (!m.notify_payload.empty()) notify.push_back(m.notify_payload);
    if (!m.keeps_earlier_wake_after.has_value()) {
      keeps_earlier_wake_after.reset();
    } else if (keeps_earlier_wake_after.has_value()) {
      keeps_earlier_wake_after = std::max(*keeps_earlier_wake_after, *m.keeps_earlier_wake_after);
    }
  }

 private:
  void AddGame(const GameRow& g, const std::string& status) {
    games.Row().Uuid(g.game_id).Text(status).Int8(g.version);
    Bytes(games, g.snapshot);
    games.Int8(static_cast<int64_t>(g.acting_seats)).Int8OrNull(MicrosOrNull(g.deadline));
    if (g.finished) {
      games.Int4Array(g.ranks).Int8Array(g.scores);
    } else {
      games.Null(pg_oid::kInt4Array).Null(pg_oid::kInt8Array);
    }
    games.TextOrNull(g.end_reason).Int8(Micros(g.updated_at)).Int8OrNull(WakeMicros(g));
    games.EndRow();
  }

  void AddSeat(const GameRow& g, const SeatRow& s, const std::string& status) {
    seats.Row().Uuid(g.game_id).Int4(s.seat).Bool(s.forfeited).Bool(s.my_turn);
    seats.Int8OrNull(MicrosOrNull(s.turn_started_at)).Int8OrNull(MicrosOrNull(s.deadline));
    seats.Int2(s.reminders_sent).Int8OrNull(s.time_bank_ms);
    seats.Int8(s.vacation_used_ms).Text(status).Int8(Micros(g.updated_at));
    seats.Int8OrNull(MicrosOrNull(s.vacation_until)).Int8OrNull(MicrosOrNull(s.paused_until));
    seats.Int2(s.timeouts_in_a_row);
    seats.EndRow();
  }

  void AddAction(const GameRow& g, const LogRow& row) {
    actions.Row().Uuid(g.game_id).Int8(row.version).Text(KindName(row.kind));
    actions.Text(CauseName(row.cause)).Int4(row.seat).Int8(row.action).UuidOrNull(row.account_id);
    Bytes(actions, row.entry);
    actions.Int8(Micros(g.updated_at)).EndRow();
  }
};

using CachedSnapshots = std::vector<std::optional<SnapshotCache::Entry>>;
// The game row each update of a batch wrote, to cache once it has committed.
using WrittenRows = std::vector<std::optional<GameRow>>;

// A game of a batch as kLockGamesWithSeats read it, locked for the transaction.
struct LockedGame {
  GameRow game;
  // The answer stored under the update's idempotency key, when there is one.
  std::optional<StoredAnswer> stored;
  // The database left the snapshot out: this server holds that version's (CachedSnapshots).
  bool snapshot_left_out = false;
  // The database left the row and seats out: the row is the one this server holds (OwnRows).
  bool held = false;
  // An update of the batch has taken it (a game appears at most once in a batch).
  bool taken = false;
};
using LockedGames = absl::flat_hash_map<std::string, LockedGame>;

// The row this server's own write left of each game of a batch, when it is worth checking
// (GameRowCache::ToCheck).
using OwnRows = std::vector<std::optional<GameRowCache::Entry>>;

// The parameters of kLockGamesWithSeats for a batch: its games, the accounts and keys of their
// idempotency keys, the snapshot version this server holds of each, and the stamp of the row it
// holds.
struct LockParams {
  std::string ids, accounts, keys, cached_versions, stamps, stamp_versions;
};

LockParams LockParamsOf(const std::vector<PgSessionsStore::GameUpdate>& updates,
                        const CachedSnapshots& cached, const OwnRows& own) {
  std::vector<std::string> ids, accounts, keys;
  std::vector<int64_t> cached_versions, stamps, stamp_versions;
  for (size_t i = 0; i < updates.size(); ++i) {
    const PgSessionsStore::GameUpdate& u = updates[i];
    ids.push_back(u.game_id);
    accounts.push_back(u.key ? u.key->account_id : std::string());
    keys.push_back(u.key ? u.key->key : std::string());
    cached_versions.push_back(cached[i] ? cached[i]->version : int64_t{-1});
    stamps.push_back(own[i] ? int64_t{GameRowCache::Xid(own[i]->txid)} : int64_t{-1});
    stamp_versions.push_back(own[i] ? own[i]->row->version : int64_t{-1});
  }
  return LockParams{PgTextArray(ids),   PgTextArray(accounts),
                    PgTextArray(keys),  PgIntArray(cached_versions),
                    PgIntArray(stamps), PgIntArray(stamp_versions)};
}

// One round trip to read the batch's games, their seats and the stored answers. The statement
// is prepared once per connection (re-preparing the same text is a no-op), which spares the
// server planning it on every batch (unless behind a pooler: Run()).
pqxx::result LockBatch(DbPool& db, pqxx::work& txn,
                       const std::vector<PgSessionsStore::GameUpdate>& updates,
                       const CachedSnapshots& cached, const OwnRows& own) {
  const LockParams p = LockParamsOf(updates, cached, own);
  return db.Run(txn, "sessions_lock_games", sql::kLockGamesWithSeats, p.ids, p.accounts, p.keys,
                p.cached_versions, p.stamps, p.stamp_versions);
}

// kLockGamesWithSeats' rows (a row per seat, the game's columns repeated) as one LockedGame per
// game; `rows` is a pqxx::result or PgRows. A game whose row and seat columns are NULL is the
// row this server holds (`own`, by game id): the stored row carries its stamp. Tells `rows_` the
// stamps it saw, and `txid` the transaction's id.
template <typename Rows>
LockedGames ReadLocked(const Rows& rows,
                       const absl::flat_hash_map<std::string, const GameRow*>& own,
                       GameRowCache& held_rows, uint64_t* txid) {
  constexpr int kStampColumns = 3;  // the game id, the row's xmin and version
  constexpr int kKeyColumns = kStampColumns + kGameColumns + kSeatColumns;
  LockedGames locked;
  for (int i = 0; i < static_cast<int>(rows.size()); ++i) {
    const auto row = rows[i];
    const Fields r(row);
    auto [it, inserted] = locked.try_emplace(r.As<std::string>(0));
    LockedGame& l = it->second;
    if (i == 0) *txid = static_cast<uint64_t>(r.As<int64_t>(kKeyColumns + 3));
    const bool held = r.IsNull(kStampColumns);
    if (inserted) {
      l.held = held;
      if (held) {
        auto found = own.find(it->first);
        // The database matched the stamp the batch gave, so the server gave one for this game.
        if (found != own.end()) l.game = *found->second;
      } else {
        held_rows.Saw(it->first, static_cast<uint32_t>(r.As<int64_t>(1)), r.As<int64_t>(2));
        l.game = ReadGame(r, kStampColumns);
        l.snapshot_left_out = r.IsNull(kStampColumns + 8);
      }
      if (r.As<int64_t>(kKeyColumns + 1) >= 0) {
        l.stored = StoredAnswer{r.Bytes(kKeyColumns), r.As<int64_t>(kKeyColumns + 1),
                                r.Bytes(kKeyColumns + 2)};
      }
    }
    if (!held) l.game.seats.push_back(ReadSeat(r, kStampColumns + kGameColumns));
  }
  return locked;
}

// The locked game an update decides on, with its snapshot in place: NOT_FOUND when the game
// does not exist, INTERNAL when it appears twice in the batch or its snapshot is nowhere.
absl::StatusOr<LockedGame*> TakeLocked(LockedGames& locked, const std::string& game_id,
                                       const std::optional<SnapshotCache::Entry>& cached) {
  auto it = locked.find(game_id);
  if (it == locked.end()) return absl::NotFoundError(absl::StrCat("no game with id ", game_id));
  LockedGame& l = it->second;
  if (l.taken) return absl::InternalError("a game appeared twice in one batch of changes");
  l.taken = true;
  if (l.game.game_id.empty()) {
    return absl::InternalError("the database matched the stamp of a row this server does not hold");
  }
  if (l.snapshot_left_out) {
    if (!cached || cached->version != l.game.version) {
      return absl::InternalError("the database left out a snapshot this server does not hold");
    }
    l.game.snapshot = *cached->value;
  }
  return &l;
}

// Decides every update on its locked game: each change joins `batch` and its snapshot
// `written`; each refusal goes to its `results` entry. Returns how many updates changed a game.
size_t DecideBatch(const std::vector<PgSessionsStore::GameUpdate>& updates,
                   const CachedSnapshots& cached, LockedGames& locked, BatchWrite& batch,
                   WrittenRows& written, std::vector<absl::Status>& results) {
  size_t changes = 0;
  for (size_t i = 0; i < updates.size(); ++i) {
    const PgSessionsStore::GameUpdate& u = updates[i];
    absl::StatusOr<LockedGame*> l = TakeLocked(locked, u.game_id, cached[i]);
    if (!l.ok()) {
      results[i] = l.status();
      continue;
    }
    absl::StatusOr<std::optional<Mutation>> decided =
        u.decide((*l)->game, u.key ? (*l)->stored : std::nullopt);
    if (!decided.ok()) {
      results[i] = decided.status();
      continue;
    }
    if (!decided->has_value()) continue;
    const Mutation& m = **decided;
    batch.Add((*l)->game, m, u.key);
    written[i].emplace(AsStored(m.after));
    ++changes;
  }
  return changes;
}

// The games of a batch decided on the rows this server holds, without a locked read: the stamp
// and version each stored row must still carry for the write to go through.
struct HeldStamps {
  std::string game_ids = "{}", stamps = "{}", versions = "{}";
};

HeldStamps HeldStampsOf(const std::vector<PgSessionsStore::GameUpdate>& updates,
                        const OwnRows& own) {
  std::vector<std::string> ids;
  std::vector<int64_t> stamps, versions;
  for (size_t i = 0; i < updates.size(); ++i) {
    ids.push_back(updates[i].game_id);
    stamps.push_back(GameRowCache::Xid(own[i]->txid));
    versions.push_back(own[i]->row->version);
  }
  return HeldStamps{PgTextArray(ids), PgIntArray(stamps), PgIntArray(versions)};
}

// kWriteMutations' parameters for `batch`: its rows, and how many games, seats, log entries and
// keys the statement must write (it fails otherwise).
struct WriteParams {
  std::string games, seats, actions, keys, notes, results, notify, bytes;
  int64_t expected_games = 0, expected_seats = 0, expected_actions = 0, expected_keys = 0;
  HeldStamps held;
  // Microseconds, or empty: every game's exact wake time is stored.
  std::string keeps_earlier_wake_after;
};

absl::StatusOr<WriteParams> WriteParamsOf(BatchWrite& batch, HeldStamps held) {
  WriteParams p;
  p.expected_games = batch.games.rows();
  p.expected_seats = batch.seats.rows();
  p.expected_actions = batch.actions.rows();
  p.expected_keys = batch.keys.rows();
  const bool games_written = batch.games.rows() > 0;
  for (auto [rows, out] :
       {std::pair{&batch.games, &p.games}, std::pair{&batch.seats, &p.seats},
        std::pair{&batch.actions, &p.actions}, std::pair{&batch.keys, &p.keys},
        std::pair{&batch.notes, &p.notes}, std::pair{&batch.results, &p.results}}) {
    absl::StatusOr<std::string> array = rows->Take();
    if (!array.ok()) return array.status();
    *out = *std::move(array);
  }
  p.notify = PgTextArray(batch.notify);
  p.bytes = std::move(batch.bytes);
  p.held = std::move(held);
  if (batch.keeps_earlier_wake_after.has_value() && games_written) {
    p.keeps_earlier_wake_after = absl::StrCat(Micros(*batch.keeps_earlier_wake_after));
  }
  return p;
}

// Writes the batch with kWriteMutations (prepared once per connection, as LockBatch).
absl::Status WriteBatch(DbPool& db, pqxx::work& txn, BatchWrite& batch) {
  PARLOR_ASSIGN_OR_RETURN(const WriteParams p, WriteParamsOf(batch, HeldStamps{}));
  db.Run(txn, "sessions_write_mutations", sql::kWriteMutations, pqxx::binarystring(p.games),
         pqxx::binarystring(p.seats), pqxx::binarystring(p.actions), pqxx::binarystring(p.keys),
         pqxx::binarystring(p.notes), pqxx::binarystring(p.results), p.notify,
         pqxx::binarystring(p.bytes), p.expected_games, p.expected_seats, p.expected_actions,
         p.held.game_ids, p.held.stamps, p.held.versions, p.expected_keys,
         p.keeps_earlier_wake_after);
  return absl::OkStatus();
}

// Queues kWriteMutations on a pipelined transaction: it goes out with the commit.
void QueueWrite(PipelineTxn& txn, WriteParams p) {
  txn.Queue(
      "sessions_write_mutations", sql::kWriteMutations,
      {PgParam::Bytes(std::move(p.games)), PgParam::Bytes(std::move(p.seats)),
       PgParam::Bytes(std::move(p.actions)), PgParam::Bytes(std::move(p.keys)),
       PgParam::Bytes(std::move(p.notes)), PgParam::Bytes(std::move(p.results)),
       PgParam::Text(std::move(p.notify)), PgParam::Bytes(std::move(p.bytes)),
       PgParam::Text(absl::StrCat(p.expected_games)), PgParam::Text(absl::StrCat(p.expected_seats)),
       PgParam::Text(absl::StrCat(p.expected_actions)), PgParam::Text(std::move(p.held.game_ids)),
       PgParam::Text(std::move(p.held.stamps)), PgParam::Text(std::move(p.held.versions)),
       PgParam::Text(absl::StrCat(p.expected_keys)),
       PgParam::Text(std::move(p.keeps_earlier_wake_after))});
}

// The transaction id a committed kWriteMutations returned (its third column).
uint64_t WrittenTxid(const std::vector<PgRows>& rows) {
  return static_cast<uint64_t>(Fields(rows.at(0)[0]).As<int64_t>(2));
}

// The batch's games as the rows this server holds, for deciding without a locked read.
LockedGames HeldGames(const std::vector<PgSessionsStore::GameUpdate>& updates, const OwnRows& own) {
  LockedGames held;
  for (size_t i = 0; i < updates.size(); ++i) {
    LockedGame& l = held[updates[i].game_id];
    l.game = *own[i]->row;
    l.held = true;
  }
  return held;
}

}  // namespace

std::vector<absl::Status> PgSessionsStore::UpdateGames(absl::string_view txn_name,
                                                       const std::vector<GameUpdate>& updates,
                                                       const std::function<void()>& decided) {
  std::vector<absl::Status> results;
  RunUpdates(txn_name, nullptr, updates, decided, &results).IgnoreError();  // in every result
  return results;
}

absl::StatusOr<PgSessionsStore::WriteTypes> PgSessionsStore::write_types() {
  absl::MutexLock lock(&write_types_mu_);
  if (write_types_) return *write_types_;
  WriteTypes types;
  PARLOR_RETURN_IF_ERROR(db_->Read("sessions.write_types", [&](pqxx::nontransaction& txn) {
    const pqxx::row row = txn.exec1(sql::kWriteTypes);
    for (const pqxx::field& field : row) {
      if (field.is_null()) {
        return absl::FailedPreconditionError(
            "the sessions schema lacks a composite type of kWriteMutations: apply its migrations");
      }
    }
    types = WriteTypes{row[0].as<uint32_t>(), row[1].as<uint32_t>(), row[2].as<uint32_t>(),
                       row[3].as<uint32_t>(), row[4].as<uint32_t>(), row[5].as<uint32_t>()};
    return absl::OkStatus();
  }));
  write_types_ = types;
  return types;
}

void PgSessionsStore::ForgetWriteTypesAfter(const absl::Status& status) {
  // A database restored from a dump, or a schema made again, gives the types new OIDs, and every
  // write would then fail ("binary data has array element type ..."): after any internal error
  // the next write reads them again (one small catalog query after a rare failure).
  if (!absl::IsInternal(status)) return;
  absl::MutexLock lock(&write_types_mu_);
  write_types_.reset();
}

absl::Status PgSessionsStore::RunUpdates(absl::string_view txn_name,
                                         const std::function<absl::Status(pqxx::work&)>& first,
                                         const std::vector<GameUpdate>& updates,
                                         const std::function<void()>& decided,
                                         std::vector<absl::Status>* results_out) {
  std::vector<absl::Status>& results = *results_out;
  bool told = false;
  auto tell_decided = [&] {
    if (!told && decided) decided();
    told = true;
  };
  const size_t n = updates.size();
  results.assign(n, absl::OkStatus());
  CachedSnapshots cached(n);
  for (size_t i = 0; i < n; ++i) cached[i] = snapshots_.Get(updates[i].game_id);
  OwnRows own(n);
  absl::flat_hash_map<std::string, const GameRow*> own_by_id;
  for (size_t i = 0; i < n; ++i) {
    own[i] = rows_.ToCheck(updates[i].game_id);
    if (own[i]) own_by_id.emplace(updates[i].game_id, own[i]->row.get());
  }
  WrittenRows written(n);
  uint64_t txid = 0;
  const absl::StatusOr<WriteTypes> types = write_types();
  if (!types.ok()) {
    tell_decided();  // nothing will be: the caller need not wait for it
    results.assign(n, types.status());
    return types.status();
  }
  // Decides the batch on its locked games; what changed goes to `write`.
  auto decide = [&](LockedGames locked,
                    const std::function<absl::Status(BatchWrite&)>& write) -> absl::Status {
    for (const auto& [id, l] : locked) {
      (l.held ? reads_.locked_held : reads_.locked_whole).fetch_add(1, std::memory_order_relaxed);
    }
    BatchWrite batch(*types);
    const size_t changes = DecideBatch(updates, cached, locked, batch, written, results);
    tell_decided();
    return changes > 0 ? write(batch) : absl::OkStatus();
  };
  auto start_attempt = [&] {
    results.assign(n, absl::OkStatus());
    written.assign(n, std::nullopt);
  };
  // A batch whose every game is the row this server wrote last (GameRowCache) is decided on the
  // rows held, and its write goes out with the commit: one round trip and no locked read. The
  // write checks what the locked read would have found (migration 0018): every row still carries
  // its stamp, and no answer is stored under the batch's keys; if not, the transaction rolls back
  // (ABORTED after its one attempt) and the batch is decided again below, on the locked rows. A
  // batch with a refusal or a change that writes nothing goes below at once: only a write checks
  // the rows it was decided on.
  if (!first && db_->pipelining() && n > 0 &&
      std::all_of(own.begin(), own.end(), [](const auto& o) { return o.has_value(); })) {
    start_attempt();
    LockedGames held = HeldGames(updates, own);
    BatchWrite batch(*types);
    if (DecideBatch(updates, cached, held, batch, written, results) == n) {
      tell_decided();
      const absl::StatusOr<WriteParams> p = WriteParamsOf(batch, HeldStampsOf(updates, own));
      if (!p.ok()) {
        results.assign(n, p.status());
        return p.status();
      }
      TransactionOptions once;
      once.max_attempts = 1;
      const absl::Status unlocked = db_->TransactPipelined(
          txn_name,
          [&](PipelineTxn& txn) {
            QueueWrite(txn, *p);  // a copy: a transaction run again queues the same write
            txn.OnCommitted([&](const std::vector<PgRows>& rows) { txid = WrittenTxid(rows); });
            return absl::OkStatus();
          },
          once);
      if (unlocked.ok()) {
        reads_.unlocked_written.fetch_add(static_cast<int64_t>(n), std::memory_order_relaxed);
        CacheWritten(updates, results, written, txid);
        return absl::OkStatus();
      }
      if (!absl::IsAborted(unlocked)) {
        ForgetWriteTypesAfter(unlocked);
        for (absl::Status& result : results) result = unlocked;
        return unlocked;
      }
      reads_.unlocked_retried.fetch_add(1, std::memory_order_relaxed);
    }
  }
  // The locked read and the write are fixed shapes over arrays: one plan each, whatever the
  // batch's size (re-planning the locked read for a small batch cost more than running it).
  // Pipelined, a batch is two round trips: the locked read, then the write with the commit.
  const absl::Status status =
      (!first && db_->pipelining())
          ? db_->TransactPipelined(
                txn_name,
                [&](PipelineTxn& txn) -> absl::Status {
                  start_attempt();
                  if (n == 0) return absl::OkStatus();
                  LockParams p = LockParamsOf(updates, cached, own);
                  txn.Queue("sessions_lock_games", sql::kLockGamesWithSeats,
                            {PgParam::Text(std::move(p.ids)), PgParam::Text(std::move(p.accounts)),
                             PgParam::Text(std::move(p.keys)),
                             PgParam::Text(std::move(p.cached_versions)),
                             PgParam::Text(std::move(p.stamps)),
                             PgParam::Text(std::move(p.stamp_versions))});
                  return decide(ReadLocked(txn.Exchange().at(0), own_by_id, rows_, &txid),
                                [&](BatchWrite& batch) -> absl::Status {
                                  PARLOR_ASSIGN_OR_RETURN(WriteParams p,
                                                          WriteParamsOf(batch, HeldStamps{}));
                                  QueueWrite(txn, std::move(p));
                                  return absl::OkStatus();
                                });
                })
          : db_->Transact(txn_name, [&](pqxx::work& txn) -> absl::Status {
              start_attempt();
              if (first) PARLOR_RETURN_IF_ERROR(first(txn));
              if (n == 0) return absl::OkStatus();
              db_->PlanKeyLookupsOnce(txn);
              return decide(
                  ReadLocked(LockBatch(*db_, txn, updates, cached, own), own_by_id, rows_, &txid),
                  [&](BatchWrite& batch) { return WriteBatch(*db_, txn, batch); });
            });
  tell_decided();
  if (!status.ok()) {
    ForgetWriteTypesAfter(status);
    for (absl::Status& result : results) result = status;
    return status;
  }
  CacheWritten(updates, results, written, txid);
  return absl::OkStatus();
}

void PgSessionsStore::CacheWritten(const std::vector<GameUpdate>& updates,
                                   const std::vector<absl::Status>& results,
                                   std::vector<std::optional<GameRow>>& written, uint64_t txid) {
  // Only what committed is cached.
  for (size_t i = 0; i < updates.size(); ++i) {
    if (results[i].ok() && written[i]) {
      auto row = std::make_shared<const GameRow>(std::move(*written[i]));
      // The snapshot cache shares the row's snapshot bytes (an aliasing pointer) instead of a copy.
      snapshots_.Put(updates[i].game_id, row->version,
                     std::shared_ptr<const std::string>(row, &row->snapshot));
      rows_.Put(updates[i].game_id, txid, std::move(row));
    }
  }
}

absl::StatusOr<std::vector<std::string>> PgSessionsStore::DueGames(absl::Time now, int limit) {
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

absl::StatusOr<bool> PgSessionsStore::MatchExists(absl::string_view match_key) {
  bool exists = false;
  const std::string key(match_key);
  absl::Status status = db_->Read("sessions.match_exists", [&](pqxx::nontransaction& txn) {
    exists = !txn.exec_params(sql::kSelectMatch, key).empty();
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return exists;
}

absl::StatusOr<std::vector<PlayerRecordRow>> PgSessionsStore::GetPlayerRecords(
    const std::vector<std::string>& account_ids) {
  std::vector<PlayerRecordRow> records;
  absl::Status status = db_->Read("sessions.player_records", [&](pqxx::nontransaction& txn) {
    records.clear();
    for (const pqxx::row& r :
         txn.exec_params(sql::kSelectPlayerRecords, PgTextArray(account_ids))) {
      records.push_back(PlayerRecordRow{r[0].as<std::string>(), r[1].as<int64_t>(),
                                        r[2].as<int64_t>(), r[3].as<int64_t>()});
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return records;
}

absl::StatusOr<PgSessionsStore::AccountUsage> PgSessionsStore::GetAccountUsage(
    absl::string_view account_id, absl::Time hour_ago, absl::Time day_ago) {
  AccountUsage usage;
  const std::string account(account_id);
  absl::Status status = db_->Read("sessions.account_usage", [&](pqxx::nontransaction& txn) {
    const pqxx::row r =
        txn.exec_params1(sql::kAccountUsage, account, Micros(hour_ago), Micros(day_ago));
    usage.active_games = r[0].as<int64_t>();
    usage.bot_games_last_hour = r[1].as<int64_t>();
    usage.oldest_bot_game_in_hour = TimeOrNull(r[2].as<int64_t>());
    usage.actions_last_day = r[3].as<int64_t>();
    usage.oldest_game_in_day = TimeOrNull(r[4].as<int64_t>());
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return usage;
}

absl::StatusOr<PgSessionsStore::VacationsByAccount> PgSessionsStore::GetVacations(
    const std::vector<std::string>& account_ids) {
  VacationsByAccount result;
  if (account_ids.empty()) return result;
  absl::Status status = db_->Read("sessions.get_vacations", [&](pqxx::nontransaction& txn) {
    result.clear();
    for (const pqxx::row& r :
         db_->Run(txn, "sessions_get_vacations", sql::kSelectVacations, PgTextArray(account_ids))) {
      result.emplace(r[0].as<std::string>(), Vacation{absl::FromUnixMicros(r[1].as<int64_t>()),
                                                      absl::FromUnixMicros(r[2].as<int64_t>())});
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return result;
}

absl::Status PgSessionsStore::ChangeVacation(absl::string_view account_id,
                                             const VacationChange& change) {
  const std::string account(account_id);
  // The account's active games, listed first; each is then locked and changed in the
  // vacation's transaction. (A game created in between is created with the vacation shown:
  // CreateGame reads it.)
  std::vector<std::string> ids;
  PARLOR_RETURN_IF_ERROR(db_->Read("sessions.vacation_games", [&](pqxx::nontransaction& txn) {
    ids.clear();
    for (const pqxx::row& r : txn.exec_params(sql::kSelectActiveGamesOf, account)) {
      ids.push_back(r[0].as<std::string>());
    }
    return absl::OkStatus();
  }));
  std::vector<GameUpdate> updates;
  for (const std::string& id : ids) {
    updates.push_back(GameUpdate{
        id, std::nullopt,
        [&](const GameRow& locked, const std::optional<StoredAnswer>&)
            -> absl::StatusOr<std::optional<Mutation>> { return change.decide(locked); }});
  }
  const int64_t now = Micros(change.now);
  auto first = [&](pqxx::work& txn) -> absl::Status {
    if (change.until) {
      if (txn.exec_params(sql::kStartVacation, account, now, Micros(*change.until)).empty()) {
        return absl::FailedPreconditionError("a vacation is already running; end it first");
      }
      const int64_t taken_us =
          txn.exec_params1(sql::kVacationTakenSince, account, Micros(change.counted_since))[0]
              .as<int64_t>();
      if (change.check) PARLOR_RETURN_IF_ERROR(change.check(absl::Microseconds(taken_us)));
      txn.exec_params0(sql::kInsertVacationHistory, account, now, Micros(*change.until));
    } else {
      if (txn.exec_params(sql::kEndVacation, account, now).empty()) {
        return absl::FailedPreconditionError("no vacation is running");
      }
      txn.exec_params0(sql::kEndVacationHistory, account, now);
    }
    return absl::OkStatus();
  };
  std::vector<absl::Status> results;
  PARLOR_RETURN_IF_ERROR(
      RunUpdates(change.until ? "sessions.start_vacation" : "sessions.end_vacation", first, updates,
                 nullptr, &results));
  for (const absl::Status& result : results) {
    // A game that ended (or vanished) meanwhile needs nothing.
    if (!result.ok() && !absl::IsNotFound(result)) return result;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::pair<std::string, int>>> PgSessionsStore::ClaimResults(
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

absl::Status PgSessionsStore::MarkResultAcked(absl::string_view game_id, absl::Time now,
                                              absl::string_view note) {
  const std::string id(game_id), n(note);
  return db_->Transact("sessions.result_acked", [&](pqxx::work& txn) {
    txn.exec_params0(sql::kResultAcked, id, Micros(now), n);
    return absl::OkStatus();
  });
}

absl::Status PgSessionsStore::MarkResultFailed(absl::string_view game_id, absl::Time retry_at,
                                               absl::string_view error) {
  const std::string id(game_id), e(error.substr(0, 500));
  return db_->Transact("sessions.result_failed", [&](pqxx::work& txn) {
    txn.exec_params0(sql::kResultFailed, id, Micros(retry_at), e);
    return absl::OkStatus();
  });
}

absl::StatusOr<std::pair<int64_t, int64_t>> PgSessionsStore::PendingOutbox() {
  std::pair<int64_t, int64_t> result;
  absl::Status status = db_->Transact("sessions.pending_outbox", [&](pqxx::work& txn) {
    pqxx::row r = txn.exec1(sql::kCountPendingOutbox);
    result = {r[0].as<int64_t>(), r[1].as<int64_t>()};
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return result;
}

absl::StatusOr<std::map<std::string, int64_t>> PgSessionsStore::CountGamesInProgress() {
  std::map<std::string, int64_t> result;
  absl::Status status = db_->Transact("sessions.count_games", [&](pqxx::work& txn) {
    result.clear();
    for (const pqxx::row& r : txn.exec(sql::kCountGamesInProgress)) {
      result[r[0].as<std::string>()] = r[1].as<int64_t>();
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return result;
}

}  // namespace parlor::sessions
