#include "services/sessions/domain/sessions.h"

#include <algorithm>
#include <cstring>
#include <set>
#include <utility>

#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/notification.h"
#include "engine/bots/bot.h"
#include "engine/core/rng.h"
#include "services/common/core/crypto.h"
#include "services/common/core/status_macros.h"
#include "services/common/grpc_status.h"
#include "services/sessions/domain/engine_glue.h"
#include "services/sessions/domain/time_control.h"

namespace parlor::sessions {
namespace {

std::string NewUuid() {
  std::string b = RandomBytes(16);
  b[6] = static_cast<char>((b[6] & 0x0f) | 0x40);
  b[8] = static_cast<char>((b[8] & 0x3f) | 0x80);
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    out += kHex[(static_cast<unsigned char>(b[i]) >> 4) & 0xf];
    out += kHex[static_cast<unsigned char>(b[i]) & 0xf];
  }
  return out;
}

// Who looks at a game: its seat, or -1 for a spectator of a public game. A private game is
// only for its seated players.
absl::StatusOr<int> ViewerSeat(const GameRow& row, int seat) {
  if (seat >= 0 || row.is_public) return seat;
  return absl::PermissionDeniedError(
      absl::StrCat("game ", row.game_id, " is private: only its seated players may see it"));
}

// What a viewer sees of the state: a seat's view, the spectator view, or everything once the
// game has ended (the seed is revealed then too, so nothing is hidden any more).
engine::Viewer ViewerFor(int seat, bool finished) {
  if (finished) return engine::Viewer::All();
  return seat >= 0 ? engine::Viewer::Seat(seat) : engine::Viewer::Spectator();
}

// Options that make a game long, bounded in games against the computer (a game's log grows
// with them, and the computer plays most of it). The bound is the game's default.
struct BotGameOptionBound {
  const char* game;
  const char* option;
  int64_t max;
};
constexpr BotGameOptionBound kBotGameOptionBounds[] = {
    {"kadice", "max_rounds", 100},
    {"picadice", "turn_limit_per_seat", 150},
    {"picadice", "match_target", 5},
};

absl::Status CheckBotGameOptions(const engine::Game& game, const engine::Options& options) {
  for (const BotGameOptionBound& bound : kBotGameOptionBounds) {
    if (game.name() != bound.game || options.values().count(bound.option) == 0) continue;
    const int64_t value = options.Get(bound.option);
    if (value > bound.max) {
      return absl::InvalidArgumentError(
          absl::StrCat("options: ", bound.option, " must be at most ", bound.max,
                       " in a game against the computer (got ", value, ")"));
    }
  }
  return absl::OkStatus();
}

// ABORTED for a stale expected_version, carrying both versions (StaleVersionOf) for the API's
// VersionConflict detail.
absl::Status StaleVersion(int64_t expected, int64_t current) {
  absl::Status status = absl::AbortedError(
      absl::StrCat("expected_version ", expected, " is stale: the game is at version ", current));
  status.SetPayload(kStaleVersionPayload, absl::Cord(absl::StrCat(expected, " ", current)));
  return status;
}

// The bot of a CreateBotGame (default "random"): a registered bot, or a level ("easy", "medium",
// "hard") for an engine that does not register the levels: the seat then shows the bot that
// plays, so the game's decisions can still be recomputed from Seat.bot.
absl::StatusOr<std::string> BotOfRequest(const std::string& requested) {
  const std::string bot = requested.empty() ? "random" : requested;
  absl::StatusOr<std::unique_ptr<bots::Bot>> b = bots::MakeBot(bot);
  if (b.ok()) return bot;
  static const std::map<std::string, std::string>* const kLevels =
      new std::map<std::string, std::string>{
          {"easy", "random"}, {"medium", "greedy"}, {"hard", "mc"}};
  auto level = kLevels->find(bot);
  if (level == kLevels->end()) {
    return absl::InvalidArgumentError(absl::StrCat("bot: ", b.status().message()));
  }
  return level->second;
}

// The seats of a game against the computer: the caller at my_seat, `bot` everywhere else.
std::vector<SeatRow> BotGameSeats(const std::string& account_id,
                                  const CreateBotGameRequest& request, const std::string& bot) {
  std::vector<SeatRow> seats;
  for (int i = 0; i < request.num_players; ++i) {
    SeatRow s;
    s.seat = i;
    s.team = -1;
    if (i == request.my_seat) {
      s.account_id = account_id;
      s.display_name = request.display_name.empty() ? "Player" : request.display_name;
    } else {
      s.bot = bot;
      s.display_name = absl::StrCat("Computer (", bot, ")");
    }
    seats.push_back(std::move(s));
  }
  return seats;
}

// `record` (which leaves its log out) with the entries of versions 1..to_version put back from
// the game's log rows `rows` (in version order; rows before version 1 are skipped).
absl::StatusOr<engine::v1::GameRecord> WithLogRows(engine::v1::GameRecord record,
                                                   const std::vector<LogRow>& rows,
                                                   int64_t to_version, absl::string_view game_id) {
  std::vector<std::string> entries;
  for (const LogRow& logged : rows) {
    if (logged.version < 1) continue;
    if (logged.version != static_cast<int64_t>(entries.size()) + 1 || logged.version > to_version) {
      break;
    }
    entries.push_back(logged.entry);
  }
  if (static_cast<int64_t>(entries.size()) != std::max<int64_t>(to_version, 0)) {
    return absl::DataLossError(absl::StrCat("game ", game_id, " has log rows up to version ",
                                            entries.size(), ", not ", to_version));
  }
  return WithLogEntries(std::move(record), entries);
}

}  // namespace

