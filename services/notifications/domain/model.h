#ifndef PARLOR_SERVICES_NOTIFICATIONS_DOMAIN_MODEL_H_
#define PARLOR_SERVICES_NOTIFICATIONS_DOMAIN_MODEL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"

// What the notifications service keeps and sends, without any proto or SQL type. The numbers of
// Platform and EventKind are those of parlor.notifications.v1 (and of the database columns).
namespace parlor::notifications {

enum class Platform { kUnspecified = 0, kApns = 1, kFcm = 2 };

enum class EventKind {
  kUnspecified = 0,
  kYourTurn = 1,
  kReminder = 2,
  kTimeout = 3,
  kGameOver = 4,
  kMatchFound = 5,
  kChallengeReceived = 6,
  kChallengeAccepted = 7,
  kPartyInvite = 8,
  kTurnOver = 9,
};
inline constexpr int kMaxEventKind = 9;

// "apns", "fcm": metric labels and logs.
const char* PlatformName(Platform platform);
// "your_turn", "reminder", ...: loc keys, metric labels and logs.
const char* KindName(EventKind kind);

struct Device {
  std::string device_id;
  std::string account_id;
  Platform platform = Platform::kUnspecified;
  std::string token;
  std::string locale;
  std::string time_zone;
  std::string app_id;
  bool sandbox = false;
  absl::Time create_time;
  absl::Time update_time;
};

struct QuietHours {
  int start_minute = 0;  // 0-1439, local time
  int end_minute = 0;
};

struct Preferences {
  std::vector<std::string> muted_game_ids;
  std::vector<EventKind> disabled_kinds;
  std::optional<QuietHours> quiet_hours;
  std::string time_zone = "UTC";
};

// An event as another service hands it over (AcceptEvents).
struct Event {
  std::string dedupe_key;
  std::string account_id;
  EventKind kind = EventKind::kUnspecified;
  std::string game_id;
  std::string game;
  int64_t version = 0;
  std::vector<std::string> opponent_names;
  std::string from_name;
  std::string party_id;
  std::optional<absl::Time> commit_time;
  std::optional<absl::Time> expire_time;
  // The game's last move as this account may see it (your turn, reminder, game over).
  std::string last_move_player;
  std::string last_move;
};

// What a device shows: localizable text, where it leads, how it groups. Built from the event
// alone (see BuildContent), so it never holds anything the event did not say.
struct Content {
  std::string title_loc_key;
  std::string loc_key;
  std::vector<std::string> loc_args;
  std::string deep_link;
  // The game's last move (the APNs subtitle "Tess: play the 7 of cups"); empty when the event
  // named none.
  std::string last_move_player;
  std::string last_move;
};

// One inbox entry.
struct Notification {
  int64_t notification_id = 0;
  EventKind kind = EventKind::kUnspecified;
  Content content;
  std::string game_id;
  std::string game;
  int64_t version = 0;
  absl::Time create_time;
  bool read = false;
};

// One push to one device, as the delivery queue hands it to a sender.
struct Push {
  int64_t delivery_id = 0;
  int attempts = 0;  // including this one
  Device device;
  EventKind kind = EventKind::kUnspecified;
  std::string game_id;
  int64_t version = 0;
  Content content;
  int badge = 0;
  // Groups a game's pushes on the device (APNs thread-id, Android tag): the game id, or the
  // kind for events without a game.
  std::string thread_id;
  // A newer push of the same collapse id replaces an older one not yet shown (APNs
  // apns-collapse-id, FCM collapse_key): one per game and kind.
  std::string collapse_id;
  absl::Time commit_time;
  std::optional<absl::Time> expire_time;
  std::string dedupe_key;
};

}  // namespace parlor::notifications

#endif  // PARLOR_SERVICES_NOTIFICATIONS_DOMAIN_MODEL_H_
