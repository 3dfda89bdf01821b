// Race's private snapshot: SaveImpl and the LoadImpl that validates it.
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "engine/games/race/race.h"
#include "race/race_state.pb.h"

namespace parlor::games::race {

void RaceState::SaveImpl(google::protobuf::Any* out) const {
  engine::race::RaceState proto;
  proto.set_total(total_);
  proto.set_next_seat(next_seat_);
  proto.set_winner(winner_);
  for (int seat = 0; seat < num_players(); ++seat) {
    engine::race::RaceStatePlayer* player = proto.add_players();
    player->set_boost(players_[seat].boost);
    player->set_boost_played(players_[seat].boost_played);
    player->set_added(players_[seat].added);
  }
  out->PackFrom(proto);
}

absl::Status RaceState::LoadImpl(const google::protobuf::Any& in) {
  engine::race::RaceState proto;
  if (!in.Is<engine::race::RaceState>() || !in.UnpackTo(&proto)) {
    return absl::InvalidArgumentError("state: not a parlor.engine.race.RaceState");
  }
  const int n = num_players();
  if (proto.players_size() != n) {
    return absl::InvalidArgumentError(
        absl::StrCat("players: ", proto.players_size(), " entries for ", n, " seats"));
  }
  if (proto.total() < 0 || proto.total() > target_) {
    return absl::InvalidArgumentError(
        absl::StrCat("total: ", proto.total(), " is outside 0..", target_));
  }
  if (proto.next_seat() < 0 || proto.next_seat() >= n) {
    return absl::InvalidArgumentError(
        absl::StrCat("next_seat: ", proto.next_seat(), " is not a seat (0..", n - 1, ")"));
  }
  const bool over = proto.total() == target_;
  if (over ? (proto.winner() < 0 || proto.winner() >= n ||
              (proto.winner() + 1) % n != proto.next_seat())
           : proto.winner() != -1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "winner: ", proto.winner(),
        over ? " is not the seat before next_seat" : " while the total is below the target"));
  }
  std::array<Player, kMaxPlayers> players{};
  int sum = 0;
  for (int seat = 0; seat < n; ++seat) {
    const engine::race::RaceStatePlayer& p = proto.players(seat);
    const std::string where = absl::StrCat("players[", seat, "].");
    if (p.boost() < kMinBoost || p.boost() > kMaxBoost) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, "boost: ", p.boost(), " is outside 4..6"));
    }
    const int least = p.boost_played() ? p.boost() : 0;
    if (p.added() < least || p.added() > target_) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, "added: ", p.added(), " is outside ", least, "..", target_));
    }
    players[seat] = {p.boost(), p.boost_played(), p.added()};
    sum += p.added();
  }
  if (sum != proto.total()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "total: ", proto.total(), " is not the sum of what the players added (", sum, ")"));
  }
  total_ = proto.total();
  next_seat_ = proto.next_seat();
  winner_ = over ? proto.winner() : -1;
  players_ = players;
  return absl::OkStatus();
}

}  // namespace parlor::games::race
