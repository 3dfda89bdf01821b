// Table talk: what players do around a game besides moving. Chat (with reports and blocks),
// rematch offers, nudges and the versions each player has seen; every RPC here reads the game
// for who may do what and writes through PgTableStore.
#include <algorithm>
#include <set>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "services/common/core/crypto.h"
#include "services/common/core/logging.h"
#include "services/common/core/status_macros.h"
#include "services/common/grpc_status.h"
#include "services/sessions/domain/sessions.h"
#include "services/sessions/domain/time_control.h"

namespace parlor::sessions {
namespace {

constexpr size_t kMaxChatCodePoints = 500;
constexpr size_t kMaxReasonCodePoints = 500;
constexpr int kDefaultChatPage = 50;
constexpr int kMaxChatPage = 100;
// accounts' CheckBlocks takes at most 16 ids: the reader and 15 senders per call.
constexpr size_t kSendersPerBlockCheck = 15;
constexpr absl::string_view kRematchKeyPrefix = "rematch:";

std::string Json(absl::string_view s) { return absl::StrCat("\"", JsonEscape(s), "\""); }

// The number of code points of valid UTF-8 text, or -1 when it is not valid UTF-8 or holds a
// control character other than a newline.
int64_t CountText(absl::string_view text) {
  int64_t n = 0;
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    size_t len = 1;
    if (c < 0x80) {
      if ((c < 0x20 && c != '\n') || c == 0x7f) return -1;
    } else if ((c & 0xe0) == 0xc0 && c >= 0xc2) {
      len = 2;
    } else if ((c & 0xf0) == 0xe0) {
      len = 3;
    } else if ((c & 0xf8) == 0xf0 && c <= 0xf4) {
      len = 4;
    } else {
      return -1;
    }
    if (i + len > text.size()) return -1;
    for (size_t k = 1; k < len; ++k) {
      if ((static_cast<unsigned char>(text[i + k]) & 0xc0) != 0x80) return -1;
    }
    i += len;
    ++n;
  }
  return n;
}

absl::Status CheckFreeText(absl::string_view field, absl::string_view text, size_t max,
                           bool required) {
  const int64_t n = CountText(text);
  if (n < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, " must be UTF-8 text without control characters (newlines are allowed)"));
  }
  if ((required && n == 0) || n > static_cast<int64_t>(max)) {
    return absl::InvalidArgumentError(absl::StrCat(field, " must be ", required ? 1 : 0, " to ",
                                                   max, " characters (got ", n, ")"));
  }
  return absl::OkStatus();
}

// The accounts seated in the game (player seats only), in seat order.
std::vector<std::string> Players(const GameRow& row) {
  std::vector<std::string> out;
  for (const SeatRow& s : row.seats) {
    if (!s.account_id.empty()) out.push_back(s.account_id);
  }
  return out;
}

bool HasComputerSeat(const GameRow& row) {
  return std::any_of(row.seats.begin(), row.seats.end(),
                     [](const SeatRow& s) { return !s.bot.empty(); });
}

bool Pending(const RematchRow& o, absl::Time now) {
  return o.declined_by.empty() && o.new_game_id.empty() && now < o.expires_at;
}

bool AllAccepted(const RematchRow& o, const GameRow& row) {
  for (const std::string& player : Players(row)) {
    if (std::find(o.accepted_by.begin(), o.accepted_by.end(), player) == o.accepted_by.end()) {
      return false;
    }
  }
  return true;
}

ChatMessage MessageOf(const ChatRow& c) {
  return ChatMessage{c.message_id, c.game_id,      c.seat,      c.account_id,
                     c.text,       c.game_version, c.created_at};
}

Rematch RematchOf(const RematchRow& o, absl::Time now) {
  Rematch r;
  r.game_id = o.game_id;
  r.offered_by_account_id = o.offered_by;
  r.accepted_account_ids = o.accepted_by;
  r.declined = !o.declined_by.empty();
  r.offer_time = o.offered_at;
  r.expire_time = o.expires_at;
  r.new_game_id = o.new_game_id;
  r.pending = Pending(o, now);
  return r;
}

