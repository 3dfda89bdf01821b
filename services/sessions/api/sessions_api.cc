#include "services/sessions/api/sessions_api.h"

#include <deque>
#include <memory>
#include <mutex>
#include <set>
#include <utility>
#include <vector>

#include "services/common/grpc_status.h"
#include "spdlog/spdlog.h"

namespace parlor::sessions {
namespace {

// How many versions one read sends at most (the stream reads again for the rest).
constexpr int kEventsPerRead = 50;

// A server stream fed by the hub.
//
// Lifetime and threading: the reactor owns a shared State; hub callbacks and worker tasks hold
// the State (and the Reader, which does the stream's reads), never the reactor. Reactor methods
// (StartWrite, Finish) are only called by whoever holds the State's `busy` token, taken under
// the lock; an in-flight write holds it until OnWriteDone. Finish is called once, by the token
// holder, after which nobody touches the reactor, so OnDone (which deletes it) cannot race.
template <typename Response>
class StreamReactor : public grpc::ServerWriteReactor<Response> {
 public:
  // Reads what is new (on a worker, one read at a time per stream).
  class Reader {
   public:
    virtual ~Reader() = default;
    virtual absl::Status Read(std::vector<Response>* out, bool* more) = 0;
  };

  struct State {
    std::mutex mu;
    StreamReactor* reactor = nullptr;
    std::shared_ptr<Reader> reader;
    std::deque<Response> queue;
    Response current;
    bool busy = false;     // a thread is calling into the reactor, or a write is in flight
    bool reading = false;  // a worker read is queued or running
    bool dirty = false;    // a change arrived during the read
    bool finished = false;
    std::optional<grpc::Status> finish;  // requested
  };

  StreamReactor(StreamDeps deps, std::shared_ptr<Reader> reader)
      : deps_(std::move(deps)), state_(std::make_shared<State>()) {
    state_->reactor = this;
    state_->reader = std::move(reader);
    if (deps_.on_stream_count) deps_.on_stream_count(+1);
  }

  // Both may lead to Finish and so to OnDone deleting `this`: they work on a local copy of the
  // State pointer and do not touch members afterwards.
  void OnWriteDone(bool ok) override {
    std::shared_ptr<State> st = state_;
    std::unique_lock<std::mutex> lock(st->mu);
    st->busy = false;
    if (!ok && !st->finish) st->finish = grpc::Status(grpc::StatusCode::CANCELLED, "closed");
    Pump(st, lock);
  }

  void OnCancel() override {
    std::shared_ptr<State> st = state_;
    RequestFinish(st, grpc::Status::CANCELLED);
  }

  void OnDone() override {
    if (subscription_ != 0) deps_.hub->Unsubscribe(subscription_);
    if (deps_.on_stream_count) deps_.on_stream_count(-1);
    delete this;
  }

  // Subscribes with `subscribe` (given the callback to register) and starts the first read when
  // `read_now`.
  void Start(const std::function<int64_t(WatchHub::Callback)>& subscribe, bool read_now) {
    std::shared_ptr<State> st = state_;
    StreamDeps d = deps_;
    subscription_ = subscribe([st, d](const GameChange&) { RequestRead(st, d); });
    if (read_now) RequestRead(st, d);
  }

  static void RequestRead(const std::shared_ptr<State>& state, const StreamDeps& deps) {
    {
      std::lock_guard<std::mutex> lock(state->mu);
      if (state->finished || state->finish) return;
      if (state->reading) {
        state->dirty = true;
        return;
      }
      state->reading = true;
    }
    if (!deps.workers->TrySubmit([state] { RunRead(state); })) {
      {
        std::lock_guard<std::mutex> lock(state->mu);
        state->reading = false;
      }
      RequestFinish(state, grpc::Status(grpc::StatusCode::UNAVAILABLE,
                                        "server overloaded; reconnect with your last version"));
    }
  }

 private:
  static void RequestFinish(std::shared_ptr<State> state, grpc::Status status) {
    std::unique_lock<std::mutex> lock(state->mu);
    if (!state->finish) state->finish = std::move(status);
    Pump(state, lock);
  }

