#ifndef PARLOR_ENGINE_GAMES_RACE_RACE_H_
#define PARLOR_ENGINE_GAMES_RACE_RACE_H_

// Race (rules: engine/games/race/RULES.md): a test-only game, registered by
// engine::AllGamesWithTestGames() and never by AllGames(), that proves a game is one folder plus
// one proto (engine/GAMES.md). Two or three players add 1, 2 or 3 in turn to a running total
// (seat 0 first); whoever brings it to exactly the target (option `target`, 10..30, default 21)
// wins and ranks 1, the others rank 2. A step may not pass the target. Each seat is dealt one
// secret boost card (4, 5 or 6), which it may play once instead of a step (same limit).
//
// Action codes: 1, 2, 3 add that much; kBoost (4) plays the boost card.
// Chance: at setup, one Uniform(3) per seat, recorded as the index: the boost is 4 + index.

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/game.h"
#include "engine/core/registry.h"
#include "engine/core/state.h"

namespace parlor::games::race {

inline constexpr int kMaxPlayers = 3;
inline constexpr engine::Action kBoost = 4;
inline constexpr int kMinBoost = 4;
inline constexpr int kMaxBoost = 6;

class RaceGame : public engine::Game {
 public:
  RaceGame();
  const google::protobuf::Descriptor* ActionDescriptor() const override;
  const google::protobuf::Descriptor* ViewDescriptor() const override;
  absl::StatusOr<engine::Action> ActionFromProto(
      const google::protobuf::Message& action) const override;
  std::unique_ptr<google::protobuf::Message> ActionToProto(engine::Action action) const override;
  int64_t MaxMoves(int num_players, const engine::Options& options) const override;

 protected:
  std::unique_ptr<engine::State> CreateState(
      int num_players, std::shared_ptr<const engine::Options> options) const override;
};

class RaceState : public engine::State {
 public:
  RaceState(const engine::Game& game, int num_players,
            const std::shared_ptr<const engine::Options>& options);

  int total() const { return total_; }
  int target() const { return target_; }
  int boost(int seat) const { return players_[seat].boost; }
  bool boost_played(int seat) const { return players_[seat].boost_played; }

 protected:
  void SetupImpl(engine::Chance& chance) override;
  std::unique_ptr<engine::State> CloneImpl() const override;
  engine::SeatSet ActingSeatsImpl() const override;
  bool IsTerminalImpl() const override;
  void LegalActionsImpl(int seat, std::vector<engine::Action>* out) const override;
  absl::Status CheckActionImpl(int seat, engine::Action action) const override;
  void ApplyImpl(int seat, engine::Action action, engine::Chance& chance) override;
  std::vector<int> RanksImpl() const override;
  std::vector<int64_t> ScoresImpl() const override;
  std::string EndReasonImpl() const override;
  std::string ActionToStringImpl(int seat, engine::Action action) const override;
  std::unique_ptr<google::protobuf::Message> ViewImpl(const engine::Viewer& viewer) const override;
  void ResampleHiddenImpl(int observer, engine::Rng& rng) override;
  void SaveImpl(google::protobuf::Any* out) const override;
  absl::Status LoadImpl(const google::protobuf::Any& in) override;

 private:
  RaceState(const RaceState&) = default;

  struct Player {
    int boost = kMinBoost;
    bool boost_played = false;
    int added = 0;
  };

  int target_;
  int total_ = 0;
  int next_seat_ = 0;
  int winner_ = -1;
  std::array<Player, kMaxPlayers> players_{};
};

void Register(engine::Registry& registry);

}  // namespace parlor::games::race

#endif  // PARLOR_ENGINE_GAMES_RACE_RACE_H_