// A push about `row` to seat `to`: the game, its opponents by name, who it is from and, when set,
// when telling is pointless (`expires`).
NotificationRow Push(const GameRow& row, const SeatRow& to, absl::string_view kind,
                     std::string dedupe, absl::string_view from_name,
                     std::optional<absl::Time> expires) {
  NotificationRow n;
  n.account_id = to.account_id;
  n.kind = std::string(kind);
  n.version = row.version;
  n.dedupe_key = std::move(dedupe);
  std::vector<std::string> opponents;
  for (const SeatRow& other : row.seats) {
    if (other.seat != to.seat && other.team != to.team)
      opponents.push_back(Json(other.display_name));
  }
  n.payload_json = absl::StrCat(
      "{\"game_id\":", Json(row.game_id), ",\"game\":", Json(row.game),
      ",\"version\":", row.version, ",\"seat\":", to.seat, ",\"from_name\":", Json(from_name),
      ",\"opponents\":[", absl::StrJoin(opponents, ","), "]",
      expires ? absl::StrCat(",\"expires_at_us\":", absl::ToUnixMicros(*expires)) : "", "}");
  return n;
}

// The change announced on the streams' channel: the game's seated accounts hear it.
std::string NotifyPayload(const GameRow& row) {
  return absl::StrCat(row.game_id, ":", row.version, ":", absl::StrJoin(Players(row), ","));
}

absl::Status NotSeated(const GameRow& row) {
  return absl::NotFoundError(absl::StrCat("no game with id ", row.game_id));
}

absl::Status PrivateGame(const GameRow& row) {
  return absl::PermissionDeniedError(
      absl::StrCat("game ", row.game_id, " is private: only its seated players may see it"));
}

}  // namespace

absl::StatusOr<PgTableStore*> Sessions::TableStore() const {
  if (options_.table_store == nullptr) {
    return absl::UnavailableError("chat, rematches, nudges and seen versions are not set up here");
  }
  return options_.table_store;
}

absl::StatusOr<int64_t> Sessions::LatestChatId() {
  PARLOR_ASSIGN_OR_RETURN(PgTableStore * table, TableStore());
  return table->LatestChatId();
}

absl::Status Sessions::HideBlocked(const std::string& reader, const GameRow& row,
                                   std::vector<ChatRow>* messages) const {
  if (!options_.check_blocks || messages->empty()) return absl::OkStatus();
  std::set<std::string> senders;
  for (const ChatRow& m : *messages) {
    if (m.account_id != reader) senders.insert(m.account_id);
  }
  if (senders.empty()) return absl::OkStatus();
  std::set<std::string> blocked;  // senders the reader blocked
  std::vector<std::string> batch;
  auto check = [&]() -> absl::Status {
    std::vector<std::string> ids = {reader};
    ids.insert(ids.end(), batch.begin(), batch.end());
    absl::StatusOr<std::vector<std::pair<std::string, std::string>>> blocks =
        options_.check_blocks(ids);
    if (!blocks.ok()) {
      return absl::UnavailableError(absl::StrCat(
          "the chat of game ", row.game_id, " cannot be shown now: blocks could not be checked (",
          blocks.status().message(), ")"));
    }
    for (const auto& [blocker, blocked_id] : *blocks) {
      if (blocker == reader) blocked.insert(blocked_id);
    }
    batch.clear();
    return absl::OkStatus();
  };
  for (const std::string& sender : senders) {
    batch.push_back(sender);
    if (batch.size() == kSendersPerBlockCheck) PARLOR_RETURN_IF_ERROR(check());
  }
  if (!batch.empty()) PARLOR_RETURN_IF_ERROR(check());
  if (blocked.empty()) return absl::OkStatus();
  messages->erase(std::remove_if(messages->begin(), messages->end(),
                                 [&](const ChatRow& m) { return blocked.contains(m.account_id); }),
                  messages->end());
  return absl::OkStatus();
}

