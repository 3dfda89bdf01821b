#include "services/sessions/api/sessions_api.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <deque>
#include <memory>
#include <mutex>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/time_util.h"
#include "services/common/core/status_macros.h"
#include "services/common/grpc_status.h"
#include "services/sessions/api/calls.h"
#include "services/sessions/api/mapping.h"
#include "services/sessions/domain/game_feed.h"
#include "spdlog/spdlog.h"

namespace parlor::sessions {
namespace {

// A stream's read that fails because the database is briefly unreachable (restart, failover, a
// pooler reconnecting, a full pool) is retried with backoff for this long before the stream ends
// with the error; a client then reconnects from the version it last took.
constexpr absl::Duration kRideOutDatabaseOutage = absl::Seconds(30);
constexpr absl::Duration kMinReadRetryDelay = absl::Milliseconds(100);
constexpr absl::Duration kMaxReadRetryDelay = absl::Seconds(2);

bool IsTransient(const absl::Status& status) {
  return status.code() == absl::StatusCode::kUnavailable ||
         status.code() == absl::StatusCode::kResourceExhausted;
}

// The streams' pool threads run at a lower priority (nice), once each: catch-up work yields the
// CPU to the unary calls.
void LowerThisThreadsPriority(int nice) {
  thread_local bool done = false;
  if (done || nice <= 0) return;
  done = true;
  // On Linux a thread id names one thread here (not the whole process).
  if (setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), nice) != 0) {
    spdlog::warn("stream thread: setpriority({}) failed; it keeps the default priority", nice);
  }
}

// What a client that lost a stream reconnects with, once it has taken `r`.
std::string ResumeAfter(const v1::WatchGameResponse& r) {
  if (r.has_chat()) {
    return absl::StrCat("after_version=", r.chat().game_version(),
                        " and chat_after_message_id=", r.chat().message_id());
  }
  return absl::StrCat("after_version=", r.event().version());
}

std::string ResumeAfter(const v1::WatchMyGamesResponse& r) {
  return absl::StrCat("changed_after=",
                      google::protobuf::util::TimeUtil::ToString(r.game().update_time()));
}

// A server stream fed by the hub, with flow control: a stream reads (on the streams' own pool,
// never the unary workers) only when everything it read before has been written and the client
// has taken it (OnWriteDone), so a client that reads slowly is served slowly and a stream holds at
// most one page of unsent messages.
//
// Lifetime and threading: the reactor owns a shared State; hub callbacks, pool tasks and the
// guard's checks hold the State (weakly, for the guard), never the reactor. Every call into the
// reactor (StartWrite, Finish, the context's TryCancel) is made under the State's mutex while
// `reactor` is set; OnDone clears it under the same mutex before the reactor is deleted. The
// mutex is recursive in case gRPC runs a reaction inline.
template <typename Response>
class StreamReactor : public grpc::ServerWriteReactor<Response> {
 public:
  // Reads what is new (on a pool thread, one read at a time per stream).
  class Reader {
   public:
    virtual ~Reader() = default;
    // The next messages (at most a page); *more when more can be read at once.
    virtual absl::Status Read(std::vector<Response>* out, bool* more) = 0;
  };

  struct State final : GuardedStream, std::enable_shared_from_this<State> {
    std::recursive_mutex mu;
    StreamReactor* reactor = nullptr;
    grpc::CallbackServerContext* context = nullptr;
    std::shared_ptr<Reader> reader;
    StreamDeps deps;
    int64_t guard_id = 0;
    std::deque<Response> queue;
    Response current;
    bool busy = false;     // a write is in flight
    bool reading = false;  // a pool read is queued or running
    bool dirty = false;    // a change arrived since the last read
    bool more = false;     // the last read had a full page
    bool catching_up = false;
    // Over a catch-up budget: the next read waits until then (the guard's Tick restarts it).
    absl::Time parked_until = absl::InfinitePast();
    // Reads failing with a transient error since then (InfiniteFuture: the last read worked).
    absl::Time failing_since = absl::InfiniteFuture();
    absl::Duration retry_delay;
    bool finished = false;  // Finish was called
    absl::Time write_started;
    absl::Time cancel_at = absl::InfiniteFuture();
    // What a client that lost the stream reconnects with, as of the last message it took.
    std::string resume;

