#include "services/matchmaking/api/matchmaking_api.h"

#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/time_util.h"
#include "services/common/core/thread_name.h"
#include "services/common/grpc_status.h"
#include "services/matchmaking/domain/catalog.h"
#include "services/matchmaking/domain/properties.h"

namespace parlor::matchmaking {
namespace {

using google::protobuf::util::TimeUtil;

void ToProto(absl::Time time, google::protobuf::Timestamp* out) {
  *out = TimeUtil::MicrosecondsToTimestamp(absl::ToUnixMicros(time));
}

void OptionsToProto(const std::string& canonical,
                    google::protobuf::Map<std::string, std::string>* out) {
  if (canonical == "-") return;
  for (const auto& [name, value] : GameCatalog::ParseCanonical(canonical)) (*out)[name] = value;
}

v1::TicketState ToProto(TicketState state) {
  switch (state) {
    case TicketState::kWaiting:
      return v1::TICKET_STATE_WAITING;
    case TicketState::kMatched:
      return v1::TICKET_STATE_MATCHED;
    case TicketState::kCancelled:
      return v1::TICKET_STATE_CANCELLED;
    case TicketState::kExpired:
      return v1::TICKET_STATE_EXPIRED;
  }
  return v1::TICKET_STATE_UNSPECIFIED;
}

v1::ChallengeState ToProto(ChallengeState state) {
  switch (state) {
    case ChallengeState::kOpen:
      return v1::CHALLENGE_STATE_OPEN;
    case ChallengeState::kAccepted:
      return v1::CHALLENGE_STATE_ACCEPTED;
    case ChallengeState::kDeclined:
      return v1::CHALLENGE_STATE_DECLINED;
    case ChallengeState::kExpired:
      return v1::CHALLENGE_STATE_EXPIRED;
  }
  return v1::CHALLENGE_STATE_UNSPECIFIED;
}

void ToProto(const PartyRow& party, v1::Party* out) {
  out->set_party_id(party.party_id);
  out->set_code(party.code);
  out->set_leader_account_id(party.leader_id);
  for (const std::string& m : party.members) out->add_member_account_ids(m);
  out->set_max_size(party.max_size);
  ToProto(party.create_time, out->mutable_create_time());
}

void ToProto(const PartyInviteRow& invite, v1::PartyInvite* out) {
  out->set_party_id(invite.party_id);
  out->set_inviter_account_id(invite.inviter_id);
  out->set_invitee_account_id(invite.account_id);
  out->set_leader_account_id(invite.leader_id);
  for (const std::string& m : invite.members) out->add_member_account_ids(m);
  out->set_max_size(invite.max_size);
  ToProto(invite.create_time, out->mutable_create_time());
  ToProto(invite.expire_time, out->mutable_expire_time());
}

void ToProto(const ChallengeRow& c, v1::Challenge* out) {
  out->set_challenge_id(c.challenge_id);
  out->set_challenger_account_id(c.challenger_id);
  out->set_game(c.game);
  OptionsToProto(c.options, out->mutable_options());
  out->set_ranked(c.ranked);
  out->set_player_count(c.player_count);
  out->set_invite_code(c.invite_code);
  for (const ChallengePlayer& p : c.players) {
    v1::ChallengeParticipant* participant = out->add_participants();
    participant->set_account_id(p.account_id);
    participant->set_accepted(p.accepted);
  }
  out->set_state(ToProto(c.state));
  out->set_match_id(c.match_id);
  out->set_game_id(c.game_id);
  ToProto(c.create_time, out->mutable_create_time());
  ToProto(c.expire_time, out->mutable_expire_time());
  out->set_time_control(static_cast<v1::TimeControl>(TimeControlNamed(c.time_control).number));
  out->set_visibility(static_cast<v1::GameVisibility>(VisibilityNumber(c.visibility)));
}

// A stream refused before it started (bad credential).
class RefusedWatch final : public grpc::ServerWriteReactor<v1::WatchMyTicketsResponse> {
 public:
  explicit RefusedWatch(const absl::Status& status) { Finish(ToGrpcStatus(status)); }
  void OnDone() override { delete this; }
};

}  // namespace

namespace {

// The request's region, language, properties and requirements, as the domain takes them.
absl::Status PropertiesFromProto(const v1::EnqueueRequest& request, EnqueueInput* input) {
  for (const auto& [key, value] : request.string_properties()) {
    if (key == "region" || key == "language") {
      return absl::InvalidArgumentError(absl::StrCat("string_properties[\"", key,
                                                     "\"]: set the "
                                                     "request's own ",
                                                     key, " field instead"));
    }
    input->properties.strings[key] = value;
  }
  if (!request.region().empty()) input->properties.strings["region"] = request.region();
  if (!request.language().empty()) input->properties.strings["language"] = request.language();
  input->properties.numbers.insert(request.number_properties().begin(),
                                   request.number_properties().end());
  for (int i = 0; i < request.requirements_size(); ++i) {
    const v1::OpponentRequirement& r = request.requirements(i);
    Requirement out;
    out.property = r.property();
    switch (r.rule_case()) {
      case v1::OpponentRequirement::kSame:
        if (!r.same()) {
          return absl::InvalidArgumentError(
              absl::StrCat("requirements[", i, "].same: set it to true (or use one_of / range)"));
        }
        out.kind = Requirement::Kind::kSame;
        break;
      case v1::OpponentRequirement::kOneOf:
        out.kind = Requirement::Kind::kIn;
        out.values.assign(r.one_of().values().begin(), r.one_of().values().end());
        break;
      case v1::OpponentRequirement::kRange:
        out.kind = Requirement::Kind::kRange;
        out.min = r.range().min();
        out.max = r.range().max();
        break;
      default:
        return absl::InvalidArgumentError(
            absl::StrCat("requirements[", i, "]: set one rule: same, one_of or range"));
    }
    input->requirements.push_back(std::move(out));
  }
  return absl::OkStatus();
}

}  // namespace

void ToProto(const TicketRow& t, v1::Ticket* out) {
  out->set_ticket_id(t.ticket_id);
  out->set_game(t.game);
  OptionsToProto(t.options, out->mutable_options());
  out->set_ranked(t.ranked);
  for (int n : t.player_counts) out->add_player_counts(n);
  out->set_party_id(t.party_id);
  for (const std::string& m : t.members) out->add_account_ids(m);
  out->set_state(ToProto(t.state));
  out->set_match_id(t.match_id);
  out->set_game_id(t.game_id);
  ToProto(t.create_time, out->mutable_create_time());
  ToProto(t.expire_time, out->mutable_expire_time());
  ToProto(t.update_time, out->mutable_update_time());
  out->set_time_control(static_cast<v1::TimeControl>(TimeControlNamed(t.time_control).number));
  out->set_visibility(static_cast<v1::GameVisibility>(VisibilityNumber(t.visibility)));
  if (absl::StatusOr<TicketProperties> p = ParseProperties(t.properties); p.ok()) {
    for (const auto& [key, value] : p->strings) {
      if (key == "region") {
        out->set_region(value);
      } else if (key == "language") {
        out->set_language(value);
      } else {
        (*out->mutable_string_properties())[key] = value;
      }
    }
    out->mutable_number_properties()->insert(p->numbers.begin(), p->numbers.end());
  }
  if (absl::StatusOr<std::vector<Requirement>> rs = ParseRequirements(t.requirements); rs.ok()) {
    for (const Requirement& r : *rs) {
      v1::OpponentRequirement* req = out->add_requirements();
      req->set_property(r.property);
      switch (r.kind) {
        case Requirement::Kind::kSame:
          req->set_same(true);
          break;
        case Requirement::Kind::kIn:
          for (const std::string& v : r.values) req->mutable_one_of()->add_values(v);
          break;
        case Requirement::Kind::kRange:
          req->mutable_range()->set_min(r.min);
          req->mutable_range()->set_max(r.max);
          break;
      }
    }
  }
}

// One WatchMyTickets stream. The hub polls every open stream with one statement per round (one
// query per stream and second cost a worker and a PostgreSQL round trip each, ~1,000 a second at
// 1,000 streams, competing with Enqueue): it claims the stream (busy), takes its question, and
// hands it the answer through Deliver(), which queues every ticket whose state, game or update
// time differs from what was last sent. The stream's first round reads its player's history;
// after it, the stream remembers the tickets that can still change (not final) so that later
// rounds read only those and the tickets added since. The reactor deletes itself once gRPC is
// done with it and no round holds it.
class TicketWatch final : public grpc::ServerWriteReactor<v1::WatchMyTicketsResponse> {
 public:
  TicketWatch(WatchHub* hub, std::string account_id, absl::Time now)
      : hub_(hub), account_id_(std::move(account_id)), cursor_(now) {
    hub_->Add(this);  // due: the hub polls it at once
  }

