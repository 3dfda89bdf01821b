#include "services/common/db/migrations.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
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

// Takes the lock, creates the schema and ledger if needed, and reads the ledger.
std::map<int, AppliedRow> LockAndReadLedger(pqxx::work& txn, const std::string& schema) {
  // Two-key advisory lock: a fixed namespace for migrations, then the schema.
  txn.exec_params("SELECT pg_advisory_xact_lock(hashtext('parlor.migrations'), hashtext($1))",
                  schema);
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
    const bool known = std::any_of(files.begin(), files.end(),
                                   [&](const MigrationFile& f) { return f.version == version; });
    if (!known) {
      // A newer release applied it; older replicas keep working during a rollout.
      spdlog::warn("schema {} has migration {} applied that this binary does not know", schema,
                   row.name);
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
    pqxx::work txn(connection, "migrate");
    std::map<int, AppliedRow> applied = LockAndReadLedger(txn, set.schema);
    if (absl::Status status = CheckApplied(*files, applied, set.schema, /*allow_pending=*/true);
        !status.ok()) {
      return status;
    }
    txn.exec0(absl::StrCat("SET LOCAL search_path TO ", txn.quote_name(set.schema)));
    for (const MigrationFile& file : *files) {
      if (applied.count(file.version) > 0) {
        ++result.already_applied;
        continue;
      }
      try {
        txn.exec(file.sql);
      } catch (const pqxx::sql_error& e) {
        return absl::FailedPreconditionError(
            absl::StrCat("migration ", file.name, " failed: ", e.what()));
      }
      txn.exec_params(absl::StrCat("INSERT INTO ", txn.quote_name(set.schema),
                                   ".schema_migrations (version, name, checksum) "
                                   "VALUES ($1, $2, $3)"),
                      file.version, file.name, file.checksum);
      result.applied.push_back(file.name);
    }
    txn.commit();
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
