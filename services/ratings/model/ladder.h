#ifndef PARLOR_SERVICES_RATINGS_MODEL_LADDER_H_
#define PARLOR_SERVICES_RATINGS_MODEL_LADDER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "services/ratings/model/glicko2.h"
#include "services/ratings/model/weng_lin.h"

namespace parlor::ratings::model {

// A ladder is (game, mode): one pool of players compared with one rating model. Its name is
// derived from a finished game (the game id, how many seats, how seats form teams), so the
// sessions service never has to know ladder names.
//
// The ladders themselves derive from each game's metadata (player counts, teams: GameFacts,
// filled from the engine's registry by game_ladders.h), so a game registered in the engine is
// ranked with no edit here:
//   two players, no teams          one Glicko-2 ladder named after the game
//   more players possible, no teams  one Weng-Lin ladder named after the game (min..max seats)
//   teams                          the ladder above for tables without teams, and a Weng-Lin
//                                  ladder "<game>-teams" for two teams
// unless the game has an override (LadderOverrides), whose ladders replace the derived ones.
// Today's ladders, Picadice's being its override:
//
//   game      seats  teams        ladder             model
//   pico      2      none         pico               Glicko-2
//   pict      2      none         pict               Glicko-2
//   picadice  2      none         picadice-duel      Glicko-2
//   picadice  4      two pairs    picadice-doubles   Weng-Lin (Plackett–Luce, teams)
//   picadice  3–4    none         picadice-multi     Weng-Lin
//   pescado   2–4    none         pescado            Weng-Lin
//   kadice    2–4    none         kadice             Weng-Lin
//
// Decision: Pescado and KA'DICE keep one ladder per game whatever the player count, rated with
// Weng-Lin even for two-player games (Weng-Lin handles two sides as well as many), because
// splitting a game's community into a 2-player and a 3–4-player ladder would leave both thin,
// and the games play the same way at every count. Picadice is split because its duel, doubles and
// free-for-all are different games to its players.

enum class ModelKind { kGlicko2, kWengLin };

absl::string_view ModelKindName(ModelKind kind);

// A player's rating on any ladder, in the ladder's own units.
//   Glicko-2: value = r, deviation = RD, volatility = σ.
//   Weng-Lin: value = μ, deviation = σ, volatility unused (0).
struct Rating {
  double value = 0.0;
  double deviation = 0.0;
  double volatility = 0.0;
  int64_t games = 0;  // rated games played on the ladder (all seasons)
};

// When a player is kept off the public board as provisional.
struct ProvisionalRule {
  double max_deviation = 0.0;  // provisional while deviation is above this
  int64_t min_games = 0;       // provisional while fewer games than this
};

// The soft reset at a new season: value ← mean + (value − mean)·(1 − pull); volatility and games
// kept. The deviation of a player who was established (not provisional) at their last game is
// kept too, so last season's board carries over to the new season's; a provisional player's
// grows to min(initial, sqrt(deviation² + (boost·initial)²)).
struct SeasonReset {
  double pull = 0.2;
  double deviation_boost = 0.25;
};

struct LadderSpec {
  std::string name;
  std::string game;
  ModelKind model = ModelKind::kGlicko2;
  int min_seats = 2;
  int max_seats = 2;
  bool teams = false;  // true: seats form teams (doubles)
  Glicko2Params glicko2;
  WengLinParams weng_lin;
  ProvisionalRule provisional;
  SeasonReset season_reset;
  // A player without a rated game on the ladder for this many days leaves its board (the rating
  // is kept) until they play again.
  double inactive_days = 30;

  Rating Initial() const;
  // μ − 3σ (Weng-Lin) or r − 2·RD (Glicko-2): the leaderboard orders by this, so a new player
  // cannot top it by one lucky win.
  double Conservative(const Rating& r) const;
  bool Provisional(const Rating& r) const;
  Rating ApplySeasonReset(const Rating& r) const;
  // Deviation growth for time without a game (the value is unchanged).
  Rating Idle(const Rating& r, double idle_days) const;