  const std::string& account_id() const { return account_id_; }

  // Called by the hub under its lock: the stream is to be polled before the next round of all
  // (new, or its player's tickets just changed).
  void MarkDue() {
    std::lock_guard<std::mutex> lock(mu_);
    due_ = true;
  }

  // Called by the hub under its lock: claims the next poll unless one is running or, when
  // `only_due`, the stream is not due. `query` gets the stream's question for the round.
  bool TryClaim(bool only_due, TicketWatchQuery* query) {
    std::lock_guard<std::mutex> lock(mu_);
    if (busy_ || finishing_ || (only_due && !due_)) return false;
    busy_ = true;
    due_ = false;
    query->account_id = account_id_;
    query->changed_after = cursor_ - absl::Seconds(1);
    query->first_round = !history_read_;
    query->unfinished_ticket_ids.assign(unfinished_.begin(), unfinished_.end());
    return true;
  }

  // The claimed poll's answer (`tickets` null: the poll failed or never ran; the next round of all
  // retries). May delete this. Returns whether the stream became due while it was polled.
  bool Deliver(const std::vector<const WatchedTicket*>* tickets) {
    std::unique_lock<std::mutex> lock(mu_);
    const bool due = due_;
    if (tickets != nullptr) {
      history_read_ = true;
      for (const WatchedTicket* watched : *tickets) {
        const TicketRow* t = &watched->ticket;
        if (t->state == TicketState::kWaiting ||
            (t->state == TicketState::kMatched && t->game_id.empty())) {
          unfinished_.insert(t->ticket_id);
        } else {
          unfinished_.erase(t->ticket_id);
        }
        if (!watched->report) continue;
        const std::string signature = absl::StrCat(static_cast<int>(t->state), "|", t->game_id, "|",
                                                   absl::ToUnixMicros(t->update_time));
        std::string& sent = sent_[t->ticket_id];
        if (sent == signature) continue;
        sent = signature;
        v1::WatchMyTicketsResponse response;
        ToProto(*t, response.mutable_ticket());
        pending_.push_back(std::move(response));
        if (t->update_time > cursor_) cursor_ = t->update_time;
      }
      if (!writing_ && !finishing_ && !pending_.empty()) {
        writing_ = true;
        StartWrite(&pending_.front());
      }
    }
    busy_ = false;
    if (done_) {
      lock.unlock();
      delete this;
      return false;
    }
    return due;
  }

