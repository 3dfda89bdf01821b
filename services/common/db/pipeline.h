#ifndef PARLOR_SERVICES_COMMON_DB_PIPELINE_H_
#define PARLOR_SERVICES_COMMON_DB_PIPELINE_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "pqxx/pqxx"

// libpq's handles, declared here so that users of this header need not include libpq-fe.h.
typedef struct pg_conn PGconn;      // NOLINT(modernize-use-using): libpq's own declaration
typedef struct pg_result PGresult;  // NOLINT(modernize-use-using)

namespace parlor {

// A parameter of a pipelined statement: text in the input syntax of the parameter's type, or the
// raw bytes of a bytea parameter; no value is NULL.
struct PgParam {
  std::optional<std::string> value;
  bool binary = false;

  static PgParam Text(std::string text) { return PgParam{std::move(text), false}; }
  static PgParam Bytes(std::string bytes) { return PgParam{std::move(bytes), true}; }
};

// One field of a pipelined statement's rows (text format), read as a pqxx::field is.
class PgField {
 public:
  PgField(const PGresult* result, int row, int column)
      : result_(result), row_(row), column_(column) {}
  bool is_null() const;
  const char* c_str() const;
  // The value converted as libpqxx converts text (pqxx::string_traits); NULL throws
  // pqxx::conversion_error, as pqxx::field::as() does.
  template <typename T>
  T as() const {
    if (is_null()) throw pqxx::conversion_error("a NULL field read as a value");
    T value;
    pqxx::from_string(c_str(), value);
    return value;
  }
  // A bytea field's bytes (its text form decoded).
  std::string bytes() const;

 private:
  const PGresult* result_;
  int row_;
  int column_;
};

class PgRow {
 public:
  PgRow(const PGresult* result, int row) : result_(result), row_(row) {}
  PgField operator[](int column) const { return PgField(result_, row_, column); }

 private:
  const PGresult* result_;
  int row_;
};

// The rows one statement of a pipelined exchange returned.
class PgRows {
 public:
  explicit PgRows(PGresult* result);
  int size() const;
  PgRow operator[](int row) const { return PgRow(result_.get(), row); }

 private:
  struct Clear {
    void operator()(PGresult* result) const;
  };
  std::unique_ptr<PGresult, Clear> result_;
};

// A connection to PostgreSQL in libpq's pipeline mode, for DbPool::TransactPipelined: the
// statements of a transaction go out together and their results come back together, so a
// transaction that reads, decides and writes costs two round trips (the read; the write with the
// commit) instead of five (BEGIN, settings, read, write, COMMIT).
class PipelineConnection {
 public:
  // Connects and applies `settings` (SET statements, one round trip); throws
  // pqxx::broken_connection when PostgreSQL cannot be reached.
  PipelineConnection(const std::string& url, const std::string& settings);
  ~PipelineConnection();
  PipelineConnection(const PipelineConnection&) = delete;
  PipelineConnection& operator=(const PipelineConnection&) = delete;

  bool is_open() const;

 private:
  friend class PipelineTxn;
  PGconn* connection_ = nullptr;
  // The prepared statements this connection holds.
  absl::flat_hash_set<std::string> prepared_;
};

// A transaction on a PipelineConnection. It is the extended protocol's implicit transaction: it
// begins with the first statement and ends at the Sync that Commit() sends, committed unless a
// statement failed; no BEGIN or COMMIT statement, no round trip of its own. Every method throws
// libpqxx's exceptions (pqxx::sql_error and its kinds by SQLSTATE, pqxx::broken_connection), so
// DbPool classifies a failure as it does any other; after a throw the connection is not reused.
class PipelineTxn {
 public:
  explicit PipelineTxn(PipelineConnection& connection) : connection_(connection) {}

  // Queues the fixed statement `sql` as the connection's prepared statement `name` (prepared in
  // the same write, the first time the connection runs it).
  void Queue(const std::string& name, const std::string& sql, std::vector<PgParam> params);

  // Sends the queued statements and returns their rows, in order; the transaction stays open
  // (one round trip).
  std::vector<PgRows> Exchange();

  // Sends the queued statements and the end of the transaction, and returns once it has
  // committed (one round trip); their rows go to the OnCommitted callback, if any. A statement's
  // failure rolls back the whole transaction (and throws).
  void Commit();

  // Called by Commit() with the rows of the statements it sent, once the transaction committed.
  void OnCommitted(std::function<void(const std::vector<PgRows>&)> committed) {
    committed_ = std::move(committed);
  }

 private:
  std::vector<PgRows> Send(bool end_transaction);
  [[noreturn]] void ThrowFor(const PGresult* result, const std::string& statement);

  PipelineConnection& connection_;
  // The names of the queued statements (empty: a Prepare), in order.
  std::vector<std::string> queued_;
  std::function<void(const std::vector<PgRows>&)> committed_;
};

}  // namespace parlor

#endif  // PARLOR_SERVICES_COMMON_DB_PIPELINE_H_