std::optional<StaleVersionDetail> StaleVersionOf(const absl::Status& status) {
  const auto payload = status.GetPayload(kStaleVersionPayload);
  if (!payload) return std::nullopt;
  std::pair<std::string, std::string> parts =
      absl::StrSplit(std::string(*payload), absl::MaxSplits(' ', 1));
  StaleVersionDetail detail;
  if (!absl::SimpleAtoi(parts.first, &detail.expected) ||
      !absl::SimpleAtoi(parts.second, &detail.current)) {
    return std::nullopt;
  }
  return detail;
}

Sessions::Sessions(SessionsStore* store, const engine::Registry* games,
                   std::function<absl::Time()> clock, Options options,
                   prometheus::Registry* registry)
    : store_(store),
      games_(games),
      clock_(std::move(clock)),
      options_(std::move(options)),
      metrics_(registry),
      page_tokens_(options_.page_token_secret),
      states_(options_.state_cache_entries) {
  std::vector<std::string> names;
  for (const engine::Game* game : games_->games()) names.emplace_back(game->name());
  metrics_.DeclareGames(names);
}

void Sessions::OnAutoPlayDue(std::function<void()> wake) {
  std::lock_guard<std::mutex> lock(wake_mu_);
  wake_sweeper_ = std::move(wake);
}

void Sessions::AutoPlayDue() {
  std::lock_guard<std::mutex> lock(wake_mu_);
  if (wake_sweeper_) wake_sweeper_();
}

absl::Status Sessions::ValidateGameId(absl::string_view game_id) {
  return sessions::ValidateGameId(game_id);
}

absl::StatusOr<const engine::Game*> Sessions::FindGame(absl::string_view name) const {
  absl::StatusOr<const engine::Game*> game = games_->Find(name);
  if (!game.ok()) return absl::InvalidArgumentError(game.status().message());
  return game;
}

DecisionContext Sessions::Context(const engine::Game* game) const {
  return DecisionContext{game, clock_(),
                         AutoPlayLimits{options_.auto_moves_per_request, options_.auto_play_budget},
                         options_.snapshot_with_log ? engine::State::LogForm::kHeld
                                                    : engine::State::LogForm::kSetupOnly};
}

absl::StatusOr<std::unique_ptr<engine::State>> Sessions::LockedState(const engine::Game& game,
                                                                     const GameRow& locked) {
  if (std::shared_ptr<const engine::State> loaded = states_.Get(locked.game_id, locked.version)) {
    return loaded->Clone();
  }
  return LoadState(game, locked.snapshot);
}

absl::StatusOr<engine::v1::GameRecord> Sessions::RecordThrough(const GameRow& row,
                                                               int64_t to_version) {
  PARLOR_ASSIGN_OR_RETURN(engine::v1::GameRecord record, ParseRecord(row.snapshot));
  if (record.log_size() == 0) return absl::DataLossError("game record has no setup entry");
  if (record.omitted_entries() == 0) return record;
  to_version = std::min(to_version, row.version);
  std::vector<LogRow> rows;
  if (to_version > 0) {
    PARLOR_ASSIGN_OR_RETURN(rows, store_->GetLog(row.game_id, 1, static_cast<int>(to_version)));
  }
  return WithLogRows(std::move(record), rows, to_version, row.game_id);
}

absl::StatusOr<GameSummary> Sessions::Summary(const GameRow& row, int my_seat) const {
  GameSummary out;
  out.game_id = row.game_id;
  out.game = row.game;
  out.options = row.options;
  out.ranked = row.ranked;
  out.finished = row.finished;
  out.version = row.version;
  const absl::Time now = clock_();
  for (const SeatRow& s : row.seats) {
    SeatSummary& seat = out.seats.emplace_back();
    seat.seat = s.seat;
    seat.account_id = s.account_id;
    seat.display_name = s.display_name;
    seat.team = s.team;
    seat.bot = s.bot;
    seat.forfeited = s.forfeited;
    if (const std::optional<int64_t> bank = RemainingBankMs(s, now)) {
      seat.time_bank_remaining = absl::Milliseconds(*bank);
    }
    seat.vacation_used = absl::Milliseconds(s.vacation_used_ms);
    if (s.vacation_until && *s.vacation_until > now) seat.vacation_until = *s.vacation_until;
    seat.timeouts_in_a_row = s.timeouts_in_a_row;
    if (s.my_turn) out.acting_seats.push_back(s.seat);
  }
  out.my_seat = my_seat;
  out.my_turn = my_seat >= 0 && (row.acting_seats >> my_seat & 1u) != 0;
  out.time_control = row.time_control;
  out.deadline = row.deadline;
  out.seed_commitment = row.seed_commitment;
  if (row.finished) {
    PARLOR_ASSIGN_OR_RETURN(engine::v1::GameRecord record, ParseRecord(row.snapshot));
    PARLOR_ASSIGN_OR_RETURN(engine::Seed seed, engine::Seed::FromBytes(record.seed()));
    out.seed = seed.ToHex();
    out.outcome = Outcome{row.ranks, row.scores, row.end_reason};
  }
  out.create_time = row.created_at;
  out.update_time = row.updated_at;
  out.match_id = row.match_id;
  out.is_public = row.is_public;
  // A rematch is created under the match key "rematch:<the finished game's id>" (table.cc).
  if (absl::StartsWith(row.match_id, "rematch:")) out.rematch_of = row.match_id.substr(8);
  return out;
}