  void OnWriteDone(bool ok) override {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.pop_front();
    if (!ok || finishing_) {
      writing_ = false;
      FinishOnce(ok ? grpc::Status::OK : grpc::Status::CANCELLED);
      return;
    }
    if (!pending_.empty()) {
      StartWrite(&pending_.front());
    } else {
      writing_ = false;
    }
  }

  void OnCancel() override {
    std::lock_guard<std::mutex> lock(mu_);
    if (!writing_) FinishOnce(grpc::Status::CANCELLED);
    finishing_ = true;
  }

  void OnDone() override {
    hub_->Remove(this);
    std::unique_lock<std::mutex> lock(mu_);
    done_ = true;
    if (busy_) return;  // the round holding it deletes
    lock.unlock();
    delete this;
  }

 private:
  void FinishOnce(const grpc::Status& status) {
    if (finished_) return;
    finished_ = true;
    finishing_ = true;
    Finish(status);
  }

  WatchHub* hub_;
  const std::string account_id_;
  std::mutex mu_;
  absl::Time cursor_;
  std::map<std::string, std::string> sent_;
  // Tickets last seen waiting, or matched with no game yet: later rounds ask for them by id.
  std::set<std::string> unfinished_;
  bool history_read_ = false;  // a round answered: later rounds read no history
  std::deque<v1::WatchMyTicketsResponse> pending_;
  bool busy_ = false;
  bool due_ = true;
  bool writing_ = false;
  bool finishing_ = false;
  bool finished_ = false;
  bool done_ = false;
};

WatchHub::WatchHub(MatchmakingService* service, absl::Duration interval)
    : service_(service), interval_(interval), thread_([this] {
        NameThisThread("ticket-watch");
        Loop();
      }) {}

WatchHub::~WatchHub() { Stop(); }

void WatchHub::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void WatchHub::Add(TicketWatch* watch) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    watches_.insert(watch);
    due_ = true;
  }
  cv_.notify_all();
}

