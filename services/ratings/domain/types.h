#ifndef PARLOR_SERVICES_RATINGS_DOMAIN_TYPES_H_
#define PARLOR_SERVICES_RATINGS_DOMAIN_TYPES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "services/ratings/model/ladder.h"

namespace parlor::ratings {

// A finished game as reported by the sessions service (see ReportResultRequest).
struct ResultSeat {
  int seat = 0;
  std::string account_id;
  int team = 0;  // the seat number in games without teams
};
struct ResultPlacement {
  std::string account_id;
  int rank = 0;
};
struct GameResult {
  std::string game_id;
  std::string game;
  std::string ladder;  // optional expectation
  bool ranked = false;
  std::vector<ResultSeat> seats;
  std::vector<ResultPlacement> placements;
  absl::Time finish_time = absl::InfinitePast();
};

// Why a report was refused (the label of parlor_ratings_rejected_reports_total).
enum class RejectReason {
  kNone,
  kBadField,       // a missing or malformed field
  kUnknownGame,    // no ladder takes this game / layout, or the ladder hint is wrong
  kBadSeats,       // seats not 0..N-1, an account seated twice, bad teams
  kBadPlacements,  // placements that do not match the seats, bad ranks
  kConflict,       // game id already processed with a different result
};
const char* RejectReasonName(RejectReason reason);

// One seat of a validated result.
struct SeatedPlayer {
  int seat = 0;
  std::string account_id;  // canonical lower-case UUID
  int side = 0;            // team, or seat in games without teams
  int rank = 0;
};

// A result that passed validation: its ladder is known and its seats and placements agree.
struct ValidatedResult {
  std::string game_id;
  std::string game;
  const model::LadderSpec* ladder = nullptr;
  bool ranked = false;
  std::vector<SeatedPlayer> seats;  // in seat order
  absl::Time finish_time;
  std::string digest;  // SHA-256 (32 bytes) of the canonical result
};

// A rating as stored for (ladder, season, account), or derived for a player without a row.
struct RatingRecord {
  std::string ladder;
  std::string season_id;
  std::string account_id;
  model::Rating rating;
  double conservative = 0;
  int64_t season_games = 0;
  bool provisional = true;
  std::optional<absl::Time> last_game_time;
  // No rated game on the ladder within its inactive_days (or never): off the board.
  bool inactive = false;
};

struct Season {
  std::string season_id;
  std::string display_name;
  absl::Time start_time;
  std::optional<absl::Time> end_time;
  bool current = false;
};

// One player's change in one rated game.
struct RatingChange {
  int seat = 0;
  std::string account_id;
  int rank = 0;
  model::Rating before;  // after idle growth, before the game
  model::Rating after;
  double conservative_after = 0;
};

struct ReportOutcome {
  bool applied = false;
  bool replayed = false;
  std::string ladder;
  std::string season_id;
  std::vector<RatingChange> changes;  // seat order
};

// An operator's request to void a rated result (see RatingsStore::VoidResult).
struct VoidRequest {
  std::string game_id;
  std::string reason;       // why (1-1000 characters)
  std::string operator_id;  // who (1-128 printable characters)
};

// One rating row (player, season) a void changed: as it was and as it is after the replay.
// A row the void emptied (no rated game of that season left) is removed; `after` is then the
// rating the player starts that season with, with season_games_after 0.
struct VoidEffect {
  std::string account_id;
  std::string season_id;
  model::Rating before;
  int64_t season_games_before = 0;
  model::Rating after;
  int64_t season_games_after = 0;
};

// The record of a void (the first one's, on a repeated void).
struct VoidOutcome {
  bool voided = false;    // this call voided the result
  bool replayed = false;  // the result had already been voided; the rest is that void's record
  std::string game_id;
  std::string ladder;
  std::string season_id;
  std::string reason;
  std::string operator_id;
  absl::Time void_time;
  int replayed_games = 0;             // later results recomputed
  std::vector<RatingChange> removed;  // the voided game's own changes, seat order
  std::vector<VoidEffect> effects;    // by account id, then season
};

struct HistoryEntry {
  std::string game_id;
  std::string ladder;
  std::string season_id;
  int64_t seq = 0;
  absl::Time finish_time;
  RatingChange change;
};

struct BoardSnapshot {
  int64_t snapshot_id = 0;
  std::string ladder;
  std::string season_id;
  int64_t players = 0;
  absl::Time take_time;
};

struct BoardEntry {
  int64_t position = 0;
  RatingRecord record;
};

}  // namespace parlor::ratings

#endif  // PARLOR_SERVICES_RATINGS_DOMAIN_TYPES_H_
