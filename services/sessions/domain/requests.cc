#include "services/sessions/domain/requests.h"

#include <cstdint>
#include <memory>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "engine/bots/bot.h"
#include "services/common/core/status_macros.h"

namespace parlor::sessions {
namespace {

bool IsLowerHex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

// One seat of a CreateGame request.
absl::StatusOr<SeatRow> CreateGameSeat(const CreateGameRequest& request, int i,
                                       const std::vector<SeatRow>& seated) {
  const SeatSpec& spec = request.seats[i];
  const std::string field = absl::StrCat("seats[", i, "]");
  SeatRow s;
  s.seat = i;
  s.team = spec.team.value_or(-1);
  if (spec.account_id.empty() == spec.bot.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": set exactly one of account_id and bot"));
  }
  if (!spec.account_id.empty()) {
    if (!IsUuid(spec.account_id)) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ".account_id must be a lower-case UUID"));
    }
    for (const SeatRow& other : seated) {
      if (other.account_id == spec.account_id) {
        return absl::InvalidArgumentError(
            absl::StrCat(field, ".account_id is already seated at seat ", other.seat));
      }
    }
    s.account_id = spec.account_id;
    PARLOR_RETURN_IF_ERROR(
        CheckText(absl::StrCat(field, ".display_name"), spec.display_name, kMaxNameLength, true));
    s.display_name = spec.display_name;
  } else {
    if (request.ranked) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ": ranked games cannot have computer seats"));
    }
    absl::StatusOr<std::unique_ptr<bots::Bot>> bot = bots::MakeBot(spec.bot);
    if (!bot.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(field, ".bot: ", bot.status().message()));
    }
    s.bot = spec.bot;
    PARLOR_RETURN_IF_ERROR(
        CheckText(absl::StrCat(field, ".display_name"), spec.display_name, kMaxNameLength, false));
    s.display_name =
        spec.display_name.empty() ? absl::StrCat("Computer (", s.bot, ")") : spec.display_name;
  }
  if (spec.team && (*spec.team < 0 || *spec.team >= kMaxSeats)) {
    return absl::InvalidArgumentError(absl::StrCat(field, ".team must be 0 to 31"));
  }
  return s;
}

}  // namespace

bool IsUuid(absl::string_view s) {
  if (s.size() != 36) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (s[i] != '-') return false;
    } else if (!IsLowerHex(s[i])) {
      return false;
    }
  }
  return true;
}

absl::Status CheckText(absl::string_view field, absl::string_view value, size_t max,
                       bool required) {
  if (value.empty()) {
    if (required) return absl::InvalidArgumentError(absl::StrCat(field, " is required"));
    return absl::OkStatus();
  }
  if (value.size() > max) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, " is too long (", value.size(), " bytes; at most ", max, ")"));
  }
  for (char c : value) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return absl::InvalidArgumentError(absl::StrCat(field, " contains control characters"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckGameAndOptions(const std::string& game,
                                 const std::map<std::string, std::string>& options) {
  if (game.empty()) return absl::InvalidArgumentError("game is required");
  PARLOR_RETURN_IF_ERROR(CheckText("game", game, kMaxNameLength, true));
  for (const auto& [name, value] : options) {
    PARLOR_RETURN_IF_ERROR(CheckText("options: an option name", name, kMaxNameLength, true));
    PARLOR_RETURN_IF_ERROR(
        CheckText(absl::StrCat("options: the value of ", name), value, kMaxNameLength, false));
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> IsPublic(int visibility) {
  if (visibility < 0 || visibility > kVisibilityMax) {
    return absl::InvalidArgumentError(
        "visibility must be VISIBILITY_PRIVATE, VISIBILITY_PUBLIC or unset (private)");
  }
  return visibility == kVisibilityPublic;
}

absl::Status ValidateGameId(absl::string_view game_id) {
  if (game_id.empty()) return absl::InvalidArgumentError("game_id is required");
  if (!IsUuid(game_id)) {
    return absl::InvalidArgumentError("game_id must be a lower-case UUID (as Game.game_id)");
  }
  return absl::OkStatus();
}

absl::Status ValidateSubmit(const SubmitRequest& request) {
  PARLOR_RETURN_IF_ERROR(ValidateGameId(request.game_id));
  PARLOR_RETURN_IF_ERROR(
      CheckText("idempotency_key", request.idempotency_key, kMaxKeyLength, true));
  if (request.expected_version < 0) {
    return absl::InvalidArgumentError("expected_version must be >= 0");
  }
  if (!request.action || request.action->type_url().empty()) {
    return absl::InvalidArgumentError("action is required (an Any holding the game's Action)");
  }
  if (request.action->ByteSizeLong() > kMaxActionBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("action is too large (at most ", kMaxActionBytes, " bytes)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<SeatRow>> CreateGameSeats(const CreateGameRequest& request) {
  std::vector<SeatRow> seats;
  for (int i = 0; i < static_cast<int>(request.seats.size()); ++i) {
    PARLOR_ASSIGN_OR_RETURN(SeatRow s, CreateGameSeat(request, i, seats));
    seats.push_back(std::move(s));
  }
  return seats;
}

absl::StatusOr<ListPage> OpenPage(const PageTokens& tokens, int page_size,
                                  const std::string& page_token, std::string fingerprint) {
  if (page_size < 0 || page_size > 100) {
    return absl::InvalidArgumentError("page_size must be 0 to 100");
  }
  ListPage page;
  page.size = page_size == 0 ? 20 : page_size;
  page.fingerprint = std::move(fingerprint);
  if (page_token.empty()) return page;
  if (page_token.size() > 512) {
    return absl::InvalidArgumentError("page_token is not one this server issued");
  }
  PARLOR_ASSIGN_OR_RETURN(std::string raw, tokens.Decode(page_token, page.fingerprint));
  std::pair<std::string, std::string> parts = absl::StrSplit(raw, absl::MaxSplits('|', 1));
  int64_t micros = 0;
  if (!absl::SimpleAtoi(parts.first, &micros) || !IsUuid(parts.second)) {
    return absl::InvalidArgumentError("page_token is not one this server issued");
  }
  page.cursor = ListCursor{absl::FromUnixMicros(micros), parts.second};
  return page;
}

std::string NextPageToken(const PageTokens& tokens, const ListPage& page,
                          const std::vector<GameRow>& rows, bool more) {
  if (!more || rows.empty()) return "";
  // Both listings sort by the game's updated_at (for a finished game that is its finished_at,
  // which ListMyGames' index holds: the game never changes again).
  return tokens.Encode(
      absl::StrCat(absl::ToUnixMicros(rows.back().updated_at), "|", rows.back().game_id),
      page.fingerprint);
}

}  // namespace parlor::sessions