void WatchHub::Remove(TicketWatch* watch) {
  std::lock_guard<std::mutex> lock(mu_);
  watches_.erase(watch);
}

void WatchHub::Wake(const std::vector<std::string>& players) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (TicketWatch* watch : watches_) {
      if (std::find(players.begin(), players.end(), watch->account_id()) != players.end()) {
        watch->MarkDue();
        due_ = true;
      }
    }
  }
  cv_.notify_all();
}

void WatchHub::Poke() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    due_ = true;
  }
  cv_.notify_all();
}

void WatchHub::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  auto next_round = std::chrono::steady_clock::now() + absl::ToChronoMilliseconds(interval_);
  while (!stop_) {
    cv_.wait_until(lock, next_round, [this] { return stop_ || due_; });
    if (stop_) break;
    // Due streams (opened or woken since the last round) are polled at once, only they; every
    // stream once per interval. Streams due together (a burst of players) share a round.
    const bool all = std::chrono::steady_clock::now() >= next_round;
    if (all) next_round = std::chrono::steady_clock::now() + absl::ToChronoMilliseconds(interval_);
    due_ = false;
    std::vector<TicketWatch*> round;
    std::vector<TicketWatchQuery> queries;
    for (TicketWatch* watch : watches_) {
      TicketWatchQuery query;
      if (watch->TryClaim(!all, &query)) {
        round.push_back(watch);
        queries.push_back(std::move(query));
      }
    }
    if (round.empty()) continue;
    // On this thread, not the worker pool: behind a burst of Enqueue calls queued there, a round
    // (and the news of a created game) waited seconds. One statement per round, one at a time.
    lock.unlock();
    Poll(round, queries);
    lock.lock();
  }
}

void WatchHub::Poll(const std::vector<TicketWatch*>& round,
                    const std::vector<TicketWatchQuery>& queries) {
  absl::StatusOr<std::vector<WatchedTicket>> rows = service_->WatchTickets(queries);
  std::vector<std::vector<const WatchedTicket*>> by_watch(round.size());
  if (rows.ok()) {
    for (const WatchedTicket& ticket : *rows) by_watch[ticket.query].push_back(&ticket);
  }
  bool again = false;
  for (size_t i = 0; i < round.size(); ++i) {
    again |= round[i]->Deliver(rows.ok() ? &by_watch[i] : nullptr);
  }
  if (again) Poke();  // woken while this round was reading: another round for them at once
}

// ---- Unary RPCs ---------------------------------------------------------------------------------

grpc::ServerUnaryReactor* MatchmakingApi::Enqueue(grpc::CallbackServerContext* context,
                                                  const v1::EnqueueRequest* request,
                                                  v1::EnqueueResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext& call, const v1::EnqueueRequest& request,
                          v1::EnqueueResponse* response) -> absl::Status {
                     EnqueueInput input;
                     input.game = request.game();
                     input.options.insert(request.options().begin(), request.options().end());
                     input.ranked = request.ranked();
                     input.player_counts.assign(request.player_counts().begin(),
                                                request.player_counts().end());
                     input.party_id = request.party_id();
                     input.time_control = request.time_control();
                     input.visibility = request.visibility();
                     if (absl::Status s = PropertiesFromProto(request, &input); !s.ok()) return s;
                     absl::StatusOr<TicketRow> ticket = service_->Enqueue(call.account_id(), input);
                     if (!ticket.ok()) return ticket.status();
                     ToProto(*ticket, response->mutable_ticket());
                     return absl::OkStatus();
                   });
}

grpc::ServerUnaryReactor* MatchmakingApi::GetTicket(grpc::CallbackServerContext* context,
                                                    const v1::GetTicketRequest* request,
                                                    v1::GetTicketResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext& call, const v1::GetTicketRequest& request,
                          v1::GetTicketResponse* response) -> absl::Status {
                     absl::StatusOr<TicketRow> ticket =
                         service_->GetTicket(call.account_id(), request.ticket_id());
                     if (!ticket.ok()) return ticket.status();
                     ToProto(*ticket, response->mutable_ticket());
                     return absl::OkStatus();
                   });
}

grpc::ServerUnaryReactor* MatchmakingApi::CancelTicket(grpc::CallbackServerContext* context,
                                                       const v1::CancelTicketRequest* request,
                                                       v1::CancelTicketResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext& call, const v1::CancelTicketRequest& request,
                          v1::CancelTicketResponse* response) -> absl::Status {
                     absl::StatusOr<TicketRow> ticket =
                         service_->CancelTicket(call.account_id(), request.ticket_id());
                     if (!ticket.ok()) return ticket.status();
                     ToProto(*ticket, response->mutable_ticket());
                     return absl::OkStatus();
                   });
}