absl::StatusOr<CreatedGame> Sessions::Create(CreateSpec spec) {
  const engine::Game& game = *spec.game;
  NewGameSpec ng;
  PARLOR_ASSIGN_OR_RETURN(ng.options,
                          game.ParseOptions(spec.raw_options, static_cast<int>(spec.seats.size())));
  PARLOR_ASSIGN_OR_RETURN(ng.time_control, ParseTimeControl(spec.time_control));
  PARLOR_ASSIGN_OR_RETURN(ng.seed, engine::Seed::FromBytes(RandomBytes(32)));
  ng.game_id = NewUuid();
  ng.match_id = spec.match_id;
  ng.ranked = spec.ranked;
  ng.is_public = spec.is_public;
  ng.seats = std::move(spec.seats);
  DecisionContext ctx = Context(&game);
  PARLOR_RETURN_IF_ERROR(ShowVacations(ng.seats, ctx.now));
  PARLOR_ASSIGN_OR_RETURN(Decision decision, DecideNewGame(ctx, std::move(ng)));
  Mutation& m = decision.mutation;
  NewGame row;
  row.game = std::move(m.after);
  row.log = std::move(m.log);
  row.request_hash = spec.request_hash;
  row.notifications = std::move(m.notifications);
  // A game the computer played to its end at creation is reported like any other.
  row.result = std::move(m.result);
  row.notify_payload = std::move(m.notify_payload);
  CreatedGame out;
  PARLOR_ASSIGN_OR_RETURN(GameRow stored, store_->CreateGame(row, spec.match_key, &out.created));
  if (out.created && LeavesAutoPlayDue(stored)) AutoPlayDue();
  PARLOR_ASSIGN_OR_RETURN(out.game, Summary(stored, -1));
  return out;
}

absl::StatusOr<CreatedGame> Sessions::CreateGame(const CreateGameRequest& request) {
  PARLOR_RETURN_IF_ERROR(CheckText("match_id", request.match_id, kMaxKeyLength, true));
  PARLOR_RETURN_IF_ERROR(CheckGameAndOptions(request.game, request.options));
  PARLOR_ASSIGN_OR_RETURN(const engine::Game* game, FindGame(request.game));
  const int seats = static_cast<int>(request.seats.size());
  if (seats < 1 || seats > kMaxSeats) {
    return absl::InvalidArgumentError(
        absl::StrCat("seats: between 1 and ", kMaxSeats, " seats are needed (got ", seats, ")"));
  }
  if (!request.time_control) return absl::InvalidArgumentError("time_control is required");
  PARLOR_ASSIGN_OR_RETURN(const bool is_public, IsPublic(request.visibility));
  CreateSpec spec;
  PARLOR_ASSIGN_OR_RETURN(spec.seats, CreateGameSeats(request));
  spec.match_key = request.match_id;
  spec.request_hash = Sha256(request.fingerprint);
  spec.match_id = request.match_id;
  spec.game = game;
  spec.raw_options = request.options;
  spec.ranked = request.ranked;
  spec.is_public = is_public;
  spec.time_control = *request.time_control;
  return Create(std::move(spec));
}

absl::StatusOr<CreatedGame> Sessions::CreateBotGame(const std::string& account_id,
                                                    const CreateBotGameRequest& request) {
  PARLOR_RETURN_IF_ERROR(CheckText("request_id", request.request_id, kMaxKeyLength, true));
  PARLOR_RETURN_IF_ERROR(CheckGameAndOptions(request.game, request.options));
  PARLOR_ASSIGN_OR_RETURN(const engine::Game* game, FindGame(request.game));
  const int n = request.num_players;
  if (n < game->info().min_players || n > game->info().max_players) {
    return absl::InvalidArgumentError(absl::StrCat("num_players must be ", game->info().min_players,
                                                   " to ", game->info().max_players, " for ",
                                                   game->name(), " (got ", n, ")"));
  }
  if (request.my_seat < 0 || request.my_seat >= n) {
    return absl::InvalidArgumentError(absl::StrCat("my_seat must be 0 to ", n - 1));
  }
  PARLOR_ASSIGN_OR_RETURN(const std::string bot, BotOfRequest(request.bot));
  PARLOR_RETURN_IF_ERROR(CheckText("display_name", request.display_name, kMaxNameLength, false));
  CreateSpec spec;
  PARLOR_ASSIGN_OR_RETURN(spec.is_public, IsPublic(request.visibility));
  if (request.time_control) {
    spec.time_control = *request.time_control;
  } else {
    spec.time_control.kind = TimeControlSpec::Kind::kPerMove;
    spec.time_control.per_move_limit = absl::Seconds(7 * kDaySeconds);
  }
  spec.seats = BotGameSeats(account_id, request, bot);
  spec.request_hash = Sha256(absl::StrCat(account_id, "\n", request.fingerprint));
  spec.raw_options = request.options;
  PARLOR_ASSIGN_OR_RETURN(const engine::Options parsed, game->ParseOptions(spec.raw_options, n));
  PARLOR_RETURN_IF_ERROR(CheckBotGameOptions(*game, parsed));
  PARLOR_RETURN_IF_ERROR(ParseTimeControl(spec.time_control).status());
  spec.match_key = absl::StrCat("bot:", account_id, ":", request.request_id);
  spec.game = game;
  // A retry of a request that created its game gets that game whatever the quotas say now.
  PARLOR_ASSIGN_OR_RETURN(const bool retry, store_->MatchExists(spec.match_key));
  if (!retry) PARLOR_RETURN_IF_ERROR(CheckQuotas(account_id));
  absl::StatusOr<CreatedGame> created = Create(std::move(spec));
  if (absl::IsAlreadyExists(created.status())) {
    // The store names its internal key; the caller knows the request id.
    return absl::AlreadyExistsError(
        absl::StrCat("request_id '", request.request_id,
                     "' was already used to create a game with different settings; use a fresh "
                     "request_id for a new game"));
  }
  PARLOR_RETURN_IF_ERROR(created.status());
  CreatedGame out;
  out.created = created->created;
  // The summary for the caller (my_turn, and any computer moves made at creation).
  PARLOR_ASSIGN_OR_RETURN(out.game, SummaryFor(account_id, created->game.game_id));
  return out;
}