absl::StatusOr<ChatMessage> Sessions::SendChatMessage(const std::string& account_id,
                                                      absl::string_view game_id,
                                                      const std::string& text) {
  PARLOR_RETURN_IF_ERROR(ValidateGameId(game_id));
  PARLOR_RETURN_IF_ERROR(CheckFreeText("text", text, kMaxChatCodePoints, true));
  PARLOR_ASSIGN_OR_RETURN(PgTableStore * table, TableStore());
  PARLOR_ASSIGN_OR_RETURN(const GameRow row, store_->GetGame(game_id));
  const int seat = SeatOf(row, account_id);
  if (seat < 0) {
    if (!row.is_public) return PrivateGame(row);
    return absl::PermissionDeniedError(absl::StrCat(
        "only the seated players write in the chat of game ", row.game_id, "; spectators read it"));
  }
  const absl::Time now = clock_();
  ChatRow message;
  message.game_id = row.game_id;
  message.seat = seat;
  message.account_id = account_id;
  message.text = text;
  message.game_version = row.version;
  message.created_at = now;
  absl::Time retry_at;
  absl::StatusOr<ChatRow> stored =
      table->InsertChat(message, now - options_.chat_window, options_.chat_messages_per_window,
                        options_.chat_window, NotifyPayload(row), &retry_at);
  if (absl::IsResourceExhausted(stored.status())) {
    return WithRetryDelay(stored.status(), std::max(retry_at - now, absl::Seconds(1)));
  }
  if (!stored.ok()) return stored.status();
  return MessageOf(*stored);
}

absl::StatusOr<ChatPage> Sessions::ListChatMessages(const std::string& account_id,
                                                    const ChatQuery& query) {
  PARLOR_RETURN_IF_ERROR(ValidateGameId(query.game_id));
  if (query.page_size < 0 || query.page_size > kMaxChatPage) {
    return absl::InvalidArgumentError(
        absl::StrCat("page_size must be 0 to ", kMaxChatPage, " (0: ", kDefaultChatPage, ")"));
  }
  if (query.before_message_id < 0) {
    return absl::InvalidArgumentError(
        "before_message_id must be 0 (the newest page) or a message id from a previous page");
  }
  const int size = query.page_size == 0 ? kDefaultChatPage : query.page_size;
  PARLOR_ASSIGN_OR_RETURN(PgTableStore * table, TableStore());
  PARLOR_ASSIGN_OR_RETURN(const GameRow row, store_->GetGame(query.game_id));
  if (SeatOf(row, account_id) < 0 && !row.is_public) return PrivateGame(row);
  PARLOR_ASSIGN_OR_RETURN(std::vector<ChatRow> messages,
                          table->ListChat(row.game_id, 0, query.before_message_id,
                                          /*newest_first=*/true, size + 1));
  ChatPage page;
  if (static_cast<int>(messages.size()) > size) {
    messages.resize(size);
    page.next_before_message_id = messages.back().message_id;
  }
  PARLOR_RETURN_IF_ERROR(HideBlocked(account_id, row, &messages));
  for (const ChatRow& m : messages) page.messages.push_back(MessageOf(m));
  return page;
}

absl::Status Sessions::ChatAfter(const std::string& account_id, absl::string_view game_id,
                                 int64_t after_id, int limit, std::vector<ChatMessage>* out,
                                 int64_t* read_to) {
  *read_to = after_id;
  PARLOR_ASSIGN_OR_RETURN(PgTableStore * table, TableStore());
  PARLOR_ASSIGN_OR_RETURN(const GameRow row, store_->GetGame(game_id));
  if (SeatOf(row, account_id) < 0 && !row.is_public) return PrivateGame(row);
  PARLOR_ASSIGN_OR_RETURN(std::vector<ChatRow> messages,
                          table->ListChat(row.game_id, after_id, 0, /*newest_first=*/false, limit));
  const int64_t last = messages.empty() ? after_id : messages.back().message_id;
  PARLOR_RETURN_IF_ERROR(HideBlocked(account_id, row, &messages));
  for (const ChatRow& m : messages) out->push_back(MessageOf(m));
  *read_to = last;
  return absl::OkStatus();
}

