#include "services/sessions/api/mapping.h"

#include <utility>

#include "google/protobuf/util/time_util.h"

namespace parlor::sessions {

using google::protobuf::util::TimeUtil;

absl::Duration FromProto(const google::protobuf::Duration& d) {
  return absl::Seconds(d.seconds()) + absl::Nanoseconds(d.nanos());
}

google::protobuf::Timestamp ToProto(absl::Time t) {
  return TimeUtil::MicrosecondsToTimestamp(absl::ToUnixMicros(t));
}

absl::Time FromProto(const google::protobuf::Timestamp& t) {
  return absl::FromUnixSeconds(t.seconds()) + absl::Nanoseconds(t.nanos());
}

namespace {

google::protobuf::Duration DurationProto(absl::Duration d) {
  return TimeUtil::MillisecondsToDuration(absl::ToInt64Milliseconds(d));
}

}  // namespace

TimeControlSpec FromProto(const v1::TimeControl& tc) {
  TimeControlSpec out;
  out.vacation_days = tc.vacation_days();
  switch (tc.kind_case()) {
    case v1::TimeControl::kPerMove:
      out.kind = TimeControlSpec::Kind::kPerMove;
      out.per_move_limit = FromProto(tc.per_move().limit());
      break;
    case v1::TimeControl::kTimeBank:
      out.kind = TimeControlSpec::Kind::kTimeBank;
      out.bank_initial = FromProto(tc.time_bank().initial());
      out.bank_increment = FromProto(tc.time_bank().increment());
      break;
    default:
      out.kind = TimeControlSpec::Kind::kUnset;
  }
  return out;
}

CreateGameRequest FromProto(const v1::CreateGameRequest& request) {
  CreateGameRequest out;
  out.match_id = request.match_id();
  out.game = request.game();
  out.options = {request.options().begin(), request.options().end()};
  for (const v1::SeatSpec& spec : request.seats()) {
    SeatSpec& seat = out.seats.emplace_back();
    seat.account_id = spec.account_id();
    seat.display_name = spec.display_name();
    if (spec.has_team()) seat.team = spec.team();
    seat.bot = spec.bot();
  }
  out.ranked = request.ranked();
  if (request.has_time_control()) out.time_control = FromProto(request.time_control());
  out.visibility = request.visibility();
  out.fingerprint = Deterministic(request);
  return out;
}

CreateBotGameRequest FromProto(const v1::CreateBotGameRequest& request) {
  CreateBotGameRequest out;
  out.request_id = request.request_id();
  out.game = request.game();
  out.options = {request.options().begin(), request.options().end()};
  out.num_players = request.num_players();
  out.my_seat = request.my_seat();
  out.bot = request.bot();
  out.display_name = request.display_name();
  if (request.has_time_control()) out.time_control = FromProto(request.time_control());
  out.visibility = request.visibility();
  out.fingerprint = Deterministic(request);
  return out;
}

SubmitRequest FromProto(const v1::SubmitActionRequest& request) {
  SubmitRequest out;
  out.game_id = request.game_id();
  out.expected_version = request.expected_version();
  out.idempotency_key = request.idempotency_key();
  if (request.has_action()) out.action = request.action();
  return out;
}

MyGamesQuery FromProto(const v1::ListMyGamesRequest& request) {
  MyGamesQuery out;
  out.filter = request.filter();
  out.order = request.order();
  out.with_last_move = request.with_last_move();
  out.page_size = request.page_size();
  out.page_token = request.page_token();
  return out;
}

PublicGamesQuery FromProto(const v1::ListPublicGamesRequest& request) {
  PublicGamesQuery out;
  out.game = request.game();
  out.status = request.status();
  out.page_size = request.page_size();
  out.page_token = request.page_token();
  return out;
}

HistoryQuery FromProto(const v1::GetHistoryRequest& request) {
  return HistoryQuery{request.game_id(), request.from_version(), request.page_size()};
}

ChatQuery FromProto(const v1::ListChatMessagesRequest& request) {
  return ChatQuery{request.game_id(), request.page_size(), request.before_message_id()};
}

void ToProto(const PlayerRecord& record, v1::PlayerRecord* out) {
  out->set_account_id(record.account_id);
  out->set_finished(static_cast<int32_t>(record.finished));
  out->set_resigned(static_cast<int32_t>(record.resigned));
  out->set_timed_out(static_cast<int32_t>(record.timed_out));
  out->set_finish_rate(record.finish_rate);
}

v1::TimeControl ToProto(const TimeControlRow& row) {
  v1::TimeControl tc;
  tc.set_vacation_days(row.vacation_days);
  if (row.kind == TimeControlRow::Kind::kPerMove) {
    tc.mutable_per_move()->mutable_limit()->set_seconds(row.per_move_s);
  } else {
    tc.mutable_time_bank()->mutable_initial()->set_seconds(row.bank_initial_s);
    tc.mutable_time_bank()->mutable_increment()->set_seconds(row.bank_increment_s);
  }
  return tc;
}

v1::EventKind ToProto(LogRow::Kind kind) {
  switch (kind) {
    case LogRow::Kind::kSetup:
      return v1::EVENT_KIND_SETUP;
    case LogRow::Kind::kAction:
      return v1::EVENT_KIND_ACTION;
    case LogRow::Kind::kForfeit:
      return v1::EVENT_KIND_FORFEIT;
  }
  return v1::EVENT_KIND_UNSPECIFIED;
}

v1::EventCause ToProto(LogRow::Cause cause) {
  switch (cause) {
    case LogRow::Cause::kSystem:
      return v1::EVENT_CAUSE_SYSTEM;
    case LogRow::Cause::kPlayer:
      return v1::EVENT_CAUSE_PLAYER;
    case LogRow::Cause::kBot:
      return v1::EVENT_CAUSE_BOT;
    case LogRow::Cause::kTimeout:
      return v1::EVENT_CAUSE_TIMEOUT;
  }
  return v1::EVENT_CAUSE_UNSPECIFIED;
}

void ToProto(const HistoryEvent& event, v1::HistoryEvent* out) {
  out->set_version(event.version);
  out->set_kind(ToProto(event.kind));
  out->set_cause(ToProto(event.cause));
  out->set_seat(event.seat);
  out->set_description(event.description);
  if (event.view) *out->mutable_view() = *event.view;
  *out->mutable_time() = ToProto(event.time);
  if (event.action) *out->mutable_action() = *event.action;
}

void ToProto(const GameSummary& game, v1::Game* out) {
  out->set_game_id(game.game_id);
  out->set_game(game.game);
  for (const auto& [k, v] : game.options) (*out->mutable_options())[k] = v;
  out->set_ranked(game.ranked);
  out->set_status(game.finished ? v1::GAME_STATUS_FINISHED : v1::GAME_STATUS_ACTIVE);
  out->set_version(game.version);
  for (const SeatSummary& s : game.seats) {
    v1::Seat* seat = out->add_seats();
    seat->set_seat(s.seat);
    seat->set_account_id(s.account_id);
    seat->set_display_name(s.display_name);
    seat->set_team(s.team);
    seat->set_bot(s.bot);
    seat->set_forfeited(s.forfeited);
    if (s.time_bank_remaining) {
      *seat->mutable_time_bank_remaining() = DurationProto(*s.time_bank_remaining);
    }
    *seat->mutable_vacation_used() = DurationProto(s.vacation_used);
    if (s.vacation_until) *seat->mutable_vacation_until() = ToProto(*s.vacation_until);
    seat->set_timeouts_in_a_row(s.timeouts_in_a_row);
  }
  for (int seat : game.acting_seats) out->add_acting_seats(seat);
  out->set_my_seat(game.my_seat);
  out->set_my_turn(game.my_turn);
  *out->mutable_time_control() = ToProto(game.time_control);
  if (game.deadline) *out->mutable_deadline() = ToProto(*game.deadline);
  out->set_seed_commitment(game.seed_commitment);
  out->set_seed(game.seed);
  if (game.outcome) {
    v1::Outcome* outcome = out->mutable_outcome();
    for (int r : game.outcome->ranks) outcome->add_ranks(r);
    for (int64_t s : game.outcome->scores) outcome->add_scores(s);
    outcome->set_reason(game.outcome->reason);
  }
  *out->mutable_create_time() = ToProto(game.create_time);
  *out->mutable_update_time() = ToProto(game.update_time);
  out->set_match_id(game.match_id);
  out->set_visibility(game.is_public ? v1::VISIBILITY_PUBLIC : v1::VISIBILITY_PRIVATE);
  out->set_rematch_of(game.rematch_of);
  out->set_seen_version(game.seen_version);
  out->set_unseen_versions(game.unseen_versions);
  if (game.last_move) ToProto(*game.last_move, out->mutable_last_move());
}

v1::Game ToProto(const GameSummary& game) {
  v1::Game out;
  ToProto(game, &out);
  return out;
}

void ToProto(const FeedItem& item, v1::WatchGameResponse* out) {
  ToProto(item.event, out->mutable_event());
  ToProto(item.game, out->mutable_game());
}

void ToProto(const ChatMessage& message, v1::ChatMessage* out) {
  out->set_message_id(message.message_id);
  out->set_game_id(message.game_id);
  out->set_seat(message.seat);
  out->set_account_id(message.account_id);
  out->set_text(message.text);
  out->set_game_version(message.game_version);
  *out->mutable_create_time() = ToProto(message.created_at);
}

void ToProto(const Rematch& rematch, v1::Rematch* out) {
  out->set_game_id(rematch.game_id);
  out->set_offered_by_account_id(rematch.offered_by_account_id);
  for (const std::string& a : rematch.accepted_account_ids) out->add_accepted_account_ids(a);
  out->set_declined(rematch.declined);
  *out->mutable_offer_time() = ToProto(rematch.offer_time);
  *out->mutable_expire_time() = ToProto(rematch.expire_time);
  out->set_new_game_id(rematch.new_game_id);
  out->set_pending(rematch.pending);
}

void ToProto(const GameWithView& game, v1::GetGameResponse* out) {
  ToProto(game.game, out->mutable_game());
  *out->mutable_view() = game.view;
  for (const google::protobuf::Any& a : game.legal_actions) *out->add_legal_actions() = a;
}

void ToProto(const GameWithView& game, v1::SubmitActionResponse* out) {
  ToProto(game.game, out->mutable_game());
  *out->mutable_view() = game.view;
  for (const google::protobuf::Any& a : game.legal_actions) *out->add_legal_actions() = a;
}

}  // namespace parlor::sessions