    bool End(const absl::Status& status) override {
      std::lock_guard<std::recursive_mutex> lock(mu);
      if (finished || reactor == nullptr) return false;
      FinishLocked(this, ToGrpcStatus(status));
      return true;
    }

    const char* Tick(absl::Time now) override {
      std::lock_guard<std::recursive_mutex> lock(mu);
      if (reactor == nullptr) return nullptr;
      if (finished) {
        // Ended while a write was in flight, and the client still does not read: let go.
        if (busy && now >= cancel_at && context != nullptr) {
          cancel_at = absl::InfiniteFuture();
          context->TryCancel();
        }
        return nullptr;
      }
      if (parked_until != absl::InfinitePast() && now >= parked_until) {
        parked_until = absl::InfinitePast();
        Pump(this->shared_from_this());
      }
      if (busy && now - write_started >= deps.guard->limits().stall_timeout) {
        // The status follows the message in flight: a client that reads it has that message.
        FinishLocked(
            this,
            grpc::Status(grpc::StatusCode::ABORTED,
                         absl::StrCat("the stream fell behind: no message was "
                                      "taken for ",
                                      absl::FormatDuration(deps.guard->limits().stall_timeout),
                                      "; reconnect with ", ResumeAfter(current))));
        return kEndedFellBehind;
      }
      return nullptr;
    }
  };

  StreamReactor(grpc::CallbackServerContext* context, StreamDeps deps,
                std::shared_ptr<Reader> reader, int64_t guard_id, bool catching_up,
                std::string resume)
      : state_(std::make_shared<State>()) {
    state_->reactor = this;
    state_->context = context;
    state_->reader = std::move(reader);
    state_->deps = std::move(deps);
    state_->guard_id = guard_id;
    state_->catching_up = catching_up;
    state_->resume = std::move(resume);
    state_->deps.guard->Attach(guard_id, state_);
    state_->deps.sessions->metrics().StreamsChanged(+1);
  }

  void OnWriteDone(bool ok) override {
    std::shared_ptr<State> st = state_;
    std::lock_guard<std::recursive_mutex> lock(st->mu);
    st->busy = false;
    if (ok) st->resume = ResumeAfter(st->current);
    if (!ok && !st->finished) {
      FinishLocked(st.get(), grpc::Status(grpc::StatusCode::CANCELLED, "closed"));
      return;
    }
    Pump(st);
  }

  void OnCancel() override {
    std::shared_ptr<State> st = state_;
    std::lock_guard<std::recursive_mutex> lock(st->mu);
    if (!st->finished) FinishLocked(st.get(), grpc::Status::CANCELLED);
  }

  void OnDone() override {
    std::shared_ptr<State> st = state_;
    {
      std::lock_guard<std::recursive_mutex> lock(st->mu);
      st->reactor = nullptr;
      st->context = nullptr;
    }
    if (subscription_ != 0) st->deps.hub->Unsubscribe(subscription_);
    st->deps.guard->Release(st->guard_id);
    st->deps.sessions->metrics().StreamsChanged(-1);
    delete this;
  }

  // Subscribes with `subscribe` (given the callback to register) and starts the first read when
  // `read_now`.
  void Start(const std::function<int64_t(WatchHub::Callback)>& subscribe, bool read_now) {
    std::shared_ptr<State> st = state_;
    // The client learns at once that the stream is open (its limits admitted it).
    this->StartSendInitialMetadata();
    subscription_ = subscribe([st](const GameChange&) { RequestRead(st); });
    if (read_now) RequestRead(st);
  }

  // A change was announced: read it, now or once the client has taken what it has.
  static void RequestRead(const std::shared_ptr<State>& st) {
    std::lock_guard<std::recursive_mutex> lock(st->mu);
    if (st->finished) return;
    st->dirty = true;
    Pump(st);
  }

 private:
  static void FinishLocked(State* st, const grpc::Status& status) {
    st->finished = true;
    // A write may still be in flight: the status follows it, and a client that never takes it is
    // cancelled after the stall timeout.
    if (st->busy) st->cancel_at = st->deps.clock() + st->deps.guard->limits().stall_timeout;
    st->reactor->Finish(status);
  }