absl::Status Sessions::ReportChatMessage(const std::string& account_id, const std::string& game_id,
                                         int64_t message_id, const std::string& reason) {
  PARLOR_RETURN_IF_ERROR(ValidateGameId(game_id));
  if (message_id <= 0) {
    return absl::InvalidArgumentError("message_id must be the id of a message of the game (> 0)");
  }
  PARLOR_RETURN_IF_ERROR(CheckFreeText("reason", reason, kMaxReasonCodePoints, false));
  PARLOR_ASSIGN_OR_RETURN(PgTableStore * table, TableStore());
  PARLOR_ASSIGN_OR_RETURN(const GameRow row, store_->GetGame(game_id));
  if (SeatOf(row, account_id) < 0 && !row.is_public) return PrivateGame(row);
  PARLOR_ASSIGN_OR_RETURN(ChatRow message, table->GetChat(row.game_id, message_id));
  if (message.account_id == account_id) {
    return absl::InvalidArgumentError("message_id names your own message; report others' only");
  }
  std::vector<ChatRow> shown = {message};
  PARLOR_RETURN_IF_ERROR(HideBlocked(account_id, row, &shown));
  if (shown.empty()) {
    // As if it did not exist: the reader never saw it.
    return absl::NotFoundError(
        absl::StrCat("game ", row.game_id, " has no chat message with id ", message_id));
  }
  return table->InsertReport(message.message_id, account_id, reason, clock_());
}

absl::StatusOr<GameSummary> Sessions::CreateRematch(const GameRow& row, int my_seat) {
  PARLOR_ASSIGN_OR_RETURN(const engine::Game* game, FindGame(row.game));
  CreateSpec spec;
  spec.match_key = absl::StrCat(kRematchKeyPrefix, row.game_id);
  spec.request_hash = Sha256(spec.match_key);
  spec.match_id = spec.match_key;
  spec.game = game;
  spec.raw_options = row.options;
  const int n = static_cast<int>(row.seats.size());
  // The first seat rotated: the player of old seat i + 1 sits at seat i, old seat 0 last.
  for (int i = 0; i < n; ++i) {
    const SeatRow& old = row.seats[(i + 1) % n];
    SeatRow s;
    s.seat = i;
    s.account_id = old.account_id;
    s.display_name = old.display_name;
    s.team = -1;  // whatever the game's options make of the new seat
    spec.seats.push_back(std::move(s));
  }
  spec.ranked = row.ranked;
  spec.is_public = row.is_public;
  spec.time_control = TimeControlOf(row.time_control);
  PARLOR_ASSIGN_OR_RETURN(CreatedGame created, Create(std::move(spec)));
  GameSummary out = std::move(created.game);
  if (my_seat >= 0 && n > 0) {
    const int seat = (my_seat - 1 + n) % n;
    out.my_seat = seat;
    out.my_turn =
        std::find(out.acting_seats.begin(), out.acting_seats.end(), seat) != out.acting_seats.end();
  }
  return out;
}