  // The number shown to people, on one scale for every ladder: Glicko-2's own (r, new players
  // 1500). Weng-Lin's ordinal μ − 3σ mapped linearly onto it:
  //   display = 1500 + k·(μ − 3σ − μ₀),  k = 400 / (ln 10 · √2 · β)  (29.48 for β = 25/6)
  // so a perfectly known average player (μ = μ₀ = 25, σ → 0) shows 1500, and a gap of k·Δ
  // between two established players means the same odds as a gap of k·Δ Glicko-2 points
  // (Glicko-2: 400 points = 10:1; Plackett–Luce: e^(Δμ/c), c ≈ √2·β once σ is small). Like the
  // ordinal it is conservative: a new player (μ 25, σ 8.33) shows 763 and climbs as σ shrinks.
  double Display(const Rating& r) const;
  // The k above (Weng-Lin); 1 for Glicko-2.
  double DisplayPointsPerUnit() const;
};

// One seat of a finished game, as the rating update needs it.
struct Participant {
  Rating rating;           // before the game (as stored; idle growth is applied by Rate)
  double idle_days = 0.0;  // days since the player's previous rated game on this ladder
  int side = 0;            // the seat's team, or the seat itself in a game without teams
  int rank = 1;            // 1 = best; equal ranks are a tie; team-mates share a rank
};

// Rates one game on `ladder`: every participant's new rating, in input order, with `games`
// incremented. INVALID_ARGUMENT when the participants do not fit the ladder's model (a Glicko-2
// ladder needs exactly two sides of one player; team-mates must share a rank; at least two sides).
absl::StatusOr<std::vector<Rating>> Rate(const LadderSpec& ladder,
                                         const std::vector<Participant>& participants);

// What a game's ladders derive from: its engine metadata (engine::GameInfo), without depending on
// the engine.
struct GameFacts {
  std::string game;  // engine game id
  int min_players = 2;
  int max_players = 2;
  bool has_teams = false;
};

// Per game id, ladders that replace the derived ones (a game whose modes are different games to
// its players).
using LadderOverrides = std::map<std::string, std::vector<LadderSpec>, std::less<>>;

// The ladders derived from one game's facts (the table above), without overrides.
std::vector<LadderSpec> DerivedLadders(const GameFacts& game);
// Parlor's one override: Picadice's duel, doubles and free-for-all are separate ladders.
LadderOverrides ParlorLadderOverrides();

// The shape of a finished game, from which its ladder is derived.
struct GameShape {
  std::string game;  // engine game id: "pico", "picadice", ...
  int seats = 0;
  std::vector<int> team_of;  // team per seat; empty when the game has no teams
};

class LadderRegistry {
 public:
  // Every game's ladders: its override when it has one, else the derived ones, in the order
  // of `games`.
  static LadderRegistry Derive(const std::vector<GameFacts>& games,
                               const LadderOverrides& overrides = ParlorLadderOverrides());
  // The ladders listed above with Parlor's parameters: Derive over the five shipped games' facts,
  // for tools and tests without the engine (the services derive them from the engine's registry
  // with game_ladders.h; a test checks that both agree).
  static LadderRegistry Default();

  void Add(LadderSpec spec);
  // NOT_FOUND for an unknown ladder name.
  absl::StatusOr<const LadderSpec*> Find(absl::string_view name) const;
  // The ladder a finished game counts for. INVALID_ARGUMENT (with a message naming what is
  // wrong) for an unknown game or a seat/team layout no ladder of that game takes.
  absl::StatusOr<const LadderSpec*> ForGame(const GameShape& shape) const;
  const std::vector<LadderSpec>& ladders() const { return ladders_; }

 private:
  std::vector<LadderSpec> ladders_;
};

}  // namespace parlor::ratings::model

#endif  // PARLOR_SERVICES_RATINGS_MODEL_LADDER_H_
