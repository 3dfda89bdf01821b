#include "services/sessions/load/async_players.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <random>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "grpcpp/grpcpp.h"

namespace parlor::sessions {
namespace {

constexpr auto kCallDeadline = std::chrono::seconds(30);
// Player::Call's seat for a call made with matchmaking's credential.
constexpr int kServiceCredential = -1;

// One game slot: plays games one after another, one call in flight at a time, each finished on
// the slot's thread's completion queue (the slot is the call's tag).
class Player {
 public:
  Player(const AsyncPlay& play, int index, const std::atomic<bool>& stop, grpc::CompletionQueue* cq,
         std::vector<double>* latencies, std::atomic<long>* errors)
      : play_(play),
        stop_(stop),
        cq_(cq),
        latencies_(latencies),
        errors_(errors),
        first_player_(play.first_player(index)),
        rng_(static_cast<uint64_t>(first_player_)) {
    for (int i = 0; i < 2; ++i) {
      accounts_[i] = play.account_id(first_player_ + i);
      tokens_[i] = play.token(accounts_[i]);
    }
  }

  // Starts the first call; false when stopping already.
  bool Start() { return NewGame(); }

  // The call in flight has finished: starts the next one, or returns false once the slot stops.
  bool OnFinished() {
    const bool ok = status_.ok();
    switch (step_) {
      case Step::kCreate:
        if (!ok) return Stopped();  // no game to play: the slot stops
        last_ = created_.game();
        return NextMove();
      case Step::kReadFirst:
        if (!ok) return Retried();
        last_ = state_.game();
        return ReadForMover();
      case Step::kReadMover:
        if (!ok) return Retried();
        return Submit();
      case Step::kSubmit:
        return Submitted(ok);
      case Step::kRecover:
        if (!ok) return NewGame();
        last_ = state_.game();
        return NextMove();
      case Step::kCreateBot:
        if (!ok) return Stopped();
        last_ = bot_created_.game();
        Call(Step::kReadBot, 0, play_.sessions, &state_,
             &v1::SessionsService::Stub::PrepareAsyncGetGame, ReadRequest());
        return true;
      case Step::kReadBot:
        if (!ok) return Stopped();
        last_ = state_.game();
        return SubmitToBot();
      case Step::kSubmitBot:
        if (!ok) return Retried();
        Record();
        last_ = submitted_.game();
        *state_.mutable_legal_actions() = std::move(*submitted_.mutable_legal_actions());
        return SubmitToBot();
    }
    return false;
  }

 private:
  enum class Step {
    kCreate,     // CreateGame (pvp)
    kReadFirst,  // the first player's GetGame: whose turn is it?
    kReadMover,  // the mover's GetGame: its legal actions
    kSubmit,     // the mover's SubmitAction
    kRecover,    // GetGame after a refused move: where the game stands
    kCreateBot,  // CreateBotGame
    kReadBot,    // GetGame of a new game against the computer
    kSubmitBot,  // SubmitAction against the computer
  };

  // A failed call: the slot stops, or it starts a new game.
  bool Stopped() {
    ++*errors_;
    return false;
  }
  bool Retried() {
    ++*errors_;
    return NewGame();
  }

  bool NewGame() {
    if (stop_) return false;
    if (!play_.pvp) {
      v1::CreateBotGameRequest create;
      create.set_request_id(absl::StrCat("load-", rng_()));
      create.set_game(play_.game);
      create.set_num_players(2);
      create.set_bot("random");
      Call(Step::kCreateBot, 0, play_.sessions, &bot_created_,
           &v1::SessionsService::Stub::PrepareAsyncCreateBotGame, create);
      return true;
    }
    Call(Step::kCreate, kServiceCredential, play_.internal, &created_,
         &v1::SessionsInternalService::Stub::PrepareAsyncCreateGame,
         play_.create_request(first_player_,
                              absl::StrCat("load-", first_player_, "-", match_++, "-", rng_())));
    return true;
  }

  // Before a move: the first player reads the game, or (mover's reads only) the previous
  // answer says who moves.
  bool NextMove() {
    if (stop_) return false;
    if (play_.only_mover_reads) return ReadForMover();
    Call(Step::kReadFirst, 0, play_.sessions, &state_,
         &v1::SessionsService::Stub::PrepareAsyncGetGame, ReadRequest());
    return true;
  }

  bool ReadForMover() {
    if (last_.status() == v1::GAME_STATUS_FINISHED) return NewGame();
    mover_ = last_.seats(last_.acting_seats(0)).account_id() == accounts_[0] ? 0 : 1;
    // With both players reading, the first player's read already has the mover's actions.
    if (!play_.only_mover_reads && mover_ == 0) return Submit();
    Call(Step::kReadMover, mover_, play_.sessions, &state_,
         &v1::SessionsService::Stub::PrepareAsyncGetGame, ReadRequest());
    return true;
  }

  bool Submit() {
    SubmitRandomAction(Step::kSubmit, mover_, state_.game().version());
    return true;
  }

  // SubmitAction of one of state_'s legal actions, at random, on the game at `version`, as
  // player `seat`; its latency is timed from here.
  void SubmitRandomAction(Step step, int seat, int64_t version) {
    v1::SubmitActionRequest submit;
    submit.set_game_id(last_.game_id());
    submit.set_expected_version(version);
    submit.set_idempotency_key(absl::StrCat("k", rng_()));
    *submit.mutable_action() = state_.legal_actions(
        static_cast<int>(rng_() % static_cast<uint64_t>(state_.legal_actions_size())));
    started_ = absl::Now();
    Call(step, seat, play_.sessions, &submitted_,
         &v1::SessionsService::Stub::PrepareAsyncSubmitAction, submit);
  }

