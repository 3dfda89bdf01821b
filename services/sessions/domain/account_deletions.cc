#include "services/sessions/domain/account_deletions.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace parlor::sessions {

absl::Status SessionsDeletionSink::Forget(const DeletedAccount& deleted) {
  absl::StatusOr<std::vector<std::string>> games = store_->ActiveGamesOf(deleted.account_id);
  if (!games.ok()) return games.status();
  for (const std::string& game_id : *games) {
    absl::Status resigned = sessions_->Resign(deleted.account_id, game_id).status();
    // FAILED_PRECONDITION: the game ended (or the seat left it) since it was listed.
    if (!resigned.ok() && !absl::IsFailedPrecondition(resigned)) {
      return absl::Status(resigned.code(),
                          absl::StrCat("resigning game ", game_id, ": ", resigned.message()));
    }
  }
  return store_->Erase(deleted);
}

}  // namespace parlor::sessions