grpc::ServerUnaryReactor* MatchmakingApi::ListMyTickets(grpc::CallbackServerContext* context,
                                                        const v1::ListMyTicketsRequest* request,
                                                        v1::ListMyTicketsResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext& call, const v1::ListMyTicketsRequest& request,
                          v1::ListMyTicketsResponse* response) -> absl::Status {
                     absl::StatusOr<std::vector<TicketRow>> tickets =
                         service_->ListMyTickets(call.account_id(), request.page_size());
                     if (!tickets.ok()) return tickets.status();
                     for (const TicketRow& t : *tickets) ToProto(t, response->add_tickets());
                     return absl::OkStatus();
                   });
}

grpc::ServerWriteReactor<v1::WatchMyTicketsResponse>* MatchmakingApi::WatchMyTickets(
    grpc::CallbackServerContext* context, const v1::WatchMyTicketsRequest*) {
  absl::StatusOr<std::optional<auth::Claims>> claims =
      authenticator_->Authenticate(*context, Access::kPlayer, rpc_->Now());
  if (!claims.ok()) return new RefusedWatch(claims.status());
  return new TicketWatch(hub_, (*claims)->subject, service_->Now());
}

grpc::ServerUnaryReactor* MatchmakingApi::CreateParty(grpc::CallbackServerContext* context,
                                                      const v1::CreatePartyRequest* request,
                                                      v1::CreatePartyResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext& call, const v1::CreatePartyRequest& request,
                          v1::CreatePartyResponse* response) -> absl::Status {
                     absl::StatusOr<PartyRow> party =
                         service_->CreateParty(call.account_id(), request.max_size());
                     if (!party.ok()) return party.status();
                     ToProto(*party, response->mutable_party());
                     return absl::OkStatus();
                   });
}

grpc::ServerUnaryReactor* MatchmakingApi::JoinParty(grpc::CallbackServerContext* context,
                                                    const v1::JoinPartyRequest* request,
                                                    v1::JoinPartyResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext& call, const v1::JoinPartyRequest& request,
                          v1::JoinPartyResponse* response) -> absl::Status {
                     absl::StatusOr<PartyRow> party =
                         service_->JoinParty(call.account_id(), request.code(), request.party_id());
                     if (!party.ok()) return party.status();
                     ToProto(*party, response->mutable_party());
                     return absl::OkStatus();
                   });
}

grpc::ServerUnaryReactor* MatchmakingApi::LeaveParty(grpc::CallbackServerContext* context,
                                                     const v1::LeavePartyRequest* request,
                                                     v1::LeavePartyResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext& call, const v1::LeavePartyRequest&,
                          v1::LeavePartyResponse*) -> absl::Status {
                     return service_->LeaveParty(call.account_id());
                   });
}

grpc::ServerUnaryReactor* MatchmakingApi::InviteToParty(grpc::CallbackServerContext* context,
                                                        const v1::InviteToPartyRequest* request,
                                                        v1::InviteToPartyResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext& call, const v1::InviteToPartyRequest& request,
                          v1::InviteToPartyResponse* response) -> absl::Status {
                     absl::StatusOr<PartyInviteRow> invite =
                         service_->InviteToParty(call.account_id(), request.account_id());
                     if (!invite.ok()) return invite.status();
                     ToProto(*invite, response->mutable_invite());
                     return absl::OkStatus();
                   });
}

grpc::ServerUnaryReactor* MatchmakingApi::DeclinePartyInvite(
    grpc::CallbackServerContext* context, const v1::DeclinePartyInviteRequest* request,
    v1::DeclinePartyInviteResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext& call, const v1::DeclinePartyInviteRequest& request,
                          v1::DeclinePartyInviteResponse*) -> absl::Status {
                     return service_->DeclinePartyInvite(call.account_id(), request.party_id());
                   });
}