  // Under st->mu: the next write, or the next read once everything read has been written.
  static void Pump(const std::shared_ptr<State>& st) {
    if (st->finished || st->reactor == nullptr || st->busy) return;
    if (!st->queue.empty()) {
      st->busy = true;
      st->current = std::move(st->queue.front());
      st->queue.pop_front();
      st->write_started = st->deps.clock();
      st->reactor->StartWrite(&st->current);
      return;
    }
    if (st->reading || !(st->more || st->dirty)) return;
    if (st->parked_until != absl::InfinitePast()) return;  // the guard's Tick goes on
    if (st->catching_up) {
      // History is read within the replica's and the player's catch-up budgets.
      const absl::Time now = st->deps.clock();
      const absl::Duration wait = st->deps.guard->CatchUpWait(st->guard_id, now);
      if (wait > absl::ZeroDuration()) {
        st->parked_until = now + wait;
        return;
      }
    }
    st->reading = true;
    st->dirty = false;
    st->more = false;
    if (!st->deps.workers->TrySubmit([st] { RunRead(st); })) {
      st->reading = false;
      st->deps.sessions->metrics().WatchEnded(kEndedOverloaded);
      FinishLocked(st.get(), grpc::Status(grpc::StatusCode::UNAVAILABLE,
                                          "server overloaded; reconnect with " + st->resume));
    }
  }

  static void RunRead(const std::shared_ptr<State>& st) {
    {
      std::lock_guard<std::recursive_mutex> lock(st->mu);
      if (st->finished) {
        st->reading = false;
        return;
      }
    }
    LowerThisThreadsPriority(st->deps.guard->limits().thread_nice);
    std::vector<Response> messages;
    bool more = false;
    absl::Status status = st->reader->Read(&messages, &more);
    st->deps.sessions->metrics().WatchRead();
    std::lock_guard<std::recursive_mutex> lock(st->mu);
    st->reading = false;
    if (st->catching_up) {
      st->deps.guard->CatchUpSent(st->guard_id, static_cast<int>(messages.size()),
                                  st->deps.clock());
    }
    if (st->finished || st->reactor == nullptr) return;
    if (!status.ok()) {
      const absl::Time now = st->deps.clock();
      if (IsTransient(status) && now - st->failing_since < kRideOutDatabaseOutage) {
        // The database is restarting or a pooler is reconnecting: the stream waits and reads
        // again (the guard's Tick restarts it) instead of ending every open stream at once.
        if (st->failing_since == absl::InfiniteFuture()) st->failing_since = now;
        st->retry_delay =
            std::min(kMaxReadRetryDelay, std::max(kMinReadRetryDelay, st->retry_delay * 2));
        st->parked_until = now + st->retry_delay;
        st->dirty = true;
        return;
      }
      FinishLocked(st.get(), ToGrpcStatus(status));
      return;
    }
    st->failing_since = absl::InfiniteFuture();
    st->retry_delay = absl::ZeroDuration();
    for (Response& m : messages) st->queue.push_back(std::move(m));
    st->more = more;
    if (!more && st->catching_up) {
      st->catching_up = false;
      st->deps.guard->CaughtUp(st->guard_id);
    }
    Pump(st);
  }

  std::shared_ptr<State> state_;
  int64_t subscription_ = 0;
};

class WatchGameReader final : public StreamReactor<v1::WatchGameResponse>::Reader {
 public:
  WatchGameReader(Sessions* sessions, std::string account_id, std::string game_id,
                  int64_t after_version, int page_size, std::optional<int64_t> chat_after)
      : sessions_(sessions),
        account_id_(account_id),
        game_id_(game_id),
        feed_(sessions, std::move(account_id), std::move(game_id), after_version),
        page_size_(page_size),
        chat_after_(chat_after) {}

  // The game's versions first, then its new chat messages.
  absl::Status Read(std::vector<v1::WatchGameResponse>* out, bool* more) override {
    std::vector<FeedItem> items;
    absl::Status read = feed_.Next(page_size_, &items, more);
    for (const FeedItem& item : items) ToProto(item, &out->emplace_back());
    if (!read.ok() || *more) return read;
    if (!chat_after_) {
      // Without chat_after_message_id: the messages sent from now on.
      absl::StatusOr<int64_t> latest = sessions_->LatestChatId();
      if (!latest.ok()) {
        if (out->empty()) return latest.status();
        *more = true;
        return absl::OkStatus();
      }
      chat_after_ = *latest;
      return absl::OkStatus();
    }
    std::vector<ChatMessage> chat;
    int64_t read_to = *chat_after_;
    absl::Status s =
        sessions_->ChatAfter(account_id_, game_id_, *chat_after_, page_size_, &chat, &read_to);
    if (!s.ok()) {
      if (out->empty()) return s;
      // The versions read are sent; the chat is read again at once.
      *more = true;
      return absl::OkStatus();
    }
    *more = read_to - *chat_after_ > 0 && static_cast<int>(chat.size()) >= page_size_;
    chat_after_ = read_to;
    for (const ChatMessage& m : chat) ToProto(m, out->emplace_back().mutable_chat());
    return absl::OkStatus();
  }

