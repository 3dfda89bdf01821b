#include "services/notifications/domain/notifications_service.h"

#include <algorithm>
#include <iterator>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "services/common/core/crypto.h"
#include "services/notifications/domain/rules.h"

namespace parlor::notifications {
namespace {

constexpr char kPageTokenPrefix[] = "inbox:";

absl::Status BadPageToken() {
  return absl::InvalidArgumentError(
      "page_token was not issued by ListNotifications; send the next_page_token of the "
      "previous page, or none for the first page");
}

}  // namespace

NotificationsService::NotificationsService(NotificationsStore* store, Clock clock,
                                           DeliveryMetrics* metrics,
                                           std::function<void()> on_queued,
                                           absl::Duration retention)
    : store_(store),
      clock_(std::move(clock)),
      metrics_(metrics),
      on_queued_(std::move(on_queued)),
      retention_(retention) {}

absl::StatusOr<NotificationsStore::Registered> NotificationsService::RegisterDevice(
    const std::string& account_id, Device device) {
  if (absl::Status valid = ValidateDevice(device.platform, device.token, device.locale,
                                          device.time_zone, device.app_id);
      !valid.ok()) {
    return valid;
  }
  if (device.platform == Platform::kApns) {
    // APNs tokens are hex; the same token in either case is the same device.
    for (char& c : device.token) c = static_cast<char>(std::tolower(c));
  } else {
    device.sandbox = false;  // FCM has no separate environment
  }
  if (device.locale.empty()) device.locale = "en";
  if (device.time_zone.empty()) device.time_zone = "UTC";
  device.account_id = account_id;
  return store_->RegisterDevice(device, clock_());
}

absl::Status NotificationsService::UnregisterDevice(const std::string& account_id,
                                                    const std::string& device_id,
                                                    const std::string& token) {
  if (device_id.empty() == token.empty()) {
    return absl::InvalidArgumentError(
        "set exactly one of device_id (from ListMyDevices) and token");
  }
  if (!device_id.empty() && !IsUuid(device_id)) {
    return absl::InvalidArgumentError(
        "device_id must be a device id from ListMyDevices (a lower-case UUID)");
  }
  if (token.size() > 4096) {
    return absl::InvalidArgumentError("token is longer than any push token (4096 characters)");
  }
  return store_->UnregisterDevice(account_id, device_id, token);
}

absl::StatusOr<std::vector<Device>> NotificationsService::ListDevices(
    const std::string& account_id) {
  return store_->ListDevices(account_id);
}

absl::StatusOr<Preferences> NotificationsService::GetPreferences(const std::string& account_id) {
  return store_->GetPreferences(account_id);
}

absl::StatusOr<Preferences> NotificationsService::UpdatePreferences(const std::string& account_id,
                                                                    Preferences preferences) {
  if (preferences.time_zone.empty()) preferences.time_zone = "UTC";
  if (absl::Status valid = ValidatePreferences(preferences); !valid.ok()) return valid;
  if (absl::Status put = store_->PutPreferences(account_id, preferences, clock_()); !put.ok()) {
    return put;
  }
  return preferences;
}

absl::StatusOr<NotificationsService::InboxPage> NotificationsService::ListNotifications(
    const std::string& account_id, int page_size, const std::string& page_token) {
  if (page_size < 0 || page_size > kMaxPageSize) {
    return absl::InvalidArgumentError(absl::StrCat("page_size must be 0 to ", kMaxPageSize,
                                                   " (0 means ", kDefaultPageSize, "); got ",
                                                   page_size));
  }
  if (page_size == 0) page_size = kDefaultPageSize;
  int64_t before = 0;
  if (!page_token.empty()) {
    absl::StatusOr<std::string> decoded = Base64UrlDecode(page_token);
    absl::string_view cursor = decoded.ok() ? absl::string_view(*decoded) : "";
    if (page_token.size() > 64 || !absl::ConsumePrefix(&cursor, kPageTokenPrefix) ||
        !absl::SimpleAtoi(cursor, &before) || before <= 0) {
      return BadPageToken();
    }
  }
  absl::StatusOr<NotificationsStore::InboxPage> page =
      store_->ListInbox(account_id, before, page_size);
  if (!page.ok()) return page.status();
  InboxPage out;
  out.notifications = std::move(page->notifications);
  out.unread = page->unread;
  if (page->more && !out.notifications.empty()) {
    out.next_page_token =
        Base64UrlEncode(absl::StrCat(kPageTokenPrefix, out.notifications.back().notification_id));
  }
  return out;
}

absl::StatusOr<int64_t> NotificationsService::MarkRead(const std::string& account_id,
                                                       const std::vector<int64_t>& ids,
                                                       int64_t up_to) {
  if (ids.empty() == (up_to == 0)) {
    return absl::InvalidArgumentError(
        "set exactly one of notification_ids and up_to_notification_id");
  }
  if (ids.size() > kMaxMarkRead) {
    return absl::InvalidArgumentError(
        absl::StrCat("notification_ids holds at most ", kMaxMarkRead, " ids; it has ", ids.size()));
  }
  for (int64_t id : ids) {
    if (id <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("notification_ids: ", id, " is not a notification id (they are > 0)"));
    }
  }
  if (up_to < 0) {
    return absl::InvalidArgumentError("up_to_notification_id must be a notification id (> 0)");
  }
  absl::StatusOr<int64_t> unread = store_->MarkRead(account_id, ids, up_to, clock_());
  if (unread.ok() && inbox_changed_) inbox_changed_();
  return unread;
}

