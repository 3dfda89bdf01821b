#include "services/notifications/domain/rules.h"

#include <algorithm>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace parlor::notifications {
namespace {

bool AllOf(absl::string_view text, bool (*allowed)(char)) {
  return std::all_of(text.begin(), text.end(), allowed);
}

bool TokenChar(char c) {
  return absl::ascii_isalnum(c) || c == '_' || c == ':' || c == '.' || c == '-';
}
bool AppIdChar(char c) { return absl::ascii_isalnum(c) || c == '_' || c == '.' || c == '-'; }
bool LocaleChar(char c) { return absl::ascii_isalnum(c) || c == '-'; }
bool ZoneChar(char c) {
  return absl::ascii_isalnum(c) || c == '_' || c == '/' || c == '-' || c == '+';
}
bool GameChar(char c) { return absl::ascii_islower(c) || absl::ascii_isdigit(c) || c == '_'; }
bool PrintableChar(char c) { return c > ' ' && c < 0x7f; }

absl::Status Invalid(size_t index, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("events[", index, "].", what));
}

bool IsGameKind(EventKind kind) {
  switch (kind) {
    case EventKind::kYourTurn:
    case EventKind::kReminder:
    case EventKind::kTimeout:
    case EventKind::kGameOver:
    case EventKind::kMatchFound:
    case EventKind::kTurnOver:
      return true;
    default:
      return false;
  }
}

// A player's name as another service sent it: 1-64 bytes (proto3 has already checked the UTF-8),
// no control characters. Bytes are compared unsigned: a signed `char` made every byte of a
// non-ASCII letter negative, and so a control character.
bool IsName(absl::string_view name) {
  return !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte >= 0x20 && byte != 0x7f;
  });
}

// The game's words for a move: 1-200 bytes of text (proto3 has already checked the UTF-8), no
// control characters.
bool IsLastMove(absl::string_view text) {
  return !text.empty() && text.size() <= 200 && std::all_of(text.begin(), text.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte >= 0x20 && byte != 0x7f;
  });
}

bool IsLastMoveKind(EventKind kind) {
  return kind == EventKind::kYourTurn || kind == EventKind::kReminder ||
         kind == EventKind::kGameOver;
}

}  // namespace

const char* PlatformName(Platform platform) {
  switch (platform) {
    case Platform::kApns:
      return "apns";
    case Platform::kFcm:
      return "fcm";
    default:
      return "unspecified";
  }
}

const char* KindName(EventKind kind) {
  switch (kind) {
    case EventKind::kYourTurn:
      return "your_turn";
    case EventKind::kReminder:
      return "reminder";
    case EventKind::kTimeout:
      return "timeout";
    case EventKind::kGameOver:
      return "game_over";
    case EventKind::kMatchFound:
      return "match_found";
    case EventKind::kChallengeReceived:
      return "challenge_received";
    case EventKind::kChallengeAccepted:
      return "challenge_accepted";
    case EventKind::kPartyInvite:
      return "party_invite";
    case EventKind::kTurnOver:
      return "turn_over";
    default:
      return "unspecified";
  }
}

bool IsUuid(absl::string_view id) {
  if (id.size() != 36) return false;
  for (size_t i = 0; i < id.size(); ++i) {
    const char c = id[i];
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (c != '-') return false;
    } else if (!(absl::ascii_isdigit(c) || (c >= 'a' && c <= 'f'))) {
      return false;
    }
  }
  return true;
}

absl::Status ValidateTimeZone(absl::string_view field, absl::string_view time_zone) {
  absl::TimeZone zone;
  if (time_zone.size() > 64 || !AllOf(time_zone, &ZoneChar) || absl::StrContains(time_zone, "..") ||
      absl::StartsWith(time_zone, "/") || !absl::LoadTimeZone(std::string(time_zone), &zone)) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, " \"", time_zone.substr(0, 64),
                     "\" is not an IANA time zone this server knows (e.g. \"Europe/Paris\")"));
  }
  return absl::OkStatus();
}