 private:
  Sessions* sessions_;
  const std::string account_id_;
  const std::string game_id_;
  GameFeed feed_;
  const int page_size_;
  std::optional<int64_t> chat_after_;
};

class WatchMyGamesReader final : public StreamReactor<v1::WatchMyGamesResponse>::Reader {
 public:
  WatchMyGamesReader(Sessions* sessions, std::string account_id,
                     std::optional<google::protobuf::Timestamp> changed_after)
      : sessions_(sessions),
        account_id_(std::move(account_id)),
        changed_after_(std::move(changed_after)),
        resync_(changed_after_.has_value()) {}

  // Hub callback (listener thread): remember what changed.
  void Note(const GameChange& change) {
    std::lock_guard<std::mutex> lock(mu_);
    if (change.resync) {
      resync_ = true;
    } else {
      auto& v = versions_[change.game_id];
      v = std::max(v, change.version);
    }
  }

  absl::Status Read(std::vector<v1::WatchMyGamesResponse>* out, bool* more) override {
    *more = false;
    if (!chat_started_) {
      // The first read (at open): chat messages from now on.
      absl::StatusOr<int64_t> latest = sessions_->LatestChatId();
      if (!latest.ok()) return latest.status();
      chat_floor_ = *latest;
      chat_started_ = true;
    }
    std::map<std::string, int64_t> versions;
    bool resync = false;
    {
      std::lock_guard<std::mutex> lock(mu_);
      versions.swap(versions_);
      resync = std::exchange(resync_, false);
    }
    if (resync) {
      // Everything changed since the last message (or changed_after): the most recent games.
      v1::ListMyGamesRequest request;
      request.set_page_size(100);
      v1::ListMyGamesResponse games;
      absl::Status status = calls::ListMyGames(*sessions_, account_id_, request, &games);
      if (!status.ok()) {
        Retry(/*resync=*/true, versions);
        return status;
      }
      for (const v1::Game& g : games.games()) {
        if (changed_after_ && (g.update_time().seconds() < changed_after_->seconds() ||
                               (g.update_time().seconds() == changed_after_->seconds() &&
                                g.update_time().nanos() <= changed_after_->nanos()))) {
          continue;
        }
        auto it = sent_.find(g.game_id());
        if (it != sent_.end() && it->second >= g.version()) continue;
        sent_[g.game_id()] = g.version();
        *out->emplace_back().mutable_game() = g;
      }
    }
    for (const auto& [game_id, version] : versions) {
      auto it = sent_.find(game_id);
      if (it != sent_.end() && it->second >= version) continue;
      absl::StatusOr<v1::Game> game = calls::SummaryOf(*sessions_, account_id_, game_id);
      if (IsTransient(game.status())) {
        // The change is kept for the next read, with every one not sent yet.
        Retry(/*resync=*/false, versions);
        return game.status();
      }
      if (!game.ok()) continue;  // the game is not (or no longer) the player's to see
      sent_[game_id] = game->version();
      *out->emplace_back().mutable_game() = *std::move(game);
    }
    // New chat messages of the changed games (a message announces its game as changed).
    for (const auto& [game_id, version] : versions) {
      int64_t& after = chat_sent_[game_id];
      after = std::max(after, chat_floor_);
      std::vector<ChatMessage> chat;
      int64_t read_to = after;
      absl::Status s = sessions_->ChatAfter(account_id_, game_id, after, 100, &chat, &read_to);
      if (!s.ok() || chat.empty()) {
        if (IsTransient(s)) {
          Retry(/*resync=*/false, versions);
          return s;
        }
        after = read_to;
        continue;
      }
      absl::StatusOr<v1::Game> game = calls::SummaryOf(*sessions_, account_id_, game_id);
      if (IsTransient(game.status())) {
        Retry(/*resync=*/false, versions);
        return game.status();
      }
      if (!game.ok()) continue;
      after = read_to;
      for (const ChatMessage& m : chat) {
        v1::WatchMyGamesResponse& r = out->emplace_back();
        *r.mutable_game() = *game;
        ToProto(m, r.mutable_chat());
      }
    }
    return absl::OkStatus();
  }