absl::Status Sessions::CheckQuotas(const std::string& account_id) {
  if (options_.max_active_games <= 0 && options_.max_bot_games_per_hour <= 0 &&
      options_.max_actions_per_day <= 0) {
    return absl::OkStatus();
  }
  const absl::Time now = clock_();
  PARLOR_ASSIGN_OR_RETURN(
      const SessionsStore::AccountUsage usage,
      store_->GetAccountUsage(account_id, now - absl::Hours(1), now - absl::Hours(24)));
  auto wait_until = [&](std::optional<absl::Time> oldest, absl::Duration window) {
    return std::max(absl::Seconds(1), oldest ? absl::Ceil(*oldest + window - now, absl::Seconds(1))
                                             : absl::Seconds(1));
  };
  if (options_.max_active_games > 0 && usage.active_games >= options_.max_active_games) {
    metrics_.QuotaRefused("active_games");
    return absl::ResourceExhaustedError(
        absl::StrCat("you have ", usage.active_games, " games in progress, the most allowed (",
                     options_.max_active_games, "); finish or resign one before starting another"));
  }
  if (options_.max_bot_games_per_hour > 0 &&
      usage.bot_games_last_hour >= options_.max_bot_games_per_hour) {
    metrics_.QuotaRefused("games_per_hour");
    return WithRetryDelay(absl::ResourceExhaustedError(absl::StrCat(
                              "you have started ", usage.bot_games_last_hour,
                              " games against the computer in the last hour, the most allowed (",
                              options_.max_bot_games_per_hour, "); retry after the delay given")),
                          wait_until(usage.oldest_bot_game_in_hour, absl::Hours(1)));
  }
  if (options_.max_actions_per_day > 0 && usage.actions_last_day >= options_.max_actions_per_day) {
    metrics_.QuotaRefused("actions_per_day");
    return WithRetryDelay(absl::ResourceExhaustedError(absl::StrCat(
                              "your games of the last 24 hours hold ", usage.actions_last_day,
                              " moves, the most allowed (", options_.max_actions_per_day,
                              "); retry after the delay given")),
                          wait_until(usage.oldest_game_in_day, absl::Hours(24)));
  }
  return absl::OkStatus();
}

absl::StatusOr<GameSummary> Sessions::SummaryFor(const std::string& account_id,
                                                 absl::string_view game_id) {
  PARLOR_RETURN_IF_ERROR(ValidateGameId(game_id));
  PARLOR_ASSIGN_OR_RETURN(GameRow row, store_->GetGame(game_id));
  PARLOR_ASSIGN_OR_RETURN(const int seat, ViewerSeat(row, SeatOf(row, account_id)));
  return Summary(row, seat);
}

absl::StatusOr<GameWithView> Sessions::GetGame(const std::string& account_id,
                                               absl::string_view game_id) {
  PARLOR_RETURN_IF_ERROR(ValidateGameId(game_id));
  // With table talk on, the caller's seen version comes in the same read (one round trip).
  int64_t seen = -1;
  PARLOR_ASSIGN_OR_RETURN(GameRow row, options_.table_store != nullptr
                                           ? store_->GetGameSeenBy(game_id, account_id, &seen)
                                           : store_->GetGame(game_id));
  PARLOR_ASSIGN_OR_RETURN(const int seat, ViewerSeat(row, SeatOf(row, account_id)));
  PARLOR_ASSIGN_OR_RETURN(const engine::Game* game, FindGame(row.game));
  PARLOR_ASSIGN_OR_RETURN(std::unique_ptr<engine::State> state, LockedState(*game, row));
  GameWithView out;
  PARLOR_ASSIGN_OR_RETURN(out.game, Summary(row, seat));
  if (options_.table_store != nullptr && out.game.my_seat >= 0) SetSeen(out.game, seen);
  // A seated player keeps its seat's view after the end (as before); a spectator sees the
  // spectator view while the game runs and everything once it has ended.
  out.view =
      ViewAny(*state, seat >= 0 ? engine::Viewer::Seat(seat) : ViewerFor(seat, row.finished));
  if (seat >= 0 && !row.finished && !row.seats[seat].forfeited) {
    out.legal_actions = LegalActionsAny(*state, seat);
  }
  return out;
}