absl::Status ValidateDevice(Platform platform, absl::string_view token, absl::string_view locale,
                            absl::string_view time_zone, absl::string_view app_id) {
  if (platform != Platform::kApns && platform != Platform::kFcm) {
    return absl::InvalidArgumentError("platform is required: PLATFORM_APNS or PLATFORM_FCM");
  }
  if (token.empty()) return absl::InvalidArgumentError("token is required");
  if (platform == Platform::kApns) {
    if (token.size() < 64 || token.size() > 200 ||
        !AllOf(token, [](char c) { return absl::ascii_isxdigit(c) != 0; })) {
      return absl::InvalidArgumentError(absl::StrCat(
          "token for PLATFORM_APNS must be the device token as 64-200 hex digits; it has ",
          token.size(), " characters"));
    }
  } else if (token.size() < 20 || token.size() > 4096 || !AllOf(token, &TokenChar)) {
    return absl::InvalidArgumentError(
        absl::StrCat("token for PLATFORM_FCM must be the registration token: 20-4096 characters of "
                     "[A-Za-z0-9_:.-]; it has ",
                     token.size(), " characters"));
  }
  if (!locale.empty() &&
      (locale.size() > 35 || !AllOf(locale, &LocaleChar) || !absl::ascii_isalpha(locale[0]))) {
    return absl::InvalidArgumentError(
        "locale must be a BCP 47 language tag such as \"en-GB\" (at most 35 characters of "
        "[A-Za-z0-9-])");
  }
  if (!time_zone.empty()) {
    if (absl::Status zone = ValidateTimeZone("time_zone", time_zone); !zone.ok()) return zone;
  }
  if (app_id.empty()) {
    return absl::InvalidArgumentError(
        "app_id is required: the app's bundle id (APNs topic) or Android package name");
  }
  if (app_id.size() > 255 || !AllOf(app_id, &AppIdChar)) {
    return absl::InvalidArgumentError(
        "app_id must be 1-255 characters of [A-Za-z0-9._-], e.g. \"com.parlor.app\"");
  }
  return absl::OkStatus();
}

absl::Status ValidatePreferences(const Preferences& preferences) {
  if (preferences.muted_game_ids.size() > kMaxMutedGames) {
    return absl::InvalidArgumentError(absl::StrCat("muted_game_ids holds at most ", kMaxMutedGames,
                                                   " games; it has ",
                                                   preferences.muted_game_ids.size()));
  }
  std::set<std::string> games;
  for (const std::string& game_id : preferences.muted_game_ids) {
    if (!IsUuid(game_id)) {
      return absl::InvalidArgumentError(absl::StrCat("muted_game_ids: \"", game_id.substr(0, 40),
                                                     "\" is not a game id (a lower-case UUID)"));
    }
    if (!games.insert(game_id).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("muted_game_ids: ", game_id, " is listed twice"));
    }
  }
  std::set<EventKind> kinds;
  for (EventKind kind : preferences.disabled_kinds) {
    const int number = static_cast<int>(kind);
    if (number <= 0 || number > kMaxEventKind || kind == EventKind::kTurnOver) {
      return absl::InvalidArgumentError(absl::StrCat(
          "disabled_kinds: ", number,
          " is not a kind that is pushed (EVENT_KIND_YOUR_TURN ... EVENT_KIND_PARTY_INVITE)"));
    }
    if (!kinds.insert(kind).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("disabled_kinds: ", KindName(kind), " is listed twice"));
    }
  }
  if (preferences.quiet_hours.has_value()) {
    const QuietHours& q = *preferences.quiet_hours;
    if (q.start_minute < 0 || q.start_minute > 1439 || q.end_minute < 0 || q.end_minute > 1439) {
      return absl::InvalidArgumentError(absl::StrCat(
          "quiet_hours: start_minute and end_minute are minutes after midnight, 0-1439; got ",
          q.start_minute, " and ", q.end_minute));
    }
    if (q.start_minute == q.end_minute) {
      return absl::InvalidArgumentError(
          "quiet_hours: start_minute equals end_minute; leave quiet_hours unset for none");
    }
  }
  return ValidateTimeZone("time_zone", preferences.time_zone);
}