 private:
  Sessions* sessions_;
  const std::string account_id_;
  std::optional<google::protobuf::Timestamp> changed_after_;
  // Puts back what a failed read took, so that a retry sends it (games sent meanwhile are
  // skipped by sent_).
  void Retry(bool resync, const std::map<std::string, int64_t>& versions) {
    std::lock_guard<std::mutex> lock(mu_);
    resync_ = resync_ || resync;
    for (const auto& [game_id, version] : versions) {
      auto& v = versions_[game_id];
      v = std::max(v, version);
    }
  }

  std::mutex mu_;
  std::map<std::string, int64_t> versions_;
  bool resync_;
  std::map<std::string, int64_t> sent_;  // only touched by the running read
  // Chat: the newest message id when the stream opened, and the last one read per game.
  bool chat_started_ = false;
  int64_t chat_floor_ = 0;
  std::map<std::string, int64_t> chat_sent_;
};

// A finished-at-once stream for a refused request.
template <typename Response>
class RefusedStream final : public grpc::ServerWriteReactor<Response> {
 public:
  explicit RefusedStream(const absl::Status& status) { this->Finish(ToGrpcStatus(status)); }
  void OnDone() override { delete this; }
};

absl::StatusOr<auth::Claims> AuthenticatePlayer(const StreamDeps& deps,
                                                grpc::CallbackServerContext* context) {
  absl::StatusOr<std::optional<auth::Claims>> claims =
      deps.authenticator->Authenticate(*context, Access::kPlayer, deps.clock());
  if (!claims.ok()) return claims.status();
  if (!claims->has_value())
    return absl::UnauthenticatedError("a player's access token is required");
  return **std::move(claims);
}

// GetPlayerRecords and BatchGetPlayerRecords: the same records for the requested ids (the two
// messages have the same fields).
template <typename Request, typename Response>
absl::Status AnswerPlayerRecords(Sessions& sessions, const Request& request, Response* response) {
  absl::StatusOr<std::vector<PlayerRecord>> records =
      sessions.GetPlayerRecords({request.account_ids().begin(), request.account_ids().end()});
  if (!records.ok()) return records.status();
  for (const PlayerRecord& r : *records) ToProto(r, response->add_records());
  return absl::OkStatus();
}

}  // namespace

#define PARLOR_SESSIONS_UNARY(Method, access, call_expr)                                       \
  grpc::ServerUnaryReactor* SessionsApi::Method(grpc::CallbackServerContext* context,          \
                                                const v1::Method##Request* request,            \
                                                v1::Method##Response* response) {              \
    return rpc_->Run(context, access, request, response,                                       \
                     [this](const CallContext& call, const v1::Method##Request& request,       \
                            v1::Method##Response* response) -> absl::Status {                  \
                       return calls::Method(*sessions_, call.account_id(), request, response); \
                     });                                                                       \
  }

PARLOR_SESSIONS_UNARY(CreateBotGame, Access::kPlayer, )
PARLOR_SESSIONS_UNARY(GetGame, Access::kPlayer, )
PARLOR_SESSIONS_UNARY(ListMyGames, Access::kPlayer, )
PARLOR_SESSIONS_UNARY(Resign, Access::kPlayer, )
PARLOR_SESSIONS_UNARY(GetHistory, Access::kPlayer, )
PARLOR_SESSIONS_UNARY(ListPublicGames, Access::kPlayer, )
PARLOR_SESSIONS_UNARY(SendChatMessage, Access::kPlayer, )
PARLOR_SESSIONS_UNARY(ListChatMessages, Access::kPlayer, )
PARLOR_SESSIONS_UNARY(OfferRematch, Access::kPlayer, )
PARLOR_SESSIONS_UNARY(AcceptRematch, Access::kPlayer, )
PARLOR_SESSIONS_UNARY(DeclineRematch, Access::kPlayer, )
PARLOR_SESSIONS_UNARY(GetRematch, Access::kPlayer, )
#undef PARLOR_SESSIONS_UNARY