absl::Status Sessions::FillPage(const ListPage& page, const std::string& account_id,
                                std::vector<GameRow> rows, GamePage* out) const {
  const bool more = static_cast<int>(rows.size()) > page.size;
  if (more) rows.resize(page.size);
  for (const GameRow& row : rows) {
    PARLOR_ASSIGN_OR_RETURN(out->games.emplace_back(), Summary(row, SeatOf(row, account_id)));
  }
  out->next_page_token = NextPageToken(page_tokens_, page, rows, more);
  return absl::OkStatus();
}

absl::StatusOr<GamePage> Sessions::ListMyGames(const std::string& account_id,
                                               const MyGamesQuery& query) {
  if (query.filter < 0 || query.filter > kGameFilterMax) {
    return absl::InvalidArgumentError("filter is not a known GameFilter value");
  }
  if (query.order < 0 || query.order > kGameOrderMyTurnFirst) {
    return absl::InvalidArgumentError("order is not a known GameOrder value");
  }
  if (query.order == kGameOrderMyTurnFirst) return ListMyGamesByTurn(account_id, query);
  PARLOR_ASSIGN_OR_RETURN(const ListPage page,
                          OpenPage(page_tokens_, query.page_size, query.page_token,
                                   absl::StrCat(account_id, "/", query.filter)));
  PARLOR_ASSIGN_OR_RETURN(std::vector<GameRow> rows,
                          store_->ListGames(account_id, static_cast<ListFilter>(query.filter),
                                            page.cursor, page.size + 1));
  GamePage out;
  PARLOR_RETURN_IF_ERROR(FillPage(page, account_id, std::move(rows), &out));
  if (query.with_last_move) {
    PARLOR_RETURN_IF_ERROR(AddLastMoves(account_id, absl::MakeSpan(out.games)));
  }
  PARLOR_RETURN_IF_ERROR(AddSeen(account_id, absl::MakeSpan(out.games)));
  return out;
}

absl::StatusOr<GamePage> Sessions::ListPublicGames(const std::string& account_id,
                                                   const PublicGamesQuery& query) {
  if (!query.game.empty()) {
    PARLOR_RETURN_IF_ERROR(CheckText("game", query.game, kMaxNameLength, false));
    PARLOR_RETURN_IF_ERROR(FindGame(query.game).status());
  }
  if (query.status != 0 && query.status != kGameStatusActive &&
      query.status != kGameStatusFinished) {
    return absl::InvalidArgumentError(
        "status must be GAME_STATUS_ACTIVE (or unset) or GAME_STATUS_FINISHED");
  }
  const bool finished = query.status == kGameStatusFinished;
  // Tokens are bound to the listing they continue, not to the caller: a public page is the same
  // for everyone.
  PARLOR_ASSIGN_OR_RETURN(
      const ListPage page,
      OpenPage(page_tokens_, query.page_size, query.page_token,
               absl::StrCat("public/", query.game, "/", finished ? "finished" : "active")));
  PARLOR_ASSIGN_OR_RETURN(
      std::vector<GameRow> rows,
      store_->ListPublicGames(query.game, finished, page.cursor, page.size + 1));
  GamePage out;
  PARLOR_RETURN_IF_ERROR(FillPage(page, account_id, std::move(rows), &out));
  PARLOR_RETURN_IF_ERROR(LeaveOutBlocked(account_id, &out.games));
  return out;
}

absl::Status Sessions::LeaveOutBlocked(const std::string& account_id,
                                       std::vector<GameSummary>* games) const {
  if (!options_.blocked_either_way || games->empty()) return absl::OkStatus();
  // A page may then hold fewer games than asked for; its token still continues after it.
  PARLOR_ASSIGN_OR_RETURN(const std::vector<std::string> blocked,
                          options_.blocked_either_way(account_id));
  if (blocked.empty()) return absl::OkStatus();
  const std::set<std::string> avoid(blocked.begin(), blocked.end());
  auto with_blocked = [&avoid](const GameSummary& game) {
    return std::any_of(game.seats.begin(), game.seats.end(), [&avoid](const SeatSummary& seat) {
      return avoid.contains(seat.account_id);
    });
  };
  games->erase(std::remove_if(games->begin(), games->end(), with_blocked), games->end());
  return absl::OkStatus();
}

absl::StatusOr<MoveAnswer> Sessions::SubmitAction(const std::string& account_id,
                                                  const SubmitRequest& request,
                                                  const AnswerEncoder& encode) {
  absl::Notification finished;
  absl::Status result;
  MoveAnswer answer;
  SubmitActionAsync(account_id, request, encode, &answer, [&](absl::Status status) {
    result = std::move(status);
    finished.Notify();
  });
  finished.WaitForNotification();
  if (!result.ok()) return result;
  return answer;
}