absl::Status ValidateEvent(size_t index, const Event& event) {
  if (event.dedupe_key.empty() || event.dedupe_key.size() > 200 ||
      !AllOf(event.dedupe_key, &PrintableChar)) {
    return Invalid(index, "dedupe_key must be 1-200 printable ASCII characters without spaces");
  }
  if (!IsUuid(event.account_id)) {
    return Invalid(index, "account_id must be an account id (a lower-case UUID)");
  }
  const int kind = static_cast<int>(event.kind);
  if (kind <= 0 || kind > kMaxEventKind) {
    return Invalid(index, absl::StrCat("kind ", kind, " is not an EventKind"));
  }
  if (IsGameKind(event.kind)) {
    if (!IsUuid(event.game_id)) {
      return Invalid(index, absl::StrCat("game_id must be a game id (a lower-case UUID) for ",
                                         KindName(event.kind)));
    }
    if (event.game.empty() || event.game.size() > 32 || !AllOf(event.game, &GameChar)) {
      return Invalid(index, "game must be the game's name, e.g. \"pico\"");
    }
    if (event.version < 0) return Invalid(index, "version must be >= 0");
  } else if (!event.game_id.empty() && !IsUuid(event.game_id)) {
    return Invalid(index, "game_id must be empty or a game id (a lower-case UUID)");
  } else if (!event.game.empty() && (event.game.size() > 32 || !AllOf(event.game, &GameChar))) {
    return Invalid(index, "game must be empty or the game's name, e.g. \"pico\"");
  }
  if (event.opponent_names.size() > kMaxOpponentNames) {
    return Invalid(index, absl::StrCat("opponent_names holds at most ", kMaxOpponentNames,
                                       " names; it has ", event.opponent_names.size()));
  }
  for (const std::string& name : event.opponent_names) {
    if (!IsName(name)) return Invalid(index, "opponent_names: each name is 1-64 characters");
  }
  const bool needs_from = event.kind == EventKind::kChallengeReceived ||
                          event.kind == EventKind::kChallengeAccepted ||
                          event.kind == EventKind::kPartyInvite;
  if (needs_from ? !IsName(event.from_name)
                 : !event.from_name.empty() && !IsName(event.from_name)) {
    return Invalid(index,
                   absl::StrCat("from_name must be 1-64 characters",
                                needs_from ? absl::StrCat(" for ", KindName(event.kind)) : ""));
  }
  if (!event.last_move_player.empty() && !IsName(event.last_move_player)) {
    return Invalid(index, "last_move.player_name must be empty or 1-64 characters");
  }
  if (!event.last_move.empty() && !IsLastMove(event.last_move)) {
    return Invalid(index, "last_move.description must be empty or 1-200 characters (UTF-8)");
  }
  if (!event.last_move_player.empty() && event.last_move.empty()) {
    return Invalid(index, "last_move.description is required when last_move.player_name is set");
  }
  if (!event.last_move.empty() && !IsLastMoveKind(event.kind)) {
    return Invalid(index, absl::StrCat("last_move is only for your_turn, reminder and game_over, "
                                       "not ",
                                       KindName(event.kind)));
  }
  if (event.kind == EventKind::kPartyInvite && !IsUuid(event.party_id)) {
    return Invalid(index, "party_id must be a party id (a lower-case UUID) for party_invite");
  }
  if (event.commit_time.has_value() && event.expire_time.has_value() &&
      *event.expire_time < *event.commit_time) {
    return Invalid(index, "expire_time is before commit_time");
  }
  return absl::OkStatus();
}

std::string GameTitle(absl::string_view game) {
  if (game == "kadice") return "KA'DICE";
  if (game.empty()) return "";
  std::string title(game);
  title[0] = absl::ascii_toupper(title[0]);
  return title;
}

