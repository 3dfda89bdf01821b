#include "services/common/db/migrations.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "pqxx/pqxx"
#include "services/common/core/crypto.h"
#include "services/common/core/logging.h"
#include "spdlog/spdlog.h"

namespace parlor {
namespace {

struct AppliedRow {
  std::string name;
  std::string checksum;
};

absl::Status ValidateSchemaName(const std::string& schema) {
  static const std::regex kSchema("^[a-z][a-z0-9_]{0,62}$");
  if (!std::regex_match(schema, kSchema)) {
    return absl::InvalidArgumentError(
        absl::StrCat("schema name \"", schema, "\" must match [a-z][a-z0-9_]*"));
  }
  return absl::OkStatus();
}

constexpr char kNoTransactionMarker[] = "-- parlor:no-transaction";

absl::StatusOr<std::vector<ConcurrentIndexStatement>> ParseNoTransactionFile(
    const std::string& name, const std::string& sql) {
  static const std::regex kCreate(
      R"(^CREATE\s+(UNIQUE\s+)?INDEX\s+CONCURRENTLY\s+(IF\s+NOT\s+EXISTS\s+)?([a-z_][a-z0-9_]*)\s+ON\s[\s\S]+$)",
      std::regex::icase);
  static const std::regex kDrop(
      R"(^DROP\s+INDEX\s+CONCURRENTLY\s+IF\s+EXISTS\s+([a-z_][a-z0-9_.]*)$)", std::regex::icase);
  std::string code;  // the file without its comment lines
  std::istringstream lines(sql);
  for (std::string line; std::getline(lines, line);) {
    const absl::string_view trimmed = absl::StripAsciiWhitespace(line);
    if (!absl::StartsWith(trimmed, "--")) absl::StrAppend(&code, line, "\n");
  }
  std::vector<ConcurrentIndexStatement> statements;
  const std::vector<absl::string_view> pieces = absl::StrSplit(code, ';');
  for (size_t i = 0; i < pieces.size(); ++i) {
    const absl::string_view statement = absl::StripAsciiWhitespace(pieces[i]);
    if (statement.empty()) continue;
    if (i + 1 == pieces.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat(name, ": the last statement of a no-transaction migration lacks its ';'"));
    }
    ConcurrentIndexStatement parsed;
    parsed.sql = std::string(statement);
    std::smatch match;
    if (std::regex_match(parsed.sql, match, kCreate)) {
      parsed.create = true;
      parsed.index = absl::AsciiStrToLower(match[3].str());
    } else if (std::regex_match(parsed.sql, match, kDrop)) {
      parsed.index = absl::AsciiStrToLower(match[1].str());
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          name,
          ": a no-transaction migration holds only CREATE [UNIQUE] INDEX CONCURRENTLY and "
          "DROP INDEX CONCURRENTLY IF EXISTS statements (each may be run again after an "
          "interruption); put \"",
          statement.substr(0, 40), "\" in a migration of its own"));
    }
    statements.push_back(std::move(parsed));
  }
  if (statements.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(name, ": a no-transaction migration is empty"));
  }
  return statements;
}

// The schema's migration lock, held from construction to destruction. A waiting runner polls
// instead of blocking: a blocked lock request holds a snapshot, and an index built CONCURRENTLY by
// the runner holding the lock waits for every older snapshot to go, so the two would wait for each
// other. The lock is released explicitly rather than left to the connection's end: behind a
// transaction pooler a session lock outlives the client on the pooled server connection, and every
// later runner handed another connection would wait for it forever.
class SchemaLock {
 public:
  SchemaLock(pqxx::connection& connection, const std::string& schema)
      : connection_(connection), schema_(schema) {
    pqxx::nontransaction txn(connection_, "migrate_lock");
    absl::Time next_log = absl::Now() + absl::Seconds(30);
    const std::string try_lock = absl::StrCat("SELECT pg_try_advisory_lock(", kKey, ")");
    while (!txn.exec_params1(try_lock, schema_)[0].as<bool>()) {
      if (absl::Now() >= next_log) {
        spdlog::info("migrations of schema {}: waiting for another runner to finish", schema_);
        next_log = absl::Now() + absl::Seconds(30);
      }
      absl::SleepFor(absl::Milliseconds(100));
    }
  }
  SchemaLock(const SchemaLock&) = delete;
  SchemaLock& operator=(const SchemaLock&) = delete;
  ~SchemaLock() {
    try {
      pqxx::nontransaction txn(connection_, "migrate_unlock");
      txn.exec_params1(absl::StrCat("SELECT pg_advisory_unlock(", kKey, ")"), schema_);
    } catch (const std::exception& e) {
      // A broken connection has released the lock with its session.
      spdlog::warn("migrations of schema {}: releasing the lock: {}", schema_, e.what());
    }
  }

 private:
  // Two-key advisory lock: a fixed namespace for migrations, then the schema ($1).
  static constexpr char kKey[] = "hashtext('parlor.migrations'), hashtext($1)";

  pqxx::connection& connection_;
  const std::string schema_;
};