// What the decision and the completion of one SubmitAction share; the caller keeps `request`,
// `encode` and the answer until `done` is called.
struct Sessions::SubmitCall {
  std::string account_id;
  const SubmitRequest* request = nullptr;
  const AnswerEncoder* encode = nullptr;
  std::string hash;
  std::string game_name;
  MoveAnswer answer;
  // The state this change leaves, to keep loaded once (and only if) it has committed.
  std::shared_ptr<const engine::State> committed;
  int64_t committed_version = -1;
  absl::Time started;
  SessionsStore::Decide decide;
  // The decision found no answer under the key and a newer version than expected. When the two
  // copies of one request reach two replicas at once, the second's locked read waits for the
  // first's lock and then sees the newer game row but (READ COMMITTED re-reads only locked rows)
  // not the key the first stored; a second transaction, with a fresh snapshot, finds it.
  bool stale = false;
  bool rechecked = false;
  // The committed change left automatic play due at once (see OnAutoPlayDue).
  bool auto_play_due = false;
};

void Sessions::Commit(const std::shared_ptr<SubmitCall>& call,
                      std::function<void(absl::Status)> finish) {
  const IdempotencyKeyRef key{call->account_id, call->request->idempotency_key};
  if (options_.group_committer != nullptr) {
    options_.group_committer->UpdateAsync("sessions.submit_action", call->request->game_id, key,
                                          call->decide, std::move(finish));
  } else {
    finish(store_->UpdateGame("sessions.submit_action", call->request->game_id, key, call->decide));
  }
}

void Sessions::SubmitActionAsync(const std::string& account_id, const SubmitRequest& request,
                                 const AnswerEncoder& encode, MoveAnswer* answer,
                                 std::function<void(absl::Status)> done) {
  *answer = MoveAnswer{};
  if (absl::Status valid = ValidateSubmit(request); !valid.ok()) {
    done(std::move(valid));
    return;
  }
  auto call = std::make_shared<SubmitCall>();
  call->account_id = account_id;
  call->request = &request;
  call->encode = &encode;
  call->hash = Sha256(absl::StrCat(request.game_id, "\n", request.expected_version, "\n",
                                   Deterministic(*request.action)));
  call->started = absl::Now();
  // The decision holds the call by plain pointer (the call owns it; the completion keeps the
  // call alive until the transaction has finished).
  SubmitCall* const self = call.get();
  call->decide = [this, self](const GameRow& locked, const std::optional<StoredAnswer>& stored) {
    return DecideSubmit(*self, locked, stored);
  };
  auto finish = [this, call, answer, done = std::move(done)](absl::Status status) {
    metrics_.ActionResult(call->game_name.empty() ? "unknown" : call->game_name,
                          GrpcCodeName(static_cast<grpc::StatusCode>(status.code())));
    if (status.ok()) {
      if (call->committed) {
        states_.Put(call->request->game_id, call->committed_version, std::move(call->committed));
      }
      metrics_.CommitDuration(absl::Now() - call->started);
      if (call->auto_play_due) AutoPlayDue();
      *answer = std::move(call->answer);
    }
    done(std::move(status));
  };
  auto first = [this, call, finish = std::move(finish)](absl::Status status) mutable {
    if (absl::IsAborted(status) && call->stale && !call->rechecked) {
      call->rechecked = true;
      Commit(call, std::move(finish));
      return;
    }
    finish(std::move(status));
  };
  Commit(call, std::move(first));
}

absl::StatusOr<std::optional<Mutation>> Sessions::DecideSubmit(
    SubmitCall& call, const GameRow& locked, const std::optional<StoredAnswer>& stored) {
  const SubmitRequest& request = *call.request;
  call.game_name = locked.game;
  call.stale = false;
  call.auto_play_due = false;
  call.answer = MoveAnswer{};
  call.committed.reset();
  const int seat = SeatOf(locked, call.account_id);
  if (seat < 0) return absl::NotFoundError(absl::StrCat("no game with id ", locked.game_id));
  if (stored) {
    if (stored->request_hash != call.hash) {
      return absl::InvalidArgumentError(
          "idempotency_key was already used for a different request; use a fresh key per move");
    }
    call.answer.replayed = stored->response;
    return std::optional<Mutation>();
  }
  if (locked.version != request.expected_version) {
    call.stale = true;
    return StaleVersion(request.expected_version, locked.version);
  }
  PARLOR_RETURN_IF_ERROR(CheckCanMove(locked, seat));
  PARLOR_ASSIGN_OR_RETURN(const engine::Game* game, FindGame(locked.game));
  PARLOR_ASSIGN_OR_RETURN(std::unique_ptr<engine::State> state, LockedState(*game, locked));
  const MoveRequest move{seat, call.account_id, game->ActionFromAny(*request.action)};
  PARLOR_ASSIGN_OR_RETURN(Decision d, DecideMove(Context(game), locked, std::move(state), move));
  Mutation& m = d.mutation;
  GameWithView& fresh = call.answer.fresh;
  PARLOR_ASSIGN_OR_RETURN(fresh.game, Summary(m.after, seat));
  fresh.view = ViewAny(*d.state, engine::Viewer::Seat(seat));
  if (!m.after.finished) fresh.legal_actions = LegalActionsAny(*d.state, seat);
  m.answer = StoredAnswer{call.hash, m.after.version, (*call.encode)(fresh)};
  call.committed_version = m.after.version;
  call.committed = std::move(d.state);
  call.auto_play_due = LeavesAutoPlayDue(m.after);
  return std::optional<Mutation>(std::move(m));
}

