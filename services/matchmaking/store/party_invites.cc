// Party invitations (migration 0007): a member invites a player, who may then join the party by
// its id while the invitation is open. Writing an invitation writes the invitee's party_invite
// notification in the same transaction (the migration's trigger); joining the party, by code or
// by id, accepts it (another trigger).
#include <algorithm>
#include <cstdint>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "services/matchmaking/store/party_invite_sql.h"
#include "services/matchmaking/store/pg_matchmaking_store.h"

namespace parlor::matchmaking {
namespace {

int64_t Micros(absl::Time time) { return absl::ToUnixMicros(time); }

// A row of kOpenInvite / kListOpenInvites.
PartyInviteRow ToInvite(const pqxx::row& row) {
  PartyInviteRow invite;
  invite.party_id = row[0].as<std::string>();
  invite.inviter_id = row[1].as<std::string>();
  invite.account_id = row[2].as<std::string>();
  invite.create_time = absl::FromUnixMicros(row[3].as<int64_t>());
  invite.expire_time = absl::FromUnixMicros(row[4].as<int64_t>());
  invite.leader_id = row[5].as<std::string>();
  invite.max_size = row[6].as<int>();
  invite.members = absl::StrSplit(row[7].as<std::string>(), ',', absl::SkipEmpty());
  return invite;
}

absl::Status NoOpenInvite(const std::string& party_id) {
  return absl::NotFoundError(absl::StrCat("you have no open invitation to party ", party_id,
                                          " (never invited, declined, expired, or the party was "
                                          "disbanded)"));
}

}  // namespace

absl::StatusOr<PartyInviteRow> PgMatchmakingStore::InviteToParty(
    const std::string& inviter, const std::string& invitee, absl::Time now, absl::Time expire_time,
    const std::set<std::string>& invitee_blocked_with) {
  PartyInviteRow result;
  absl::Status status = db_->Transact("invite_to_party", [&](pqxx::work& txn) -> absl::Status {
    pqxx::result party = txn.exec_params(sql::kLockInvitersParty, inviter);
    if (party.empty()) {
      return absl::NotFoundError("you are not in a party; CreateParty first, then invite");
    }
    const std::string party_id = party[0][0].as<std::string>();
    const int max_size = party[0][2].as<int>();
    std::vector<std::string> members;
    for (const pqxx::row& m : txn.exec_params(sql::kPartyMemberIds, party_id)) {
      members.push_back(m[0].as<std::string>());
    }
    if (std::find(members.begin(), members.end(), invitee) != members.end()) {
      return absl::FailedPreconditionError(
          absl::StrCat("account_id: ", invitee, " is already in your party"));
    }
    if (static_cast<int>(members.size()) >= max_size) {
      return absl::FailedPreconditionError(
          absl::StrCat("your party is full (", max_size, " players)"));
    }
    // Said alike whoever blocked whom, and whichever member it is.
    for (const std::string& member : members) {
      if (invitee_blocked_with.contains(member)) {
        return absl::FailedPreconditionError(absl::StrCat(
            "account_id: you cannot invite ", invitee,
            member == inviter ? ": one of you has blocked the other"
                              : ": they and a member of your party blocked the other"));
      }
    }
    txn.exec_params0(sql::kExpireOpenInvite, party_id, invitee, Micros(now));
    txn.exec_params0(sql::kInsertInvite, party_id, invitee, inviter, Micros(now),
                     Micros(expire_time));
    // The new invitation, or the open one it left alone.
    pqxx::result open = txn.exec_params(sql::kOpenInvite, party_id, invitee, Micros(now));
    if (open.empty()) return absl::InternalError("party invitation not written");
    result = ToInvite(open[0]);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return result;
}

absl::StatusOr<std::string> PgMatchmakingStore::InvitedPartyCode(const std::string& party_id,
                                                                 const std::string& account_id,
                                                                 absl::Time now) {
  std::string code;
  absl::Status status = db_->Read("invited_party", [&](pqxx::nontransaction& txn) -> absl::Status {
    pqxx::result open = txn.exec_params(sql::kOpenInvite, party_id, account_id, Micros(now));
    if (open.empty()) return NoOpenInvite(party_id);
    code = open[0][8].as<std::string>();
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return code;
}

absl::Status PgMatchmakingStore::DeclinePartyInvite(const std::string& party_id,
                                                    const std::string& account_id, absl::Time now) {
  return db_->Transact("decline_party_invite", [&](pqxx::work& txn) -> absl::Status {
    if (txn.exec_params(sql::kDeclineInvite, party_id, account_id, Micros(now)).empty()) {
      return NoOpenInvite(party_id);
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<std::vector<PartyInviteRow>> PgMatchmakingStore::ListPartyInvites(
    const std::string& account_id, absl::Time now, int limit) {
  std::vector<PartyInviteRow> result;
  absl::Status status = db_->Read("list_party_invites", [&](pqxx::nontransaction& txn) {
    result.clear();
    for (const pqxx::row& row :
         txn.exec_params(sql::kListOpenInvites, account_id, Micros(now), limit)) {
      result.push_back(ToInvite(row));
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return result;
}

}  // namespace parlor::matchmaking