  // Starts the next write, or the finish, if nobody holds the token. Releases the lock.
  static void Pump(std::shared_ptr<State> state, std::unique_lock<std::mutex>& lock) {
    if (state->busy || state->finished) return;
    StreamReactor* reactor = state->reactor;
    if (state->finish) {
      state->busy = true;
      state->finished = true;
      grpc::Status status = *state->finish;
      lock.unlock();
      reactor->Finish(status);
      return;
    }
    if (state->queue.empty()) return;
    state->busy = true;
    state->current = std::move(state->queue.front());
    state->queue.pop_front();
    lock.unlock();
    reactor->StartWrite(&state->current);
  }

  static void RunRead(std::shared_ptr<State> state) {
    for (;;) {
      {
        std::lock_guard<std::mutex> lock(state->mu);
        if (state->finished || state->finish) {
          state->reading = false;
          return;
        }
        state->dirty = false;
      }
      std::vector<Response> messages;
      bool more = false;
      absl::Status status = state->reader->Read(&messages, &more);
      std::unique_lock<std::mutex> lock(state->mu);
      if (!status.ok()) {
        state->reading = false;
        if (!state->finish) state->finish = ToGrpcStatus(status);
        Pump(state, lock);
        return;
      }
      for (Response& m : messages) state->queue.push_back(std::move(m));
      const bool again = state->dirty || more;
      if (!again) state->reading = false;
      Pump(state, lock);
      if (!again) return;
    }
  }

  StreamDeps deps_;
  std::shared_ptr<State> state_;
  int64_t subscription_ = 0;
};

class WatchGameReader final : public StreamReactor<v1::WatchGameResponse>::Reader {
 public:
  WatchGameReader(Sessions* sessions, std::string account_id, std::string game_id,
                  int64_t after_version)
      : sessions_(sessions),
        account_id_(std::move(account_id)),
        game_id_(std::move(game_id)),
        last_version_(after_version) {}

  absl::Status Read(std::vector<v1::WatchGameResponse>* out, bool* more) override {
    if (last_version_ < 0) {
      // Only the current version: start from it.
      absl::StatusOr<v1::Game> game = sessions_->GameSummary(account_id_, game_id_);
      if (!game.ok()) return game.status();
      last_version_ = game->version() - 1;
    }
    absl::Status status =
        sessions_->WatchEvents(account_id_, game_id_, last_version_, kEventsPerRead, out);
    if (!status.ok()) return status;
    if (!out->empty()) last_version_ = out->back().event().version();
    *more = static_cast<int>(out->size()) == kEventsPerRead;
    return absl::OkStatus();
  }

 private:
  Sessions* sessions_;
  const std::string account_id_;
  const std::string game_id_;
  int64_t last_version_;
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
      absl::Status status = sessions_->ListMyGames(account_id_, request, &games);
      if (!status.ok()) return status;
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
      absl::StatusOr<v1::Game> game = sessions_->GameSummary(account_id_, game_id);
      if (!game.ok()) continue;
      sent_[game_id] = game->version();
      *out->emplace_back().mutable_game() = *std::move(game);
    }
    return absl::OkStatus();
  }

 private:
  Sessions* sessions_;
  const std::string account_id_;
  std::optional<google::protobuf::Timestamp> changed_after_;
  std::mutex mu_;
  std::map<std::string, int64_t> versions_;
  bool resync_;
  std::map<std::string, int64_t> sent_;  // only touched by the running read
};

// A finished-at-once stream for a refused request.
template <typename Response>
class RefusedStream final : public grpc::ServerWriteReactor<Response> {
 public:
  explicit RefusedStream(const absl::Status& status) { this->Finish(ToGrpcStatus(status)); }
  void OnDone() override { delete this; }
};

absl::StatusOr<std::string> AuthenticatePlayer(const StreamDeps& deps,
                                               grpc::CallbackServerContext* context) {
  absl::StatusOr<std::optional<auth::Claims>> claims =
      deps.authenticator->Authenticate(*context, Access::kPlayer, deps.clock());
  if (!claims.ok()) return claims.status();
  if (!claims->has_value())
    return absl::UnauthenticatedError("a player's access token is required");
  return (*claims)->subject;
}

}  // namespace

