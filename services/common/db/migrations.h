#ifndef PARLOR_SERVICES_COMMON_DB_MIGRATIONS_H_
#define PARLOR_SERVICES_COMMON_DB_MIGRATIONS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace parlor {

// One service's schema migrations: the files `NNNN_name.sql` in `directory`, applied in version
// order into PostgreSQL schema `schema`, each recorded in `<schema>.schema_migrations` with a
// SHA-256 checksum of the file.
//
// The same code runs at service start-up and in the `migrate` subcommand (a Kubernetes Job).
// A runner holds a PostgreSQL advisory lock keyed by the schema, so any number of replicas may
// start at once: one applies, the others wait and then find nothing to do. The pending files run
// in one transaction with their ledger rows, all or nothing. A file whose checksum differs from
// the one recorded when it was applied is refused with FAILED_PRECONDITION: applied migrations
// are history, changes go into a new file.
//
// A file whose first line is `-- parlor:no-transaction` runs outside any transaction, statement by
// statement (split at each `;`, so none may hold one in a literal; comments take whole lines), and
// is recorded once all have run: it builds or drops indexes CONCURRENTLY, so that writes to a
// large table go on while its index is built (a transaction's CREATE INDEX makes them wait until
// it is done). Such a file holds only `CREATE [UNIQUE] INDEX CONCURRENTLY [IF NOT EXISTS] name ON
// ...` and `DROP INDEX CONCURRENTLY IF EXISTS name` statements, and may be interrupted anywhere:
// the next runner drops an index an interrupted build left invalid and builds it again, and keeps
// one that was completed. The transactional files pending before and after it run in their own
// transactions.
struct MigrationSet {
  std::string schema;
  std::string directory;
};

// A statement of a no-transaction file: an index built or dropped CONCURRENTLY.
struct ConcurrentIndexStatement {
  std::string sql;
  bool create = false;
  std::string index;  // its name, lower case (unquoted names are folded)
};

struct MigrationFile {
  int version = 0;
  std::string name;  // file name, e.g. "0001_create_accounts.sql"
  std::string sql;
  std::string checksum;  // hex SHA-256 of sql
  // The statements of a `-- parlor:no-transaction` file (never empty for one); empty otherwise.
  std::vector<ConcurrentIndexStatement> concurrent_statements;
  bool outside_transaction() const { return !concurrent_statements.empty(); }
};

struct MigrationResult {
  std::vector<std::string> applied;  // file names applied by this call
  int already_applied = 0;
};

// Reads and validates the directory (names, duplicate versions). Exposed for tests.
absl::StatusOr<std::vector<MigrationFile>> LoadMigrations(const std::string& directory);

// Applies whatever is pending. `db_url` is a libpq connection string.
absl::StatusOr<MigrationResult> ApplyMigrations(const std::string& db_url, const MigrationSet& set);

// OK when every file is applied with a matching checksum (readiness without applying, for
// deployments where a Job migrates); FAILED_PRECONDITION with what is missing otherwise.
absl::Status CheckMigrationsApplied(const std::string& db_url, const MigrationSet& set);

}  // namespace parlor

#endif  // PARLOR_SERVICES_COMMON_DB_MIGRATIONS_H_