NotificationsStore::Plan NotificationsService::PlanEvent(const Event& event,
                                                         const Preferences& preferences,
                                                         absl::Time now) const {
  NotificationsStore::Plan plan;
  plan.content = BuildContent(event);
  plan.in_inbox = event.kind != EventKind::kTurnOver;
  plan.push = WantsPush(preferences, event.kind, event.game_id);
  plan.commit_time = event.commit_time.value_or(now);
  plan.due_time = event.kind == EventKind::kReminder ? ReminderDueTime(preferences, now) : now;
  return plan;
}

absl::StatusOr<NotificationsStore::Accepted> NotificationsService::AcceptEvents(
    const std::vector<Event>& events) {
  if (events.empty() || events.size() > kMaxEventsPerRequest) {
    return absl::InvalidArgumentError(absl::StrCat("events must hold 1-", kMaxEventsPerRequest,
                                                   " events; it has ", events.size()));
  }
  for (size_t i = 0; i < events.size(); ++i) {
    if (absl::Status valid = ValidateEvent(i, events[i]); !valid.ok()) return valid;
  }
  const absl::Time now = clock_();
  // Committed before the retention: kept, it would be pruned at once, and its dedupe key may
  // already be (a sender retrying that long): acknowledged as seen, not stored.
  const auto too_old_event = [cutoff = now - retention_](const Event& event) {
    return event.commit_time.has_value() && *event.commit_time < cutoff;
  };
  const int too_old = static_cast<int>(std::count_if(events.begin(), events.end(), too_old_event));
  std::vector<Event> kept;  // only when some are too old: the batch is not copied otherwise
  if (too_old > 0) {
    std::copy_if(events.begin(), events.end(), std::back_inserter(kept),
                 [&too_old_event](const Event& event) { return !too_old_event(event); });
  }
  const std::vector<Event>& stored = too_old > 0 ? kept : events;
  NotificationsStore::Accepted none;
  absl::StatusOr<NotificationsStore::Accepted> accepted =
      stored.empty() ? none
                     : store_->AcceptEvents(
                           stored,
                           [this, now](const Event& event, const Preferences& preferences) {
                             return PlanEvent(event, preferences, now);
                           },
                           now);
  if (!accepted.ok()) return accepted.status();
  if (metrics_ != nullptr) metrics_->Events(accepted->accepted, accepted->duplicates, too_old);
  accepted->duplicates += too_old;
  if (accepted->deliveries > 0 && on_queued_) on_queued_();
  if (accepted->accepted > 0 && inbox_changed_) inbox_changed_();
  return accepted;
}

absl::StatusOr<NotificationsService::Pruned> NotificationsService::Prune() {
  const absl::Time now = clock_();
  Pruned total;
  for (int batch = 0; batch < kPruneBatchesPerCall; ++batch) {
    absl::StatusOr<NotificationsStore::PrunedRows> pruned =
        store_->Prune(now - retention_, now - retention_ - kTurnStateMargin, kPruneBatch);
    if (!pruned.ok()) {
      if (metrics_ != nullptr) metrics_->PruneFailed();
      return pruned.status();
    }
    total.events += pruned->events;
    total.turns += pruned->turns;
    if (metrics_ != nullptr) metrics_->Pruned(pruned->events, pruned->turns);
    if (std::max(pruned->events, pruned->turns) < kPruneBatch) break;
  }
  return total;
}

absl::StatusOr<NotificationsStore::InboxPage> NotificationsService::InboxAfter(
    const std::string& account_id, int64_t after_id) {
  if (after_id < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "after_notification_id must be 0 (from now on) or a notification id; got ", after_id));
  }
  return store_->ListInboxAfter(account_id, after_id, kMaxPageSize);
}

absl::StatusOr<std::map<std::string, NotificationsStore::InboxHead>>
NotificationsService::InboxHeads(const std::vector<std::string>& account_ids) {
  return store_->InboxHeads(account_ids);
}

}  // namespace parlor::notifications
