// Writes the checked-in seed corpus: parlor_fuzz_corpus <fuzz/corpus dir>.
//   <game>_state:    GameRecords of real (seeded, random-bot) playouts at the start, in the
//                    middle and at the end, for the smallest and the largest table.
//   <game>_actions:  seeded pseudo-random byte strings (any bytes are a game for this target).
//   sessions:        a stored mid-game snapshot plus a SubmitActionRequest carrying a legal
//                    action, for every game.
//   accounts, matchmaking, ratings: valid requests in the targets' input layout.
// The inputs of the service targets are read by FuzzedDataProvider: strings from the front
// (a backslash doubles, "\" + another byte ends one), integers and booleans from the back.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "engine/bots/bot.h"
#include "engine/core/registry.h"
#include "engine/games/all_games.h"
#include "parlor/accounts/v1/accounts.pb.h"
#include "parlor/matchmaking/v1/matchmaking.pb.h"
#include "parlor/ratings/v1/ratings.pb.h"
#include "parlor/sessions/v1/sessions.pb.h"

namespace parlor::fuzz {
namespace {

namespace fs = std::filesystem;

// Builds an input the way FuzzedDataProvider will take it apart.
class ProviderInput {
 public:
  ProviderInput& String(const std::string& s) {
    for (char c : s) {
      front_ += c;
      if (c == '\\') front_ += '\\';
    }
    front_ += "\\;";
    return *this;
  }
  ProviderInput& Raw(const std::string& bytes) {
    front_ += bytes;
    return *this;
  }
  // One byte read from the back: ConsumeIntegralInRange(min, max) with max - min < 256 gives
  // min + byte % (max - min + 1); ConsumeBool gives byte & 1.
  ProviderInput& Byte(uint8_t b) {
    back_.push_back(static_cast<char>(b));
    return *this;
  }
  std::string Bytes() const { return front_ + std::string(back_.rbegin(), back_.rend()); }

