#ifndef PARLOR_SERVICES_NOTIFICATIONS_DOMAIN_RULES_H_
#define PARLOR_SERVICES_NOTIFICATIONS_DOMAIN_RULES_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "services/notifications/domain/model.h"

// Input rules and the pure functions of the service: what a push says (loc keys and arguments
// per kind and game), when a reminder may go out (quiet hours). No I/O.
namespace parlor::notifications {

inline constexpr size_t kMaxMutedGames = 200;
inline constexpr size_t kMaxEventsPerRequest = 500;
inline constexpr size_t kMaxOpponentNames = 8;

// Lower-case UUIDs (account ids, device ids, game ids).
bool IsUuid(absl::string_view id);

// RegisterDevice's fields. `time_zone` and `locale` may be empty (defaults apply).
absl::Status ValidateDevice(Platform platform, absl::string_view token, absl::string_view locale,
                            absl::string_view time_zone, absl::string_view app_id);
// An IANA time zone name the server knows ("Europe/Paris", "UTC").
absl::Status ValidateTimeZone(absl::string_view field, absl::string_view time_zone);
absl::Status ValidatePreferences(const Preferences& preferences);
// Event `index` of an AcceptEvents request; the message names both.
absl::Status ValidateEvent(size_t index, const Event& event);

// The game's name as players read it ("pico" -> "Pico", "kadice" -> "KA'DICE").
std::string GameTitle(absl::string_view game);

// What the device shows for `event`: loc keys "<kind>.title" and "<kind>.body" with the
// arguments the body's text needs, and the deep link. Only what the event says goes in.
Content BuildContent(const Event& event);

// The last move as one line: "Tess: play the 7 of cups", or the game's words alone when nobody
// is named. Empty when the content has no last move.
std::string LastMoveLine(const Content& content);

// When a reminder accepted at `now` may go out: `now`, or the end of the player's quiet hours
// when `now` falls inside them (in the preferences' time zone).
absl::Time ReminderDueTime(const Preferences& preferences, absl::Time now);

// Whether the player wants `kind` pushes about `game_id` (muted games and disabled kinds still
// reach the inbox).
bool WantsPush(const Preferences& preferences, EventKind kind, absl::string_view game_id);

}  // namespace parlor::notifications

#endif  // PARLOR_SERVICES_NOTIFICATIONS_DOMAIN_RULES_H_
