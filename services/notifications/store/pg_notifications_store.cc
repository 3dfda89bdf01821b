#include "services/notifications/store/pg_notifications_store.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <string_view>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "services/common/db/pg_array.h"
#include "services/notifications/store/sql.h"

namespace parlor::notifications {
namespace {

int64_t Micros(absl::Time time) { return absl::ToUnixMicros(time); }
// -1 stands for "none" in the statements' nullable times.
int64_t OptionalMicros(const std::optional<absl::Time>& time) {
  return time.has_value() ? Micros(*time) : -1;
}

// A game-over event's commit time (its arrival when the sender gave none: later, so the row is
// kept at least as long), for the turns row's over_time; -1 for every other event.
int64_t OverMicros(const Event& event, absl::Time now) {
  if (event.kind != EventKind::kGameOver) return -1;
  return Micros(event.commit_time.value_or(now));
}

std::vector<std::string> TextArray(const pqxx::field& field) {
  std::vector<std::string> values;
  pqxx::array_parser parser = field.as_array();
  for (auto [juncture, value] = parser.get_next(); juncture != pqxx::array_parser::juncture::done;
       std::tie(juncture, value) = parser.get_next()) {
    if (juncture == pqxx::array_parser::juncture::string_value) values.push_back(value);
  }
  return values;
}

Device ToDevice(const pqxx::row& row) {
  return Device{.device_id = row[0].as<std::string>(),
                .account_id = row[1].as<std::string>(),
                .platform = static_cast<Platform>(row[2].as<int>()),
                .token = row[3].as<std::string>(),
                .locale = row[4].as<std::string>(),
                .time_zone = row[5].as<std::string>(),
                .app_id = row[6].as<std::string>(),
                .sandbox = row[7].as<bool>(),
                .create_time = absl::FromUnixMicros(row[8].as<int64_t>()),
                .update_time = absl::FromUnixMicros(row[9].as<int64_t>())};
}

Preferences ToPreferences(const pqxx::row& row) {
  Preferences preferences;
  preferences.muted_game_ids = TextArray(row[0]);
  for (const std::string& kind : TextArray(row[1])) {
    preferences.disabled_kinds.push_back(static_cast<EventKind>(std::stoi(kind)));
  }
  if (!row[2].is_null()) {
    preferences.quiet_hours = QuietHours{row[2].as<int>(), row[3].as<int>()};
  }
  preferences.time_zone = row[4].as<std::string>();
  return preferences;
}

absl::StatusOr<Preferences> LoadPreferences(pqxx::transaction_base& txn,
                                            const std::string& account_id) {
  pqxx::result found = txn.exec_params(sql::kGetPreferences, account_id);
  if (found.empty()) return Preferences();
  return ToPreferences(found[0]);
}

}  // namespace

absl::StatusOr<NotificationsStore::Registered> PgNotificationsStore::RegisterDevice(
    const Device& device, absl::Time now) {
  Registered registered;
  absl::Status status = db_->Transact("register_device", [&](pqxx::work& txn) {
    registered = Registered();
    pqxx::result held =
        txn.exec_params(sql::kLockToken, static_cast<int>(device.platform), device.token);
    pqxx::row row = txn.exec_params1(sql::kUpsertDevice, device.account_id,
                                     static_cast<int>(device.platform), device.token, device.locale,
                                     device.time_zone, device.app_id, device.sandbox, Micros(now));
    registered.device = ToDevice(row);
    if (!held.empty() && held[0][1].as<std::string>() != device.account_id) {
      registered.moved = true;
      txn.exec_params0(sql::kDropDevicePushes, registered.device.device_id);
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return registered;
}

absl::Status PgNotificationsStore::UnregisterDevice(const std::string& account_id,
                                                    const std::string& device_id,
                                                    const std::string& token) {
  return db_->Transact("unregister_device", [&](pqxx::work& txn) {
    pqxx::result removed = device_id.empty()
                               ? txn.exec_params(sql::kUnregisterByToken, account_id, token)
                               : txn.exec_params(sql::kUnregisterById, account_id, device_id);
    if (removed.empty()) {
      return absl::NotFoundError(device_id.empty() ? "you have no device with this token"
                                                   : absl::StrCat("you have no device ", device_id,
                                                                  " (ListMyDevices lists yours)"));
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<std::vector<Device>> PgNotificationsStore::ListDevices(
    const std::string& account_id) {
  std::vector<Device> devices;
  absl::Status status = db_->Read("list_devices", [&](pqxx::nontransaction& txn) {
    devices.clear();
    for (const pqxx::row& row : txn.exec_params(sql::kListDevices, account_id)) {
      devices.push_back(ToDevice(row));
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return devices;
}

absl::StatusOr<Preferences> PgNotificationsStore::GetPreferences(const std::string& account_id) {
  Preferences preferences;
  absl::Status status = db_->Read("get_preferences", [&](pqxx::nontransaction& txn) {
    absl::StatusOr<Preferences> loaded = LoadPreferences(txn, account_id);
    if (!loaded.ok()) return loaded.status();
    preferences = *std::move(loaded);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return preferences;
}

absl::Status PgNotificationsStore::PutPreferences(const std::string& account_id,
                                                  const Preferences& preferences, absl::Time now) {
  std::vector<int> kinds;
  for (EventKind kind : preferences.disabled_kinds) kinds.push_back(static_cast<int>(kind));
  // Quiet hours travel as -1 when unset (NULLIF turns them back into NULL).
  const int start = preferences.quiet_hours ? preferences.quiet_hours->start_minute : -1;
  const int end = preferences.quiet_hours ? preferences.quiet_hours->end_minute : -1;
  return db_->Transact("put_preferences", [&](pqxx::work& txn) {
    txn.exec_params0(sql::kPutPreferences, account_id, PgTextArray(preferences.muted_game_ids),
                     PgIntArray(kinds), start, end, preferences.time_zone, Micros(now));
    return absl::OkStatus();
  });
}

absl::StatusOr<NotificationsStore::Accepted> PgNotificationsStore::AcceptEvents(
    const std::vector<Event>& events, const Planner& plan, absl::Time now) {
  if (mode_ == AcceptMode::kOneByOne) return AcceptEventsOneByOne(events, plan, now);
  // A dedupe key repeated inside the request: its first event counts, the others are duplicates.
  std::vector<const Event*> batch;
  std::set<std::string_view> keys;
  for (const Event& event : events) {
    if (keys.insert(event.dedupe_key).second) batch.push_back(&event);
  }
  std::vector<std::string> accounts;
  for (const Event* event : batch) accounts.push_back(event->account_id);
  std::sort(accounts.begin(), accounts.end());
  accounts.erase(std::unique(accounts.begin(), accounts.end()), accounts.end());
  Accepted accepted;
  absl::Status status = db_->Transact("accept_events", [&](pqxx::work& txn) {
    accepted = Accepted();
    IndexScansOnly(txn);
    // (1) Preferences, then each event's plan.
    std::map<std::string, Preferences> preferences;
    for (const pqxx::row& row :
         db_->Run(txn, "get_preferences_many", sql::kGetPreferencesMany, PgTextArray(accounts))) {
      preferences.emplace(row[5].as<std::string>(), ToPreferences(row));
    }
    std::vector<Plan> plans;
    std::vector<std::string> key, account, game_id, game, title, loc_key, loc_args, link, inbox,
        mover, last_move;
    std::vector<int> kind;
    std::vector<int64_t> version, commit, expire;
    for (const Event* e : batch) {
      auto found = preferences.find(e->account_id);
      plans.push_back(plan(*e, found == preferences.end() ? Preferences() : found->second));
      const Plan& p = plans.back();
      key.push_back(e->dedupe_key);
      account.push_back(e->account_id);
      kind.push_back(static_cast<int>(e->kind));
      game_id.push_back(e->game_id);
      game.push_back(e->game);
      version.push_back(e->version);
      title.push_back(p.content.title_loc_key);
      loc_key.push_back(p.content.loc_key);
      loc_args.push_back(PgTextArray(p.content.loc_args));
      link.push_back(p.content.deep_link);
      commit.push_back(Micros(p.commit_time));
      expire.push_back(OptionalMicros(e->expire_time));
      inbox.push_back(p.in_inbox ? "t" : "f");
      mover.push_back(p.content.last_move_player);
      last_move.push_back(p.content.last_move);
    }
    // (2) The events not seen before.
    std::map<std::string, int64_t, std::less<>> inserted;
    for (const pqxx::row& row :
         db_->Run(txn, "insert_events", sql::kInsertEvents, PgTextArray(key), PgTextArray(account),
                  PgIntArray(kind), PgTextArray(game_id), PgTextArray(game), PgIntArray(version),
                  PgTextArray(title), PgTextArray(loc_key), PgTextArray(loc_args),
                  PgTextArray(link), PgIntArray(commit), PgIntArray(expire), PgTextArray(inbox),
                  Micros(now), PgTextArray(mover), PgTextArray(last_move))) {
      inserted.emplace(row[1].as<std::string>(), row[0].as<int64_t>());
    }
    accepted.accepted = static_cast<int>(inserted.size());
    accepted.duplicates = static_cast<int>(events.size()) - accepted.accepted;
    // (3) The turn state: per (account, game), the newest new event that sets it.
    std::map<std::pair<std::string, std::string>, const Event*> turns;
    std::vector<std::string> stale_account, stale_game, stale_inclusive;
    std::vector<int64_t> stale_version;
    for (const Event* e : batch) {
      if (!inserted.contains(e->dedupe_key) || e->game_id.empty()) continue;
      const bool turn_event = e->kind == EventKind::kYourTurn || e->kind == EventKind::kReminder;
      stale_account.push_back(e->account_id);
      stale_game.push_back(e->game_id);
      stale_version.push_back(e->version);
      stale_inclusive.push_back(turn_event ? "f" : "t");
      if (e->kind != EventKind::kYourTurn && e->kind != EventKind::kTurnOver &&
          e->kind != EventKind::kTimeout && e->kind != EventKind::kGameOver) {
        continue;
      }
      const Event*& newest = turns[{e->account_id, e->game_id}];
      // At one version, a game-over event stands for the game's end, whatever came with it.
      if (newest == nullptr || newest->version < e->version ||
          (newest->version == e->version && newest->kind != EventKind::kGameOver)) {
        newest = e;
      }
    }
    if (!turns.empty()) {
      std::vector<std::string> t_account, t_game, t_mine;
      std::vector<int64_t> t_version, t_expire, t_over;
      for (const auto& [where, e] : turns) {
        t_account.push_back(where.first);
        t_game.push_back(where.second);
        t_version.push_back(e->version);
        t_mine.push_back(e->kind == EventKind::kYourTurn ? "t" : "f");
        t_expire.push_back(OptionalMicros(e->expire_time));
        t_over.push_back(OverMicros(*e, now));
      }
      db_->Run(txn, "set_turns", sql::kSetTurns, PgTextArray(t_account), PgTextArray(t_game),
               PgIntArray(t_version), PgTextArray(t_mine), PgIntArray(t_expire),
               PgIntArray(t_over));
    }
    // (4) The pushes, one per device of the account.
    std::vector<int64_t> f_id, f_version, f_commit, f_expire, f_due;
    std::vector<std::string> f_account, f_game;
    std::vector<int> f_kind;
    for (size_t i = 0; i < batch.size(); ++i) {
      const Event& e = *batch[i];
      const Plan& p = plans[i];
      auto id = inserted.find(e.dedupe_key);
      if (id == inserted.end() || !p.push) continue;
      if (e.expire_time.has_value() && *e.expire_time <= now) continue;
      f_id.push_back(id->second);
      f_account.push_back(e.account_id);
      f_game.push_back(e.game_id);
      f_kind.push_back(static_cast<int>(e.kind));
      f_version.push_back(e.version);
      f_commit.push_back(Micros(p.commit_time));
      f_expire.push_back(OptionalMicros(e.expire_time));
      f_due.push_back(Micros(p.due_time));
    }
    if (!f_id.empty()) {
      pqxx::result queued =
          db_->Run(txn, "fan_out_many", sql::kFanOutMany, PgIntArray(f_id), PgTextArray(f_account),
                   PgTextArray(f_game), PgIntArray(f_kind), PgIntArray(f_version),
                   PgIntArray(f_commit), PgIntArray(f_expire), PgIntArray(f_due), Micros(now));
      accepted.deliveries = static_cast<int>(queued.affected_rows());
    }
    // (5) Pending pushes the batch made stale (its own included).
    if (!stale_account.empty()) {
      db_->Run(txn, "drop_stale_pushes_many", sql::kDropStalePushesMany, PgTextArray(stale_account),
               PgTextArray(stale_game), PgIntArray(stale_version), PgTextArray(stale_inclusive));
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return accepted;
}

absl::StatusOr<NotificationsStore::Accepted> PgNotificationsStore::AcceptEventsOneByOne(
    const std::vector<Event>& events, const Planner& plan, absl::Time now) {
  Accepted accepted;
  absl::Status status = db_->Transact("accept_events", [&](pqxx::work& txn) {
    accepted = Accepted();
    std::map<std::string, Preferences> preferences;
    for (const Event& event : events) {
      auto found = preferences.find(event.account_id);
      if (found == preferences.end()) {
        absl::StatusOr<Preferences> loaded = LoadPreferences(txn, event.account_id);
        if (!loaded.ok()) return loaded.status();
        found = preferences.emplace(event.account_id, *std::move(loaded)).first;
      }
      // An event for a deleted account is dropped like a duplicate (the set-based path does the
      // same in its insert).
      if (db_->Run(txn, "is_forgotten", sql::kIsForgotten, event.account_id)[0][0].as<bool>()) {
        ++accepted.duplicates;
        continue;
      }
      const Plan p = plan(event, found->second);
      pqxx::result inserted =
          db_->Run(txn, "insert_event", sql::kInsertEvent, event.dedupe_key, event.account_id,
                   static_cast<int>(event.kind), event.game_id, event.game, event.version,
                   p.content.title_loc_key, p.content.loc_key, PgTextArray(p.content.loc_args),
                   p.content.deep_link, Micros(p.commit_time), OptionalMicros(event.expire_time),
                   Micros(now), p.in_inbox, p.content.last_move_player, p.content.last_move);
      if (inserted.empty()) {
        ++accepted.duplicates;
        continue;
      }
      ++accepted.accepted;
      const int64_t notification_id = inserted[0][0].as<int64_t>();
      if (!event.game_id.empty()) {
        const bool turn_event =
            event.kind == EventKind::kYourTurn || event.kind == EventKind::kReminder;
        db_->Run(txn, "drop_stale_pushes", sql::kDropStalePushes, event.account_id, event.game_id,
                 event.version, !turn_event);
        if (event.kind == EventKind::kYourTurn || event.kind == EventKind::kTurnOver ||
            event.kind == EventKind::kTimeout || event.kind == EventKind::kGameOver) {
          db_->Run(txn, "set_turn", sql::kSetTurn, event.account_id, event.game_id, event.version,
                   event.kind == EventKind::kYourTurn, OptionalMicros(event.expire_time),
                   OverMicros(event, now));
        }
      }
      if (!p.push) continue;
      if (event.expire_time.has_value() && *event.expire_time <= now) continue;
      const int badge =
          db_->Run(txn, "count_my_turns", sql::kCountMyTurns, event.account_id, Micros(now))[0][0]
              .as<int>();
      pqxx::result queued =
          db_->Run(txn, "fan_out", sql::kFanOut, notification_id, event.account_id, event.game_id,
                   static_cast<int>(event.kind), event.version, badge, Micros(p.commit_time),
                   OptionalMicros(event.expire_time), Micros(p.due_time));
      accepted.deliveries += static_cast<int>(queued.affected_rows());
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return accepted;
}

namespace {

Notification ToNotification(const pqxx::row& row) {
  Notification n;
  n.notification_id = row[0].as<int64_t>();
  n.kind = static_cast<EventKind>(row[1].as<int>());
  n.content.title_loc_key = row[2].as<std::string>();
  n.content.loc_key = row[3].as<std::string>();
  n.content.loc_args = TextArray(row[4]);
  n.game_id = row[5].as<std::string>();
  n.game = row[6].as<std::string>();
  n.version = row[7].as<int64_t>();
  n.content.deep_link = row[8].as<std::string>();
  n.create_time = absl::FromUnixMicros(row[9].as<int64_t>());
  n.read = row[10].as<bool>();
  n.content.last_move_player = row[11].as<std::string>();
  n.content.last_move = row[12].as<std::string>();
  return n;
}

}  // namespace

absl::StatusOr<NotificationsStore::InboxPage> PgNotificationsStore::ListInbox(
    const std::string& account_id, int64_t before_id, int limit) {
  InboxPage page;
  absl::Status status = db_->Read("list_inbox", [&](pqxx::nontransaction& txn) {
    page = InboxPage();
    const int64_t before = before_id > 0 ? before_id : std::numeric_limits<int64_t>::max();
    for (const pqxx::row& row : txn.exec_params(sql::kListInbox, account_id, before, limit + 1)) {
      if (static_cast<int>(page.notifications.size()) == limit) {
        page.more = true;
        break;
      }
      page.notifications.push_back(ToNotification(row));
    }
    page.unread = txn.exec_params1(sql::kCountUnread, account_id)[0].as<int64_t>();
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return page;
}

absl::StatusOr<NotificationsStore::InboxPage> PgNotificationsStore::ListInboxAfter(
    const std::string& account_id, int64_t after_id, int limit) {
  InboxPage page;
  absl::Status status = db_->Read("list_inbox_after", [&](pqxx::nontransaction& txn) {
    page = InboxPage();
    for (const pqxx::row& row :
         txn.exec_params(sql::kListInboxAfter, account_id, after_id, limit + 1)) {
      if (static_cast<int>(page.notifications.size()) == limit) {
        page.more = true;
        break;
      }
      page.notifications.push_back(ToNotification(row));
    }
    page.unread = txn.exec_params1(sql::kCountUnread, account_id)[0].as<int64_t>();
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return page;
}

absl::StatusOr<std::map<std::string, NotificationsStore::InboxHead>>
PgNotificationsStore::InboxHeads(const std::vector<std::string>& account_ids) {
  std::map<std::string, InboxHead> heads;
  if (account_ids.empty()) return heads;
  absl::Status status = db_->Read("inbox_heads", [&](pqxx::nontransaction& txn) {
    heads.clear();
    for (const pqxx::row& row : txn.exec_params(sql::kInboxHeads, PgTextArray(account_ids))) {
      heads[row[0].as<std::string>()] = InboxHead{row[1].as<int64_t>(), row[2].as<int64_t>()};
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return heads;
}

absl::StatusOr<int64_t> PgNotificationsStore::MarkRead(const std::string& account_id,
                                                       const std::vector<int64_t>& ids,
                                                       int64_t up_to, absl::Time now) {
  int64_t unread = 0;
  absl::Status status = db_->Transact("mark_read", [&](pqxx::work& txn) {
    if (ids.empty()) {
      txn.exec_params0(sql::kMarkReadUpTo, account_id, up_to, Micros(now));
    } else {
      txn.exec_params0(sql::kMarkReadIds, account_id, PgIntArray(ids), Micros(now));
    }
    unread = txn.exec_params1(sql::kCountUnread, account_id)[0].as<int64_t>();
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return unread;
}

absl::StatusOr<NotificationsStore::PrunedRows> PgNotificationsStore::Prune(absl::Time events_before,
                                                                           absl::Time turns_before,
                                                                           int limit) {
  PrunedRows pruned;
  absl::Status status = db_->Transact("prune", [&](pqxx::work& txn) {
    pruned.events = static_cast<int>(
        txn.exec_params0(sql::kPruneEvents, Micros(events_before), limit).affected_rows());
    pruned.turns = static_cast<int>(
        txn.exec_params0(sql::kPruneTurns, Micros(turns_before), limit).affected_rows());
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return pruned;
}

void PgNotificationsStore::IndexScansOnly(pqxx::work& txn) const {
  if (queue_ == QueueMode::kIndexed) txn.exec0(sql::kIndexScansOnly);
}

absl::StatusOr<std::vector<Push>> PgNotificationsStore::ClaimPushes(absl::Time now,
                                                                    absl::Duration lease,
                                                                    int limit) {
  std::vector<Push> pushes;
  absl::Status status = db_->Transact("claim_pushes", [&](pqxx::work& txn) {
    pushes.clear();
    IndexScansOnly(txn);
    const bool moving = queue_ == QueueMode::kFormer;
    for (const pqxx::row& row :
         db_->Run(txn, moving ? "claim_pushes_moving_due_time" : "claim_pushes",
                  moving ? sql::kClaimPushesMovingDueTime : sql::kClaimPushes, Micros(now),
                  Micros(now + lease), limit)) {
      Push p;
      p.delivery_id = row[0].as<int64_t>();
      p.attempts = row[1].as<int>();
      p.device.device_id = row[2].as<std::string>();
      p.device.account_id = row[3].as<std::string>();
      p.device.platform = static_cast<Platform>(row[4].as<int>());
      p.device.token = row[5].as<std::string>();
      p.device.locale = row[6].as<std::string>();
      p.device.time_zone = row[7].as<std::string>();
      p.device.app_id = row[8].as<std::string>();
      p.device.sandbox = row[9].as<bool>();
      p.kind = static_cast<EventKind>(row[10].as<int>());
      p.game_id = row[11].as<std::string>();
      p.version = row[12].as<int64_t>();
      p.content.title_loc_key = row[13].as<std::string>();
      p.content.loc_key = row[14].as<std::string>();
      p.content.loc_args = TextArray(row[15]);
      p.content.deep_link = row[16].as<std::string>();
      p.badge = row[17].as<int>();
      p.commit_time = absl::FromUnixMicros(row[18].as<int64_t>());
      if (!row[19].is_null()) p.expire_time = absl::FromUnixMicros(row[19].as<int64_t>());
      p.dedupe_key = row[20].as<std::string>();
      p.content.last_move_player = row[21].as<std::string>();
      p.content.last_move = row[22].as<std::string>();
      pushes.push_back(std::move(p));
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return pushes;
}

absl::Status PgNotificationsStore::RemovePushes(const std::vector<int64_t>& delivery_ids) {
  if (delivery_ids.empty()) return absl::OkStatus();
  return db_->Transact("remove_pushes", [&](pqxx::work& txn) {
    IndexScansOnly(txn);
    db_->Run(txn, "remove_pushes", sql::kRemovePushes, PgIntArray(delivery_ids));
    return absl::OkStatus();
  });
}

absl::Status PgNotificationsStore::ReschedulePushes(const std::vector<Retry>& retries) {
  if (retries.empty()) return absl::OkStatus();
  std::vector<int64_t> ids;
  std::vector<int64_t> due;
  std::vector<std::string> errors;
  for (const Retry& retry : retries) {
    ids.push_back(retry.delivery_id);
    due.push_back(Micros(retry.due_time));
    errors.push_back(retry.error.substr(0, 500));
  }
  return db_->Transact("reschedule_pushes", [&](pqxx::work& txn) {
    IndexScansOnly(txn);
    txn.exec_params0(sql::kReschedulePushes, PgIntArray(ids), PgIntArray(due), PgTextArray(errors));
    return absl::OkStatus();
  });
}

absl::StatusOr<bool> PgNotificationsStore::RemoveDeadDevice(const std::string& device_id,
                                                            const std::string& token) {
  bool removed = false;
  absl::Status status = db_->Transact("remove_dead_device", [&](pqxx::work& txn) {
    IndexScansOnly(txn);  // the queue's rows of the device go with it
    removed = !txn.exec_params(sql::kRemoveDeadDevice, device_id, token).empty();
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return removed;
}

absl::StatusOr<NotificationsStore::QueueStats> PgNotificationsStore::GetQueueStats() {
  QueueStats stats;
  absl::Status status = db_->Read("queue_stats", [&](pqxx::nontransaction& txn) {
    pqxx::row row = txn.exec1(sql::kQueueStats);
    stats.depth = row[0].as<int64_t>();
    if (!row[1].is_null()) stats.oldest_commit_time = absl::FromUnixMicros(row[1].as<int64_t>());
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return stats;
}

absl::StatusOr<int64_t> PgNotificationsStore::HandledThrough() {
  int64_t through = 0;
  absl::Status status = db_->Read("forgotten_through", [&](pqxx::nontransaction& txn) {
    through = db_->Run(txn, "forgotten_through", sql::kForgottenThrough)[0][0].as<int64_t>();
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return through;
}

absl::Status PgNotificationsStore::Forget(const DeletedAccount& deleted) {
  return db_->Transact("forget_account", [&](pqxx::work& txn) {
    const std::string& id = deleted.account_id;
    db_->Run(txn, "record_forgotten", sql::kRecordForgotten, id, deleted.sequence);
    db_->Run(txn, "forget_deliveries", sql::kForgetDeliveries, id);
    db_->Run(txn, "forget_devices", sql::kForgetDevices, id);
    db_->Run(txn, "forget_preferences", sql::kForgetPreferences, id);
    db_->Run(txn, "forget_events", sql::kForgetEvents, id);
    db_->Run(txn, "forget_turns", sql::kForgetTurns, id);
    if (!deleted.former_display_name.empty() && !deleted.display_name.empty()) {
      db_->Run(txn, "rename_in_notifications", sql::kRenameInNotifications,
               deleted.former_display_name, deleted.display_name);
    }
    return absl::OkStatus();
  });
}

}  // namespace parlor::notifications
