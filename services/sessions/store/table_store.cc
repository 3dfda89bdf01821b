#include "services/sessions/store/table_store.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "pqxx/pqxx"
#include "services/common/db/pg_array.h"
#include "services/sessions/store/shared_writes.h"
#include "services/sessions/store/table_sql.h"

namespace parlor::sessions {
namespace {

int64_t Micros(absl::Time t) { return absl::ToUnixMicros(t); }

ChatRow ReadChat(const pqxx::row& r) {
  ChatRow c;
  c.message_id = r[0].as<int64_t>();
  c.game_id = r[1].as<std::string>();
  c.seat = r[2].as<int>();
  c.account_id = r[3].as<std::string>();
  c.text = r[4].as<std::string>();
  c.game_version = r[5].as<int64_t>();
  c.created_at = absl::FromUnixMicros(r[6].as<int64_t>());
  return c;
}

RematchRow ReadRematch(const pqxx::row& r) {
  RematchRow o;
  o.game_id = r[0].as<std::string>();
  o.offered_by = r[1].as<std::string>();
  const std::string accepted = r[2].as<std::string>();
  if (!accepted.empty()) o.accepted_by = absl::StrSplit(accepted, ',');
  o.declined_by = r[3].as<std::string>();
  o.offered_at = absl::FromUnixMicros(r[4].as<int64_t>());
  o.expires_at = absl::FromUnixMicros(r[5].as<int64_t>());
  o.new_game_id = r[6].as<std::string>();
  return o;
}

}  // namespace

absl::StatusOr<ChatRow> PgTableStore::InsertChat(const ChatRow& row, absl::Time window_start,
                                                 int max_in_window, absl::Duration window,
                                                 const std::string& notify_payload,
                                                 absl::Time* retry_at) {
  ChatRow stored = row;
  absl::Status status = db_->Transact("sessions.send_chat", [&](pqxx::work& txn) -> absl::Status {
    // One sender's messages of one game are counted under a lock on that pair, so two replicas
    // cannot both let the last message of a window in.
    txn.exec_params(table_sql::kAdvisoryLock,
                    absl::StrCat("chat:", row.game_id, ":", row.account_id));
    pqxx::result recent =
        txn.exec_params(table_sql::kRecentChat, row.game_id, row.account_id, Micros(window_start));
    if (static_cast<int>(recent.size()) >= max_in_window) {
      *retry_at = absl::FromUnixMicros(recent[0][0].as<int64_t>()) + window;
      return absl::ResourceExhaustedError(absl::StrCat(
          "at most ", max_in_window, " chat messages per ", absl::FormatDuration(window),
          " in one game; try again after ", absl::FormatTime(*retry_at)));
    }
    stored.message_id =
        txn.exec_params1(table_sql::kInsertChat, row.game_id, row.seat, row.account_id, row.text,
                         row.game_version, Micros(row.created_at))[0]
            .as<int64_t>();
    Notify(*db_, txn, notify_payload);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return stored;
}

absl::StatusOr<std::vector<ChatRow>> PgTableStore::ListChat(absl::string_view game_id,
                                                            int64_t after_id, int64_t before_id,
                                                            bool newest_first, int limit) {
  std::vector<ChatRow> out;
  const std::string id(game_id);
  absl::Status status = db_->Read("sessions.list_chat", [&](pqxx::nontransaction& txn) {
    out.clear();
    for (const pqxx::row& r : txn.exec_params(
             newest_first ? table_sql::kListChatNewestFirst : table_sql::kListChatOldestFirst, id,
             after_id, before_id, limit)) {
      out.push_back(ReadChat(r));
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return out;
}

absl::StatusOr<int64_t> PgTableStore::LatestChatId() {
  int64_t latest = 0;
  absl::Status status = db_->Read("sessions.latest_chat", [&](pqxx::nontransaction& txn) {
    latest = txn.exec1(table_sql::kLatestChatId)[0].as<int64_t>();
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return latest;
}

absl::StatusOr<ChatRow> PgTableStore::GetChat(absl::string_view game_id, int64_t message_id) {
  ChatRow out;
  const std::string id(game_id);
  absl::Status status = db_->Read("sessions.get_chat", [&](pqxx::nontransaction& txn) {
    pqxx::result rows = txn.exec_params(table_sql::kGetChat, id, message_id);
    if (rows.empty()) {
      return absl::NotFoundError(
          absl::StrCat("game ", id, " has no chat message with id ", message_id));
    }
    out = ReadChat(rows[0]);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return out;
}

absl::Status PgTableStore::InsertReport(int64_t message_id, absl::string_view reporter,
                                        absl::string_view reason, absl::Time now) {
  const std::string who(reporter), why(reason);
  return db_->Transact("sessions.report_chat", [&](pqxx::work& txn) {
    txn.exec_params0(table_sql::kInsertReport, message_id, who, why, Micros(now));
    return absl::OkStatus();
  });
}

absl::Status PgTableStore::UpdateRematch(absl::string_view game_id, absl::Time now,
                                         const RematchDecide& decide) {
  const std::string id(game_id);
  return db_->Transact("sessions.rematch", [&](pqxx::work& txn) -> absl::Status {
    // Serialized per game, so that two first offers (no row to lock yet) are decided one after
    // the other.
    txn.exec_params(table_sql::kAdvisoryLock, absl::StrCat("rematch:", id));
    std::optional<RematchRow> locked;
    pqxx::result rows = txn.exec_params(table_sql::kLockRematch, id);
    if (!rows.empty()) locked = ReadRematch(rows[0]);
    absl::StatusOr<std::optional<RematchChange>> change = decide(locked);
    if (!change.ok()) return change.status();
    if (!change->has_value()) return absl::OkStatus();
    const RematchRow& o = (*change)->offer;
    txn.exec_params0(table_sql::kUpsertRematch, id, o.offered_by, PgTextArray(o.accepted_by),
                     o.declined_by, Micros(o.offered_at), Micros(o.expires_at), o.new_game_id);
    InsertNotifications(*db_, txn, id, (*change)->pushes, now);
    return absl::OkStatus();
  });
}

absl::StatusOr<std::optional<RematchRow>> PgTableStore::GetRematch(absl::string_view game_id) {
  std::optional<RematchRow> out;
  const std::string id(game_id);
  absl::Status status = db_->Read("sessions.get_rematch", [&](pqxx::nontransaction& txn) {
    out.reset();
    pqxx::result rows = txn.exec_params(table_sql::kGetRematch, id);
    if (!rows.empty()) out = ReadRematch(rows[0]);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return out;
}

absl::StatusOr<std::optional<absl::Time>> PgTableStore::TryNudge(
    absl::string_view game_id, absl::string_view account_id, int64_t version, absl::Time now,
    absl::Duration period, const std::vector<NotificationRow>& pushes) {
  std::optional<absl::Time> next;
  const std::string id(game_id), account(account_id);
  absl::Status status = db_->Transact("sessions.nudge", [&](pqxx::work& txn) -> absl::Status {
    next.reset();
    if (txn.exec_params(table_sql::kNudge, id, account, version, Micros(now), Micros(now - period))
            .empty()) {
      next = absl::FromUnixMicros(txn.exec_params1(table_sql::kLastNudge, id)[0].as<int64_t>()) +
             period;
      return absl::OkStatus();
    }
    InsertNotifications(*db_, txn, id, pushes, now);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return next;
}

absl::StatusOr<std::vector<std::pair<int64_t, std::string>>> PgTableStore::ListGameIdsByTurn(
    absl::string_view account_id, int filter,
    const std::optional<std::pair<int64_t, std::string>>& after, int limit) {
  std::vector<std::pair<int64_t, std::string>> out;
  const std::string account(account_id);
  absl::Status status = db_->Read("sessions.list_games_by_turn", [&](pqxx::nontransaction& txn) {
    out.clear();
    for (const pqxx::row& r : txn.exec_params(
             table_sql::kListMyGamesByTurn, account, filter, after.has_value(),
             after ? after->first : int64_t{0},
             after ? after->second : std::string("00000000-0000-0000-0000-000000000000"), limit)) {
      out.emplace_back(r[0].as<int64_t>(), r[1].as<std::string>());
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return out;
}

absl::Status PgTableStore::MarkSeen(absl::string_view game_id, absl::string_view account_id,
                                    int64_t version, absl::Time now) {
  const std::string id(game_id), account(account_id);
  return db_->Transact("sessions.mark_seen", [&](pqxx::work& txn) {
    txn.exec_params0(table_sql::kMarkSeen, id, account, version, Micros(now));
    return absl::OkStatus();
  });
}

absl::StatusOr<std::map<std::string, int64_t>> PgTableStore::SeenVersions(
    absl::string_view account_id, const std::vector<std::string>& game_ids) {
  std::map<std::string, int64_t> out;
  if (game_ids.empty()) return out;
  const std::string account(account_id);
  absl::Status status = db_->Read("sessions.seen_versions", [&](pqxx::nontransaction& txn) {
    out.clear();
    for (const pqxx::row& r :
         txn.exec_params(table_sql::kSeenVersions, account, PgTextArray(game_ids))) {
      out[r[0].as<std::string>()] = r[1].as<int64_t>();
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return out;
}

}  // namespace parlor::sessions
