#include "services/matchmaking/store/pg_matchmaking_store.h"

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "services/common/core/crypto.h"
#include "services/common/db/pg_array.h"
#include "services/matchmaking/store/sql.h"

namespace parlor::matchmaking {
namespace {

int64_t Micros(absl::Time time) { return absl::ToUnixMicros(time); }
absl::Time FromMicros(int64_t micros) { return absl::FromUnixMicros(micros); }

// A random (version 4) UUID in its text form.
std::string NewUuid() {
  std::string b = RandomBytes(16);
  b[6] = static_cast<char>((b[6] & 0x0f) | 0x40);
  b[8] = static_cast<char>((b[8] & 0x3f) | 0x80);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(36);
  for (size_t i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    out += kHex[(static_cast<unsigned char>(b[i]) >> 4) & 0xf];
    out += kHex[static_cast<unsigned char>(b[i]) & 0xf];
  }
  return out;
}

std::vector<std::string> SplitList(const std::string& text) {
  if (text.empty()) return {};
  return absl::StrSplit(text, ',');
}

std::vector<int> SplitInts(const std::string& text) {
  std::vector<int> out;
  for (absl::string_view part : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    int value = 0;
    if (absl::SimpleAtoi(part, &value)) out.push_back(value);
  }
  return out;
}

TicketState ParseTicketState(const std::string& state) {
  if (state == "matched") return TicketState::kMatched;
  if (state == "cancelled") return TicketState::kCancelled;
  if (state == "expired") return TicketState::kExpired;
  return TicketState::kWaiting;
}

ChallengeState ParseChallengeState(const std::string& state) {
  if (state == "accepted") return ChallengeState::kAccepted;
  if (state == "declined") return ChallengeState::kDeclined;
  if (state == "expired") return ChallengeState::kExpired;
  return ChallengeState::kOpen;
}

// `o`: the index of the ticket's first column in `row`.
TicketRow ToTicket(const pqxx::row& row, int o = 0) {
  TicketRow t;
  t.ticket_id = row[o + 0].as<std::string>();
  t.owner_id = row[o + 1].as<std::string>();
  t.game = row[o + 2].as<std::string>();
  t.options = row[o + 3].as<std::string>();
  t.ranked = row[o + 4].as<bool>();
  t.player_counts = SplitInts(row[o + 5].as<std::string>());
  t.party_id = row[o + 6].as<std::string>();
  t.members = SplitList(row[o + 7].as<std::string>());
  t.rating = row[o + 8].as<double>();
  t.state = ParseTicketState(row[o + 9].as<std::string>());
  t.match_id = row[o + 10].as<std::string>();
  t.game_id = row[o + 11].as<std::string>();
  t.create_time = FromMicros(row[o + 12].as<int64_t>());
  t.expire_time = FromMicros(row[o + 13].as<int64_t>());
  t.update_time = FromMicros(row[o + 14].as<int64_t>());
  t.properties = row[o + 15].as<std::string>();
  t.requirements = row[o + 16].as<std::string>();
  t.time_control = row[o + 17].as<std::string>();
  t.visibility = row[o + 18].as<std::string>();
  return t;
}

ChallengeRow ToChallenge(pqxx::work& txn, const pqxx::row& row) {
  ChallengeRow c;
  c.challenge_id = row[0].as<std::string>();
  c.challenger_id = row[1].as<std::string>();
  c.game = row[2].as<std::string>();
  c.options = row[3].as<std::string>();
  c.ranked = row[4].as<bool>();
  c.player_count = row[5].as<int>();
  c.invite_code = row[6].as<std::string>();
  c.state = ParseChallengeState(row[7].as<std::string>());
  c.match_id = row[8].as<std::string>();
  c.game_id = row[9].as<std::string>();
  c.create_time = FromMicros(row[10].as<int64_t>());
  c.expire_time = FromMicros(row[11].as<int64_t>());
  c.update_time = FromMicros(row[12].as<int64_t>());
  c.time_control = row[13].as<std::string>();
  c.visibility = row[14].as<std::string>();
  for (const pqxx::row& p : txn.exec_params(sql::kChallengePlayers, c.challenge_id)) {
    c.players.push_back({p[0].as<std::string>(), p[1].as<bool>()});
  }
  return c;
}

MatchRow ToMatch(const pqxx::row& row) {
  MatchRow m;
  m.match_id = row[0].as<std::string>();
  m.source = row[1].as<std::string>();
  m.game = row[2].as<std::string>();
  m.options = row[3].as<std::string>();
  m.ranked = row[4].as<bool>();
  m.seat_accounts = SplitList(row[5].as<std::string>());
  m.seat_teams = SplitInts(row[6].as<std::string>());
  m.rating_spread = row[7].as<double>();
  m.create_time = FromMicros(row[8].as<int64_t>());
  m.game_id = row[9].as<std::string>();
  m.attempts = row[10].as<int>();
  m.time_control = row[11].as<std::string>();
  m.visibility = row[12].as<std::string>();
  return m;
}

PartyRow ToParty(pqxx::work& txn, const pqxx::row& row) {
  PartyRow p;
  p.party_id = row[0].as<std::string>();
  p.code = row[1].as<std::string>();
  p.leader_id = row[2].as<std::string>();
  p.max_size = row[3].as<int>();
  p.create_time = FromMicros(row[4].as<int64_t>());
  for (const pqxx::row& m : txn.exec_params(sql::kPartyMembers, p.party_id)) {
    p.members.push_back(m[0].as<std::string>());
  }
  return p;
}

absl::Status TicketNotFound(const std::string& ticket_id) {
  return absl::NotFoundError(
      absl::StrCat("ticket ", ticket_id, " not found (it does not exist or is not yours)"));
}

absl::Status ChallengeNotFound() {
  return absl::NotFoundError(
      "challenge not found (it does not exist or you were not invited to it)");
}

// Inserts a match row (game still to create) and returns its id.
std::string InsertMatch(pqxx::work& txn, const std::string& source, const std::string& game,
                        const std::string& options, bool ranked,
                        const std::vector<std::string>& seat_accounts,
                        const std::vector<int>& seat_teams, double rating_spread, absl::Time now,
                        const std::string& time_control, const std::string& visibility) {
  return txn
      .exec_params1(sql::kInsertMatch, source, game, options, ranked, PgTextArray(seat_accounts),
                    PgIntArray(seat_teams), rating_spread, Micros(now), time_control, visibility)[0]
      .as<std::string>();
}

}  // namespace

// ---- Tickets ------------------------------------------------------------------------------------

absl::StatusOr<TicketRow> PgMatchmakingStore::InsertTicket(const TicketRow& ticket) {
  TicketRow result;
  absl::Status status = db_->Transact("insert_ticket", [&](pqxx::work& txn) -> absl::Status {
    if (!ticket.party_id.empty()) {
      pqxx::result party = txn.exec_params(sql::kLockPartyById, ticket.party_id);
      if (party.empty()) {
        return absl::NotFoundError(absl::StrCat("party ", ticket.party_id, " not found"));
      }
      PartyRow row = ToParty(txn, party[0]);
      if (row.leader_id != ticket.owner_id || row.members != ticket.members) {
        return absl::AbortedError("the party changed while enqueueing; retry");
      }
    }
    const std::string id =
        txn.exec_params1(sql::kInsertTicket, ticket.owner_id, ticket.game, ticket.options,
                         ticket.ranked, PgIntArray(ticket.player_counts), ticket.party_id,
                         PgTextArray(ticket.members), ticket.rating, Micros(ticket.create_time),
                         Micros(ticket.expire_time), ticket.properties, ticket.requirements,
                         PgTextArray(ticket.avoid), ticket.time_control, ticket.visibility)[0]
            .as<std::string>();
    txn.exec_params0(sql::kReleaseStaleTicketPlayers, PgTextArray(ticket.members), ticket.game,
                     ticket.ranked);
    pqxx::result players =
        txn.exec_params(sql::kInsertTicketPlayers, id, PgTextArray(ticket.members), ticket.game,
                        ticket.ranked, Micros(ticket.create_time));
    if (players.size() != ticket.members.size()) {
      std::vector<std::string> inserted;
      for (const pqxx::row& row : players) inserted.push_back(row[0].as<std::string>());
      std::string holder = ticket.members[0];
      for (const std::string& member : ticket.members) {
        if (std::find(inserted.begin(), inserted.end(), member) == inserted.end()) {
          holder = member;
          break;
        }
      }
      return absl::AlreadyExistsError(absl::StrCat(
          holder == ticket.owner_id ? "you already have"
                                    : absl::StrCat("party member ", holder, " already has"),
          " a waiting ", ticket.ranked ? "ranked" : "casual", " ticket for ", ticket.game,
          "; cancel it first or wait for it to be matched"));
    }
    result = ToTicket(txn.exec_params1(sql::kGetTicket, id, ticket.owner_id));
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return result;
}

absl::StatusOr<TicketRow> PgMatchmakingStore::GetTicket(const std::string& ticket_id,
                                                        const std::string& account_id) {
  TicketRow result;
  absl::Status status = db_->Transact("get_ticket", [&](pqxx::work& txn) -> absl::Status {
    pqxx::result rows = txn.exec_params(sql::kGetTicket, ticket_id, account_id);
    if (rows.empty()) return TicketNotFound(ticket_id);
    result = ToTicket(rows[0]);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return result;
}

absl::StatusOr<TicketRow> PgMatchmakingStore::CancelTicket(const std::string& ticket_id,
                                                           const std::string& account_id,
                                                           absl::Time now) {
  TicketRow result;
  absl::Status status = db_->Transact("cancel_ticket", [&](pqxx::work& txn) -> absl::Status {
    pqxx::result locked = txn.exec_params(sql::kLockTicketState, ticket_id, account_id);
    if (locked.empty()) return TicketNotFound(ticket_id);
    const TicketState state = ParseTicketState(locked[0][0].as<std::string>());
    if (state == TicketState::kMatched || state == TicketState::kExpired) {
      return absl::FailedPreconditionError(absl::StrCat(
          "ticket ", ticket_id, " was already ",
          state == TicketState::kMatched ? "matched" : "expired", " and cannot be cancelled"));
    }
    if (state == TicketState::kWaiting) {
      txn.exec_params0(sql::kCancelTicket, ticket_id, Micros(now));
      txn.exec_params0(sql::kReleaseTicketPlayers, PgTextArray({ticket_id}));
    }
    result = ToTicket(txn.exec_params1(sql::kGetTicket, ticket_id, account_id));
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return result;
}

absl::StatusOr<std::vector<WatchedTicket>> PgMatchmakingStore::WatchTickets(
    const std::vector<TicketWatchQuery>& queries, int limit) {
  // The round's first and later rounds, each kind as one statement's arrays; `index` maps a
  // statement's entry back to its query.
  struct Batch {
    std::vector<size_t> index;
    std::vector<std::string> accounts;
    std::vector<int64_t> after;
    std::vector<std::string> unfinished;
  };
  Batch first;
  Batch later;
  for (size_t i = 0; i < queries.size(); ++i) {
    const TicketWatchQuery& q = queries[i];
    Batch& batch = q.first_round ? first : later;
    batch.index.push_back(i);
    batch.accounts.push_back(q.account_id);
    batch.after.push_back(Micros(q.changed_after));
    if (!q.first_round) batch.unfinished.push_back(absl::StrJoin(q.unfinished_ticket_ids, ","));
  }
  std::vector<WatchedTicket> result;
  const auto read = [&result, limit](pqxx::work& txn, const Batch& batch, bool first_round) {
    if (batch.index.empty()) return;
    const pqxx::result rows =
        first_round
            ? txn.exec_params(sql::kOpenTicketsOfAccounts, PgTextArray(batch.accounts),
                              PgIntArray(batch.after), limit)
            : txn.exec_params(sql::kChangedTicketsOfAccounts, PgTextArray(batch.accounts),
                              PgIntArray(batch.after), PgTextArray(batch.unfinished), limit);
    for (const pqxx::row& row : rows) {
      const int64_t n = row[0].as<int64_t>();
      if (n < 1 || n > static_cast<int64_t>(batch.index.size())) continue;
      result.push_back(WatchedTicket{batch.index[static_cast<size_t>(n - 1)], row[1].as<bool>(),
                                     ToTicket(row, 2)});
    }
  };
  absl::Status status = db_->Transact("watch_tickets", [&](pqxx::work& txn) -> absl::Status {
    result.clear();
    read(txn, first, true);
    read(txn, later, false);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return result;
}

absl::StatusOr<std::vector<TicketRow>> PgMatchmakingStore::ListTickets(
    const std::string& account_id, absl::Time changed_after, int limit) {
  std::vector<TicketRow> result;
  absl::Status status = db_->Transact("list_tickets", [&](pqxx::work& txn) -> absl::Status {
    result.clear();
    for (const pqxx::row& row :
         txn.exec_params(sql::kListTickets, account_id, Micros(changed_after), limit)) {
      result.push_back(ToTicket(row));
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return result;
}

// ---- Parties ------------------------------------------------------------------------------------

absl::StatusOr<PartyRow> PgMatchmakingStore::CreateParty(const std::string& leader_id, int max_size,
                                                         const std::string& code, absl::Time now) {
  PartyRow result;
  absl::Status status = db_->Transact("create_party", [&](pqxx::work& txn) -> absl::Status {
    pqxx::result inserted =
        txn.exec_params(sql::kInsertParty, code, leader_id, max_size, Micros(now));
    if (inserted.empty()) return absl::AbortedError("party code collision; retry");
    const std::string party_id = inserted[0][0].as<std::string>();
    if (txn.exec_params(sql::kInsertPartyMember, leader_id, party_id, Micros(now)).empty()) {
      return absl::FailedPreconditionError(
          "you are already in a party; LeaveParty first to create a new one");
    }
    result = ToParty(txn, txn.exec_params1(sql::kLockPartyById, party_id));
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return result;
}

absl::StatusOr<PartyRow> PgMatchmakingStore::JoinParty(const std::string& code,
                                                       const std::string& account_id,
                                                       absl::Time now,
                                                       const std::set<std::string>& blocked_with) {
  PartyRow result;
  absl::Status status = db_->Transact("join_party", [&](pqxx::work& txn) -> absl::Status {
    pqxx::result party = txn.exec_params(sql::kLockPartyByCode, code);
    if (party.empty()) {
      return absl::NotFoundError(absl::StrCat("no party has code ", code));
    }
    PartyRow row = ToParty(txn, party[0]);
    if (std::find(row.members.begin(), row.members.end(), account_id) != row.members.end()) {
      result = row;  // already a member: joining again is a no-op
      return absl::OkStatus();
    }
    if (static_cast<int>(row.members.size()) >= row.max_size) {
      return absl::FailedPreconditionError(
          absl::StrCat("the party is full (", row.max_size, " players)"));
    }
    for (const std::string& member : row.members) {
      if (blocked_with.contains(member)) {
        return absl::FailedPreconditionError(
            "you cannot join this party: you and one of its members blocked the other");
      }
    }
    if (txn.exec_params(sql::kInsertPartyMember, account_id, row.party_id, Micros(now)).empty()) {
      return absl::FailedPreconditionError("you are already in another party; LeaveParty first");
    }
    // The party's waiting tickets were made for the old line-up.
    pqxx::result cancelled = txn.exec_params(sql::kCancelPartyTickets, row.party_id, Micros(now));
    std::vector<std::string> ids;
    for (const pqxx::row& r : cancelled) ids.push_back(r[0].as<std::string>());
    if (!ids.empty()) txn.exec_params0(sql::kReleaseTicketPlayers, PgTextArray(ids));
    result = ToParty(txn, party[0]);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return result;
}

absl::Status PgMatchmakingStore::LeaveParty(const std::string& account_id, absl::Time now) {
  return db_->Transact("leave_party", [&](pqxx::work& txn) -> absl::Status {
    pqxx::result party = txn.exec_params(sql::kLockPartyOfMember, account_id);
    if (party.empty()) return absl::NotFoundError("you are not in a party");
    const std::string party_id = party[0][0].as<std::string>();
    const bool leader = party[0][1].as<std::string>() == account_id;
    pqxx::result cancelled = txn.exec_params(sql::kCancelPartyTickets, party_id, Micros(now));
    std::vector<std::string> ids;
    for (const pqxx::row& r : cancelled) ids.push_back(r[0].as<std::string>());
    if (!ids.empty()) txn.exec_params0(sql::kReleaseTicketPlayers, PgTextArray(ids));
    if (leader) {
      txn.exec_params0(sql::kDeleteParty, party_id);
    } else {
      txn.exec_params0(sql::kDeletePartyMember, account_id);
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<PartyRow> PgMatchmakingStore::GetParty(const std::string& party_id) {
  PartyRow result;
  absl::Status status = db_->Transact("get_party", [&](pqxx::work& txn) -> absl::Status {
    pqxx::result party = txn.exec_params(sql::kLockPartyById, party_id);
    if (party.empty()) return absl::NotFoundError(absl::StrCat("party ", party_id, " not found"));
    result = ToParty(txn, party[0]);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return result;
}

// ---- Challenges ---------------------------------------------------------------------------------

absl::StatusOr<ChallengeRow> PgMatchmakingStore::InsertChallenge(const ChallengeRow& challenge) {
  ChallengeRow result;
  absl::Status status = db_->Transact("insert_challenge", [&](pqxx::work& txn) -> absl::Status {
    pqxx::result inserted = txn.exec_params(
        sql::kInsertChallenge, challenge.challenger_id, challenge.game, challenge.options,
        challenge.ranked, challenge.player_count, challenge.invite_code,
        Micros(challenge.create_time), Micros(challenge.expire_time), challenge.time_control,
        challenge.visibility);
    if (inserted.empty()) return absl::AbortedError("invite code collision; retry");
    const std::string id = inserted[0][0].as<std::string>();
    for (size_t seat = 0; seat < challenge.players.size(); ++seat) {
      txn.exec_params0(sql::kInsertChallengePlayer, id, challenge.players[seat].account_id,
                       static_cast<int>(seat), challenge.players[seat].accepted);
    }
    result = ToChallenge(txn, txn.exec_params1(sql::kGetChallenge, id));
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return result;
}

absl::StatusOr<ChallengeRow> PgMatchmakingStore::AcceptChallenge(
    const std::string& challenge_id, const std::string& invite_code, const std::string& account_id,
    absl::Time now,
    const std::function<absl::StatusOr<std::vector<int>>(const ChallengeRow&)>& seat_teams) {
  ChallengeRow result;
  absl::Status status = db_->Transact("accept_challenge", [&](pqxx::work& txn) -> absl::Status {
    pqxx::result locked = invite_code.empty()
                              ? txn.exec_params(sql::kLockChallengeById, challenge_id)
                              : txn.exec_params(sql::kLockChallengeByCode, invite_code);
    if (locked.empty()) return ChallengeNotFound();
    ChallengeRow c = ToChallenge(txn, locked[0]);
    auto me = std::find_if(c.players.begin(), c.players.end(),
                           [&](const ChallengePlayer& p) { return p.account_id == account_id; });
    if (me == c.players.end() && invite_code.empty()) return ChallengeNotFound();
    if (me != c.players.end() && me->accepted) {
      result = c;  // accepting twice is a no-op
      return absl::OkStatus();
    }
    if (c.state != ChallengeState::kOpen || c.expire_time <= now) {
      return absl::FailedPreconditionError(
          absl::StrCat("the challenge is no longer open (",
                       c.state == ChallengeState::kDeclined   ? "declined"
                       : c.state == ChallengeState::kAccepted ? "already started"
                                                              : "expired",
                       ")"));
    }
    if (me == c.players.end()) {
      if (static_cast<int>(c.players.size()) >= c.player_count) {
        return absl::FailedPreconditionError("the challenge is already full");
      }
      txn.exec_params0(sql::kInsertChallengePlayer, c.challenge_id, account_id,
                       static_cast<int>(c.players.size()), true);
      c.players.push_back({account_id, true});
    } else {
      txn.exec_params0(sql::kAcceptChallengePlayer, c.challenge_id, account_id);
      me->accepted = true;
    }
    const bool complete = static_cast<int>(c.players.size()) == c.player_count &&
                          std::all_of(c.players.begin(), c.players.end(),
                                      [](const ChallengePlayer& p) { return p.accepted; });
    if (complete) {
      absl::StatusOr<std::vector<int>> teams = seat_teams(c);
      if (!teams.ok()) return teams.status();
      std::vector<std::string> accounts;
      for (const ChallengePlayer& p : c.players) accounts.push_back(p.account_id);
      const std::string match_id =
          InsertMatch(txn, "challenge", c.game, c.options, c.ranked, accounts, *teams, 0, now,
                      c.time_control, c.visibility);
      txn.exec_params0(sql::kSetChallengeState, c.challenge_id, "accepted", match_id, Micros(now));
    }
    result = ToChallenge(txn, txn.exec_params1(sql::kGetChallenge, c.challenge_id));
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return result;
}

absl::StatusOr<ChallengeRow> PgMatchmakingStore::DeclineChallenge(const std::string& challenge_id,
                                                                  const std::string& account_id,
                                                                  absl::Time now) {
  ChallengeRow result;
  absl::Status status = db_->Transact("decline_challenge", [&](pqxx::work& txn) -> absl::Status {
    pqxx::result locked = txn.exec_params(sql::kLockChallengeById, challenge_id);
    if (locked.empty()) return ChallengeNotFound();
    ChallengeRow c = ToChallenge(txn, locked[0]);
    if (std::none_of(c.players.begin(), c.players.end(),
                     [&](const ChallengePlayer& p) { return p.account_id == account_id; })) {
      return ChallengeNotFound();
    }
    if (c.state == ChallengeState::kDeclined) {
      result = c;
      return absl::OkStatus();
    }
    if (c.state != ChallengeState::kOpen || c.expire_time <= now) {
      return absl::FailedPreconditionError(
          "the challenge already ended (started or expired) and cannot be declined");
    }
    txn.exec_params0(sql::kSetChallengeState, c.challenge_id, "declined", "", Micros(now));
    result = ToChallenge(txn, txn.exec_params1(sql::kGetChallenge, c.challenge_id));
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return result;
}

absl::StatusOr<std::vector<ChallengeRow>> PgMatchmakingStore::ListChallenges(
    const std::string& account_id, absl::Time changed_after, int limit) {
  std::vector<ChallengeRow> result;
  absl::Status status = db_->Transact("list_challenges", [&](pqxx::work& txn) -> absl::Status {
    result.clear();
    for (const pqxx::row& row :
         txn.exec_params(sql::kListChallenges, account_id, Micros(changed_after), limit)) {
      result.push_back(ToChallenge(txn, row));
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return result;
}

// ---- Matcher ------------------------------------------------------------------------------------

absl::StatusOr<std::vector<PoolKey>> PgMatchmakingStore::ListPools(absl::Time now) {
  std::vector<PoolKey> result;
  absl::Status status = db_->Transact("list_pools", [&](pqxx::work& txn) -> absl::Status {
    result.clear();
    for (const pqxx::row& row : txn.exec_params(sql::kListPools, Micros(now))) {
      result.push_back({row[0].as<std::string>(), row[1].as<std::string>(), row[2].as<bool>(),
                        row[3].as<std::string>(), row[4].as<std::string>()});
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return result;
}

absl::StatusOr<std::vector<TicketRow>> PgMatchmakingStore::LoadPool(const PoolKey& pool,
                                                                    absl::Time now) {
  std::vector<TicketRow> result;
  absl::Status status = db_->Read("load_pool", [&](pqxx::nontransaction& txn) -> absl::Status {
    result.clear();
    const pqxx::result rows = txn.exec_params(sql::kLoadPool, pool.game, pool.options, pool.ranked,
                                              Micros(now), pool.time_control, pool.visibility);
    result.reserve(rows.size());
    for (const pqxx::row& row : rows) {
      TicketRow t;
      t.ticket_id = row[0].as<std::string>();
      t.owner_id = "";
      t.game = pool.game;
      t.options = pool.options;
      t.ranked = pool.ranked;
      t.time_control = pool.time_control;
      t.visibility = pool.visibility;
      t.members = SplitList(row[1].as<std::string>());
      if (!t.members.empty()) t.owner_id = t.members[0];
      t.rating = row[2].as<double>();
      t.create_time = FromMicros(row[3].as<int64_t>());
      t.player_counts = SplitInts(row[4].as<std::string>());
      t.properties = row[5].as<std::string>();
      t.requirements = row[6].as<std::string>();
      t.avoid = SplitList(row[7].as<std::string>());
      t.row_locator = row[8].as<std::string>();
      t.state = TicketState::kWaiting;
      result.push_back(std::move(t));
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return result;
}

absl::StatusOr<ClaimResult> PgMatchmakingStore::ClaimMatches(const PoolKey& pool,
                                                             const std::vector<TicketRow>& tickets,
                                                             const std::vector<PlannedMatch>& batch,
                                                             absl::Time now) {
  ClaimResult result;
  if (batch.empty()) return result;
  std::vector<std::string> ids, locators;
  std::unordered_set<std::string> batch_ids;
  for (const PlannedMatch& planned : batch) {
    for (size_t index : planned.tickets) {
      ids.push_back(tickets.at(index).ticket_id);
      locators.push_back(tickets.at(index).row_locator);
      batch_ids.insert(ids.back());
    }
  }
  // Match ids are made here so that each ticket's row can name its match in the same statement.
  std::vector<std::string> match_ids;
  match_ids.reserve(batch.size());
  for (size_t m = 0; m < batch.size(); ++m) match_ids.push_back(NewUuid());
  std::vector<std::string> ticket_matches;  // parallel to ids
  for (size_t m = 0; m < batch.size(); ++m) {
    ticket_matches.insert(ticket_matches.end(), batch[m].tickets.size(), match_ids[m]);
  }
  // Writes the rows of the planned matches `seated` (indices into batch) and records them.
  auto write_matches = [&](pqxx::work& txn, const std::vector<size_t>& seated) {
    std::vector<std::string> m_ids, m_seats, m_teams, m_spreads;
    for (size_t m : seated) {
      const PlannedMatch& planned = batch[m];
      m_ids.push_back(match_ids[m]);
      m_seats.push_back(absl::StrJoin(planned.seat_accounts, ","));
      m_teams.push_back(absl::StrJoin(planned.seat_teams, ","));
      m_spreads.push_back(absl::StrFormat("%.17g", planned.rating_spread));
      MatchRow match;
      match.match_id = match_ids[m];
      match.source = "queue";
      match.game = pool.game;
      match.options = pool.options;
      match.ranked = pool.ranked;
      match.time_control = pool.time_control;
      match.visibility = pool.visibility;
      match.seat_accounts = planned.seat_accounts;
      match.seat_teams = planned.seat_teams;
      match.rating_spread = planned.rating_spread;
      match.create_time = now;
      match.attempts = 0;
      result.matches.push_back(std::move(match));
      result.planned_index.push_back(m);
    }
    if (m_ids.empty()) return;
    db_->Run(txn, "mm_insert_matches", sql::kInsertMatches, PgTextArray(m_ids),
             PgTextArray(m_seats), PgTextArray(m_teams), PgTextArray(m_spreads), pool.game,
             pool.options, pool.ranked, Micros(now), pool.time_control, pool.visibility);
  };

  // The usual path: one UPDATE seats every match whose tickets are all still waiting where the
  // pass read them, with no separate locking step (each claimed row used to be locked, then
  // updated: two writes of the row and its WAL). Only a row that changes while the statement
  // runs sends the batch to the careful path below.
  bool careful = !claim_in_one_statement_;
  absl::Status status = absl::OkStatus();
  if (!careful) {
    status = db_->Transact("claim_matches", [&](pqxx::work& txn) -> absl::Status {
      result = ClaimResult();
      careful = false;
      if (!db_->Run(txn, "mm_try_lock_batch", sql::kTryLockBatch, ids.front())[0][0].as<bool>()) {
        result.skipped = true;
        return absl::OkStatus();
      }
      txn.exec0(sql::kClaimLockTimeout);
      pqxx::result seated_rows;
      try {
        seated_rows = db_->Run(txn, "mm_claim_waiting_tickets", sql::kClaimWaitingTickets,
                               PgTextArray(locators), PgTextArray(ids), PgTextArray(ticket_matches),
                               Micros(now));
      } catch (const pqxx::sql_error& e) {
        if (e.sqlstate() != "55P03") throw;  // lock_not_available: someone holds a row
        careful = true;
        return absl::AbortedError("a ticket of the batch is held; claiming it the careful way");
      }
      std::unordered_map<std::string, size_t> seated_per_match;
      for (const pqxx::row& row : seated_rows) ++seated_per_match[row[1].as<std::string>()];
      std::vector<size_t> seated;
      for (size_t m = 0; m < batch.size(); ++m) {
        auto it = seated_per_match.find(match_ids[m]);
        if (it == seated_per_match.end()) continue;
        if (it->second != batch[m].tickets.size()) {
          // A ticket changed during the statement: never write a part-seated match.
          careful = true;
          return absl::AbortedError("a ticket of the batch changed; claiming it the careful way");
        }
        seated.push_back(m);
      }
      write_matches(txn, seated);
      // The players' ticket_players flags stay set: their next Enqueue clears them.
      return absl::OkStatus();
    });
  }
  if (!careful) {
    if (!status.ok()) return status;
    return result;
  }

  // The careful path: locks those of the batch's tickets that are still waiting and that nobody
  // holds (SKIP LOCKED), and seats the matches all of whose tickets it got.
  status = db_->Transact("claim_matches_careful", [&](pqxx::work& txn) -> absl::Status {
    result = ClaimResult();
    result.careful = claim_in_one_statement_;
    if (!db_->Run(txn, "mm_try_lock_batch", sql::kTryLockBatch, ids.front())[0][0].as<bool>()) {
      result.skipped = true;
      return absl::OkStatus();
    }
    // Each locked ticket of the batch, with where its row is now.
    std::unordered_map<std::string, std::string> locked;
    for (const pqxx::row& row : db_->Run(txn, "mm_lock_claimable", sql::kLockClaimable,
                                         PgTextArray(locators), Micros(now))) {
      std::string id = row[1].as<std::string>();
      if (batch_ids.contains(id)) locked.emplace(std::move(id), row[0].as<std::string>());
    }
    std::vector<std::string> claim_locators, claim_ids, claim_matches;
    std::vector<size_t> seated;
    for (size_t m = 0; m < batch.size(); ++m) {
      const PlannedMatch& planned = batch[m];
      const bool all = std::all_of(planned.tickets.begin(), planned.tickets.end(), [&](size_t i) {
        return locked.contains(tickets.at(i).ticket_id);
      });
      if (!all) continue;
      for (size_t i : planned.tickets) {
        claim_locators.push_back(locked.at(tickets.at(i).ticket_id));
        claim_ids.push_back(tickets.at(i).ticket_id);
        claim_matches.push_back(match_ids[m]);
      }
      seated.push_back(m);
    }
    if (seated.empty()) return absl::OkStatus();
    write_matches(txn, seated);
    const pqxx::result updated =
        db_->Run(txn, "mm_claim_tickets", sql::kClaimTickets, PgTextArray(claim_locators),
                 PgTextArray(claim_ids), PgTextArray(claim_matches), Micros(now));
    if (updated.affected_rows() != claim_ids.size()) {
      // Cannot happen while the rows are locked; refuse to write a partial match.
      return absl::AbortedError("a ticket of a planned match is no longer waiting");
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return result;
}

absl::StatusOr<MatchmakingStore::PrunedRows> PgMatchmakingStore::PruneHistory(absl::Time before,
                                                                              int limit) {
  PrunedRows pruned;
  absl::Status status = db_->Transact("prune_history", [&](pqxx::work& txn) -> absl::Status {
    pruned.tickets = static_cast<int>(
        txn.exec_params0(sql::kPruneTickets, Micros(before), limit).affected_rows());
    pruned.challenges = static_cast<int>(
        txn.exec_params0(sql::kPruneChallenges, Micros(before), limit).affected_rows());
    pruned.matches = static_cast<int>(
        txn.exec_params0(sql::kPruneMatches, Micros(before), limit).affected_rows());
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return pruned;
}

absl::StatusOr<std::vector<TicketRow>> PgMatchmakingStore::ExpireDue(absl::Time now, int limit) {
  std::vector<TicketRow> result;
  absl::Status status = db_->Transact("expire_due", [&](pqxx::work& txn) -> absl::Status {
    result.clear();
    std::vector<std::string> ids;
    for (const pqxx::row& row : txn.exec_params(sql::kExpireTickets, Micros(now), limit)) {
      ids.push_back(row[0].as<std::string>());
    }
    if (!ids.empty()) {
      txn.exec_params0(sql::kReleaseTicketPlayers, PgTextArray(ids));
      for (const pqxx::row& row : txn.exec_params(sql::kGetTicketsByIds, PgTextArray(ids))) {
        result.push_back(ToTicket(row));
      }
    }
    txn.exec_params0(sql::kExpireChallenges, Micros(now));
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return result;
}

// ---- Outbox -------------------------------------------------------------------------------------

absl::StatusOr<std::vector<MatchRow>> PgMatchmakingStore::ClaimPendingMatches(absl::Time now,
                                                                              absl::Duration lease,
                                                                              int limit) {
  std::vector<MatchRow> result;
  absl::Status status = db_->Transact("claim_matches", [&](pqxx::work& txn) -> absl::Status {
    result.clear();
    for (const pqxx::row& row :
         txn.exec_params(sql::kClaimMatches, Micros(now), Micros(now + lease), limit)) {
      result.push_back(ToMatch(row));
    }
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return result;
}

absl::Status PgMatchmakingStore::MarkGameCreated(const std::string& match_id,
                                                 const std::string& game_id, absl::Time now) {
  return db_->Transact("mark_game_created", [&](pqxx::work& txn) -> absl::Status {
    txn.exec_params0(sql::kMarkGameCreated, match_id, game_id, Micros(now));
    txn.exec_params0(sql::kTouchMatchTickets, match_id, Micros(now));
    txn.exec_params0(sql::kTouchMatchChallenges, match_id, Micros(now));
    return absl::OkStatus();
  });
}

absl::Status PgMatchmakingStore::RecordCreateFailure(const std::string& match_id,
                                                     const std::string& error,
                                                     absl::Time next_attempt) {
  return db_->Transact("record_create_failure", [&](pqxx::work& txn) -> absl::Status {
    txn.exec_params0(sql::kRecordCreateFailure, match_id, error, Micros(next_attempt));
    return absl::OkStatus();
  });
}

absl::StatusOr<MatchRow> PgMatchmakingStore::GetMatch(const std::string& match_id) {
  MatchRow result;
  absl::Status status = db_->Transact("get_match", [&](pqxx::work& txn) -> absl::Status {
    pqxx::result rows = txn.exec_params(sql::kGetMatch, match_id);
    if (rows.empty()) return absl::NotFoundError(absl::StrCat("match ", match_id, " not found"));
    result = ToMatch(rows[0]);
    return absl::OkStatus();
  });
  if (!status.ok()) return status;
  return result;
}

}  // namespace parlor::matchmaking
