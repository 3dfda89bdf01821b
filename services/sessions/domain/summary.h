#ifndef PARLOR_SERVICES_SESSIONS_DOMAIN_SUMMARY_H_
#define PARLOR_SERVICES_SESSIONS_DOMAIN_SUMMARY_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "google/protobuf/any.pb.h"
#include "services/sessions/store/rows.h"

// What the sessions domain answers with: games as a viewer sees them, their history, chat and
// rematch offers. The API maps them to its messages (api/mapping.h); the engine's own types (a
// view or an action, each an Any holding the game's message) pass through as they are.
namespace parlor::sessions {

// One seat of a game.
struct SeatSummary {
  int seat = 0;
  std::string account_id;  // empty for a computer seat
  std::string display_name;
  int team = 0;
  std::string bot;  // empty for a player
  bool forfeited = false;
  // What is left in the seat's bank (time bank games only).
  std::optional<absl::Duration> time_bank_remaining;
  absl::Duration vacation_used;
  // While the seat's player is on vacation: when it ends.
  std::optional<absl::Time> vacation_until;
  int timeouts_in_a_row = 0;
};

// How a finished game ended.
struct Outcome {
  std::vector<int> ranks;       // per seat, 1 best
  std::vector<int64_t> scores;  // per seat, the game's own
  std::string reason;
};

// One version of a game as the caller may see it (GetHistory, WatchGame, a game's last move).
struct HistoryEvent {
  int64_t version = 0;
  LogRow::Kind kind = LogRow::Kind::kSetup;
  LogRow::Cause cause = LogRow::Cause::kSystem;
  int seat = -1;  // -1 for the setup
  std::string description;
  // The caller's view at this version (unset in a game's last move).
  std::optional<google::protobuf::Any> view;
  // The move as the game's Action, when the caller may know it.
  std::optional<google::protobuf::Any> action;
  absl::Time time;
};

// A game as one viewer sees it (without the typed view): my_seat -1 for a spectator.
struct GameSummary {
  std::string game_id;
  std::string game;
  std::map<std::string, std::string> options;
  bool ranked = false;
  bool finished = false;
  int64_t version = 0;
  std::vector<SeatSummary> seats;
  std::vector<int> acting_seats;
  int my_seat = -1;
  bool my_turn = false;
  TimeControlRow time_control;
  std::optional<absl::Time> deadline;
  std::string seed_commitment;
  std::string seed;                // hex, once the game has ended
  std::optional<Outcome> outcome;  // once the game has ended
  absl::Time create_time;
  absl::Time update_time;
  std::string match_id;
  bool is_public = false;
  std::string rematch_of;
  // The caller's inbox (ListMyGames and GetGame, seated callers only; 0 otherwise).
  int64_t seen_version = 0;
  int64_t unseen_versions = 0;
  // ListMyGames' with_last_move: the last move without its view.
  std::optional<HistoryEvent> last_move;
};

// A new game (CreateGame, CreateBotGame): false `created` when a retry found it.
struct CreatedGame {
  GameSummary game;
  bool created = false;
};

// A game with the caller's view and, when it must act, its legal actions (GetGame, and
// SubmitAction's answer).
struct GameWithView {
  GameSummary game;
  google::protobuf::Any view;
  std::vector<google::protobuf::Any> legal_actions;
};

// One page of a listing of games; next_page_token empty on the last.
struct GamePage {
  std::vector<GameSummary> games;
  std::string next_page_token;
};

// One page of a game's history.
struct History {
  std::vector<HistoryEvent> events;
  int64_t current_version = 0;
};

// One version as WatchGame sends it: its event and the game's summary as of its commit.
struct FeedItem {
  HistoryEvent event;
  GameSummary game;
};

// One chat message of a game.
struct ChatMessage {
  int64_t message_id = 0;
  std::string game_id;
  int seat = 0;  // the sender's
  std::string account_id;
  std::string text;
  int64_t game_version = 0;  // the game's version when it was sent
  absl::Time created_at;
};

// One page of a game's chat, newest first; next_before_message_id 0 on the last.
struct ChatPage {
  std::vector<ChatMessage> messages;
  int64_t next_before_message_id = 0;
};

// A rematch offer of a finished game.
struct Rematch {
  std::string game_id;
  std::string offered_by_account_id;
  std::vector<std::string> accepted_account_ids;  // the offerer first
  bool declined = false;
  absl::Time offer_time;
  absl::Time expire_time;
  std::string new_game_id;  // once every player accepted
  bool pending = false;
};

// A rematch RPC's answer: the offer and, once every player accepted, the new game as the caller
// sees it.
struct RematchAnswer {
  Rematch rematch;
  std::optional<GameSummary> game;
};

}  // namespace parlor::sessions

#endif  // PARLOR_SERVICES_SESSIONS_DOMAIN_SUMMARY_H_