Content BuildContent(const Event& event) {
  Content content;
  const std::string kind = KindName(event.kind);
  content.title_loc_key = absl::StrCat(kind, ".title");
  const std::string opponents = absl::StrJoin(event.opponent_names, ", ");
  const std::string title = GameTitle(event.game);
  switch (event.kind) {
    case EventKind::kYourTurn:
    case EventKind::kReminder:
    case EventKind::kGameOver:
    case EventKind::kMatchFound:
      // "Your turn in Pico against Tess"; "..._solo" when nobody else is named.
      if (opponents.empty()) {
        content.loc_key = absl::StrCat(kind, ".body_solo");
        content.loc_args = {title};
      } else {
        content.loc_key = absl::StrCat(kind, ".body");
        content.loc_args = {title, opponents};
      }
      break;
    case EventKind::kTimeout:
    case EventKind::kTurnOver:
      content.loc_key = absl::StrCat(kind, ".body");
      content.loc_args = {title};
      break;
    case EventKind::kChallengeReceived:
    case EventKind::kChallengeAccepted:
      // "Tess challenges you to Pico" / "Tess accepted your challenge to Pico".
      content.loc_key = absl::StrCat(kind, title.empty() ? ".body_any" : ".body");
      content.loc_args = {event.from_name};
      if (!title.empty()) content.loc_args.push_back(title);
      break;
    case EventKind::kPartyInvite:
      content.loc_key = absl::StrCat(kind, ".body");
      content.loc_args = {event.from_name};
      break;
    default:
      content.loc_key = absl::StrCat(kind, ".body");
      break;
  }
  if (IsLastMoveKind(event.kind)) {
    content.last_move_player = event.last_move_player;
    content.last_move = event.last_move;
  }
  if (!event.game_id.empty()) {
    content.deep_link = absl::StrCat("parlor://game/", event.game_id, "?version=", event.version);
  } else if (event.kind == EventKind::kPartyInvite) {
    content.deep_link = absl::StrCat("parlor://party/", event.party_id);
  } else if (event.kind == EventKind::kChallengeReceived ||
             event.kind == EventKind::kChallengeAccepted) {
    content.deep_link = "parlor://challenges";
  } else {
    content.deep_link = "parlor://home";
  }
  return content;
}

std::string LastMoveLine(const Content& content) {
  if (content.last_move.empty() || content.last_move_player.empty()) return content.last_move;
  return absl::StrCat(content.last_move_player, ": ", content.last_move);
}

absl::Time ReminderDueTime(const Preferences& preferences, absl::Time now) {
  if (!preferences.quiet_hours.has_value()) return now;
  absl::TimeZone zone;
  if (!absl::LoadTimeZone(preferences.time_zone, &zone)) zone = absl::UTCTimeZone();
  const absl::CivilSecond local = absl::ToCivilSecond(now, zone);
  const int minute = local.hour() * 60 + local.minute();
  const int start = preferences.quiet_hours->start_minute;
  const int end = preferences.quiet_hours->end_minute;
  const bool quiet =
      start < end ? (minute >= start && minute < end) : (minute >= start || minute < end);
  if (!quiet) return now;
  // The next local time at `end` (today, or tomorrow when it has passed).
  absl::CivilDay day = absl::CivilDay(local);
  if (minute >= end) day += 1;
  const absl::CivilMinute end_time(day.year(), day.month(), day.day(), end / 60, end % 60);
  return absl::FromCivil(end_time, zone);
}

bool WantsPush(const Preferences& preferences, EventKind kind, absl::string_view game_id) {
  if (kind == EventKind::kTurnOver) return false;
  for (EventKind disabled : preferences.disabled_kinds) {
    if (disabled == kind) return false;
  }
  if (!game_id.empty()) {
    for (const std::string& muted : preferences.muted_game_ids) {
      if (muted == game_id) return false;
    }
  }
  return true;
}

}  // namespace parlor::notifications