  bool Submitted(bool ok) {
    if (!ok) {
      ++*errors_;
      if (play_.only_mover_reads) {
        if (stop_) return false;
        Call(Step::kRecover, 0, play_.sessions, &state_,
             &v1::SessionsService::Stub::PrepareAsyncGetGame, ReadRequest());
        return true;
      }
      last_ = state_.game();
      return NextMove();
    }
    Record();
    last_ = submitted_.game();
    return NextMove();
  }

  bool SubmitToBot() {
    if (stop_) return false;
    if (last_.status() == v1::GAME_STATUS_FINISHED || state_.legal_actions().empty()) {
      return NewGame();
    }
    SubmitRandomAction(Step::kSubmitBot, 0, last_.version());
    return true;
  }

  void Record() {
    if (!stop_) latencies_->push_back(absl::ToDoubleMilliseconds(absl::Now() - started_));
  }

  v1::GetGameRequest ReadRequest() const {
    v1::GetGameRequest get;
    get.set_game_id(last_.game_id());
    return get;
  }

  std::unique_ptr<grpc::ClientContext> NewContext(const std::string& token) const {
    auto context = std::make_unique<grpc::ClientContext>();
    context->AddMetadata("authorization", absl::StrCat("Bearer ", token));
    context->set_deadline(std::chrono::system_clock::now() + kCallDeadline);
    return context;
  }

  // Starts `prepare` on `stub` as player `seat` (0 or 1 of this slot; kServiceCredential: as
  // matchmaking), its answer into `response`.
  template <typename Stub, typename Request, typename Response, typename Prepare>
  void Call(Step step, int seat, Stub* stub, Response* response, Prepare prepare,
            const Request& request) {
    step_ = step;
    context_ = NewContext(seat == kServiceCredential ? play_.service_credential() : tokens_[seat]);
    auto reader = (stub->*prepare)(context_.get(), request, cq_);
    reader->StartCall();
    reader->Finish(response, &status_, this);
    Keep(std::move(reader));
  }

  // The reader of the call in flight lives until it finishes (one of each kind at a time).
  void Keep(std::unique_ptr<grpc::ClientAsyncResponseReader<v1::CreateGameResponse>> r) {
    create_reader_ = std::move(r);
  }
  void Keep(std::unique_ptr<grpc::ClientAsyncResponseReader<v1::GetGameResponse>> r) {
    get_reader_ = std::move(r);
  }
  void Keep(std::unique_ptr<grpc::ClientAsyncResponseReader<v1::SubmitActionResponse>> r) {
    submit_reader_ = std::move(r);
  }
  void Keep(std::unique_ptr<grpc::ClientAsyncResponseReader<v1::CreateBotGameResponse>> r) {
    bot_reader_ = std::move(r);
  }

  const AsyncPlay& play_;
  const std::atomic<bool>& stop_;
  grpc::CompletionQueue* const cq_;
  std::vector<double>* const latencies_;
  std::atomic<long>* const errors_;
  const int first_player_;
  std::mt19937_64 rng_;
  int match_ = 0;
  std::string accounts_[2];
  std::string tokens_[2];

  Step step_ = Step::kCreate;
  std::unique_ptr<grpc::ClientContext> context_;
  grpc::Status status_;
  std::unique_ptr<grpc::ClientAsyncResponseReader<v1::CreateGameResponse>> create_reader_;
  std::unique_ptr<grpc::ClientAsyncResponseReader<v1::GetGameResponse>> get_reader_;
  std::unique_ptr<grpc::ClientAsyncResponseReader<v1::SubmitActionResponse>> submit_reader_;
  std::unique_ptr<grpc::ClientAsyncResponseReader<v1::CreateBotGameResponse>> bot_reader_;
  v1::CreateGameResponse created_;
  v1::CreateBotGameResponse bot_created_;
  v1::GetGameResponse state_;
  v1::SubmitActionResponse submitted_;
  // The game as the last answer left it (whose turn it is), the mover (0 or 1) and when its
  // SubmitAction was sent.
  v1::Game last_;
  int mover_ = 0;
  absl::Time started_;
};

}  // namespace

void PlayAsync(const AsyncPlay& play, int games, const std::atomic<bool>& stop,
               std::vector<std::vector<double>>& latencies, std::atomic<long>& errors) {
  const int threads = std::clamp(play.threads, 1, std::max(1, games));
  std::vector<std::thread> workers;
  workers.reserve(static_cast<size_t>(threads));
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      grpc::CompletionQueue cq;
      std::vector<std::unique_ptr<Player>> players;
      int in_flight = 0;
      for (int g = t; g < games; g += threads) {
        players.push_back(std::make_unique<Player>(play, g, stop, &cq,
                                                   &latencies[static_cast<size_t>(g)], &errors));
        if (players.back()->Start()) ++in_flight;
      }
      void* tag = nullptr;
      bool ok = false;
      while (in_flight > 0 && cq.Next(&tag, &ok)) {
        if (!static_cast<Player*>(tag)->OnFinished()) --in_flight;
      }
      cq.Shutdown();
      while (cq.Next(&tag, &ok)) {
      }
    });
  }
  for (std::thread& w : workers) w.join();
}

}  // namespace parlor::sessions