namespace {

// What RematchStepFor does for each rematch RPC (see Sessions::RematchCall).
constexpr int kOffer = 0;
constexpr int kAccept = 1;
constexpr int kDecline = 2;

// DeclineRematch on the locked offer: the pending offer declined, nothing for a retry.
absl::Status DeclineStep(const GameRow& row, const std::string& account_id, bool pending,
                         const std::optional<RematchRow>& locked,
                         std::optional<PgTableStore::RematchChange>* change) {
  if (!pending) {
    if (locked && locked->declined_by == account_id) return absl::OkStatus();  // a retry
    return absl::FailedPreconditionError(
        absl::StrCat("no rematch offer of game ", row.game_id,
                     " is pending (none was made, it was declined, or it expired)"));
  }
  PgTableStore::RematchChange c;
  c.offer = *locked;
  c.offer.declined_by = account_id;
  *change = std::move(c);
  return absl::OkStatus();
}

// A new offer by `account_id` (none yet, or the last one was declined or expired); the other
// players are told.
PgTableStore::RematchChange NewOffer(const GameRow& row, const std::string& account_id,
                                     absl::Time now, absl::Duration ttl) {
  PgTableStore::RematchChange c;
  c.offer.game_id = row.game_id;
  c.offer.offered_by = account_id;
  c.offer.accepted_by = {account_id};
  c.offer.offered_at = now;
  c.offer.expires_at = now + ttl;
  const int from = SeatOf(row, account_id);
  const std::string from_name = from >= 0 ? row.seats[from].display_name : "";
  for (const SeatRow& s : row.seats) {
    if (s.account_id.empty() || s.account_id == account_id) continue;
    c.pushes.push_back(
        Push(row, s, "rematch_offer",
             absl::StrCat("rematch:", row.game_id, ":", absl::ToUnixMicros(now), ":", s.seat),
             from_name, c.offer.expires_at));
  }
  return c;
}

// One rematch RPC's change of the locked offer: *change stays empty when nothing changes (a
// retry, or an offer every player accepted already).
absl::Status RematchStepFor(int step, const GameRow& row, const std::string& account_id,
                            absl::Time now, absl::Duration ttl,
                            const std::optional<RematchRow>& locked,
                            std::optional<PgTableStore::RematchChange>* change) {
  change->reset();
  const bool pending = locked && Pending(*locked, now);
  const bool accepted_by_all =
      locked && locked->declined_by.empty() &&
      (!locked->new_game_id.empty() || (now < locked->expires_at && AllAccepted(*locked, row)));
  if (accepted_by_all) {
    if (step == kDecline) {
      return absl::FailedPreconditionError(
          absl::StrCat("every player accepted the rematch of game ", row.game_id));
    }
    return absl::OkStatus();
  }
  if (step == kDecline) return DeclineStep(row, account_id, pending, locked, change);
  if (!pending) {
    if (step == kAccept) {
      return absl::FailedPreconditionError(absl::StrCat(
          "no rematch offer of game ", row.game_id,
          " is pending (none was made, it was declined, or it expired); offer one instead"));
    }
    *change = NewOffer(row, account_id, now, ttl);
    return absl::OkStatus();
  }
  const bool mine = std::find(locked->accepted_by.begin(), locked->accepted_by.end(), account_id) !=
                    locked->accepted_by.end();
  if (mine) return absl::OkStatus();  // a retry, or offering one's own pending offer again
  // Accepting (or offering what the others offered).
  PgTableStore::RematchChange c;
  c.offer = *locked;
  c.offer.accepted_by.push_back(account_id);
  *change = std::move(c);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<RematchAnswer> Sessions::RematchCall(int step, const std::string& account_id,
                                                    const std::string& game_id) {
  PARLOR_RETURN_IF_ERROR(ValidateGameId(game_id));
  PARLOR_ASSIGN_OR_RETURN(PgTableStore * table, TableStore());
  PARLOR_ASSIGN_OR_RETURN(const GameRow row, store_->GetGame(game_id));
  const int seat = SeatOf(row, account_id);
  if (seat < 0) return NotSeated(row);
  if (!row.finished) {
    return absl::FailedPreconditionError(
        absl::StrCat("game ", row.game_id, " has not ended: a rematch is offered once it has"));
  }
  if (HasComputerSeat(row)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "game ", row.game_id, " has computer seats: start a new game against the computer"));
  }
  const absl::Time now = clock_();
  std::optional<RematchRow> after;
  PARLOR_RETURN_IF_ERROR(table->UpdateRematch(
      row.game_id, now,
      [&](const std::optional<RematchRow>& locked)
          -> absl::StatusOr<std::optional<PgTableStore::RematchChange>> {
        std::optional<PgTableStore::RematchChange> change;
        PARLOR_RETURN_IF_ERROR(RematchStepFor(step, row, account_id, now,
                                              options_.rematch_offer_ttl, locked, &change));
        after = change ? std::optional<RematchRow>(change->offer) : locked;
        return change;
      }));
  RematchAnswer result;
  if (!after) return result;
  if (after->declined_by.empty() && (!after->new_game_id.empty() || AllAccepted(*after, row))) {
    // Every player accepted: the new game (created at most once, under its match key).
    PARLOR_ASSIGN_OR_RETURN(GameSummary game, CreateRematch(row, seat));
    if (after->new_game_id.empty()) {
      const std::string new_game_id = game.game_id;
      PARLOR_RETURN_IF_ERROR(table->UpdateRematch(
          row.game_id, now,
          [&](const std::optional<RematchRow>& locked)
              -> absl::StatusOr<std::optional<PgTableStore::RematchChange>> {
            if (!locked) return absl::InternalError("the accepted rematch offer disappeared");
            PgTableStore::RematchChange c;
            c.offer = *locked;
            c.offer.new_game_id = new_game_id;
            return std::optional<PgTableStore::RematchChange>(std::move(c));
          }));
      after->new_game_id = new_game_id;
    }
    result.game = std::move(game);
  }
  result.rematch = RematchOf(*after, now);
  return result;
}