#define PARLOR_SESSIONS_UNARY(Method, access, call_expr)                                 \
  grpc::ServerUnaryReactor* SessionsApi::Method(grpc::CallbackServerContext* context,    \
                                                const v1::Method##Request* request,      \
                                                v1::Method##Response* response) {        \
    return rpc_->Run(context, access, request, response,                                 \
                     [this](const CallContext& call, const v1::Method##Request& request, \
                            v1::Method##Response* response) -> absl::Status {            \
                       return sessions_->Method(call.account_id(), request, response);   \
                     });                                                                 \
  }

PARLOR_SESSIONS_UNARY(CreateBotGame, Access::kPlayer, )
PARLOR_SESSIONS_UNARY(GetGame, Access::kPlayer, )
PARLOR_SESSIONS_UNARY(ListMyGames, Access::kPlayer, )
PARLOR_SESSIONS_UNARY(Resign, Access::kPlayer, )
PARLOR_SESSIONS_UNARY(GetHistory, Access::kPlayer, )
PARLOR_SESSIONS_UNARY(ListPublicGames, Access::kPlayer, )
PARLOR_SESSIONS_UNARY(StartVacation, Access::kPlayer, )
PARLOR_SESSIONS_UNARY(EndVacation, Access::kPlayer, )
#undef PARLOR_SESSIONS_UNARY

// SubmitAction waits for its group commit without holding a worker thread: the committer
// finishes the call.
grpc::ServerUnaryReactor* SessionsApi::SubmitAction(grpc::CallbackServerContext* context,
                                                    const v1::SubmitActionRequest* request,
                                                    v1::SubmitActionResponse* response) {
  return rpc_->RunAsync(context, Access::kPlayer, request, response,
                        [this](const CallContext& call, const v1::SubmitActionRequest& request,
                               v1::SubmitActionResponse* response, RpcRunner::Done done) {
                          sessions_->SubmitActionAsync(call.account_id(), request, response,
                                                       std::move(done));
                        });
}

grpc::ServerWriteReactor<v1::WatchGameResponse>* SessionsApi::WatchGame(
    grpc::CallbackServerContext* context, const v1::WatchGameRequest* request) {
  absl::StatusOr<std::string> account = AuthenticatePlayer(streams_, context);
  if (!account.ok()) return new RefusedStream<v1::WatchGameResponse>(account.status());
  if (absl::Status s = Sessions::ValidateGameId(request->game_id()); !s.ok()) {
    return new RefusedStream<v1::WatchGameResponse>(s);
  }
  if (request->after_version() < -1) {
    return new RefusedStream<v1::WatchGameResponse>(
        absl::InvalidArgumentError("after_version must be >= -1"));
  }
  auto reader = std::make_shared<WatchGameReader>(sessions_, *account, request->game_id(),
                                                  request->after_version());
  auto* reactor = new StreamReactor<v1::WatchGameResponse>(streams_, reader);
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
  absl::StatusOr<std::string> account = AuthenticatePlayer(streams_, context);
  if (!account.ok()) return new RefusedStream<v1::WatchMyGamesResponse>(account.status());
  std::optional<google::protobuf::Timestamp> changed_after;
  if (request->has_changed_after()) changed_after = request->changed_after();
  auto reader = std::make_shared<WatchMyGamesReader>(sessions_, *account, changed_after);
  auto* reactor = new StreamReactor<v1::WatchMyGamesResponse>(streams_, reader);
  reactor->Start(
      [&](WatchHub::Callback callback) {
        return streams_.hub->SubscribeAccount(
            *account, [reader, callback = std::move(callback)](const GameChange& change) {
              reader->Note(change);
              callback(change);
            });
      },
      /*read_now=*/changed_after.has_value());
  return reactor;
}

grpc::ServerUnaryReactor* SessionsInternalApi::CreateGame(grpc::CallbackServerContext* context,
                                                          const v1::CreateGameRequest* request,
                                                          v1::CreateGameResponse* response) {
  return rpc_->Run(context, Access::kService, request, response,
                   [this](const CallContext&, const v1::CreateGameRequest& request,
                          v1::CreateGameResponse* response) -> absl::Status {
                     return sessions_->CreateGame(request, response);
                   });
}

}  // namespace parlor::sessions