grpc::ServerUnaryReactor* MatchmakingApi::ListMyPartyInvites(
    grpc::CallbackServerContext* context, const v1::ListMyPartyInvitesRequest* request,
    v1::ListMyPartyInvitesResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext& call, const v1::ListMyPartyInvitesRequest&,
                          v1::ListMyPartyInvitesResponse* response) -> absl::Status {
                     absl::StatusOr<std::vector<PartyInviteRow>> invites =
                         service_->ListMyPartyInvites(call.account_id());
                     if (!invites.ok()) return invites.status();
                     for (const PartyInviteRow& i : *invites) ToProto(i, response->add_invites());
                     return absl::OkStatus();
                   });
}

grpc::ServerUnaryReactor* MatchmakingApi::Challenge(grpc::CallbackServerContext* context,
                                                    const v1::ChallengeRequest* request,
                                                    v1::ChallengeResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext& call, const v1::ChallengeRequest& request,
                          v1::ChallengeResponse* response) -> absl::Status {
                     ChallengeInput input;
                     input.game = request.game();
                     input.options.insert(request.options().begin(), request.options().end());
                     input.ranked = request.ranked();
                     input.invitees.assign(request.invitee_account_ids().begin(),
                                           request.invitee_account_ids().end());
                     input.create_invite_code = request.create_invite_code();
                     input.player_count = request.player_count();
                     input.time_control = request.time_control();
                     input.visibility = request.visibility();
                     absl::StatusOr<ChallengeRow> challenge =
                         service_->Challenge(call.account_id(), input);
                     if (!challenge.ok()) return challenge.status();
                     ToProto(*challenge, response->mutable_challenge());
                     return absl::OkStatus();
                   });
}

grpc::ServerUnaryReactor* MatchmakingApi::AcceptChallenge(grpc::CallbackServerContext* context,
                                                          const v1::AcceptChallengeRequest* request,
                                                          v1::AcceptChallengeResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext& call, const v1::AcceptChallengeRequest& request,
                          v1::AcceptChallengeResponse* response) -> absl::Status {
                     absl::StatusOr<ChallengeRow> challenge = service_->AcceptChallenge(
                         call.account_id(), request.challenge_id(), request.invite_code());
                     if (!challenge.ok()) return challenge.status();
                     ToProto(*challenge, response->mutable_challenge());
                     return absl::OkStatus();
                   });
}

grpc::ServerUnaryReactor* MatchmakingApi::DeclineChallenge(
    grpc::CallbackServerContext* context, const v1::DeclineChallengeRequest* request,
    v1::DeclineChallengeResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext& call, const v1::DeclineChallengeRequest& request,
                          v1::DeclineChallengeResponse* response) -> absl::Status {
                     absl::StatusOr<ChallengeRow> challenge =
                         service_->DeclineChallenge(call.account_id(), request.challenge_id());
                     if (!challenge.ok()) return challenge.status();
                     ToProto(*challenge, response->mutable_challenge());
                     return absl::OkStatus();
                   });
}

grpc::ServerUnaryReactor* MatchmakingApi::ListMyChallenges(
    grpc::CallbackServerContext* context, const v1::ListMyChallengesRequest* request,
    v1::ListMyChallengesResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext& call, const v1::ListMyChallengesRequest& request,
                          v1::ListMyChallengesResponse* response) -> absl::Status {
                     absl::StatusOr<std::vector<ChallengeRow>> list =
                         service_->ListMyChallenges(call.account_id(), request.page_size());
                     if (!list.ok()) return list.status();
                     for (const ChallengeRow& c : *list) ToProto(c, response->add_challenges());
                     return absl::OkStatus();
                   });
}

grpc::ServerUnaryReactor* MatchmakingApi::ListTimeControls(
    grpc::CallbackServerContext* context, const v1::ListTimeControlsRequest* request,
    v1::ListTimeControlsResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [](const CallContext&, const v1::ListTimeControlsRequest&,
                      v1::ListTimeControlsResponse* response) -> absl::Status {
                     const std::string& default_name = DefaultTimeControl().name;
                     for (const TimeControlChoice& c : TimeControlChoices()) {
                       v1::TimeControlOption* option = response->add_time_controls();
                       option->set_time_control(static_cast<v1::TimeControl>(c.number));
                       option->set_label(c.label);
                       option->set_per_move_seconds(c.per_move_s);
                       option->set_bank_initial_seconds(c.bank_initial_s);
                       option->set_bank_increment_seconds(c.bank_increment_s);
                       option->set_vacation_days(c.vacation_days);
                       option->set_is_default(c.name == default_name);
                     }
                     return absl::OkStatus();
                   });
}

}  // namespace parlor::matchmaking