absl::StatusOr<GameSummary> Sessions::Resign(const std::string& account_id,
                                             absl::string_view game_id) {
  PARLOR_RETURN_IF_ERROR(ValidateGameId(game_id));
  const std::string id(game_id);
  // Resign carries no expected version, so it decides on the version it read first: when the
  // game changed between that read and the lock, the locked read's seat rows may predate the
  // change (READ COMMITTED re-reads only the locked game row), and the resignation is decided
  // again on fresh rows.
  constexpr int kAttempts = 3;
  for (int attempt = 1;; ++attempt) {
    PARLOR_ASSIGN_OR_RETURN(const GameRow seen, store_->GetGame(id));
    bool changed = false;
    bool auto_play_due = false;
    GameSummary game;
    absl::Status status = store_->UpdateGame(
        "sessions.resign", id, std::nullopt,
        [&](const GameRow& locked, const std::optional<StoredAnswer>&) {
          absl::StatusOr<std::optional<Mutation>> m =
              DecideResignAt(locked, seen.version, account_id, &game, &changed);
          auto_play_due = m.ok() && m->has_value() && LeavesAutoPlayDue((*m)->after);
          return m;
        });
    if (status.ok() && auto_play_due) AutoPlayDue();
    if (!status.ok()) return status;
    if (!changed) return game;
    if (attempt == kAttempts) {
      return absl::AbortedError("the game kept changing while you resigned; try again");
    }
  }
}

absl::StatusOr<std::optional<Mutation>> Sessions::DecideResignAt(const GameRow& locked,
                                                                 int64_t seen,
                                                                 const std::string& account_id,
                                                                 GameSummary* game_after,
                                                                 bool* changed) {
  *changed = false;
  const int seat = SeatOf(locked, account_id);
  if (seat < 0) return absl::NotFoundError(absl::StrCat("no game with id ", locked.game_id));
  PARLOR_RETURN_IF_ERROR(CheckCanResign(locked, seat));
  if (locked.version != seen) {
    *changed = true;
    return std::optional<Mutation>();
  }
  PARLOR_ASSIGN_OR_RETURN(const engine::Game* game, FindGame(locked.game));
  PARLOR_ASSIGN_OR_RETURN(std::unique_ptr<engine::State> state, LoadState(*game, locked.snapshot));
  PARLOR_ASSIGN_OR_RETURN(Decision d,
                          DecideResign(Context(game), locked, std::move(state), seat, account_id));
  PARLOR_ASSIGN_OR_RETURN(*game_after, Summary(d.mutation.after, seat));
  return std::optional<Mutation>(std::move(d.mutation));
}

absl::Status Sessions::WatchEvents(const std::string& account_id, absl::string_view game_id,
                                   int64_t after_version, int limit, std::vector<FeedItem>* out) {
  const HistoryQuery query{std::string(game_id), after_version + 1, limit};
  PARLOR_ASSIGN_OR_RETURN(History history, GetHistory(account_id, query));
  if (history.events.empty()) return absl::OkStatus();
  PARLOR_ASSIGN_OR_RETURN(const GameSummary summary, SummaryFor(account_id, game_id));
  for (HistoryEvent& event : history.events) out->push_back(FeedItem{std::move(event), summary});
  return absl::OkStatus();
}

absl::StatusOr<History> Sessions::GetHistory(const std::string& account_id,
                                             const HistoryQuery& query) {
  PARLOR_RETURN_IF_ERROR(ValidateGameId(query.game_id));
  if (query.from_version < 0) return absl::InvalidArgumentError("from_version must be >= 0");
  if (query.page_size < 0 || query.page_size > 200) {
    return absl::InvalidArgumentError("page_size must be 0 to 200");
  }
  const int page_size = query.page_size == 0 ? 50 : query.page_size;
  PARLOR_ASSIGN_OR_RETURN(GameRow row, store_->GetGame(query.game_id));
  PARLOR_ASSIGN_OR_RETURN(const int seat, ViewerSeat(row, SeatOf(row, account_id)));
  History out;
  out.current_version = row.version;
  if (query.from_version > row.version) return out;
  const int64_t to = std::min<int64_t>(row.version, query.from_version + page_size - 1);
  PARLOR_ASSIGN_OR_RETURN(const engine::Game* game, FindGame(row.game));
  PARLOR_ASSIGN_OR_RETURN(engine::v1::GameRecord record, ParseRecord(row.snapshot));
  // A snapshot without the log needs the entries from version 1 for the replay: the page's rows
  // are read with them, in one read.
  const int64_t read_from =
      record.omitted_entries() == 0 ? query.from_version : std::min<int64_t>(query.from_version, 1);
  PARLOR_ASSIGN_OR_RETURN(
      std::vector<LogRow> log,
      store_->GetLog(query.game_id, read_from, static_cast<int>(to - read_from + 1)));
  if (record.omitted_entries() != 0) {
    PARLOR_ASSIGN_OR_RETURN(record, WithLogRows(std::move(record), log, to, query.game_id));
  }
  const int64_t first = std::max<int64_t>(0, query.from_version - 1);
  PARLOR_ASSIGN_OR_RETURN(std::vector<std::unique_ptr<engine::State>> states,
                          StatesBetween(*game, record, first, to));
  const engine::Viewer viewer = ViewerFor(seat, row.finished);
  for (const LogRow& entry : log) {
    const int64_t v = entry.version;
    if (v < query.from_version) continue;  // read for the replay only
    if (v - first >= static_cast<int64_t>(states.size())) break;
    HistoryEvent& event = out.events.emplace_back();
    event.version = v;
    event.seat = entry.seat;
    event.kind = entry.kind;
    event.cause = entry.cause;
    const engine::State& at = *states[v - first];
    if (v == 0) {
      event.description = "the game was set up";
    } else {
      const engine::v1::LogEntry& logged = record.log(static_cast<int>(v));
      bool revealed = false;
      event.description = DescribeMove(*states[v - first - 1], logged, viewer, &revealed);
      // The typed action beside the words, under the same rule (never a hidden choice).
      if (revealed) event.action = PackAny(*game->ActionToProto(logged.action()));
    }
    // While the game runs, the caller sees its own seat's view (a spectator the spectator
    // view); afterwards, everything.
    event.view = ViewAny(at, viewer);
    event.time = entry.created_at;
  }
  return out;
}