absl::StatusOr<RematchAnswer> Sessions::OfferRematch(const std::string& account_id,
                                                     const std::string& game_id) {
  return RematchCall(kOffer, account_id, game_id);
}

absl::StatusOr<RematchAnswer> Sessions::AcceptRematch(const std::string& account_id,
                                                      const std::string& game_id) {
  return RematchCall(kAccept, account_id, game_id);
}

absl::StatusOr<Rematch> Sessions::DeclineRematch(const std::string& account_id,
                                                 const std::string& game_id) {
  PARLOR_ASSIGN_OR_RETURN(RematchAnswer r, RematchCall(kDecline, account_id, game_id));
  return std::move(r.rematch);
}

absl::StatusOr<std::optional<Rematch>> Sessions::GetRematch(const std::string& account_id,
                                                            const std::string& game_id) {
  PARLOR_RETURN_IF_ERROR(ValidateGameId(game_id));
  PARLOR_ASSIGN_OR_RETURN(PgTableStore * table, TableStore());
  PARLOR_ASSIGN_OR_RETURN(const GameRow row, store_->GetGame(game_id));
  if (SeatOf(row, account_id) < 0) return NotSeated(row);
  PARLOR_ASSIGN_OR_RETURN(std::optional<RematchRow> offer, table->GetRematch(row.game_id));
  if (!offer) return std::optional<Rematch>();
  return std::optional<Rematch>(RematchOf(*offer, clock_()));
}

absl::StatusOr<absl::Time> Sessions::Nudge(const std::string& account_id,
                                           const std::string& game_id) {
  PARLOR_RETURN_IF_ERROR(ValidateGameId(game_id));
  PARLOR_ASSIGN_OR_RETURN(PgTableStore * table, TableStore());
  PARLOR_ASSIGN_OR_RETURN(const GameRow row, store_->GetGame(game_id));
  const int seat = SeatOf(row, account_id);
  if (seat < 0) return NotSeated(row);
  if (row.finished) {
    return absl::FailedPreconditionError(
        absl::StrCat("game ", row.game_id, " has ended: there is nobody to nudge"));
  }
  if ((row.acting_seats >> seat & 1u) != 0) {
    return absl::FailedPreconditionError(absl::StrCat("it is your turn in game ", row.game_id,
                                                      ": nobody is waiting for anyone else"));
  }
  const absl::Time now = clock_();
  std::vector<NotificationRow> pushes;
  for (const SeatRow& s : row.seats) {
    if ((row.acting_seats >> s.seat & 1u) == 0 || s.account_id.empty() || s.forfeited ||
        s.account_id == account_id) {
      continue;
    }
    pushes.push_back(
        Push(row, s, "nudge",
             absl::StrCat("nudge:", row.game_id, ":", absl::ToUnixMicros(now), ":", s.seat),
             row.seats[seat].display_name, s.deadline));
  }
  if (pushes.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "only computer-played seats are to act in game ", row.game_id, ": nobody to nudge"));
  }
  PARLOR_ASSIGN_OR_RETURN(
      std::optional<absl::Time> next,
      table->TryNudge(row.game_id, account_id, row.version, now, options_.nudge_period, pushes));
  if (next) {
    return WithRetryDelay(
        absl::ResourceExhaustedError(absl::StrCat(
            "game ", row.game_id, " was nudged less than ",
            absl::FormatDuration(options_.nudge_period), " ago; the next nudge is possible at ",
            absl::FormatTime(absl::RFC3339_sec, *next, absl::UTCTimeZone()))),
        std::max(*next - now, absl::Seconds(1)));
  }
  return now + options_.nudge_period;
}

