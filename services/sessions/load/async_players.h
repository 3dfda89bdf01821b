#ifndef PARLOR_SERVICES_SESSIONS_LOAD_ASYNC_PLAYERS_H_
#define PARLOR_SERVICES_SESSIONS_LOAD_ASYNC_PLAYERS_H_

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "parlor/sessions/v1/sessions.grpc.pb.h"

namespace parlor::sessions {

// The load tool's players on gRPC's completion-queue API: `threads` threads each drive their
// share of the games, every call started without blocking and finished on the thread's queue,
// as pgbench drives its clients (a few threads, each multiplexing its connections). A game that
// waits for an answer costs the tool no thread of its own, so the tool takes less of the CPU it
// shares with the server and PostgreSQL than one blocking thread per game did.
struct AsyncPlay {
  v1::SessionsService::Stub* sessions = nullptr;
  v1::SessionsInternalService::Stub* internal = nullptr;
  // The game to play and the first player's number of game `g` (its seats: that player and the
  // next).
  std::string game;
  std::function<int(int g)> first_player;
  // Player number -> account id; an account's access token; the service credential CreateGame
  // is sent with (matchmaking's).
  std::function<std::string(int player)> account_id;
  std::function<std::string(const std::string& account)> token;
  std::function<std::string()> service_credential;
  // A CreateGameRequest for a new game between `first_player` and the next player.
  std::function<v1::CreateGameRequest(int first_player, const std::string& match_id)>
      create_request;
  // "bot": each game's first player plays the computer (CreateBotGame), SubmitAction after
  // SubmitAction. "pvp": two players; the next mover's legal actions come from GetGame.
  bool pvp = false;
  // pvp only: only the mover reads the game (once per move); otherwise the first player reads
  // it before each move and the mover again when it is the other one (1.5 reads per move).
  bool only_mover_reads = false;
  int threads = 2;
};

// Plays `games` games at once until `stop`; each game's SubmitAction latencies (ms) go to its
// entry of `latencies` (sized `games`) while `stop` is false, failed calls to `errors`. Returns
// once every call it started has finished.
void PlayAsync(const AsyncPlay& play, int games, const std::atomic<bool>& stop,
               std::vector<std::vector<double>>& latencies, std::atomic<long>& errors);

}  // namespace parlor::sessions

#endif  // PARLOR_SERVICES_SESSIONS_LOAD_ASYNC_PLAYERS_H_