absl::StatusOr<std::vector<PlayerRecord>> Sessions::GetPlayerRecords(
    const std::vector<std::string>& ids) {
  constexpr size_t kMaxAccounts = 100;
  if (ids.empty() || ids.size() > kMaxAccounts) {
    return absl::InvalidArgumentError(absl::StrCat("account_ids: between 1 and ", kMaxAccounts,
                                                   " account ids (got ", ids.size(), ")"));
  }
  for (size_t i = 0; i < ids.size(); ++i) {
    const std::string& id = ids[i];
    if (!IsUuid(id)) {
      return absl::InvalidArgumentError(
          absl::StrCat("account_ids[", i, "]: an account id is a lower-case UUID, got \"",
                       id.substr(0, 64), id.size() > 64 ? "..." : "", "\""));
    }
  }
  PARLOR_ASSIGN_OR_RETURN(std::vector<PlayerRecordRow> rows, store_->GetPlayerRecords(ids));
  std::vector<PlayerRecord> records;
  for (const std::string& id : ids) {
    PlayerRecord& record = records.emplace_back();
    record.account_id = id;
    for (const PlayerRecordRow& row : rows) {
      if (row.account_id != id) continue;
      record.finished = row.finished;
      record.resigned = row.resigned;
      record.timed_out = row.timed_out;
      const int64_t total = row.finished + row.resigned + row.timed_out;
      if (total > 0) {
        record.finish_rate = static_cast<double>(row.finished) / static_cast<double>(total);
      }
    }
  }
  return records;
}

absl::Status Sessions::ShowVacations(std::vector<SeatRow>& seats, absl::Time now) {
  std::vector<std::string> players;
  for (const SeatRow& s : seats) {
    if (!s.account_id.empty()) players.push_back(s.account_id);
  }
  PARLOR_ASSIGN_OR_RETURN(const SessionsStore::VacationsByAccount vacations,
                          store_->GetVacations(players));
  for (SeatRow& s : seats) {
    auto v = vacations.find(s.account_id);
    if (v != vacations.end() && v->second.started_at <= now && now < v->second.ends_at) {
      s.vacation_until = v->second.ends_at;
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<absl::Time> Sessions::StartVacation(const std::string& account_id,
                                                   absl::Duration duration) {
  if (duration < absl::Seconds(kHourSeconds) || duration > absl::Seconds(30 * kDaySeconds) ||
      absl::Trunc(duration, absl::Seconds(1)) != duration) {
    return absl::InvalidArgumentError("duration must be whole seconds from 1 hour to 30 days");
  }
  const absl::Time now = clock_();
  const absl::Time end = now + duration;
  const absl::Duration wanted = duration;
  const absl::Duration yearly = absl::Hours(24) * options_.vacation_days_per_year;
  SessionsStore::VacationChange change;
  change.now = now;
  change.until = end;
  change.counted_since = now - absl::Hours(24 * 365);
  change.check = [&](absl::Duration taken) -> absl::Status {
    if (taken + wanted <= yearly) return absl::OkStatus();
    const absl::Duration left = std::max(absl::ZeroDuration(), yearly - taken);
    return absl::FailedPreconditionError(absl::StrCat(
        "a vacation of ", absl::FormatDuration(wanted), " is more than is left of the yearly ",
        "allowance: vacations started in the last 365 days may total at most ",
        options_.vacation_days_per_year, " days; you have taken ", absl::FormatDuration(taken),
        ", so at most ", absl::FormatDuration(absl::Floor(left, absl::Seconds(1))), " is left"));
  };
  change.decide = [&](const GameRow& locked) {
    return DecideVacation(locked, account_id, now, end);
  };
  PARLOR_RETURN_IF_ERROR(store_->ChangeVacation(account_id, change));
  return end;
}

absl::Status Sessions::EndVacation(const std::string& account_id) {
  const absl::Time now = clock_();
  SessionsStore::VacationChange change;
  change.now = now;
  change.decide = [&](const GameRow& locked) {
    return DecideVacation(locked, account_id, now, std::nullopt);
  };
  return store_->ChangeVacation(account_id, change);
}

}  // namespace parlor::sessions