grpc::ServerUnaryReactor* SessionsApi::StartVacation(grpc::CallbackServerContext* context,
                                                     const v1::StartVacationRequest* request,
                                                     v1::StartVacationResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext& call, const v1::StartVacationRequest& request,
                          v1::StartVacationResponse* response) -> absl::Status {
                     absl::StatusOr<absl::Time> end =
                         sessions_->StartVacation(call.account_id(), FromProto(request.duration()));
                     if (!end.ok()) return end.status();
                     *response->mutable_end_time() = ToProto(*end);
                     return absl::OkStatus();
                   });
}

grpc::ServerUnaryReactor* SessionsApi::ReportChatMessage(
    grpc::CallbackServerContext* context, const v1::ReportChatMessageRequest* request,
    v1::ReportChatMessageResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext& call, const v1::ReportChatMessageRequest& request,
                          v1::ReportChatMessageResponse*) -> absl::Status {
                     return sessions_->ReportChatMessage(call.account_id(), request.game_id(),
                                                         request.message_id(), request.reason());
                   });
}

grpc::ServerUnaryReactor* SessionsApi::Nudge(grpc::CallbackServerContext* context,
                                             const v1::NudgeRequest* request,
                                             v1::NudgeResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext& call, const v1::NudgeRequest& request,
                          v1::NudgeResponse* response) -> absl::Status {
                     absl::StatusOr<absl::Time> next =
                         sessions_->Nudge(call.account_id(), request.game_id());
                     if (!next.ok()) return next.status();
                     *response->mutable_next_nudge_time() = ToProto(*next);
                     return absl::OkStatus();
                   });
}

grpc::ServerUnaryReactor* SessionsApi::MarkSeen(grpc::CallbackServerContext* context,
                                                const v1::MarkSeenRequest* request,
                                                v1::MarkSeenResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext& call, const v1::MarkSeenRequest& request,
                          v1::MarkSeenResponse*) -> absl::Status {
                     return sessions_->MarkSeen(call.account_id(), request.game_id(),
                                                request.version());
                   });
}

grpc::ServerUnaryReactor* SessionsApi::GetPlayerRecords(grpc::CallbackServerContext* context,
                                                        const v1::GetPlayerRecordsRequest* request,
                                                        v1::GetPlayerRecordsResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext&, const v1::GetPlayerRecordsRequest& request,
                          v1::GetPlayerRecordsResponse* response) {
                     return AnswerPlayerRecords(*sessions_, request, response);
                   });
}

grpc::ServerUnaryReactor* SessionsApi::EndVacation(grpc::CallbackServerContext* context,
                                                   const v1::EndVacationRequest* request,
                                                   v1::EndVacationResponse* response) {
  return rpc_->Run(context, Access::kPlayer, request, response,
                   [this](const CallContext& call, const v1::EndVacationRequest&,
                          v1::EndVacationResponse*) -> absl::Status {
                     return sessions_->EndVacation(call.account_id());
                   });
}

// SubmitAction waits for its group commit without holding a worker thread: the committer
// finishes the call.
grpc::ServerUnaryReactor* SessionsApi::SubmitAction(grpc::CallbackServerContext* context,
                                                    const v1::SubmitActionRequest* request,
                                                    v1::SubmitActionResponse* response) {
  return rpc_->RunAsync(context, Access::kPlayer, request, response,
                        [this](const CallContext& call, const v1::SubmitActionRequest& request,
                               v1::SubmitActionResponse* response, RpcRunner::Done done) {
                          calls::SubmitActionAsync(*sessions_, call.account_id(), request, response,
                                                   std::move(done));
                        });
}

