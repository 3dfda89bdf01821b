#ifndef PARLOR_SERVICES_SESSIONS_TESTING_STORED_RECORD_H_
#define PARLOR_SERVICES_SESSIONS_TESTING_STORED_RECORD_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "parlor/engine/v1/record.pb.h"
#include "pqxx/pqxx"
#include "services/sessions/domain/engine_glue.h"

namespace parlor::testing {

// A game as the database holds it: its snapshot (which leaves the log out), that record made
// whole again with the game's log rows, and the row's version. Read in one transaction.
struct StoredGameRecord {
  engine::v1::GameRecord snapshot;
  engine::v1::GameRecord whole;
  int64_t version = 0;
};

inline absl::StatusOr<StoredGameRecord> ReadStoredGameRecord(const std::string& db_url,
                                                             const std::string& game_id) {
  pqxx::connection connection(db_url);
  pqxx::read_transaction txn(connection);
  const pqxx::row row = txn.exec_params1(
      "SELECT snapshot, version FROM sessions.games WHERE game_id = $1::uuid", game_id);
  StoredGameRecord out;
  out.version = row[1].as<int64_t>();
  absl::StatusOr<engine::v1::GameRecord> snapshot =
      sessions::ParseRecord(pqxx::binarystring(row[0]).str());
  if (!snapshot.ok()) return snapshot.status();
  out.snapshot = *std::move(snapshot);
  std::vector<std::string> entries;
  for (const pqxx::row& r : txn.exec_params(
           "SELECT entry FROM sessions.actions WHERE game_id = $1::uuid AND version > 0 "
           "ORDER BY version",
           game_id)) {
    entries.push_back(pqxx::binarystring(r[0]).str());
  }
  absl::StatusOr<engine::v1::GameRecord> whole = sessions::WithLogEntries(out.snapshot, entries);
  if (!whole.ok()) return whole.status();
  out.whole = *std::move(whole);
  return out;
}

}  // namespace parlor::testing

#endif  // PARLOR_SERVICES_SESSIONS_TESTING_STORED_RECORD_H_