absl::Status Sessions::MarkSeen(const std::string& account_id, const std::string& game_id,
                                int64_t version) {
  PARLOR_RETURN_IF_ERROR(ValidateGameId(game_id));
  if (version < 0) {
    return absl::InvalidArgumentError("version must be >= 0 (a version the caller has seen)");
  }
  PARLOR_ASSIGN_OR_RETURN(PgTableStore * table, TableStore());
  PARLOR_ASSIGN_OR_RETURN(const GameRow row, store_->GetGame(game_id));
  if (SeatOf(row, account_id) < 0) return NotSeated(row);
  if (version > row.version) {
    return absl::OutOfRangeError(
        absl::StrCat("version ", version, " is beyond the game's version ", row.version));
  }
  return table->MarkSeen(row.game_id, account_id, version, clock_());
}

absl::StatusOr<GamePage> Sessions::ListMyGamesByTurn(const std::string& account_id,
                                                     const MyGamesQuery& query) {
  PARLOR_ASSIGN_OR_RETURN(PgTableStore * table, TableStore());
  PARLOR_ASSIGN_OR_RETURN(const ListPage page,
                          OpenPage(page_tokens_, query.page_size, query.page_token,
                                   absl::StrCat(account_id, "/", query.filter, "/my-turn-first")));
  // The cursor's time holds the sort key (microseconds), as the token only carries a number.
  std::optional<std::pair<int64_t, std::string>> after;
  if (page.cursor) after.emplace(absl::ToUnixMicros(page.cursor->updated_at), page.cursor->game_id);
  PARLOR_ASSIGN_OR_RETURN(auto ids,
                          table->ListGameIdsByTurn(account_id, query.filter, after, page.size + 1));
  const bool more = static_cast<int>(ids.size()) > page.size;
  if (more) ids.resize(page.size);
  std::vector<std::string> game_ids;
  for (const auto& id : ids) game_ids.push_back(id.second);
  PARLOR_ASSIGN_OR_RETURN(std::vector<GameRow> rows, store_->GetGames(game_ids));
  // Games are never deleted, so every listed id was read.
  if (rows.size() != ids.size()) return absl::InternalError("a listed game could not be read");
  GamePage out;
  for (size_t i = 0; i < rows.size(); ++i) {
    PARLOR_ASSIGN_OR_RETURN(out.games.emplace_back(),
                            Summary(rows[i], SeatOf(rows[i], account_id)));
    // NextPageToken takes the last row's updated_at as the cursor's key.
    rows[i].updated_at = absl::FromUnixMicros(ids[i].first);
  }
  out.next_page_token = NextPageToken(page_tokens_, page, rows, more);
  if (query.with_last_move) {
    PARLOR_RETURN_IF_ERROR(AddLastMoves(account_id, absl::MakeSpan(out.games)));
  }
  PARLOR_RETURN_IF_ERROR(AddSeen(account_id, absl::MakeSpan(out.games)));
  return out;
}

absl::Status Sessions::AddLastMoves(const std::string& account_id, absl::Span<GameSummary> games) {
  for (GameSummary& g : games) {
    if (g.my_seat < 0) continue;
    PARLOR_ASSIGN_OR_RETURN(History history,
                            GetHistory(account_id, HistoryQuery{g.game_id, g.version, 1}));
    if (history.events.empty()) continue;
    g.last_move = std::move(history.events[0]);
    g.last_move->view.reset();
  }
  return absl::OkStatus();
}

absl::Status Sessions::AddSeen(const std::string& account_id, absl::Span<GameSummary> games) const {
  if (options_.table_store == nullptr) return absl::OkStatus();
  std::vector<std::string> ids;
  for (const GameSummary& g : games) {
    if (g.my_seat >= 0) ids.push_back(g.game_id);
  }
  if (ids.empty()) return absl::OkStatus();
  PARLOR_ASSIGN_OR_RETURN(const auto seen, options_.table_store->SeenVersions(account_id, ids));
  for (GameSummary& g : games) {
    if (g.my_seat < 0) continue;
    auto it = seen.find(g.game_id);
    SetSeen(g, it == seen.end() ? -1 : it->second);
  }
  return absl::OkStatus();
}

void Sessions::SetSeen(GameSummary& game, int64_t seen_version) {
  game.seen_version = seen_version;
  game.unseen_versions = game.version - seen_version;
}

}  // namespace parlor::sessions