 private:
  std::string front_;
  std::string back_;
};

void Write(const fs::path& dir, const std::string& name, const std::string& bytes) {
  fs::create_directories(dir);
  std::ofstream(dir / name, std::ios::binary) << bytes;
}

std::string RandomBytes(engine::Rng& rng, size_t n) {
  std::string out(n, '\0');
  for (char& c : out) c = static_cast<char>(rng.Uniform(256));
  return out;
}

const char* const kAccounts[] = {
    "123e4567-e89b-12d3-a456-426614174000", "9f0c3c1e-8a51-4d6e-b7a2-3c5d0e1f2a3b",
    "00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002"};

// States at the start, middle and end of one seeded random playout.
std::vector<std::unique_ptr<engine::State>> Playout(const engine::Game& game, int players,
                                                    uint64_t seed) {
  std::vector<std::unique_ptr<engine::State>> out;
  auto state = game.NewGame(players, engine::Options(), engine::Seed::FromUint64(seed));
  if (!state.ok()) {
    // Games whose options must be set for some player counts: take the parsed defaults.
    auto options = game.ParseOptions({}, players);
    if (!options.ok()) return out;
    state = game.NewGame(players, *options, engine::Seed::FromUint64(seed));
    if (!state.ok()) return out;
  }
  engine::Rng rng(seed);
  std::vector<std::unique_ptr<engine::State>> all;
  all.push_back((*state)->Clone());
  std::unique_ptr<engine::State> s = std::move(*state);
  while (!s->IsTerminal()) {
    const int seat = s->ActingSeats().ToVector()[0];
    auto action = bots::RandomLegalAction(*s, seat, rng);
    if (!action.ok() || !s->Apply(seat, *action).ok()) break;
    all.push_back(s->Clone());
  }
  out.push_back(std::move(all.front()));
  out.push_back(std::move(all[all.size() / 2]));
  out.push_back(std::move(all.back()));
  return out;
}

int Main(const fs::path& root) {
  const engine::Registry registry = engine::AllGames();
  const std::vector<const engine::Game*> games = registry.games();
  engine::Rng rng(20261123);
  for (size_t g = 0; g < games.size(); ++g) {
    const engine::Game& game = *games[g];
    const std::string name = game.name();
    for (int players : {game.info().min_players, game.info().max_players}) {
      std::vector<std::unique_ptr<engine::State>> states = Playout(game, players, 7 + players);
      for (size_t i = 0; i < states.size(); ++i) {
        Write(root / (name + "_state"), absl::StrCat(players, "p_", i),
              states[i]->Serialize().SerializeAsString());
      }
      if (players == game.info().min_players && states.size() == 3) {
        // sessions: SubmitAction of a legal move against the mid-game snapshot.
        const engine::State& mid = *states[1];
        const int seat = mid.ActingSeats().empty() ? 0 : mid.ActingSeats().ToVector()[0];
        sessions::v1::SubmitActionRequest request;
        request.set_game_id("3f2a9c1e-0000-4000-8000-00000000000a");
        request.set_expected_version(mid.NumMoves());
        request.set_idempotency_key("key-1");
        if (!mid.IsTerminal()) {
          request.mutable_action()->PackFrom(*game.ActionToProto(mid.LegalActions(seat).front()));
        }
        // Read from the back: game, seat, from, to.
        Write(root / "sessions", name,
              ProviderInput()
                  .String(request.SerializeAsString())
                  .Raw(mid.Serialize().SerializeAsString())
                  .Byte(static_cast<uint8_t>(g))
                  .Byte(static_cast<uint8_t>(seat + 1))
                  .Byte(0)
                  .Byte(static_cast<uint8_t>(mid.NumMoves()))
                  .Bytes());
      }
    }
    for (size_t size : {16, 64, 256, 1024}) {
      Write(root / (name + "_actions"), absl::StrCat("random_", size), RandomBytes(rng, size));
    }

    // matchmaking: an Enqueue for the game's smallest table, twelve tickets.
    matchmaking::v1::EnqueueRequest enqueue;
    enqueue.set_game(name);
    enqueue.add_player_counts(game.info().min_players);
    enqueue.set_ranked(g % 2 == 0);
    Write(root / "matchmaking", name,
          ProviderInput()
              .String(enqueue.SerializeAsString())
              .Raw(RandomBytes(rng, 200))
              .Byte(0)   // keep the request's game name
              .Byte(12)  // tickets
              .Bytes());

    // ratings: a two-seat result of the game, first seat winning.
    ratings::v1::ReportResultRequest report;
    report.set_game_id(absl::StrCat("game-", name, "-1"));
    report.set_game(name);
    report.set_ranked(true);
    for (int seat = 0; seat < 2; ++seat) {
      ratings::v1::ResultSeat* s = report.add_seats();
      s->set_seat(seat);
      s->set_account_id(kAccounts[seat]);
      s->set_team(seat);
      ratings::v1::Placement* p = report.add_placements();
      p->set_account_id(kAccounts[seat]);
      p->set_rank(seat + 1);
    }
    report.mutable_finish_time()->set_seconds(1'800'000'000 - 3600);
    Write(root / "ratings", name,
          ProviderInput()
              .String(report.SerializeAsString())
              .Raw(RandomBytes(rng, 64))
              .Byte(1)
              .Bytes());
  }
  Write(root / "ratings", "account_id", ProviderInput().String(kAccounts[0]).Byte(0).Bytes());

  // accounts: sign in, refresh with the token just issued, read and rename the profile, batch
  // get, sign out, then reuse the first refresh token (rotation, reuse detection).
  accounts::v1::AuthenticateDeviceRequest sign_in;
  sign_in.set_device_id("device-0001-abcdef");
  sign_in.set_display_name("Ada");
  accounts::v1::UpdateProfileRequest rename;
  rename.set_display_name("Ada Lovelace");
  accounts::v1::BatchGetAccountsRequest batch;
  for (const char* id : kAccounts) batch.add_account_ids(id);
  accounts::v1::SignOutRequest sign_out;
  sign_out.set_all_devices(true);
  ProviderInput session;
  session.Byte(0).String(sign_in.SerializeAsString());  // AuthenticateDevice
  session.Byte(1).Byte(1);                              // RefreshSession with an issued token
  session.Byte(3).Byte(1);                              // GetMe with an issued token
  session.Byte(4).Byte(1).String(rename.SerializeAsString());
  session.Byte(5).Byte(1).String(batch.SerializeAsString());
  session.Byte(2).Byte(1).String(sign_out.SerializeAsString());
  session.Byte(1).Byte(1);
  Write(root / "accounts", "session", session.Bytes());
  accounts::v1::AuthenticateDeviceRequest generated;
  generated.set_device_id("ios-ABCDEF0123456789");
  Write(root / "accounts", "generated_name",
        ProviderInput()
            .Byte(0)
            .String(generated.SerializeAsString())
            .Byte(6)
            .Byte(200)
            .Byte(1)
            .Byte(1)
            .Bytes());
  std::printf("corpus written under %s\n", root.c_str());
  return 0;
}

}  // namespace
}  // namespace parlor::fuzz

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <fuzz/corpus dir>\n", argv[0]);
    return 2;
  }
  return parlor::fuzz::Main(argv[1]);
}
