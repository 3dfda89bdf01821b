// Party invitations: a member invites a player by account id; the player joins by the party's id
// while the invitation is open (no code), or declines.
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "services/matchmaking/domain/matchmaking_service.h"

namespace parlor::matchmaking {
namespace {

constexpr int kMaxListedInvites = 50;

}  // namespace

absl::StatusOr<PartyInviteRow> MatchmakingService::InviteToParty(const std::string& caller,
                                                                 const std::string& invitee) {
  if (absl::Status s = ValidateAccountId("account_id", invitee); !s.ok()) return s;
  if (!ValidateUuid("account_id", invitee).ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("account_id: must be an account id (a UUID), got \"", invitee, "\""));
  }
  if (invitee == caller) {
    return absl::InvalidArgumentError("account_id: you cannot invite yourself");
  }
  absl::StatusOr<std::map<std::string, std::string>> known = deps_.accounts->Lookup({invitee});
  if (!known.ok()) return known.status();
  if (!known->contains(invitee)) {
    return absl::NotFoundError(absl::StrCat("account_id: no account ", invitee, " exists"));
  }
  // Nobody joins a party where they and a member blocked the other: the store checks every member
  // against the invitee's blocks (both ways) in the invitation's transaction.
  absl::StatusOr<std::set<std::string>> blocked = BlockedEitherWay(invitee);
  if (!blocked.ok()) return blocked.status();
  const absl::Time now = deps_.clock();
  return deps_.store->InviteToParty(caller, invitee, now, now + options_.party_invite_ttl,
                                    *blocked);
}

absl::StatusOr<PartyRow> MatchmakingService::JoinParty(const std::string& caller,
                                                       const std::string& code,
                                                       const std::string& party_id) {
  if (code.empty() == party_id.empty()) {
    return absl::InvalidArgumentError("set exactly one of code and party_id");
  }
  if (party_id.empty()) return JoinParty(caller, code);
  if (absl::Status s = ValidateUuid("party_id", party_id); !s.ok()) return s;
  // The invitation lets the player in as its code would; joining accepts it.
  absl::StatusOr<std::string> invited_code =
      deps_.store->InvitedPartyCode(party_id, caller, deps_.clock());
  if (!invited_code.ok()) return invited_code.status();
  absl::StatusOr<std::set<std::string>> blocked = BlockedEitherWay(caller);
  if (!blocked.ok()) return blocked.status();
  absl::StatusOr<PartyRow> joined =
      deps_.store->JoinParty(*invited_code, caller, deps_.clock(), *blocked);
  if (joined.status().code() == absl::StatusCode::kNotFound) {
    // Disbanded in between: say so without naming its code.
    return absl::NotFoundError(absl::StrCat("party ", party_id, " was disbanded"));
  }
  return joined;
}

absl::Status MatchmakingService::DeclinePartyInvite(const std::string& caller,
                                                    const std::string& party_id) {
  if (absl::Status s = ValidateUuid("party_id", party_id); !s.ok()) return s;
  return deps_.store->DeclinePartyInvite(party_id, caller, deps_.clock());
}

absl::StatusOr<std::vector<PartyInviteRow>> MatchmakingService::ListMyPartyInvites(
    const std::string& caller) {
  return deps_.store->ListPartyInvites(caller, deps_.clock(), kMaxListedInvites);
}

}  // namespace parlor::matchmaking