// Creates the schema and ledger if needed, and reads the ledger (under the lock).
std::map<int, AppliedRow> ReadLedger(pqxx::work& txn, const std::string& schema) {
  const std::string quoted = txn.quote_name(schema);
  txn.exec0(absl::StrCat("CREATE SCHEMA IF NOT EXISTS ", quoted));
  txn.exec0(absl::StrCat("CREATE TABLE IF NOT EXISTS ", quoted,
                         ".schema_migrations ("
                         " version INTEGER PRIMARY KEY CHECK (version > 0),"
                         " name TEXT NOT NULL,"
                         " checksum TEXT NOT NULL CHECK (length(checksum) = 64),"
                         " applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"));
  std::map<int, AppliedRow> applied;
  for (const pqxx::row& row : txn.exec(
           absl::StrCat("SELECT version, name, checksum FROM ", quoted, ".schema_migrations"))) {
    applied[row[0].as<int>()] = {row[1].as<std::string>(), row[2].as<std::string>()};
  }
  return applied;
}

absl::Status CheckApplied(const std::vector<MigrationFile>& files,
                          const std::map<int, AppliedRow>& applied, const std::string& schema,
                          bool allow_pending) {
  for (const MigrationFile& file : files) {
    auto it = applied.find(file.version);
    if (it == applied.end()) {
      if (!allow_pending) {
        return absl::FailedPreconditionError(absl::StrCat(
            "migration ", file.name, " of schema ", schema,
            " is not applied yet; run the `migrate` command (or start with --migrate_on_start)"));
      }
      continue;
    }
    if (it->second.checksum != file.checksum) {
      return absl::FailedPreconditionError(absl::StrCat(
          "migration ", file.name, " of schema ", schema,
          " was edited after it was applied (recorded checksum ", it->second.checksum,
          ", file now ", file.checksum,
          "). Applied migrations must not change: restore the file and put the change in a new "
          "migration."));
    }
  }
  for (const auto& [version, row] : applied) {
    const bool known =
        std::any_of(files.begin(), files.end(),
                    [v = version](const MigrationFile& f) { return f.version == v; });
    if (!known) {
      // A newer release applied it; older replicas keep working during a rollout.
      spdlog::warn("schema {} has migration {} applied that this binary does not know", schema,
                   row.name);
    }
  }
  return absl::OkStatus();
}