grpc::ServerWriteReactor<v1::WatchGameResponse>* SessionsApi::WatchGame(
    grpc::CallbackServerContext* context, const v1::WatchGameRequest* request) {
  absl::StatusOr<auth::Claims> caller = AuthenticatePlayer(streams_, context);
  if (!caller.ok()) return new RefusedStream<v1::WatchGameResponse>(caller.status());
  if (absl::Status s = Sessions::ValidateGameId(request->game_id()); !s.ok()) {
    return new RefusedStream<v1::WatchGameResponse>(s);
  }
  if (request->after_version() < -1) {
    return new RefusedStream<v1::WatchGameResponse>(absl::InvalidArgumentError(
        "after_version must be the last version the client has (>= 0), or -1 for the current "
        "version only"));
  }
  // A stream that starts with history takes a catch-up slot until it has reached the present.
  const bool catching_up = request->after_version() >= 0;
  absl::StatusOr<int64_t> admitted = streams_.guard->Admit(*caller, catching_up);
  if (!admitted.ok()) return new RefusedStream<v1::WatchGameResponse>(admitted.status());
  std::optional<int64_t> chat_after;
  if (request->has_chat_after_message_id()) {
    if (request->chat_after_message_id() < 0) {
      return new RefusedStream<v1::WatchGameResponse>(absl::InvalidArgumentError(
          "chat_after_message_id must be the id of the last chat message the client has (>= 0)"));
    }
    chat_after = request->chat_after_message_id();
  }
  auto reader = std::make_shared<WatchGameReader>(sessions_, caller->subject, request->game_id(),
                                                  request->after_version(),
                                                  streams_.guard->limits().page_size, chat_after);
  auto* reactor = new StreamReactor<v1::WatchGameResponse>(
      context, streams_, reader, *admitted, catching_up,
      absl::StrCat("after_version=", request->after_version()));
  const std::string game_id = request->game_id();
  reactor->Start(
      [&](WatchHub::Callback callback) {
        return streams_.hub->SubscribeGame(game_id, std::move(callback));
      },
      /*read_now=*/true);
  return reactor;
}

grpc::ServerWriteReactor<v1::WatchMyGamesResponse>* SessionsApi::WatchMyGames(
    grpc::CallbackServerContext* context, const v1::WatchMyGamesRequest* request) {
  absl::StatusOr<auth::Claims> caller = AuthenticatePlayer(streams_, context);
  if (!caller.ok()) return new RefusedStream<v1::WatchMyGamesResponse>(caller.status());
  std::optional<google::protobuf::Timestamp> changed_after;
  if (request->has_changed_after()) changed_after = request->changed_after();
  absl::StatusOr<int64_t> admitted = streams_.guard->Admit(*caller, /*catching_up=*/false);
  if (!admitted.ok()) return new RefusedStream<v1::WatchMyGamesResponse>(admitted.status());
  auto reader = std::make_shared<WatchMyGamesReader>(sessions_, caller->subject, changed_after);
  auto* reactor = new StreamReactor<v1::WatchMyGamesResponse>(
      context, streams_, reader, *admitted, /*catching_up=*/false,
      changed_after ? absl::StrCat("changed_after=",
                                   google::protobuf::util::TimeUtil::ToString(*changed_after))
                    : std::string("changed_after=<the time you connected>"));
  const std::string account_id = caller->subject;
  reactor->Start(
      [&](WatchHub::Callback callback) {
        return streams_.hub->SubscribeAccount(
            account_id, [reader, callback = std::move(callback)](const GameChange& change) {
              reader->Note(change);
              callback(change);
            });
      },
      /*read_now=*/true);  // the first read also marks where the stream's chat starts
  return reactor;
}

grpc::ServerUnaryReactor* SessionsInternalApi::CreateGame(grpc::CallbackServerContext* context,
                                                          const v1::CreateGameRequest* request,
                                                          v1::CreateGameResponse* response) {
  return rpc_->Run(context, Access::kService, request, response,
                   [this](const CallContext&, const v1::CreateGameRequest& request,
                          v1::CreateGameResponse* response) -> absl::Status {
                     return calls::CreateGame(*sessions_, request, response);
                   });
}

grpc::ServerUnaryReactor* SessionsInternalApi::BatchGetPlayerRecords(
    grpc::CallbackServerContext* context, const v1::BatchGetPlayerRecordsRequest* request,
    v1::BatchGetPlayerRecordsResponse* response) {
  return rpc_->Run(context, Access::kService, request, response,
                   [this](const CallContext&, const v1::BatchGetPlayerRecordsRequest& request,
                          v1::BatchGetPlayerRecordsResponse* response) {
                     // The same records the player-facing call shows.
                     return AnswerPlayerRecords(*sessions_, request, response);
                   });
}

}  // namespace parlor::sessions