// Runs a no-transaction file's statements one by one. An index of the schema left invalid by an
// interrupted CONCURRENTLY build is dropped and built again; one that was completed is kept.
absl::Status ApplyOutsideTransaction(pqxx::connection& connection, const std::string& schema,
                                     const MigrationFile& file) {
  pqxx::nontransaction txn(connection, "migrate_concurrently");
  const std::string quoted = txn.quote_name(schema);
  // For the rest of this run's own connection: its transactions set their own path.
  txn.exec0(absl::StrCat("SET search_path TO ", quoted));
  for (const ConcurrentIndexStatement& statement : file.concurrent_statements) {
    if (statement.create) {
      const pqxx::result existing = txn.exec_params(
          "SELECT i.indisvalid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid "
          "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relname = $2",
          schema, statement.index);
      if (!existing.empty() && existing[0][0].as<bool>()) {
        spdlog::info("migration {}: index {} was built by an earlier run; kept", file.name,
                     statement.index);
        continue;
      }
      if (!existing.empty()) {
        spdlog::warn(
            "migration {}: index {} was left invalid by an interrupted run; building it "
            "again",
            file.name, statement.index);
        txn.exec0(
            absl::StrCat("DROP INDEX CONCURRENTLY ", quoted, ".", txn.quote_name(statement.index)));
      }
    }
    try {
      txn.exec0(statement.sql);
    } catch (const pqxx::sql_error& e) {
      return absl::FailedPreconditionError(
          absl::StrCat("migration ", file.name, " failed: ", e.what()));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<MigrationFile>> LoadMigrations(const std::string& directory) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (!fs::is_directory(directory, error)) {
    return absl::NotFoundError(
        absl::StrCat("migrations directory ", directory, " does not exist (set --migrations_dir)"));
  }
  static const std::regex kName("^([0-9]{4})_[a-z0-9_]+\\.sql$");
  std::vector<MigrationFile> files;
  for (const fs::directory_entry& entry : fs::directory_iterator(directory)) {
    const std::string name = entry.path().filename().string();
    std::smatch match;
    if (!std::regex_match(name, match, kName)) {
      return absl::InvalidArgumentError(absl::StrCat("unexpected file ", name, " in ", directory,
                                                     "; migrations are named NNNN_name.sql"));
    }
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream content;
    content << in.rdbuf();
    MigrationFile file;
    file.version = std::stoi(match[1].str());
    file.name = name;
    file.sql = content.str();
    file.checksum = Sha256Hex(file.sql);
    if (file.version == 0) {
      return absl::InvalidArgumentError(absl::StrCat(name, ": versions start at 0001"));
    }
    const absl::string_view first_line = absl::string_view(file.sql).substr(0, file.sql.find('\n'));
    if (absl::StripAsciiWhitespace(first_line) == kNoTransactionMarker) {
      // Refused here, before anything is applied, rather than when its turn comes.
      absl::StatusOr<std::vector<ConcurrentIndexStatement>> statements =
          ParseNoTransactionFile(name, file.sql);
      if (!statements.ok()) return statements.status();
      file.concurrent_statements = *std::move(statements);
    }
    files.push_back(std::move(file));
  }
  std::sort(files.begin(), files.end(),
            [](const MigrationFile& a, const MigrationFile& b) { return a.version < b.version; });
  for (size_t i = 1; i < files.size(); ++i) {
    if (files[i].version == files[i - 1].version) {
      return absl::InvalidArgumentError(absl::StrCat("migrations ", files[i - 1].name, " and ",
                                                     files[i].name, " share a version number"));
    }
  }
  return files;
}

absl::StatusOr<MigrationResult> ApplyMigrations(const std::string& db_url,
                                                const MigrationSet& set) {
  if (absl::Status status = ValidateSchemaName(set.schema); !status.ok()) return status;
  absl::StatusOr<std::vector<MigrationFile>> files = LoadMigrations(set.directory);
  if (!files.ok()) return files.status();
  MigrationResult result;
  try {
    pqxx::connection connection(db_url);
    const SchemaLock lock(connection, set.schema);
    std::map<int, AppliedRow> applied;
    {
      pqxx::work txn(connection, "migrate_ledger");
      applied = ReadLedger(txn, set.schema);
      txn.commit();
    }
    if (absl::Status status = CheckApplied(*files, applied, set.schema, /*allow_pending=*/true);
        !status.ok()) {
      return status;
    }
    std::vector<const MigrationFile*> pending;
    for (const MigrationFile& file : *files) {
      if (applied.count(file.version) > 0) {
        ++result.already_applied;
      } else {
        pending.push_back(&file);
      }
    }
    const std::string ledger_insert =
        absl::StrCat("INSERT INTO ", connection.quote_name(set.schema),
                     ".schema_migrations (version, name, checksum) VALUES ($1, $2, $3)");
    const std::string search_path =
        absl::StrCat("SET LOCAL search_path TO ", connection.quote_name(set.schema));
    // Runs of transactional files, each run in one transaction; a no-transaction file between
    // them, statement by statement.
    for (size_t next = 0; next < pending.size();) {
      if (pending[next]->outside_transaction()) {
        const MigrationFile& file = *pending[next++];
        if (absl::Status status = ApplyOutsideTransaction(connection, set.schema, file);
            !status.ok()) {
          return status;
        }
        pqxx::work txn(connection, "migrate_record");
        txn.exec_params0(ledger_insert, file.version, file.name, file.checksum);
        txn.commit();
        result.applied.push_back(file.name);
        continue;
      }
      pqxx::work txn(connection, "migrate");
      txn.exec0(search_path);
      std::vector<std::string> names;
      for (; next < pending.size() && !pending[next]->outside_transaction(); ++next) {
        const MigrationFile& file = *pending[next];
        try {
          txn.exec(file.sql);
        } catch (const pqxx::sql_error& e) {
          return absl::FailedPreconditionError(
              absl::StrCat("migration ", file.name, " failed: ", e.what()));
        }
        txn.exec_params0(ledger_insert, file.version, file.name, file.checksum);
        names.push_back(file.name);
      }
      txn.commit();
      result.applied.insert(result.applied.end(), names.begin(), names.end());
    }
  } catch (const pqxx::broken_connection& e) {
    return absl::UnavailableError(absl::StrCat("cannot reach PostgreSQL to migrate: ", e.what()));
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("migrating schema ", set.schema, ": ", e.what()));
  }
  return result;
}

absl::Status CheckMigrationsApplied(const std::string& db_url, const MigrationSet& set) {
  if (absl::Status status = ValidateSchemaName(set.schema); !status.ok()) return status;
  absl::StatusOr<std::vector<MigrationFile>> files = LoadMigrations(set.directory);
  if (!files.ok()) return files.status();
  try {
    pqxx::connection connection(db_url);
    pqxx::read_transaction txn(connection);
    std::map<int, AppliedRow> applied;
    const pqxx::result exists = txn.exec_params(
        "SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND "
        "table_name = 'schema_migrations'",
        set.schema);
    if (!exists.empty()) {
      for (const pqxx::row& row :
           txn.exec(absl::StrCat("SELECT version, name, checksum FROM ", txn.quote_name(set.schema),
                                 ".schema_migrations"))) {
        applied[row[0].as<int>()] = {row[1].as<std::string>(), row[2].as<std::string>()};
      }
    }
    return CheckApplied(*files, applied, set.schema, /*allow_pending=*/false);
  } catch (const pqxx::broken_connection& e) {
    return absl::UnavailableError(absl::StrCat("cannot reach PostgreSQL: ", e.what()));
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("checking migrations of ", set.schema, ": ", e.what()));
  }
}

}  // namespace parlor
